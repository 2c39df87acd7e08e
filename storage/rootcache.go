package storage

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// rootCache keeps the bucket Roots that reads use, so a GET does not open,
// stat and close its bucket's directory every time: it costs one lstat of
// the bucket's entry instead, which is what keeps the cached Root honest.
// A cached Root is used only while the entry under the data root is still
// a directory with the same device and inode; the cached descriptor keeps
// that inode alive, so the number cannot be reused by another directory.
// A bucket directory that was replaced, renamed over or turned into a
// symbolic link is opened afresh (and refused, for a link), exactly as
// bucketRoot does.
type rootCache struct {
	mu sync.Mutex
	m  map[string]*cachedRoot
}

type cachedRoot struct {
	root     *os.Root
	dir      *os.File // the bucket directory itself, for Identify
	dev, ino uint64
	refs     int  // users of root; guarded by rootCache.mu
	stale    bool // replaced in the map; closed when refs drops to 0
}

// readRoot returns the bucket's Root for reading and a function to call
// when done with it.
func (fs *FS) readRoot(bucket string) (*os.Root, func(), error) {
	cr, release, err := fs.readCached(bucket)
	if err != nil {
		return nil, nil, err
	}
	return cr.root, release, nil
}

// readCached returns the bucket's cached Root and directory, opening them
// if the cache has none for the directory now at the bucket's name, and a
// function to call when done with them.
func (fs *FS) readCached(bucket string) (*cachedRoot, func(), error) {
	if !validBucket(bucket) {
		return nil, nil, &os.PathError{Op: "bucket", Path: bucket, Err: syscall.EINVAL}
	}
	var st unix.Stat_t
	if err := fs.lstatBucket(bucket, &st); err != nil {
		return nil, nil, fs.mapErr(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, nil, fmt.Errorf("%w: bucket directory %q is not a plain directory", ErrEscape, bucket)
	}
	c := &fs.roots
	c.mu.Lock()
	if cr := c.m[bucket]; cr != nil && cr.dev == uint64(st.Dev) && cr.ino == st.Ino {
		cr.refs++
		c.mu.Unlock()
		return cr, func() { c.release(cr) }, nil
	}
	c.mu.Unlock()

	br, err := fs.bucketRoot(bucket)
	if err != nil {
		return nil, nil, err
	}
	dir, err := br.OpenFile(".", os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		br.Close()
		return nil, nil, fs.mapErr(err)
	}
	var ost syscall.Stat_t
	if err := withFd(dir, func(fd int) error { return syscall.Fstat(fd, &ost) }); err != nil {
		dir.Close()
		br.Close()
		return nil, nil, fs.mapErr(err)
	}
	cr := &cachedRoot{root: br, dir: dir, dev: uint64(ost.Dev), ino: ost.Ino, refs: 1}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*cachedRoot{}
	}
	if old := c.m[bucket]; old != nil {
		c.drop(bucket, old)
	} else if len(c.m) >= maxCachedRoots {
		// Full: drop another bucket's entry (map order: an arbitrary
		// one). Each entry holds two descriptors, and a root with very
		// many buckets must not hold two per bucket it ever read.
		for b, other := range c.m {
			c.drop(b, other)
			break
		}
	}
	c.m[bucket] = cr
	c.mu.Unlock()
	return cr, func() { c.release(cr) }, nil
}

// maxCachedRoots bounds the buckets whose Root and directory reads keep
// open.
const maxCachedRoots = 1024

// drop removes bucket's entry cr from the map; it is closed now, or by
// the last reader still using it. The caller holds c.mu.
func (c *rootCache) drop(bucket string, cr *cachedRoot) {
	delete(c.m, bucket)
	cr.stale = true
	if cr.refs == 0 {
		cr.close()
	}
}

// close closes the Root and the directory.
func (cr *cachedRoot) close() error {
	return errors.Join(cr.dir.Close(), cr.root.Close())
}

// lstatBucket is fs.root.Lstat(bucket) for a valid bucket name, a single
// path component: one fstatat(2) with AT_SYMLINK_NOFOLLOW relative to the
// root directory, without os.Root's path splitting and FileInfo, which
// every read paid for.
func (fs *FS) lstatBucket(bucket string, st *unix.Stat_t) error {
	err := withFd(fs.rootDir, func(fd int) error {
		return ignoringEINTR(func() error { return unix.Fstatat(fd, bucket, st, unix.AT_SYMLINK_NOFOLLOW) })
	})
	if err != nil {
		return &os.PathError{Op: "lstatat", Path: bucket, Err: err}
	}
	return nil
}

func (c *rootCache) release(cr *cachedRoot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cr.refs--
	if cr.stale && cr.refs == 0 {
		cr.close()
	}
}

// forget drops a bucket's cached Root (the bucket was removed).
func (c *rootCache) forget(bucket string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cr := c.m[bucket]; cr != nil {
		c.drop(bucket, cr)
	}
}

// close closes every cached Root; reads in flight keep theirs until done.
func (c *rootCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for b, cr := range c.m {
		delete(c.m, b)
		cr.stale = true
		if cr.refs == 0 {
			errs = append(errs, cr.close())
		}
	}
	return errors.Join(errs...)
}
