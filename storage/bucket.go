package storage

import (
	"errors"
	iofs "io/fs"
	"os"
	"path"
	"slices"
	"syscall"
)

// MakeBucket creates the bucket's directory and fsyncs the root. It
// reports whether it made the directory. An existing directory that holds
// no file (only empty directories, or nothing — what a DeleteBucket that a
// crash interrupted leaves) is taken as it is. A directory that holds any
// file is not a new bucket's: the gateway never adopts files it was not
// given (that is scan's job, on the operator's word), so MakeBucket fails
// with an error wrapping EEXIST, as it does for a file or symbolic link of
// that name.
func (fs *FS) MakeBucket(name string) (made bool, err error) {
	if !validBucket(name) {
		return false, &os.PathError{Op: "mkdir", Path: name, Err: syscall.EINVAL}
	}
	err = fs.root.Mkdir(name, 0o755)
	made = err == nil
	if errors.Is(err, iofs.ErrExist) {
		if fi, serr := fs.root.Lstat(name); serr == nil && fi.IsDir() && fs.BucketEmpty(name) == nil {
			err = nil
		}
	}
	if err != nil {
		return false, err
	}
	return made, fs.syncDir(fs.root, ".")
}

// UnmakeBucket removes a directory MakeBucket made, when the bucket's
// record could not be written: it removes the directory only if it is
// still empty, and fsyncs the root. The bucket's versions directory goes
// too when it holds no file; one that does is left.
func (fs *FS) UnmakeBucket(name string) error {
	if !validBucket(name) {
		return nil
	}
	fs.roots.forget(name)
	if err := fs.rmdirIn(fs.root, name); err != nil {
		return err
	}
	if err := fs.syncDir(fs.root, "."); err != nil {
		return err
	}
	return fs.removeVersionsDir(name)
}

// RemoveBucket removes the bucket's directory and its shadow directory.
// The directory may hold empty subdirectories, which are removed too; any
// other entry (a regular file, a symbolic link) makes RemoveBucket fail
// with an error wrapping syscall.ENOTEMPTY before anything is deleted. If a
// file appears concurrently, the rmdir that meets it fails the same way
// and only empty directories will have been removed.
//
// The shadow directory is removed whole, files included: the object layer
// calls RemoveBucket once its index holds no object for the bucket, so any
// shadow file left is an orphan of a crash between commit and index.
// A missing bucket directory returns ErrNotFound, after removing the
// shadow directory. The versions directory is removed only when it holds
// no file, as by UnmakeBucket.
func (fs *FS) RemoveBucket(name string) error {
	fs.roots.forget(name)
	br, err := fs.bucketRoot(name)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return errors.Join(err, fs.removeShadow(name), fs.removeVersionsDir(name))
		}
		return err
	}
	defer br.Close()
	dirs, err := emptyDirs(br, name)
	if err != nil {
		return fs.mapErr(err)
	}
	// WalkDir visits parents before children, so reverse order removes
	// children first.
	for _, d := range slices.Backward(dirs) {
		if err := fs.rmdirIn(br, d); err != nil && !errors.Is(err, syscall.ENOENT) {
			return err
		}
	}
	if err := fs.rmdirIn(fs.root, name); err != nil {
		return err
	}
	if err := fs.syncDir(fs.root, "."); err != nil {
		return err
	}
	return errors.Join(fs.removeShadow(name), fs.removeVersionsDir(name))
}

func (fs *FS) removeShadow(bucket string) error {
	if !validBucket(bucket) {
		return nil
	}
	if err := fs.root.RemoveAll(shadowBucketDir(bucket)); err != nil {
		return err
	}
	return fs.syncDir(fs.root, shadowDir)
}

// BucketDirs lists the top-level directories except StateDir, sorted. It
// does not check that they are valid bucket names; import and scan do.
// Symbolic links are not listed: bucket directories must be plain.
func (fs *FS) BucketDirs() ([]string, error) {
	d, err := openDir(fs.root, ".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != StateDir {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// emptyDirs returns the directories under a bucket's Root, parents first,
// or an error wrapping ENOTEMPTY naming the first file found.
func emptyDirs(br *os.Root, name string) ([]string, error) {
	var dirs []string
	err := iofs.WalkDir(br.FS(), ".", func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return &os.PathError{Op: "removebucket", Path: path.Join(name, p), Err: syscall.ENOTEMPTY}
		}
		if p != "." {
			dirs = append(dirs, p)
		}
		return nil
	})
	return dirs, err
}

// BucketEmpty reports, without changing anything, whether a bucket's
// directory holds no file (empty subdirectories are fine): nil, an error
// wrapping ENOTEMPTY, or ErrNotFound when the directory is missing.
func (fs *FS) BucketEmpty(name string) error {
	br, err := fs.bucketRoot(name)
	if err != nil {
		return err
	}
	defer br.Close()
	_, err = emptyDirs(br, name)
	return fs.mapErr(err)
}
