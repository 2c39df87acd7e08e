package metadata

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// walkIndex returns an index with bucket "b" holding objs.
func walkIndex(t *testing.T, objs []Object) *Index {
	t.Helper()
	ix := openTest(t)
	if err := ix.CreateBucket(Bucket{Name: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.ApplyObjects("b", objs, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// walkKeys walks ix's bucket "b" with q and returns the keys fn saw.
func walkKeys(t *testing.T, ix *Index, q WalkQuery) (keys []string, last string, more bool) {
	t.Helper()
	last, more, err := ix.Walk("b", q, func(r *WalkRecord) error {
		keys = append(keys, string(r.Key))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys, last, more
}

func TestWalkSelectsAsListDoes(t *testing.T) {
	var objs []Object
	for _, k := range []string{"a", "b/1", "b/2", "b/3", "b0", "c"} {
		objs = append(objs, Object{Key: k, Size: 1})
	}
	ix := walkIndex(t, objs)
	for _, tc := range []struct {
		q    WalkQuery
		keys []string
		last string
		more bool
	}{
		{WalkQuery{Limit: 10}, []string{"a", "b/1", "b/2", "b/3", "b0", "c"}, "c", false},
		{WalkQuery{Limit: 6}, []string{"a", "b/1", "b/2", "b/3", "b0", "c"}, "c", false},
		{WalkQuery{Limit: 2}, []string{"a", "b/1"}, "b/1", true},
		{WalkQuery{Prefix: "b/", Limit: 10}, []string{"b/1", "b/2", "b/3"}, "b/3", false},
		{WalkQuery{Prefix: "b/", Limit: 3}, []string{"b/1", "b/2", "b/3"}, "b/3", false},
		{WalkQuery{Prefix: "b/", After: "b/1", Limit: 1}, []string{"b/2"}, "b/2", true},
		{WalkQuery{Prefix: "b/", After: "b/3", Limit: 5}, nil, "", false},
		{WalkQuery{Prefix: "b/", After: "a", Limit: 5}, []string{"b/1", "b/2", "b/3"}, "b/3", false},
		{WalkQuery{After: "b/25", Limit: 5}, []string{"b/3", "b0", "c"}, "c", false},
		{WalkQuery{Prefix: "zz", Limit: 5}, nil, "", false},
		{WalkQuery{Limit: 0}, nil, "", false},
	} {
		keys, last, more := walkKeys(t, ix, tc.q)
		if !reflect.DeepEqual(keys, tc.keys) || last != tc.last || more != tc.more {
			t.Errorf("%+v: keys %q last %q more %v, want %q %q %v", tc.q, keys, last, more, tc.keys, tc.last, tc.more)
		}
	}
}

func TestWalkRecordFields(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)
	full := Object{
		Key: "full", Size: 1234, ETag: "etag", LastModified: now, ContentType: "text/plain",
		UserMeta:  []KV{{"kind", "scratch"}},
		Checksums: []Checksum{{"CRC32", "AAAAAA==", "FULL_OBJECT"}},
		Tags:      []KV{{"a", "1"}, {"kind", "scratch"}, {"empty", ""}},
		FileMtime: 99, FileInode: 7, LockMode: "GOVERNANCE", LockUntil: now.Add(time.Hour),
	}
	ix := walkIndex(t, []Object{full, {Key: "zero"}})
	var got []Object
	_, _, err := ix.Walk("b", WalkQuery{Limit: 10}, func(r *WalkRecord) error {
		switch string(r.Key) {
		case "full":
			if r.Size != 1234 || !r.LastModified.Equal(now) {
				t.Errorf("full: size %d modified %v", r.Size, r.LastModified)
			}
			for _, tc := range []struct {
				k, v string
				has  bool
			}{
				{"kind", "scratch", true}, {"a", "1", true}, {"empty", "", true},
				{"kind", "keep", false}, {"a", "", false}, {"missing", "", false},
			} {
				if got := r.HasTag(tc.k, tc.v); got != tc.has {
					t.Errorf("full: HasTag(%q, %q) = %v", tc.k, tc.v, got)
				}
			}
		case "zero":
			if r.Size != 0 || !r.LastModified.IsZero() || r.HasTag("kind", "scratch") || r.HasTag("", "") {
				t.Errorf("zero: %+v", r)
			}
		}
		o, err := r.Object()
		got = append(got, o)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want, err := ix.List("b", ListQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want.Objects) {
		t.Fatalf("Object() of the walk:\n%+v\nlisting:\n%+v", got, want.Objects)
	}
}

func TestWalkErrors(t *testing.T) {
	ix := walkIndex(t, []Object{{Key: "a", Size: 1}, {Key: "b", Size: 2}, {Key: "c", Size: 3}})
	if _, _, err := ix.Walk("nope", WalkQuery{Limit: 1}, func(*WalkRecord) error { return nil }); !errors.Is(err, ErrNoSuchBucket) {
		t.Fatalf("missing bucket: %v", err)
	}
	stop := errors.New("stop")
	n := 0
	if _, _, err := ix.Walk("b", WalkQuery{Limit: 10}, func(*WalkRecord) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("fn's error: %v after %d records", err, n)
	}
	// A corrupt record ends the walk with errCorrupt, as it ends a
	// listing: a record whose length runs past its end, one with a tag
	// field whose key length does, and one with a bad size.
	for _, bad := range [][]byte{
		{recordVersion, tagObjETag, 9, 'x'},
		{recordVersion, tagObjTag, 2, 5, 'k'},
		{recordVersion, tagObjSize, 1, 0x80},
		{},
		{recordVersion + 1},
	} {
		if err := ix.kvUpdate(func(tx kvTx) error {
			return tx.Bucket(objectsBucket).Bucket([]byte("b")).Put([]byte("b"), bad)
		}); err != nil {
			t.Fatal(err)
		}
		_, _, err := ix.Walk("b", WalkQuery{Limit: 10}, func(*WalkRecord) error { return nil })
		if !errors.Is(err, errCorrupt) {
			t.Errorf("record %x: %v", bad, err)
		}
		if _, err := ix.List("b", ListQuery{Limit: 10}); !errors.Is(err, errCorrupt) {
			t.Errorf("record %x: listing: %v", bad, err)
		}
	}
	// The index's invariants are checked at cleanup: the good record
	// goes back.
	if err := ix.ApplyObjects("b", []Object{{Key: "b", Size: 2}}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestWalkAllocatesPerWalkNotPerRecord: the walk reads records in place,
// so a walk over many records that fn only looks at allocates a few times
// in all, where a listing copies every record.
func TestWalkAllocatesPerWalkNotPerRecord(t *testing.T) {
	// PostgreSQL's cursor copies every row it fetches; reading records in
	// place is bbolt's.
	boltOnly(t)
	const n = 500
	var objs []Object
	for i := 0; i < n; i++ {
		o := Object{Key: fmt.Sprintf("k%04d", i), Size: int64(i), ETag: "etag", LastModified: time.Unix(int64(i), 0), ContentType: "text/plain"}
		if i%10 == 0 {
			o.Tags = []KV{{"kind", "keep"}}
		}
		objs = append(objs, o)
	}
	ix := walkIndex(t, objs)
	seen, tagged := 0, 0
	allocs := testing.AllocsPerRun(5, func() {
		seen, tagged = 0, 0
		_, _, err := ix.Walk("b", WalkQuery{Limit: n}, func(r *WalkRecord) error {
			seen++
			if r.HasTag("kind", "keep") {
				tagged++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if seen != n || tagged != n/10 {
		t.Fatalf("saw %d records, %d tagged", seen, tagged)
	}
	// bbolt's transaction and cursor, the record and the last key: far
	// fewer than one per record.
	if allocs > n/10 {
		t.Fatalf("a walk of %d records allocated %.0f times", n, allocs)
	}
}
