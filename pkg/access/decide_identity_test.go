package access

import (
	"strconv"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/policy"
)

func mustIdentity(t testing.TB, doc string) *policy.Policy {
	t.Helper()
	p, err := policy.ParseIdentity([]byte(doc))
	if err != nil {
		t.Fatalf("ParseIdentity: %v\n%s", err, doc)
	}
	return p
}

// TestDecideIdentity checks identity policies against bucket policies and
// ownership: an explicit Deny of either wins (the identity Deny even on
// the user's own bucket, and even for the bucket policy operations),
// else an Allow of the identity policy, the bucket policy or ownership
// allows; root is never bound by an identity policy.
func TestDecideIdentity(t *testing.T) {
	const (
		readShared = `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}}`
		// prefixed confines a user to home/<its name>/ of "shared".
		prefixed = `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::shared/home/${aws:username}/*"},
			{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::shared","Condition":{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}}]}`
		noDelete  = `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"s3:DeleteObject*","Resource":"*"}}`
		denyAll   = `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"s3:*","Resource":"*"}}`
		writeOnly = `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::shared/*"}}`
		fromLAN   = `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}}`
		// bucketAllowsBob is alice's bucket policy granting bob reads.
		bucketAllowsBob = `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}}`
		bucketDeniesGet = `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/secret/*"}}`
	)
	rootOwned := Bucket{Name: bucket}
	aliceOwned := Bucket{Name: bucket, Owner: ownerKey}
	bobOwned := Bucket{Name: bucket, Owner: otherKey}
	withPolicy := func(b Bucket, doc string) Bucket {
		b.Policy = mustParse(t, doc)
		return b
	}
	cases := []struct {
		name     string
		identity string // "" for none
		bucket   Bucket
		caller   Caller
		action   string
		key      string
		cond     map[string]string
		want     Decision
	}{
		{"no identity policy, root's bucket", "", rootOwned, NewCaller(otherKey, false), "s3:GetObject", "k", nil, ImplicitDeny},
		{"identity Allow reads root's bucket", readShared, rootOwned, NewCaller(otherKey, false), "s3:GetObject", "k", nil, Allowed},
		{"identity Allow reads alice's bucket", readShared, aliceOwned, NewCaller(otherKey, false), "s3:GetObject", "k", nil, Allowed},
		{"identity Allow is not a write", readShared, rootOwned, NewCaller(otherKey, false), "s3:PutObject", "k", nil, ImplicitDeny},
		{"identity Allow of another bucket", readShared, Bucket{Name: "other"}, NewCaller(otherKey, false), "s3:GetObject", "k", nil, ImplicitDeny},
		{"identity Allow, bucket Deny wins", readShared, withPolicy(rootOwned, bucketDeniesGet), NewCaller(otherKey, false), "s3:GetObject", "secret/k", nil, ExplicitDeny},
		{"identity Allow, bucket Deny elsewhere", readShared, withPolicy(rootOwned, bucketDeniesGet), NewCaller(otherKey, false), "s3:GetObject", "k", nil, Allowed},
		{"bucket Allow without identity Allow", writeOnly, withPolicy(aliceOwned, bucketAllowsBob), NewCaller(otherKey, false), "s3:GetObject", "k", nil, Allowed},
		{"identity Deny beats bucket Allow", denyAll, withPolicy(aliceOwned, bucketAllowsBob), NewCaller(otherKey, false), "s3:GetObject", "k", nil, ExplicitDeny},
		{"identity Deny beats ownership", noDelete, bobOwned, NewCaller(otherKey, false), "s3:DeleteObject", "k", nil, ExplicitDeny},
		{"identity Deny of versions beats ownership", noDelete, bobOwned, NewCaller(otherKey, false), "s3:DeleteObjectVersion", "k", nil, ExplicitDeny},
		{"ownership allows what the identity Deny leaves", noDelete, bobOwned, NewCaller(otherKey, false), "s3:PutObject", "k", nil, Allowed},
		{"identity Deny binds the owner's policy operations", denyAll, bobOwned, NewCaller(otherKey, false), "s3:PutBucketPolicy", "", nil, ExplicitDeny},
		{"root is never bound", denyAll, bobOwned, NewCaller("AKIDROOT", true), "s3:DeleteObject", "k", nil, Allowed},
		{"anonymous is never bound", readShared, rootOwned, NewCaller("", false), "s3:GetObject", "k", nil, ImplicitDeny},
		{"write-only writes", writeOnly, rootOwned, NewCaller(otherKey, false), "s3:PutObject", "in/k", nil, Allowed},
		{"write-only does not read", writeOnly, rootOwned, NewCaller(otherKey, false), "s3:GetObject", "in/k", nil, ImplicitDeny},
		{"write-only does not list", writeOnly, rootOwned, NewCaller(otherKey, false), "s3:ListBucket", "", nil, ImplicitDeny},
		{"prefix: own prefix read", prefixed, rootOwned, NewCaller(otherKey, false), "s3:GetObject", "home/AKIDBOB/a", nil, Allowed},
		{"prefix: own prefix write", prefixed, rootOwned, NewCaller(otherKey, false), "s3:PutObject", "home/AKIDBOB/a", nil, Allowed},
		{"prefix: another's prefix", prefixed, rootOwned, NewCaller(otherKey, false), "s3:GetObject", "home/AKIDALICE/a", nil, ImplicitDeny},
		{"prefix: list own prefix", prefixed, rootOwned, NewCaller(otherKey, false), "s3:ListBucket", "", map[string]string{"s3:prefix": "home/AKIDBOB/"}, Allowed},
		{"prefix: list the whole bucket", prefixed, rootOwned, NewCaller(otherKey, false), "s3:ListBucket", "", map[string]string{"s3:prefix": ""}, ImplicitDeny},
		{"prefix: list without a prefix", prefixed, rootOwned, NewCaller(otherKey, false), "s3:ListBucket", "", nil, ImplicitDeny},
		{"condition: from the LAN", fromLAN, rootOwned, NewCaller(otherKey, false), "s3:GetObject", "k", map[string]string{"aws:SourceIp": "10.9.9.9"}, Allowed},
		{"condition: from elsewhere", fromLAN, rootOwned, NewCaller(otherKey, false), "s3:GetObject", "k", map[string]string{"aws:SourceIp": "192.0.2.1"}, ImplicitDeny},
	}
	for _, tc := range cases {
		b := tc.bucket
		in := Input{Caller: tc.caller, Principal: tc.caller.Principal(), Action: tc.action, Bucket: &b, Key: tc.key}
		if tc.identity != "" {
			in.Identity = mustIdentity(t, tc.identity)
		}
		if tc.cond != nil {
			in.Conditions = policy.Conditions{}
			for k, v := range tc.cond {
				in.Conditions.Set(k, v)
			}
		}
		if got := Decide(&in); got != tc.want {
			t.Errorf("%s: %s on %q by %q: %v, want %v", tc.name, tc.action, tc.key, tc.caller.AccessKey, got, tc.want)
		}
	}
}

// TestDecideAccount checks the actions on no existing bucket: a user
// without an identity policy keeps the gateway's defaults, one with a
// policy needs its Allow.
func TestDecideAccount(t *testing.T) {
	creates := mustIdentity(t, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:CreateBucket","Resource":"arn:aws:s3:::team-*"},
		{"Effect":"Allow","Action":"s3:ListAllMyBuckets","Resource":"*"}]}`)
	readOnly := mustIdentity(t, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["s3:Get*","s3:List*"],"Resource":"*"}}`)
	noCreate := mustIdentity(t, `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"s3:CreateBucket","Resource":"*"}}`)
	for _, tc := range []struct {
		name     string
		identity *policy.Policy
		caller   Caller
		action   string
		bucket   string // "" for ListAllMyBuckets
		want     Decision
	}{
		{"user without a policy creates", nil, NewCaller(otherKey, false), "s3:CreateBucket", "any", Allowed},
		{"user without a policy lists", nil, NewCaller(otherKey, false), "s3:ListAllMyBuckets", "", Allowed},
		{"anonymous", nil, NewCaller("", false), "s3:CreateBucket", "any", ImplicitDeny},
		{"root", noCreate, NewCaller("AKIDROOT", true), "s3:CreateBucket", "any", Allowed},
		{"allowed name", creates, NewCaller(otherKey, false), "s3:CreateBucket", "team-a", Allowed},
		{"other name", creates, NewCaller(otherKey, false), "s3:CreateBucket", "mine", ImplicitDeny},
		{"read-only does not create", readOnly, NewCaller(otherKey, false), "s3:CreateBucket", "mine", ImplicitDeny},
		{"read-only lists", readOnly, NewCaller(otherKey, false), "s3:ListAllMyBuckets", "", Allowed},
		{"Deny", noCreate, NewCaller(otherKey, false), "s3:CreateBucket", "mine", ExplicitDeny},
		{"Deny does not list either", noCreate, NewCaller(otherKey, false), "s3:ListAllMyBuckets", "", ImplicitDeny},
	} {
		in := Input{Caller: tc.caller, Principal: tc.caller.Principal(), Action: tc.action, Identity: tc.identity}
		if tc.bucket != "" {
			in.Bucket = &Bucket{Name: tc.bucket}
		}
		if got := DecideAccount(&in); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// BenchmarkDecideIdentity20Statements measures one decision of a user
// whose identity policy has 20 statements with conditions, on a bucket
// whose policy has 20 more: the figure the package must keep within 2 µs.
// Every identity statement names the action, so each is matched against
// the resource.
func BenchmarkDecideIdentity20Statements(b *testing.B) {
	var st, ids []string
	for i := 0; i < 19; i++ {
		st = append(st, `{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/U`+strings.Repeat("X", i+1)+`"},"Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::shared/p`+strings.Repeat("q", i)+`/*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"StringLike":{"aws:UserAgent":"*sdk*"}}}`)
		// IAM's 2,048 characters leave room for a condition in every
		// sixth statement of this size, and a policy variable in each of
		// those.
		res, cond := "arn:aws:s3:::shared/h"+strconv.Itoa(i)+"/*", ""
		if i%6 == 0 {
			res = "arn:aws:s3:::shared/h" + strconv.Itoa(i) + "/${aws:username}/*"
			cond = `,"Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}`
		}
		ids = append(ids, `{"Effect":"Allow","Action":"s3:GetObject","Resource":"`+res+`"`+cond+`}`)
	}
	st = append(st, `{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::shared/*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}`)
	ids = append(ids, `{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}`)
	bk := Bucket{Name: bucket, Owner: ownerKey, Policy: mustParse(b, `{"Version":"2012-10-17","Statement":[`+strings.Join(st, ",")+`]}`)}
	c := NewCaller(otherKey, false)
	cs := policy.Conditions{}
	cs.Set("aws:SourceIp", "10.1.2.3")
	cs.Set("aws:UserAgent", "aws-sdk-go-v2/1.0")
	cs.Set("aws:SecureTransport", "true")
	in := Input{Caller: c, Principal: c.Principal(), Action: "s3:GetObject", Bucket: &bk, Key: "pqqq/object", Conditions: cs,
		Identity: mustIdentity(b, `{"Version":"2012-10-17","Statement":[`+strings.Join(ids, ",")+`]}`)}
	b.ReportAllocs()
	for b.Loop() {
		if Decide(&in) != ImplicitDeny {
			b.Fatal("allowed")
		}
	}
}
