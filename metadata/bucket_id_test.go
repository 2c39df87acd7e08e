package metadata

import (
	"path/filepath"
	"testing"
)

// TestBucketIDNeverReused checks that a bucket deleted and created again
// under its name gets a new identity, and that UpdateBucket keeps it.
func TestBucketIDNeverReused(t *testing.T) {
	ix := openTest(t)
	seen := map[uint64]bool{}
	for i := range 3 {
		mustCreateBucket(t, ix, "b")
		b, err := ix.Bucket("b")
		if err != nil {
			t.Fatal(err)
		}
		if b.ID == 0 || seen[b.ID] {
			t.Fatalf("round %d: ID %d is zero or was given before (%v)", i, b.ID, seen)
		}
		seen[b.ID] = true
		if err := ix.UpdateBucket("b", func(r *Bucket) error { r.ID = 999; r.CORS = "x"; return nil }); err != nil {
			t.Fatal(err)
		}
		if after, _ := ix.Bucket("b"); after.ID != b.ID || after.CORS != "x" {
			t.Fatalf("UpdateBucket changed the ID %d -> %d (or lost the change)", b.ID, after.ID)
		}
		if err := ix.DeleteBucket("b"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenIdentifiesOldBuckets checks that records written before buckets
// had an identity get one, a different one each, when the index opens.
func TestOpenIdentifiesOldBuckets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"old1", "old2"} {
		mustCreateBucket(t, ix, name)
	}
	// Rewrite the records as an older gateway stored them: without ID.
	err = ix.kvUpdate(func(tx kvTx) error {
		records := tx.Bucket(bucketsBucket)
		for _, name := range []string{"old1", "old2"} {
			old := Bucket{Owner: "o"}
			v, err := old.MarshalBinary()
			if err != nil {
				return err
			}
			if err := records.Put([]byte(name), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := ix.Bucket("old1"); b.ID != 0 {
		t.Fatalf("setup: old record has ID %d", b.ID)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	b1, _ := ix.Bucket("old1")
	b2, _ := ix.Bucket("old2")
	if b1.ID == 0 || b2.ID == 0 || b1.ID == b2.ID || b1.Owner != "o" {
		t.Fatalf("after reopen: old1 %+v, old2 %+v", b1, b2)
	}
	mustCreateBucket(t, ix, "new")
	if n, _ := ix.Bucket("new"); n.ID == b1.ID || n.ID == b2.ID {
		t.Fatalf("new bucket reuses an identity: %d", n.ID)
	}
}
