package storage

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Open opens the object bucket/key stored at loc for reading, with the
// FileInfo of the open file. It returns ErrNotFound when the file is
// missing or is not a regular file (a directory at a Natural path, a FIFO
// planted in the tree), and ErrEscape when a symbolic link would take the
// path out of its bucket. A Directory location has no bytes: Open returns a
// nil file and a zero FileInfo, and callers serve zero bytes. A Noncurrent
// location is an error: OpenVersion, which takes the version id, opens it.
func (fs *FS) Open(bucket, key string, loc Location) (*os.File, FileInfo, error) {
	switch loc {
	case Directory:
		return nil, FileInfo{}, nil
	case Natural:
		if _, ok := NaturalPath(bucket, key); !ok {
			return nil, FileInfo{}, fmt.Errorf("%w: %q has no natural path", ErrNotFound, key)
		}
		br, release, err := fs.readRoot(bucket)
		if err != nil {
			return nil, FileInfo{}, err
		}
		defer release()
		return fs.openRegular(br, key)
	case Shadow:
		if !validBucket(bucket) {
			return nil, FileInfo{}, &os.PathError{Op: "open", Path: bucket, Err: syscall.EINVAL}
		}
		return fs.openRegular(fs.root, ShadowPath(bucket, key))
	case Noncurrent:
		return nil, FileInfo{}, fmt.Errorf("storage: a noncurrent version is opened with OpenVersion")
	}
	return nil, FileInfo{}, fmt.Errorf("storage: unknown location %v", loc)
}

// openRegular opens name read-only and checks it is a regular file. It
// opens with O_NONBLOCK so that a FIFO planted in the tree cannot block the
// reader, then clears the flag on the file it keeps. The fstat and the
// fcntl run in one SyscallConn.Control call on a stack Stat_t, without
// File.Stat's FileInfo.
func (fs *FS) openRegular(r *os.Root, name string) (*os.File, FileInfo, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, FileInfo{}, fs.mapErr(err)
	}
	var st syscall.Stat_t
	var statErr error
	err = withFd(f, func(fd int) error {
		if err := ignoringEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
			statErr = &os.PathError{Op: "stat", Path: f.Name(), Err: err}
			return nil
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			return nil
		}
		// F_SETFL with 0 clears O_NONBLOCK; the other status flags it
		// could change (O_APPEND, O_DIRECT, O_NOATIME, O_ASYNC) were never
		// set.
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0)
		return err
	})
	switch {
	case statErr != nil:
		f.Close()
		return nil, FileInfo{}, statErr
	case err != nil:
		f.Close()
		return nil, FileInfo{}, err
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		f.Close()
		errno := syscall.EINVAL
		if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			errno = syscall.EISDIR
		}
		return nil, FileInfo{}, fmt.Errorf("%w: %w", ErrNotFound, &os.PathError{Op: "open", Path: name, Err: errno})
	}
	return f, statInfo(&st), nil
}
