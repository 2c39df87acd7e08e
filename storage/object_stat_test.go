package storage

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStatPathAgreesWithOpen checks that StatPath, which does not open the
// file, gives what Open gives: the same FileInfo for every location, and
// the same errors for missing files, non-regular files and escapes.
func TestStatPathAgreesWithOpen(t *testing.T) {
	fs, dir := newTestFS(t, Options{NoSync: true})
	mustBucket(t, fs, "b")
	natLoc, _ := put(t, fs, "b", "dir/k", []byte("natural"), Natural)
	shLoc, _ := put(t, fs, "b", "dir", []byte("shadowed by dir/"), Natural)
	if shLoc != Shadow {
		t.Fatalf("key colliding with a directory stored at %v, want Shadow", shLoc)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "b", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "b", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir/k", filepath.Join(dir, "b", "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key     string
		loc     Location
		wantErr error
	}{
		{"dir/k", natLoc, nil},
		{"dir", Shadow, nil},
		{"link", Natural, nil},
		{"missing", Natural, ErrNotFound},
		{"missing", Shadow, ErrNotFound},
		{"fifo", Natural, ErrNotFound},
		{"dir/", Natural, ErrNotFound},
		{"escape", Natural, ErrEscape},
	} {
		fi, err := fs.StatPath("b", tc.key, tc.loc)
		if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
			t.Errorf("StatPath(%q, %v) error %v, want %v", tc.key, tc.loc, err, tc.wantErr)
			continue
		}
		f, ofi, oerr := fs.Open("b", tc.key, tc.loc)
		if f != nil {
			f.Close()
		}
		if (oerr == nil) != (err == nil) || fi != ofi {
			t.Errorf("%q: StatPath %+v, %v; Open %+v, %v", tc.key, fi, err, ofi, oerr)
		}
	}
}
