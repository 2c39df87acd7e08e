package policy

import (
	"fmt"
	"strings"
	"testing"
)

const (
	acct     = "123456789012"
	aliceID  = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
	bobID    = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"
	siteARN  = "arn:aws:s3:::site"
	objARN   = "arn:aws:s3:::site/"
	otherARN = "arn:aws:s3:::other"
)

var (
	alice = Principal{Kind: User, ARN: "arn:aws:iam::" + acct + ":user/alice", CanonicalID: aliceID, Username: "alice", UserID: "AIDAALICE", Account: acct}
	bob   = Principal{Kind: User, ARN: "arn:aws:iam::" + acct + ":user/bob", CanonicalID: bobID, Username: "bob", UserID: "AIDABOB", Account: acct}
	root  = Principal{Kind: Root, ARN: "arn:aws:iam::" + acct + ":root", Account: acct}
	anon  = Principal{Kind: Anonymous}
)

// doc wraps statements in a 2012-10-17 policy document.
func doc(stmts ...string) string {
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(stmts, ",") + `]}`
}

func mustParse(t *testing.T, d string) *Policy {
	t.Helper()
	p, err := Parse([]byte(d), "site")
	if err != nil {
		t.Fatalf("Parse(%s): %v", d, err)
	}
	return p
}

type evalCase struct {
	name string
	r    Request
	want Decision
}

func runEval(t *testing.T, p *Policy, cases []evalCase) {
	t.Helper()
	for _, c := range cases {
		if got := p.Evaluate(&c.r); got != c.want {
			t.Errorf("%s: Evaluate(%+v) = %v, want %v", c.name, c.r, got, c.want)
		}
	}
}

func req(p Principal, action, resource string, kv ...string) Request {
	r := Request{Principal: p, Action: action, Resource: resource}
	if len(kv) > 0 {
		r.Conditions = Conditions{}
		for i := 0; i+1 < len(kv); i += 2 {
			vals, _ := r.Conditions.Get(kv[i])
			r.Conditions.Set(kv[i], append(vals, kv[i+1])...)
		}
	}
	return r
}

func TestEvaluatePrincipals(t *testing.T) {
	p := mustParse(t, doc(
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/alice"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/a/*"}`,
		`{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/team/bob"]},"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/b/*"}`,
		`{"Effect":"Allow","Principal":{"CanonicalUser":"`+aliceID+`"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::site/c/*"}`,
		`{"Effect":"Allow","Principal":{"AWS":"`+bobID+`"},"Action":"s3:DeleteObject","Resource":"arn:aws:s3:::site/c/*"}`,
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:root"},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::site"}`,
		`{"Effect":"Allow","Principal":{"AWS":"999999999999"},"Action":"s3:GetBucketTagging","Resource":"arn:aws:s3:::site"}`,
		`{"Effect":"Allow","Principal":{"Service":"cloudfront.amazonaws.com"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/svc/*"}`,
		`{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/pub/*"}`,
	))
	other := Principal{Kind: User, Username: "alice", Account: "999999999999"}
	runEval(t, p, []evalCase{
		{"user ARN", req(alice, "s3:GetObject", objARN+"a/x"), Allow},
		{"user ARN, other user", req(bob, "s3:GetObject", objARN+"a/x"), NoDecision},
		{"user ARN, same name in another account", req(other, "s3:GetObject", objARN+"a/x"), NoDecision},
		{"user ARN, anonymous", req(anon, "s3:GetObject", objARN+"a/x"), NoDecision},
		{"user ARN with empty account and a path", req(bob, "s3:GetObject", objARN+"b/x"), Allow},
		{"user ARN with empty account, any account", req(Principal{Kind: User, Username: "bob", Account: "999999999999"}, "s3:GetObject", objARN+"b/x"), Allow},
		{"canonical user", req(alice, "s3:PutObject", objARN+"c/x"), Allow},
		{"canonical user, other", req(bob, "s3:PutObject", objARN+"c/x"), NoDecision},
		{"canonical id under AWS", req(bob, "s3:DeleteObject", objARN+"c/x"), Allow},
		{"account root covers root", req(root, "s3:ListBucket", siteARN), Allow},
		{"account root covers its users", req(alice, "s3:ListBucket", siteARN), Allow},
		{"account root, other account", req(other, "s3:ListBucket", siteARN), NoDecision},
		{"bare account id", req(other, "s3:GetBucketTagging", siteARN), Allow},
		{"bare account id, other account", req(alice, "s3:GetBucketTagging", siteARN), NoDecision},
		{"service never matches", req(alice, "s3:GetObject", objARN+"svc/x"), NoDecision},
		{"service never matches anonymous", req(anon, "s3:GetObject", objARN+"svc/x"), NoDecision},
		{"AWS * covers anonymous", req(anon, "s3:GetObject", objARN+"pub/x"), Allow},
		{"AWS * covers users", req(bob, "s3:GetObject", objARN+"pub/x"), Allow},
		{"AWS * covers root", req(root, "s3:GetObject", objARN+"pub/x"), Allow},
	})
}

func TestEvaluateNotElements(t *testing.T) {
	p := mustParse(t, doc(
		// Everyone but alice is denied deletes.
		`{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::`+acct+`:user/alice"},"Action":"s3:DeleteObject","Resource":"arn:aws:s3:::site/*"}`,
		// Bob may do everything but delete, and only outside private/.
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/bob"},"NotAction":["s3:Delete*"],"NotResource":"arn:aws:s3:::site/private/*"}`,
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/alice"},"Action":"s3:*Object","Resource":"arn:aws:s3:::site/*"}`,
	))
	runEval(t, p, []evalCase{
		{"NotPrincipal deny hits bob", req(bob, "s3:DeleteObject", objARN+"x"), Deny},
		{"NotPrincipal deny hits anonymous", req(anon, "s3:DeleteObject", objARN+"x"), Deny},
		{"NotPrincipal deny spares alice", req(alice, "s3:DeleteObject", objARN+"x"), Allow},
		{"NotAction allows what it does not name", req(bob, "s3:PutObject", objARN+"x"), Allow},
		{"NotAction allows bucket actions", req(bob, "s3:ListBucket", siteARN), Allow},
		{"NotAction excludes by wildcard", req(bob, "s3:DeleteObjectVersion", objARN+"x"), NoDecision},
		{"NotResource excludes", req(bob, "s3:PutObject", objARN+"private/x"), NoDecision},
		{"*Object wildcard", req(alice, "s3:GetObject", objARN+"x"), Allow},
		{"*Object wildcard does not match GetObjectAcl", req(alice, "s3:GetObjectAcl", objARN+"x"), NoDecision},
		{"anonymous gets nothing", req(anon, "s3:GetObject", objARN+"x"), NoDecision},
	})
}

func TestEvaluateActionsAndResources(t *testing.T) {
	p := mustParse(t, doc(
		`{"Effect":"Allow","Principal":"*","Action":"s3:get*","Resource":["arn:aws:s3:::site/img/*.png","arn:aws:s3:::site/??.txt"]}`,
		`{"Effect":"Allow","Principal":"*","Action":"S3:LISTBUCKET","Resource":"arn:aws:s3:::site"}`,
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/alice"},"Action":"*","Resource":"*"}`,
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/bob"},"Action":"s3:*","Resource":"arn:aws:s3:::*"}`,
	))
	runEval(t, p, []evalCase{
		{"s3:get* matches GetObject", req(anon, "s3:GetObject", objARN+"img/a/b.png"), Allow},
		{"action names are case-insensitive", req(anon, "S3:gEtObJeCt", objARN+"img/a.png"), Allow},
		{"s3:get* matches GetObjectTagging", req(anon, "s3:GetObjectTagging", objARN+"img/a.png"), Allow},
		{"s3:get* does not match PutObject", req(anon, "s3:PutObject", objARN+"img/a.png"), NoDecision},
		{"resource * crosses /", req(anon, "s3:GetObject", objARN+"img/x/y/z.png"), Allow},
		{"resource suffix", req(anon, "s3:GetObject", objARN+"img/a.jpg"), NoDecision},
		{"resource ?", req(anon, "s3:GetObject", objARN+"ab.txt"), Allow},
		{"resource ? is one character", req(anon, "s3:GetObject", objARN+"abc.txt"), NoDecision},
		{"resource ? is one UTF-8 character", req(anon, "s3:GetObject", objARN+"é€.txt"), Allow},
		{"resources are case-sensitive", req(anon, "s3:GetObject", objARN+"IMG/a.png"), NoDecision},
		{"upper-case action in policy", req(anon, "s3:ListBucket", siteARN), Allow},
		{"bucket resource is not an object", req(anon, "s3:ListBucket", objARN+"x"), NoDecision},
		{"Action * Resource *", req(alice, "s3:PutBucketPolicy", siteARN), Allow},
		{"s3:* on arn:aws:s3:::*", req(bob, "s3:DeleteObject", objARN+"k"), Allow},
		// A bucket policy says nothing about another bucket, whatever
		// its patterns say.
		{"other bucket, Resource *", req(alice, "s3:GetObject", otherARN+"/k"), NoDecision},
		{"other bucket, arn:aws:s3:::*", req(bob, "s3:ListBucket", otherARN), NoDecision},
		{"bucket name prefix is another bucket", req(bob, "s3:ListBucket", siteARN+"2"), NoDecision},
	})
}

func TestEvaluateDenyWins(t *testing.T) {
	allow := `{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::site","arn:aws:s3:::site/*"]}`
	deny := `{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::site/keep/*"}`
	// The order of the statements does not matter.
	for _, d := range []string{doc(allow, deny), doc(deny, allow)} {
		p := mustParse(t, d)
		runEval(t, p, []evalCase{
			{"deny", req(alice, "s3:DeleteObject", objARN+"keep/x"), Deny},
			{"deny anonymous", req(anon, "s3:DeleteObject", objARN+"keep/x"), Deny},
			{"deny root", req(root, "s3:DeleteObject", objARN+"keep/x"), Deny},
			{"allow elsewhere", req(alice, "s3:DeleteObject", objARN+"tmp/x"), Allow},
			{"allow other action", req(alice, "s3:GetObject", objARN+"keep/x"), Allow},
		})
	}
	var none *Policy
	if d := none.Evaluate(&Request{Action: "s3:GetObject", Resource: objARN + "x"}); d != NoDecision {
		t.Errorf("nil policy: %v", d)
	}
}

func TestEvaluatePolicyVariables(t *testing.T) {
	p := mustParse(t, doc(
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:root"},"Action":"s3:*Object","Resource":"arn:aws:s3:::site/home/${aws:username}/*"}`,
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:root"},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::site","Condition":{"StringLike":{"s3:prefix":["home/${aws:username}/*","shared/${*}${?}${$}"]}}}`,
		`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/ids/${aws:userid}"}`,
		`{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/guest/${aws:username, 'nobody'}/*"}`,
	))
	runEval(t, p, []evalCase{
		{"own home", req(alice, "s3:PutObject", objARN+"home/alice/f"), Allow},
		{"other home", req(alice, "s3:PutObject", objARN+"home/bob/f"), NoDecision},
		{"variable is literal, not a wildcard", req(Principal{Kind: User, Username: "*", Account: acct}, "s3:PutObject", objARN+"home/bob/f"), NoDecision},
		{"username from the condition context wins", req(bob, "s3:PutObject", objARN+"home/alice/f", "aws:username", "alice"), Allow},
		{"no username, no match", req(root, "s3:PutObject", objARN+"home//f"), NoDecision},
		{"variable in a condition", req(alice, "s3:ListBucket", siteARN, "s3:prefix", "home/alice/docs"), Allow},
		{"variable in a condition, other prefix", req(alice, "s3:ListBucket", siteARN, "s3:prefix", "home/bob/"), NoDecision},
		{"escapes are literal", req(alice, "s3:ListBucket", siteARN, "s3:prefix", "shared/*?$"), Allow},
		{"escapes are not wildcards", req(alice, "s3:ListBucket", siteARN, "s3:prefix", "shared/abc"), NoDecision},
		{"userid", req(bob, "s3:GetObject", objARN+"ids/AIDABOB"), Allow},
		{"userid, anonymous", req(anon, "s3:GetObject", objARN+"ids/"), NoDecision},
		{"default value", req(anon, "s3:GetObject", objARN+"guest/nobody/x"), Allow},
		{"default value replaced", req(bob, "s3:GetObject", objARN+"guest/bob/x"), Allow},
	})
	// Version 2008-10-17 (and no Version) has no policy variables: the
	// text is literal.
	old := mustParse(t, `{"Version":"2008-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/${aws:username}/*"}]}`)
	runEval(t, old, []evalCase{
		{"2008: literal", req(alice, "s3:GetObject", objARN+"${aws:username}/x"), Allow},
		{"2008: not substituted", req(alice, "s3:GetObject", objARN+"alice/x"), NoDecision},
	})
}

func TestAllowsIsConservative(t *testing.T) {
	p := mustParse(t, doc(
		`{"Effect":"Allow","Principal":"*","Action":["s3:GetObject"],"Resource":"arn:aws:s3:::site/*"}`,
		`{"Effect":"Allow","Principal":"*","Action":["s3:ListBucket"],"Resource":"arn:aws:s3:::site","Condition":{"StringLikeIfExists":{"aws:Referer":"https://example.com/*"}}}`,
		`{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/secret/*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}`,
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+acct+`:user/alice"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"}`,
	))
	for _, c := range []struct {
		action, key string
		want        bool
	}{
		{GetObject, "index.html", true},
		// A Deny counts whatever its Condition says: Allows does not
		// know whether the request came over TLS.
		{GetObject, "secret/x", false},
		// An Allow with a Condition does not count.
		{ListBucket, "", false},
		{"s3:PutObject", "x", false},
	} {
		if got := p.Allows(c.action, c.key); got != c.want {
			t.Errorf("Allows(%s, %q) = %v, want %v", c.action, c.key, got, c.want)
		}
	}
	// The full evaluation decides with the keys.
	runEval(t, p, []evalCase{
		{"secret over TLS", req(anon, GetObject, objARN+"secret/x", "aws:SecureTransport", "true"), Allow},
		{"secret without TLS", req(anon, GetObject, objARN+"secret/x", "aws:SecureTransport", "false"), Deny},
		{"list without referer", req(anon, ListBucket, siteARN), Allow},
		{"list with a foreign referer", req(anon, ListBucket, siteARN, "aws:Referer", "https://evil.example/"), NoDecision},
	})
}

// benchPolicy20 is a policy of 20 statements of the kinds seen in shared
// buckets: per-user prefixes, public prefixes, conditions on the network
// and transport, and Denies.
func benchPolicy20(tb testing.TB) *Policy {
	var stmts []string
	for i := 0; i < 8; i++ {
		stmts = append(stmts, fmt.Sprintf(`{"Sid":"u%d","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::%s:user/user%d"},"Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::site/home/user%d/*"}`, i, acct, i, i))
	}
	for i := 0; i < 6; i++ {
		stmts = append(stmts, fmt.Sprintf(`{"Sid":"p%d","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/public%d/*","Condition":{"IpAddress":{"aws:SourceIp":["10.0.0.0/8","192.0.2.0/24"]},"StringLike":{"aws:Referer":"https://example.com/*"}}}`, i, i))
	}
	for i := 0; i < 3; i++ {
		stmts = append(stmts, fmt.Sprintf(`{"Sid":"l%d","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::%s:root"},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::site","Condition":{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}}`, i, acct))
	}
	stmts = append(stmts,
		`{"Sid":"tls","Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::site","arn:aws:s3:::site/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}`,
		`{"Sid":"keep","Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::`+acct+`:user/admin"},"Action":"s3:Delete*","Resource":"arn:aws:s3:::site/keep/*"}`,
		`{"Sid":"net","Effect":"Deny","Principal":"*","Action":"s3:Put*","Resource":"arn:aws:s3:::site/*","Condition":{"NotIpAddress":{"aws:SourceIp":["10.0.0.0/8","2001:db8::/32"]}}}`,
	)
	p, err := Parse([]byte(doc(stmts...)), "site")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkEvaluate20Statements decides an allowed GetObject by a user
// against a 20-statement policy, every Deny evaluated.
func BenchmarkEvaluate20Statements(b *testing.B) {
	p := benchPolicy20(b)
	u := Principal{Kind: User, Username: "user7", Account: acct, ARN: "arn:aws:iam::" + acct + ":user/user7"}
	r := req(u, "s3:GetObject", objARN+"home/user7/photos/2026/a.jpg",
		"aws:SourceIp", "10.1.2.3", "aws:SecureTransport", "true", "aws:Referer", "https://example.com/x")
	if d := p.Evaluate(&r); d != Allow {
		b.Fatalf("Evaluate = %v", d)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Evaluate(&r)
	}
}

func TestBenchPolicyDecisions(t *testing.T) {
	p := benchPolicy20(t)
	u := Principal{Kind: User, Username: "user7", Account: acct}
	tls := []string{"aws:SourceIp", "10.1.2.3", "aws:SecureTransport", "true"}
	runEval(t, p, []evalCase{
		{"own home", req(u, "s3:GetObject", objARN+"home/user7/a", tls...), Allow},
		{"own home over HTTP", req(u, "s3:GetObject", objARN+"home/user7/a", "aws:SecureTransport", "false"), Deny},
		{"put from outside", req(u, "s3:PutObject", objARN+"home/user7/a", "aws:SourceIp", "203.0.113.1", "aws:SecureTransport", "true"), Deny},
		{"list own prefix", req(u, "s3:ListBucket", siteARN, append(tls, "s3:prefix", "home/user7/")...), Allow},
		{"public with referer", req(anon, "s3:GetObject", objARN+"public3/x", append(tls, "aws:Referer", "https://example.com/p")...), Allow},
		{"public without referer", req(anon, "s3:GetObject", objARN+"public3/x", tls...), NoDecision},
		{"delete kept", req(u, "s3:DeleteObject", objARN+"keep/x", tls...), Deny},
	})
	// Evaluation allocates nothing.
	r := req(u, "s3:GetObject", objARN+"home/user7/a", tls...)
	if n := testing.AllocsPerRun(100, func() { p.Evaluate(&r) }); n != 0 {
		t.Errorf("Evaluate allocates %v times", n)
	}
}

// TestUsesExistingObjectTags checks which policies need the tags of the
// object a request addresses, and that the tag key keeps its case.
func TestUsesExistingObjectTags(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`, false},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*","Condition":{"StringEquals":{"s3:RequestObjectTag/security":"public"}}}]}`, false},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*","Condition":{"StringEquals":{"S3:ExistingObjectTag/Security":"public"}}}]}`, true},
	} {
		p, err := Parse([]byte(tc.doc), "b")
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if got := p.UsesExistingObjectTags(); got != tc.want {
			t.Errorf("UsesExistingObjectTags() = %v, want %v for %s", got, tc.want, tc.doc)
		}
		if !tc.want {
			continue
		}
		r := Request{Principal: Principal{Kind: Anonymous}, Action: "s3:GetObject", Resource: "arn:aws:s3:::b/k", Conditions: Conditions{}}
		r.Conditions.Set("s3:ExistingObjectTag/Security", "public")
		if p.Evaluate(&r) != Allow {
			t.Errorf("the object's tag Security=public is not allowed by %s", tc.doc)
		}
		r.Conditions = Conditions{}
		r.Conditions.Set("s3:ExistingObjectTag/security", "public")
		if p.Evaluate(&r) == Allow {
			t.Errorf("tag key security matched Security in %s", tc.doc)
		}
	}
	if (*Policy)(nil).UsesExistingObjectTags() {
		t.Error("a nil Policy uses existing object tags")
	}
}

// TestUsesContext checks which policies consult the request's condition
// keys, and that a policy said not to answers the same without them.
func TestUsesContext(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`, false},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}]}`, true},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/home/${aws:username}/*"}]}`, true},
	} {
		p, err := Parse([]byte(tc.doc), "b")
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if got := p.UsesContext(); got != tc.want {
			t.Errorf("UsesContext() = %v, want %v for %s", got, tc.want, tc.doc)
		}
		if !tc.want {
			r := Request{Principal: Principal{Kind: Anonymous}, Action: "s3:GetObject", Resource: "arn:aws:s3:::b/k"}
			with := r
			with.Conditions = Conditions{}
			with.Conditions.Set("aws:SecureTransport", "false")
			if p.Evaluate(&r) != p.Evaluate(&with) {
				t.Errorf("a policy without context answers differently with keys: %s", tc.doc)
			}
		}
	}
}

// TestUsesExistingObjectTagsVariables checks that a policy variable
// ${s3:ExistingObjectTag/KEY}, in a Resource or in a Condition's values,
// also makes a policy consult the object's tags, and that the variable
// takes the tag's value: an Allow on b/${s3:ExistingObjectTag/team}/*
// grants the object tagged team=red under red/ and nowhere else.
// UsesExistingObjectTags once looked at Condition keys alone, and a
// caller never read the tags such a policy needs.
func TestUsesExistingObjectTagsVariables(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*","Condition":{"StringEquals":{"S3:EXISTINGOBJECTTAG/class":"secret"}}}]}`, true},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${s3:ExistingObjectTag/team}/*"}]}`, true},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*","Condition":{"StringEquals":{"aws:username":"${s3:ExistingObjectTag/owner}"}}}]}`, true},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${aws:username}/*"}]}`, false},
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*","Condition":{"StringEquals":{"aws:username":"${s3:RequestObjectTag/owner}"}}}]}`, false},
	} {
		p, err := Parse([]byte(tc.doc), "b")
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		if got := p.UsesExistingObjectTags(); got != tc.want {
			t.Errorf("UsesExistingObjectTags() = %v, want %v for %s", got, tc.want, tc.doc)
		}
	}
	p, err := Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${s3:ExistingObjectTag/team}/*"}]}`), "b")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		resource, team string
		want           bool
	}{
		{"arn:aws:s3:::b/red/k", "red", true},
		{"arn:aws:s3:::b/blue/k", "red", false},
		{"arn:aws:s3:::b/red/k", "", false},
	} {
		r := Request{Principal: Principal{Kind: Anonymous}, Action: "s3:GetObject", Resource: c.resource, Conditions: Conditions{}}
		if c.team != "" {
			r.Conditions.Set("s3:ExistingObjectTag/team", c.team)
		}
		if got := p.Evaluate(&r) == Allow; got != c.want {
			t.Errorf("%s with team=%q: allowed %v, want %v", c.resource, c.team, got, c.want)
		}
	}
}

// TestParseStoredNotPrincipalAllow reads back a policy stored before an
// Allow with NotPrincipal was refused: the Allow grants nothing, and the
// policy's Deny still applies (Parse refuses the document).
func TestParseStoredNotPrincipalAllow(t *testing.T) {
	d := doc(`{"Effect":"Allow","NotPrincipal":{"AWS":"arn:aws:iam::`+acct+`:user/bob"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"}`,
		`{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::site/*"}`)
	if _, err := Parse([]byte(d), "site"); err == nil {
		t.Fatal("Parse accepted an Allow with NotPrincipal")
	}
	p, err := ParseStored([]byte(d), "site")
	if err != nil {
		t.Fatalf("ParseStored: %v", err)
	}
	runEval(t, p, []evalCase{
		{"anonymous read", req(anon, "s3:GetObject", objARN+"x"), NoDecision},
		{"alice read", req(alice, "s3:GetObject", objARN+"x"), NoDecision},
		{"bob read", req(bob, "s3:GetObject", objARN+"x"), NoDecision},
		{"deny kept", req(alice, "s3:DeleteObject", objARN+"x"), Deny},
	})
	if p.IsPublic() {
		t.Error("the stored policy is public")
	}
	// A stored document that is malformed otherwise is still refused.
	if _, err := ParseStored([]byte(`{"Statement":[]}`), "site"); err == nil {
		t.Error("ParseStored accepted an empty statement list")
	}
}

// TestUnreadable: the policy that stands for an unreadable stored one
// denies every action on its bucket and its objects to everyone, and
// nothing outside the bucket.
func TestUnreadable(t *testing.T) {
	p := Unreadable("site")
	runEval(t, p, []evalCase{
		{"anonymous read", req(anon, "s3:GetObject", objARN+"x"), Deny},
		{"alice list", req(alice, "s3:ListBucket", "arn:aws:s3:::site"), Deny},
		{"bob delete", req(bob, "s3:DeleteObject", objARN+"x"), Deny},
		{"bob policy", req(bob, "s3:PutBucketPolicy", "arn:aws:s3:::site"), Deny},
		{"another bucket", req(bob, "s3:GetObject", "arn:aws:s3:::other/x"), NoDecision},
	})
	if p.IsPublic() {
		t.Error("the deny-all policy is public")
	}
}
