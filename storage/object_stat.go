package storage

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// FileStat returns the FileInfo of an open file.
func FileStat(f *os.File) (FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return FileInfo{}, err
	}
	return fileInfo(st), nil
}

// Identify returns the FileInfo of the regular file now at the path of the
// object bucket/key stored at loc, without opening it for reading: the
// bucket's lstat that every read pays (readRoot), then one fstatat from
// the bucket's cached directory for a key of one segment, or an O_PATH
// openat2 that may not leave the directory nor cross any symbolic link,
// and its fstat, for a longer key or a shadow-area path. That is less than
// half of what Open costs, and it is what a HEAD and a hit of the
// hot-object cache pay.
//
// Identify is stricter than Open: a symbolic link anywhere on the path,
// which Open follows when it stays inside the bucket, makes ok false, as
// does a missing file, anything but a regular file, a bucket directory
// that is not the one cached (moved, replaced, turned into a link), or a
// kernel without openat2. The caller then settles the question through
// Open. Its result only confirms a record the caller holds: same size,
// mtime and inode. A Noncurrent location makes ok false: its file is
// identified with IdentifyVersion, which takes the version id.
func (fs *FS) Identify(bucket, key string, loc Location) (fi FileInfo, ok bool) {
	var dir *os.File
	var name string
	switch loc {
	case Natural:
		if _, ok := NaturalPath(bucket, key); !ok {
			return FileInfo{}, false
		}
		cr, release, err := fs.readCached(bucket)
		if err != nil {
			return FileInfo{}, false
		}
		defer release()
		dir, name = cr.dir, key
	case Shadow:
		if !validBucket(bucket) {
			return FileInfo{}, false
		}
		dir, name = fs.rootDir, ShadowPath(bucket, key)
	default:
		return FileInfo{}, false
	}
	var st unix.Stat_t
	if err := withFd(dir, func(fd int) error { return statBeneath(fd, name, &st) }); err != nil ||
		st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileInfo{}, false
	}
	return FileInfo{Size: st.Size, Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Inode: st.Ino}, true
}

// statBeneath stats name below the directory dirfd without following any
// symbolic link: a name of one segment with fstatat(AT_SYMLINK_NOFOLLOW);
// a longer one through openat2(O_PATH|O_NOFOLLOW, RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS), which fails with ELOOP or EXDEV rather than leave
// dirfd or cross a link (a link as the last segment is opened as itself),
// and fstat.
func statBeneath(dirfd int, name string, st *unix.Stat_t) error {
	if !strings.Contains(name, "/") {
		return ignoringEINTR(func() error { return unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW) })
	}
	how := unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
	}
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat2(dirfd, name, &how)
		return err
	})
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fstat(fd, st)
}
