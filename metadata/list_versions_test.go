package metadata

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// mver is one version of a key in versionModel.
type mver struct {
	id     string // "" for the null version
	seq    uint64
	marker bool
}

// versionModel is the reference of a versioned bucket: each key's
// versions newest first. A key's newest version is its current one when
// it is an object; a delete marker is never current.
type versionModel struct {
	keys map[string][]mver
	// removed are the ids of versions deleted by id, per key: markers a
	// client may still page from.
	removed map[string][]string
}

// versionOps drives one bucket of an index and its model through the
// writes S3 makes, checking after each that the index holds what the
// model does.
type versionOps struct {
	t      *testing.T
	ix     *Index
	bucket string
	m      versionModel
}

// edit runs fn in EditVersions. fn must not stop the goroutine (see the
// package Caveats), so it reports problems by returning an error.
func (s *versionOps) edit(key string, fn func(v *Versions) error) {
	s.t.Helper()
	if err := s.ix.EditVersions(s.bucket, key, fn); err != nil {
		s.t.Fatalf("EditVersions(%q): %v", key, err)
	}
}

// demote makes the key's current record, if any, a noncurrent version.
func demote(v *Versions) error {
	cur, ok, err := v.Current()
	if err != nil || !ok {
		return err
	}
	if err := v.PutNoncurrent(cur); err != nil {
		return err
	}
	return v.DropCurrent()
}

// dropNull removes the key's null version, current or not.
func dropNull(v *Versions) error {
	o, current, err := v.Find(NullVersion)
	switch {
	case err == ErrNoSuchVersion:
		return nil
	case err != nil:
		return err
	case current:
		return v.DropCurrent()
	}
	return v.DropNoncurrent(o.Seq)
}

// putBeforeVersioning stores the object of a bucket not yet versioned:
// the null version with Seq 0.
func (s *versionOps) putBeforeVersioning(key string) {
	mustPut(s.t, s.ix, s.bucket, Object{Key: key, Size: 1})
	s.m.keys[key] = []mver{{}}
}

// put is PutObject in an Enabled bucket: a new current version.
func (s *versionOps) put(key string) {
	var nv mver
	s.edit(key, func(v *Versions) error {
		if err := demote(v); err != nil {
			return err
		}
		seq, id, err := v.NewVersion()
		if err != nil {
			return err
		}
		nv = mver{id: id, seq: seq}
		return v.SetCurrent(Object{Seq: seq, VersionID: id, Size: int64(seq)})
	})
	s.m.keys[key] = append([]mver{nv}, s.m.keys[key]...)
}

// putNull is PutObject in a Suspended bucket: the null version, replaced
// if the key has one, becomes current.
func (s *versionOps) putNull(key string) {
	var seq uint64
	s.edit(key, func(v *Versions) error {
		if err := dropNull(v); err != nil {
			return err
		}
		if err := demote(v); err != nil {
			return err
		}
		var err error
		if seq, _, err = v.NewVersion(); err != nil {
			return err
		}
		return v.SetCurrent(Object{Seq: seq, Size: int64(seq)})
	})
	s.m.keys[key] = append([]mver{{seq: seq}}, s.m.dropNull(key)...)
}

// deleteMarker is DeleteObject without a version id: in an Enabled bucket
// a new delete marker, in a Suspended one (null) a null delete marker
// that replaces the null version.
func (s *versionOps) deleteMarker(key string, null bool) {
	var nv mver
	s.edit(key, func(v *Versions) error {
		if null {
			if err := dropNull(v); err != nil {
				return err
			}
		}
		if err := demote(v); err != nil {
			return err
		}
		seq, id, err := v.NewVersion()
		if err != nil {
			return err
		}
		if null {
			id = ""
		}
		nv = mver{id: id, seq: seq, marker: true}
		return v.PutNoncurrent(Object{Seq: seq, VersionID: id, DeleteMarker: true})
	})
	rest := s.m.keys[key]
	if null {
		rest = s.m.dropNull(key)
	}
	s.m.keys[key] = append([]mver{nv}, rest...)
}

// deleteVersion is DeleteObject with a version id: the version goes, and
// when it was the newest, the newest remaining version becomes current if
// it is an object.
func (s *versionOps) deleteVersion(key, id string) {
	s.edit(key, func(v *Versions) error {
		o, current, err := v.Find(id)
		if err != nil {
			return err
		}
		if current {
			if err := v.DropCurrent(); err != nil {
				return err
			}
		} else {
			// Without a current record, the newest noncurrent version
			// (a delete marker) is the latest.
			_, hasCurrent, err := v.Current()
			if err != nil {
				return err
			}
			nc, err := v.Noncurrent(1)
			if err != nil {
				return err
			}
			if err := v.DropNoncurrent(o.Seq); err != nil {
				return err
			}
			if hasCurrent || nc[0].Seq != o.Seq {
				return nil
			}
		}
		nc, err := v.Noncurrent(1)
		if err != nil || len(nc) == 0 || nc[0].DeleteMarker {
			return err
		}
		if err := v.DropNoncurrent(nc[0].Seq); err != nil {
			return err
		}
		return v.SetCurrent(nc[0])
	})
	vs := s.m.keys[key]
	i := slices.IndexFunc(vs, func(x mver) bool { return x.id == id || (id == NullVersion && x.id == "") })
	vs = slices.Delete(slices.Clone(vs), i, i+1)
	if len(vs) == 0 {
		delete(s.m.keys, key)
	} else {
		s.m.keys[key] = vs
	}
	s.m.removed[key] = append(s.m.removed[key], id)
}

// dropNull returns the key's model versions without its null version.
func (m *versionModel) dropNull(key string) []mver {
	return slices.DeleteFunc(slices.Clone(m.keys[key]), func(x mver) bool { return x.id == "" })
}

// check compares the index's versions of key with the model's.
func (s *versionOps) check(key string) {
	s.t.Helper()
	cur, nc := versionsOf(s.t, s.ix, s.bucket, key)
	var got []mver
	if cur != nil {
		got = append(got, mver{id: cur.VersionID, seq: cur.Seq})
	}
	for _, o := range nc {
		got = append(got, mver{id: o.VersionID, seq: o.Seq, marker: o.DeleteMarker})
	}
	want := s.m.keys[key]
	if !slices.Equal(got, want) {
		s.t.Fatalf("key %q: index holds %+v (current %v), model %+v", key, got, cur != nil, want)
	}
	if len(want) > 0 && (cur != nil) == want[0].marker {
		s.t.Fatalf("key %q: current record %v, but the newest version is %+v", key, cur != nil, want[0])
	}
}

// ventry is one entry of a version listing: a version or a common prefix.
type ventry struct {
	key    string // the key, or the common prefix
	prefix bool
	id     string // as S3 shows it: "null" for the null version
	seq    uint64
	latest bool
	marker bool
}

func (e ventry) String() string {
	if e.prefix {
		return fmt.Sprintf("prefix %q", e.key)
	}
	s := fmt.Sprintf("%q@%s(%d)", e.key, e.id, e.seq)
	if e.latest {
		s += "*"
	}
	if e.marker {
		s += "x"
	}
	return s
}

// list is the model's ListObjectVersions: every version of every key
// under Prefix, keys ascending and each key's versions newest first, the
// keys whose remainder holds Delimiter rolled up into one common prefix,
// then all that follows the markers, paged by Limit.
//
// KeyMarker alone starts after every version of that key (and after
// that common prefix). With VersionMarker, the page starts after that
// version of KeyMarker: a version id encodes its sequence number, so the
// place is known even once the version is gone; "null" names a place
// only while the key has a null version, and an id that is neither
// names none: then the page starts after every version of the key.
func (m *versionModel) list(q VersionQuery) (page []ventry, truncated bool) {
	keys := make([]string, 0, len(m.keys))
	for k := range m.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var all []ventry
	for _, k := range keys {
		if !strings.HasPrefix(k, q.Prefix) {
			continue
		}
		if q.Delimiter != "" {
			if i := strings.Index(k[len(q.Prefix):], q.Delimiter); i >= 0 {
				cp := k[:len(q.Prefix)+i+len(q.Delimiter)]
				if cp > q.KeyMarker && (len(all) == 0 || all[len(all)-1].key != cp) {
					all = append(all, ventry{key: cp, prefix: true})
				}
				continue
			}
		}
		if k < q.KeyMarker || (k == q.KeyMarker && q.VersionMarker == "") {
			continue
		}
		vs := m.keys[k]
		from := 0
		if k == q.KeyMarker {
			_, seq, ok := ParseVersionID(q.VersionMarker)
			switch {
			case q.VersionMarker == NullVersion:
				from = len(vs)
				if i := slices.IndexFunc(vs, func(x mver) bool { return x.id == "" }); i >= 0 {
					from = i + 1
				}
			case ok:
				from = len(vs)
				if i := slices.IndexFunc(vs, func(x mver) bool { return x.seq < seq }); i >= 0 {
					from = i
				}
			default:
				from = len(vs)
			}
		}
		for i, x := range vs[from:] {
			id := x.id
			if id == "" {
				id = NullVersion
			}
			all = append(all, ventry{key: k, id: id, seq: x.seq, latest: from+i == 0, marker: x.marker})
		}
	}
	if len(all) > q.Limit {
		return all[:q.Limit], true
	}
	return all, false
}

// ventries converts a page of the index to model entries.
func ventries(p VersionPage) []ventry {
	var out []ventry
	for _, e := range p.Entries {
		if e.Prefix != "" {
			out = append(out, ventry{key: e.Prefix, prefix: true})
			continue
		}
		out = append(out, ventry{key: e.Key, id: versionIDOf(&e.Object), seq: e.Seq, latest: e.IsLatest, marker: e.DeleteMarker})
	}
	return out
}

// versionModelKeys are the keys of the model's bucket: keys that are
// prefixes of each other, empty segments, control bytes, the first
// two-byte character and an emoji, a 1,024-byte key.
var versionModelKeys = []string{
	"a", "a/", "a/b", "a//b", "a/b/c", "a/bb", "ab", "abc", "b", "b/x", "bb",
	"\x01", "a\x01", "a/\x7f", "\x7f", "\u00ff", "\u00ff/x", "\U0001F600", "\U0001F600/y",
	"日本/語", "x本y", "x本", "z", strings.Repeat("k", 1024),
}

func TestListVersionsMatchesModel(t *testing.T) {
	ix := openTest(t)
	var st versionStats
	defer func() { t.Logf("%+v", st) }()
	for round := range 2 {
		r := rand.New(rand.NewPCG(uint64(round), 0x7e25))
		s := &versionOps{t: t, ix: ix, bucket: fmt.Sprintf("b%d", round),
			m: versionModel{keys: map[string][]mver{}, removed: map[string][]string{}}}
		mustCreateBucket(t, ix, s.bucket)
		// Some keys hold an object from before versioning was enabled.
		for _, k := range versionModelKeys {
			if r.IntN(3) == 0 {
				s.putBeforeVersioning(k)
			}
		}
		for range 300 {
			k := versionModelKeys[r.IntN(len(versionModelKeys))]
			switch op := r.IntN(10); {
			case op < 4:
				s.put(k)
			case op < 5:
				s.putNull(k)
			case op < 7:
				s.deleteMarker(k, r.IntN(4) == 0)
			default:
				vs := s.m.keys[k]
				if len(vs) == 0 {
					s.put(k)
					break
				}
				// The newest version more often: it is the one that
				// promotes another back.
				x := vs[0]
				if r.IntN(2) == 0 {
					x = vs[r.IntN(len(vs))]
				}
				id := x.id
				if id == "" {
					id = NullVersion
				}
				s.deleteVersion(k, id)
			}
			s.check(k)
		}
		for _, k := range versionModelKeys {
			s.check(k)
		}

		prefixes := []string{"", "a", "a/", "a/b", "a//", "\u00ff", "\xc3", "\xf0\x9f", "日", "x本", "zz"}
		delimiters := []string{"", "/", "//", "b", "本"}
		for _, prefix := range prefixes {
			for _, delim := range delimiters {
				for _, limit := range []int{1, 2, 3, 7, 1000} {
					checkVersionPaging(t, ix, s, VersionQuery{Prefix: prefix, Delimiter: delim, Limit: limit}, &st)
				}
			}
		}
		// Pages that start from markers a client may send: every
		// version of a key, null, versions since removed, ids of no
		// version, and key markers that are not keys.
		for range 200 {
			q := VersionQuery{Limit: []int{1, 2, 3, 7, 1000}[r.IntN(5)]}
			if r.IntN(3) == 0 {
				q.Prefix = prefixes[r.IntN(len(prefixes))]
			}
			if r.IntN(2) == 0 {
				q.Delimiter = delimiters[r.IntN(len(delimiters))]
			}
			k := versionModelKeys[r.IntN(len(versionModelKeys))]
			q.KeyMarker = k
			switch c := r.IntN(8); c {
			case 0:
			case 1:
				q.VersionMarker = NullVersion
			case 2, 3:
				if vs := s.m.keys[k]; len(vs) > 0 {
					q.VersionMarker = vs[r.IntN(len(vs))].id
					if q.VersionMarker == "" {
						q.VersionMarker = NullVersion
					}
				}
			case 4, 5:
				if ids := s.m.removed[k]; len(ids) > 0 {
					q.VersionMarker = ids[r.IntN(len(ids))]
				}
			case 6:
				q.VersionMarker = "not-a-version-id"
			case 7:
				q.KeyMarker = randomPrefixOf(r, k)
			}
			checkVersionPaging(t, ix, s, q, &st)
		}
	}
}

// versionStats shows that the queries exercise what they should.
type versionStats struct{ queries, pages, versions, latest, markers, prefixes int }

// checkVersionPaging lists q page by page, continuing from each page's
// NextKeyMarker and NextVersionMarker, checking every page against the
// model from the same markers and the concatenation against the model's
// whole listing.
func checkVersionPaging(t *testing.T, ix *Index, s *versionOps, q VersionQuery, st *versionStats) {
	t.Helper()
	st.queries++
	wq := q
	wq.Limit = 1 << 30
	whole, _ := s.m.list(wq)
	var got []ventry
	for pages := 0; ; pages++ {
		if pages > len(whole)+1 {
			t.Fatalf("query %+v: paging does not end", q)
		}
		p, err := ix.ListVersions(s.bucket, q)
		if err != nil {
			t.Fatal(err)
		}
		want, wantTrunc := s.m.list(q)
		if e := ventries(p); !slices.Equal(e, want) || p.Truncated != wantTrunc {
			t.Fatalf("%s: query %+v:\n got %v truncated=%v\nwant %v truncated=%v", s.bucket, q, e, p.Truncated, want, wantTrunc)
		}
		for _, e := range p.Entries {
			if e.Prefix == "" && e.Key == "" {
				t.Fatalf("query %+v: an entry without a key: %+v", q, e)
			}
		}
		got = append(got, want...)
		st.pages++
		for _, e := range want {
			switch {
			case e.prefix:
				st.prefixes++
			case e.marker:
				st.markers++
			default:
				st.versions++
			}
			if e.latest {
				st.latest++
			}
		}
		if !p.Truncated {
			break
		}
		last := want[len(want)-1]
		wantKey, wantVersion := last.key, last.id
		if p.NextKeyMarker != wantKey || p.NextVersionMarker != wantVersion {
			t.Fatalf("query %+v: next markers %q, %q; want %q, %q", q, p.NextKeyMarker, p.NextVersionMarker, wantKey, wantVersion)
		}
		q.KeyMarker, q.VersionMarker = p.NextKeyMarker, p.NextVersionMarker
	}
	if !slices.Equal(got, whole) {
		t.Fatalf("paged listing of %+v:\n got %v\nwant %v", q, got, whole)
	}
}

// TestListVersionsMarkerRemovedSinceLastPage pages from the version
// that ended the last page after DeleteObject removed it by id: the
// version it uncovered (made current again) still follows the marker.
func TestListVersionsMarkerRemovedSinceLastPage(t *testing.T) {
	ix := openTest(t)
	s := &versionOps{t: t, ix: ix, bucket: "b", m: versionModel{keys: map[string][]mver{}, removed: map[string][]string{}}}
	mustCreateBucket(t, ix, "b")
	for range 3 {
		s.put("k")
	}
	s.put("l")
	p, err := ix.ListVersions("b", VersionQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	v3 := s.m.keys["k"][0].id
	if !p.Truncated || p.NextKeyMarker != "k" || p.NextVersionMarker != v3 {
		t.Fatalf("first page = %+v, want it to end at k's version %s", p, v3)
	}
	s.deleteVersion("k", v3)
	s.check("k")
	p, err = ix.ListVersions("b", VersionQuery{KeyMarker: p.NextKeyMarker, VersionMarker: p.NextVersionMarker, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.m.list(VersionQuery{KeyMarker: "k", VersionMarker: v3, Limit: 1000})
	if got := ventries(p); !slices.Equal(got, want) || len(got) != 3 {
		t.Errorf("page after the removed version:\n got %v\nwant %v (k's two versions left, then l's)", got, want)
	}
}

// TestListVersionsIsLatestAfterRemovedMarker: a key whose latest
// version is a delete marker, paged from a noncurrent version removed
// since; the versions that follow are not the latest.
func TestListVersionsIsLatestAfterRemovedMarker(t *testing.T) {
	ix := openTest(t)
	s := &versionOps{t: t, ix: ix, bucket: "b", m: versionModel{keys: map[string][]mver{}, removed: map[string][]string{}}}
	mustCreateBucket(t, ix, "b")
	s.put("k")
	s.put("k")
	s.deleteMarker("k", false)
	v2 := s.m.keys["k"][1].id
	s.deleteVersion("k", v2)
	s.check("k")
	p, err := ix.ListVersions("b", VersionQuery{KeyMarker: "k", VersionMarker: v2, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 1 || p.Entries[0].VersionID != s.m.keys["k"][1].id || p.Entries[0].IsLatest {
		t.Errorf("page after the removed version = %v, want k's first version, not the latest", ventries(p))
	}
}
