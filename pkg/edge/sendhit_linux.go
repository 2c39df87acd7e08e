package edge

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
)

// sendHit writes head, then n bytes of f, a file on disk d (nil: not a
// cache disk), from offset off, on w. On a TCP
// connection (reached through NetConn wrappers) the head goes out with
// MSG_MORE, so that it shares its packet with the body's first bytes
// instead of being a packet of its own, and the body with sendfile at an
// explicit offset, so the descriptor's own offset is neither read nor
// moved (no lseek per hit). Elsewhere it writes the head and copies the
// body (sendRange).
//
// Both calls are made without telling the Go scheduler (see sendNoPark
// and sendfileNoPark) when they cannot wait on a disk.
func sendHit(w io.Writer, head []byte, f *os.File, off, n int64, d *disk) error {
	tc := tcpConnOf(w)
	if tc == nil {
		if _, err := w.Write(head); err != nil {
			return err
		}
		return sendRange(w, f, off, n)
	}
	out, err := tc.SyscallConn()
	if err != nil {
		return err
	}
	if n == 0 {
		return sendAll(out, head, syscall.MSG_NOSIGNAL)
	}
	in, err := f.SyscallConn()
	if err != nil {
		return err
	}
	if err := sendAll(out, head, syscall.MSG_MORE|syscall.MSG_NOSIGNAL); err != nil {
		return err
	}
	var werr error
	start, end := off, off+n
	unsupported := false
	cerr := in.Control(func(infd uintptr) {
		err = out.Write(func(fd uintptr) bool {
			for off < end {
				m, e := sendfileNoPark(d, int(fd), int(infd), &off, int(min(end-off, 1<<30)))
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

// sendBytes writes b on w: on a TCP connection (reached through NetConn
// wrappers) with sendNoPark, elsewhere with w.Write. A memory-tier hit,
// head and body, goes out this way.
func sendBytes(w io.Writer, b []byte) error {
	tc := tcpConnOf(w)
	if tc == nil {
		_, err := w.Write(b)
		return err
	}
	out, err := tc.SyscallConn()
	if err != nil {
		return err
	}
	return sendAll(out, b, syscall.MSG_NOSIGNAL)
}

// sendAll sends all of b on the socket out with flags, waiting in the
// network poller (under the write deadline) while the socket is full.
func sendAll(out syscall.RawConn, b []byte, flags int) error {
	var werr error
	sent := 0
	err := out.Write(func(fd uintptr) bool {
		for sent < len(b) {
			m, e := sendNoPark(int(fd), b[sent:], flags)
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
		case *tls.Conn:
			// Its bytes must go through it, encrypted.
			return nil
		case interface{ NetConn() net.Conn }:
			w = c.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// A system call made through syscall.Syscall tells the Go scheduler that
// the thread may block: while it lasts, the runtime's monitor (sysmon)
// ticks at its shortest period, and one that outlasts a tick (20 µs and
// up) has its P handed to another thread, with a futex wake-up. A hit's
// sendfile of 100 KiB to 1 MiB lasts that long (docs/performance.md,
// "Hits without the scheduler"). The calls of a hit that do not wait are
// therefore made with RawSyscall, as nginx makes every call on its one
// thread: sends on the socket (with MSG_DONTWAIT) and, on a disk where it
// can be known, a sendfile whose pages are all in the page cache. The
// connection's reads are raw too (pkg/rawread).

// sendfileNoPark is sendfile(2) from the file in, on disk d, to the
// non-blocking socket out: a raw call of at most rawSendfileMax bytes when
// d allows it (a local file system, see pageCacheFS), no send from d is
// waiting for its disk, and cachestat finds every page of the range in the
// page cache; otherwise one through the scheduler, because a read from the
// disk may take any time — on a failing disk, seconds — and a raw call
// would hold its P, and every stop of the world, meanwhile.
//
// cachestat counts a page another reader is reading in at that moment;
// a raw call waits for that read. The sends that go through the scheduler
// are counted on d (slowSends), and while one is under way, which is when
// such reads are, no send from d is raw.
func sendfileNoPark(d *disk, out, in int, off *int64, n int) (int, error) {
	n1 := min(n, rawSendfileMax)
	if d.rawSendOK(in, *off, int64(n1)) {
		return sendfileRaw(out, in, off, n1)
	}
	if d != nil {
		d.slowSends.Add(1)
		defer d.slowSends.Add(-1)
	}
	return syscall.Sendfile(out, in, off, n)
}

// rawSendOK reports whether a sendfile of [off, off+n) of the file in,
// on d, may be a raw call (see sendfileNoPark). d may be nil (not a cache
// disk: never).
func (d *disk) rawSendOK(in int, off, n int64) bool {
	return d != nil && d.rawSendfile.Load() && d.slowSends.Load() == 0 && pageCache.resident(in, off, n)
}

// rawSendfileMax is the most a raw sendfile sends, so that the pages
// cachestat looks at are about those one call moves: the largest send
// buffer Linux gives a TCP socket by default (net.ipv4.tcp_wmem).
const rawSendfileMax = 4 << 20

// cachestat asks the kernel which pages of a file are in the page cache.
type cachestat struct {
	// missing is set once the call is found missing (ENOSYS: a kernel
	// before 6.5, or a seccomp profile that answers so for calls it does
	// not know); resident is then false without asking.
	missing atomic.Bool
	// call is cachestatRaw; tests replace it.
	call func(fd int, off, n int64) (uint64, syscall.Errno)
}

var pageCache = &cachestat{call: cachestatRaw}

var pageSize = int64(os.Getpagesize())

// resident reports whether bytes [off, off+n) of the file fd are all in
// the page cache. False when it cannot tell: another error (EPERM for a
// file the process may not write, on kernels that ask) says nothing of
// the next file.
func (pc *cachestat) resident(fd int, off, n int64) bool {
	if n <= 0 || off < 0 || pc.missing.Load() {
		return false
	}
	cached, e := pc.call(fd, off, n)
	if e != 0 {
		if e == syscall.ENOSYS {
			pc.missing.Store(true)
		}
		return false
	}
	pages := (off+n+pageSize-1)/pageSize - off/pageSize
	return cached >= uint64(pages)
}
