package metadata

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestUpdateBucket(t *testing.T) {
	ix, err := Open(filepath.Join(t.TempDir(), "index.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	created := time.Unix(1700000000, 0).UTC()
	if err := ix.CreateBucket(Bucket{Name: "b", Created: created, Owner: "o"}); err != nil {
		t.Fatal(err)
	}
	err = ix.UpdateBucket("b", func(b *Bucket) error {
		b.Policy = `{"Version":"2012-10-17"}`
		b.CORS = "<CORSConfiguration/>"
		b.PublicRead = true
		b.Name = "renamed"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.Bucket("b")
	if err != nil {
		t.Fatal(err)
	}
	want := Bucket{Name: "b", ID: 1, Created: created, Owner: "o", Policy: `{"Version":"2012-10-17"}`, CORS: "<CORSConfiguration/>", PublicRead: true}
	if got != want {
		t.Fatalf("after update: %+v, want %+v", got, want)
	}
	if _, err := ix.Bucket("renamed"); !errors.Is(err, ErrNoSuchBucket) {
		t.Fatalf("UpdateBucket renamed the bucket: %v", err)
	}

	boom := errors.New("boom")
	if err := ix.UpdateBucket("b", func(b *Bucket) error { b.Policy = ""; return boom }); !errors.Is(err, boom) {
		t.Fatalf("fn error: got %v", err)
	}
	if got, _ := ix.Bucket("b"); got.Policy == "" {
		t.Fatal("a failed update was written")
	}
	if err := ix.UpdateBucket("missing", func(*Bucket) error { return nil }); !errors.Is(err, ErrNoSuchBucket) {
		t.Fatalf("missing bucket: %v", err)
	}
}

func TestBucketRecordConfig(t *testing.T) {
	b := Bucket{Created: time.Unix(5, 0).UTC(), Policy: "{}", CORS: "<x/>", PublicRead: true}
	data, err := b.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Bucket
	if err := got.UnmarshalBinary(data); err != nil || got != b {
		t.Fatalf("round trip: %+v (%v), want %+v", got, err, b)
	}
	// The public-read flag's only valid payload is 1.
	for _, bad := range [][]byte{{1, 6, 1, 2}, {1, 6, 0}} {
		if err := got.UnmarshalBinary(bad); !errors.Is(err, errCorrupt) {
			t.Errorf("UnmarshalBinary(%x) = %v, want corrupt", bad, err)
		}
	}
}
