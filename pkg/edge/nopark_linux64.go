//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le || s390x)

package edge

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The system calls a fast hit makes without the Go scheduler's
// bookkeeping (see sendhit_linux.go), on the 64-bit architectures whose
// send, sendfile (64-bit offsets) and cachestat have numbers of their
// own. Elsewhere nopark_other.go makes them through the scheduler.

// sendNoPark is send(2) of b with flags and MSG_DONTWAIT: it returns
// EAGAIN rather than waiting, even if something cleared the socket's
// O_NONBLOCK.
func sendNoPark(fd int, b []byte, flags int) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	raceReleaseIO(fd)
	n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))),
		uintptr(len(b)), uintptr(flags|syscall.MSG_DONTWAIT), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// sendfileRaw is sendfile(2) as a raw call; the caller has made sure the
// file's side cannot wait (see sendfileNoPark).
func sendfileRaw(out, in int, off *int64, n int) (int, error) {
	raceReleaseIO(out)
	m, _, e := syscall.RawSyscall6(syscall.SYS_SENDFILE, uintptr(out), uintptr(in), uintptr(unsafe.Pointer(off)), uintptr(n), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(m), nil
}

// cachestatRaw returns how many pages of [off, off+n) of the file fd are
// in the page cache, by cachestat(2) (Linux 6.5), which reads the cache's
// index and never waits for a disk.
func cachestatRaw(fd int, off, n int64) (uint64, syscall.Errno) {
	rng := unix.CachestatRange{Off: uint64(off), Len: uint64(n)}
	var st unix.Cachestat_t
	_, _, e := syscall.RawSyscall6(unix.SYS_CACHESTAT, uintptr(fd), uintptr(unsafe.Pointer(&rng)), uintptr(unsafe.Pointer(&st)), 0, 0, 0)
	return st.Cache, e
}

// raceReleaseIO tells the race detector, in race builds, what
// syscall.Write and syscall.Sendfile tell it and a raw call does not:
// that what this goroutine did before the send happens before what the
// peer does after reading it. A write of no bytes, which returns at once,
// does it.
func raceReleaseIO(fd int) {
	if raceEnabled {
		syscall.Write(fd, nil)
	}
}

// pageCacheFS reports whether files under dir are on a file system whose
// cached pages sendfile reads without asking anyone: a local one (ext4,
// XFS, Btrfs, F2FS) or tmpfs. On NFS a read of cached pages may first ask
// the server whether they are still valid, FUSE may ask its daemon, and
// an overlay's cachestat counts nothing: those are sent through the
// scheduler.
func pageCacheFS(dir string) bool { return localFS(dir) }
