package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPublishDemote publishes over a natural and a shadowed key with
// Demote. Keep leaves the replaced file (the same inode) as the version,
// the new bytes at the key's path; Undo puts the replaced file back at
// the key's path and leaves no version. Either way staging is empty
// (newTestFS).
func TestPublishDemote(t *testing.T) {
	long := strings.Repeat("s", 300)
	for _, c := range []struct {
		name, key string
		loc       Location
		undo      bool
	}{
		{"natural then Keep", "d/k", Natural, false},
		{"natural then Undo", "d/k", Natural, true},
		{"shadow then Keep", "d/" + long, Shadow, false},
		{"shadow then Undo", "d/" + long, Shadow, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs, dir := newTestFS(t, Options{})
			mustBucket(t, fs, "b")
			loc, before := put(t, fs, "b", c.key, []byte("old"), Natural)
			if loc != c.loc {
				t.Fatalf("old version at %v, want %v", loc, c.loc)
			}
			u, loc, err := publish(t, fs, "b", c.key, []byte("new"), Prior{Location: c.loc, Exists: true, Demote: true, Version: "v1"})
			if err != nil || loc != c.loc {
				t.Fatalf("Publish: %v %v", loc, err)
			}
			// Until Keep or Undo, both are in place.
			wantBody(t, fs, "b", c.key, c.loc, "new")
			wantVersion(t, fs, "b", c.key, "v1", "old")
			if c.undo {
				if err := u.Undo(); err != nil {
					t.Fatalf("Undo: %v", err)
				}
				if fi := wantBody(t, fs, "b", c.key, c.loc, "old"); fi != before {
					t.Fatalf("after Undo %+v, want %+v", fi, before)
				}
				wantNoVersion(t, fs, dir, "b", c.key, "v1")
				return
			}
			if err := u.Keep(); err != nil {
				t.Fatalf("Keep: %v", err)
			}
			wantBody(t, fs, "b", c.key, c.loc, "new")
			if fi := wantVersion(t, fs, "b", c.key, "v1", "old"); fi.Inode != before.Inode {
				t.Fatalf("version inode %d, want %d", fi.Inode, before.Inode)
			}
		})
	}
}

// TestPublishDemoteReplacesLeftover demotes a version whose VersionPath
// already holds a file, as a crash between link and rename leaves it (a
// stray file, or a link to the very file being demoted): the version is
// the replaced file afterwards, and nothing is left in staging.
func TestPublishDemoteReplacesLeftover(t *testing.T) {
	for _, sameInode := range []bool{false, true} {
		fs, dir := newTestFS(t, Options{})
		mustBucket(t, fs, "b")
		_, before := put(t, fs, "b", "k", []byte("old"), Natural)
		vf := versionFile(t, dir, "b", "k", "v1")
		if err := os.MkdirAll(filepath.Dir(vf), 0o700); err != nil {
			t.Fatal(err)
		}
		if sameInode {
			if err := os.Link(filepath.Join(dir, "b", "k"), vf); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(vf, []byte("leftover"), 0o644); err != nil {
			t.Fatal(err)
		}
		u, _, err := publish(t, fs, "b", "k", []byte("new"), Prior{Location: Natural, Exists: true, Demote: true, Version: "v1"})
		if err != nil {
			t.Fatalf("Publish: %v", err)
		}
		if err := u.Keep(); err != nil {
			t.Fatal(err)
		}
		wantBody(t, fs, "b", "k", Natural, "new")
		if fi := wantVersion(t, fs, "b", "k", "v1", "old"); fi.Inode != before.Inode {
			t.Fatalf("version inode %d, want %d", fi.Inode, before.Inode)
		}
	}
}

// TestPublishDemoteDirectory publishes a "folder/" key with bytes over
// the directory that kept it: a directory has no bytes to demote, so no
// version file appears, and Keep removes the directory as without Demote.
func TestPublishDemoteDirectory(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	mustBucket(t, fs, "b")
	put(t, fs, "b", "folder/", nil, Natural)
	u, loc, err := publish(t, fs, "b", "folder/", []byte("bytes"), Prior{Location: Directory, Exists: true, Demote: true, Version: "v1"})
	if err != nil || loc != Shadow {
		t.Fatalf("Publish: %v %v", loc, err)
	}
	if err := u.Keep(); err != nil {
		t.Fatal(err)
	}
	wantBody(t, fs, "b", "folder/", Shadow, "bytes")
	wantNoVersion(t, fs, dir, "b", "folder/", "v1")
	if _, err := os.Lstat(filepath.Join(dir, "b", "folder")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the directory after Keep: %v", err)
	}
}

// TestPublishDemoteWithoutLinks demotes a file whose link is refused with
// EPERM (fs.protected_hardlinks, a filesystem without hard links): the
// names are exchanged and the previous file renamed on to VersionPath, so
// Keep leaves it as the version and Undo puts it back.
func TestPublishDemoteWithoutLinks(t *testing.T) {
	for _, undo := range []bool{false, true} {
		fs, dir := newTestFS(t, Options{})
		mustBucket(t, fs, "b")
		_, before := put(t, fs, "b", "k", []byte("old"), Natural)
		fs.fault = nthFault("link", 1, syscall.EPERM)
		u, _, err := publish(t, fs, "b", "k", []byte("new"), Prior{Location: Natural, Exists: true, Demote: true, Version: "v1"})
		fs.fault = nil
		if err != nil {
			t.Fatalf("Publish: %v", err)
		}
		wantBody(t, fs, "b", "k", Natural, "new")
		if undo {
			if err := u.Undo(); err != nil {
				t.Fatal(err)
			}
			if fi := wantBody(t, fs, "b", "k", Natural, "old"); fi != before {
				t.Fatalf("after Undo %+v, want %+v", fi, before)
			}
			wantNoVersion(t, fs, dir, "b", "k", "v1")
			continue
		}
		if err := u.Keep(); err != nil {
			t.Fatal(err)
		}
		if fi := wantVersion(t, fs, "b", "k", "v1", "old"); fi.Inode != before.Inode {
			t.Fatalf("version inode %d, want %d", fi.Inode, before.Inode)
		}
	}
}

// TestImmutable runs where the store can set the immutable flag (root on
// ext4, XFS, Btrfs): a flagged file cannot be removed locally, and still
// Publish with Demote (Keep and Undo), Demote, Restore and RemoveVersion
// move it, leaving the flag set on the file wherever it went and on no
// other.
func TestImmutable(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	clearFlagsAtCleanup(t, dir)
	if ok, why := fs.ImmutableSupport(); !ok {
		t.Skipf("the immutable flag is not available here: %s", why)
	}
	mustBucket(t, fs, "b")
	key := filepath.Join(dir, "b", "d", "k")
	_, before := put(t, fs, "b", "d/k", []byte("locked"), Natural)
	if err := fs.SetImmutable("b", "d/k", Natural, "", true); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(key); !errors.Is(err, syscall.EPERM) {
		t.Fatalf("os.Remove of an immutable file: %v, want EPERM", err)
	}
	if !flagOf(t, key) {
		t.Fatal("SetImmutable(on) did not set the flag")
	}

	prior := Prior{Location: Natural, Exists: true, Demote: true, Version: "v1", Immutable: true}
	u, _, err := publish(t, fs, "b", "d/k", []byte("new"), prior)
	if err != nil {
		t.Fatalf("Publish over an immutable file: %v", err)
	}
	if err := u.Undo(); err != nil {
		t.Fatalf("Undo: %v", err)
	}
	if fi := wantBody(t, fs, "b", "d/k", Natural, "locked"); fi != before || !flagOf(t, key) {
		t.Fatalf("after Undo %+v (flag %v), want %+v flagged", fi, flagOf(t, key), before)
	}
	wantNoVersion(t, fs, dir, "b", "d/k", "v1")

	u, _, err = publish(t, fs, "b", "d/k", []byte("new"), prior)
	if err != nil {
		t.Fatalf("Publish over an immutable file: %v", err)
	}
	if err := u.Keep(); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	v1 := versionFile(t, dir, "b", "d/k", "v1")
	if fi := wantVersion(t, fs, "b", "d/k", "v1", "locked"); fi.Inode != before.Inode || !flagOf(t, v1) {
		t.Fatalf("version %+v (flag %v), want inode %d flagged", fi, flagOf(t, v1), before.Inode)
	}
	if flagOf(t, key) {
		t.Fatal("the new version carries the flag")
	}

	// The new version, locked too, goes behind a delete marker and back.
	if err := fs.SetImmutable("b", "d/k", Natural, "", true); err != nil {
		t.Fatal(err)
	}
	if err := fs.Demote("b", "d/k", Natural, "v2", true); err != nil {
		t.Fatalf("Demote of an immutable file: %v", err)
	}
	if v2 := versionFile(t, dir, "b", "d/k", "v2"); !flagOf(t, v2) {
		t.Fatal("the demoted version lost its flag")
	}
	if _, _, err := fs.Restore("b", "d/k", "v2", true); err != nil {
		t.Fatalf("Restore of an immutable version: %v", err)
	}
	if wantBody(t, fs, "b", "d/k", Natural, "new"); !flagOf(t, key) {
		t.Fatal("the restored version lost its flag")
	}

	for _, vid := range []string{"v1"} {
		if err := fs.RemoveVersion("b", "d/k", vid); err != nil {
			t.Fatalf("RemoveVersion of an immutable version: %v", err)
		}
		wantNoVersion(t, fs, dir, "b", "d/k", vid)
	}
	if err := fs.SetImmutable("b", "d/k", Natural, "", false); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(key); err != nil {
		t.Fatalf("os.Remove after SetImmutable(off): %v", err)
	}
}

// TestPublishDemoteFaults fails each step of a Publish with Demote (the
// link, the versions directory's fsync, the rename, the key directory's
// fsync): each returns the error and leaves the previous version at the
// key's path (the same inode) and nothing at VersionPath.
func TestPublishDemoteFaults(t *testing.T) {
	type step struct {
		op string
		n  int
	}
	for _, s := range []step{{"link", 1}, {"dirsync", 1}, {"rename", 1}, {"dirsync", 2}} {
		fs, dir := newTestFS(t, Options{})
		mustBucket(t, fs, "b")
		_, before := put(t, fs, "b", "d/k", []byte("old"), Natural)
		fs.fault = nthFault(s.op, s.n, syscall.ENOSPC)
		_, _, err := publish(t, fs, "b", "d/k", []byte("new"), Prior{Location: Natural, Exists: true, Demote: true, Version: "v1"})
		fs.fault = nil
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("%s #%d: Publish %v, want ENOSPC", s.op, s.n, err)
		}
		if fi := wantBody(t, fs, "b", "d/k", Natural, "old"); fi != before {
			t.Fatalf("%s #%d: %+v, want %+v", s.op, s.n, fi, before)
		}
		wantNoVersion(t, fs, dir, "b", "d/k", "v1")
	}
}

// TestImmutableLeftover demotes over an immutable file a crash left at
// VersionPath, by Publish and by Demote: rename refuses to replace an
// immutable file, so its flag is cleared first, and the version is the
// demoted file afterwards.
func TestImmutableLeftover(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	clearFlagsAtCleanup(t, dir)
	if ok, why := fs.ImmutableSupport(); !ok {
		t.Skipf("the immutable flag is not available here: %s", why)
	}
	mustBucket(t, fs, "b")
	leftover := func(vid string) {
		t.Helper()
		vf := versionFile(t, dir, "b", "k", vid)
		if err := os.MkdirAll(filepath.Dir(vf), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vf, []byte("leftover"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(vf)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := setImmutable(f, true); err != nil {
			t.Fatal(err)
		}
	}
	_, before := put(t, fs, "b", "k", []byte("old"), Natural)
	leftover("v1")
	u, _, err := publish(t, fs, "b", "k", []byte("new"), Prior{Location: Natural, Exists: true, Demote: true, Version: "v1"})
	if err != nil {
		t.Fatalf("Publish over an immutable leftover: %v", err)
	}
	if err := u.Keep(); err != nil {
		t.Fatal(err)
	}
	if fi := wantVersion(t, fs, "b", "k", "v1", "old"); fi.Inode != before.Inode {
		t.Fatalf("version inode %d, want %d", fi.Inode, before.Inode)
	}
	leftover("v2")
	if err := fs.Demote("b", "k", Natural, "v2", false); err != nil {
		t.Fatalf("Demote over an immutable leftover: %v", err)
	}
	wantVersion(t, fs, "b", "k", "v2", "new")
}
