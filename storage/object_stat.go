package storage

import (
	"fmt"
	"os"
	"syscall"
)

// StatPath returns the FileInfo of the object bucket/key stored at loc
// without opening it, unlike Stat: one fstatat through the bucket's cached
// Root for a Natural object. It fails like Open: ErrNotFound when the file is missing or not a
// regular file, ErrEscape when a symbolic link would leave the bucket. A
// Directory location has a zero FileInfo.
func (fs *FS) StatPath(bucket, key string, loc Location) (FileInfo, error) {
	switch loc {
	case Directory:
		return FileInfo{}, nil
	case Natural:
		if _, ok := NaturalPath(bucket, key); !ok {
			return FileInfo{}, fmt.Errorf("%w: %q has no natural path", ErrNotFound, key)
		}
		br, release, err := fs.readRoot(bucket)
		if err != nil {
			return FileInfo{}, err
		}
		defer release()
		return fs.statRegular(br, key)
	case Shadow:
		if !validBucket(bucket) {
			return FileInfo{}, &os.PathError{Op: "stat", Path: bucket, Err: syscall.EINVAL}
		}
		return fs.statRegular(fs.root, ShadowPath(bucket, key))
	}
	return FileInfo{}, fmt.Errorf("storage: unknown location %v", loc)
}

// statRegular stats name, following symbolic links inside r as Open does.
func (fs *FS) statRegular(r *os.Root, name string) (FileInfo, error) {
	st, err := r.Stat(name)
	if err != nil {
		return FileInfo{}, fs.mapErr(err)
	}
	if !st.Mode().IsRegular() {
		return FileInfo{}, fmt.Errorf("%w: %q is not a regular file", ErrNotFound, name)
	}
	return fileInfo(st), nil
}

// FileStat returns the FileInfo of an open file.
func FileStat(f *os.File) (FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return FileInfo{}, err
	}
	return fileInfo(st), nil
}
