package edge

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// sendHit writes head, then n bytes of f from offset off, on w. On a TCP
// connection (reached through NetConn wrappers) the head goes out with
// MSG_MORE, so that it shares its packet with the body's first bytes
// instead of being a packet of its own, and the body with sendfile at an
// explicit offset, so the descriptor's own offset is neither read nor
// moved (no lseek per hit). Elsewhere it writes the head and copies the
// body (sendRange).
func sendHit(w io.Writer, head []byte, f *os.File, off, n int64) error {
	tc := tcpConnOf(w)
	if tc == nil || n == 0 {
		if _, err := w.Write(head); err != nil {
			return err
		}
		return sendRange(w, f, off, n)
	}
	out, err := tc.SyscallConn()
	if err != nil {
		return err
	}
	in, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	sent := 0
	err = out.Write(func(fd uintptr) bool {
		for sent < len(head) {
			m, e := syscall.SendmsgN(int(fd), head[sent:], nil, nil, syscall.MSG_MORE|syscall.MSG_NOSIGNAL)
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return false
			case e != nil:
				werr = e
				return true
			}
			sent += m
		}
		return true
	})
	if err = errors.Join(err, werr); err != nil {
		return wrapOp("write", err)
	}
	start, end := off, off+n
	unsupported := false
	cerr := in.Control(func(infd uintptr) {
		err = out.Write(func(fd uintptr) bool {
			for off < end {
				m, e := syscall.Sendfile(int(fd), int(infd), &off, int(min(end-off, 1<<30)))
				switch {
				case e == syscall.EINTR:
					continue
				case e == syscall.EAGAIN:
					return false
				case off == start && (e == syscall.EINVAL || e == syscall.ENOSYS || e == syscall.EOPNOTSUPP):
					// A file system that cannot splice: copy instead,
					// as Go's own sendfile does.
					unsupported = true
					return true
				case e != nil:
					werr = e
					return true
				case m == 0:
					// The file is shorter than its entry says.
					werr = io.ErrUnexpectedEOF
					return true
				}
			}
			return true
		})
	})
	if err = errors.Join(cerr, err, werr); err != nil {
		return wrapOp("sendfile", err)
	}
	if unsupported {
		got, err := io.Copy(w, io.NewSectionReader(f, start, n))
		if err == nil && got < n {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// wrapOp gives a failed system call the form the net package gives it,
// so that callers tell a reset peer (syscall.ECONNRESET, EPIPE) from a
// disk's read error (syscall.EIO) with errors.Is as before.
func wrapOp(op string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, err)}
}

// tcpConnOf returns the *net.TCPConn under w, unwrapping connections
// that expose theirs with NetConn, or nil.
func tcpConnOf(w io.Writer) *net.TCPConn {
	for range 8 {
		switch c := w.(type) {
		case *net.TCPConn:
			return c
		case interface{ NetConn() net.Conn }:
			w = c.NetConn()
		default:
			return nil
		}
	}
	return nil
}
