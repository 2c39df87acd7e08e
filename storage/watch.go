package storage

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// WalkDirs visits the directory dir of a bucket (a key prefix without its
// trailing "/", "" for the bucket directory itself) and every directory
// below it, parents first, for watch mode. Every component is opened with
// O_NOFOLLOW, one at a time from the bucket's os.Root, so a symbolic link
// is never entered and nothing outside the bucket (StateDir included) is
// ever visited.
//
// onDir is called with each directory's path relative to the bucket and
// the open directory (valid only during the call) before its entries are
// read, so that a watch added there sees every entry created afterwards
// while the listing sees every entry created before. onFile is then
// called with the key of each entry that is not a directory (regular
// files, links, anything else: the caller stats them). A directory that
// vanishes or cannot be read midway is skipped. An error from onDir or
// onFile stops the walk and is returned; WalkDirs returns ErrNotFound
// when the bucket or dir is missing (or is not a plain directory).
//
// The listing is read from a descriptor of the directory opened after
// onDir returns, not from the one onDir was given. POSIX leaves it
// unspecified whether readdir returns an entry added after the directory
// was opened, and btrfs (since Linux 6.5 and its stable backports)
// returns only the entries that existed at open: listing the first
// descriptor, an entry created between its open and onDir's watch would
// be seen by neither.
func (fs *FS) WalkDirs(bucket, dir string, onDir func(rel string, d *os.File) error, onFile func(key string) error) error {
	br, err := fs.bucketRoot(bucket)
	if err != nil {
		return err
	}
	defer br.Close()
	d, err := openDir(br, ".")
	if err != nil {
		return fs.mapErr(err)
	}
	if dir != "" {
		for _, seg := range strings.Split(dir, "/") {
			if !validSegment(seg) {
				d.Close()
				return &os.PathError{Op: "walkdirs", Path: dir, Err: syscall.EINVAL}
			}
			sub, err := openBelow(d, seg)
			d.Close()
			if err != nil {
				if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) {
					return ErrNotFound
				}
				return fs.mapErr(err)
			}
			d = sub
		}
	}
	defer d.Close()
	return walkDirs(d, dir, onDir, onFile)
}

func walkDirs(d *os.File, rel string, onDir func(string, *os.File) error, onFile func(string) error) error {
	if err := onDir(rel, d); err != nil {
		return err
	}
	list, err := openBelow(d, ".")
	if err != nil {
		return nil // removed since it was opened
	}
	ents, err := list.ReadDir(-1)
	list.Close()
	if err != nil {
		return nil
	}
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	for _, e := range ents {
		if !e.IsDir() {
			if err := onFile(prefix + e.Name()); err != nil {
				return err
			}
			continue
		}
		sub, err := openBelow(d, e.Name())
		if err != nil {
			continue // removed or replaced since ReadDir
		}
		err = walkDirs(sub, prefix+e.Name(), onDir, onFile)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
