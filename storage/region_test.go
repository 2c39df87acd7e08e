package storage

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRegionStageAndCopy writes two ranges of a region, copies a part
// file into a third, and publishes the region truncated to the object's
// size: the object holds exactly those bytes, the region's own name
// still holds the same file until the parts are removed, only the copied
// bytes are counted, and no staging link is left behind (checked by
// newTestFS at cleanup).
func TestRegionStageAndCopy(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	mustBucket(t, fs, "b")
	const id = "upload1"
	r, err := fs.OpenRegion(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, b, c := bytes.Repeat([]byte("a"), 100), bytes.Repeat([]byte("b"), 100), []byte("ccc")
	if _, err := r.WriteAt(b, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := r.WriteAt(a, 0); err != nil {
		t.Fatal(err)
	}
	// Bytes beyond the object, which the truncation must cut.
	if _, err := r.WriteAt([]byte("garbage"), 400); err != nil {
		t.Fatal(err)
	}
	if err := r.Sync(); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "part")
	if err := os.WriteFile(src, c, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := fs.CopiedBytes()
	if err := r.CopyIn(f, 200, int64(len(c))); err != nil {
		t.Fatal(err)
	}
	if n := fs.CopiedBytes() - before; n != int64(len(c)) {
		t.Errorf("CopiedBytes grew by %d, want %d", n, len(c))
	}
	up, err := r.Stage(203)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := up.Commit("b", "obj", Natural); err != nil {
		t.Fatal(err)
	}
	want := append(append(append([]byte(nil), a...), b...), c...)
	got, err := os.ReadFile(filepath.Join(dir, "b", "obj"))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("object: %q, %v; want %q", got, err, want)
	}
	_, links, err := r.Stat()
	if err != nil || links != 2 {
		t.Errorf("region links: %d, %v; want 2 (its name and the object)", links, err)
	}
	if err := fs.RemoveParts(id); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.StatRegion(id); !isNotFound(err) {
		t.Errorf("StatRegion after RemoveParts: %v, want ErrNotFound", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b", "obj")); !bytes.Equal(got, want) {
		t.Error("removing the parts changed the object")
	}
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
