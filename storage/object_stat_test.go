package storage

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestIdentifyAgreesWithOpen checks that Identify, which neither opens
// the file nor walks the path through the bucket's Root, gives what Open
// gives for a regular file at every location, and ok=false wherever Open
// would not give that file's own FileInfo straight away: no file, not a
// regular file, a symbolic link anywhere on the path (Open follows one
// that stays inside the bucket, and refuses one that leaves it).
func TestIdentifyAgreesWithOpen(t *testing.T) {
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
	if err := os.Symlink("dir", filepath.Join(dir, "b", "linkdir")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key    string
		loc    Location
		wantOK bool
	}{
		{"dir/k", natLoc, true},
		{"dir", Shadow, true},
		{"link", Natural, false},
		{"linkdir/k", Natural, false}, // Open follows it; Identify never does
		{"missing", Natural, false},
		{"missing", Shadow, false},
		{"fifo", Natural, false},
		{"dir/", Natural, false},
		{"escape", Natural, false},
		{"../b/dir/k", Natural, false},
		{"dir/k", Directory, false},
	} {
		fi, ok := fs.Identify("b", tc.key, tc.loc)
		if ok != tc.wantOK {
			t.Errorf("Identify(%q, %v) ok %v, want %v", tc.key, tc.loc, ok, tc.wantOK)
			continue
		}
		if !ok {
			continue
		}
		f, ofi, err := fs.Open("b", tc.key, tc.loc)
		if err != nil {
			t.Fatalf("Open(%q): %v", tc.key, err)
		}
		f.Close()
		if fi != ofi {
			t.Errorf("%q: Identify %+v; Open %+v", tc.key, fi, ofi)
		}
	}
	if _, ok := fs.Identify(".objectgateway", "x", Natural); ok {
		t.Error("Identify reached into the state directory")
	}
}
