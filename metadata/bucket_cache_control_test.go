package metadata

import (
	"path/filepath"
	"testing"
	"time"
)

// TestBucketCacheControl checks that a bucket's default Cache-Control is
// stored by UpdateBucket, survives a reopen, and that a record written
// before the field existed (no tag 7) decodes to "".
func TestBucketCacheControl(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateBucket(Bucket{Name: "b", Created: time.Unix(1700000000, 0).UTC()}); err != nil {
		t.Fatal(err)
	}
	if got, _ := ix.Bucket("b"); got.CacheControl != "" {
		t.Fatalf("new bucket: CacheControl %q, want \"\"", got.CacheControl)
	}
	const cc = "public, max-age=300"
	if err := ix.UpdateBucket("b", func(b *Bucket) error { b.CacheControl = cc; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	got, err := ix.Bucket("b")
	if err != nil {
		t.Fatal(err)
	}
	if got.CacheControl != cc {
		t.Fatalf("after reopen: CacheControl %q, want %q", got.CacheControl, cc)
	}
	if err := ix.UpdateBucket("b", func(b *Bucket) error { b.CacheControl = ""; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := ix.Bucket("b"); got.CacheControl != "" {
		t.Fatalf("after clearing: CacheControl %q", got.CacheControl)
	}

	old := Bucket{Created: time.Unix(5, 0).UTC(), Owner: "o", PublicRead: true}
	data, err := old.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var dec Bucket
	if err := dec.UnmarshalBinary(data); err != nil || dec != old {
		t.Fatalf("record without CacheControl: %+v, %v; want %+v", dec, err, old)
	}
}
