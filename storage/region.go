package storage

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"
)

// regionName is the name of an upload's region file in its part
// directory. Part files are named by their number, so it cannot collide.
const regionName = "region"

// Region is the staging file of a multipart upload whose parts are
// written at their offsets in the object (StateDir/multipart/<upload
// id>/region), so that completing the upload renames it instead of
// copying every part. Which bytes of it count is the object layer's
// business (the part records say); Region only writes, syncs, copies into
// and stages it. A Region is safe for concurrent use by writers of
// disjoint ranges.
type Region struct {
	fs *FS
	f  *os.File
	id string // the upload's id: its part directory's name
}

// OpenRegion opens, creating it if needed, the region file of an upload.
// A new file's directory entry is fsynced before OpenRegion returns.
func (fs *FS) OpenRegion(uploadID string) (*Region, error) {
	if !validUploadID(uploadID) {
		return nil, fmt.Errorf("storage: invalid upload id %q", uploadID)
	}
	d, err := fs.ensureDir(fs.root, multipartDir+"/"+uploadID)
	if err != nil {
		return nil, fs.mapErr(err)
	}
	defer d.Close()
	var fd int
	created := false
	err = withFd(d, func(dfd int) error {
		return ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(dfd, regionName, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
			if err == nil {
				created = true
				return nil
			}
			if err != unix.EEXIST {
				return err
			}
			fd, err = unix.Openat(dfd, regionName, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			return err
		})
	})
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: path.Join(d.Name(), regionName), Err: err}
	}
	r := &Region{fs: fs, f: os.NewFile(uintptr(fd), path.Join(d.Name(), regionName)), id: uploadID}
	if created {
		if err := fs.sync(d); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// Close closes the region's descriptor.
func (r *Region) Close() error { return r.f.Close() }

// Stat returns what fstat says about the region file, and its link count:
// more than one link means a completion staged or published it.
func (r *Region) Stat() (FileInfo, uint64, error) {
	st, err := r.f.Stat()
	if err != nil {
		return FileInfo{}, 0, err
	}
	sys := st.Sys().(*syscall.Stat_t)
	return statInfo(sys), uint64(sys.Nlink), nil
}

// WriteAt writes p at off, through the same fault seam as an upload's
// writes.
func (r *Region) WriteAt(p []byte, off int64) (int, error) {
	if r.fs.fault != nil {
		if err := r.fs.fault("write"); err != nil {
			return 0, &os.PathError{Op: "write", Path: r.f.Name(), Err: err}
		}
	}
	return r.f.WriteAt(p, off)
}

// Sync makes what was written to the region durable (unless NoSync).
func (r *Region) Sync() error {
	if r.fs.fault != nil && !r.fs.noSync {
		if err := r.fs.fault("fsync"); err != nil {
			return &os.PathError{Op: "fsync", Path: r.f.Name(), Err: err}
		}
	}
	return r.fs.sync(r.f)
}

// ReadAt reads the region at off.
func (r *Region) ReadAt(p []byte, off int64) (int, error) { return r.f.ReadAt(p, off) }

// CopyIn copies n bytes of src, from its start, to off in the region,
// inside the kernel (copy_file_range), and counts them (CopiedBytes).
func (r *Region) CopyIn(src *os.File, off, n int64) error {
	return r.fs.copyRange(src, 0, r.f, off, n)
}

// Stage truncates the region to size and links it into StateDir/staging
// as a new Upload, which the caller publishes like any other: the object
// becomes the region's file without a byte copied. Aborting the Upload
// removes only the staging link; the region keeps its name in the part
// directory until the upload's parts are removed.
func (r *Region) Stage(size int64) (*Upload, error) {
	fs := r.fs
	if err := r.f.Truncate(size); err != nil {
		return nil, err
	}
	name := fs.prefix + fmt.Sprint(fs.seq.Add(1))
	d, err := openDir(fs.root, multipartDir+"/"+r.id)
	if err != nil {
		return nil, fs.mapErr(err)
	}
	defer d.Close()
	if err := fs.linkToStaging(d, regionName, name); err != nil {
		return nil, err
	}
	var fd int
	err = withFd(fs.staging, func(sfd int) error {
		return ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(sfd, name, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			return err
		})
	})
	var f *os.File
	if err == nil {
		f = os.NewFile(uintptr(fd), path.Join(fs.staging.Name(), name))
		// The link must be the file this Region writes, not one that
		// took its name meanwhile.
		var a, b os.FileInfo
		if a, err = f.Stat(); err == nil {
			if b, err = r.f.Stat(); err == nil && !os.SameFile(a, b) {
				err = errors.New("storage: region file replaced")
			}
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		_ = fs.unlinkAt(fs.staging, name, 0)
		return nil, err
	}
	return &Upload{fs: fs, f: f, name: name, written: size, flushed: size}, nil
}

// AppendFrom copies n bytes of src, from off, to the end of the upload
// inside the kernel (copy_file_range), and counts them (CopiedBytes).
func (u *Upload) AppendFrom(src io.ReaderAt, off, n int64) error {
	st, err := u.f.Stat()
	if err != nil {
		return err
	}
	switch s := src.(type) {
	case *os.File:
		return u.fs.copyRange(s, off, u.f, st.Size(), n)
	case *Region:
		return u.fs.copyRange(s.f, off, u.f, st.Size(), n)
	}
	return fmt.Errorf("storage: cannot copy from %T", src)
}

// errShortCopy is returned when a copy's source ends early.
var errShortCopy = errors.New("storage: source shorter than the range copied")

// copyRange copies n bytes from src at soff to dst at doff with
// copy_file_range, which never passes the bytes through user space (and
// shares extents where the filesystem can), and adds them to the copy
// counter.
func (fs *FS) copyRange(src *os.File, soff int64, dst *os.File, doff, n int64) error {
	for n > 0 {
		var m int
		err := withFd(src, func(sfd int) error {
			return withFd(dst, func(dfd int) error {
				return ignoringEINTR(func() (err error) {
					m, err = unix.CopyFileRange(sfd, &soff, dfd, &doff, int(min(n, 1<<30)), 0)
					return err
				})
			})
		})
		if err != nil {
			if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
				// The filesystem cannot copy inside the kernel: copy
				// through user space instead.
				return fs.copyThrough(src, soff, dst, doff, n)
			}
			return &os.PathError{Op: "copy_file_range", Path: dst.Name(), Err: err}
		}
		if m == 0 {
			return errShortCopy
		}
		n -= int64(m)
		fs.copied.Add(int64(m))
	}
	return nil
}

// CopiedBytes returns how many bytes the store has copied from file to
// file (completions that could not use the region), since it was opened.
func (fs *FS) CopiedBytes() int64 { return fs.copied.Load() }

// StatRegion returns what stat says about an upload's region file;
// ErrNotFound when it has none.
func (fs *FS) StatRegion(uploadID string) (FileInfo, error) {
	if !validUploadID(uploadID) {
		return FileInfo{}, ErrNotFound
	}
	st, err := fs.root.Lstat(multipartDir + "/" + uploadID + "/" + regionName)
	if err != nil {
		return FileInfo{}, fs.mapErr(err)
	}
	return fileInfo(st), nil
}

// copyThrough is copyRange through a buffer, for filesystems without
// copy_file_range.
func (fs *FS) copyThrough(src *os.File, soff int64, dst *os.File, doff, n int64) error {
	w := io.NewOffsetWriter(dst, doff)
	m, err := io.Copy(w, io.NewSectionReader(src, soff, n))
	fs.copied.Add(m)
	if err != nil {
		return err
	}
	if m != n {
		return errShortCopy
	}
	return nil
}
