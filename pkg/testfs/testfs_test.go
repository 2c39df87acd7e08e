package testfs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDirIsOfItsKind mounts each kind and checks that the directory is on
// it, is empty and takes a file.
func TestDirIsOfItsKind(t *testing.T) {
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			dir := Dir(t, kind)
			if got, err := KindOf(dir); err != nil || got != kind {
				t.Fatalf("KindOf(%s) = %q, %v; want %s", dir, got, err, kind)
			}
			ents, err := os.ReadDir(dir)
			if err != nil || len(ents) != 0 {
				t.Fatalf("ReadDir(%s) = %v, %v; want empty", dir, ents, err)
			}
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCloseRemovesEverything checks that Close unmounts, detaches the loop
// device and removes the image and the mount point, and that with a file
// left open on the filesystem it still removes the mount point (the mount
// is detached lazily, and the loop device goes when the file is closed)
// and says so.
func TestCloseRemovesEverything(t *testing.T) {
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			Dir(t, kind) // skips or fails as Dir does when kind cannot be made
			for _, leaveOpen := range []bool{false, true} {
				work := t.TempDir()
				f, err := New(kind, work, Options{})
				if err != nil {
					t.Fatal(err)
				}
				dev := f.dev
				if leaveOpen {
					h, err := os.Create(filepath.Join(f.Dir, "open"))
					if err != nil {
						t.Fatal(err)
					}
					defer h.Close()
				}
				err = f.Close()
				if leaveOpen != (err != nil) {
					t.Errorf("left open %v: Close = %v", leaveOpen, err)
				}
				if ents, err := os.ReadDir(work); err != nil || len(ents) != 0 {
					t.Errorf("left open %v: %s holds %v (%v) after Close", leaveOpen, work, ents, err)
				}
				if dev != "" && !leaveOpen {
					backing := filepath.Join("/sys/block", filepath.Base(dev), "loop", "backing_file")
					if b, err := os.ReadFile(backing); err == nil && strings.HasPrefix(string(b), work) {
						t.Errorf("left open %v: %s still backs %s after Close", leaveOpen, b, dev)
					}
				}
			}
		})
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range Kinds() {
		if got, err := ParseKind(string(k)); got != k || err != nil {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	if _, err := ParseKind("zfs"); err == nil {
		t.Error("ParseKind(zfs) succeeded")
	}
}

// TestUnavailableNamesWhatIsMissing checks the message a skip shows.
func TestUnavailableNamesWhatIsMissing(t *testing.T) {
	err := error(&UnavailableError{Kind: XFS, Missing: "mkfs.xfs is not installed (Debian package xfsprogs)"})
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "xfs filesystem") || !strings.Contains(err.Error(), "xfsprogs") {
		t.Errorf("error %q", err)
	}
}

func TestRange(t *testing.T) {
	exts := []Extent{
		{Logical: 0, Physical: 1000, Length: 100},
		{Logical: 100, Physical: 1100, Length: 50}, // contiguous with the first
		{Logical: 150, Physical: 5000, Length: 50},
		{Logical: 300, Physical: 9000, Length: 100}, // after a hole
	}
	for _, c := range []struct {
		off, n int64
		want   []Extent
	}{
		{0, 400, []Extent{{0, 1000, 150, false}, {150, 5000, 50, false}, {300, 9000, 100, false}}},
		{50, 120, []Extent{{0, 1050, 100, false}, {100, 5000, 20, false}}},
		{200, 100, nil},
		{350, 10, []Extent{{0, 9050, 10, false}}},
	} {
		if got := Range(exts, c.off, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Range(%d, %d) = %v, want %v", c.off, c.n, got, c.want)
		}
	}
}

// TestExtentsSeeReflinks checks the measuring tool the reflink tests use
// on the filesystems that have reflinks: a clone (FICLONE) holds the same
// blocks as its source and says they are shared; a copy through user
// space holds other blocks.
func TestExtentsSeeReflinks(t *testing.T) {
	for _, kind := range []Kind{XFS, Btrfs} {
		t.Run(string(kind), func(t *testing.T) {
			dir := Dir(t, kind)
			body := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
			src := create(t, filepath.Join(dir, "src"), body)
			clone := create(t, filepath.Join(dir, "clone"), nil)
			if err := unix.IoctlFileClone(int(clone.Fd()), int(src.Fd())); err != nil {
				t.Fatalf("FICLONE: %v", err)
			}
			cp := create(t, filepath.Join(dir, "copy"), nil)
			if _, err := io.Copy(struct{ io.Writer }{cp}, struct{ io.Reader }{io.NewSectionReader(src, 0, int64(len(body)))}); err != nil {
				t.Fatal(err)
			}
			es, ec, ep := extents(t, src), extents(t, clone), extents(t, cp)
			n := int64(len(body))
			if !reflect.DeepEqual(Range(es, 0, n), Range(ec, 0, n)) {
				t.Errorf("clone's blocks %v, source's %v; want the same", ec, es)
			}
			for _, e := range ec {
				if !e.Shared {
					t.Errorf("clone's extent %+v is not flagged shared", e)
				}
			}
			if reflect.DeepEqual(Range(es, 0, n), Range(ep, 0, n)) {
				t.Errorf("copy's blocks %v are the source's", ep)
			}
		})
	}
}

func create(t *testing.T, name string, body []byte) *os.File {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Write(body); err != nil {
		t.Fatal(err)
	}
	return f
}

func extents(t *testing.T, f *os.File) []Extent {
	t.Helper()
	e, err := Extents(f)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
