package storage

import (
	"os"

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
// object bucket/key stored at loc, with a single fstatat(2) from the
// gateway's root directory: no Root walk, no open, no lstat of the bucket.
// That is a fraction of the cost of Open, and it is what a HEAD and a hit
// of the hot-object cache pay.
//
// Unlike Open, Identify does not confine the path to its
// bucket: a symbolic link planted as a directory of the path is followed
// wherever it leads (a link as the last component is not followed, and is
// no regular file). Its result is therefore fit only to confirm a record
// the caller already holds — same size, mtime and inode as the file the
// gateway wrote or imported, so the very file whose bytes the record
// describes — and never to decide that bytes may be read: what Identify
// reports reveals nothing but that record. ok is false when there is no
// regular file at the path or the stat fails; the caller then settles the
// question through Open.
func (fs *FS) Identify(bucket, key string, loc Location) (fi FileInfo, ok bool) {
	var name string
	switch loc {
	case Natural:
		if name, ok = NaturalPath(bucket, key); !ok {
			return FileInfo{}, false
		}
	case Shadow:
		if !validBucket(bucket) {
			return FileInfo{}, false
		}
		name = ShadowPath(bucket, key)
	default:
		return FileInfo{}, false
	}
	var st unix.Stat_t
	err := withFd(fs.rootDir, func(fd int) error {
		return ignoringEINTR(func() error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	})
	if err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileInfo{}, false
	}
	return FileInfo{Size: st.Size, Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Inode: st.Ino}, true
}
