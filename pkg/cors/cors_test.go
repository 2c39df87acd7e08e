package cors

import (
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

const sample = `<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <CORSRule>
    <ID>uploads</ID>
    <AllowedOrigin>https://*.example.com</AllowedOrigin>
    <AllowedMethod>PUT</AllowedMethod>
    <AllowedMethod>POST</AllowedMethod>
    <AllowedHeader>x-amz-*</AllowedHeader>
    <AllowedHeader>Content-Type</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>3000</MaxAgeSeconds>
  </CORSRule>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedMethod>HEAD</AllowedMethod>
  </CORSRule>
</CORSConfiguration>`

func TestParseAndMarshal(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rules) != 2 || c.Rules[0].ID != "uploads" || *c.Rules[0].MaxAgeSeconds != 3000 || c.Rules[1].MaxAgeSeconds != nil {
		t.Fatalf("parsed %+v", c)
	}
	out := c.Marshal()
	again, err := Parse(out)
	if err != nil {
		t.Fatalf("canonical form %s does not parse: %v", out, err)
	}
	if string(again.Marshal()) != string(out) {
		t.Fatalf("canonical form not stable:\n%s\n%s", out, again.Marshal())
	}
	if !strings.Contains(string(out), `xmlns="http://s3.amazonaws.com/doc/2006-03-01/"`) {
		t.Fatalf("no namespace: %s", out)
	}
	// Without a namespace is accepted too, as S3 does.
	if _, err := Parse([]byte(`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`)); err != nil {
		t.Fatal(err)
	}
}

func TestParseRejects(t *testing.T) {
	rule := func(inner string) string {
		return `<CORSConfiguration><CORSRule>` + inner + `</CORSRule></CORSConfiguration>`
	}
	const ok = `<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>`
	cases := []struct {
		name string
		doc  string
		code s3err.Code
		msg  string
	}{
		{"not xml", `{`, s3err.MalformedXML, ""},
		{"wrong root", `<Other/>`, s3err.MalformedXML, ""},
		{"wrong namespace", `<CORSConfiguration xmlns="urn:x"><CORSRule>` + ok + `</CORSRule></CORSConfiguration>`, s3err.MalformedXML, ""},
		{"no rules", `<CORSConfiguration/>`, s3err.MalformedXML, ""},
		{"too many rules", `<CORSConfiguration>` + strings.Repeat(`<CORSRule>`+ok+`</CORSRule>`, 101) + `</CORSConfiguration>`, s3err.MalformedXML, "100 rules"},
		{"no origin", rule(`<AllowedMethod>GET</AllowedMethod>`), s3err.MalformedXML, ""},
		{"no method", rule(`<AllowedOrigin>*</AllowedOrigin>`), s3err.MalformedXML, ""},
		{"bad method", rule(`<AllowedOrigin>*</AllowedOrigin><AllowedMethod>PATCH</AllowedMethod>`), s3err.InvalidRequest, "PATCH"},
		{"two origin wildcards", rule(`<AllowedOrigin>*.*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>`), s3err.InvalidRequest, "more than one wildcard"},
		{"two header wildcards", rule(ok + `<AllowedHeader>*-*</AllowedHeader>`), s3err.InvalidRequest, "more than one wildcard"},
		{"expose wildcard", rule(ok + `<ExposeHeader>*</ExposeHeader>`), s3err.InvalidRequest, "ExposeHeader"},
		{"long id", rule(ok + `<ID>` + strings.Repeat("i", 256) + `</ID>`), s3err.InvalidRequest, "255"},
		{"bad max age", rule(ok + `<MaxAgeSeconds>soon</MaxAgeSeconds>`), s3err.MalformedXML, ""},
		{"negative max age", rule(ok + `<MaxAgeSeconds>-1</MaxAgeSeconds>`), s3err.MalformedXML, ""},
		{"two max ages", rule(ok + `<MaxAgeSeconds>1</MaxAgeSeconds><MaxAgeSeconds>2</MaxAgeSeconds>`), s3err.MalformedXML, ""},
		{"unknown rule element", rule(ok + `<AllowedOrigins>x</AllowedOrigins>`), s3err.MalformedXML, "AllowedOrigins"},
		{"unknown top element", `<CORSConfiguration><Rule/><CORSRule>` + ok + `</CORSRule></CORSConfiguration>`, s3err.MalformedXML, "Rule"},
		{"too large", `<CORSConfiguration>` + strings.Repeat(" ", MaxSize) + `</CORSConfiguration>`, s3err.MaxMessageLengthExceeded, ""},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc))
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		e := s3err.As(err)
		if e.Code != c.code || !strings.Contains(e.Text(), c.msg) {
			t.Errorf("%s: got %s %q, want %s containing %q", c.name, e.Code, e.Text(), c.code, c.msg)
		}
	}
}

func TestMatch(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		origin, method, headers string
		wantRule                int // index, or -1 for no match
	}{
		{"https://app.example.com", "PUT", "", 0},
		{"https://app.example.com", "PUT", "Content-Type, X-Amz-Date", 0},
		{"https://app.example.com", "PUT", "authorization", -1},
		{"https://app.example.com", "DELETE", "", -1},
		{"https://example.com", "PUT", "", -1}, // the wildcard needs the dot before it
		{"http://app.example.com", "POST", "", -1},
		{"https://app.example.com", "GET", "", 1},
		{"https://anything", "HEAD", "", 1},
		{"https://anything", "GET", "x-custom", -1}, // rule 1 allows no headers
		{"https://anything", "get", "", -1},         // methods are case-sensitive
	}
	for _, tc := range cases {
		r := c.Match(tc.origin, tc.method, RequestHeaders(tc.headers))
		got := -1
		for i := range c.Rules {
			if r == &c.Rules[i] {
				got = i
			}
		}
		if got != tc.wantRule {
			t.Errorf("Match(%q, %s, %q) = rule %d, want %d", tc.origin, tc.method, tc.headers, got, tc.wantRule)
		}
	}
	var none *Config
	if none.Match("o", "GET", nil) != nil {
		t.Error("a nil config matches nothing")
	}
}

func TestResponse(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	h := c.Rules[0].Response("https://a.example.com", []string{"content-type", "x-amz-date"})
	want := Headers{AllowOrigin: "https://a.example.com", AllowCredentials: true, AllowMethods: "PUT, POST",
		AllowHeaders: "content-type, x-amz-date", ExposeHeaders: "ETag", MaxAge: "3000"}
	if h != want {
		t.Errorf("rule 0: %+v, want %+v", h, want)
	}
	h = c.Rules[1].Response("https://x", nil)
	want = Headers{AllowOrigin: "*", AllowMethods: "GET, HEAD"}
	if h != want {
		t.Errorf("rule 1: %+v, want %+v", h, want)
	}
}

func TestWildcard(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true},
		{"*", "x", true},
		{"a*", "a", true},
		{"a*a", "a", false},
		{"a*a", "aa", true},
		{"*.com", "x.com", true},
		{"x", "x", true},
		{"x", "X", false},
	} {
		if got := wildcard(c.p, c.s); got != c.want {
			t.Errorf("wildcard(%q, %q) = %v", c.p, c.s, got)
		}
	}
	if got := RequestHeaders(" A, ,b "); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("RequestHeaders = %q", got)
	}
}
