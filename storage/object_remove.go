package storage

import (
	"errors"
	"fmt"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"
)

// Remove removes the object bucket/key stored at loc and fsyncs the
// directory that held it. For Natural and Directory it then prunes the
// directories that became empty, up to but never including the bucket
// directory. A Directory location's directory is removed only if empty:
// when other objects live below it, it stays and Remove returns nil.
// Remove returns ErrNotFound when there was nothing to remove; a directory
// at a Natural or Shadow path is never removed and counts as not found.
// A Noncurrent location is an error: RemoveVersion, which takes the
// version id, removes it.
func (fs *FS) Remove(bucket, key string, loc Location) error {
	switch loc {
	case Natural, Directory:
		name, flags := key, 0
		if loc == Directory {
			if len(key) == 0 || key[len(key)-1] != '/' {
				return fmt.Errorf("%w: directory key %q does not end in /", ErrNotFound, key)
			}
			name, flags = key[:len(key)-1], unix.AT_REMOVEDIR
		}
		if _, ok := NaturalPath(bucket, name); !ok {
			return fmt.Errorf("%w: %q has no natural path", ErrNotFound, key)
		}
		br, err := fs.bucketRoot(bucket)
		if err != nil {
			return err
		}
		defer br.Close()
		err = fs.removeIn(br, name, flags)
		if loc == Directory && (errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)) {
			return nil
		}
		if err != nil {
			return fs.mapErr(err)
		}
		fs.prune(br, bucket, path.Dir(name))
		return nil
	case Shadow:
		if !validBucket(bucket) {
			return &os.PathError{Op: "remove", Path: bucket, Err: syscall.EINVAL}
		}
		return fs.mapErr(fs.removeIn(fs.root, ShadowPath(bucket, key), 0))
	case Noncurrent:
		return fmt.Errorf("storage: a noncurrent version is removed with RemoveVersion")
	}
	return fmt.Errorf("storage: unknown location %v", loc)
}

// removeIn unlinks rel (relative to r) with unlinkat flags and fsyncs its
// directory. EISDIR, a directory where a file was expected, means the
// object's file is not there, so it is wrapped with ErrNotFound.
func (fs *FS) removeIn(r *os.Root, rel string, flags int) error {
	d, err := openDir(r, path.Dir(rel))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := fs.unlinkAt(d, path.Base(rel), flags); err != nil {
		if errors.Is(err, syscall.EISDIR) {
			return fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		return err
	}
	return fs.sync(d)
}
