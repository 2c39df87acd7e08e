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
	// The standard public-read policy.
	f.Add([]byte(publicRead))
	// Single statement, lists.
	f.Add([]byte(`{"Statement":{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::site","arn:aws:s3:::site/p/*"]}}`))
	// Deny.
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"}]}`))
	// Empty Condition.
	f.Add([]byte(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{}}]}`))
	// Not elements and a variable.
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/a"},"NotAction":"s3:Delete*","NotResource":"arn:aws:s3:::site/${aws:username}/*"}]}`))
	// Set operators, IP, dates, short ARN.
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","NotPrincipal":{"CanonicalUser":"` + strings.Repeat("0", 64) + `"},"Action":"s3:*","Resource":"*","Condition":{"ForAllValues:StringLikeIfExists":{"s3:RequestObjectTagKeys":["a*","${?}"]},"NotIpAddress":{"aws:SourceIp":"::/0"},"DateLessThan":{"aws:CurrentTime":1},"ArnLike":{"aws:SourceArn":"arn:*:s3"}}}]}`))
	// Default value, unterminated variable.
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/${aws:username, 'x'}/${open"}]}`))
	// Null statement.
	f.Add([]byte(`{"Statement":[null]}`))
	// Empty principal.
	f.Add([]byte(`{"Statement":{"Principal":{}}}`))
	// Trailing space.
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[]} `))
	// Not JSON.
	f.Add([]byte("\xff{"))
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

// FuzzEvaluate evaluates a fixed set of policies that use every
// operator, variables and the Not elements against fuzzed requests: no
// panic, the same answer twice, and the answer of a bucket policy for a
// resource outside its bucket is always NoDecision.
func FuzzEvaluate(f *testing.F) {
	// An allowed read.
	f.Add("s3:GetObject", "arn:aws:s3:::site/home/alice/x", "alice", "10.1.2.3", "2026-01-01T00:00:00Z")
	// A denied write, mapped address, epoch time.
	f.Add("s3:PutObject", "arn:aws:s3:::site/keep/x", "", "::ffff:10.0.0.1", "1767225600")
	// Wildcard-looking inputs.
	f.Add("S3:*", "arn:aws:s3:::site", "${aws:username}", "not an ip", "")
	// Another bucket.
	f.Add("s3:ListBucket", "arn:aws:s3:::other/x", "a*", "2001:db8::1", "yesterday")
	// Invalid UTF-8.
	f.Add("\xff", "arn:aws:s3:::site/\xff", "\xff", "\xff", "\xff")
	p, err := Parse([]byte(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/alice"},"Action":"s3:*Object","Resource":"arn:aws:s3:::site/home/${aws:username}/*","Condition":{"IpAddress":{"aws:SourceIp":["10.0.0.0/8","2001:db8::/32"]},"DateLessThanIfExists":{"aws:CurrentTime":"2030-01-01"}}},
		{"Effect":"Allow","Principal":"*","NotAction":"s3:Delete*","NotResource":"arn:aws:s3:::site/private/*","Condition":{"ForAllValues:StringLike":{"s3:prefix":["a*","${*}?"]},"NumericLessThanIfExists":{"s3:max-keys":100}}},
		{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"s3:Put*","Resource":"arn:aws:s3:::site/keep/*","Condition":{"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"},"Null":{"aws:Referer":"true"},"ArnNotLike":{"aws:SourceArn":"arn:aws:s3:::*"},"StringNotEqualsIgnoreCase":{"aws:UserAgent":"X"},"Bool":{"aws:SecureTransport":false},"BinaryEquals":{"aws:Referer":"QQ=="}}}]}`), "site")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, action, resource, user, ip, date string) {
		r := Request{Principal: Principal{Kind: User, Username: user, Account: "123456789012"}, Action: action, Resource: resource, Conditions: Conditions{}}
		r.Conditions.Set("aws:SourceIp", ip)
		r.Conditions.Set("aws:CurrentTime", date)
		r.Conditions.Set("s3:prefix", user, ip)
		r.Conditions.Set("s3:max-keys", date)
		r.Conditions.Set("aws:UserAgent", user)
		d := p.Evaluate(&r)
		if d2 := p.Evaluate(&r); d2 != d {
			t.Fatalf("Evaluate is not deterministic: %v then %v", d, d2)
		}
		if !inBucket(resource, "arn:aws:s3:::site") && d != NoDecision {
			t.Fatalf("%v for %q, outside the bucket", d, resource)
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

// FuzzParseIdentity checks identity policies as FuzzParse checks bucket
// policies: a document parses or fails with MalformedPolicy, never
// panics; an accepted one is within IAM's size limit, is of Kind
// Identity, and evaluates the same way twice for requests built from the
// document itself.
func FuzzParseIdentity(f *testing.F) {
	// Confined to a prefix, with a variable and a condition.
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::shared/home/${aws:username}/*"},{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::shared","Condition":{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}}]}`))
	// Deny everywhere, another service's action and resource.
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","NotAction":"s3:Get*","Resource":"*"},{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:eu-west-1:123456789012:q"}]}`))
	// A Principal, which identity policies refuse.
	f.Add([]byte(`{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*"}}`))
	// No Resource.
	f.Add([]byte(`{"Statement":{"Effect":"Allow","Action":"s3:GetObject"}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		p, err := ParseIdentity(doc)
		if err != nil {
			if c := s3err.As(err).Code; c != s3err.MalformedPolicy {
				t.Fatalf("ParseIdentity error code %s, want MalformedPolicy", c)
			}
			return
		}
		if p.Kind() != Identity || countNonSpace(doc) > MaxIdentitySize {
			t.Fatalf("accepted: Kind %v, %d characters", p.Kind(), countNonSpace(doc))
		}
		words := strings.FieldsFunc(string(doc), func(r rune) bool { return r == '"' })
		if len(words) > 16 {
			words = words[:16]
		}
		for _, w := range append(words, "", "a") {
			r := Request{Principal: Principal{Kind: User, Username: w, UserID: w}, Action: "s3:" + w, Resource: "arn:aws:s3:::" + w, Conditions: Conditions{}}
			r.Conditions.Set("s3:prefix", w)
			r.Conditions.Set("aws:SourceIp", w)
			if d1, d2 := p.Evaluate(&r), p.Evaluate(&r); d1 != d2 {
				t.Fatalf("Evaluate is not deterministic: %v then %v", d1, d2)
			}
		}
	})
}
