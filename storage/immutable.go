package storage

import (
	"errors"
	"fmt"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrImmutableUnsupported is returned by SetImmutable when the store
// cannot set the immutable flag (see ImmutableSupport).
var ErrImmutableUnsupported = errors.New("storage: the immutable flag is not available")

// fsImmutableFL is FS_IMMUTABLE_FL of <linux/fs.h>, which
// golang.org/x/sys/unix does not define.
const fsImmutableFL = 0x00000010

// ImmutableSupport reports whether the store can set the filesystem's
// immutable flag (chattr +i) on object files, and when it cannot, why. Open
// probes it once on a temp file in staging. Without it the immutable
// arguments of Publish, Demote and Restore are ignored and no ioctl is
// made.
func (fs *FS) ImmutableSupport() (ok bool, reason string) {
	return fs.immutableOK, fs.immutableWhy
}

// probeImmutable sets and clears the immutable flag of a temp file in
// staging and records the outcome for ImmutableSupport. Only a failure to
// clear a flag it could set is an error: that file could not be removed.
func (fs *FS) probeImmutable() error {
	name := fs.prefix + "probe"
	f, err := fs.createProbe(name)
	if err != nil {
		return err
	}
	defer f.Close()
	err = setImmutable(f, true)
	switch {
	case err == nil:
		if err := setImmutable(f, false); err != nil {
			return fmt.Errorf("storage: the immutable flag of the probe %s could be set but not cleared: %w", f.Name(), err)
		}
		fs.immutableOK, fs.immutableWhy = true, ""
	case errors.Is(err, syscall.EPERM):
		fs.immutableWhy = "the process lacks CAP_LINUX_IMMUTABLE"
	case errors.Is(err, syscall.ENOTTY), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.EINVAL):
		fs.immutableWhy = "the filesystem does not support the immutable flag"
	default:
		fs.immutableWhy = "setting the immutable flag failed: " + err.Error()
	}
	return fs.unlinkAt(fs.staging, name, 0)
}

// createProbe creates the new file name in the staging area, read-only,
// for a probe of what the filesystem can do; the caller removes it.
func (fs *FS) createProbe(name string) (*os.File, error) {
	var fd int
	err := withFd(fs.staging, func(dfd int) error {
		return ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(dfd, name, unix.O_RDONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
			return err
		})
	})
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: path.Join(fs.staging.Name(), name), Err: err}
	}
	return os.NewFile(uintptr(fd), path.Join(fs.staging.Name(), name)), nil
}

// setImmutable sets or clears FS_IMMUTABLE_FL on the open file f, keeping
// its other flags. The flags are an int in the kernel's ABI, whatever
// the ioctl number's declared long says, as e2fsprogs' chattr passes
// them; IoctlGetUint32 and IoctlSetPointerInt pass a 32-bit int.
func setImmutable(f *os.File, on bool) error {
	err := withFd(f, func(fd int) error {
		flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
		if err != nil {
			return err
		}
		want := flags &^ fsImmutableFL
		if on {
			want |= fsImmutableFL
		}
		if want == flags {
			return nil
		}
		return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(int32(want)))
	})
	if err != nil {
		return &os.PathError{Op: "ioctl FS_IOC_SETFLAGS", Path: f.Name(), Err: err}
	}
	return nil
}

// isImmutable reports whether the open file f carries FS_IMMUTABLE_FL.
func isImmutable(f *os.File) (bool, error) {
	var flags uint32
	err := withFd(f, func(fd int) (err error) {
		flags, err = unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
		return err
	})
	if err != nil {
		return false, &os.PathError{Op: "ioctl FS_IOC_GETFLAGS", Path: f.Name(), Err: err}
	}
	return flags&fsImmutableFL != 0, nil
}

// openFlagged opens the entry base of the directory dir for the flag
// ioctls: O_RDONLY|O_NOFOLLOW, one path component below a directory
// opened through the root, so a symbolic link is never followed. It
// returns an error wrapping EINVAL for anything but a regular file.
func openFlagged(dir *os.File, base string) (*os.File, error) {
	var fd int
	err := withFd(dir, func(dfd int) error {
		return ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(dfd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			return err
		})
	})
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: path.Join(dir.Name(), base), Err: err}
	}
	f := os.NewFile(uintptr(fd), path.Join(dir.Name(), base))
	var st unix.Stat_t
	if err := withFd(f, func(fd int) error { return unix.Fstat(fd, &st) }); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "fstat", Path: f.Name(), Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil, &os.PathError{Op: "immutable", Path: f.Name(), Err: syscall.EINVAL}
	}
	return f, nil
}

// clearImmutableAt clears the immutable flag of the file base in dir.
func (fs *FS) clearImmutableAt(dir *os.File, base string) error {
	f, err := openFlagged(dir, base)
	if err != nil {
		return err
	}
	defer f.Close()
	return setImmutable(f, false)
}

// unflag prepares the move of the file base in dir whose caller says it
// carries the immutable flag: when the store supports the flag it opens
// the file and clears the flag, and returns the open file so that the
// flag can be set again on the same inode at its new name (reflag). It
// returns nil, and no error, when there is nothing to do: no support, the
// caller did not ask, or no regular file at base (the move reports that).
func (fs *FS) unflag(dir *os.File, base string, immutable bool) (*os.File, error) {
	if !immutable || !fs.immutableOK {
		return nil, nil
	}
	f, err := openFlagged(dir, base)
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EINVAL) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := setImmutable(f, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// reflag sets the immutable flag again on a file unflag opened, and closes
// it. A nil f is a no-op.
func reflag(f *os.File) error {
	if f == nil {
		return nil
	}
	return errors.Join(setImmutable(f, true), f.Close())
}

// SetImmutable sets (on) or clears the immutable flag of the object file
// bucket/key at loc (the version vid when loc is Noncurrent), so that a
// locked version cannot be removed or changed by a local process either.
// It returns ErrImmutableUnsupported when ImmutableSupport is false,
// ErrNotFound when the file is missing, and an error wrapping EINVAL for a
// Directory location or anything at the path but a regular file.
func (fs *FS) SetImmutable(bucket, key string, loc Location, vid string, on bool) error {
	if !fs.immutableOK {
		return fmt.Errorf("%w: %s", ErrImmutableUnsupported, fs.immutableWhy)
	}
	var dir *os.File
	var base string
	var err error
	switch loc {
	case Natural:
		if _, ok := NaturalPath(bucket, key); !ok {
			return fmt.Errorf("%w: %q has no natural path", ErrNotFound, key)
		}
		br, berr := fs.bucketRoot(bucket)
		if berr != nil {
			return berr
		}
		dir, err = openDir(br, path.Dir(key))
		br.Close()
		base = path.Base(key)
	case Shadow:
		if !validBucket(bucket) {
			return &os.PathError{Op: "immutable", Path: bucket, Err: syscall.EINVAL}
		}
		p := ShadowPath(bucket, key)
		dir, err = openDir(fs.root, path.Dir(p))
		base = path.Base(p)
	case Noncurrent:
		p, verr := VersionPath(bucket, key, vid)
		if verr != nil {
			return verr
		}
		dir, err = openDir(fs.root, path.Dir(p))
		base = path.Base(p)
	default:
		return &os.PathError{Op: "immutable", Path: bucket + "/" + key + " at " + loc.String(), Err: syscall.EINVAL}
	}
	if err != nil {
		return fs.mapErr(err)
	}
	defer dir.Close()
	f, err := openFlagged(dir, base)
	if err != nil {
		return fs.mapErr(err)
	}
	return errors.Join(setImmutable(f, on), f.Close())
}
