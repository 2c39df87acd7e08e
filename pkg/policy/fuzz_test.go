package policy

import (
	"regexp"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// FuzzParse checks that any document either parses or fails with
// MalformedPolicy, never panics, and that an accepted policy evaluates
// without panicking, the same way twice, for requests built from the
// document itself; Allows never grants what Evaluate denies.
func FuzzParse(f *testing.F) {
	f.Add([]byte(publicRead))                                                                                                                                                                                                                                                                                                                                                                // the standard public-read policy
	f.Add([]byte(`{"Statement":{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::site","arn:aws:s3:::site/p/*"]}}`))                                                                                                                                                                                                           // single statement, lists
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"}]}`))                                                                                                                                                                                                                                       // Deny
	f.Add([]byte(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{}}]}`))                                                                                                                                                                                                                                              // empty Condition
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/a"},"NotAction":"s3:Delete*","NotResource":"arn:aws:s3:::site/${aws:username}/*"}]}`))                                                                                                                                                                           // Not elements and a variable
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","NotPrincipal":{"CanonicalUser":"` + strings.Repeat("0", 64) + `"},"Action":"s3:*","Resource":"*","Condition":{"ForAllValues:StringLikeIfExists":{"s3:RequestObjectTagKeys":["a*","${?}"]},"NotIpAddress":{"aws:SourceIp":"::/0"},"DateLessThan":{"aws:CurrentTime":1},"ArnLike":{"aws:SourceArn":"arn:*:s3"}}}]}`)) // set operators, IP, dates, short ARN
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/${aws:username, 'x'}/${open"}]}`))                                                                                                                                                                                                            // default value, unterminated variable
	f.Add([]byte(`{"Statement":[null]}`))                                                                                                                                                                                                                                                                                                                                                    // null statement
	f.Add([]byte(`{"Statement":{"Principal":{}}}`))                                                                                                                                                                                                                                                                                                                                          // empty principal
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[]} `))                                                                                                                                                                                                                                                                                                                                // trailing space
	f.Add([]byte("\xff{"))                                                                                                                                                                                                                                                                                                                                                                   // not JSON
	f.Fuzz(func(t *testing.T, doc []byte) {
		p, err := Parse(doc, "site")
		if err != nil {
			if c := s3err.As(err).Code; c != s3err.MalformedPolicy {
				t.Fatalf("Parse error code %s, want MalformedPolicy", c)
			}
			return
		}
		p.IsPublic()
		words := strings.FieldsFunc(string(doc), func(r rune) bool { return r == '"' })
		if len(words) > 16 {
			words = words[:16]
		}
		for _, w := range append(words, "", "a", "public/x") {
			for _, pr := range []Principal{{}, {Kind: User, Username: w, Account: w, CanonicalID: w}, {Kind: Root, Account: "123456789012"}} {
				r := Request{Principal: pr, Action: "s3:" + w, Resource: "arn:aws:s3:::site/" + w, Conditions: Conditions{}}
				r.Conditions.Set("aws:SourceIp", w)
				r.Conditions.Set("s3:prefix", w, w)
				r.Conditions.Set("aws:CurrentTime", w)
				d1, d2 := p.Evaluate(&r), p.Evaluate(&r)
				if d1 != d2 {
					t.Fatalf("Evaluate is not deterministic: %v then %v", d1, d2)
				}
				r.Action = GetObject
				if p.Allows(GetObject, w) && p.Evaluate(&Request{Principal: Principal{}, Action: GetObject, Resource: "arn:aws:s3:::site/" + w, Conditions: r.Conditions}) == Deny {
					t.Fatalf("Allows(GetObject, %q) but Evaluate denies it", w)
				}
			}
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
