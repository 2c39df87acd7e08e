package object

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sse"
	"github.com/objectgateway/objectgateway/storage"
)

func putEncrypted(t *testing.T, l *Layer, key string, body []byte) Object {
	t.Helper()
	o, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: bytes.NewReader(body), Size: int64(len(body)),
		Encryption: sse.Request{Algorithm: sse.AES256}})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestReplacedEncryptedFileIsNeverPlaintext replaces an encrypted
// object's file behind the gateway's back with plain bytes: the refreshed
// record keeps its encryption, so the read is an error, never the new
// bytes served as the object.
func TestReplacedEncryptedFileIsNeverPlaintext(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	putEncrypted(t, l, "k", bytes.Repeat([]byte("secret "), 20000))
	replacement := bytes.Repeat([]byte("planted "), 30000)
	if err := os.WriteFile(filepath.Join(root, "bkt", "k"), replacement, 0o644); err != nil {
		t.Fatal(err)
	}
	rd, err := l.OpenObject("bkt", "k")
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if !rd.SSE.Encrypted() {
		t.Fatal("the refreshed record lost its encryption")
	}
	body, err := l.Plaintext(rd, nil, 0, rd.Size)
	if err == nil {
		b, rerr := io.ReadAll(body)
		if rerr == nil || bytes.Contains(b, []byte("planted")) {
			t.Fatalf("the replaced file was served: %d bytes, %v", len(b), rerr)
		}
	} else if s3err.As(err).Code != s3err.InternalError {
		t.Fatalf("Plaintext: %v, want InternalError", err)
	}
}

// TestScanDoesNotImportCiphertext loses the index of a root holding
// encrypted objects: the scan that rebuilds it skips their files (their
// sealed keys went with the index) instead of importing ciphertext as
// plain objects, and imports the plain file beside them.
func TestScanDoesNotImportCiphertext(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	putEncrypted(t, l, "small", []byte("ten bytes!"))
	putEncrypted(t, l, "large", bytes.Repeat([]byte{7}, 3*sse.PackagePayload+5))
	if _, err := l.PutObject(PutInput{Bucket: "bkt", Key: "plain", Body: strings.NewReader("clear"), Size: 5}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, storage.StateDir, IndexFile)); err != nil {
		t.Fatal(err)
	}
	l, err = Open(Options{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rep := scan(t, l, ScanOptions{})
	if rep.Added != 1 || rep.Skipped != 2 {
		t.Fatalf("scan: %s, skipped %d; want the plain file added and both encrypted files skipped", counts(rep), rep.Skipped)
	}
	if got := allKeys(t, l, "bkt"); len(got) != 1 || got[0] != "plain" {
		t.Fatalf("keys after the scan: %v", got)
	}
}

// TestEncryptedVersionsStayEncrypted overwrites an SSE-S3 object in a
// versioned bucket: the old version moves to the versions area as it was
// (ciphertext, its record still encrypted), reads back by id, and fsck
// finds nothing wrong with either version.
func TestEncryptedVersionsStayEncrypted(t *testing.T) {
	l, root, _ := openVersioned(t, "Enabled")
	first := bytes.Repeat([]byte("first version "), 10000)
	old := putEncrypted(t, l, "k", first)
	putEncrypted(t, l, "k", []byte("second"))
	rd, err := l.OpenVersion("bkt", "k", old.VersionID)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if !rd.SSE.Encrypted() {
		t.Fatal("the noncurrent version's record lost its encryption")
	}
	body, err := l.Plaintext(rd, nil, 0, rd.Size)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	if err != nil || !bytes.Equal(got, first) {
		t.Fatalf("old version read back: %d bytes, %v", len(got), err)
	}
	noPlaintextUnder(t, root, []byte("first version"))
	rep, err := l.Fsck(FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Fatalf("fsck found %+v", rep.Problems)
	}
}

func noPlaintextUnder(t *testing.T, root string, marker []byte) {
	t.Helper()
	err := filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, marker) {
			t.Errorf("plaintext in %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHotCacheNeverHoldsCiphertext rewrites a small plain object encrypted
// while the hot-object cache fills it: the fill finds the encrypted record
// and caches nothing, so the read gets the file to decrypt, never its
// ciphertext as the body.
func TestHotCacheNeverHoldsCiphertext(t *testing.T) {
	l, _, _ := newHotLayer(t, hotcache.Options{MaxBytes: 1 << 20})
	if _, err := l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("plain"), Size: 5}); err != nil {
		t.Fatal(err)
	}
	rewritten := false
	l.onFill = func() {
		if !rewritten {
			rewritten = true
			putEncrypted(t, l, "k", []byte("secret"))
		}
	}
	for range 2 {
		r, err := l.ReadObject("bkt", "k")
		if err != nil {
			t.Fatal(err)
		}
		enc, body := r.SSE.Encrypted(), r.Body
		r.Close()
		if !enc || body != nil {
			t.Fatalf("ReadObject: encrypted %v, body from memory %q", enc, body)
		}
	}
}
