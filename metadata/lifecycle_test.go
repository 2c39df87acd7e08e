package metadata

import (
	"path/filepath"
	"testing"
	"time"
)

// TestLifecycleCursor checks that the cursor survives closing and
// reopening the index, and that the zero cursor removes it.
func TestLifecycleCursor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := ix.LifecycleCursor(); err != nil || c != (LifecycleCursor{}) {
		t.Fatalf("fresh cursor = %+v, %v", c, err)
	}
	want := LifecycleCursor{
		Started: time.Unix(1700000000, 5).UTC(), Bucket: "b", Phase: 2, Rule: "r",
		KeyMarker: "k", VersionMarker: "v", Newer: 3, Since: time.Unix(1700000001, 0).UTC(),
		Examined: 1000, Acted: 7, Marker: "m", Kept: 2,
	}
	if err := ix.SetLifecycleCursor(want); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if ix, err = Open(path, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if c, err := ix.LifecycleCursor(); err != nil || c != want {
		t.Fatalf("reopened cursor = %+v, %v; want %+v", c, err, want)
	}
	if err := ix.SetLifecycleCursor(LifecycleCursor{}); err != nil {
		t.Fatal(err)
	}
	if c, err := ix.LifecycleCursor(); err != nil || c != (LifecycleCursor{}) {
		t.Fatalf("cleared cursor = %+v, %v", c, err)
	}
}

// TestBucketLifecycleRecord checks that a bucket record keeps its
// lifecycle configuration.
func TestBucketLifecycleRecord(t *testing.T) {
	b := Bucket{ID: 1, Lifecycle: "<LifecycleConfiguration/>"}
	enc, err := b.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Bucket
	if err := got.UnmarshalBinary(enc); err != nil || got != b {
		t.Fatalf("decoded %+v, %v", got, err)
	}
}

// FuzzLifecycleCursor checks the cursor record as FuzzBucketRecord checks
// buckets: no panic on any input, and whatever decodes re-encodes to a
// record that decodes equal.
func FuzzLifecycleCursor(f *testing.F) {
	full, err := (&LifecycleCursor{Started: time.Unix(1, 2), Bucket: "b", Phase: 1, Rule: "r\x00done", KeyMarker: "k",
		VersionMarker: "null", Newer: 2, Since: time.Unix(3, 4), Examined: 9, Acted: 1, Marker: "m", Kept: 1}).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add([]byte{1})
	f.Add([]byte{1, 3, 5, 0xff, 0xff, 0xff, 0xff, 0x0f}) // a phase beyond int32
	f.Fuzz(func(t *testing.T, data []byte) {
		var c1 LifecycleCursor
		if err := c1.UnmarshalBinary(data); err != nil {
			return
		}
		enc, err := c1.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded cursor %+v does not encode: %v", c1, err)
		}
		var c2 LifecycleCursor
		if err := c2.UnmarshalBinary(enc); err != nil || c1 != c2 {
			t.Fatalf("round trip: %+v then %+v (%v)", c1, c2, err)
		}
	})
}
