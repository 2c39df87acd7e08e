package object

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// TestChoosePartsObjectSize checks S3's 5 TiB object limit on
// completion: 1,024 parts of 5 GiB are exactly 5 TiB, one byte more is
// EntityTooLarge.
func TestChoosePartsObjectSize(t *testing.T) {
	mk := func(n int, last int64) ([]Part, []CompletePart) {
		stored := make([]Part, n)
		req := make([]CompletePart, n)
		for i := range stored {
			stored[i] = Part{Number: i + 1, ETag: "e", Size: MaxPartSize}
			req[i] = CompletePart{Number: i + 1, ETag: "e"}
		}
		stored[n-1].Size = last
		return stored, req
	}
	stored, req := mk(1024, MaxPartSize)
	if _, err := choosePartsFrom(stored, req); err != nil {
		t.Fatalf("exactly 5 TiB: %v", err)
	}
	stored, req = mk(1025, 1)
	if _, err := choosePartsFrom(stored, req); s3err.As(err).Code != s3err.EntityTooLarge {
		t.Fatalf("5 TiB + 1: %v", err)
	}
}

// TestDeleteBucketWithoutDirectory is the retry of a DeleteBucket that a
// crash interrupted between removing the directory and dropping the
// record (docs/durability.md): it succeeds and the bucket is gone.
func TestDeleteBucketWithoutDirectory(t *testing.T) {
	l, root := newLayer(t)
	if err := l.CreateBucket(Bucket{Name: "gone"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := l.DeleteBucket("gone"); err != nil {
		t.Fatalf("DeleteBucket: %v", err)
	}
	if _, err := l.Bucket("gone"); s3err.As(err).Code != s3err.NoSuchBucket {
		t.Fatalf("after DeleteBucket: %v", err)
	}
}
