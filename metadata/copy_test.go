package metadata

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/pgtest"
	berrors "go.etcd.io/bbolt/errors"
)

// The engines a copy runs between; openCopyEngine opens a fresh, empty
// catalogue of one, closed (after checkInvariants) at cleanup.
const (
	copyBolt     = "bbolt"
	copyPostgres = "postgres"
)

func openCopyEngine(t testing.TB, engine string) *Index {
	t.Helper()
	if engine == copyPostgres {
		return openPGTest(t)
	}
	ix, err := Open(filepath.Join(t.TempDir(), "index.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		checkInvariants(t, ix)
		if err := ix.Close(); err != nil {
			t.Error(err)
		}
	})
	return ix
}

// copyKeys are object keys with the bytes a catalogue must carry as they
// are: NUL, bytes that are not UTF-8, the largest byte, separators.
var copyKeys = []string{"a", "a/b/c", "a\x00b", "\xff\xfe", "日本/語", "key with space", "z~", strings.Repeat("k", 1024)}

// fillCopySource gives ix one of everything the catalogue keeps, through
// its public API: S3 buckets with settings, a deleted one (whose identity
// the copy must not give again), objects with user metadata, tags and
// checksums, a versioned bucket with noncurrent versions and a delete
// marker, multipart uploads with parts, a completed upload, users, the
// lifecycle cursor and a lease; and, below the API, a top-level bucket
// the catalogue does not know, with an empty value and a sequence.
func fillCopySource(t testing.TB, ix *Index, objects int) {
	t.Helper()
	now := time.Date(2025, 3, 4, 5, 6, 7, 89, time.UTC)
	for _, b := range []Bucket{
		{Name: "alpha", Owner: "AKALICE", Policy: `{"Version":"2012-10-17"}`, CORS: "<CORSConfiguration/>", Tags: "team=x", CacheControl: "max-age=60", Created: now},
		{Name: "beta", Created: now},
		{Name: "empty", Created: now},
		{Name: "gone", Created: now},
	} {
		if err := ix.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.DeleteBucket("gone"); err != nil {
		t.Fatal(err)
	}
	if err := ix.UpdateBucket("beta", func(b *Bucket) error { b.Versioning = VersioningEnabled; return nil }); err != nil {
		t.Fatal(err)
	}
	var put []Object
	for i := range objects {
		key := fmt.Sprintf("dir%02d/obj%06d", i%7, i)
		if i < len(copyKeys) {
			key = copyKeys[i]
		}
		put = append(put, Object{
			Key: key, Size: int64(i), ETag: fmt.Sprintf("%032x", i), LastModified: now.Add(time.Duration(i) * time.Second),
			ContentType: "text/plain", UserMeta: []KV{{"colour", "blue"}, {"n", fmt.Sprint(i)}}, Tags: []KV{{"t", "v"}},
			Checksums: []Checksum{{"CRC64NVME", "AAAAAAAAAAA=", "FULL_OBJECT"}}, FileMtime: int64(i), FileInode: uint64(i + 1),
		})
	}
	for len(put) > 0 {
		n := min(len(put), 1000)
		if err := ix.ApplyObjects("alpha", put[:n], nil); err != nil {
			t.Fatal(err)
		}
		put = put[n:]
	}
	// beta: k1 has three versions, k2 a version behind a delete marker.
	newVersion := func(key string, marker bool) {
		editVersions(t, ix, "beta", key, func(v *Versions) error {
			seq, id, err := v.NewVersion()
			if err != nil {
				return err
			}
			if cur, ok, err := v.Current(); err != nil {
				return err
			} else if ok {
				if err := v.PutNoncurrent(cur); err != nil {
					return err
				}
			}
			o := Object{Key: key, Size: int64(seq), ETag: "e", LastModified: now, VersionID: id, Seq: seq, UserMeta: []KV{{"v", id}}}
			if marker {
				o.DeleteMarker = true
				if err := v.DropCurrent(); err != nil {
					return err
				}
				return v.PutNoncurrent(o)
			}
			return v.SetCurrent(o)
		})
	}
	for _, step := range []struct {
		key    string
		marker bool
	}{{"k1", false}, {"k2", false}, {"k1", false}, {"k2", true}, {"k1", false}} {
		newVersion(step.key, step.marker)
	}
	for i, id := range []string{"upload-1", "upload-2", "upload-3"} {
		u := Upload{Key: copyKeys[i], ID: id, Initiated: now, Owner: "AKALICE", ContentType: "image/png", UserMeta: []KV{{"m", "1"}}, Tags: []KV{{"t", "u"}}}
		if err := ix.CreateUpload("alpha", u); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 3; n++ {
			if err := ix.PutPart("alpha", u.Key, id, Part{Number: n, Size: int64(n << 20), ETag: fmt.Sprintf("%032x", n), LastModified: now, FileInode: uint64(n)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	done := Object{Key: copyKeys[2], Size: 3 << 20, ETag: "abc-3", LastModified: now, PartsCount: 3}
	if err := ix.CompleteUpload("alpha", "upload-3", done, now, nil); err != nil {
		t.Fatal(err)
	}
	for _, u := range []User{
		{AccessKey: "AKALICE", Name: "alice", SealedSecret: []byte("sealed\x00secret"), Created: now, Policy: `{"Statement":[]}`, Email: "a@example.com"},
		{AccessKey: "AKBOB", Name: "bob", SealedSecret: []byte("s2"), Created: now, POSIX: &POSIXOwner{UID: 1000, GID: 100}, Disabled: true},
	} {
		if err := ix.CreateUser(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.SetLifecycleCursor(LifecycleCursor{Started: now, Bucket: "alpha", KeyMarker: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ix.AcquireLease("lifecycle", "gateway-1", now, time.Hour); err != nil {
		t.Fatal(err)
	}
	err := ix.kvUpdate(func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("extra"))
		if err != nil {
			return err
		}
		if err := b.Put([]byte("empty"), []byte{}); err != nil {
			return err
		}
		nb, err := b.CreateBucket([]byte("nested\x00name"))
		if err != nil {
			return err
		}
		if err := nb.SetSequence(41); err != nil {
			return err
		}
		_, err = nb.CreateBucket([]byte("empty bucket"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyView is everything the catalogue's public reads answer.
type copyView struct {
	Buckets   []Bucket
	Pages     map[string][]ListPage
	Delimited map[string][]ListPage
	Objects   map[string]Object
	Versions  map[string][]VersionPage
	Uploads   map[string]UploadPage
	Parts     map[string][]Part
	Users     []User
	Completed map[string]Completion
	Lifecycle LifecycleCursor
}

// viewCatalogue reads ix through every public read, paging with small
// limits so that page boundaries are compared too.
func viewCatalogue(t testing.TB, ix *Index) copyView {
	t.Helper()
	v := copyView{Pages: map[string][]ListPage{}, Delimited: map[string][]ListPage{}, Objects: map[string]Object{},
		Versions: map[string][]VersionPage{}, Uploads: map[string]UploadPage{}, Parts: map[string][]Part{}, Completed: map[string]Completion{}}
	var err error
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	v.Buckets, err = ix.Buckets()
	check("Buckets", err)
	for _, b := range v.Buckets {
		for _, delim := range []string{"", "/"} {
			q := ListQuery{Delimiter: delim, Limit: 37}
			for {
				page, err := ix.List(b.Name, q)
				check("List "+b.Name, err)
				if delim == "" {
					v.Pages[b.Name] = append(v.Pages[b.Name], page)
					for _, o := range page.Objects {
						got, err := ix.Object(b.Name, o.Key)
						check("Object "+o.Key, err)
						v.Objects[b.Name+"/"+o.Key] = got
					}
				} else {
					v.Delimited[b.Name] = append(v.Delimited[b.Name], page)
				}
				if !page.Truncated {
					break
				}
				q.After = page.Last
			}
		}
		vq := VersionQuery{Limit: 2}
		for {
			page, err := ix.ListVersions(b.Name, vq)
			check("ListVersions "+b.Name, err)
			v.Versions[b.Name] = append(v.Versions[b.Name], page)
			if !page.Truncated {
				break
			}
			vq.KeyMarker, vq.VersionMarker = page.NextKeyMarker, page.NextVersionMarker
		}
		ups, err := ix.ListUploads(b.Name, UploadQuery{Limit: 1000})
		check("ListUploads "+b.Name, err)
		v.Uploads[b.Name] = ups
		for _, u := range ups.Uploads {
			got, err := ix.Upload(b.Name, u.Key, u.ID)
			check("Upload "+u.ID, err)
			if !reflect.DeepEqual(got, u) {
				t.Fatalf("Upload(%q) = %+v; the listing says %+v", u.ID, got, u)
			}
			parts, _, err := ix.Parts(b.Name, u.Key, u.ID, 0, 0)
			check("Parts "+u.ID, err)
			v.Parts[u.ID] = parts
		}
	}
	v.Users, err = ix.Users()
	check("Users", err)
	for _, id := range []string{"upload-1", "upload-2", "upload-3"} {
		if c, ok := ix.Completed(id); ok {
			v.Completed[id] = c
		}
	}
	v.Lifecycle, err = ix.LifecycleCursor()
	check("LifecycleCursor", err)
	return v
}

// dumpEntry is one entry of a raw dump: a value, or a nested bucket and
// its sequence.
type dumpEntry struct {
	Path   string
	Value  []byte
	Bucket bool
	Seq    uint64
}

// dumpKV reads every entry of ix's key-value tree but those a copy leaves
// out, recursing through ForEach: on purpose not the walk Copy uses.
func dumpKV(t testing.TB, ix *Index) []dumpEntry {
	t.Helper()
	var out []dumpEntry
	var walk func(b kvBucket, path string) error
	walk = func(b kvBucket, path string) error {
		return b.ForEach(func(k, v []byte) error {
			p := path + "/" + fmt.Sprintf("%q", k)
			if v != nil {
				out = append(out, dumpEntry{Path: p, Value: bytes.Clone(v)})
				return nil
			}
			nb := b.Bucket(k)
			out = append(out, dumpEntry{Path: p, Bucket: true, Seq: nb.Sequence()})
			return walk(nb, p)
		})
	}
	err := ix.kvView(func(tx kvTx) error {
		c := tx.Cursor()
		for name, v := c.First(); name != nil; name, v = c.Next() {
			if v != nil {
				return fmt.Errorf("top-level %q has a value", name)
			}
			if copySkipped(name) {
				continue
			}
			b := tx.Bucket(name)
			out = append(out, dumpEntry{Path: string(name), Bucket: true, Seq: b.Sequence()})
			if err := walk(b, string(name)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameCatalogue fails the test unless a and b read alike through the
// public API and hold the same raw tree, with every bucket's sequence in
// b at least a's: the contract lets an engine share one counter among
// its buckets (PostgreSQL does), so b's may be higher.
func sameCatalogue(t testing.TB, a, b *Index) {
	t.Helper()
	va, vb := viewCatalogue(t, a), viewCatalogue(t, b)
	if !reflect.DeepEqual(va, vb) {
		t.Errorf("the catalogues read differently:\nsource      %+v\ndestination %+v", va, vb)
	}
	da, db := dumpKV(t, a), dumpKV(t, b)
	for i := range min(len(da), len(db)) {
		if da[i].Bucket && db[i].Bucket && da[i].Path == db[i].Path {
			if db[i].Seq < da[i].Seq {
				t.Errorf("bucket %s: sequence %d after the copy, below the source's %d", da[i].Path, db[i].Seq, da[i].Seq)
			}
			db[i].Seq = da[i].Seq
		}
	}
	if !slices.EqualFunc(da, db, func(x, y dumpEntry) bool { return reflect.DeepEqual(x, y) }) {
		for i := range max(len(da), len(db)) {
			if i >= len(da) || i >= len(db) || !reflect.DeepEqual(da[i], db[i]) {
				t.Fatalf("raw dumps differ at entry %d of %d/%d", i, len(da), len(db))
			}
		}
	}
}

// copyOK runs Copy and fails the test on an error or on a report whose
// sums differ or disagree with the dump.
func copyOK(t testing.TB, dst, src *Index, o CopyOptions) CopyReport {
	t.Helper()
	rep, err := Copy(dst, src, o)
	if err != nil {
		t.Fatalf("Copy: %v", err)
	}
	var keys, buckets uint64
	for _, e := range dumpKV(t, src) {
		if !e.Bucket {
			keys++
		} else {
			buckets++
		}
	}
	if rep.Keys != keys || rep.Buckets != buckets {
		t.Errorf("Copy reports %d keys and %d buckets; the source holds %d and %d", rep.Keys, rep.Buckets, keys, buckets)
	}
	var sumKeys uint64
	for _, s := range rep.Verified {
		if !s.Match() {
			t.Errorf("verification of %s: source %+v, destination %+v", s.Bucket, s.Source, s.Destination)
		}
		sumKeys += s.Source.Keys
	}
	if sumKeys != keys {
		t.Errorf("the verification counted %d keys; the source holds %d", sumKeys, keys)
	}
	return rep
}

// TestCopyBoltPostgresBolt copies a bbolt catalogue into PostgreSQL and
// that one into a new bbolt file: each copy reads like its source through
// every public read and holds the same raw tree with the same sequences,
// the lease stays behind, progress is reported once per batch, and
// identities and version ids given after the copy are new.
func TestCopyBoltPostgresBolt(t *testing.T) {
	src := openCopyEngine(t, copyBolt)
	fillCopySource(t, src, 300)
	pg := openCopyEngine(t, copyPostgres)
	var progress []CopyProgress
	rep := copyOK(t, pg, src, CopyOptions{Batch: 64, Progress: func(p CopyProgress) { progress = append(progress, p) }})
	sameCatalogue(t, src, pg)
	if len(progress) != rep.Batches || rep.Batches < 5 || rep.Resumed {
		t.Errorf("%d progress calls, %d batches, resumed %v; want one call per batch, at least 5", len(progress), rep.Batches, rep.Resumed)
	}
	for i, p := range progress {
		if p.Batches != i+1 || (i > 0 && p.Keys+p.Buckets <= progress[i-1].Keys+progress[i-1].Buckets) || p.Keys+p.Buckets > uint64(64*(i+1)) || p.Bucket == "" {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
	back := openCopyEngine(t, copyBolt)
	copyOK(t, back, pg, CopyOptions{Batch: 1000})
	sameCatalogue(t, src, back)

	for _, ix := range []*Index{pg, back} {
		if _, ok, err := ix.LeaseOf("lifecycle"); ok || err != nil {
			t.Errorf("the source's lease was copied (%v, %v)", ok, err)
		}
		checkNewIdentities(t, src, ix)
	}
}

// TestCopyBoltToBolt is the copy between two bbolt files, which needs no
// PostgreSQL: the same catalogue, in batches down to one entry.
func TestCopyBoltToBolt(t *testing.T) {
	src := openCopyEngine(t, copyBolt)
	fillCopySource(t, src, 120)
	for _, batch := range []int{1, 7, 0} {
		dst := openCopyEngine(t, copyBolt)
		copyOK(t, dst, src, CopyOptions{Batch: batch})
		sameCatalogue(t, src, dst)
		checkNewIdentities(t, src, dst)
	}
}

// TestCopyPostgresToBolt copies a catalogue filled in PostgreSQL (whose
// sequences are og_seq rows) into bbolt.
func TestCopyPostgresToBolt(t *testing.T) {
	src := openCopyEngine(t, copyPostgres)
	fillCopySource(t, src, 50)
	dst := openCopyEngine(t, copyBolt)
	copyOK(t, dst, src, CopyOptions{Batch: 16})
	sameCatalogue(t, src, dst)
	checkNewIdentities(t, src, dst)
}

// checkNewIdentities checks that dst, a copy of src, gives a new bucket
// an identity above every one src gave (the deleted bucket's included),
// and a new version of a versioned bucket a sequence above every version
// src holds.
func checkNewIdentities(t testing.TB, src, dst *Index) {
	t.Helper()
	var srcIDs, srcVersionSeq uint64
	err := src.kvView(func(tx kvTx) error {
		srcIDs = tx.Bucket(bucketsBucket).Sequence()
		srcVersionSeq = tx.Bucket(versionsBucket).Bucket([]byte("beta")).Sequence()
		return nil
	})
	if err != nil || srcIDs < 4 || srcVersionSeq < 5 {
		t.Fatalf("the source gave identities up to %d and versions up to %d (%v); the fill gives 4 and 5", srcIDs, srcVersionSeq, err)
	}
	name := fmt.Sprintf("new-%p", dst)
	if err := dst.CreateBucket(Bucket{Name: name}); err != nil {
		t.Fatal(err)
	}
	id, err := dst.BucketID(name)
	if err != nil || id <= srcIDs {
		t.Errorf("a bucket created after the copy has identity %d (%v); the source gave up to %d", id, err, srcIDs)
	}
	editVersions(t, dst, "beta", "k3", func(v *Versions) error {
		seq, _, err := v.NewVersion()
		if err == nil && seq <= srcVersionSeq {
			t.Errorf("a version made after the copy has sequence %d; the source's versions go up to %d", seq, srcVersionSeq)
		}
		return err
	})
	if err := dst.DeleteBucket(name); err != nil {
		t.Fatal(err)
	}
}

// stoppingAfter returns o with a Stop that its Progress closes after n
// batches.
func stoppingAfter(n int, o CopyOptions) CopyOptions {
	stop := make(chan struct{})
	progress := o.Progress
	o.Stop = stop
	o.Progress = func(p CopyProgress) {
		if progress != nil {
			progress(p)
		}
		if p.Batches == n {
			close(stop)
		}
	}
	return o
}

// TestCopyResume stops copies after a few batches, as a copy killed
// between two commits stops, and starts them again with other batch
// sizes until one finishes: the result is the source, and the counts go
// on from run to run.
func TestCopyResume(t *testing.T) {
	for _, pair := range [][2]string{{copyBolt, copyBolt}, {copyBolt, copyPostgres}, {copyPostgres, copyBolt}} {
		t.Run(pair[0]+"-to-"+pair[1], func(t *testing.T) {
			src := openCopyEngine(t, pair[0])
			fillCopySource(t, src, 80)
			dst := openCopyEngine(t, pair[1])
			var last CopyProgress
			runs := 0
			for ; ; runs++ {
				batch := []int{3, 7, 2}[runs%3]
				rep, err := Copy(dst, src, stoppingAfter(4, CopyOptions{Batch: batch, Progress: func(p CopyProgress) {
					if p.Keys+p.Buckets <= last.Keys+last.Buckets {
						t.Errorf("progress went from %+v to %+v", last, p)
					}
					last = p
				}}))
				if runs > 0 != rep.Resumed {
					t.Errorf("run %d: Resumed %v", runs, rep.Resumed)
				}
				if errors.Is(err, ErrCopyStopped) {
					if runs == 100 {
						t.Fatal("the copy does not get on from run to run")
					}
					if rep.Batches != 4 || rep.Keys != last.Keys {
						t.Fatalf("stopped run %d: %+v, last progress %+v", runs, rep, last)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				break
			}
			if runs < 5 {
				t.Fatalf("the copy finished after %d interruptions; the test wants more", runs)
			}
			sameCatalogue(t, src, dst)
			if _, err := Copy(dst, src, CopyOptions{}); !errors.Is(err, ErrCopyNotEmpty) {
				t.Errorf("Copy into a completed copy: %v; want ErrCopyNotEmpty", err)
			}
		})
	}
}

// TestCopyStopDuringVerify: a copy stopped after its last batch, in its
// verification, is not done; started again it copies nothing more,
// verifies and is done.
func TestCopyStopDuringVerify(t *testing.T) {
	src := openCopyEngine(t, copyBolt)
	fillCopySource(t, src, 10)
	dst := openCopyEngine(t, copyBolt)
	rep, err := Copy(dst, src, stoppingAfter(1, CopyOptions{Batch: 1000}))
	if !errors.Is(err, ErrCopyStopped) || rep.Batches != 1 || len(rep.Verified) != 0 {
		t.Fatalf("Copy stopped after its only batch: %+v, %v; want ErrCopyStopped before verifying", rep, err)
	}
	rep = copyOK(t, dst, src, CopyOptions{})
	if !rep.Resumed || rep.Batches != 0 || len(rep.Verified) == 0 {
		t.Errorf("the copy started again: %+v; want it resumed, with nothing to copy, verified", rep)
	}
	sameCatalogue(t, src, dst)
}

// TestCopyRefusesNonEmpty: a destination with any record of its own (a
// bucket, a user, a lifecycle cursor) or a completed copy is refused
// before anything is written, as is a copy into itself; leases do not
// count.
func TestCopyRefusesNonEmpty(t *testing.T) {
	src := openCopyEngine(t, copyBolt)
	fillCopySource(t, src, 10)
	for _, tc := range []struct {
		name string
		fill func(ix *Index) error
		ok   bool
	}{
		{"bucket", func(ix *Index) error { return ix.CreateBucket(Bucket{Name: "mine"}) }, false},
		{"user", func(ix *Index) error { return ix.CreateUser(User{AccessKey: "AK"}) }, false},
		{"lifecycle cursor", func(ix *Index) error { return ix.SetLifecycleCursor(LifecycleCursor{Bucket: "x"}) }, false},
		{"lease", func(ix *Index) error {
			_, _, err := ix.AcquireLease("lifecycle", "other", time.Now(), time.Hour)
			return err
		}, true},
	} {
		dst := openCopyEngine(t, copyBolt)
		if err := tc.fill(dst); err != nil {
			t.Fatal(err)
		}
		before := dumpKV(t, dst)
		_, err := Copy(dst, src, CopyOptions{})
		if tc.ok {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrCopyNotEmpty) || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("%s: Copy = %v; want ErrCopyNotEmpty", tc.name, err)
		}
		if after := dumpKV(t, dst); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: the refused copy wrote to the destination", tc.name)
		}
	}
	if _, err := Copy(src, src, CopyOptions{}); err == nil {
		t.Error("a copy of a catalogue into itself was not refused")
	}
}

// TestCopyVerifyMismatch: a destination changed behind an interrupted
// copy (a value changed, an entry added) or a source changed under it
// fails the verification with ErrCopyMismatch naming the entry, and the
// copy is not marked done.
func TestCopyVerifyMismatch(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		tamper     func(src, dst *Index) error
	}{
		{"value changed", `"objects"/"alpha"/"a" has another value`, func(_, dst *Index) error {
			return dst.kvUpdate(func(tx kvTx) error {
				return tx.Bucket(objectsBucket).Bucket([]byte("alpha")).Put([]byte("a"), otherRecord(t))
			})
		}},
		{"entry added", `"a/b/c-extra" is in the destination only`, func(_, dst *Index) error {
			return dst.kvUpdate(func(tx kvTx) error {
				return tx.Bucket(objectsBucket).Bucket([]byte("alpha")).Put([]byte("a/b/c-extra"), otherRecord(t))
			})
		}},
		{"source lost an entry", `"a/b/c" is in the destination only`, func(src, _ *Index) error { return src.DeleteObject("alpha", "a/b/c") }},
		{"sequence behind", `"extra"/"nested\x00name"'s sequence is 0 in the destination, behind the source's 41`, func(_, dst *Index) error {
			// A bucket the copy made, made again without its sequence.
			return dst.kvUpdate(func(tx kvTx) error {
				extra := tx.Bucket([]byte("extra"))
				if err := extra.DeleteBucket([]byte("nested\x00name")); err != nil {
					return err
				}
				nb, err := extra.CreateBucket([]byte("nested\x00name"))
				if err != nil {
					return err
				}
				_, err = nb.CreateBucket([]byte("empty bucket"))
				return err
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := openCopyEngine(t, copyBolt)
			fillCopySource(t, src, 20)
			dst := openCopyEngine(t, copyBolt)
			if _, err := Copy(dst, src, stoppingAfter(2, CopyOptions{Batch: 40})); !errors.Is(err, ErrCopyStopped) {
				t.Fatal(err)
			}
			if err := tc.tamper(src, dst); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				_, err := Copy(dst, src, CopyOptions{Batch: 40})
				if !errors.Is(err, ErrCopyMismatch) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Copy = %v; want ErrCopyMismatch saying %s", err, tc.want)
				}
			}
		})
	}
}

// otherRecord is an object record that no fill writes.
func otherRecord(t testing.TB) []byte {
	v, err := (&Object{Size: 999, ETag: "other"}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCopyEngineSequence checks the engine methods a copy uses, on every
// engine: Sequence reads what NextSequence gave, SetSequence raises it
// and never lowers it, refuses a read transaction, and each bucket counts
// on its own; the transaction's cursor lists the top-level buckets.
func TestCopyEngineSequence(t *testing.T) {
	for _, mk := range kvEngineMakers {
		t.Run(mk.name, func(t *testing.T) {
			e := mk.open(t)
			err := e.update(func(tx kvTx) error {
				b, err := tx.CreateBucketIfNotExists([]byte("top"))
				if err != nil {
					return err
				}
				// bbolt counts per bucket; PostgreSQL takes every bucket's
				// numbers from one counter, so it is held to "at least".
				exact := mk.name == "bbolt"
				if n := b.Sequence(); exact && n != 0 {
					t.Errorf("a new bucket's Sequence = %d", n)
				}
				var last uint64
				for range 3 {
					n, err := b.NextSequence()
					if err != nil {
						return err
					}
					if n <= last {
						t.Errorf("NextSequence gave %d after %d", n, last)
					}
					last = n
				}
				if n := b.Sequence(); n < last || exact && n != 3 {
					t.Errorf("Sequence after three NextSequence (the last %d) = %d", last, n)
				}
				nb, err := b.CreateBucket([]byte("nested"))
				if err != nil {
					return err
				}
				if err := nb.SetSequence(100); err != nil {
					return err
				}
				if err := nb.SetSequence(7); err != nil {
					return err
				}
				if _, err := tx.CreateBucketIfNotExists([]byte("another")); err != nil {
					return err
				}
				return b.SetSequence(10)
			})
			if err != nil {
				t.Fatal(err)
			}
			err = e.view(func(tx kvTx) error {
				b := tx.Bucket([]byte("top"))
				if n, m := b.Sequence(), b.Bucket([]byte("nested")).Sequence(); n < 10 || m < 100 || mk.name == "bbolt" && (n != 10 || m != 100) {
					t.Errorf("committed sequences %d and %d; want 10 and 100 (SetSequence never lowers)", n, m)
				}
				if err := b.SetSequence(50); !errors.Is(err, berrors.ErrTxNotWritable) {
					t.Errorf("SetSequence in a view: %v; want ErrTxNotWritable", err)
				}
				var names []string
				c := tx.Cursor()
				for k, v := c.First(); k != nil; k, v = c.Next() {
					if v != nil {
						t.Errorf("the top-level cursor gave %q a value", k)
					}
					names = append(names, string(k))
				}
				if want := []string{"another", "top"}; !slices.Equal(names, want) {
					t.Errorf("top-level buckets %q; want %q", names, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			err = e.update(func(tx kvTx) error {
				n, err := tx.Bucket([]byte("top")).NextSequence()
				if err == nil && (n <= 10 || mk.name == "bbolt" && n != 11) {
					t.Errorf("NextSequence after SetSequence(10) = %d", n)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// BenchmarkCopy copies a catalogue of 100,000 object records (in 10 S3
// buckets) between engines, and reports the keys per second of the copy
// itself (copy-keys/s) and of the copy with its verification (keys/s).
// PostgreSQL is pgtest's (fsync off unless PGTEST_FSYNC=1); bbolt
// destinations fsync every batch.
func BenchmarkCopy(b *testing.B) {
	const objects, buckets = 100_000, 10
	for _, pair := range [][2]string{{copyBolt, copyPostgres}, {copyPostgres, copyBolt}, {copyBolt, copyBolt}} {
		b.Run(pair[0]+"-to-"+pair[1], func(b *testing.B) {
			src := openCopyEngine(b, pair[0])
			for i := range buckets {
				name := fmt.Sprintf("b%02d", i)
				if err := src.CreateBucket(Bucket{Name: name}); err != nil {
					b.Fatal(err)
				}
				put := make([]Object, 0, 1000)
				for j := range objects / buckets {
					put = append(put, Object{Key: fmt.Sprintf("dir%03d/object%07d", j%100, j), Size: int64(j), ETag: fmt.Sprintf("%032x", j),
						LastModified: time.Unix(1e9, 0), UserMeta: []KV{{"k", "v"}}, FileInode: uint64(j + 1)})
					if len(put) == cap(put) {
						if err := src.ApplyObjects(name, put, nil); err != nil {
							b.Fatal(err)
						}
						put = put[:0]
					}
				}
			}
			b.ResetTimer()
			var copying, total time.Duration
			for range b.N {
				b.StopTimer()
				dst := openBenchDst(b, pair[1])
				b.StartTimer()
				start := time.Now()
				var copied time.Time
				rep, err := Copy(dst, src, CopyOptions{Progress: func(CopyProgress) { copied = time.Now() }})
				if err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				copying += copied.Sub(start)
				if rep.Keys < objects {
					b.Fatalf("copied %d keys", rep.Keys)
				}
			}
			n := float64(objects * b.N)
			b.ReportMetric(n/copying.Seconds(), "copy-keys/s")
			b.ReportMetric(n/total.Seconds(), "keys/s")
		})
	}
}

// openBenchDst opens a durable destination for BenchmarkCopy.
func openBenchDst(b *testing.B, engine string) *Index {
	if engine == copyPostgres {
		ix, err := OpenPostgres(context.Background(), pgtest.DSN(b), PGOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ix.Close() })
		return ix
	}
	ix, err := Open(filepath.Join(b.TempDir(), "index.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix
}
