package metadata

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestVersionIDRoundTrip(t *testing.T) {
	for _, tc := range []struct{ bucket, seq uint64 }{
		{0, 0}, {1, 1}, {1, 2}, {7, 1 << 32}, {math.MaxUint64, math.MaxUint64}, {math.MaxUint64, 0}, {0, math.MaxUint64},
	} {
		id := VersionID(tc.bucket, tc.seq)
		if len(id) != 26 {
			t.Errorf("VersionID(%d, %d) = %q: %d characters, want 26", tc.bucket, tc.seq, id, len(id))
		}
		if strings.Trim(id, "0123456789abcdefghijklmnopqrstuv") != "" {
			t.Errorf("VersionID(%d, %d) = %q uses characters outside the alphabet", tc.bucket, tc.seq, id)
		}
		b, s, ok := ParseVersionID(id)
		if !ok || b != tc.bucket || s != tc.seq {
			t.Errorf("ParseVersionID(%q) = %d, %d, %v; want %d, %d, true", id, b, s, ok, tc.bucket, tc.seq)
		}
	}
}

// TestVersionIDOrder checks that version ids of one bucket sort as their
// sequence numbers do, byte-wise as strings, so a listing's order by id
// and by sequence are one.
func TestVersionIDOrder(t *testing.T) {
	seqs := []uint64{0, 1, 2, 9, 10, 31, 32, 33, 255, 256, 1023, 1024, 1 << 20, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64}
	for _, bucket := range []uint64{0, 1, 42, math.MaxUint64} {
		for i := 1; i < len(seqs); i++ {
			a, b := VersionID(bucket, seqs[i-1]), VersionID(bucket, seqs[i])
			if a >= b {
				t.Errorf("bucket %d: VersionID(seq %d) = %q sorts at or after VersionID(seq %d) = %q", bucket, seqs[i-1], a, seqs[i], b)
			}
		}
	}
	// A later bucket's ids sort after an earlier bucket's.
	if a, b := VersionID(1, math.MaxUint64), VersionID(2, 0); a >= b {
		t.Errorf("VersionID(1, max) = %q sorts at or after VersionID(2, 0) = %q", a, b)
	}
}

func TestParseVersionIDRejects(t *testing.T) {
	const alphabet = "0123456789abcdefghijklmnopqrstuv"
	good := VersionID(3, 5)
	// The last character carries two bits beyond the 128 encoded;
	// setting one decodes to the same bytes, but is not the id VersionID
	// gives.
	nonCanonical := good[:25] + string(alphabet[strings.IndexByte(alphabet, good[25])+1])
	for _, tc := range []struct{ name, id string }{
		{"empty", ""},
		{"null", NullVersion},
		{"one short", good[:25]},
		{"one long", good + "0"},
		{"upper case", strings.ToUpper(VersionID(0xabcdef, 0xfedcba))},
		{"non-canonical final character", nonCanonical},
		{"outside the alphabet", good[:25] + "w"},
		{"padding", good[:24] + "=="},
		{"newline", good[:12] + "\n" + good[13:]},
		{"carriage return", good[:25] + "\r"},
		{"space", " " + good[1:]},
		{"multi-byte", good[:24] + "é"},
	} {
		if b, s, ok := ParseVersionID(tc.id); ok {
			t.Errorf("%s: ParseVersionID(%q) = %d, %d, true; want false", tc.name, tc.id, b, s)
		}
	}
}

// editVersions runs fn in EditVersions and fails the test on an error.
func editVersions(t testing.TB, ix *Index, bucket, key string, fn func(v *Versions) error) {
	t.Helper()
	if err := ix.EditVersions(bucket, key, fn); err != nil {
		t.Fatalf("EditVersions(%q, %q): %v", bucket, key, err)
	}
}

// versionsOf returns the key's current record (nil if none) and its
// noncurrent versions, newest first.
func versionsOf(t testing.TB, ix *Index, bucket, key string) (*Object, []Object) {
	t.Helper()
	var cur *Object
	var nc []Object
	err := ix.ViewVersions(bucket, key, func(v *Versions) error {
		o, ok, err := v.Current()
		if err != nil {
			return err
		}
		if ok {
			cur = &o
		}
		nc, err = v.Noncurrent(0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return cur, nc
}

// keyBucketExists reports whether the key has a bucket of noncurrent
// versions in the index.
func keyBucketExists(t testing.TB, ix *Index, bucket, key string) bool {
	t.Helper()
	exists := false
	err := ix.kvView(func(tx kvTx) error {
		if vb := tx.Bucket(versionsBucket).Bucket([]byte(bucket)); vb != nil {
			exists = vb.Bucket([]byte(key)) != nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return exists
}

func TestVersionsCurrent(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		if v.Key() != "k" {
			t.Errorf("Key() = %q", v.Key())
		}
		if _, ok, err := v.Current(); ok || err != nil {
			t.Errorf("Current of a new key = %v, %v; want none", ok, err)
		}
		// SetCurrent names the record by the key being edited, never
		// stores a delete marker as current, and sorts user metadata.
		return v.SetCurrent(Object{Key: "other", Size: 3, VersionID: "x", Seq: 9, DeleteMarker: true, UserMeta: []KV{{"z", "1"}, {"a", "2"}}})
	})
	cur, nc := versionsOf(t, ix, "b", "k")
	want := Object{Key: "k", Size: 3, VersionID: "x", Seq: 9, UserMeta: []KV{{"a", "2"}, {"z", "1"}}}
	if cur == nil || cur.Key != want.Key || cur.Size != want.Size || cur.VersionID != want.VersionID || cur.Seq != want.Seq ||
		cur.DeleteMarker || !slices.Equal(cur.UserMeta, want.UserMeta) || len(nc) != 0 {
		t.Fatalf("after SetCurrent: current %+v, noncurrent %v; want %+v and none", cur, nc, want)
	}
	// The current record is the one GetObject and List see.
	if o, err := ix.Object("b", "k"); err != nil || o.VersionID != "x" {
		t.Errorf("Object(k) = %+v, %v", o, err)
	}
	editVersions(t, ix, "b", "k", func(v *Versions) error { return v.DropCurrent() })
	if cur, _ := versionsOf(t, ix, "b", "k"); cur != nil {
		t.Errorf("after DropCurrent: current %+v", cur)
	}
	// Dropping a current record that is not there is no error.
	editVersions(t, ix, "b", "k", func(v *Versions) error { return v.DropCurrent() })
	if _, err := ix.Object("b", "k"); err != ErrNoSuchKey {
		t.Errorf("Object after DropCurrent = %v, want ErrNoSuchKey", err)
	}
}

func TestVersionsNewVersion(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	mustCreateBucket(t, ix, "c")
	bid, err := ix.BucketID("b")
	if err != nil {
		t.Fatal(err)
	}
	var last uint64
	var lastID string
	for i := range 5 {
		// Keys share their bucket's sequence: a version of any key is
		// newer than every version written before it.
		key := []string{"k", "other", "k"}[i%3]
		editVersions(t, ix, "b", key, func(v *Versions) error {
			seq, id, err := v.NewVersion()
			if err != nil {
				return err
			}
			if seq <= last || id <= lastID {
				t.Errorf("NewVersion = %d, %q after %d, %q", seq, id, last, lastID)
			}
			if id != VersionID(bid, seq) {
				t.Errorf("NewVersion id %q, want VersionID(%d, %d) = %q", id, bid, seq, VersionID(bid, seq))
			}
			last, lastID = seq, id
			return nil
		})
	}
	// Another bucket's ids differ; on bbolt it counts on its own (from 1),
	// on PostgreSQL every bucket's numbers come from one sequence.
	editVersions(t, ix, "c", "k", func(v *Versions) error {
		seq, id, err := v.NewVersion()
		if err != nil {
			return err
		}
		if seq == 0 || testEngine() == "bbolt" && seq != 1 || id == VersionID(bid, seq) {
			t.Errorf("first NewVersion of bucket c = %d, %q", seq, id)
		}
		return nil
	})
	// A read transaction cannot take a version.
	err = ix.ViewVersions("b", "k", func(v *Versions) error {
		_, _, err := v.NewVersion()
		return err
	})
	if err == nil {
		t.Error("NewVersion in ViewVersions succeeded")
	}
}

func TestVersionsNoncurrent(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	var seqs []uint64
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		// Put out of order: the key's bucket orders them newest first.
		for range 4 {
			seq, id, err := v.NewVersion()
			if err != nil {
				return err
			}
			seqs = append(seqs, seq)
			if err := v.PutNoncurrent(Object{Seq: seq, VersionID: id, Size: int64(seq), UserMeta: []KV{{"b", ""}, {"a", ""}}}); err != nil {
				return err
			}
		}
		// The null version written before versioning has Seq 0, older
		// than all.
		if err := v.PutNoncurrent(Object{Size: 100}); err != nil {
			return err
		}
		return v.PutNoncurrent(Object{Seq: seqs[1], VersionID: VersionID(0, seqs[1]), DeleteMarker: true})
	})
	_, nc := versionsOf(t, ix, "b", "k")
	var got []uint64
	for _, o := range nc {
		got = append(got, o.Seq)
		if o.Key != "k" {
			t.Errorf("noncurrent version %+v has key %q", o, o.Key)
		}
		if len(o.UserMeta) > 0 && o.UserMeta[0].Key != "a" {
			t.Errorf("noncurrent version's user metadata is not sorted: %v", o.UserMeta)
		}
	}
	if want := []uint64{seqs[3], seqs[2], seqs[1], seqs[0], 0}; !slices.Equal(got, want) {
		t.Fatalf("Noncurrent seqs = %v, want %v", got, want)
	}
	// PutNoncurrent of an existing Seq replaced that version.
	if !nc[2].DeleteMarker || nc[2].Size != 0 {
		t.Errorf("version %d = %+v, want the delete marker that replaced it", seqs[1], nc[2])
	}
	err := ix.ViewVersions("b", "k", func(v *Versions) error {
		for _, limit := range []int{1, 2, 5, 6} {
			nc, err := v.Noncurrent(limit)
			if err != nil {
				return err
			}
			if len(nc) != min(limit, 5) || nc[0].Seq != seqs[3] {
				t.Errorf("Noncurrent(%d) = %d versions, first %d", limit, len(nc), nc[0].Seq)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A key without versions has none.
	if cur, nc := versionsOf(t, ix, "b", "none"); cur != nil || nc != nil {
		t.Errorf("key without versions: %v, %v", cur, nc)
	}
}

func TestVersionsDropNoncurrent(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	var seqs []uint64
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		for range 2 {
			seq, id, err := v.NewVersion()
			if err != nil {
				return err
			}
			seqs = append(seqs, seq)
			if err := v.PutNoncurrent(Object{Seq: seq, VersionID: id}); err != nil {
				return err
			}
		}
		return nil
	})
	// Dropping a Seq the key does not have, or a key without versions,
	// is no error and changes nothing.
	editVersions(t, ix, "b", "k", func(v *Versions) error { return v.DropNoncurrent(seqs[1] + 10) })
	editVersions(t, ix, "b", "none", func(v *Versions) error { return v.DropNoncurrent(1) })
	if _, nc := versionsOf(t, ix, "b", "k"); len(nc) != 2 {
		t.Fatalf("after dropping missing versions: %d versions, want 2", len(nc))
	}
	editVersions(t, ix, "b", "k", func(v *Versions) error { return v.DropNoncurrent(seqs[1]) })
	if _, nc := versionsOf(t, ix, "b", "k"); len(nc) != 1 || nc[0].Seq != seqs[0] {
		t.Fatalf("after DropNoncurrent(%d): %+v", seqs[1], nc)
	}
	if !keyBucketExists(t, ix, "b", "k") {
		t.Fatal("the key's bucket went with a version still in it")
	}
	// The last version takes the key's bucket with it, in the same
	// transaction as later changes to the key.
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		if err := v.DropNoncurrent(seqs[0]); err != nil {
			return err
		}
		if nc, err := v.Noncurrent(0); err != nil || len(nc) != 0 {
			t.Errorf("Noncurrent after the last DropNoncurrent = %v, %v", nc, err)
		}
		return v.PutNoncurrent(Object{Seq: 99, DeleteMarker: true})
	})
	if _, nc := versionsOf(t, ix, "b", "k"); len(nc) != 1 || nc[0].Seq != 99 {
		t.Fatalf("a version put after the key's bucket was removed: %+v", nc)
	}
	editVersions(t, ix, "b", "k", func(v *Versions) error { return v.DropNoncurrent(99) })
	if keyBucketExists(t, ix, "b", "k") {
		t.Error("DropNoncurrent of the last version left the key's bucket")
	}
	if p, err := ix.ListVersions("b", VersionQuery{Limit: 10}); err != nil || len(p.Entries) != 0 {
		t.Errorf("ListVersions after the last version went = %+v, %v", p, err)
	}
}

func TestVersionsFind(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	mustCreateBucket(t, ix, "c")
	find := func(key, id string) (Object, bool, error) {
		t.Helper()
		var o Object
		var current bool
		err := ix.ViewVersions("b", key, func(v *Versions) error {
			var err error
			o, current, err = v.Find(id)
			return err
		})
		return o, current, err
	}
	// A key without versions has none, null or not.
	for _, id := range []string{"", NullVersion, VersionID(1, 1), "garbage"} {
		if _, _, err := find("k", id); err != ErrNoSuchVersion {
			t.Errorf("Find(%q) on a missing key = %v, want ErrNoSuchVersion", id, err)
		}
	}
	// The object written before versioning is the current null version.
	mustPut(t, ix, "b", Object{Key: "k", Size: 1})
	for _, id := range []string{"", NullVersion} {
		if o, cur, err := find("k", id); err != nil || !cur || o.Size != 1 {
			t.Errorf("Find(%q) of the current null version = %+v, %v, %v", id, o, cur, err)
		}
	}
	// A new version demotes it: the null version is then noncurrent.
	var id1 string
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		cur, _, err := v.Current()
		if err != nil {
			return err
		}
		if err := v.PutNoncurrent(cur); err != nil {
			return err
		}
		seq, id, err := v.NewVersion()
		if err != nil {
			return err
		}
		id1 = id
		return v.SetCurrent(Object{Seq: seq, VersionID: id, Size: 2})
	})
	if o, cur, err := find("k", NullVersion); err != nil || cur || o.Size != 1 || o.Key != "k" {
		t.Errorf("Find(null) of the noncurrent null version = %+v, %v, %v", o, cur, err)
	}
	if o, cur, err := find("k", id1); err != nil || !cur || o.Size != 2 {
		t.Errorf("Find(%q) of the current version = %+v, %v, %v", id1, o, cur, err)
	}
	// A third version makes id1 noncurrent: found by one lookup.
	var seq2 uint64
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		cur, _, err := v.Current()
		if err != nil {
			return err
		}
		if err := v.PutNoncurrent(cur); err != nil {
			return err
		}
		seq, id, err := v.NewVersion()
		if err != nil {
			return err
		}
		seq2 = seq
		return v.SetCurrent(Object{Seq: seq, VersionID: id, Size: 3})
	})
	if o, cur, err := find("k", id1); err != nil || cur || o.Size != 2 {
		t.Errorf("Find(%q) of a noncurrent version = %+v, %v, %v", id1, o, cur, err)
	}
	// Drop the null version: none is left.
	editVersions(t, ix, "b", "k", func(v *Versions) error { return v.DropNoncurrent(0) })
	if _, _, err := find("k", NullVersion); err != ErrNoSuchVersion {
		t.Errorf("Find(null) with no null version = %v, want ErrNoSuchVersion", err)
	}
	cid, err := ix.BucketID("c")
	if err != nil {
		t.Fatal(err)
	}
	_, seq1, _ := ParseVersionID(id1)
	for _, tc := range []struct{ name, id string }{
		// The same sequence numbers in another bucket: not this bucket's
		// versions.
		{"another bucket's id of a noncurrent version", VersionID(cid, seq1)},
		{"another bucket's id of the current version", VersionID(cid, seq2)},
		{"a sequence number never given", VersionID(cid-1, seq2+100)},
		{"upper case", "A" + id1[1:]},
		{"garbage", "garbage"},
	} {
		if _, _, err := find("k", tc.id); err != ErrNoSuchVersion {
			t.Errorf("Find(%s %q) = %v, want ErrNoSuchVersion", tc.name, tc.id, err)
		}
	}
	// A version id of another key of the same bucket is not this key's.
	if _, _, err := find("other", id1); err != ErrNoSuchVersion {
		t.Errorf("Find of another key's version = %v, want ErrNoSuchVersion", err)
	}
}

func TestEditVersionsErrors(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	if err := ix.EditVersions("nope", "k", func(*Versions) error { return nil }); err != ErrNoSuchBucket {
		t.Errorf("EditVersions(missing bucket) = %v, want ErrNoSuchBucket", err)
	}
	if err := ix.ViewVersions("nope", "k", func(*Versions) error { return nil }); err != ErrNoSuchBucket {
		t.Errorf("ViewVersions(missing bucket) = %v, want ErrNoSuchBucket", err)
	}
	if err := ix.EditVersions("b", "", func(*Versions) error { return nil }); err == nil {
		t.Error("EditVersions of the empty key succeeded")
	}
	mustPut(t, ix, "b", Object{Key: "k", Size: 1})

	// fn's error after changes: none of them is written.
	refused := errors.New("refused")
	err := ix.EditVersions("b", "k", func(v *Versions) error {
		if err := v.PutNoncurrent(Object{Size: 1}); err != nil {
			return err
		}
		seq, id, err := v.NewVersion()
		if err != nil {
			return err
		}
		if err := v.SetCurrent(Object{Seq: seq, VersionID: id, Size: 2}); err != nil {
			return err
		}
		return refused
	})
	if err != refused {
		t.Fatalf("EditVersions = %v, want fn's error as it is", err)
	}
	checkUnchanged := func(when string) {
		t.Helper()
		cur, nc := versionsOf(t, ix, "b", "k")
		if cur == nil || cur.Size != 1 || cur.VersionID != "" || len(nc) != 0 || keyBucketExists(t, ix, "b", "k") {
			t.Errorf("%s: current %+v, noncurrent %v; want the first record alone", when, cur, nc)
		}
	}
	checkUnchanged("after fn's error")

	// fn's plain error before any change: nothing is written either.
	if err := ix.EditVersions("b", "k", func(*Versions) error { return refused }); err != refused {
		t.Errorf("EditVersions = %v, want fn's error as it is", err)
	}

	// A write error from bbolt after a change rolls the change back: a
	// plain value where the key's bucket of versions belongs makes
	// PutNoncurrent fail to create it.
	err = ix.kvUpdate(func(tx kvTx) error {
		vb, err := tx.Bucket(versionsBucket).CreateBucketIfNotExists([]byte("b"))
		if err != nil {
			return err
		}
		return vb.Put([]byte("k"), []byte("not a bucket"))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = ix.EditVersions("b", "k", func(v *Versions) error {
		if err := v.SetCurrent(Object{Size: 5}); err != nil {
			return err
		}
		return v.PutNoncurrent(Object{Seq: 1, Size: 1})
	})
	if !errors.Is(err, bolt.ErrIncompatibleValue) {
		t.Fatalf("EditVersions with a failing write = %v, want a write error", err)
	}
	err = ix.kvUpdate(func(tx kvTx) error {
		return tx.Bucket(versionsBucket).Bucket([]byte("b")).Delete([]byte("k"))
	})
	if err != nil {
		t.Fatal(err)
	}
	checkUnchanged("after a write error")

	// A record that does not encode: the error is returned and the
	// change before it rolled back.
	err = ix.EditVersions("b", "k", func(v *Versions) error {
		if err := v.DropCurrent(); err != nil {
			return err
		}
		return v.PutNoncurrent(Object{Size: -1})
	})
	if err == nil {
		t.Fatal("PutNoncurrent of a negative size succeeded")
	}
	checkUnchanged("after an encoding error")
}

func TestDeleteBucketWithVersions(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	var seq uint64
	// The key's only version is a delete marker: no current record, so
	// the objects bucket is empty, yet the bucket is not.
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		var id string
		var err error
		if seq, id, err = v.NewVersion(); err != nil {
			return err
		}
		return v.PutNoncurrent(Object{Seq: seq, VersionID: id, DeleteMarker: true})
	})
	if p, err := ix.List("b", ListQuery{Limit: 10}); err != nil || len(p.Objects) != 0 {
		t.Fatalf("List = %+v, %v; want no objects", p, err)
	}
	if err := ix.DeleteBucket("b"); err != ErrBucketNotEmpty {
		t.Fatalf("DeleteBucket with a delete marker = %v, want ErrBucketNotEmpty", err)
	}
	if _, err := ix.Bucket("b"); err != nil {
		t.Fatalf("the refused DeleteBucket removed the bucket: %v", err)
	}
	if _, nc := versionsOf(t, ix, "b", "k"); len(nc) != 1 {
		t.Fatalf("the refused DeleteBucket removed the marker: %v", nc)
	}
	editVersions(t, ix, "b", "k", func(v *Versions) error { return v.DropNoncurrent(seq) })
	if err := ix.DeleteBucket("b"); err != nil {
		t.Fatalf("DeleteBucket after the last version went = %v", err)
	}
	// The bucket's versions went with it: a bucket created again under
	// the name starts without any.
	mustCreateBucket(t, ix, "b")
	if p, err := ix.ListVersions("b", VersionQuery{Limit: 10}); err != nil || len(p.Entries) != 0 {
		t.Errorf("ListVersions of the bucket created again = %+v, %v", p, err)
	}
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		_, _, err := v.NewVersion()
		return err
	})
	// A bucket left with only the sequence of its versions is empty.
	if err := ix.DeleteBucket("b"); err != nil {
		t.Errorf("DeleteBucket of a bucket that only took a version id = %v", err)
	}
}

// TestVersionRecordFields checks that the version fields of an object
// record survive the index, current and noncurrent.
func TestVersionRecordFields(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	until := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	o := Object{Size: 1, VersionID: VersionID(1, 7), Seq: 7, LockMode: "COMPLIANCE", LockUntil: until, LegalHold: true, Location: Noncurrent}
	editVersions(t, ix, "b", "k", func(v *Versions) error {
		if err := v.PutNoncurrent(o); err != nil {
			return err
		}
		return v.SetCurrent(Object{Seq: 8, VersionID: VersionID(1, 8), LockMode: "GOVERNANCE", LockUntil: until})
	})
	cur, nc := versionsOf(t, ix, "b", "k")
	o.Key = "k"
	if len(nc) != 1 || nc[0].VersionID != o.VersionID || nc[0].Seq != 7 || nc[0].LockMode != o.LockMode ||
		!nc[0].LockUntil.Equal(until) || !nc[0].LegalHold || nc[0].Location != Noncurrent {
		t.Errorf("noncurrent version = %+v, want %+v", nc, o)
	}
	if cur == nil || cur.Seq != 8 || cur.LockMode != "GOVERNANCE" || !cur.LockUntil.Equal(until) || cur.LegalHold {
		t.Errorf("current version = %+v", cur)
	}
}
