package policy

import (
	"regexp"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// FuzzParse checks that any document either parses or fails with
// MalformedPolicy, never panics, and that an accepted policy is public and
// evaluates without panicking.
func FuzzParse(f *testing.F) {
	f.Add([]byte(publicRead))                                                                                                                                                      // the standard public-read policy
	f.Add([]byte(`{"Statement":{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::site","arn:aws:s3:::site/p/*"]}}`)) // every accepted shape
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"}]}`))                             // Deny
	f.Add([]byte(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{}}]}`))                                    // Condition
	f.Add([]byte(`{"Statement":[null]}`))                                                                                                                                          // null statement
	f.Add([]byte(`{"Statement":{"Principal":{}}}`))                                                                                                                                // empty principal
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[]} `))                                                                                                                      // trailing space
	f.Add([]byte("\xff{"))                                                                                                                                                         // not JSON
	f.Fuzz(func(t *testing.T, doc []byte) {
		p, err := Parse(doc, "site")
		if err != nil {
			if c := s3err.As(err).Code; c != s3err.MalformedPolicy {
				t.Fatalf("Parse error code %s, want MalformedPolicy", c)
			}
			return
		}
		if !p.IsPublic() {
			t.Fatalf("accepted policy grants nothing: %q", doc)
		}
		for _, k := range []string{"", "a", "public/x", string(doc)} {
			p.Allows(GetObject, k)
		}
	})
}

// FuzzMatch compares match with a regular-expression model of IAM
// wildcards.
func FuzzMatch(f *testing.F) {
	f.Add("*", "a/b")
	f.Add("a*c", "abbbc")
	f.Add("*??", "€")
	f.Add("?", "\xff")
	f.Add("a?*b", "a€b")
	f.Add("*a*b*c*", "aXbXc")
	f.Fuzz(func(t *testing.T, pattern, key string) {
		if len(pattern) > 64 || len(key) > 256 {
			return
		}
		var re strings.Builder
		re.WriteString(`(?s)\A`)
		for _, r := range pattern {
			switch r {
			case '*':
				re.WriteString(`.*`)
			case '?':
				re.WriteString(`.`)
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		re.WriteString(`\z`)
		if !validUTF8(pattern) {
			// QuoteMeta of invalid bytes does not round-trip through range.
			return
		}
		want := regexp.MustCompile(re.String()).MatchString(key)
		if got := match(pattern, key); got != want {
			t.Fatalf("match(%q, %q) = %v, regexp model says %v", pattern, key, got, want)
		}
	})
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "") == s }
