package testfs

import (
	"encoding/binary"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Extent is one extent of a file's block map, as FIEMAP reports it.
type Extent struct {
	// Logical is the extent's offset in the file, Physical its address
	// on the device (for Btrfs, in its logical address space), Length
	// its size; all in bytes.
	Logical, Physical, Length int64
	// Shared is FIEMAP_EXTENT_SHARED: another file (a reflink copy)
	// holds the same blocks.
	Shared bool
}

// The FIEMAP ABI of <linux/fiemap.h>, which golang.org/x/sys/unix does
// not define.
const (
	fsIocFiemap      = 0xC020660B // _IOWR('f', 11, struct fiemap)
	fiemapFlagSync   = 0x1
	fiemapExtentLast = 0x1
	fiemapExtentSh   = 0x2000
	fiemapHeader     = 32
	fiemapExtentSize = 56
	fiemapBatch      = 128
)

// Extents returns the block map of f, written back first
// (FIEMAP_FLAG_SYNC) so that delayed allocations have their addresses.
// Holes have no extent.
func Extents(f *os.File) ([]Extent, error) {
	var out []Extent
	buf := make([]byte, fiemapHeader+fiemapBatch*fiemapExtentSize)
	le := binary.LittleEndian
	// Each round maps at least one more extent or ends, and a file has
	// at most as many extents as blocks: the bound only guards against a
	// filesystem that answers the same extent forever.
	start := uint64(0)
	for range 1 << 20 {
		clear(buf)
		le.PutUint64(buf[0:], start)
		le.PutUint64(buf[8:], ^uint64(0)-start)
		le.PutUint32(buf[16:], fiemapFlagSync)
		le.PutUint32(buf[24:], fiemapBatch)
		var errno unix.Errno
		rc, err := f.SyscallConn()
		if err != nil {
			return nil, err
		}
		if err := rc.Control(func(fd uintptr) {
			_, _, errno = unix.Syscall(unix.SYS_IOCTL, fd, fsIocFiemap, uintptr(unsafe.Pointer(&buf[0])))
		}); err != nil {
			return nil, err
		}
		if errno != 0 {
			return nil, &os.PathError{Op: "ioctl FS_IOC_FIEMAP", Path: f.Name(), Err: errno}
		}
		mapped := int(le.Uint32(buf[20:]))
		if mapped == 0 {
			return out, nil
		}
		for i := range mapped {
			e := buf[fiemapHeader+i*fiemapExtentSize:]
			flags := le.Uint32(e[40:])
			out = append(out, Extent{
				Logical:  int64(le.Uint64(e[0:])),
				Physical: int64(le.Uint64(e[8:])),
				Length:   int64(le.Uint64(e[16:])),
				Shared:   flags&fiemapExtentSh != 0,
			})
			if flags&fiemapExtentLast != 0 {
				return out, nil
			}
		}
		last := out[len(out)-1]
		start = uint64(last.Logical + last.Length)
	}
	return nil, fmt.Errorf("testfs: the block map of %s does not end", f.Name())
}

// Range returns the part of the block map exts that holds the bytes
// [off, off+n) of the file, with logical offsets from off, and physically
// contiguous extents merged: two ranges hold the same blocks exactly when
// their Range are equal, whatever extents each file's writes made.
func Range(exts []Extent, off, n int64) []Extent {
	var out []Extent
	for _, e := range exts {
		lo, hi := max(e.Logical, off), min(e.Logical+e.Length, off+n)
		if lo >= hi {
			continue
		}
		c := Extent{Logical: lo - off, Physical: e.Physical + (lo - e.Logical), Length: hi - lo}
		if k := len(out) - 1; k >= 0 && out[k].Logical+out[k].Length == c.Logical && out[k].Physical+out[k].Length == c.Physical {
			out[k].Length += c.Length
			continue
		}
		out = append(out, c)
	}
	return out
}

// Used returns the bytes in use on the filesystem holding dir, after
// writing back its dirty data (syncfs), which delayed allocation and
// Btrfs's transactions would otherwise leave uncounted.
func Used(dir string) (int64, error) {
	f, err := os.Open(dir)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return 0, &os.PathError{Op: "syncfs", Path: dir, Err: err}
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return 0, &os.PathError{Op: "fstatfs", Path: dir, Err: err}
	}
	return int64(st.Blocks-st.Bfree) * st.Bsize, nil
}
