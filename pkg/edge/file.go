package edge

import (
	"os"
	"syscall"
)

// openPath opens a cache file like os.OpenFile, without the work
// os.OpenFile does to offer the descriptor to the network poller: for a
// regular file that is four fcntl calls and an epoll_ctl that fails, on
// every miss's create and every open of a file to serve it. Reads and
// writes of a regular file block in either case. Errors are
// *os.PathError, as os.OpenFile's.
func openPath(name string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == nil {
			return os.NewFile(uintptr(fd), name), nil
		}
		if err != syscall.EINTR {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
	}
}
