package object

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
)

// openVersioned opens a layer over a fresh root with a settable clock
// and a bucket "bkt" in the versioning state status ("" for a bucket that
// was never versioned). At cleanup it checks the bucket's versions with
// checkVersionInvariants, so every test leaves them consistent.
func openVersioned(t *testing.T, status string) (*Layer, string, *mpClock) {
	t.Helper()
	root := t.TempDir()
	clock := &mpClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	l, err := Open(Options{Root: root, Index: testIndex(t), NoSync: true, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.CreateBucket(Bucket{Name: "bkt", Versioning: status}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { checkVersionInvariants(t, l, "bkt") })
	return l, root, clock
}

// setVersioning puts bkt in the versioning state status.
func setVersioning(t *testing.T, l *Layer, status string) {
	t.Helper()
	st, err := l.BucketState("bkt")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetVersioning("bkt", st.ID, status); err != nil {
		t.Fatalf("SetVersioning(%q): %v", status, err)
	}
}

// readByID returns the record and bytes of one version of key in bkt
// ("" the current one).
func readByID(t *testing.T, l *Layer, key, id string) (Object, string) {
	t.Helper()
	r, err := l.OpenVersion("bkt", key, id)
	if err != nil {
		t.Fatalf("OpenVersion(%q, %q): %v", key, id, err)
	}
	defer r.Close()
	var b []byte
	if r.File != nil {
		if b, err = io.ReadAll(r.File); err != nil {
			t.Fatal(err)
		}
	}
	return r.Object, string(b)
}

// remove is Remove on bkt, failing the test on an error.
func remove(t *testing.T, l *Layer, key, id string) Removed {
	t.Helper()
	out, err := l.Remove(RemoveInput{Bucket: "bkt", Key: key, VersionID: id})
	if err != nil {
		t.Fatalf("Remove(%q, %q): %v", key, id, err)
	}
	return out
}

// allVersions returns every entry of ListObjectVersions of bucket, read
// page by page with small pages so that the markers are exercised.
func allVersions(t *testing.T, l *Layer, bucket string) []metadata.VersionEntry {
	t.Helper()
	var out []metadata.VersionEntry
	q := metadata.VersionQuery{Limit: 7}
	for range 100000 {
		page, err := l.ListVersions(bucket, q)
		if err != nil {
			t.Fatalf("ListVersions(%+v): %v", q, err)
		}
		out = append(out, page.Entries...)
		if !page.Truncated {
			return out
		}
		q.KeyMarker, q.VersionMarker = page.NextKeyMarker, page.NextVersionMarker
	}
	t.Fatalf("ListVersions of %s did not end", bucket)
	return nil
}

// versionsOfKey returns the versions of key in bkt, newest first.
func versionsOfKey(t *testing.T, l *Layer, key string) []metadata.VersionEntry {
	t.Helper()
	var out []metadata.VersionEntry
	for _, e := range allVersions(t, l, "bkt") {
		if e.Prefix == "" && e.Key == key {
			out = append(out, e)
		}
	}
	return out
}

// shownIDs returns the version ids of entries as S3 shows them, with a
// "(marker)" suffix for delete markers.
func shownIDs(entries []metadata.VersionEntry) []string {
	out := make([]string, len(entries))
	for i := range entries {
		out[i] = shownID(&entries[i].Object)
		if entries[i].DeleteMarker {
			out[i] += "(marker)"
		}
	}
	return out
}

// versionFilePath returns the absolute path of version vid's file of key.
func versionFilePath(t *testing.T, root, key, vid string) string {
	t.Helper()
	p, err := storage.VersionPath("bkt", key, vid)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

// inodeOf returns the inode of the file at p.
func inodeOf(t *testing.T, p string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		t.Fatalf("stat %s: %v", p, err)
	}
	return st.Ino
}

// absent fails the test unless nothing is at p.
func absent(t *testing.T, p, why string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s: %s must not exist (%v)", why, p, err)
	}
}

// bucketFiles returns the regular files under root/bkt, relative to it
// with slashes: what an `ls -R` of the bucket's directory shows.
func bucketFiles(t *testing.T, root string) []string {
	t.Helper()
	dir := filepath.Join(root, "bkt")
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wantCode fails the test unless err is the S3 error c.
func wantCode(t *testing.T, err error, c s3err.Code, what string) *s3err.Error {
	t.Helper()
	if code(err) != c {
		t.Fatalf("%s: %v, want %v", what, err, s3err.New(c).Code)
	}
	return s3err.As(err)
}

// header returns the value of the response header name an S3 error
// carries, "" if none.
func header(e *s3err.Error, name string) string {
	for _, h := range e.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// checkVersionInvariants checks what every change of a versioned key must
// keep, in the manner of bbolt's btesting check at Close:
//
//   - ListObjectVersions lists every version once, each key's versions
//     newest first (Seq descending), exactly its first one IsLatest;
//   - a key has at most one null version;
//   - a key with a current record in the index lists it first, so no
//     delete marker is newer, and its file is at the key's path with the
//     record's inode and size; a key without one lists a delete marker
//     first;
//   - every noncurrent object version but a folder marker is Noncurrent,
//     its file at storage.VersionPath with the record's inode;
//   - every current record in ListObjects is listed, and the versions area
//     holds no file that no version names.
func checkVersionInvariants(t *testing.T, l *Layer, bucket string) {
	t.Helper()
	entries := allVersions(t, l, bucket)
	seen := make(map[string]bool)
	byKey := make(map[string][]metadata.VersionEntry)
	var keys []string
	for _, e := range entries {
		if e.Prefix != "" {
			t.Errorf("versions of %s: a common prefix %q without a delimiter", bucket, e.Prefix)
			continue
		}
		id := e.Key + "\x00" + shownID(&e.Object)
		if seen[id] {
			t.Errorf("versions of %s: %q version %s listed twice", bucket, e.Key, shownID(&e.Object))
		}
		seen[id] = true
		if _, ok := byKey[e.Key]; !ok {
			keys = append(keys, e.Key)
		}
		byKey[e.Key] = append(byKey[e.Key], e)
	}
	wantFiles := make(map[string]bool)
	for _, key := range keys {
		vs := byKey[key]
		nulls := 0
		for i, e := range vs {
			if i > 0 && e.Seq >= vs[i-1].Seq {
				t.Errorf("%q: versions out of order: %v", key, shownIDs(vs))
			}
			if e.IsLatest != (i == 0) {
				t.Errorf("%q: version %s IsLatest %v at position %d", key, shownID(&e.Object), e.IsLatest, i)
			}
			if e.VersionID == "" {
				nulls++
			}
		}
		if nulls > 1 {
			t.Errorf("%q: %d null versions: %v", key, nulls, shownIDs(vs))
		}
		cur, err := l.ix.Object(bucket, key)
		switch {
		case err == nil:
			if vs[0].DeleteMarker || vs[0].VersionID != cur.VersionID || vs[0].Seq != cur.Seq {
				t.Errorf("%q: current record %s (seq %d) is not the latest listed: %v", key, shownID(&cur), cur.Seq, shownIDs(vs))
			}
			if cur.Location == metadata.Noncurrent {
				t.Errorf("%q: current record located in the versions area", key)
			}
			if cur.Location != metadata.Directory {
				fi, ok := l.fs.Identify(bucket, key, toStorage(cur.Location))
				if !ok || fi.Inode != cur.FileInode || fi.Size != fileSize(&cur) {
					t.Errorf("%q: current version %s: file %+v (found %v), record inode %d size %d", key, shownID(&cur), fi, ok, cur.FileInode, cur.Size)
				}
			}
		case errors.Is(err, metadata.ErrNoSuchKey):
			if !vs[0].DeleteMarker {
				t.Errorf("%q: no current record, but the latest version %s is no delete marker", key, shownID(&vs[0].Object))
			}
		default:
			t.Errorf("%q: current record: %v", key, err)
			continue
		}
		for _, e := range vs {
			if e.IsLatest && !e.DeleteMarker || e.DeleteMarker || e.Location == metadata.Directory {
				continue
			}
			if e.Location != metadata.Noncurrent {
				t.Errorf("%q: noncurrent version %s has location %d", key, shownID(&e.Object), e.Location)
				continue
			}
			fi, ok := l.fs.IdentifyVersion(bucket, key, versionName(&e.Object))
			if !ok || fi.Inode != e.FileInode || fi.Size != fileSize(&e.Object) {
				t.Errorf("%q: noncurrent version %s: file %+v (found %v), record inode %d size %d", key, shownID(&e.Object), fi, ok, e.FileInode, e.Size)
			}
			p, _ := storage.VersionPath(bucket, key, versionName(&e.Object))
			wantFiles[path2base(p)] = true
		}
	}
	for after := ""; ; {
		page, err := l.ListObjects(bucket, ListQuery{After: after, Limit: 1000})
		if err != nil {
			t.Fatalf("ListObjects: %v", err)
		}
		for _, o := range page.Objects {
			if vs := byKey[o.Key]; len(vs) == 0 || vs[0].DeleteMarker {
				t.Errorf("%q: listed by ListObjects, not as the latest version by ListObjectVersions", o.Key)
			}
		}
		if !page.Truncated {
			break
		}
		after = page.Last
	}
	area := l.StatePath(filepath.Join("versions", bucket))
	err := filepath.WalkDir(area, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && !wantFiles[d.Name()] {
			t.Errorf("versions area of %s: %s belongs to no version", bucket, d.Name())
		}
		return nil
	})
	if err != nil {
		t.Errorf("walk %s: %v", area, err)
	}
}

func path2base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
