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

// putEncryptedMultipart stores parts of the given sizes as one SSE-S3
// multipart object.
func putEncryptedMultipart(t *testing.T, l *Layer, key string, sizes ...int) Object {
	t.Helper()
	u, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: key, Encryption: sse.Request{Algorithm: sse.AES256}})
	if err != nil {
		t.Fatal(err)
	}
	var parts []CompletePart
	for i, n := range sizes {
		p, err := l.UploadPart(PartInput{Bucket: "bkt", Key: key, UploadID: u.ID, Number: i + 1,
			Body: bytes.NewReader(bytes.Repeat([]byte{byte(i)}, n)), Size: int64(n)})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, CompletePart{Number: i + 1, ETag: p.ETag})
	}
	o, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: key, UploadID: u.ID, Parts: parts, ExpectSize: -1})
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
	mp := putEncryptedMultipart(t, l, "mp", MinPartSize, 1000)
	for key, replacement := range map[string][]byte{
		"k":  bytes.Repeat([]byte("planted "), 30000),
		"mp": bytes.Repeat([]byte("planted "), 30000),
		// As long as the multipart object's file: its layout still
		// describes it, and its streams do not authenticate.
		"mp ": bytes.Repeat([]byte("p"), int(fileSize(&mp))),
	} {
		key = strings.TrimSpace(key)
		if err := os.WriteFile(filepath.Join(root, "bkt", key), replacement, 0o644); err != nil {
			t.Fatal(err)
		}
		rd, err := l.OpenObject("bkt", key)
		if err != nil {
			t.Fatal(err)
		}
		if !rd.SSE.Encrypted() {
			t.Fatalf("%s: the refreshed record lost its encryption", key)
		}
		body, err := l.Plaintext(rd, nil, 0, rd.Size)
		if err == nil {
			b, rerr := io.ReadAll(body)
			if rerr == nil || bytes.Contains(b, []byte("planted")) || bytes.Contains(b, []byte("ppp")) {
				t.Fatalf("%s: the replaced file was served: %d bytes, %v", key, len(b), rerr)
			}
		} else if s3err.As(err).Code != s3err.InternalError {
			t.Fatalf("%s: Plaintext: %v, want InternalError", key, err)
		}
		rd.Close()
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
	// A multipart encrypted object's file is several streams: its size
	// (here) is no single stream's.
	if o := putEncryptedMultipart(t, l, "multipart", MinPartSize+40000, 25509); sse.DecryptedSize(fileSize(&o)) >= 0 {
		t.Fatalf("the multipart object's file has a single stream's size")
	}
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
	if rep.Added != 1 || rep.Skipped != 3 {
		t.Fatalf("scan: %s, skipped %d; want the plain file added and the three encrypted files skipped", counts(rep), rep.Skipped)
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

// TestFsckCleanWithEncryptedMultipart completes an SSE-S3 multipart
// object and leaves another encrypted upload in progress: fsck finds
// nothing wrong with the object's file (its parts' streams) nor with the
// parts' files (their ciphertext sizes), and the object reads back.
func TestFsckCleanWithEncryptedMultipart(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	o := putEncryptedMultipart(t, l, "mp", MinPartSize, 70000)
	if len(o.SSE.Parts) != 2 || fileSize(&o) != sse.EncryptedSize(MinPartSize)+sse.EncryptedSize(70000) {
		t.Fatalf("record layout %+v", o.SSE.Parts)
	}
	u, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: "open", Encryption: sse.Request{Algorithm: sse.AES256}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.UploadPart(PartInput{Bucket: "bkt", Key: "open", UploadID: u.ID, Number: 1,
		Body: bytes.NewReader(make([]byte, 1000)), Size: 1000}); err != nil {
		t.Fatal(err)
	}
	rep, err := l.Fsck(FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Fatalf("fsck found %+v", rep.Problems)
	}
	rd, err := l.OpenObject("bkt", "mp")
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	body, err := l.Plaintext(rd, nil, MinPartSize-1, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	if err != nil || !bytes.Equal(got, []byte{0, 1}) {
		t.Fatalf("range across the parts = %v, %v", got, err)
	}
}
