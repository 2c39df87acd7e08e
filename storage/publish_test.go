package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// publish stages body and publishes it as bucket/key over prior.
func publish(t *testing.T, fs *FS, bucket, key string, body []byte, prior Prior) (*Upload, Location, error) {
	t.Helper()
	u, err := fs.NewUpload()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Abort() })
	if _, err := u.Write(body); err != nil {
		t.Fatal(err)
	}
	loc, _, err := u.Publish(bucket, key, prior)
	return u, loc, err
}

// wantBody fails the test unless bucket/key at loc holds body.
func wantBody(t *testing.T, fs *FS, bucket, key string, loc Location, body string) FileInfo {
	t.Helper()
	got, fi, err := get(fs, bucket, key, loc)
	if err != nil || string(got) != body {
		t.Fatalf("%s (%v): %q %v, want %q", key, loc, got, err, body)
	}
	return fi
}

// TestPublishUndo publishes over a natural key, a shadowed key and a
// "/" key kept as a directory, and of new keys, then takes each back:
// the previous version is again at its path (the same inode), a new key
// has no file and no directory left, and staging is empty (newTestFS).
func TestPublishUndo(t *testing.T) {
	long := strings.Repeat("s", 300)
	for _, c := range []struct {
		name, key string
		prev      Location
		existed   bool
	}{
		{"over a natural key", "d/k", Natural, true},
		{"over a shadowed key", "d/" + long, Shadow, true},
		{"over a directory key moving to the shadow area", "folder/", Directory, true},
		{"of a new natural key", "new/deep/k", Natural, false},
		{"of a new shadowed key", "d/" + long, Natural, false},
		{"of a new directory key", "newfolder/", Natural, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs, dir := newTestFS(t, Options{})
			mustBucket(t, fs, "b")
			var before FileInfo
			if c.existed {
				_, before = put(t, fs, "b", c.key, nil, Natural)
				if c.prev != Directory {
					_, before = put(t, fs, "b", c.key, []byte("previous"), c.prev)
				}
			}
			body := []byte("new")
			if strings.HasSuffix(c.key, "/") && !c.existed {
				body = nil
			}
			u, _, err := publish(t, fs, "b", c.key, body, Prior{Location: c.prev, Exists: c.existed})
			if err != nil {
				t.Fatal(err)
			}
			if err := u.Undo(); err != nil {
				t.Fatalf("Undo: %v", err)
			}
			switch {
			case c.prev == Directory:
				if fi, err := os.Stat(filepath.Join(dir, "b", "folder")); err != nil || !fi.IsDir() {
					t.Fatalf("the directory of %q after Undo: %v", c.key, err)
				}
				if _, err := os.Lstat(filepath.Join(dir, ShadowPath("b", c.key))); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("shadow file after Undo: %v", err)
				}
			case c.existed:
				if fi := wantBody(t, fs, "b", c.key, c.prev, "previous"); fi != before {
					t.Fatalf("after Undo: %+v, want the previous file %+v", fi, before)
				}
			default:
				for _, p := range []string{filepath.Join(dir, "b", "new"), filepath.Join(dir, "b", "newfolder"), filepath.Join(dir, ShadowPath("b", c.key))} {
					if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
						t.Fatalf("%s after Undo: %v", p, err)
					}
				}
			}
			if err := u.Undo(); err != nil {
				t.Fatalf("second Undo: %v", err)
			}
		})
	}
}

// TestPublishKeep publishes over existing keys and keeps the new version:
// the old file is gone from staging (newTestFS), and a key that moved to
// the shadow area leaves no natural directory behind.
func TestPublishKeep(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	mustBucket(t, fs, "b")
	put(t, fs, "b", "k", []byte("previous"), Natural)
	u, loc, err := publish(t, fs, "b", "k", []byte("new"), Prior{Location: Natural, Exists: true})
	if err != nil || loc != Natural {
		t.Fatalf("Publish: %v %v", loc, err)
	}
	if err := u.Keep(); err != nil {
		t.Fatal(err)
	}
	wantBody(t, fs, "b", "k", Natural, "new")

	put(t, fs, "b", "folder/", nil, Natural)
	u, loc, err = publish(t, fs, "b", "folder/", []byte("content"), Prior{Location: Directory, Exists: true})
	if err != nil || loc != Shadow {
		t.Fatalf("Publish of a directory key with content: %v %v", loc, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "folder")); err != nil {
		t.Fatalf("the previous version's directory must stay until Keep: %v", err)
	}
	if err := u.Abort(); err != nil {
		t.Fatalf("Abort after Publish: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "folder")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("directory after Keep: %v", err)
	}
	wantBody(t, fs, "b", "folder/", Shadow, "content")
}

// TestPublishNeverMovesADirectory publishes over a key whose natural path
// became a directory behind the index's back: the directory and what it
// holds stay where they are, and the key goes to the shadow area.
func TestPublishNeverMovesADirectory(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	mustBucket(t, fs, "b")
	if err := os.MkdirAll(filepath.Join(dir, "b", "k"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b", "k", "inside"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, finish := range []func(*Upload) error{(*Upload).Undo, (*Upload).Keep} {
		u, loc, err := publish(t, fs, "b", "k", []byte("new"), Prior{Location: Natural, Exists: true})
		if err != nil || loc != Shadow {
			t.Fatalf("Publish: %v %v", loc, err)
		}
		if err := finish(u); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "b", "k", "inside")); err != nil || string(b) != "inside" {
			t.Fatalf("the directory in the way: %q %v", b, err)
		}
	}
}

// TestPublishFaults fails the link of the replaced file and the directory
// fsync after the rename: both return the error and leave the previous
// version at its path (the same inode), and a new key absent.
func TestPublishFaults(t *testing.T) {
	for _, op := range []string{"link", "dirsync"} {
		for _, existed := range []bool{true, false} {
			if op == "link" && !existed {
				continue // A new key links nothing.
			}
			name := op + " of a new key"
			if existed {
				name = op + " over a key"
			}
			t.Run(name, func(t *testing.T) {
				fs, dir := newTestFS(t, Options{})
				mustBucket(t, fs, "b")
				var before FileInfo
				if existed {
					_, before = put(t, fs, "b", "d/k", []byte("previous"), Natural)
				}
				fs.fault = func(got string) error {
					if got == op {
						return syscall.ENOSPC
					}
					return nil
				}
				_, _, err := publish(t, fs, "b", "d/k", []byte("new"), Prior{Location: Natural, Exists: existed})
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("Publish: %v, want ENOSPC", err)
				}
				fs.fault = nil
				if existed {
					if fi := wantBody(t, fs, "b", "d/k", Natural, "previous"); fi != before {
						t.Fatalf("after the fault: %+v, want %+v", fi, before)
					}
				} else if _, err := os.Lstat(filepath.Join(dir, "b", "d")); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("new key after the fault: %v", err)
				}
			})
		}
	}
}

// TestPublishOverAFileThatMayNotBeLinked publishes over a file whose link
// is refused with EPERM, as fs.protected_hardlinks refuses links to files
// of other owners: the previous file is kept by exchanging names instead,
// so Undo still restores it and Keep still removes it.
func TestPublishOverAFileThatMayNotBeLinked(t *testing.T) {
	for _, undo := range []bool{true, false} {
		fs, _ := newTestFS(t, Options{})
		mustBucket(t, fs, "b")
		_, before := put(t, fs, "b", "k", []byte("previous"), Natural)
		fs.fault = func(op string) error {
			if op == "link" {
				return syscall.EPERM
			}
			return nil
		}
		u, loc, err := publish(t, fs, "b", "k", []byte("new"), Prior{Location: Natural, Exists: true})
		fs.fault = nil
		if err != nil || loc != Natural {
			t.Fatalf("Publish: %v %v", loc, err)
		}
		wantBody(t, fs, "b", "k", Natural, "new")
		// A shutdown's clean-up of this process's staged uploads runs
		// while the write is pending: it must leave the previous file.
		if err := fs.removeOwnStaging(); err != nil {
			t.Fatal(err)
		}
		if undo {
			if err := u.Undo(); err != nil {
				t.Fatalf("Undo: %v", err)
			}
			if fi := wantBody(t, fs, "b", "k", Natural, "previous"); fi.Inode != before.Inode {
				t.Fatalf("Undo restored inode %d, want %d", fi.Inode, before.Inode)
			}
		} else {
			if err := u.Keep(); err != nil {
				t.Fatalf("Keep: %v", err)
			}
			wantBody(t, fs, "b", "k", Natural, "new")
		}
	}
}
