package policy

import (
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func TestParseIdentity(t *testing.T) {
	// A user confined to a prefix of a shared bucket, read-only
	// elsewhere, who may never delete.
	p, err := ParseIdentity([]byte(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::shared/home/${aws:username}/*"},
		{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::shared","Condition":{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}},
		{"Effect":"Allow","Action":["s3:Get*","s3:List*"],"Resource":["arn:aws:s3:::public","arn:aws:s3:::public/*"]},
		{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:eu-west-1:123456789012:queue"},
		{"Effect":"Deny","Action":"s3:Delete*","Resource":"*"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind() != Identity || p.IsPublic() {
		t.Fatalf("Kind %v, IsPublic %v", p.Kind(), p.IsPublic())
	}
	// An identity policy has no Principal: it applies to whoever it is
	// attached to, and the caller passes that user.
	runEval(t, p, []evalCase{
		{"own prefix", req(alice, "s3:PutObject", "arn:aws:s3:::shared/home/alice/x"), Allow},
		{"other prefix", req(alice, "s3:PutObject", "arn:aws:s3:::shared/home/bob/x"), NoDecision},
		{"list own prefix", req(alice, "s3:ListBucket", "arn:aws:s3:::shared", "s3:prefix", "home/alice/"), Allow},
		{"list the root", req(alice, "s3:ListBucket", "arn:aws:s3:::shared", "s3:prefix", ""), NoDecision},
		{"read another bucket", req(alice, "s3:GetObject", "arn:aws:s3:::public/a"), Allow},
		{"write another bucket", req(alice, "s3:PutObject", "arn:aws:s3:::public/a"), NoDecision},
		{"delete anywhere", req(alice, "s3:DeleteObject", "arn:aws:s3:::shared/home/alice/x"), Deny},
	})
	for _, c := range []struct{ name, doc, msg string }{
		{"principal", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*"}}`, "should not specify a principal"},
		{"not principal", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","NotPrincipal":"*","Action":"s3:GetObject","Resource":"*"}}`, "should not specify a principal"},
		{"no resource", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject"}}`, "Missing required field Resource"},
		{"not an ARN", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"bucket/*"}}`, "Policy has invalid resource"},
		{"unknown s3 action", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:Fly","Resource":"*"}}`, "invalid action"},
		{"too long", `{"Version":"2012-10-17","Id":"` + strings.Repeat("x", MaxIdentitySize) + `","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`, "Maximum policy size of 2048 bytes"},
	} {
		_, err := ParseIdentity([]byte(c.doc))
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if e := s3err.As(err); e.Code != s3err.MalformedPolicy || !strings.Contains(e.Text(), c.msg) {
			t.Errorf("%s: %s %q, want MalformedPolicy mentioning %q", c.name, e.Code, e.Text(), c.msg)
		}
	}
	// White space does not count against the identity limit.
	spaced := `{"Version":"2012-10-17",` + strings.Repeat(" ", MaxIdentitySize) + `"Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`
	if _, err := ParseIdentity([]byte(spaced)); err != nil {
		t.Errorf("white space counted: %v", err)
	}
	// A bucket policy may not name another service's action; an
	// identity policy may.
	if _, err := Parse([]byte(`{"Statement":{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*"}}`), "site"); err == nil {
		t.Error("bucket policy with an sqs action accepted")
	}
}
