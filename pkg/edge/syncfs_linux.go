package edge

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A flush of a cache disk whose file system holds nothing else makes the
// files of the entries it records durable with one syncfs(2), not an
// fsync(2) of each: the kernel's flusher threads write what is still
// dirty, outside the edge's process, and the device's cache is flushed
// once per flush rather than once per file (BenchmarkFlushSync, 100 KiB
// files on ext4: 0.06–0.4 of fsync's process CPU per file). Only there:
// syncfs writes out every dirty page of the file system, and on one the
// cache shares it would write other programs' files out early, every
// second. syncfs reports, once, a writeback error of any file of the file
// system that happened since the descriptor it is called on was opened
// (Linux 5.8 and later); attach opens that descriptor before any fill of
// the disk writes. When it reports one, each file is synced, at that
// flush and the later ones (see syncBatch), so that only a failure of the
// cache's own files counts against the disk.

// openSyncDir returns a descriptor of dir, a cache disk's directory, for
// syncFS, or nil when a flush syncs each file: dir's file system holds
// more than dir (ownFS), it is not a local one (a network or FUSE file
// system may not write everything out for a syncfs), or the kernel
// predates 5.8, whose syncfs does not report writeback errors.
func openSyncDir(dir string) *os.File {
	if !syncDirOK(dir) {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	return f
}

// syncDirOK is openSyncDir's test of dir and the kernel. Tests replace it.
var syncDirOK = func(dir string) bool {
	return kernelAtLeast(5, 8) && ownFS(dir, mountRoot) && localFS(dir)
}

// ownFS reports whether dir's file system holds nothing but dir: dir is
// the root of a mount (isRoot), or each directory from dir's parent up to
// the mount's root holds nothing but the way down to dir (and
// lost+found), as a disk mounted on /ssd1 with the cache in /ssd1/edge.
// A directory that is not a mount's root is on its parent's file system.
func ownFS(dir string, isRoot func(string) bool) bool {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for !isRoot(dir) {
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		names, err := readNames(parent)
		if err != nil {
			return false
		}
		for _, n := range names {
			if n != filepath.Base(dir) && n != "lost+found" {
				return false
			}
		}
		dir = parent
	}
	return true
}

// readNames returns the names in directory dir.
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// mountRoot reports whether dir is the root of a mount (statx's
// STATX_ATTR_MOUNT_ROOT, Linux 5.8 and later).
func mountRoot(dir string) bool {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, dir, 0, unix.STATX_BASIC_STATS, &st); err != nil {
		return false
	}
	return st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
}

// syncFS is syncfs(2) of the file system holding f. Tests replace it.
var syncFS = func(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if serr = unix.Syncfs(int(fd)); serr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return os.NewSyscallError("syncfs", serr)
	}
	return nil
}

// localFS reports whether dir is on a local file system whose page cache
// the kernel alone manages: ext4, XFS, Btrfs, F2FS or tmpfs.
func localFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		return true
	}
	return false
}

// kernelAtLeast reports whether the running kernel is version
// major.minor or later.
func kernelAtLeast(major, minor int) bool {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return false
	}
	return releaseAtLeast(unix.ByteSliceToString(u.Release[:]), major, minor)
}

// releaseAtLeast reports whether a kernel release string ("6.18.44-…")
// is version major.minor or later; false when it does not parse.
func releaseAtLeast(release string, major, minor int) bool {
	a, rest, ok := strings.Cut(release, ".")
	if !ok {
		return false
	}
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		rest = rest[:i]
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(rest)
	if err1 != nil || err2 != nil {
		return false
	}
	return x > major || x == major && y >= minor
}
