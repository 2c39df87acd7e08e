package object

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
)

// TestScanVersionedBucket checks that a scan reconciles a versioned
// bucket as the object layer changes versions: a current file removed
// behind the gateway's back gives way to the newest noncurrent version,
// whose file comes back to the natural path, and a file written at a key
// whose latest version is a delete marker becomes a new version, above
// the marker.
func TestScanVersionedBucket(t *testing.T) {
	l, root := newLayer(t)
	if err := l.SetVersioning("bkt", 0, metadata.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	v1 := put(t, l, "a", "one")
	put(t, l, "a", "two")
	if err := os.Remove(filepath.Join(root, "bkt", "a")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Scan(ScanOptions{}); err != nil {
		t.Fatal(err)
	}
	got, body := read(t, l, "a")
	if got.VersionID != v1.VersionID || body != "one" {
		t.Fatalf("after the scan the current version is %q %q, want %q \"one\"", got.VersionID, body, v1.VersionID)
	}

	put(t, l, "b", "bee")
	del, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "b"})
	if err != nil || !del.DeleteMarker {
		t.Fatalf("delete: %+v, %v", del, err)
	}
	if err := os.WriteFile(filepath.Join(root, "bkt", "b"), []byte("written behind"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Scan(ScanOptions{}); err != nil {
		t.Fatal(err)
	}
	got, body = read(t, l, "b")
	if body != "written behind" || got.VersionID == "" || got.VersionID == del.VersionID {
		t.Fatalf("imported file: version %q body %q", got.VersionID, body)
	}
	page, err := l.ListVersions("bkt", metadata.VersionQuery{Prefix: "b", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 3 || !page.Entries[0].IsLatest || page.Entries[0].VersionID != got.VersionID ||
		!page.Entries[1].DeleteMarker || page.Entries[2].DeleteMarker {
		t.Fatalf("versions of b: %+v", page.Entries)
	}
}

// TestVersionedFolderMarkerUndelete checks that a folder marker ("dir/")
// whose delete marker is removed by id is a directory again, and reads.
func TestVersionedFolderMarkerUndelete(t *testing.T) {
	l, root := newLayer(t)
	if err := l.SetVersioning("bkt", 0, metadata.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	put(t, l, "dir/", "")
	del, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "dir/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "bkt", "dir")); !os.IsNotExist(err) {
		t.Fatalf("the deleted folder marker's empty directory is still there: %v", err)
	}
	if _, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "dir/", VersionID: del.VersionID}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "bkt", "dir")); err != nil || !fi.IsDir() {
		t.Fatalf("after the undelete: %v, %v", fi, err)
	}
	if o, body := read(t, l, "dir/"); o.Size != 0 || body != "" {
		t.Fatalf("folder marker reads %d bytes %q", o.Size, body)
	}
}
