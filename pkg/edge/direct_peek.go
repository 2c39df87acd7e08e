//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package edge

import (
	"net"
	"syscall"
)

// idleConnQuiet reports whether a kept connection received nothing while
// it was idle, neither bytes nor the origin's close, by a peek that does
// not wait. net/http's Transport learns the same from the read its
// connection's goroutine keeps blocked while the connection is idle.
func idleConnQuiet(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	quiet := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// EAGAIN: nothing to read, the connection is as it was left;
		// a byte, the end (0 bytes, no error) or an error: it is not.
		quiet = rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && quiet
}
