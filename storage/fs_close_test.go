package storage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloseRemovesOwnStagedUploads: an upload still being written when its
// FS is closed (a request cut off by a shutdown) leaves no staging file
// behind, while the uploads of another FS on the same root keep theirs.
func TestCloseRemovesOwnStagedUploads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "root")
	mine, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	up, err := mine.NewUpload()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.Write([]byte("half a body")); err != nil {
		t.Fatal(err)
	}
	theirs, err := other.NewUpload()
	if err != nil {
		t.Fatal(err)
	}
	defer theirs.Abort()
	if err := mine.Close(); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, stagingDir))
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if len(left) != 1 || !strings.HasPrefix(left[0], other.prefix) {
		t.Fatalf("staging after Close: %q; want only the other FS's upload (prefix %s)", left, other.prefix)
	}
}
