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
// predates 5.17, whose syncfs does not report all the errors an fsync
// would.
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
	return kernelAtLeast(5, 17) && ownFS(dir, wholeMountRoot) && localFS(dir)
}

// cacheNames are the names a cache disk's directory holds (attach's data
// directory and catalogue, the probe's file), and lost+found.
var cacheNames = map[string]bool{"data": true, "catalog.db": true, ".probe": true, "lost+found": true}

// ownFS reports whether dir's file system holds nothing but the cache in
// dir: dir, its links resolved, holds nothing but cacheNames, and either
// it is the root of a whole file system's mount (isRoot), or each
// directory from its parent up to that root holds nothing but the way
// down to dir (and lost+found), as a disk mounted on /ssd1 with the cache
// in /ssd1/edge. A directory that is not a mount's root is on its
// parent's file system.
func ownFS(dir string, isRoot func(string) bool) bool {
	dir, err := filepath.Abs(dir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil || !onlyNames(dir, func(n string) bool { return cacheNames[n] }) {
		return false
	}
	for !isRoot(dir) {
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		base := filepath.Base(dir)
		if !onlyNames(parent, func(n string) bool { return n == base || n == "lost+found" }) {
			return false
		}
		dir = parent
	}
	return true
}

// onlyNames reports whether every name in directory dir is one ok allows.
func onlyNames(dir string, ok func(string) bool) bool {
	names, err := readNames(dir)
	if err != nil {
		return false
	}
	for _, n := range names {
		if !ok(n) {
			return false
		}
	}
	return true
}

// wholeMountRoot reports whether dir is the root of a mount of a whole
// file system: a mount's root (mountRoot) whose line in
// /proc/self/mountinfo has "/" as the root within its file system. A
// bind mount of a directory (a container's volume) or a Btrfs subvolume
// mounted on its own shows that directory there: the file system holds
// more than the mount.
func wholeMountRoot(dir string) bool {
	if !mountRoot(dir) {
		return false
	}
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, dir, 0, unix.STATX_MNT_ID, &st); err != nil || st.Mask&unix.STATX_MNT_ID == 0 {
		return false
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	return mountInfoRoot(string(b), st.Mnt_id) == "/"
}

// mountInfoRoot returns the root within its file system of the mount
// with id in a /proc/self/mountinfo listing ("" when absent).
func mountInfoRoot(mountinfo string, id uint64) string {
	want := strconv.FormatUint(id, 10)
	for line := range strings.Lines(mountinfo) {
		// mount ID, parent ID, major:minor, root, mount point, ...
		if f := strings.Fields(line); len(f) > 4 && f[0] == want {
			return f[3]
		}
	}
	return ""
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
