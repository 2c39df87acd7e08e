package powercut

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mount mounts a power-cut filesystem in a temporary directory, or skips
// the test when the machine cannot mount FUSE.
func mount(t *testing.T) *FS {
	t.Helper()
	f, err := Mount(Options{Dir: t.TempDir()})
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("powercut needs /dev/fuse and permission to mount (root): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return f
}

func cut(t *testing.T, f *FS) {
	t.Helper()
	if err := f.Cut(); err != nil {
		t.Fatalf("Cut: %v", err)
	}
}

// writeFile writes data to the file at p without syncing it.
func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeSynced writes data to the file at p and fsyncs the file, not its
// directory.
func writeSynced(t *testing.T, p, data string) {
	t.Helper()
	fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := fh.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
}

// syncPath fsyncs the file or directory at p.
func syncPath(t *testing.T, p string) {
	t.Helper()
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
}

// wantContent fails unless the file at p holds want.
func wantContent(t *testing.T, p, want string) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("after the cut: %v", err)
	}
	if string(got) != want {
		t.Fatalf("after the cut %s holds %q, want %q", p, got, want)
	}
}

// wantMissing fails unless nothing is at p.
func wantMissing(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after the cut %s: err %v, want it gone", p, err)
	}
}

func inodeOf(t *testing.T, p string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

func join(f *FS, elem ...string) string {
	return filepath.Join(append([]string{f.Path()}, elem...)...)
}
