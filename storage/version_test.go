package storage

import (
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/testfs"
)

// versionFile returns the absolute path of VersionPath(bucket, key, vid).
func versionFile(t *testing.T, dir, bucket, key, vid string) string {
	t.Helper()
	p, err := VersionPath(bucket, key, vid)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, p)
}

// wantVersion fails the test unless version vid of bucket/key holds body,
// and returns its FileInfo.
func wantVersion(t *testing.T, fs *FS, bucket, key, vid, body string) FileInfo {
	t.Helper()
	f, fi, err := fs.OpenVersion(bucket, key, vid)
	if err != nil {
		t.Fatalf("OpenVersion %q %q: %v", key, vid, err)
	}
	defer f.Close()
	b := make([]byte, fi.Size+1)
	n, _ := f.Read(b)
	if string(b[:n]) != body {
		t.Fatalf("version %q of %q holds %q, want %q", vid, key, b[:n], body)
	}
	if id, ok := fs.IdentifyVersion(bucket, key, vid); !ok || id != fi {
		t.Fatalf("IdentifyVersion = %+v %v, want %+v", id, ok, fi)
	}
	return fi
}

// wantNoVersion fails the test if version vid of bucket/key has a file.
func wantNoVersion(t *testing.T, fs *FS, dir, bucket, key, vid string) {
	t.Helper()
	if _, err := os.Lstat(versionFile(t, dir, bucket, key, vid)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("version %q of %q: %v, want no file", vid, key, err)
	}
	if _, ok := fs.IdentifyVersion(bucket, key, vid); ok {
		t.Fatalf("IdentifyVersion of a missing version is ok")
	}
}

// nthFault fails the n-th (from 1) call of op with errno.
func nthFault(op string, n int, errno syscall.Errno) func(string) error {
	seen := 0
	return func(got string) error {
		if got != op {
			return nil
		}
		seen++
		if seen == n {
			return errno
		}
		return nil
	}
}

func TestVersionPath(t *testing.T) {
	h := "8254c329a92850f6d539dd376f4816ee2764517da5e0235514af433164480d7a" // sha256("k")
	for _, c := range []struct {
		bucket, key, vid string
		want             string // "" for an error
	}{
		{"b", "k", "", versionsDir + "/b/82/" + h + ".null"},
		{"b", "k", "null", versionsDir + "/b/82/" + h + ".null"},
		{"b", "k", "3HL4kqtJlcpXroDTDmJ_rmSpXd3dIbrHY-", versionsDir + "/b/82/" + h + ".3HL4kqtJlcpXroDTDmJ_rmSpXd3dIbrHY-"},
		{"b", "k", strings.Repeat("v", 64), versionsDir + "/b/82/" + h + "." + strings.Repeat("v", 64)},
		{"b", "k", strings.Repeat("v", 65), ""},
		{"b", "k", "../x", ""},
		{"b", "k", "a/b", ""},
		{"b", "k", "a.b", ""},
		{"b", "k", ".", ""},
		{"b", "k", "v\x00", ""},
		{"b", "k", "vé", ""},
		{".objectgateway", "k", "v", ""},
		{"..", "k", "v", ""},
		{"a/b", "k", "v", ""},
		{"", "k", "v", ""},
	} {
		got, err := VersionPath(c.bucket, c.key, c.vid)
		if c.want == "" {
			if !errors.Is(err, syscall.EINVAL) {
				t.Errorf("VersionPath(%q, %q, %q) = %q, %v; want EINVAL", c.bucket, c.key, c.vid, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("VersionPath(%q, %q, %q) = %q, %v; want %q", c.bucket, c.key, c.vid, got, err, c.want)
		}
	}
	if Noncurrent != 3 || Noncurrent.String() != "noncurrent" {
		t.Errorf("Noncurrent = %d %q", Noncurrent, Noncurrent)
	}
}

// TestDemoteRestore demotes the current version of natural, nested and
// shadowed keys, as a DELETE that writes a delete marker does, and
// restores it: the file (the same inode) moves to VersionPath and back,
// the natural parents left empty are pruned and created again, the
// version survives a reopen of the store (whose staging clean-up leaves
// the versions area alone), and Restore reports the location it chose.
func TestDemoteRestore(t *testing.T) {
	long := strings.Repeat("s", 300)
	for _, c := range []struct {
		name, key string
		loc       Location
		pruned    string // a natural parent directory Demote removes
	}{
		{"natural", "k", Natural, ""},
		{"nested", "a/b/c", Natural, "a"},
		{"shadow", "a/" + long, Shadow, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			fs, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { fs.Close() }()
			mustBucket(t, fs, "b")
			loc, before := put(t, fs, "b", c.key, []byte("body"), Natural)
			if loc != c.loc {
				t.Fatalf("at %v, want %v", loc, c.loc)
			}
			if err := fs.Demote("b", c.key, loc, "v1", false); err != nil {
				t.Fatalf("Demote: %v", err)
			}
			if _, _, err := fs.Open("b", c.key, loc); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Open after Demote: %v", err)
			}
			if c.pruned != "" {
				if _, err := os.Lstat(filepath.Join(root, "b", c.pruned)); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("%s after Demote: %v", c.pruned, err)
				}
			}
			fs.Close()
			if fs, err = Open(root, Options{}); err != nil {
				t.Fatal(err)
			}
			if fi := wantVersion(t, fs, "b", c.key, "v1", "body"); fi != before {
				t.Fatalf("version %+v, want %+v", fi, before)
			}
			got, fi, err := fs.Restore("b", c.key, "v1", false)
			if err != nil || got != c.loc || fi != before {
				t.Fatalf("Restore = %v %+v %v, want %v %+v", got, fi, err, c.loc, before)
			}
			if fi := wantBody(t, fs, "b", c.key, c.loc, "body"); fi != before {
				t.Fatalf("after Restore %+v, want %+v", fi, before)
			}
			wantNoVersion(t, fs, root, "b", c.key, "v1")
			if err := fs.Demote("b", c.key, loc, "v1", false); err != nil {
				t.Fatalf("second Demote: %v", err)
			}
			if err := fs.Demote("b", c.key, loc, "v2", false); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Demote of a missing file: %v, want ErrNotFound", err)
			}
		})
	}
}

// TestRestoreRefusesToReplace restores a version while a file is at the
// key's path (natural and shadow): Restore fails with ErrExists and both
// files stay as they were.
func TestRestoreRefusesToReplace(t *testing.T) {
	for _, key := range []string{"d/k", "d/" + strings.Repeat("s", 300)} {
		fs, dir := newTestFS(t, Options{})
		mustBucket(t, fs, "b")
		loc, _ := put(t, fs, "b", key, []byte("old"), Natural)
		if err := fs.Demote("b", key, loc, "v1", false); err != nil {
			t.Fatal(err)
		}
		put(t, fs, "b", key, []byte("current"), loc)
		if _, _, err := fs.Restore("b", key, "v1", false); !errors.Is(err, ErrExists) {
			t.Fatalf("Restore over a file: %v, want ErrExists", err)
		}
		wantBody(t, fs, "b", key, loc, "current")
		wantVersion(t, fs, "b", key, "v1", "old")
		if err := fs.RemoveVersion("b", key, "v1"); err != nil {
			t.Fatal(err)
		}
		wantNoVersion(t, fs, dir, "b", key, "v1")
		if _, _, err := fs.Restore("b", key, "v1", false); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Restore of a missing version: %v, want ErrNotFound", err)
		}
	}
}

// TestRestoreToShadowOnCollision restores a version of "a" while "a" is
// the directory of another key: it lands in the shadow area, as Commit
// would put it.
func TestRestoreToShadowOnCollision(t *testing.T) {
	fs, _ := newTestFS(t, Options{})
	mustBucket(t, fs, "b")
	put(t, fs, "b", "a", []byte("a"), Natural)
	if err := fs.Demote("b", "a", Natural, "v1", false); err != nil {
		t.Fatal(err)
	}
	put(t, fs, "b", "a/b", []byte("below"), Natural)
	loc, _, err := fs.Restore("b", "a", "v1", false)
	if err != nil || loc != Shadow {
		t.Fatalf("Restore = %v %v, want shadow", loc, err)
	}
	wantBody(t, fs, "b", "a", Shadow, "a")
	wantBody(t, fs, "b", "a/b", Natural, "below")
}

// TestDemoteDirectory demotes "folder/" keys kept as directories: nothing
// is moved, an empty directory is removed and one with objects below it
// stays.
func TestDemoteDirectory(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	mustBucket(t, fs, "b")
	put(t, fs, "b", "empty/", nil, Natural)
	put(t, fs, "b", "full/", nil, Natural)
	put(t, fs, "b", "full/k", []byte("k"), Natural)
	for _, key := range []string{"empty/", "full/"} {
		if err := fs.Demote("b", key, Directory, "v1", false); err != nil {
			t.Fatalf("Demote %q: %v", key, err)
		}
		wantNoVersion(t, fs, dir, "b", key, "v1")
	}
	if _, err := os.Lstat(filepath.Join(dir, "b", "empty")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("empty/ after Demote: %v", err)
	}
	wantBody(t, fs, "b", "full/k", Natural, "k")
}

// TestVersionLocationsElsewhere checks that Open, Identify and Remove send
// a Noncurrent location to the *Version functions instead of guessing a
// path, and that an invalid version id never reaches the filesystem.
func TestVersionLocationsElsewhere(t *testing.T) {
	fs, _ := newTestFS(t, Options{})
	mustBucket(t, fs, "b")
	if _, _, err := fs.Open("b", "k", Noncurrent); err == nil {
		t.Error("Open of a Noncurrent location succeeded")
	}
	if _, ok := fs.Identify("b", "k", Noncurrent); ok {
		t.Error("Identify of a Noncurrent location is ok")
	}
	if err := fs.Remove("b", "k", Noncurrent); err == nil {
		t.Error("Remove of a Noncurrent location succeeded")
	}
	for name, err := range map[string]error{
		"OpenVersion":   func() error { _, _, err := fs.OpenVersion("b", "k", "../../x"); return err }(),
		"RemoveVersion": fs.RemoveVersion("b", "k", "../../x"),
		"Demote":        fs.Demote("b", "k", Natural, "../../x", false),
		"Restore":       func() error { _, _, err := fs.Restore("b", "k", "../../x", false); return err }(),
	} {
		if !errors.Is(err, syscall.EINVAL) {
			t.Errorf("%s with an invalid version id: %v, want EINVAL", name, err)
		}
	}
}

// TestVersionFaults fails each step of a Demote and a Restore (each
// rename and each directory fsync): every one returns the
// error and leaves the state before the call, the same inode at the same
// path, and nothing at the other.
func TestVersionFaults(t *testing.T) {
	type step struct {
		op string
		n  int
	}
	steps := func(ss ...step) []step { return ss }
	t.Run("Demote", func(t *testing.T) {
		for _, s := range steps(step{"rename", 1}, step{"dirsync", 1}, step{"dirsync", 2}) {
			fs, dir := newTestFS(t, Options{})
			mustBucket(t, fs, "b")
			_, before := put(t, fs, "b", "d/k", []byte("old"), Natural)
			fs.fault = nthFault(s.op, s.n, syscall.EIO)
			err := fs.Demote("b", "d/k", Natural, "v1", false)
			fs.fault = nil
			if !errors.Is(err, syscall.EIO) {
				t.Fatalf("%s #%d: Demote %v, want EIO", s.op, s.n, err)
			}
			if fi := wantBody(t, fs, "b", "d/k", Natural, "old"); fi != before {
				t.Fatalf("%s #%d: %+v, want %+v", s.op, s.n, fi, before)
			}
			wantNoVersion(t, fs, dir, "b", "d/k", "v1")
		}
	})
	t.Run("Restore", func(t *testing.T) {
		for _, s := range steps(step{"rename", 1}, step{"dirsync", 1}, step{"dirsync", 2}) {
			fs, dir := newTestFS(t, Options{})
			mustBucket(t, fs, "b")
			_, before := put(t, fs, "b", "d/k", []byte("old"), Natural)
			if err := fs.Demote("b", "d/k", Natural, "v1", false); err != nil {
				t.Fatal(err)
			}
			fs.fault = nthFault(s.op, s.n, syscall.EIO)
			_, _, err := fs.Restore("b", "d/k", "v1", false)
			fs.fault = nil
			if !errors.Is(err, syscall.EIO) {
				t.Fatalf("%s #%d: Restore %v, want EIO", s.op, s.n, err)
			}
			if fi := wantVersion(t, fs, "b", "d/k", "v1", "old"); fi != before {
				t.Fatalf("%s #%d: %+v, want %+v", s.op, s.n, fi, before)
			}
			if _, err := os.Lstat(filepath.Join(dir, "b", "d", "k")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s #%d: key path after the fault: %v", s.op, s.n, err)
			}
		}
	})
}

// TestBucketVersionsDir checks that UnmakeBucket and RemoveBucket remove
// a bucket's empty versions directory and leave one that holds a file.
func TestBucketVersionsDir(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	vdir := func(b string) string { return filepath.Join(dir, versionsBucketDir(b)) }
	for _, b := range []string{"empty", "full"} {
		mustBucket(t, fs, b)
		put(t, fs, b, "k", []byte("k"), Natural)
		if err := fs.Demote(b, "k", Natural, "v1", false); err != nil {
			t.Fatal(err)
		}
	}
	if err := fs.RemoveVersion("empty", "k", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := fs.UnmakeBucket("empty"); err != nil {
		t.Fatalf("UnmakeBucket: %v", err)
	}
	if _, err := os.Lstat(vdir("empty")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("versions directory after UnmakeBucket: %v", err)
	}
	if err := fs.RemoveBucket("full"); err != nil {
		t.Fatalf("RemoveBucket: %v", err)
	}
	wantVersion(t, fs, "full", "k", "v1", "k")
	if err := fs.RemoveVersion("full", "k", "v1"); err != nil {
		t.Fatal(err)
	}
	mustBucket(t, fs, "full")
	if err := fs.RemoveBucket("full"); err != nil {
		t.Fatalf("RemoveBucket: %v", err)
	}
	if _, err := os.Lstat(vdir("full")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("versions directory after RemoveBucket: %v", err)
	}
}

// clearFlagsAtCleanup clears the immutable flag of every regular file
// under dir when the test ends, so that the temp directory can be removed.
// On a filesystem without file flags (ramfs) there is none to clear.
func clearFlagsAtCleanup(t *testing.T, dir string) {
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if f, err := os.Open(p); err == nil {
				err := setImmutable(f, false)
				if errors.Is(err, syscall.ENOTTY) || errors.Is(err, syscall.EOPNOTSUPP) {
					err = nil
				}
				if err != nil {
					t.Errorf("clear the immutable flag of %s: %v", p, err)
				}
				f.Close()
			}
			return nil
		})
	})
}

// flagOf reads the immutable flag of the file p back (FS_IOC_GETFLAGS).
func flagOf(t *testing.T, p string) bool {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	on, err := isImmutable(f)
	if errors.Is(err, syscall.ENOTTY) || errors.Is(err, syscall.EOPNOTSUPP) {
		return false // A filesystem without flags has none set.
	}
	if err != nil {
		t.Fatal(err)
	}
	return on
}

// TestImmutableUnsupportedFilesystem opens a store on a filesystem without
// file flags (ramfs): ImmutableSupport says so and why, SetImmutable
// returns ErrImmutableUnsupported, and publishing, demoting, restoring
// and removing a version told to be immutable work without the flag.
func TestImmutableUnsupportedFilesystem(t *testing.T) {
	fs, dir := newTestFSIn(t, testfs.Dir(t, testfs.Ramfs), Options{})
	clearFlagsAtCleanup(t, dir)
	if ok, why := fs.ImmutableSupport(); ok || !strings.Contains(why, "does not support") {
		t.Fatalf("ImmutableSupport on ramfs = %v, %q; want false, the filesystem does not support it", ok, why)
	}
	mustBucket(t, fs, "b")
	put(t, fs, "b", "k", []byte("v1"), Natural)
	if err := fs.SetImmutable("b", "k", Natural, "", true); !errors.Is(err, ErrImmutableUnsupported) {
		t.Fatalf("SetImmutable on ramfs: %v, want ErrImmutableUnsupported", err)
	}
	prior := Prior{Location: Natural, Exists: true, Demote: true, Version: "v1", Immutable: true}
	u, _, err := publish(t, fs, "b", "k", []byte("v2"), prior)
	if err != nil {
		t.Fatalf("Publish with an immutable demotion: %v", err)
	}
	if err := u.Keep(); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	wantVersion(t, fs, "b", "k", "v1", "v1")
	if err := fs.Demote("b", "k", Natural, "v2", true); err != nil {
		t.Fatalf("Demote with the immutable flag: %v", err)
	}
	loc, _, err := fs.Restore("b", "k", "v1", true)
	if err != nil {
		t.Fatalf("Restore with the immutable flag: %v", err)
	}
	wantBody(t, fs, "b", "k", loc, "v1")
	if err := fs.RemoveVersion("b", "k", "v2"); err != nil {
		t.Fatalf("RemoveVersion: %v", err)
	}
}

// TestImmutableIgnoredWithoutSupport checks that the immutable arguments
// make no ioctl when the store has no support: a Demote told the file is
// immutable leaves it unflagged, and SetImmutable says why it cannot.
func TestImmutableIgnoredWithoutSupport(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	clearFlagsAtCleanup(t, dir)
	fs.immutableOK, fs.immutableWhy = false, "turned off by the test"
	mustBucket(t, fs, "b")
	put(t, fs, "b", "k", []byte("k"), Natural)
	if err := fs.SetImmutable("b", "k", Natural, "", true); !errors.Is(err, ErrImmutableUnsupported) {
		t.Fatalf("SetImmutable without support: %v", err)
	}
	if err := fs.Demote("b", "k", Natural, "v1", true); err != nil {
		t.Fatal(err)
	}
	if flagOf(t, versionFile(t, dir, "b", "k", "v1")) {
		t.Fatal("a store without support set the flag")
	}
}
