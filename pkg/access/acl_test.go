package access

import (
	"slices"
	"testing"
)

// TestStoredFormRoundTrip checks that every canned ACL survives its
// stored form, and that lines a later version might write are skipped.
func TestStoredFormRoundTrip(t *testing.T) {
	o, b := CanonicalID(ownerKey), CanonicalID(otherKey)
	for _, name := range []string{"private", "public-read", "public-read-write", "authenticated-read", "aws-exec-read", "bucket-owner-read", "bucket-owner-full-control", "log-delivery-write"} {
		a, err := Canned(name, o, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if back := ParseStored(a.String()); !slices.Equal(back.Grants, a.Grants) {
			t.Errorf("%s: %q reads back as %v", name, a.String(), back.Grants)
		}
	}
	got := ParseStored("Fu" + o + "\nXq\n\nRg" + AllUsers + "\nZuzzz")
	want := []Grant{{ID: o, Permission: FullControl}, {Group: true, ID: AllUsers, Permission: Read}}
	if !slices.Equal(got.Grants, want) {
		t.Errorf("ParseStored skipped wrongly: %v", got.Grants)
	}
}

// TestStoredFormNoGrants checks that an ACL without grants has a stored
// form of its own, never "" (a record without an ACL, the owner's
// FULL_CONTROL), and that it reads back as no grant: a line ParseStored
// skips, as the versions before NoGrants existed skip it too.
func TestStoredFormNoGrants(t *testing.T) {
	for _, a := range []*ACL{{}, {Grants: []Grant{}}} {
		if s := a.String(); s != NoGrants || s == "" {
			t.Errorf("stored form of %#v: %q, want %q", a, s, NoGrants)
		}
	}
	if got := ParseStored(NoGrants); len(got.Grants) != 0 {
		t.Errorf("ParseStored(NoGrants): %v", got.Grants)
	}
	if a := Private(CanonicalID(ownerKey)); a.String() == NoGrants {
		t.Errorf("the private ACL is stored as NoGrants")
	}
}

// TestCannedPublic checks which canned ACLs Block Public Access calls
// public.
func TestCannedPublic(t *testing.T) {
	o := CanonicalID(ownerKey)
	for name, public := range map[string]bool{"private": false, "public-read": true, "public-read-write": true, "authenticated-read": true,
		"bucket-owner-read": false, "bucket-owner-full-control": false, "log-delivery-write": false, "aws-exec-read": false} {
		a, _ := Canned(name, o, CanonicalID(otherKey))
		if a.Public() != public {
			t.Errorf("%s: Public %v, want %v", name, a.Public(), public)
		}
	}
	if _, err := Canned("public", o, o); err == nil {
		t.Error("an unknown canned ACL was accepted")
	}
}

// TestNeedsObject checks when the object's record must be read to decide:
// denied reads of an object or its ACL, and the bucket owner's reads
// (another user may own the object) unless BucketOwnerEnforced.
func TestNeedsObject(t *testing.T) {
	b := Bucket{Name: bucket, Owner: ownerKey}
	enforced := Bucket{Name: bucket, Owner: ownerKey, Ownership: BucketOwnerEnforced}
	for _, tc := range []struct {
		caller Caller
		b      *Bucket
		action string
		d      Decision
		want   bool
	}{
		{NewCaller(otherKey, false), &b, "s3:GetObject", ImplicitDeny, true},
		{NewCaller("", false), &b, "s3:GetObjectAcl", ImplicitDeny, true},
		{NewCaller(otherKey, false), &b, "s3:GetObjectTagging", ImplicitDeny, false},
		{NewCaller(otherKey, false), &b, "s3:GetObject", ExplicitDeny, false},
		{NewCaller(ownerKey, false), &b, "s3:GetObject", Allowed, true},
		{NewCaller(ownerKey, false), &b, "s3:DeleteObject", Allowed, false},
		{NewCaller(ownerKey, false), &enforced, "s3:GetObject", Allowed, false},
		{NewCaller(otherKey, false), &enforced, "s3:GetObject", ImplicitDeny, false},
		{NewCaller(otherKey, false), &b, "s3:GetObject", Allowed, false},
	} {
		in := Input{Caller: tc.caller, Action: tc.action, Bucket: tc.b, Key: "k"}
		if got := NeedsObject(&in, tc.d); got != tc.want {
			t.Errorf("%s by %q on %v after %v: %v, want %v", tc.action, tc.caller.AccessKey, tc.b.Ownership, tc.d, got, tc.want)
		}
	}
}
