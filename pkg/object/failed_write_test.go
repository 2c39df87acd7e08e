package object

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
)

// TestFailedIndexWriteKeepsPreviousVersion makes the index refuse the
// record of a PutObject, a CopyObject and a CompleteMultipartUpload after
// the new file was renamed into place, as a full disk refuses bbolt's
// write. Each answers InsufficientStorage; a key that had a version
// (natural or shadowed) then serves that version's bytes and ETag, a new
// key is NoSuchKey with no file on disk, and staging is empty.
func TestFailedIndexWriteKeepsPreviousVersion(t *testing.T) {
	full := &os.PathError{Op: "write", Path: IndexFile, Err: syscall.ENOSPC}
	writes := []struct {
		name  string
		write func(t *testing.T, l *Layer, key string) error
	}{
		{"PutObject", func(t *testing.T, l *Layer, key string) error {
			body := "new version"
			_, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body))})
			return err
		}},
		{"CopyObject", func(t *testing.T, l *Layer, key string) error {
			l.failStore = nil
			put(t, l, "copy-source", "new version from a copy")
			l.failStore = func(Object) error { return full }
			_, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "copy-source", DstBucket: "bkt", DstKey: key})
			return err
		}},
		{"CompleteMultipartUpload", func(t *testing.T, l *Layer, key string) error {
			l.failStore = nil
			id := mpStart(t, l, key)
			p := mpUpload(t, l, key, id, 1, []byte("new version from parts"))
			l.failStore = func(Object) error { return full }
			_, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: key, UploadID: id, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}})
			return err
		}},
	}
	keys := []struct {
		name, key string
		existing  bool
	}{
		{"over a natural key", "dir/existing.txt", true},
		{"over a shadowed key", "dir/" + strings.Repeat("s", 300), true},
		{"of a new natural key", "dir/new.txt", false},
		{"of a new shadowed key", "dir/" + strings.Repeat("n", 300), false},
	}
	for _, w := range writes {
		for _, k := range keys {
			t.Run(w.name+" "+k.name, func(t *testing.T) {
				l, root := newLayer(t)
				var before Object
				if k.existing {
					before = put(t, l, k.key, "previous version")
				}
				l.failStore = func(Object) error { return full }
				if err := w.write(t, l, k.key); code(err) != s3err.InsufficientStorage {
					t.Fatalf("write with the index full: %v, want InsufficientStorage", err)
				}
				l.failStore = nil
				if k.existing {
					o, body := read(t, l, k.key)
					if body != "previous version" || o.ETag != before.ETag {
						t.Fatalf("after the failed write: %q ETag %q, want the previous version, ETag %q", body, o.ETag, before.ETag)
					}
				} else {
					if _, err := l.OpenObject("bkt", k.key); code(err) != s3err.NoSuchKey {
						t.Fatalf("new key after the failed write: %v, want NoSuchKey", err)
					}
					for _, p := range []string{filepath.Join(root, "bkt", k.key), filepath.Join(root, filepath.FromSlash(storage.ShadowPath("bkt", k.key)))} {
						if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
							t.Fatalf("the failed write left %s: %v", p, err)
						}
					}
				}
				noStaging(t, root)
			})
		}
	}
}

// TestFailedIndexWriteThenRetry checks that a write refused by the index
// can be made again once the index accepts it, and that the previous
// version's file is not left behind in staging by the one that succeeds.
func TestFailedIndexWriteThenRetry(t *testing.T) {
	l, root := newLayer(t)
	put(t, l, "k", "previous version")
	l.failStore = func(Object) error { return &os.PathError{Op: "write", Path: IndexFile, Err: syscall.ENOSPC} }
	if _, err := l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("refused"), Size: 7}); code(err) != s3err.InsufficientStorage {
		t.Fatalf("refused write: %v", err)
	}
	l.failStore = nil
	want := put(t, l, "k", "accepted")
	if o, body := read(t, l, "k"); body != "accepted" || o.ETag != want.ETag {
		t.Fatalf("after the retry: %q %q", body, o.ETag)
	}
	noStaging(t, root)
}
