package website

import (
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

const ns = `xmlns="http://s3.amazonaws.com/doc/2006-03-01/"`

// TestParseValid checks documents S3 accepts and the canonical form they
// are stored in.
func TestParseValid(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"index only", `<WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix></IndexDocument></WebsiteConfiguration>`,
			`<WebsiteConfiguration ` + ns + `><IndexDocument><Suffix>index.html</Suffix></IndexDocument></WebsiteConfiguration>`},
		{"redirect all", `<WebsiteConfiguration ` + ns + `><RedirectAllRequestsTo><HostName>example.com</HostName><Protocol>https</Protocol></RedirectAllRequestsTo></WebsiteConfiguration>`,
			`<WebsiteConfiguration ` + ns + `><RedirectAllRequestsTo><HostName>example.com</HostName><Protocol>https</Protocol></RedirectAllRequestsTo></WebsiteConfiguration>`},
		{"rules", `<WebsiteConfiguration>
			<IndexDocument><Suffix>index.html</Suffix></IndexDocument>
			<ErrorDocument><Key>error.html</Key></ErrorDocument>
			<RoutingRules>
				<RoutingRule><Condition><KeyPrefixEquals>docs/</KeyPrefixEquals></Condition><Redirect><ReplaceKeyPrefixWith>documents/</ReplaceKeyPrefixWith></Redirect></RoutingRule>
				<RoutingRule><Condition><HttpErrorCodeReturnedEquals>404</HttpErrorCodeReturnedEquals></Condition><Redirect><HostName>h.example</HostName><HttpRedirectCode>302</HttpRedirectCode></Redirect></RoutingRule>
			</RoutingRules></WebsiteConfiguration>`,
			`<WebsiteConfiguration ` + ns + `><IndexDocument><Suffix>index.html</Suffix></IndexDocument><ErrorDocument><Key>error.html</Key></ErrorDocument><RoutingRules>` +
				`<RoutingRule><Condition><KeyPrefixEquals>docs/</KeyPrefixEquals></Condition><Redirect><ReplaceKeyPrefixWith>documents/</ReplaceKeyPrefixWith></Redirect></RoutingRule>` +
				`<RoutingRule><Condition><HttpErrorCodeReturnedEquals>404</HttpErrorCodeReturnedEquals></Condition><Redirect><HostName>h.example</HostName><HttpRedirectCode>302</HttpRedirectCode></Redirect></RoutingRule>` +
				`</RoutingRules></WebsiteConfiguration>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := string(c.Marshal()); got != tc.want {
				t.Errorf("Marshal:\n got %s\nwant %s", got, tc.want)
			}
			again, err := Parse(c.Marshal())
			if err != nil || string(again.Marshal()) != tc.want {
				t.Errorf("the canonical form does not parse to itself: %v", err)
			}
		})
	}
}

// TestParseInvalid checks the errors, and S3's messages, of documents S3
// refuses.
func TestParseInvalid(t *testing.T) {
	idx := `<IndexDocument><Suffix>index.html</Suffix></IndexDocument>`
	rule := func(body string) string {
		return `<WebsiteConfiguration>` + idx + `<RoutingRules><RoutingRule>` + body + `</RoutingRule></RoutingRules></WebsiteConfiguration>`
	}
	for _, tc := range []struct {
		name, doc string
		code      s3err.Code
		message   string
	}{
		{"not xml", `<WebsiteConfiguration>`, s3err.MalformedXML, ""},
		{"wrong root", `<CORSConfiguration>` + idx + `</CORSConfiguration>`, s3err.MalformedXML, ""},
		{"wrong namespace", `<WebsiteConfiguration xmlns="urn:x">` + idx + `</WebsiteConfiguration>`, s3err.MalformedXML, ""},
		{"empty", `<WebsiteConfiguration/>`, s3err.InvalidArgument, "A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty"},
		{"empty suffix", `<WebsiteConfiguration><IndexDocument><Suffix></Suffix></IndexDocument></WebsiteConfiguration>`, s3err.InvalidArgument, "The IndexDocument Suffix is not well formed"},
		{"suffix with slash", `<WebsiteConfiguration><IndexDocument><Suffix>a/index.html</Suffix></IndexDocument></WebsiteConfiguration>`, s3err.InvalidArgument, "The IndexDocument Suffix is not well formed"},
		{"empty error key", `<WebsiteConfiguration>` + idx + `<ErrorDocument><Key></Key></ErrorDocument></WebsiteConfiguration>`, s3err.InvalidArgument, "The ErrorDocument Key is not well formed"},
		{"redirect all and index", `<WebsiteConfiguration><RedirectAllRequestsTo><HostName>h</HostName></RedirectAllRequestsTo>` + idx + `</WebsiteConfiguration>`,
			s3err.InvalidArgument, "RedirectAllRequestsTo cannot be provided in conjunction with other Routing Rules."},
		{"redirect all protocol", `<WebsiteConfiguration><RedirectAllRequestsTo><HostName>h</HostName><Protocol>ftp</Protocol></RedirectAllRequestsTo></WebsiteConfiguration>`,
			s3err.InvalidArgument, "Invalid protocol, protocol can be http or https. If not defined the protocol will be selected automatically."},
		{"redirect all no host", `<WebsiteConfiguration><RedirectAllRequestsTo><Protocol>https</Protocol></RedirectAllRequestsTo></WebsiteConfiguration>`,
			s3err.InvalidArgument, "A host name must be provided for RedirectAllRequestsTo."},
		{"empty routing rules", `<WebsiteConfiguration>` + idx + `<RoutingRules></RoutingRules></WebsiteConfiguration>`, s3err.MalformedXML, ""},
		{"rule without redirect", rule(`<Condition><KeyPrefixEquals>a</KeyPrefixEquals></Condition>`), s3err.MalformedXML, ""},
		{"empty condition", rule(`<Condition></Condition><Redirect><HostName>h</HostName></Redirect>`), s3err.InvalidArgument,
			"Condition cannot be empty. To redirect all requests without a condition, the condition element shouldn't be present."},
		{"error code not 4xx/5xx", rule(`<Condition><HttpErrorCodeReturnedEquals>200</HttpErrorCodeReturnedEquals></Condition><Redirect><HostName>h</HostName></Redirect>`),
			s3err.InvalidArgument, "The provided HTTP error code (200) is not valid. Valid codes are 4XX or 5XX."},
		{"both replacements", rule(`<Redirect><ReplaceKeyPrefixWith>a</ReplaceKeyPrefixWith><ReplaceKeyWith>b</ReplaceKeyWith></Redirect>`),
			s3err.InvalidArgument, "You can only define ReplaceKeyPrefix or ReplaceKey but not both."},
		{"redirect code 200", rule(`<Redirect><HttpRedirectCode>200</HttpRedirectCode></Redirect>`),
			s3err.InvalidArgument, "The provided HTTP redirect code (200) is not valid. Valid codes are 3XX except 300."},
		{"redirect code 300", rule(`<Redirect><HttpRedirectCode>300</HttpRedirectCode></Redirect>`),
			s3err.InvalidArgument, "The provided HTTP redirect code (300) is not valid. Valid codes are 3XX except 300."},
		{"empty redirect", rule(`<Redirect></Redirect>`), s3err.InvalidArgument,
			"The Redirect element must contain at least one of HostName, Protocol, ReplaceKeyPrefixWith, ReplaceKeyWith or HttpRedirectCode."},
		{"rule protocol", rule(`<Redirect><Protocol>gopher</Protocol></Redirect>`), s3err.InvalidArgument,
			"Invalid protocol, protocol can be http or https. If not defined the protocol will be selected automatically."},
		{"too many rules", `<WebsiteConfiguration>` + idx + `<RoutingRules>` + strings.Repeat(`<RoutingRule><Redirect><HostName>h</HostName></Redirect></RoutingRule>`, MaxRoutingRules+1) + `</RoutingRules></WebsiteConfiguration>`,
			s3err.InvalidArgument, "The number of routing rules must not exceed the allowed limit of 50 rules."},
		{"too large", `<WebsiteConfiguration>` + strings.Repeat(" ", MaxSize) + `</WebsiteConfiguration>`, s3err.MaxMessageLengthExceeded, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			e := s3err.As(err)
			if err == nil || e.Code != tc.code {
				t.Fatalf("Parse = %v, want %v", err, tc.code)
			}
			if tc.message != "" && e.Text() != tc.message {
				t.Errorf("message %q, want %q", e.Text(), tc.message)
			}
		})
	}
}

// TestParseTokenLimit checks that a document of many tokens, or deep
// nesting, is refused before it is unmarshalled, and that the largest
// valid document (50 rules with every element, indented) fits.
func TestParseTokenLimit(t *testing.T) {
	many := `<WebsiteConfiguration>` + strings.Repeat("<x/>", maxTokens) + `</WebsiteConfiguration>`
	if _, err := Parse([]byte(many)); s3err.As(err).Code != s3err.MalformedXML {
		t.Errorf("%d empty elements: %v, want MalformedXML", maxTokens, err)
	}
	deep := `<WebsiteConfiguration>` + strings.Repeat("<x>", maxDepth+1) + strings.Repeat("</x>", maxDepth+1) + `</WebsiteConfiguration>`
	if _, err := Parse([]byte(deep)); s3err.As(err).Code != s3err.MalformedXML {
		t.Errorf("nesting %d deep: %v, want MalformedXML", maxDepth+1, err)
	}
	full := "\n\t\t<RoutingRule>\n\t\t\t<Condition>\n\t\t\t\t<KeyPrefixEquals>docs/</KeyPrefixEquals>\n\t\t\t\t<HttpErrorCodeReturnedEquals>404</HttpErrorCodeReturnedEquals>\n\t\t\t</Condition>\n" +
		"\t\t\t<Redirect>\n\t\t\t\t<Protocol>https</Protocol>\n\t\t\t\t<HostName>h</HostName>\n\t\t\t\t<ReplaceKeyPrefixWith>d/</ReplaceKeyPrefixWith>\n\t\t\t\t<HttpRedirectCode>302</HttpRedirectCode>\n\t\t\t</Redirect>\n\t\t</RoutingRule>"
	largest := "<WebsiteConfiguration>\n\t<IndexDocument>\n\t\t<Suffix>index.html</Suffix>\n\t</IndexDocument>\n\t<ErrorDocument>\n\t\t<Key>e.html</Key>\n\t</ErrorDocument>\n\t<RoutingRules>" +
		strings.Repeat(full, MaxRoutingRules) + "\n\t</RoutingRules>\n</WebsiteConfiguration>"
	if _, err := Parse([]byte(largest)); err != nil {
		t.Errorf("the largest valid document: %v", err)
	}
}

// FuzzParse checks that Parse never panics and that what it accepts
// marshals to a document it accepts again, unchanged.
func FuzzParse(f *testing.F) {
	// Seeds: an index document, a redirect-all, a rule, and broken XML.
	f.Add([]byte(`<WebsiteConfiguration><IndexDocument><Suffix>i.html</Suffix></IndexDocument></WebsiteConfiguration>`))
	f.Add([]byte(`<WebsiteConfiguration><RedirectAllRequestsTo><HostName>h</HostName></RedirectAllRequestsTo></WebsiteConfiguration>`))
	f.Add([]byte(`<WebsiteConfiguration><IndexDocument><Suffix>i</Suffix></IndexDocument><RoutingRules><RoutingRule><Redirect><ReplaceKeyWith>k</ReplaceKeyWith></Redirect></RoutingRule></RoutingRules></WebsiteConfiguration>`))
	f.Add([]byte(`<WebsiteConfiguration><`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if s3err.As(err).Code == s3err.InternalError {
				t.Fatalf("Parse error without an S3 code: %v", err)
			}
			return
		}
		out := c.Marshal()
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("the canonical form %s does not parse: %v", out, err)
		}
		if string(again.Marshal()) != string(out) {
			t.Fatalf("the canonical form changed: %s then %s", out, again.Marshal())
		}
	})
}
