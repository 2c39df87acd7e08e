package object

import (
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/policy"
)

// TestMigratePublicRead opens a root whose buckets were made public-read
// by an earlier version (one without a policy, one with a policy of its
// own, one under IgnorePublicAcls) and checks that Open turned each into
// the bucket policy that grants what public-read granted, merged with the
// bucket's own, once and durably.
func TestMigratePublicRead(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	own := `{"Version":"2012-10-17","Statement":{"Sid":"Mine","Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::withpolicy/*"}}`
	for _, b := range []Bucket{
		{Name: "plain", Owner: "AKIDALICE", PublicRead: true},
		{Name: "withpolicy", Owner: "AKIDALICE", PublicRead: true, Policy: own},
		{Name: "ignored", Owner: "AKIDALICE", PublicRead: true, PublicAccessBlock: metadata.PublicAccessBlockSet | metadata.IgnorePublicAcls},
		{Name: "private", Owner: "AKIDALICE"},
	} {
		if err := l.ix.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()

	l, err = Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	got := l.Migrations()
	want := []Migrated{{Bucket: "ignored", Dropped: true}, {Bucket: "plain"}, {Bucket: "withpolicy"}}
	if len(got) != len(want) {
		t.Fatalf("migrated %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("migrated %v, want %v", got, want)
		}
	}
	for _, name := range []string{"plain", "withpolicy"} {
		b, err := l.Bucket(name)
		if err != nil {
			t.Fatal(err)
		}
		if b.PublicRead {
			t.Errorf("%s: PublicRead still set", name)
		}
		p, err := policy.Parse([]byte(b.Policy), name)
		if err != nil {
			t.Fatalf("%s: migrated policy %s: %v", name, b.Policy, err)
		}
		for _, c := range []struct {
			action, key string
		}{{"s3:GetObject", "a/b"}, {"s3:GetObjectVersion", "k"}, {"s3:ListBucket", ""}, {"s3:ListBucketVersions", ""}} {
			r := policy.Request{Principal: policy.Principal{Kind: policy.Anonymous}, Action: c.action, Resource: "arn:aws:s3:::" + name}
			if c.key != "" {
				r.Resource += "/" + c.key
			}
			if d := p.Evaluate(&r); d != policy.Allow {
				t.Errorf("%s: %s by anyone: %v, want Allow", name, c.action, d)
			}
		}
		r := policy.Request{Principal: policy.Principal{Kind: policy.Anonymous}, Action: "s3:PutObject", Resource: "arn:aws:s3:::" + name + "/k"}
		if d := p.Evaluate(&r); d != policy.NoDecision {
			t.Errorf("%s: PutObject by anyone: %v", name, d)
		}
	}
	b, _ := l.Bucket("withpolicy")
	p, _ := policy.Parse([]byte(b.Policy), "withpolicy")
	r := policy.Request{Principal: policy.Principal{Kind: policy.Anonymous}, Action: "s3:DeleteObject", Resource: "arn:aws:s3:::withpolicy/k"}
	if d := p.Evaluate(&r); d != policy.Deny {
		t.Errorf("the bucket's own Deny was lost in the merge: %v (%s)", d, b.Policy)
	}
	if b, _ := l.Bucket("ignored"); b.PublicRead || b.Policy != "" {
		t.Errorf("ignored: %+v, want PublicRead cleared and no policy", b)
	}
	l.Close()

	l, err = Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if m := l.Migrations(); len(m) != 0 {
		t.Fatalf("second open migrated again: %v", m)
	}
}
