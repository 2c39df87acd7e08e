package cors

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// referenceParse is Parse as it was before the token-by-token decoder:
// xml.Unmarshal into structs. The decoder must answer as it does for
// every document within maxTokens.
func referenceParse(data []byte) (*Config, error) {
	type unknownElement struct{ XMLName xml.Name }
	type refRule struct {
		ID             []string         `xml:"ID"`
		AllowedHeaders []string         `xml:"AllowedHeader"`
		AllowedMethods []string         `xml:"AllowedMethod"`
		AllowedOrigins []string         `xml:"AllowedOrigin"`
		ExposeHeaders  []string         `xml:"ExposeHeader"`
		MaxAgeSeconds  []string         `xml:"MaxAgeSeconds"`
		Unknown        []unknownElement `xml:",any"`
	}
	var ref struct {
		XMLName xml.Name         `xml:"CORSConfiguration"`
		Rules   []refRule        `xml:"CORSRule"`
		Unknown []unknownElement `xml:",any"`
	}
	if len(data) > MaxSize {
		return nil, s3err.New(s3err.MaxMessageLengthExceeded)
	}
	if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&ref); err != nil {
		return nil, malformedXML("")
	}
	if ns := ref.XMLName.Space; ns != "" && ns != s3NS {
		return nil, malformedXML("")
	}
	if len(ref.Unknown) > 0 {
		return nil, malformedXML("Unknown element " + ref.Unknown[0].XMLName.Local + " in CORSConfiguration.")
	}
	if len(ref.Rules) == 0 {
		return nil, malformedXML("")
	}
	if len(ref.Rules) > MaxRules {
		return nil, malformedXML("The number of CORS rules should not exceed allowed limit of 100 rules.")
	}
	c := &Config{NS: s3NS}
	for _, r := range ref.Rules {
		rr := rawRule{ID: r.ID, AllowedHeaders: r.AllowedHeaders, AllowedMethods: r.AllowedMethods,
			AllowedOrigins: r.AllowedOrigins, ExposeHeaders: r.ExposeHeaders, MaxAgeSeconds: r.MaxAgeSeconds}
		if len(r.Unknown) > 0 {
			rr.unknown = r.Unknown[0].XMLName.Local
		}
		rule, err := rr.rule()
		if err != nil {
			return nil, err
		}
		c.Rules = append(c.Rules, rule)
	}
	return c, nil
}

// tokenCount is the number of tokens xml.Decoder.Token returns for data
// before its first error.
func tokenCount(data []byte) int {
	d := xml.NewDecoder(bytes.NewReader(data))
	n := 0
	for ; n <= maxTokens+1; n++ {
		if _, err := d.Token(); err != nil {
			break
		}
	}
	return n
}

// checkAsReference fails unless Parse answers data as referenceParse
// does: the same configuration, or an error of the same code and message.
func checkAsReference(t *testing.T, data []byte) {
	t.Helper()
	got, gotErr := Parse(data)
	want, wantErr := referenceParse(data)
	if gotErr != nil || wantErr != nil {
		g, w := s3err.As(gotErr), s3err.As(wantErr)
		if gotErr == nil || wantErr == nil || g.Code != w.Code || g.Message != w.Message {
			t.Fatalf("%q:\n got  %v %v\n want %v %v", data, got, gotErr, want, wantErr)
		}
		return
	}
	if len(got.Rules) == 0 {
		got.Rules = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got  %+v\n want %+v", data, got, want)
	}
}

var decodeCases = []string{
	sample,
	`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`,
	`<?xml version="1.0"?><!-- c --><CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"> <CORSRule> <AllowedOrigin>a<x>b</x>c</AllowedOrigin><AllowedMethod><![CDATA[PUT]]></AllowedMethod></CORSRule></CORSConfiguration>trailing <garbage`,
	`<s:CORSConfiguration xmlns:s="urn:other"><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></s:CORSConfiguration>`,
	`<CORSConfiguration><CORSRule xmlns="urn:x"><ID>a</ID><ID>b</ID><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`,
	`<CORSConfiguration><Bogus><CORSRule/></Bogus><CORSRule><Nope/><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`,
	`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><MaxAgeSeconds> 30 </MaxAgeSeconds></CORSRule><CORSRule><AllowedMethod>PATCH</AllowedMethod><AllowedOrigin>x</AllowedOrigin></CORSRule></CORSConfiguration>`,
	`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule>`,
	`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedMethod></CORSRule></CORSConfiguration>`,
	`<Other/>`,
	``,
	`<CORSConfiguration/>`,
	`<CORSConfiguration>` + strings.Repeat(`<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule>`, 101) + `</CORSConfiguration>`,
}

// TestDecodeMatchesUnmarshal checks the token-by-token decoder against
// xml.Unmarshal on documents valid and not.
func TestDecodeMatchesUnmarshal(t *testing.T) {
	for _, c := range decodeCases {
		checkAsReference(t, []byte(c))
	}
}

// TestParseTokenLimit checks that a configuration of more than maxTokens
// tokens is MalformedXML, though it is valid but for them (comments and
// white space), and that one of 100 realistic rules is accepted.
func TestParseTokenLimit(t *testing.T) {
	padded := []byte(`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>` +
		strings.Repeat(` <!---->`, maxTokens/2) + `</CORSRule></CORSConfiguration>`)
	if _, err := referenceParse(padded); err != nil {
		t.Fatalf("xml.Unmarshal refuses the padded document: %v", err)
	}
	if _, err := Parse(padded); s3err.As(err).Code != s3err.MalformedXML {
		t.Fatalf("%d tokens: %v, want MalformedXML", tokenCount(padded), err)
	}
	var b strings.Builder
	b.WriteString("<CORSConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\n")
	for i := range MaxRules {
		b.WriteString("  <CORSRule>\n    <ID>rule-" + strings.Repeat("x", i%10) + "</ID>\n")
		b.WriteString("    <AllowedMethod>GET</AllowedMethod>\n    <AllowedMethod>PUT</AllowedMethod>\n")
		b.WriteString("    <AllowedOrigin>https://a.example.com</AllowedOrigin>\n    <AllowedOrigin>https://*.example.org</AllowedOrigin>\n")
		b.WriteString("    <AllowedHeader>authorization</AllowedHeader>\n    <AllowedHeader>content-type</AllowedHeader>\n    <AllowedHeader>x-amz-*</AllowedHeader>\n")
		b.WriteString("    <ExposeHeader>ETag</ExposeHeader>\n    <ExposeHeader>x-amz-request-id</ExposeHeader>\n    <ExposeHeader>x-amz-version-id</ExposeHeader>\n")
		b.WriteString("    <MaxAgeSeconds>3000</MaxAgeSeconds>\n  </CORSRule>\n")
	}
	b.WriteString("</CORSConfiguration>\n")
	c, err := Parse([]byte(b.String()))
	if err != nil || len(c.Rules) != MaxRules {
		t.Fatalf("100 rules (%d bytes, %d tokens): %v", b.Len(), tokenCount([]byte(b.String())), err)
	}
	checkAsReference(t, []byte(b.String()))
}

// FuzzDecodeMatchesUnmarshal is the differential check of
// TestDecodeMatchesUnmarshal on any document within maxTokens.
func FuzzDecodeMatchesUnmarshal(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if tokenCount(data) > maxTokens-1 {
			return
		}
		checkAsReference(t, data)
	})
}
