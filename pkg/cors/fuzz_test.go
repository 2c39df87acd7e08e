package cors

import (
	"bytes"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// FuzzParse checks that Parse never panics, fails only with S3 errors,
// and that an accepted configuration's canonical form parses to the same
// canonical form.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))                                                                                                                               // two rules, every element
	f.Add([]byte(`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`))     // minimal, no namespace
	f.Add([]byte(`<CORSConfiguration><CORSRule><AllowedOrigin>**</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`))    // two wildcards
	f.Add([]byte(`<CORSConfiguration><CORSRule><MaxAgeSeconds>99999999999999999999</MaxAgeSeconds></CORSRule></CORSConfiguration>`))                    // overflowing max age
	f.Add([]byte(`<CORSConfiguration><CORSRule><AllowedOrigin>&amp;</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`)) // escaped text
	f.Add([]byte(`<?xml version="1.0"?><CORSConfiguration/>`))                                                                                          // no rules
	f.Add([]byte(`<a`))                                                                                                                                 // truncated
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			switch code := s3err.As(err).Code; code {
			case s3err.MalformedXML, s3err.InvalidRequest, s3err.MaxMessageLengthExceeded:
			default:
				t.Fatalf("Parse error code %s", code)
			}
			return
		}
		out := c.Marshal()
		c2, err := Parse(out)
		if err != nil {
			t.Fatalf("canonical form %s of %q does not parse: %v", out, data, err)
		}
		if out2 := c2.Marshal(); !bytes.Equal(out, out2) {
			t.Fatalf("canonical form not stable:\n%s\n%s", out, out2)
		}
		if r := c.Match("https://example.com", "GET", []string{"x-amz-date"}); r != nil {
			r.Response("https://example.com", nil)
		}
	})
}
