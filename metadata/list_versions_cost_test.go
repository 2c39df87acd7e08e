package metadata

import (
	"fmt"
	"testing"
)

// countingVersionCursor counts the steps of a cursor of a version
// listing into a shared count.
type countingVersionCursor struct {
	c     kvCursor
	steps *int
}

func (c countingVersionCursor) Seek(k []byte) ([]byte, []byte) { *c.steps++; return c.c.Seek(k) }
func (c countingVersionCursor) Next() ([]byte, []byte)         { *c.steps++; return c.c.Next() }
func (c countingVersionCursor) First() ([]byte, []byte)        { *c.steps++; return c.c.First() }

// listVersionsCounting is ListVersions counting the steps of every
// cursor it moves: current records, keys and each key's versions.
func listVersionsCounting(t testing.TB, ix *Index, bucket string, q VersionQuery) (VersionPage, int) {
	t.Helper()
	var p VersionPage
	steps := 0
	err := ix.kvView(func(tx kvTx) error {
		ob, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		src := versionSource{objects: countingVersionCursor{ob.Cursor(), &steps}, versions: noVersions}
		if vb := tx.Bucket(versionsBucket).Bucket([]byte(bucket)); vb != nil {
			src.keys = countingVersionCursor{vb.Cursor(), &steps}
			src.versions = func(key []byte) versionCursor {
				if kb := vb.Bucket(key); kb != nil {
					return countingVersionCursor{kb.Cursor(), &steps}
				}
				return nil
			}
		}
		p, err = listVersions(src, q)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, steps
}

// fillVersions gives each key noncurrent versions (benchObject records
// whose bytes are in the versions area) and then, if current, a current
// version, all in one transaction.
func fillVersions(tb testing.TB, ix *Index, bucket string, keys []string, noncurrent int, current bool) {
	tb.Helper()
	err := ix.kvUpdate(func(tx kvTx) error {
		ob, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		id, err := bucketIDOf(tx.Bucket(bucketsBucket).Get([]byte(bucket)))
		if err != nil {
			return err
		}
		for _, k := range keys {
			v := &Versions{tx: tx, bucket: []byte(bucket), key: []byte(k), bucketID: id, objects: ob}
			for i := range noncurrent + 1 {
				if i == noncurrent && !current {
					break
				}
				o := benchObject(k)
				if o.Seq, o.VersionID, err = v.NewVersion(); err != nil {
					return err
				}
				if i == noncurrent {
					err = v.SetCurrent(o)
				} else {
					o.Location = Noncurrent
					err = v.PutNoncurrent(o)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// keyNames returns n keys "<prefix>%05d".
func keyNames(prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s%05d", prefix, i)
	}
	return keys
}

// TestListVersionsCostFollowsPage proves that a page of versions costs
// cursor steps in proportion to the page: keys with 100 versions each
// cost only the versions listed, and a common prefix over thousands of
// keys with versions costs one seek.
func TestListVersionsCostFollowsPage(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	fillVersions(t, ix, "b", keyNames("k", 100), 100, true)
	fillVersions(t, ix, "b", keyNames("gone/", 100), 100, false)
	fillBucket(t, ix, "b", "big/", 20_000)
	fillVersions(t, ix, "b", keyNames("big/v", 2_000), 2, true)
	k50, _ := versionsOf(t, ix, "b", "k00050")
	_, k50nc := versionsOf(t, ix, "b", "k00050")
	for _, tc := range []struct {
		name     string
		q        VersionQuery
		entries  int
		maxSteps int
	}{
		// Each key costs two steps in the merge (its record, its key of
		// versions), one to open its versions and one per version.
		{"ten versions", VersionQuery{Limit: 10}, 10, 10 + 8},
		{"a full page over ten keys", VersionQuery{Prefix: "k", Limit: 1000}, 1000, 1000 + 3*10 + 8},
		{"from a version in the middle of a key", VersionQuery{KeyMarker: "k00050", VersionMarker: k50nc[49].VersionID, Limit: 10}, 10, 10 + 8},
		{"from the current version", VersionQuery{KeyMarker: "k00050", VersionMarker: k50.VersionID, Limit: 10}, 10, 10 + 8},
		{"from a key", VersionQuery{KeyMarker: "k00050", Limit: 10}, 10, 10 + 8},
		{"keys with only noncurrent versions", VersionQuery{Prefix: "gone/", Limit: 50}, 50, 50 + 8},
		{"common prefixes, then keys", VersionQuery{Delimiter: "/", Limit: 1000}, 1000, 2*2 + 1000 + 3*10 + 8},
		{"common prefixes first", VersionQuery{Delimiter: "/", Limit: 2}, 2, 2*2 + 4},
		{"under a common prefix", VersionQuery{Prefix: "big/v", Delimiter: "/", Limit: 10}, 10, 10 + 3*4 + 8},
	} {
		p, steps := listVersionsCounting(t, ix, "b", tc.q)
		if len(p.Entries) != tc.entries {
			t.Errorf("%s: ListVersions(%+v) returned %d entries, want %d", tc.name, tc.q, len(p.Entries), tc.entries)
		}
		if steps > tc.maxSteps {
			t.Errorf("%s: ListVersions(%+v) took %d cursor steps, want at most %d", tc.name, tc.q, steps, tc.maxSteps)
		}
	}
}

// TestListWalksNoNoncurrentVersion shows that ListObjects of a bucket
// whose keys have 100 noncurrent versions each costs what it does
// without them: its cursor steps follow the page, and a noncurrent
// version that does not even decode does not disturb it.
func TestListWalksNoNoncurrentVersion(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	keys := keyNames("k", 30)
	fillVersions(t, ix, "b", keys, 100, true)
	for _, q := range []ListQuery{{Limit: 1000}, {Limit: 10}, {Limit: 1000, Brief: true}, {Prefix: "k0001", Limit: 1000}} {
		p, steps := listCounting(t, ix, "b", q)
		want := min(q.Limit, 30)
		if q.Prefix != "" {
			want = 10
		}
		if len(p.Objects) != want {
			t.Fatalf("List(%+v) = %d objects, want %d", q, len(p.Objects), want)
		}
		for _, o := range p.Objects {
			if o.Location == Noncurrent {
				t.Errorf("List(%+v) returned a noncurrent version of %q", q, o.Key)
			}
		}
		if steps > want+1 {
			t.Errorf("List(%+v) took %d cursor steps for %d objects", q, steps, want)
		}
	}
	// Poison every key's versions with a record that does not decode,
	// the newest so that a walk of them meets it first.
	err := ix.kvUpdate(func(tx kvTx) error {
		vb := tx.Bucket(versionsBucket).Bucket([]byte("b"))
		for _, k := range keys {
			if err := vb.Bucket([]byte(k)).Put(seqKey(1<<62), []byte{0xff}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.ListVersions("b", VersionQuery{Limit: 10}); err == nil {
		t.Fatal("ListVersions decoded the poisoned versions: the check below would prove nothing")
	}
	p, err := ix.List("b", ListQuery{Limit: 1000})
	if err != nil || len(p.Objects) != 30 {
		t.Errorf("List with undecodable noncurrent versions = %d objects, %v; want 30 and no error", len(p.Objects), err)
	}
	// Leave the index as checkInvariants expects it.
	err = ix.kvUpdate(func(tx kvTx) error {
		vb := tx.Bucket(versionsBucket).Bucket([]byte("b"))
		for _, k := range keys {
			if err := vb.Bucket([]byte(k)).Delete(seqKey(1 << 62)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestListVersionsPageAllocatedOnce proves that a page of versions is
// allocated once at its size: growing it by appending copied every entry
// (a whole record) again and allocated twice the page, a fifth of the
// CPU time of a 1,000-entry ListObjectVersions page.
func TestListVersionsPageAllocatedOnce(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	fillVersions(t, ix, "b", keyNames("k", 11), 99, true)
	for _, limit := range []int{1000, 10} {
		p, err := ix.ListVersions("b", VersionQuery{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entries) != limit || cap(p.Entries) != limit {
			t.Errorf("ListVersions(Limit %d): %d entries in a slice of capacity %d, want %d in %d", limit, len(p.Entries), cap(p.Entries), limit, limit)
		}
	}
}
