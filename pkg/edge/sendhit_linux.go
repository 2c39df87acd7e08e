package edge

import (
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// sendHit writes head, then n bytes of f from offset off, on w. On a TCP
// connection (reached through NetConn wrappers) the head goes out with
// MSG_MORE, so that it shares its packet with the body's first bytes
// instead of being a packet of its own, and the body with sendfile at an
// explicit offset, so the descriptor's own offset is neither read nor
// moved (no lseek per hit). Elsewhere it writes the head and copies the
// body (sendRange).
//
// Both calls are made without telling the Go scheduler (see sendNoPark
// and sendfileNoPark) when they cannot wait on a disk.
func sendHit(w io.Writer, head []byte, f *os.File, off, n int64) error {
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
				m, e := sendfileNoPark(pageCache, int(fd), int(infd), &off, int(min(end-off, 1<<30)))
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
		case interface{ NetConn() net.Conn }:
			w = c.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// A system call made through syscall.Syscall tells the Go scheduler that
// the thread may block: when it lasts longer than one tick of the
// runtime's monitor (20 µs and up), the monitor hands the thread's P to
// another thread, waking it with a futex, and the monitor keeps ticking
// at its shortest period while it finds such calls. A hit's sendfile of
// 100 KiB to 1 MiB lasts that long, so every hit paid for a hand-off and
// the wake-ups around it (docs/performance.md, "Hits without the
// scheduler"). A call that cannot block — a send on a non-blocking
// socket, a sendfile whose pages are all in the page cache — is made with
// RawSyscall instead, as nginx makes every call on its one thread.

// sendNoPark is send(2) with flags on a non-blocking socket, which
// returns EAGAIN rather than waiting.
func sendNoPark(fd int, b []byte, flags int) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))),
		uintptr(len(b)), uintptr(flags), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// sendfileNoPark is sendfile(2) from a regular file to a non-blocking
// socket: a raw call when every page of the range is in the page cache
// (the socket side returns EAGAIN rather than waiting), else one through
// the scheduler, as a read from the disk may take any time — on a failing
// disk, seconds — and must not hold a P meanwhile. (A page another reader
// is reading in at that moment is in the cache and not yet filled: the
// raw call waits for that one read.)
//
// A raw call sends at most rawSendfileMax bytes, so that the pages
// cachestat looks at are about those one call can move: no more than a
// socket's send buffer takes at once. The caller calls again for the
// rest.
func sendfileNoPark(pc *cachestat, out, in int, off *int64, n int) (int, error) {
	n1 := min(n, rawSendfileMax)
	if !pc.resident(in, *off, int64(n1)) {
		return syscall.Sendfile(out, in, off, n)
	}
	m, _, e := syscall.RawSyscall6(syscall.SYS_SENDFILE, uintptr(out), uintptr(in), uintptr(unsafe.Pointer(off)), uintptr(n1), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(m), nil
}

// rawSendfileMax is the most a raw sendfile sends: the largest send
// buffer Linux gives a TCP socket by default (net.ipv4.tcp_wmem).
const rawSendfileMax = 4 << 20

// cachestat asks the kernel which pages of a file are in the page cache.
type cachestat struct {
	nr uintptr // the system call's number
	// missing is set once the call is found missing (a kernel before
	// 6.5) or refused (a seccomp filter that predates it); resident is
	// then false without asking.
	missing atomic.Bool
}

// pageCache is cachestat(2), the same number on every architecture.
var pageCache = &cachestat{nr: 451}

var pageSize = int64(os.Getpagesize())

// resident reports whether bytes [off, off+n) of the file fd are all in
// the page cache. cachestat reads the cache's index and never waits for a
// disk. False when it cannot tell.
func (pc *cachestat) resident(fd int, off, n int64) bool {
	if n <= 0 || off < 0 || pc.missing.Load() {
		return false
	}
	rng := struct{ off, len uint64 }{uint64(off), uint64(n)}
	var st struct{ cache, dirty, writeback, evicted, recentlyEvicted uint64 }
	_, _, e := syscall.RawSyscall6(pc.nr, uintptr(fd), uintptr(unsafe.Pointer(&rng)), uintptr(unsafe.Pointer(&st)), 0, 0, 0)
	if e != 0 {
		if e == syscall.ENOSYS || e == syscall.EPERM {
			pc.missing.Store(true)
		}
		return false
	}
	pages := (off+n+pageSize-1)/pageSize - off/pageSize
	return st.cache >= uint64(pages)
}
