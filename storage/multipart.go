package storage

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// Parts of multipart uploads live in StateDir/multipart/<upload id>/<part
// number>, on the same filesystem as the buckets, so that completing an
// upload copies them into the object inside the kernel (copy_file_range,
// or a reflink where the filesystem shares extents) and never through
// user space.

// validUploadID reports whether id is safe as one path segment. Upload ids
// are made by the gateway (URL-safe base64); anything else cannot name a
// part directory.
func validUploadID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func partPath(uploadID string, number int) string {
	return multipartDir + "/" + uploadID + "/" + strconv.Itoa(number)
}

// CommitPart makes the upload part number of a multipart upload,
// replacing an earlier upload of the same part: fsync, rename, fsync of
// the upload's directory. Like Commit, it finishes the upload either way.
func (u *Upload) CommitPart(uploadID string, number int) (FileInfo, error) {
	if u.done {
		return FileInfo{}, errFinished
	}
	u.done = true
	fi, err := u.commitPart(uploadID, number)
	if err != nil {
		u.discard()
		return FileInfo{}, err
	}
	return fi, u.f.Close()
}

func (u *Upload) commitPart(uploadID string, number int) (FileInfo, error) {
	fs := u.fs
	if !validUploadID(uploadID) || number < 1 {
		return FileInfo{}, fmt.Errorf("storage: invalid part %q/%d", uploadID, number)
	}
	if err := u.Sync(); err != nil {
		return FileInfo{}, err
	}
	st, err := u.f.Stat()
	if err != nil {
		return FileInfo{}, err
	}
	d, err := fs.ensureDir(fs.root, multipartDir+"/"+uploadID)
	if err != nil {
		return FileInfo{}, fs.mapErr(err)
	}
	defer d.Close()
	if err := fs.renameFromStaging(u.name, d, strconv.Itoa(number)); err != nil {
		return FileInfo{}, err
	}
	return fileInfo(st), fs.sync(d)
}

// OpenPart opens a part's file for reading; ErrNotFound when missing.
func (fs *FS) OpenPart(uploadID string, number int) (*os.File, error) {
	if !validUploadID(uploadID) {
		return nil, ErrNotFound
	}
	f, err := fs.root.Open(partPath(uploadID, number))
	if err != nil {
		return nil, fs.mapErr(err)
	}
	return f, nil
}

// RemoveParts removes every part file of an upload. A missing directory is
// not an error: aborting twice is fine. A part renamed into the directory
// while it is being emptied (an UploadPart racing the abort) makes the
// final rmdir fail with ENOTEMPTY; the removal is then tried again, a
// bounded number of times. That writer removes its part itself once it
// finds the upload's record gone, and the sweep removes whatever is left.
func (fs *FS) RemoveParts(uploadID string) error {
	if !validUploadID(uploadID) {
		return nil
	}
	var err error
	for range 8 {
		err = fs.root.RemoveAll(multipartDir + "/" + uploadID)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
			return err
		}
	}
	return err
}

// PartDirs returns the upload ids that have a part directory, for the
// sweep that removes parts whose upload is gone.
func (fs *FS) PartDirs() ([]string, error) {
	d, err := fs.root.Open(multipartDir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
