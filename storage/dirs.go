package storage

import (
	"errors"
	"os"
	"path"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ensureDir opens dir (relative to r), creating it and its missing parents
// first. Each created directory's parent is fsynced, so the new entry
// survives a crash along with the object below it.
//
// The slow path walks down with one descriptor per level (mkdirat, then
// openat of one component), so a key 500 segments deep costs O(depth)
// system calls rather than O(depth²) walks from the root. A component that
// is a symbolic link is opened through r instead, which follows it only
// while it stays inside r.
func (fs *FS) ensureDir(r *os.Root, dir string) (*os.File, error) {
	d, err := openDir(r, dir)
	if err == nil || !errors.Is(err, syscall.ENOENT) {
		return d, err
	}
	cur, err := openDir(r, ".")
	if err != nil {
		return nil, err
	}
	prefix := ""
	for seg := range strings.SplitSeq(dir, "/") {
		prefix = path.Join(prefix, seg)
		created := false
		err := withFd(cur, func(fd int) error {
			return ignoringEINTR(func() error { return unix.Mkdirat(fd, seg, 0o755) })
		})
		switch {
		case err == nil:
			created = true
		case err == syscall.EEXIST:
			// A directory already, a link, or a file that the open below
			// reports as ENOTDIR.
		default:
			cur.Close()
			return nil, &os.PathError{Op: "mkdirat", Path: prefix, Err: err}
		}
		if created && !fs.noSync {
			// The new entry lives in cur; persist it before anything is
			// placed below it.
			if err := cur.Sync(); err != nil {
				cur.Close()
				return nil, err
			}
		}
		next, err := openBelow(cur, seg)
		if errors.Is(err, syscall.ELOOP) {
			next, err = openDir(r, prefix)
		}
		cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// openBelow opens the directory name inside dir without following a
// symbolic link (ELOOP tells the caller to resolve it through the Root).
func openBelow(dir *os.File, name string) (*os.File, error) {
	var fd int
	err := withFd(dir, func(dfd int) error {
		return ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			return err
		})
	})
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: path.Join(dir.Name(), name), Err: err}
	}
	return os.NewFile(uintptr(fd), path.Join(dir.Name(), name)), nil
}

// prune removes dir and its parents while they are empty, stopping below
// the bucket directory (dir is relative to it). It is best effort: the
// first directory that is not empty, or already gone, ends it.
//
// It opens the chain of directories from the bucket down with O_NOFOLLOW
// (a link in the chain ends pruning there), then removes bottom-up with
// rmdir of one component in its parent's descriptor. A file that a
// concurrent Commit put where a pruned directory was is therefore never
// deleted, and a deep key costs O(depth) system calls.
func (fs *FS) prune(br *os.Root, bucket, dir string) {
	if dir == "." || dir == "" {
		return
	}
	cur, err := openDir(br, ".")
	if err != nil {
		return
	}
	chain := []*os.File{cur}
	defer func() {
		for _, f := range chain {
			f.Close()
		}
	}()
	segs := strings.Split(dir, "/")
	for _, seg := range segs[:len(segs)-1] {
		next, err := openBelow(chain[len(chain)-1], seg)
		if err != nil {
			return
		}
		chain = append(chain, next)
	}
	// chain[i] is the parent of segs[i].
	for i := len(segs) - 1; i >= 0; i-- {
		if fs.keepDir != nil && fs.keepDir(bucket, strings.Join(segs[:i+1], "/")) {
			// A folder object: it and everything above it stay.
			return
		}
		if err := fs.unlinkAt(chain[i], segs[i], unix.AT_REMOVEDIR); err != nil {
			return
		}
	}
}
