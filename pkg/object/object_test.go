package object

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func newLayer(t *testing.T) (*Layer, string) {
	t.Helper()
	root := t.TempDir()
	l, err := Open(Options{Root: root, Index: testIndex(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	return l, root
}

func put(t *testing.T, l *Layer, key, body string) Object {
	t.Helper()
	o, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body)), Headers: Headers{ContentType: "text/plain"}})
	if err != nil {
		t.Fatalf("put %q: %v", key, err)
	}
	return o
}

func read(t *testing.T, l *Layer, key string) (Object, string) {
	t.Helper()
	r, err := l.OpenObject("bkt", key)
	if err != nil {
		t.Fatalf("open %q: %v", key, err)
	}
	defer r.Close()
	var b []byte
	if r.File != nil {
		b, err = io.ReadAll(r.File)
		if err != nil {
			t.Fatal(err)
		}
	}
	return r.Object, string(b)
}

func code(err error) s3err.Code {
	if err == nil {
		return -1
	}
	return s3err.As(err).Code
}

func TestPutGetDelete(t *testing.T) {
	l, root := newLayer(t)
	o := put(t, l, "dir/file.txt", "hello")
	sum := md5.Sum([]byte("hello"))
	if o.ETag != hex.EncodeToString(sum[:]) || o.Size != 5 {
		t.Fatalf("record %+v", o)
	}
	if b, err := os.ReadFile(filepath.Join(root, "bkt", "dir", "file.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("the object must be a plain file at its key's path: %q %v", b, err)
	}
	got, body := read(t, l, "dir/file.txt")
	if body != "hello" || got.ETag != o.ETag || got.ContentType != "text/plain" {
		t.Fatalf("read back %+v %q", got, body)
	}
	if len(got.Checksums) != 1 || got.Checksums[0].Algorithm != "CRC64NVME" {
		t.Fatalf("a default CRC64NVME checksum must be stored: %+v", got.Checksums)
	}
	if err := l.DeleteObject("bkt", "dir/file.txt", Conditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "bkt", "dir")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("deleting the last object must prune its directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "bkt")); err != nil {
		t.Fatalf("the bucket directory must stay: %v", err)
	}
	if _, err := l.OpenObject("bkt", "dir/file.txt"); code(err) != s3err.NoSuchKey {
		t.Fatalf("after delete: %v", err)
	}
	if err := l.DeleteObject("bkt", "dir/file.txt", Conditions{}); err != nil {
		t.Fatalf("deleting a missing key must succeed: %v", err)
	}
	if err := l.DeleteObject("nope", "k", Conditions{}); code(err) != s3err.NoSuchBucket {
		t.Fatalf("delete in a missing bucket: %v", err)
	}
}

func TestPutRejectsBadBodiesAndKeepsOldVersion(t *testing.T) {
	l, root := newLayer(t)
	put(t, l, "k", "original")
	cases := []struct {
		name string
		in   PutInput
		want s3err.Code
	}{
		{"short body", PutInput{Body: strings.NewReader("abc"), Size: 10}, s3err.IncompleteBody},
		{"long body", PutInput{Body: strings.NewReader("abcdef"), Size: 3}, s3err.IncompleteBody},
		{"bad md5", PutInput{Body: strings.NewReader("abc"), Size: 3, Expect: checksum.Expect{ContentMD5: "1B2M2Y8AsgTpgAmY7PhCfg=="}}, s3err.BadDigest},
		{"broken reader", PutInput{Body: io.MultiReader(strings.NewReader("ab"), errReader{}), Size: 3}, s3err.IncompleteBody},
	}
	for _, c := range cases {
		c.in.Bucket, c.in.Key = "bkt", "k"
		if _, err := l.PutObject(c.in); code(err) != c.want {
			t.Errorf("%s: err %v, want %s", c.name, err, c.want)
		}
	}
	if _, body := read(t, l, "k"); body != "original" {
		t.Fatalf("a rejected PUT must leave the previous version intact, got %q", body)
	}
	entries, err := os.ReadDir(filepath.Join(root, ".objectgateway", "staging"))
	if err != nil || len(entries) != 0 {
		t.Fatalf("rejected uploads must leave no staging files: %v %v", entries, err)
	}
	if _, err := l.PutObject(PutInput{Bucket: "none", Key: "k", Body: strings.NewReader(""), Size: 0}); code(err) != s3err.NoSuchBucket {
		t.Fatalf("put into a missing bucket: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestCollidingKeysUseShadowArea(t *testing.T) {
	l, _ := newLayer(t)
	keys := map[string]string{
		"a":                       "file a",
		"a/b":                     "file a/b",
		"x/y/z":                   "deep",
		"x/y":                     "parent of deep",
		"dots/../up":              "dots",
		"trailing/":               "",
		"trailing-content/":       "content",
		strings.Repeat("s", 300):  "long segment",
		"double//slash":           "double",
		"é ü/+%20/?#":             "unicode and friends",
		strings.Repeat("k/", 511): "1022 bytes of slashes",
		"./leading-dot":           "dot",
		"/leading-slash":          "slash",
		strings.Repeat("z", 1024): "1024-byte key",
	}
	for k, v := range keys {
		put(t, l, k, v)
	}
	for k, v := range keys {
		if _, body := read(t, l, k); body != v {
			t.Errorf("key %q read back %q, want %q", k, body, v)
		}
	}
	page, err := l.ListObjects("bkt", ListQuery{Limit: 1000})
	if err != nil || len(page.Objects) != len(keys) {
		t.Fatalf("listing: %d objects, %v", len(page.Objects), err)
	}
	for k := range keys {
		if err := l.DeleteObject("bkt", k, Conditions{}); err != nil {
			t.Fatalf("delete %q: %v", k, err)
		}
	}
	if err := l.DeleteBucket("bkt"); err != nil {
		t.Fatalf("the bucket must be deletable once every key is gone: %v", err)
	}
}

func TestOutOfBandChangesAreNeverServedStale(t *testing.T) {
	l, root := newLayer(t)
	orig := put(t, l, "f", "version one")
	path := filepath.Join(root, "bkt", "f")

	// Appended behind the gateway's back.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(" and more")
	f.Close()
	got, body := read(t, l, "f")
	if body != "version one and more" || got.Size != int64(len(body)) {
		t.Fatalf("appended file served as %+v %q", got, body)
	}
	if got.ETag == orig.ETag || !strings.HasSuffix(got.ETag, "-1") || len(got.Checksums) != 0 {
		t.Fatalf("a changed file must get a fresh, non-MD5 ETag and no stale checksum: %+v", got)
	}
	// The refreshed record is stable across reads.
	again, _ := read(t, l, "f")
	if again.ETag != got.ETag {
		t.Fatalf("ETag changed without a change to the file: %s vs %s", again.ETag, got.ETag)
	}

	// Replaced by another program (new inode, same size).
	tmp := path + ".tmp"
	os.WriteFile(tmp, []byte("VERSION ONE AND MORE"), 0o644)
	os.Chtimes(tmp, time.Now(), time.Now().Add(time.Hour))
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	got2, body2 := read(t, l, "f")
	if body2 != "VERSION ONE AND MORE" || got2.ETag == got.ETag {
		t.Fatalf("replaced file served as %+v %q", got2, body2)
	}

	// Deleted behind the gateway's back.
	os.Remove(path)
	if _, err := l.OpenObject("bkt", "f"); code(err) != s3err.NoSuchKey {
		t.Fatalf("vanished file: %v", err)
	}
	page, _ := l.ListObjects("bkt", ListQuery{Limit: 10})
	if len(page.Objects) != 0 {
		t.Fatalf("the record of a vanished file must be dropped, still listed: %+v", page.Objects)
	}
}

// TestStatObjectChecksTheFile is TestOutOfBandChangesAreNeverServedStale
// for StatObject (HEAD), which stats the file instead of opening it: a
// change behind the gateway's back is seen by the stat alone, gives the
// same refreshed record a GET would, and a file that is gone or no longer
// a regular file is no object.
func TestStatObjectChecksTheFile(t *testing.T) {
	l, root := newLayer(t)
	orig := put(t, l, "f", "version one")
	if o, err := l.StatObject("bkt", "f"); err != nil || o.ETag != orig.ETag || o.Size != orig.Size {
		t.Fatalf("StatObject of an unchanged file = %+v, %v; want the record %+v", o, err, orig)
	}
	path := filepath.Join(root, "bkt", "f")

	// Appended behind the gateway's back: HEAD sees the new size and a
	// fresh ETag, and the GET that follows finds the same record.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(" and more")
	f.Close()
	head, err := l.StatObject("bkt", "f")
	if err != nil || head.Size != int64(len("version one and more")) || head.ETag == orig.ETag || !strings.HasSuffix(head.ETag, "-1") || len(head.Checksums) != 0 {
		t.Fatalf("StatObject of an appended file = %+v, %v", head, err)
	}
	if got, body := read(t, l, "f"); got.ETag != head.ETag || body != "version one and more" {
		t.Fatalf("GET after HEAD: %+v %q; HEAD said ETag %s", got, body, head.ETag)
	}

	// Replaced by another program: new inode, same size.
	tmp := path + ".tmp"
	os.WriteFile(tmp, []byte("VERSION ONE AND MORE"), 0o644)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if o, err := l.StatObject("bkt", "f"); err != nil || o.ETag == head.ETag {
		t.Fatalf("StatObject of a replaced file = %+v, %v; still ETag %s", o, err, head.ETag)
	}

	// Replaced by a directory, then removed: no object, record dropped.
	os.Remove(path)
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := l.StatObject("bkt", "f"); code(err) != s3err.NoSuchKey {
		t.Fatalf("StatObject of a key whose file became a directory: %v; want NoSuchKey", err)
	}
	os.Remove(path)
	put(t, l, "g", "gone soon")
	os.Remove(filepath.Join(root, "bkt", "g"))
	if _, err := l.StatObject("bkt", "g"); code(err) != s3err.NoSuchKey {
		t.Fatalf("StatObject of a vanished file: %v; want NoSuchKey", err)
	}
	if page, _ := l.ListObjects("bkt", ListQuery{Limit: 10}); len(page.Objects) != 0 {
		t.Fatalf("records of vanished files must be dropped, still listed: %+v", page.Objects)
	}

	// A key kept in the shadow area and a folder marker answer too.
	shadow := put(t, l, "a/./b", "shadowed")
	if o, err := l.StatObject("bkt", "a/./b"); err != nil || o.ETag != shadow.ETag {
		t.Fatalf("StatObject of a shadow-area key = %+v, %v; want ETag %s", o, err, shadow.ETag)
	}
	put(t, l, "dir/", "")
	if o, err := l.StatObject("bkt", "dir/"); err != nil || o.Size != 0 {
		t.Fatalf("StatObject of a folder marker = %+v, %v", o, err)
	}
	if _, err := l.StatObject("bkt", "never"); code(err) != s3err.NoSuchKey {
		t.Fatalf("StatObject of a key never written: %v; want NoSuchKey", err)
	}

	// A directory of the key's path replaced by a symbolic link leading
	// out of the bucket, to a file of the same name and size: the stat
	// that follows it finds another file, and the confined open refuses
	// the path, so HEAD and GET fail alike and nothing outside is described.
	put(t, l, "out/k", "inside")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "k"), []byte("OUTSIDE"[:6]), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "bkt", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "bkt", "out")); err != nil {
		t.Fatal(err)
	}
	_, headErr := l.StatObject("bkt", "out/k")
	_, getErr := l.OpenObject("bkt", "out/k")
	if headErr == nil || code(headErr) != code(getErr) {
		t.Fatalf("StatObject through an escaping link: %v; OpenObject: %v; want the same error", headErr, getErr)
	}
}

// TestConcurrentWritersOneKey races PUTs of distinct bodies to one key and
// checks that the record always describes the bytes on disk.
func TestConcurrentWritersOneKey(t *testing.T) {
	l, _ := newLayer(t)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				body := fmt.Sprintf("writer %d round %d %s", w, i, strings.Repeat("x", w*i))
				if _, err := l.PutObject(PutInput{Bucket: "bkt", Key: "hot", Body: strings.NewReader(body), Size: int64(len(body))}); err != nil {
					t.Error(err)
					return
				}
				r, err := l.OpenObject("bkt", "hot")
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(r.File)
				r.Close()
				sum := md5.Sum(b)
				if hex.EncodeToString(sum[:]) != r.ETag || int64(len(b)) != r.Size {
					t.Errorf("record %s/%d does not describe the bytes read (%d bytes)", r.ETag, r.Size, len(b))
					return
				}
			}
		}(w)
	}
	wg.Wait()
}

func TestCopyObject(t *testing.T) {
	l, _ := newLayer(t)
	src := put(t, l, "src", "copy me")
	dst, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "dst"})
	if err != nil {
		t.Fatal(err)
	}
	if dst.ETag != src.ETag || dst.ContentType != "text/plain" {
		t.Fatalf("copy %+v", dst)
	}
	if _, body := read(t, l, "dst"); body != "copy me" {
		t.Fatalf("copied bytes %q", body)
	}
	if _, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "src"}); code(err) != s3err.InvalidRequest {
		t.Fatalf("copy onto itself without REPLACE: %v", err)
	}
	same, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "src", Replace: true, Headers: Headers{ContentType: "image/png"}})
	if err != nil || same.ContentType != "image/png" || same.ETag != src.ETag {
		t.Fatalf("metadata replace in place: %+v %v", same, err)
	}
	failed := errors.New("precondition")
	if _, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "x", Check: func(*Object) error { return failed }}); !errors.Is(err, failed) {
		t.Fatalf("the precondition's error must be returned: %v", err)
	}
	if _, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "missing", DstBucket: "bkt", DstKey: "x"}); code(err) != s3err.NoSuchKey {
		t.Fatalf("copy of a missing source: %v", err)
	}
}

func TestBuckets(t *testing.T) {
	l, root := newLayer(t)
	if err := l.CreateBucket(Bucket{Name: "bkt"}); code(err) != s3err.BucketAlreadyOwnedByYou {
		t.Fatalf("second create: %v", err)
	}
	for _, bad := range []string{"", "ab", "UPPER", ".objectgateway", "a..b", "-x-", "192.168.1.1"} {
		if err := l.CreateBucket(Bucket{Name: bad}); code(err) != s3err.InvalidBucketName {
			t.Errorf("bucket %q: %v, want InvalidBucketName", bad, err)
		}
	}
	put(t, l, "k", "v")
	if err := l.DeleteBucket("bkt"); code(err) != s3err.BucketNotEmpty {
		t.Fatalf("delete non-empty: %v", err)
	}
	l.DeleteObject("bkt", "k", Conditions{})
	// A file written behind the gateway's back makes the bucket non-empty too.
	os.WriteFile(filepath.Join(root, "bkt", "stray"), []byte("x"), 0o644)
	if err := l.DeleteBucket("bkt"); code(err) != s3err.BucketNotEmpty {
		t.Fatalf("delete with a stray file: %v", err)
	}
	os.Remove(filepath.Join(root, "bkt", "stray"))
	if err := l.DeleteBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Bucket("bkt"); code(err) != s3err.NoSuchBucket {
		t.Fatalf("deleted bucket: %v", err)
	}
	if bs, _ := l.Buckets(); len(bs) != 0 {
		t.Fatalf("buckets %+v", bs)
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	l.CreateBucket(Bucket{Name: "keep"})
	body := bytes.Repeat([]byte("z"), 1000)
	if _, err := l.PutObject(PutInput{Bucket: "keep", Key: "a/b", Body: bytes.NewReader(body), Size: 1000}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l2, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	r, err := l2.OpenObject("keep", "a/b")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Size != 1000 {
		t.Fatalf("after reopen: %+v", r.Object)
	}
}

// TestSecondOpenLeavesTheFirstAlone checks that a second gateway on the
// same root fails on the index lock before it touches anything, in
// particular the staging area where the first has uploads in flight.
func TestSecondOpenLeavesTheFirstAlone(t *testing.T) {
	bboltOnly(t)
	l, root := newLayer(t)
	staged := filepath.Join(root, ".objectgateway", "staging", "in-flight")
	if err := os.WriteFile(staged, []byte("upload in progress"), 0o600); err != nil {
		t.Fatal(err)
	}
	if second, err := Open(Options{Root: root}); err == nil {
		second.Close()
		t.Fatal("a second Open on a root in use must fail")
	}
	if _, err := os.Stat(staged); err != nil {
		t.Fatalf("the second Open touched the first one's staging area: %v", err)
	}
	_ = l
}
