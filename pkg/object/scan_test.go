package object

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
)

// writeTree creates files (path relative to root → content), with parents.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// allKeys lists every key of a bucket through the index, page by page.
func allKeys(t *testing.T, l *Layer, bucket string) []string {
	t.Helper()
	var keys []string
	q := metadata.ListQuery{Limit: 3}
	for {
		p, err := l.ix.List(bucket, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range p.Objects {
			keys = append(keys, o.Key)
		}
		if !p.Truncated {
			return keys
		}
		q.After = p.Last
	}
}

func scan(t *testing.T, l *Layer, o ScanOptions) ScanReport {
	t.Helper()
	rep, err := l.Scan(o)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return rep
}

func counts(r ScanReport) string {
	return fmt.Sprintf("added %d updated %d removed %d unchanged %d skipped %d", r.Added, r.Updated, r.Removed, r.Unchanged, r.Skipped)
}

// TestScanImportsTree imports a tree written without the gateway: nested
// directories, odd names, a directory and a file whose keys interleave in
// byte order, links that leave the bucket, names that cannot be keys.
func TestScanImportsTree(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret": "do not import"})
	files := map[string]string{
		"photos/a/b/c.jpg":               "jpeg",
		"photos/a.txt":                   "sorts before a/",
		"photos/a-b":                     "dash",
		"photos/a/z":                     "z",
		"photos/with space/é ü.txt":      "unicode",
		"photos/deep/1/2/3/4/5/6/7/leaf": "leaf",
		"photos/empty":                   "",
		"docs/readme.md":                 "# hi",
		"docs/noext":                     "bytes",
		"other/x":                        "x",
	}
	writeTree(t, root, files)
	if err := os.Mkdir(filepath.Join(root, "Not_A_Bucket"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"Not_A_Bucket/f": "ignored"})
	// Links: one out of the root (relative), one absolute, one inside the
	// bucket to a file (imported), one to a directory (not followed).
	must(t, os.Symlink("../../"+filepath.Base(outside)+"/secret", filepath.Join(root, "photos/escape")))
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "photos/absolute")))
	must(t, os.Symlink("a.txt", filepath.Join(root, "photos/alias")))
	must(t, os.Symlink("a", filepath.Join(root, "photos/dirlink")))
	// A name that is not UTF-8 cannot be a key.
	must(t, os.WriteFile(filepath.Join(root, "photos", "bad\xff"), []byte("x"), 0o644))

	l, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if need, err := l.NeedsImport(); err != nil || !need {
		t.Fatalf("NeedsImport on a fresh tree = %v, %v", need, err)
	}
	var progress []ScanProgress
	rep := scan(t, l, ScanOptions{BatchSize: 2, Progress: func(p ScanProgress) { progress = append(progress, p) }, ProgressInterval: time.Nanosecond})
	if rep.Added != int64(len(files))+1 || rep.Updated+rep.Removed+rep.Unchanged != 0 {
		t.Fatalf("first scan: %s, want %d added", counts(rep), len(files)+1)
	}
	// escape, absolute, dirlink and bad\xff.
	if rep.Skipped != 4 {
		t.Fatalf("skipped %d, want 4 (two escaping links, a directory link, a non-UTF-8 name)", rep.Skipped)
	}
	if !slices.Equal(rep.BucketsCreated, []string{"docs", "other", "photos"}) || !slices.Equal(rep.SkippedDirs, []string{"Not_A_Bucket"}) {
		t.Fatalf("buckets created %v, skipped dirs %v", rep.BucketsCreated, rep.SkippedDirs)
	}
	if len(progress) < 2 {
		t.Fatalf("progress reports %v", progress)
	}
	if last := progress[len(progress)-1]; !last.Done || last.Total != rep.Files || last.Files != rep.Files {
		t.Fatalf("last progress %+v, files %d", last, rep.Files)
	}
	if need, _ := l.NeedsImport(); need {
		t.Fatal("NeedsImport after an import must be false")
	}

	var want []string
	for p := range files {
		if b, k, _ := strings.Cut(p, "/"); b == "photos" {
			want = append(want, k)
		}
	}
	want = append(want, "alias")
	slices.Sort(want)
	if got := allKeys(t, l, "photos"); !slices.Equal(got, want) {
		t.Fatalf("listed %q\nwant     %q", got, want)
	}

	o, body := readFrom(t, l, "photos", "a/b/c.jpg")
	if body != "jpeg" || o.ContentType != "image/jpeg" || !strings.HasSuffix(o.ETag, "-1") || o.Size != 4 {
		t.Fatalf("imported record %+v body %q", o, body)
	}
	if o, _ := readFrom(t, l, "docs", "noext"); o.ContentType != DefaultContentType {
		t.Fatalf("content type of a file without extension: %q", o.ContentType)
	}
	if o, body := readFrom(t, l, "photos", "alias"); body != "sorts before a/" || o.Size != int64(len(body)) {
		t.Fatalf("link inside the bucket: %+v %q", o, body)
	}
	st, _ := os.Stat(filepath.Join(root, "photos/a.txt"))
	if o, _ := readFrom(t, l, "photos", "a.txt"); !o.LastModified.Equal(st.ModTime()) {
		t.Fatalf("LastModified %v, file mtime %v", o.LastModified, st.ModTime())
	}

	// A second scan changes nothing.
	rep = scan(t, l, ScanOptions{})
	if rep.Added+rep.Updated+rep.Removed != 0 || rep.Unchanged != int64(len(files))+1 {
		t.Fatalf("second scan: %s", counts(rep))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readFrom(t *testing.T, l *Layer, bucket, key string) (Object, string) {
	t.Helper()
	r, err := l.OpenObject(bucket, key)
	if err != nil {
		t.Fatalf("open %s/%q: %v", bucket, key, err)
	}
	defer r.Close()
	var b strings.Builder
	if r.File != nil {
		buf := make([]byte, 1<<16)
		for {
			n, err := r.File.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
	}
	return r.Object, b.String()
}

// TestScanReconcilesOutOfBandChanges appends to, replaces, deletes and
// creates files behind the gateway's back, and checks each rescan reports
// and records exactly that, keeping gateway-written objects (natural,
// shadow and folder markers) that did not change.
func TestScanReconcilesOutOfBandChanges(t *testing.T) {
	l, root := newLayer(t)
	put(t, l, "keep", "kept")
	put(t, l, "append", "v1")
	put(t, l, "replace", "old")
	put(t, l, "delete", "gone soon")
	put(t, l, "folder/", "")
	put(t, l, "x", "file x")
	put(t, l, "x/y", "shadowed: x is a file") // x is a file, so x/y is shadowed
	rec, err := l.ix.Object("bkt", "x/y")
	if err != nil || rec.Location != metadata.Shadow {
		t.Fatalf("x/y should be shadowed: %+v %v", rec, err)
	}
	putRec := put(t, l, "md5me", "hash me")

	rep := scan(t, l, ScanOptions{})
	if rep.Added+rep.Updated+rep.Removed != 0 || rep.Unchanged != 8 {
		t.Fatalf("scan after gateway writes only: %s", counts(rep))
	}

	dir := filepath.Join(root, "bkt")
	f, err := os.OpenFile(filepath.Join(dir, "append"), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	f.WriteString("+more")
	f.Close()
	tmp := filepath.Join(dir, "replace.tmp")
	must(t, os.WriteFile(tmp, []byte("new!"), 0o644))
	must(t, os.Rename(tmp, filepath.Join(dir, "replace")))
	must(t, os.Remove(filepath.Join(dir, "delete")))
	writeTree(t, dir, map[string]string{"created/file.txt": "hello"})

	rep = scan(t, l, ScanOptions{})
	if rep.Added != 1 || rep.Updated != 2 || rep.Removed != 1 || rep.Unchanged != 5 {
		t.Fatalf("rescan: %s; want added 1 updated 2 removed 1 unchanged 5", counts(rep))
	}
	if _, err := l.ix.Object("bkt", "delete"); err == nil {
		t.Fatal("the record of a deleted file must be dropped")
	}
	if o, _ := l.ix.Object("bkt", "append"); o.Size != 7 || !strings.HasSuffix(o.ETag, "-1") || o.ContentType != "text/plain" {
		t.Fatalf("appended file's record %+v (size 7, file ETag, headers kept)", o)
	}
	if o, body := read(t, l, "replace"); body != "new!" || o.Size != 4 {
		t.Fatalf("replaced: %+v %q", o, body)
	}
	if o, _ := l.ix.Object("bkt", "md5me"); o.ETag != putRec.ETag {
		t.Fatalf("an unchanged gateway-written object must keep its MD5 ETag: %q vs %q", o.ETag, putRec.ETag)
	}

	// The shadowed object and the folder marker vanish behind our back.
	must(t, os.RemoveAll(filepath.Join(root, ".objectgateway", "shadow")))
	must(t, os.Remove(filepath.Join(dir, "folder")))
	rep = scan(t, l, ScanOptions{})
	if rep.Removed != 2 || rep.Added+rep.Updated != 0 {
		t.Fatalf("after removing a shadow file and a folder: %s", counts(rep))
	}

	// --md5 gives imported files their real MD5, once.
	rep = scan(t, l, ScanOptions{MD5: true})
	if rep.Updated != 3 { // append, replace, created/file.txt
		t.Fatalf("md5 scan: %s, want 3 updated", counts(rep))
	}
	sum := md5.Sum([]byte("new!"))
	if o, _ := l.ix.Object("bkt", "replace"); o.ETag != hex.EncodeToString(sum[:]) {
		t.Fatalf("md5 ETag %q", o.ETag)
	}
	if rep = scan(t, l, ScanOptions{MD5: true}); rep.Added+rep.Updated+rep.Removed != 0 {
		t.Fatalf("second md5 scan: %s", counts(rep))
	}

	// One bucket only; a missing one is an error.
	if rep = scan(t, l, ScanOptions{Bucket: "bkt"}); rep.Unchanged != 6 {
		t.Fatalf("bucket scan: %s", counts(rep))
	}
	if _, err := l.Scan(ScanOptions{Bucket: "nope"}); err == nil {
		t.Fatal("scanning a bucket with no directory must fail")
	}
}

// TestScanResumes interrupts an import (a progress callback that panics
// stands for a killed process) and checks a second run completes it.
func TestScanResumes(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("bk1/d%d/f%02d", i%5, i)] = "x"
	}
	writeTree(t, root, files)
	l, err := Open(Options{Root: root})
	must(t, err)
	defer l.Close()
	func() {
		defer func() { recover() }()
		l.Scan(ScanOptions{BatchSize: 10, ProgressInterval: time.Nanosecond, Progress: func(p ScanProgress) {
			if p.Files == 25 {
				panic("interrupted")
			}
		}})
	}()
	partial := len(allKeys(t, l, "bk1"))
	if partial == 0 || partial >= 50 {
		t.Fatalf("%d records after the interruption; want some batches committed", partial)
	}
	rep := scan(t, l, ScanOptions{})
	if rep.Added != int64(50-partial) || rep.Unchanged != int64(partial) {
		t.Fatalf("resumed scan: %s, %d were already imported", counts(rep), partial)
	}
}
