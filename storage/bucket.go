package storage

import (
	"errors"
	iofs "io/fs"
	"os"
	"path"
	"slices"
	"syscall"
)

// MakeBucket creates the bucket's directory and fsyncs the root. A bucket
// whose directory already exists is fine; a file or symbolic link of that
// name is an error wrapping EEXIST.
func (fs *FS) MakeBucket(name string) error {
	if !validBucket(name) {
		return &os.PathError{Op: "mkdir", Path: name, Err: syscall.EINVAL}
	}
	err := fs.root.Mkdir(name, 0o755)
	if errors.Is(err, iofs.ErrExist) {
		if fi, serr := fs.root.Lstat(name); serr == nil && fi.IsDir() {
			err = nil
		}
	}
	if err != nil {
		return err
	}
	return fs.syncDir(fs.root, ".")
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
// shadow directory.
func (fs *FS) RemoveBucket(name string) error {
	fs.roots.forget(name)
	br, err := fs.bucketRoot(name)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return errors.Join(err, fs.removeShadow(name))
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
	return fs.removeShadow(name)
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
