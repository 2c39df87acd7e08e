//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le || s390x)

package rawread

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// Listener wraps ln: each *net.TCPConn it accepts comes wrapped in a
// *Conn; other connections come as they are.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	return &Conn{TCPConn: tc, rc: rc}, nil
}

// Conn is a TCP connection whose Read is a raw recvfrom(2). Everything else
// is the *net.TCPConn's, including ReadFrom (sendfile, splice) and
// WriteTo.
type Conn struct {
	*net.TCPConn
	rc syscall.RawConn
}

// NetConn returns the *net.TCPConn under c.
func (c *Conn) NetConn() net.Conn { return c.TCPConn }

// maxRead bounds one read, as the net package bounds its own.
const maxRead = 1 << 30

// Read reads as net.Conn's Read does: it waits for the socket in the
// network poller, under the read deadline, and returns the same errors
// (io.EOF at the end of the stream; otherwise a *net.OpError with Op
// "read" wrapping os.ErrDeadlineExceeded, net.ErrClosed or the system
// call's error).
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return c.TCPConn.Read(p)
	}
	if len(p) > maxRead {
		p = p[:maxRead]
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			// recvfrom with MSG_DONTWAIT returns EAGAIN rather than
			// waiting even if something cleared the socket's O_NONBLOCK.
			r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
				syscall.MSG_DONTWAIT, 0, 0)
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the poller
			}
			n, errno = int(r), e
			if raceEnabled && e == 0 {
				// syscall.Read tells the race detector that what was
				// written before the peer's write happened before this
				// read; a raw read does not. A read of no bytes, which
				// returns at once, does it (race builds only).
				syscall.Read(int(fd), nil)
			}
			return true
		}
	})
	if err != nil {
		// The poller's own error (deadline, closed), which the
		// RawConn wraps as a "raw-read" *net.OpError.
		var oe *net.OpError
		if errors.As(err, &oe) {
			err = oe.Err
		}
		return 0, c.opError(err)
	}
	if errno != 0 {
		return 0, c.opError(os.NewSyscallError("read", errno))
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (c *Conn) opError(err error) error {
	return &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
