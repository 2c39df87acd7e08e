package metadata

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// entry is one listing entry: an object key or a common prefix.
type entry struct {
	name   string
	prefix bool // a common prefix
}

// modelList is the reference semantics of a listing, by brute force over
// sorted, distinct keys: every key under Prefix becomes an entry, rolled
// up into its common prefix if its remainder contains Delimiter; entries
// are distinct and sorted; those after After are paged by Limit.
func modelList(keys []string, q ListQuery) (page []entry, truncated bool) {
	seen := map[string]bool{}
	var all []entry
	for _, k := range keys {
		if !strings.HasPrefix(k, q.Prefix) {
			continue
		}
		e := entry{name: k}
		if q.Delimiter != "" {
			if i := strings.Index(k[len(q.Prefix):], q.Delimiter); i >= 0 {
				e = entry{name: k[:len(q.Prefix)+i+len(q.Delimiter)], prefix: true}
			}
		}
		if e.name <= q.After || seen[e.name] {
			continue
		}
		seen[e.name] = true
		all = append(all, e)
	}
	slices.SortFunc(all, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	if q.Limit <= 0 {
		return nil, false
	}
	if len(all) > q.Limit {
		return all[:q.Limit], true
	}
	return all, false
}

// entries flattens a page into its entries in order, checking that
// objects and common prefixes are each sorted.
func entries(t *testing.T, p ListPage, size map[string]int64) []entry {
	t.Helper()
	var out []entry
	for _, o := range p.Objects {
		if got, want := o.Size, size[o.Key]; got != want {
			t.Fatalf("object %q has Size %d, want %d", o.Key, got, want)
		}
		out = append(out, entry{name: o.Key})
	}
	for _, cp := range p.CommonPrefixes {
		out = append(out, entry{name: cp, prefix: true})
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return out
}

// hostilePieces are the fragments random keys are made of: characters
// that URL encoding, path handling or byte ordering get wrong.
var hostilePieces = []string{
	"a", "b", "ab", "a/", "/", "//", " ", "+", "%", "%2F", "-", ".", "..", "_",
	"é", "日本", "\u00ff", "\U0001F600", "\x7f", "\x01", "~", "A", "0", "9",
}

func randomKey(r *rand.Rand) string {
	if r.IntN(50) == 0 {
		return strings.Repeat(hostilePieces[r.IntN(len(hostilePieces))], 1024)[:1024]
	}
	var sb strings.Builder
	for n := 1 + r.IntN(6); n > 0; n-- {
		sb.WriteString(hostilePieces[r.IntN(len(hostilePieces))])
	}
	return sb.String()
}

// randomPrefixOf returns a byte prefix of s (possibly splitting a
// multi-byte character).
func randomPrefixOf(r *rand.Rand, s string) string {
	return s[:r.IntN(len(s)+1)]
}

func TestListMatchesModel(t *testing.T) {
	ix := openTest(t)
	var st pagingStats
	defer func() { t.Logf("%+v", st) }()
	for round := range 12 {
		r := rand.New(rand.NewPCG(uint64(round), 0x5eed))
		bucket := fmt.Sprintf("b%d", round)
		mustCreateBucket(t, ix, bucket)

		size := map[string]int64{}
		for n := r.IntN(300); len(size) < n; {
			k := randomKey(r)
			// Keys that are prefixes of each other: a, a/b, a/b/c.
			for r.IntN(3) == 0 && len(k) < 900 {
				size[k] = int64(len(size))
				k += hostilePieces[r.IntN(4)] + randomKey(r)
			}
			if len(k) <= 1024 {
				size[k] = int64(len(size))
			}
		}
		keys := make([]string, 0, len(size))
		for k, s := range size {
			mustPut(t, ix, bucket, Object{Key: k, Size: s})
			keys = append(keys, k)
		}
		slices.Sort(keys)
		pick := func() string {
			if len(keys) == 0 {
				return randomKey(r)
			}
			return keys[r.IntN(len(keys))]
		}

		for range 150 {
			q := ListQuery{}
			switch r.IntN(4) {
			case 0:
			case 1:
				q.Prefix = randomPrefixOf(r, pick())
			case 2:
				q.Prefix = pick()
			case 3:
				q.Prefix = hostilePieces[r.IntN(len(hostilePieces))]
			}
			switch d := r.IntN(8); d {
			case 0, 1:
			case 2, 3:
				q.Delimiter = "/"
			case 4:
				q.Delimiter = "-"
			case 5:
				q.Delimiter = "ab"
			case 6:
				q.Delimiter = hostilePieces[r.IntN(len(hostilePieces))]
			case 7:
				// A delimiter that also occurs in the prefix.
				if q.Prefix != "" {
					i := r.IntN(len(q.Prefix))
					q.Delimiter = q.Prefix[i : i+1+r.IntN(len(q.Prefix)-i)]
				}
			}
			switch r.IntN(5) {
			case 0:
			case 1:
				q.After = pick()
			case 2:
				q.After = randomPrefixOf(r, pick())
			case 3:
				q.After = randomKey(r)
			case 4:
				q.After = pick() + "\x00"
			}
			switch r.IntN(4) {
			case 0:
				q.Limit = 1
			case 1, 2:
				q.Limit = 1 + r.IntN(7)
			case 3:
				q.Limit = 1000
			}
			checkPaging(t, ix, bucket, keys, size, q, &st)
		}
	}
}

// pagingStats shows that the random queries exercise what they should.
type pagingStats struct{ queries, pages, objects, prefixes int }

// checkPaging lists q page by page, with each page's Last as the next
// After, checking every page against the model and the concatenation
// against the model's whole listing.
func checkPaging(t *testing.T, ix *Index, bucket string, keys []string, size map[string]int64, q ListQuery, st *pagingStats) {
	t.Helper()
	st.queries++
	whole, _ := modelList(keys, ListQuery{Prefix: q.Prefix, Delimiter: q.Delimiter, After: q.After, Limit: len(keys) + 1})
	var got []entry
	for pages := 0; ; pages++ {
		if pages > len(keys)+1 {
			t.Fatalf("query %+v: paging does not end", q)
		}
		p, err := ix.List(bucket, q)
		if err != nil {
			t.Fatal(err)
		}
		want, wantTrunc := modelList(keys, q)
		if e := entries(t, p, size); !slices.Equal(e, want) || p.Truncated != wantTrunc {
			t.Fatalf("query %+v:\n got %v truncated=%v\nwant %v truncated=%v", q, e, p.Truncated, want, wantTrunc)
		}
		if len(want) > 0 && p.Last != want[len(want)-1].name {
			t.Fatalf("query %+v: Last = %q, want %q", q, p.Last, want[len(want)-1].name)
		}
		got = append(got, want...)
		st.pages++
		for _, e := range want {
			if e.prefix {
				st.prefixes++
			} else {
				st.objects++
			}
		}
		if !p.Truncated {
			break
		}
		q.After = p.Last
	}
	if !slices.Equal(got, whole) {
		t.Fatalf("paged listing of %+v:\n got %v\nwant %v", q, got, whole)
	}
}

func TestListEdges(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	for _, k := range []string{"a", "a/", "a/b", "a/b/c", "a0", "b-1", "b-2", "photos/2026/x", "photos/2026/y", "photos/z"} {
		mustPut(t, ix, "b", Object{Key: k})
	}
	if _, err := ix.List("nope", ListQuery{Limit: 1}); err != ErrNoSuchBucket {
		t.Errorf("List(missing bucket) = %v, want ErrNoSuchBucket", err)
	}
	for _, tc := range []struct {
		q       ListQuery
		objects []string
		cps     []string
		trunc   bool
		last    string
	}{
		{q: ListQuery{Limit: 0}},
		{q: ListQuery{Limit: -1}},
		{q: ListQuery{Delimiter: "/", Limit: 1000}, objects: []string{"a", "a0", "b-1", "b-2"}, cps: []string{"a/", "photos/"}, last: "photos/"},
		{q: ListQuery{Delimiter: "/", Limit: 2}, objects: []string{"a"}, cps: []string{"a/"}, trunc: true, last: "a/"},
		// NextMarker = a common prefix continues after everything under it.
		{q: ListQuery{Delimiter: "/", After: "a/", Limit: 2}, objects: []string{"a0", "b-1"}, trunc: true, last: "b-1"},
		// After inside a rolled-up group does not repeat the group.
		{q: ListQuery{Delimiter: "/", After: "a/b", Limit: 1000}, objects: []string{"a0", "b-1", "b-2"}, cps: []string{"photos/"}, last: "photos/"},
		{q: ListQuery{Prefix: "photos/", Delimiter: "/", Limit: 1000}, objects: []string{"photos/z"}, cps: []string{"photos/2026/"}, last: "photos/z"},
		{q: ListQuery{Prefix: "b", Delimiter: "-", Limit: 1000}, cps: []string{"b-"}, last: "b-"},
		{q: ListQuery{Prefix: "a/", Limit: 1000}, objects: []string{"a/", "a/b", "a/b/c"}, last: "a/b/c"},
		// The last entry exactly fills the page: not truncated.
		{q: ListQuery{Prefix: "a/", Limit: 3}, objects: []string{"a/", "a/b", "a/b/c"}, last: "a/b/c"},
		{q: ListQuery{Prefix: "a/", After: "a/b/c", Limit: 3}},
		{q: ListQuery{Prefix: "zzz", Limit: 3}},
		{q: ListQuery{After: "photos/z", Limit: 3}},
	} {
		p, err := ix.List("b", tc.q)
		if err != nil {
			t.Fatal(err)
		}
		var objs []string
		for _, o := range p.Objects {
			objs = append(objs, o.Key)
		}
		if !slices.Equal(objs, tc.objects) || !slices.Equal(p.CommonPrefixes, tc.cps) || p.Truncated != tc.trunc || p.Last != tc.last {
			t.Errorf("List(%+v) = objects %q prefixes %q truncated %v last %q\nwant objects %q prefixes %q truncated %v last %q",
				tc.q, objs, p.CommonPrefixes, p.Truncated, p.Last, tc.objects, tc.cps, tc.trunc, tc.last)
		}
	}
}

// countingCursor counts the cursor steps a listing takes.
type countingCursor struct {
	c     kvCursor
	steps int
}

func (c *countingCursor) Seek(k []byte) ([]byte, []byte) { c.steps++; return c.c.Seek(k) }
func (c *countingCursor) Next() ([]byte, []byte)         { c.steps++; return c.c.Next() }

func listCounting(t testing.TB, ix *Index, bucket string, q ListQuery) (ListPage, int) {
	t.Helper()
	var p ListPage
	var steps int
	err := ix.kvView(func(tx kvTx) error {
		b, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		cc := &countingCursor{c: b.Cursor()}
		p, err = list(cc, q)
		steps = cc.steps
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, steps
}

// fillBucket stores n records "<prefix>%07d" in one transaction.
func fillBucket(t testing.TB, ix *Index, bucket, prefix string, n int) {
	t.Helper()
	v, err := (&Object{Size: 1, ETag: "d41d8cd98f00b204e9800998ecf8427e"}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	err = ix.kvUpdate(func(tx kvTx) error {
		b, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		if bb, ok := b.(boltBucket); ok {
			bb.b.FillPercent = 1 // a dense file for a large fill
		}
		for i := range n {
			if err := b.Put(fmt.Appendf(nil, "%s%07d", prefix, i), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestListSeeksPastCommonPrefixes proves that a page's cost follows the
// page size: 100k keys under one common prefix cost one seek.
func TestListSeeksPastCommonPrefixes(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	fillBucket(t, ix, "b", "big/", 100_000)
	for _, k := range []string{"a", "c/x", "z"} {
		mustPut(t, ix, "b", Object{Key: k, Size: 1})
	}
	for _, tc := range []struct {
		q        ListQuery
		entries  int
		maxSteps int
	}{
		{ListQuery{Delimiter: "/", Limit: 1000}, 4, 6},
		{ListQuery{Delimiter: "/", After: "big/0050000", Limit: 1000}, 2, 6},
		{ListQuery{Delimiter: "/", Limit: 2}, 2, 4},
		{ListQuery{Prefix: "big/", Delimiter: "/", Limit: 10}, 10, 12},
		{ListQuery{Prefix: "big/00", Delimiter: "0", Limit: 3}, 3, 5},
	} {
		p, steps := listCounting(t, ix, "b", tc.q)
		if n := len(p.Objects) + len(p.CommonPrefixes); n != tc.entries {
			t.Errorf("List(%+v) returned %d entries, want %d", tc.q, n, tc.entries)
		}
		if steps > tc.maxSteps {
			t.Errorf("List(%+v) took %d cursor steps, want at most %d", tc.q, steps, tc.maxSteps)
		}
	}
}
