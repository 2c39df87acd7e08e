package edge

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenPath checks that openPath behaves as os.OpenFile for what the
// cache relies on: O_EXCL creates, errors that errors.Is recognises,
// writes and reads at offsets, and a descriptor closed on exec.
func TestOpenPath(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	w, err := openPath(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt([]byte("world"), 6); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt([]byte("hello "), 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("created file: %v, %v; want mode 0600", fi, err)
	}
	if _, err := openPath(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); !errors.Is(err, os.ErrExist) {
		t.Errorf("O_EXCL create of an existing file: %v, want ErrExist", err)
	}
	var pe *os.PathError
	if _, err := openPath(filepath.Join(dir, "gone"), os.O_RDONLY, 0); !errors.Is(err, os.ErrNotExist) || !errors.As(err, &pe) || pe.Path != filepath.Join(dir, "gone") {
		t.Errorf("open of a missing file: %v, want a *PathError with ErrNotExist", err)
	}
	r, err := openPath(p, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b := make([]byte, 11)
	if _, err := r.ReadAt(b, 0); err != nil || string(b) != "hello world" {
		t.Errorf("read %q, %v", b, err)
	}
	if r.Name() != p {
		t.Errorf("Name() = %q, want %q", r.Name(), p)
	}
	flags, err := fcntlGetFD(r)
	if err != nil || flags&fdCloexec == 0 {
		t.Errorf("descriptor flags %#x, %v: want FD_CLOEXEC", flags, err)
	}
}

const fdCloexec = syscall.FD_CLOEXEC

// fcntlGetFD returns f's descriptor flags (F_GETFD).
func fcntlGetFD(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFD, 0)
		flags = int(r)
		if errno != 0 {
			ferr = errno
		}
	}); err != nil {
		return 0, err
	}
	return flags, ferr
}
