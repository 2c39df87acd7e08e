package object

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// A multipart object whose file is rewritten behind the gateway's back is
// refreshed on the next read: PartsCount drops to 0 but the old part
// layout (o.Parts) is kept, so partNumber=N (and GetObjectAttributes
// ObjectParts) still describe the old parts. A GET ?partNumber=1 then
// promises Content-Length = old part size for a file that is now smaller,
// and the response is cut short.
func TestReviewRefreshDropsStalePartLayout(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "big")
	p1 := mpUpload(t, l, "big", id, 1, bytes.Repeat([]byte("a"), MinPartSize))
	p2 := mpUpload(t, l, "big", id, 2, []byte("tail"))
	if _, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: "big", UploadID: id, ExpectSize: -1,
		Parts: []CompletePart{{Number: 1, ETag: p1.ETag}, {Number: 2, ETag: p2.ETag}}}); err != nil {
		t.Fatal(err)
	}
	// Out-of-band rewrite of the file: 10 bytes now.
	if err := os.WriteFile(filepath.Join(root, "bkt", "big"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := l.StatObject("bkt", "big")
	if err != nil {
		t.Fatal(err)
	}
	if o.Size != 10 || o.PartsCount != 0 {
		t.Fatalf("refresh did not happen: %+v", o)
	}
	if len(o.Parts) != 0 {
		t.Errorf("refreshed record keeps %d stale parts: %+v", len(o.Parts), o.Parts)
	}
	start, length, err := PartRange(&o, 1)
	if err != nil || start != 0 || length != o.Size {
		t.Errorf("PartRange(1) of a refreshed 10-byte object = %d,%d,%v; want 0,10,nil", start, length, err)
	}
	if _, _, err := PartRange(&o, 2); code(err) != s3err.InvalidPartNumber {
		t.Errorf("PartRange(2) of a refreshed single-file object: err %v, want InvalidPartNumber", err)
	}
}

// A zero-byte key ending in "/" is kept as a directory (docs/architecture.md
// "On disk"). Deleting another object below it prunes "empty" directories,
// and prune does not know that this directory is itself an object: the
// folder's directory disappears, and the next scan (or the watcher) then
// drops the folder object from the index.
func TestReviewDeleteBelowFolderMarkerKeepsFolder(t *testing.T) {
	l, root := newLayer(t)
	put(t, l, "photos/", "")
	put(t, l, "photos/a.jpg", "jpeg")
	if err := l.DeleteObject("bkt", "photos/a.jpg", Conditions{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "bkt", "photos")); err != nil || !fi.IsDir() {
		t.Errorf("the folder object photos/ lost its directory: %v", err)
	}
	scan(t, l, ScanOptions{})
	if keys := allKeys(t, l, "bkt"); len(keys) != 1 || keys[0] != "photos/" {
		t.Errorf("after DELETE photos/a.jpg and a scan, keys = %q; want [photos/]", keys)
	}
}

// DeleteBucket checks that the index is empty, then removes the bucket's
// directory and its whole shadow directory, then the bucket record. A PUT
// of a shadowed key that renames its file into the shadow area after the
// emptiness check and records it before the record is deleted is
// acknowledged (200) while its bytes are removed by removeShadow: the
// bucket survives (BucketNotEmpty) without its directory and with an
// object that reads as NoSuchKey.
func TestReviewDeleteBucketRacingShadowPut(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const key = "a//shadowed" // an empty segment: always in the shadow area
	for i := 0; i < 500; i++ {
		b := fmt.Sprintf("race%d", i)
		if err := l.CreateBucket(Bucket{Name: b}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var putErr, delErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, putErr = l.PutObject(PutInput{Bucket: b, Key: key, Body: strings.NewReader("x"), Size: 1})
		}()
		go func() {
			defer wg.Done()
			delErr = l.DeleteBucket(b)
		}()
		wg.Wait()
		if putErr == nil {
			// The PUT was acknowledged: its bytes must be readable.
			r, err := l.OpenObject(b, key)
			if err != nil {
				t.Fatalf("iteration %d: PUT acknowledged, DeleteBucket = %v, then GET = %v (acknowledged write lost)", i, delErr, err)
			}
			r.Close()
			if delErr == nil {
				t.Fatalf("iteration %d: both PUT and DeleteBucket succeeded", i)
			}
		}
	}
}

// CompleteMultipartUpload reads the part list from the index, then opens
// each part file by number. An UploadPart of the same number that renames
// its file in between makes the completion assemble the new part's bytes
// under the old part's ETag, size and checksum: the object's bytes no
// longer match its ETag (here a single-part object, whose bytes must hash
// to the part's ETag).
func TestReviewCompleteRacingPartReupload(t *testing.T) {
	l, _, _ := newMPLayer(t)
	a := bytes.Repeat([]byte("A"), 64<<10)
	bb := bytes.Repeat([]byte("B"), 64<<10)
	sumA := md5.Sum(a)
	for i := 0; i < 300; i++ {
		key := fmt.Sprintf("obj%d", i)
		id := mpStart(t, l, key)
		pa := mpUpload(t, l, key, id, 1, a)
		if pa.ETag != hex.EncodeToString(sumA[:]) {
			t.Fatal("part ETag")
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = l.UploadPart(PartInput{Bucket: "bkt", Key: key, UploadID: id, Number: 1, Body: bytes.NewReader(bb), Size: int64(len(bb))})
		}()
		o, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: key, UploadID: id, ExpectSize: -1,
			Parts: []CompletePart{{Number: 1, ETag: pa.ETag}}})
		wg.Wait()
		if err != nil {
			continue // a clean refusal (InvalidPart, ...) is fine
		}
		r, err := l.OpenObject("bkt", key)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(r.File)
		r.Close()
		if !bytes.Equal(got, a) {
			t.Fatalf("iteration %d: completion acknowledged part 1 = %s (%d bytes of A) but the object holds other bytes (first byte %q, %d bytes); ETag %s no longer describes the content",
				i, pa.ETag, len(a), got[:1], len(got), o.ETag)
		}
	}
}
