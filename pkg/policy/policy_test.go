package policy

import (
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

const publicRead = `{
  "Version": "2012-10-17",
  "Statement": [{
    "Sid": "PublicRead",
    "Effect": "Allow",
    "Principal": "*",
    "Action": "s3:GetObject",
    "Resource": "arn:aws:s3:::site/*"
  }]
}`

func TestParseAccepts(t *testing.T) {
	type check struct {
		action, key string
		want        bool
	}
	cases := []struct {
		name   string
		doc    string
		checks []check
	}{
		{"public-read", publicRead, []check{
			{GetObject, "index.html", true},
			{GetObject, "a/b/c", true},
			{GetObject, "", true},
			{ListBucket, "", false},
			{"s3:PutObject", "index.html", false},
		}},
		{"prefix, principal AWS list, action list, single statement object, 2008 version",
			`{"Version":"2008-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::site/public/*"]}}`,
			[]check{
				{GetObject, "public/a.png", true},
				{GetObject, "public/", true},
				{GetObject, "public", false},
				{GetObject, "private/a.png", false},
				{ListBucket, "", false},
			}},
		{"list and get in one statement, AWS string principal, no version, lower-case action",
			`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":["s3:getobject","s3:ListBucket"],"Resource":["arn:aws:s3:::site","arn:aws:s3:::site/*"]}]}`,
			[]check{
				{GetObject, "x", true},
				{ListBucket, "", true},
			}},
		{"list only", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::site"}]}`,
			[]check{{ListBucket, "", true}, {GetObject, "x", false}}},
		{"exact key and ? wildcard", `{"Version":"2012-10-17","Id":"x","Statement":[
			{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/robots.txt"},
			{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/img/??.png"}]}`,
			[]check{
				{GetObject, "robots.txt", true},
				{GetObject, "robots.txt.bak", false},
				{GetObject, "img/ab.png", true},
				{GetObject, "img/é€.png", true},
				{GetObject, "img/abc.png", false},
				{GetObject, "img/a.png", false},
			}},
	}
	for _, c := range cases {
		p, err := Parse([]byte(c.doc), "site")
		if err != nil {
			t.Errorf("%s: Parse: %v", c.name, err)
			continue
		}
		if !p.IsPublic() {
			t.Errorf("%s: IsPublic = false", c.name)
		}
		for _, ch := range c.checks {
			if got := p.Allows(ch.action, ch.key); got != ch.want {
				t.Errorf("%s: Allows(%s, %q) = %v, want %v", c.name, ch.action, ch.key, got, ch.want)
			}
		}
	}
}

func TestParseRejects(t *testing.T) {
	stmt := func(s string) string { return `{"Version":"2012-10-17","Statement":[` + s + `]}` }
	const get = `"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"`
	cases := []struct {
		name, doc, wantMsg string
	}{
		{"empty", ``, "first byte"},
		{"array", `[]`, "first byte"},
		{"invalid json", `{"Version":`, "invalid Json"},
		{"trailing data", publicRead + `{}`, "invalid Json"},
		{"unknown top field", `{"Version":"2012-10-17","Statement":[],"Extra":1}`, "Unknown field Extra"},
		{"bad version", `{"Version":"2020-01-01","Statement":[]}`, "version"},
		{"no statement", `{"Version":"2012-10-17"}`, "Statement"},
		{"empty statement", stmt(``), "Statement is empty"},
		{"bad effect", stmt(`{"Effect":"Maybe","Principal":"*",` + get + `}`), "Invalid effect"},
		{"no effect", stmt(`{"Principal":"*",` + get + `}`), "Effect"},
		{"unknown statement field", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Foo":1}`), "Unknown field Foo"},
		{"no principal", stmt(`{"Effect":"Allow",` + get + `}`), "Missing required field Principal"},
		{"principal and not principal", stmt(`{"Effect":"Allow","Principal":"*","NotPrincipal":"*",` + get + `}`), "both Principal and NotPrincipal"},
		{"not principal with allow", stmt(`{"Effect":"Allow","NotPrincipal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},` + get + `}`), `NotPrincipal must be used with "Effect":"Deny"`},
		{"not principal everyone with allow", stmt(`{"Effect":"Allow","NotPrincipal":"*",` + get + `}`), `NotPrincipal must be used with "Effect":"Deny"`},
		{"short account", stmt(`{"Effect":"Allow","Principal":{"AWS":["*","arn:aws:iam::1:root"]},` + get + `}`), "Invalid principal in policy"},
		{"principal wildcard", stmt(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/*"},` + get + `}`), "Invalid principal in policy"},
		{"role principal", stmt(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:role/r"},` + get + `}`), "Invalid principal in policy"},
		{"user without name", stmt(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/"},` + get + `}`), "Invalid principal in policy"},
		{"bad canonical user", stmt(`{"Effect":"Allow","Principal":{"CanonicalUser":"abc"},` + get + `}`), "Invalid principal in policy"},
		{"unknown principal type", stmt(`{"Effect":"Allow","Principal":{"Group":"x"},` + get + `}`), "Invalid principal in policy"},
		{"empty principal", stmt(`{"Effect":"Allow","Principal":{},` + get + `}`), "Invalid principal in policy"},
		{"principal string", stmt(`{"Effect":"Allow","Principal":"someone",` + get + `}`), "Invalid principal in policy"},
		{"unknown action", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObjekt","Resource":"arn:aws:s3:::site/*"}`), "Policy has invalid action"},
		{"wildcard naming no action", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:Frob*","Resource":"arn:aws:s3:::site/*"}`), "Policy has invalid action"},
		{"other service", stmt(`{"Effect":"Allow","Principal":"*","Action":"iam:CreateUser","Resource":"arn:aws:s3:::site/*"}`), "Policy has invalid action"},
		{"action without service", stmt(`{"Effect":"Allow","Principal":"*","Action":"GetObject","Resource":"arn:aws:s3:::site/*"}`), "Policy has invalid action"},
		{"action and not action", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","NotAction":"s3:PutObject","Resource":"arn:aws:s3:::site/*"}`), "both Action and NotAction"},
		{"no resource", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject"}`), "Missing required field Resource"},
		{"other bucket", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::other/*"}`), "Policy has invalid resource"},
		{"other bucket by wildcard", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::sit?x/*"}`), "Policy has invalid resource"},
		{"not an s3 arn", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"site/*"}`), "Policy has invalid resource"},
		{"get on bucket resource", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site"}`), "Action does not apply to any resource(s) in statement"},
		{"list on object resource", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::site/*"}`), "Action does not apply to any resource(s) in statement"},
		{"list all buckets on a bucket", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:ListAllMyBuckets","Resource":"arn:aws:s3:::site"}`), "Action does not apply"},
		{"one of two actions does not apply", stmt(`{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:ListBucket"],"Resource":"arn:aws:s3:::site/*"}`), "s3:ListBucket"},
		{"unknown operator", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringSortOf":{"aws:Referer":"x"}}}`), "Invalid Condition type : StringSortOf"},
		{"Null IfExists", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"NullIfExists":{"aws:Referer":"true"}}}`), "Invalid Condition type"},
		{"unknown s3 key", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"s3:no-such-key":"x"}}}`), "Policy has an invalid condition key"},
		{"key without service", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"Referer":"x"}}}`), "Policy has an invalid condition key"},
		{"other service key", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"kms:ViaService":"x"}}}`), "Policy has an invalid condition key"},
		{"bad CIDR", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/33"}}}`), "Invalid IP address in Conditions"},
		{"prefix on GetObject", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringLike":{"s3:prefix":"a/*"}}}`), "Conditions do not apply to combination of actions and resources in statement"},
		{"acl header on ListBucket", stmt(`{"Effect":"Allow","Principal":"*","Action":["s3:PutObject","s3:ListBucket"],"Resource":["arn:aws:s3:::site","arn:aws:s3:::site/*"],"Condition":{"StringEquals":{"s3:x-amz-acl":"private"}}}`), "Conditions do not apply"},
		{"bad number", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"NumericLessThan":{"s3:max-keys":"ten"}}}`), "number"},
		{"bad date", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"DateLessThan":{"aws:CurrentTime":"yesterday"}}}`), "date"},
		{"bad bool", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"Bool":{"aws:SecureTransport":"yes"}}}`), "true or false"},
		{"bad binary", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"BinaryEquals":{"aws:Referer":"!!"}}}`), "base64"},
		{"condition value object", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"StringEquals":{"aws:Referer":{"a":1}}}}`), "Invalid Condition value"},
		{"condition not an object", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":["x"]}`), "Invalid Condition"},
		{"duplicate sid", stmt(`{"Sid":"a","Effect":"Allow","Principal":"*",` + get + `},{"Sid":"a","Effect":"Allow","Principal":"*",` + get + `}`), "must be unique"},
		{"empty action list", stmt(`{"Effect":"Allow","Principal":"*","Action":[],"Resource":"arn:aws:s3:::site/*"}`), "Action"},
		{"action number", stmt(`{"Effect":"Allow","Principal":"*","Action":5,"Resource":"arn:aws:s3:::site/*"}`), "Action"},
		{"statement not object", stmt(`"x"`), "object"},
		{"too large", `{"Id":"` + strings.Repeat("x", MaxSize) + `"}`, "less than"},
	}
	for _, c := range cases {
		p, err := Parse([]byte(c.doc), "site")
		if err == nil {
			t.Errorf("%s: Parse accepted it: %+v", c.name, p)
			continue
		}
		e := s3err.As(err)
		if e.Code != s3err.MalformedPolicy {
			t.Errorf("%s: code %s, want MalformedPolicy", c.name, e.Code)
		}
		if !strings.Contains(e.Text(), c.wantMsg) {
			t.Errorf("%s: message %q does not mention %q", c.name, e.Text(), c.wantMsg)
		}
	}
}

func TestPublicReadAndNil(t *testing.T) {
	p := PublicRead()
	if !p.Allows(GetObject, "any/key") || !p.Allows(ListBucket, "") || !p.IsPublic() {
		t.Fatal("PublicRead must grant GetObject and ListBucket")
	}
	var none *Policy
	if none.Allows(GetObject, "k") || none.IsPublic() {
		t.Fatal("a nil policy allows nothing")
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, key string
		want         bool
	}{
		{"*", "", true},
		{"*", "a/b/c", true},
		{"", "", true},
		{"", "a", false},
		{"a", "a", true},
		{"a", "ab", false},
		{"a*", "a", true},
		{"a*c", "abbbc", true},
		{"a*c", "abbbd", false},
		{"*.jpg", "x/y.jpg", true},
		{"*.jpg", "x/y.jpeg", false},
		{"?", "€", true},
		{"??", "€", false},
		{"*??", "€", false},
		{"*?", "€", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"**a**", "xxaxx", true},
		{"*a*b*c*", "aXbXc", true},
		{"*a*b*c*", "cba", false},
	}
	for _, c := range cases {
		if got := match(c.pattern, c.key); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.pattern, c.key, got, c.want)
		}
	}
}

// TestParseAcceptsFullGrammar lists documents in the grammar S3 accepts
// that go beyond a public-read grant: every element and shape parses.
func TestParseAcceptsFullGrammar(t *testing.T) {
	const res = `"Resource":["arn:aws:s3:::site","arn:aws:s3:::site/*"]`
	for name, d := range map[string]string{
		"deny":                  `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::site/*"}]}`,
		"user principal":        `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/alice"},"Action":"s3:*",` + res + `}}`,
		"user without account":  `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/alice","arn:aws:iam:::user/path/bob"]},"Action":"s3:Get*",` + res + `}}`,
		"account root and id":   `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::123456789012:root","111122223333"]},"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"}}`,
		"canonical user":        `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"CanonicalUser":"` + strings.Repeat("ab", 32) + `"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"}}`,
		"service principal":     `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"Service":"logging.s3.amazonaws.com"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::site/logs/*"}}`,
		"not principal":         `{"Version":"2012-10-17","Statement":{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::123456789012:user/alice"},"Action":"s3:*",` + res + `}}`,
		"not action":            `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":"*","NotAction":["s3:GetObject","s3:List*"],` + res + `}}`,
		"not resource":          `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","NotResource":"arn:aws:s3:::site/uploads/*"}}`,
		"wildcard actions":      `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":["s3:*Object","s3:Get*","*"],` + res + `}}`,
		"resource star":         `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/a"},"Action":"s3:ListAllMyBuckets","Resource":"*"}}`,
		"bucket wildcard":       `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/a"},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::si?e"}}`,
		"policy variables":      `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"s3:*","Resource":"arn:aws:s3:::site/home/${aws:username}/*"}}`,
		"conditions":            `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":"*","Action":"s3:*",` + res + `,"Condition":{"Bool":{"aws:SecureTransport":false},"NotIpAddress":{"aws:SourceIp":["10.0.0.0/8","2001:db8::/32"]},"NumericGreaterThan":{"s3:max-keys":100},"ForAnyValue:StringLike":{"s3:RequestObjectTagKeys":["tmp*"]},"StringEqualsIfExists":{"s3:x-amz-acl":"private"},"Null":{"s3:x-amz-server-side-encryption":"true"}}}}`,
		"condition key case":    `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{"StringNotLike":{"AWS:REFERER":"https://example.com/*"}}}}`,
		"several statements":    `{"Version":"2012-10-17","Id":"p","Statement":[{"Sid":"a","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"},{"Sid":"b","Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/private/*"}]}`,
		"grant header keys":     `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/a"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::site/*","Condition":{"StringEquals":{"s3:x-amz-grant-full-control":"id=abc","s3:ExistingObjectTag/team":"x","s3:object-lock-mode":"GOVERNANCE"}}}}`,
		"date and epoch":        `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z","aws:EpochTime":1893456000}}}}`,
		"arn and binary":        `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:cloudfront::*:distribution/*"},"BinaryEquals":{"aws:Referer":"QQ=="}}}}`,
		"unknown global key ok": `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{"StringEquals":{"aws:SourceVpce":"vpce-1"}}}}`,
	} {
		if _, err := Parse([]byte(d), "site"); err != nil {
			t.Errorf("%s: Parse: %v", name, err)
		}
	}
}
