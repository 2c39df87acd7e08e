package storage

import (
	"os"
	"syscall"
)

// ChownBucket gives the bucket's directory a numeric owner, without
// following a symbolic link of that name. The object layer calls it for
// buckets created by a user mapped to a POSIX owner.
func (fs *FS) ChownBucket(name string, uid, gid int) error {
	if !validBucket(name) {
		return &os.PathError{Op: "chown", Path: name, Err: syscall.EINVAL}
	}
	return fs.root.Lchown(name, uid, gid)
}
