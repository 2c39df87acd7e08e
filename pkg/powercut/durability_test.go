package powercut

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnsyncedDataIsLost: data written after a file's last fsync is gone
// after a cut, its size included.
func TestUnsyncedDataIsLost(t *testing.T) {
	f := mount(t)
	p := join(f, "a")
	writeSynced(t, p, "synced")
	syncPath(t, f.Path())
	writeFile(t, p, "not synced, and longer")
	cut(t, f)
	wantContent(t, p, "synced")
}

// TestNameWithoutDataComesBackEmpty: a file whose name was made durable
// but whose data never was comes back empty.
func TestNameWithoutDataComesBackEmpty(t *testing.T) {
	f := mount(t)
	p := join(f, "a")
	writeFile(t, p, "never synced")
	syncPath(t, f.Path())
	cut(t, f)
	wantContent(t, p, "")
}

// TestSyncedDataSurvives: a file fsynced, its directory fsynced, comes
// back with its data, inode number and mtime.
func TestSyncedDataSurvives(t *testing.T) {
	f := mount(t)
	p := join(f, "a")
	writeSynced(t, p, "durable")
	syncPath(t, f.Path())
	var before syscall.Stat_t
	if err := syscall.Stat(p, &before); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	wantContent(t, p, "durable")
	var after syscall.Stat_t
	if err := syscall.Stat(p, &after); err != nil {
		t.Fatal(err)
	}
	if after.Ino != before.Ino || after.Mtim != before.Mtim || after.Size != before.Size {
		t.Fatalf("after the cut ino %d mtime %v size %d, want %d %v %d",
			after.Ino, after.Mtim, after.Size, before.Ino, before.Mtim, before.Size)
	}
}

// TestNewNameNeedsParentSync: a file fsynced in a directory that is not is
// gone after a cut, and so is a directory whose parent was not fsynced,
// with everything in it.
func TestNewNameNeedsParentSync(t *testing.T) {
	f := mount(t)
	writeSynced(t, join(f, "file"), "synced data")
	if err := os.Mkdir(join(f, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSynced(t, join(f, "dir", "inner"), "synced data")
	syncPath(t, join(f, "dir"))
	if err := os.Symlink("file", join(f, "link")); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	wantMissing(t, join(f, "file"))
	wantMissing(t, join(f, "dir"))
	wantMissing(t, join(f, "link"))
}

// TestDirectoryBelowSyncedParent: a directory whose entry is durable
// brings back the entries it had when it was itself fsynced, and a symlink
// comes back with its target.
func TestDirectoryBelowSyncedParent(t *testing.T) {
	f := mount(t)
	if err := os.MkdirAll(join(f, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSynced(t, join(f, "a", "b", "c"), "deep")
	if err := os.Symlink("b/c", join(f, "a", "link")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, join(f, "a", "b"))
	syncPath(t, join(f, "a"))
	syncPath(t, f.Path())
	writeSynced(t, join(f, "a", "b", "late"), "its directory is not synced again")
	cut(t, f)
	wantContent(t, join(f, "a", "b", "c"), "deep")
	wantContent(t, join(f, "a", "link"), "deep")
	wantMissing(t, join(f, "a", "b", "late"))
}

// TestRenameNeedsDirSync: a rename that its directory did not fsync is
// undone by a cut: the old name is back, the new one gone.
func TestRenameNeedsDirSync(t *testing.T) {
	f := mount(t)
	writeSynced(t, join(f, "old"), "bytes")
	syncPath(t, f.Path())
	if err := os.Rename(join(f, "old"), join(f, "new")); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	wantContent(t, join(f, "old"), "bytes")
	wantMissing(t, join(f, "new"))

	if err := os.Rename(join(f, "old"), join(f, "new")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, f.Path())
	cut(t, f)
	wantContent(t, join(f, "new"), "bytes")
	wantMissing(t, join(f, "old"))
}

// TestRenameOverNeedsDirSync: a file renamed over another without a
// directory fsync leaves the replaced file after a cut.
func TestRenameOverNeedsDirSync(t *testing.T) {
	f := mount(t)
	writeSynced(t, join(f, "key"), "old version")
	syncPath(t, f.Path())
	writeSynced(t, join(f, "tmp"), "new version")
	if err := os.Rename(join(f, "tmp"), join(f, "key")); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	wantContent(t, join(f, "key"), "old version")
	wantMissing(t, join(f, "tmp"))
}

// TestRenameAcrossDirectories: the name leaves the source when the source
// is fsynced and appears at the target when the target is: with only the
// target synced the file has both names, with only the source neither.
func TestRenameAcrossDirectories(t *testing.T) {
	f := mount(t)
	for _, d := range []string{"src", "dst"} {
		if err := os.Mkdir(join(f, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeSynced(t, join(f, "src", "x"), "x")
	writeSynced(t, join(f, "src", "y"), "y")
	syncPath(t, join(f, "src"))
	syncPath(t, join(f, "dst"))
	syncPath(t, f.Path())

	if err := os.Rename(join(f, "src", "x"), join(f, "dst", "x")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, join(f, "dst"))
	cut(t, f)
	wantContent(t, join(f, "src", "x"), "x")
	wantContent(t, join(f, "dst", "x"), "x")
	if a, b := inodeOf(t, join(f, "src", "x")), inodeOf(t, join(f, "dst", "x")); a != b {
		t.Fatalf("the two names of x are inodes %d and %d, want one inode", a, b)
	}

	if err := os.Rename(join(f, "src", "y"), join(f, "dst", "y")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, join(f, "src"))
	cut(t, f)
	wantMissing(t, join(f, "src", "y"))
	wantMissing(t, join(f, "dst", "y"))
}

// TestUnlinkNeedsDirSync: an unlink its directory did not fsync is undone
// by a cut, with the file's data.
func TestUnlinkNeedsDirSync(t *testing.T) {
	f := mount(t)
	writeSynced(t, join(f, "a"), "kept")
	writeSynced(t, join(f, "b"), "removed")
	syncPath(t, f.Path())
	if err := os.Remove(join(f, "a")); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	wantContent(t, join(f, "a"), "kept")

	if err := os.Remove(join(f, "b")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, f.Path())
	cut(t, f)
	wantMissing(t, join(f, "b"))
}

// TestHardLinks: a link's name needs its directory's fsync, but the data
// is the inode's: an fsync through one name makes it durable for all.
func TestHardLinks(t *testing.T) {
	f := mount(t)
	if err := os.Mkdir(join(f, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSynced(t, join(f, "a"), "one")
	syncPath(t, f.Path())
	if err := os.Link(join(f, "a"), join(f, "d", "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(join(f, "a"), join(f, "c")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, join(f, "d"))
	syncPath(t, f.Path())
	writeSynced(t, join(f, "d", "b"), "two")
	if err := os.Link(join(f, "a"), join(f, "unsynced")); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	for _, p := range []string{join(f, "a"), join(f, "d", "b"), join(f, "c")} {
		wantContent(t, p, "two")
	}
	wantMissing(t, join(f, "unsynced"))
	if a, b := inodeOf(t, join(f, "a")), inodeOf(t, join(f, "d", "b")); a != b {
		t.Fatalf("links a and d/b are inodes %d and %d after the cut, want one", a, b)
	}
	// The links are still one inode on the rebuilt tree.
	writeFile(t, join(f, "c"), "three")
	wantContent(t, join(f, "a"), "three")
}

// TestSyncMakesEverythingDurable: FS.Sync, the model's syncfs, makes every
// name and all data durable.
func TestSyncMakesEverythingDurable(t *testing.T) {
	f := mount(t)
	if err := os.MkdirAll(join(f, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, join(f, "a", "b", "c"), "c")
	writeFile(t, join(f, "top"), "top")
	if err := os.Link(join(f, "top"), join(f, "a", "top")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	wantContent(t, join(f, "a", "b", "c"), "c")
	wantContent(t, join(f, "top"), "top")
	wantContent(t, join(f, "a", "top"), "top")
}

// TestCorrectWriteSurvives: the gateway's order for a new key — create
// its directory and fsync the parent, write a staged file and fsync it,
// rename it into place and fsync the directory — survives a cut, while a
// later overwrite that skips the final directory fsync does not.
func TestCorrectWriteSurvives(t *testing.T) {
	f := mount(t)
	for _, d := range []string{"staging", "bucket"} {
		if err := os.Mkdir(join(f, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	syncPath(t, f.Path())
	if err := os.Mkdir(join(f, "bucket", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	syncPath(t, join(f, "bucket"))
	writeSynced(t, join(f, "staging", "tmp1"), "version 1")
	if err := os.Rename(join(f, "staging", "tmp1"), join(f, "bucket", "dir", "key")); err != nil {
		t.Fatal(err)
	}
	syncPath(t, join(f, "bucket", "dir"))

	writeSynced(t, join(f, "staging", "tmp2"), "version 2")
	if err := os.Rename(join(f, "staging", "tmp2"), join(f, "bucket", "dir", "key")); err != nil {
		t.Fatal(err)
	}
	cut(t, f)
	wantContent(t, join(f, "bucket", "dir", "key"), "version 1")
	wantMissing(t, join(f, "staging", "tmp1"))
	wantMissing(t, join(f, "staging", "tmp2"))
}

// TestOwnerAndModeSurvive: a file's owner and mode as of its last fsync
// come back after a cut.
func TestOwnerAndModeSurvive(t *testing.T) {
	f := mount(t)
	p := join(f, "a")
	writeFile(t, p, "owned")
	if err := os.Chown(p, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	syncPath(t, p)
	syncPath(t, f.Path())
	cut(t, f)
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	if st.Uid != 1234 || st.Gid != 5678 || st.Mode&0o777 != 0o640 {
		t.Fatalf("after the cut uid %d gid %d mode %o, want 1234 5678 640", st.Uid, st.Gid, st.Mode&0o777)
	}
}

// TestRenameFlags: renameat2 with RENAME_NOREPLACE and RENAME_EXCHANGE
// (the gateway uses both) pass through, and an exchange is durable with
// its directory's fsync.
func TestRenameFlags(t *testing.T) {
	f := mount(t)
	writeSynced(t, join(f, "a"), "a")
	writeSynced(t, join(f, "b"), "b")
	syncPath(t, f.Path())
	if err := unix.Renameat2(unix.AT_FDCWD, join(f, "a"), unix.AT_FDCWD, join(f, "b"), unix.RENAME_NOREPLACE); !errors.Is(err, syscall.EEXIST) {
		t.Fatalf("RENAME_NOREPLACE over a file: %v, want EEXIST", err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, join(f, "a"), unix.AT_FDCWD, join(f, "b"), unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	syncPath(t, f.Path())
	cut(t, f)
	wantContent(t, join(f, "a"), "b")
	wantContent(t, join(f, "b"), "a")
}
