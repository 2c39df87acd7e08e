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
		{"deny", stmt(`{"Effect":"Deny","Principal":"*",` + get + `}`), "Deny"},
		{"bad effect", stmt(`{"Effect":"Maybe","Principal":"*",` + get + `}`), "Invalid effect"},
		{"no effect", stmt(`{"Principal":"*",` + get + `}`), "Effect"},
		{"condition", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}`), "Condition"},
		{"not principal", stmt(`{"Effect":"Allow","NotPrincipal":"*",` + get + `}`), "NotPrincipal"},
		{"not action", stmt(`{"Effect":"Allow","Principal":"*","NotAction":"s3:PutObject","Resource":"arn:aws:s3:::site/*"}`), "NotAction"},
		{"not resource", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","NotResource":"arn:aws:s3:::site/*"}`), "NotResource"},
		{"unknown statement field", stmt(`{"Effect":"Allow","Principal":"*",` + get + `,"Foo":1}`), "Unknown field Foo"},
		{"no principal", stmt(`{"Effect":"Allow",` + get + `}`), "Principal"},
		{"specific account", stmt(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},` + get + `}`), "123456789012"},
		{"mixed principals", stmt(`{"Effect":"Allow","Principal":{"AWS":["*","arn:aws:iam::1:root"]},` + get + `}`), "arn:aws:iam::1:root"},
		{"service principal", stmt(`{"Effect":"Allow","Principal":{"Service":"cloudfront.amazonaws.com"},` + get + `}`), "Service"},
		{"principal string", stmt(`{"Effect":"Allow","Principal":"someone",` + get + `}`), "principal"},
		{"put object", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::site/*"}`), "s3:PutObject"},
		{"wildcard action", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::site/*"}`), "s3:*"},
		{"get among others", stmt(`{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::site/*"}`), "s3:DeleteObject"},
		{"other bucket", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::other/*"}`), "invalid resource"},
		{"bucket wildcard", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::*/*"}`), "invalid resource"},
		{"not an s3 arn", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"site/*"}`), "invalid resource"},
		{"policy variable", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/${aws:username}/*"}`), "variables"},
		{"get on bucket resource", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site"}`), "does not apply"},
		{"list on object resource", stmt(`{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::site/*"}`), "does not apply"},
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
