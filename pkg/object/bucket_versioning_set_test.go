package object

import (
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
)

// TestBucketVersioningSet checks that the layer tells a server when a
// bucket has been given a versioning state since it was opened, by
// CreateBucket or by SetVersioning, and not before.
func TestBucketVersioningSet(t *testing.T) {
	l, err := Open(Options{Root: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.CreateBucket(Bucket{Name: "plain"}); err != nil {
		t.Fatal(err)
	}
	if l.BucketVersioningSet() {
		t.Fatal("BucketVersioningSet after creating an unversioned bucket")
	}
	st, err := l.BucketState("plain")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetVersioning("plain", st.ID, metadata.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	if !l.BucketVersioningSet() {
		t.Error("BucketVersioningSet false after SetVersioning")
	}

	l2, err := Open(Options{Root: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if err := l2.CreateBucket(Bucket{Name: "versioned", Versioning: metadata.VersioningEnabled}); err != nil {
		t.Fatal(err)
	}
	if !l2.BucketVersioningSet() {
		t.Error("BucketVersioningSet false after creating a versioned bucket")
	}
}
