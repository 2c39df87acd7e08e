//go:build unix

package sse

import (
	"errors"
	"os"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// mapWindowBlocks is how much of a file a pipeline keeps mapped: windows
// of 32 blocks (8 MiB), at most two at a time. It bounds the page-cache
// pages a stream has mapped, which count in the process's RSS (16 MiB per
// pipelined stream, and there are at most GOMAXPROCS-1 of those), and the
// address space a large object takes.
const mapWindowBlocks = 32

// fileMap is the ciphertext of a pipeline's blocks mapped from the file,
// so that they are decrypted straight out of the page cache instead of
// copied out of it by pread first (docs/performance.md, "Encrypted
// objects"). Its methods are called with the pipeline's lock held.
type fileMap struct {
	f     *os.File
	first int64 // the package of block 0
	end   int64 // the file offset after the range's last package
	win   [2]window
}

// window is one mapping: windows n*mapWindowBlocks to (n+1)*... of the
// pipeline's blocks, mapped from the page at or before their start.
type window struct {
	n    int64
	mem  []byte
	skip int64 // bytes of mem before the window's first package
}

// mapFile returns a fileMap of the range's packages from first on, or nil
// (the pipeline then reads with ReadAt) when src is not a file or the
// file's size is not what the range needs: ReadAt then reports the damage
// as it does for every range.
func mapFile(d *decoder, first int64) *fileMap {
	f, ok := d.src.(*os.File)
	if !ok {
		return nil
	}
	end := d.last * PackageSize
	if d.last == d.packages {
		end = (d.packages-1)*PackageSize + int64(headerSize+d.final+tagSize)
	}
	var st unix.Stat_t
	if err := withFd(f, func(fd int) error { return unix.Fstat(fd, &st) }); err != nil ||
		st.Size < end || (d.last == d.packages && st.Size != end) {
		return nil
	}
	return &fileMap{f: f, first: first, end: end, win: [2]window{{n: -1}, {n: -1}}}
}

// block is the ciphertext of block k, its window mapped if it is not yet.
func (m *fileMap) block(k, count int64) ([]byte, error) {
	n := k / mapWindowBlocks
	w := &m.win[n%2]
	if w.n != n {
		if w.mem != nil {
			return nil, errors.New("sse: a window is still mapped") // never: see release
		}
		if err := m.mapWindow(w, n); err != nil {
			return nil, err
		}
	}
	lo := w.skip + (k-n*mapWindowBlocks)*blockPackages*PackageSize
	return w.mem[lo:min(lo+count*PackageSize, int64(len(w.mem)))], nil
}

func (m *fileMap) mapWindow(w *window, n int64) error {
	off := (m.first + n*mapWindowBlocks*blockPackages) * PackageSize
	end := min(off+mapWindowBlocks*blockPackages*PackageSize, m.end)
	base := off &^ int64(os.Getpagesize()-1)
	var mem []byte
	err := withFd(m.f, func(fd int) (err error) {
		mem, err = unix.Mmap(fd, base, int(end-base), unix.PROT_READ, unix.MAP_SHARED)
		return err
	})
	if err != nil {
		return err
	}
	_ = unix.Madvise(mem, unix.MADV_SEQUENTIAL)
	*w = window{n: n, mem: mem, skip: off - base}
	return nil
}

// written is told that block k was written: the last block of a window
// unmaps it, since every block before it was decrypted and written.
func (m *fileMap) written(k int64) {
	if (k+1)%mapWindowBlocks == 0 {
		m.release(&m.win[(k/mapWindowBlocks)%2])
	}
}

func (m *fileMap) release(w *window) {
	if w.mem != nil {
		_ = unix.Munmap(w.mem)
	}
	*w = window{n: -1}
}

// close unmaps what is still mapped; no goroutine may read it after.
func (m *fileMap) close() {
	for i := range m.win {
		m.release(&m.win[i])
	}
}

// openMapped is openBlock over mapped ciphertext. A fault (the file cut
// short under the mapping) is ErrCorrupt, not a crash: the calling
// goroutine must have SetPanicOnFault on (faultsPanic).
func (d *decoder) openMapped(pt, ct []byte, seq, count int64, nonce *[12]byte) (out []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			if _, isFault := v.(interface{ Addr() uintptr }); !isFault {
				panic(v)
			}
			out, err = nil, errors.Join(ErrCorrupt, errShrank)
		}
	}()
	return d.openBlock(pt, ct, seq, count, nonce)
}

// faultsPanic makes a fault in the calling goroutine a panic openMapped
// recovers from, and returns the function that puts the setting back.
func faultsPanic() func() {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// withFd runs fn with f's descriptor, kept open for the call.
func withFd(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
