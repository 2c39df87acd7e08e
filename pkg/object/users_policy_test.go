package object

import (
	"errors"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

const readShared = `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/*"}}`

// TestUserPolicyStored checks that an identity policy is validated on
// put, kept as it was put, parsed once per change, and removed.
func TestUserPolicyStored(t *testing.T) {
	l, _ := newLayer(t)
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	u := l.Users(UsersOptions{Root: testRoot, Now: clock.now, TTL: time.Second})
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDREADER"}); err != nil {
		t.Fatal(err)
	}
	if _, err := u.UserPolicy("AKIDREADER"); !errors.Is(err, ErrNoUserPolicy) {
		t.Fatalf("UserPolicy of a user without one: %v", err)
	}
	if u.IdentityPolicy("AKIDREADER") != nil || u.IdentityPolicy("ROOTKEY") != nil || u.IdentityPolicy("NOBODY") != nil {
		t.Fatal("an identity policy where none was put")
	}
	if err := u.SetUserPolicy("AKIDREADER", ""); !errors.Is(err, ErrNoUserPolicy) {
		t.Errorf("removing a policy that is not there: %v", err)
	}
	bad := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*"}}`
	if err := u.SetUserPolicy("AKIDREADER", bad); s3err.As(err).Code != s3err.MalformedPolicy {
		t.Errorf("a policy with a Principal: %v, want MalformedPolicy", err)
	}
	if err := u.SetUserPolicy("NOBODY", readShared); !errors.Is(err, ErrNoSuchUser) {
		t.Errorf("policy of a missing user: %v", err)
	}
	spaced := "{\n  " + readShared[1:]
	if err := u.SetUserPolicy("AKIDREADER", spaced); err != nil {
		t.Fatal(err)
	}
	if doc, err := u.UserPolicy("AKIDREADER"); err != nil || doc != spaced {
		t.Errorf("UserPolicy: %q, %v; want the document as put", doc, err)
	}
	p := u.IdentityPolicy("AKIDREADER")
	r := policy.Request{Principal: policy.Principal{Kind: policy.User}, Action: "s3:GetObject", Resource: "arn:aws:s3:::shared/k"}
	if p == nil || p.Evaluate(&r) != policy.Allow {
		t.Fatalf("IdentityPolicy: %v", p)
	}
	// A refill of the cache after the TTL reuses the parse of an
	// unchanged document.
	clock.advance(2 * time.Second)
	if q := u.IdentityPolicy("AKIDREADER"); q != p {
		t.Error("an unchanged policy was parsed again")
	}
	if list, err := u.List(); err != nil || !list[0].HasPolicy {
		t.Errorf("List: %+v, %v", list, err)
	}
	if err := u.SetUserPolicy("AKIDREADER", ""); err != nil {
		t.Fatal(err)
	}
	if u.IdentityPolicy("AKIDREADER") != nil {
		t.Error("a removed policy is still in force")
	}
	// A stored policy that does not parse denies everything.
	if err := l.ix.UpdateUser("AKIDREADER", func(r *metadata.User) error {
		r.Policy = `{"Statement":"damaged"}`
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	clock.advance(2 * time.Second)
	if p := u.IdentityPolicy("AKIDREADER"); p == nil || p.Evaluate(&r) != policy.Deny {
		t.Errorf("damaged policy: %v, want a Deny of everything", p)
	}
}

// TestUserPolicySize checks IAM's limit on a user's policy: 2,048
// characters, white space not counted.
func TestUserPolicySize(t *testing.T) {
	l, _ := newLayer(t)
	u := l.Users(UsersOptions{Root: testRoot})
	if _, _, err := u.AddUser(AddUserInput{AccessKey: "AKIDREADER"}); err != nil {
		t.Fatal(err)
	}
	doc := func(idLen int, space string) string {
		id := make([]byte, idLen)
		for i := range id {
			id[i] = 'x'
		}
		return `{"Version":"2012-10-17",` + space + `"Id":"` + string(id) + `","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`
	}
	base := len(doc(0, ""))
	if err := u.SetUserPolicy("AKIDREADER", doc(policy.MaxIdentitySize-base, "    ")); err != nil {
		t.Errorf("a policy of exactly %d characters and some white space: %v", policy.MaxIdentitySize, err)
	}
	if err := u.SetUserPolicy("AKIDREADER", doc(policy.MaxIdentitySize-base+1, "")); s3err.As(err).Code != s3err.MalformedPolicy {
		t.Errorf("a policy of %d characters: %v, want MalformedPolicy", policy.MaxIdentitySize+1, err)
	}
}
