package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// stampAttr is the extended attribute that carries a file's stamp: the
// Stamp of the catalogue record that describes it (metadata.Stamper),
// eight bytes, big-endian.
const stampAttr = "user.objectgateway.stamp"

// FileStamp returns the stamp of an open file and its ctime (Unix
// nanoseconds), and false when it has no stamp (or the filesystem keeps
// no extended attributes). The ctime is what a record cache keeps with a
// stamp: setting a stamp, a write, a link, a rename, a change of times or
// of any attribute moves it forward, and no process can set it, so a file
// whose stamp and inode came back (a copy made with its attributes and
// copied back over itself, a hard link put back) still shows a change.
func FileStamp(f *os.File) (stamp uint64, ctime int64, ok bool) {
	var st unix.Stat_t
	err := withFd(f, func(fd int) (err error) {
		if stamp, err = readStamp(fd); err != nil {
			return err
		}
		return ignoringEINTR(func() error { return unix.Fstat(fd, &st) })
	})
	if err != nil {
		return 0, 0, false
	}
	return stamp, st.Ctim.Sec*1e9 + st.Ctim.Nsec, true
}

// readStamp reads the stamp of the file fd: ENODATA when it has none, and
// EINVAL or ERANGE for an attribute that is no stamp (not eight bytes).
func readStamp(fd int) (uint64, error) {
	var b [8]byte
	n := 0
	err := ignoringEINTR(func() (err error) {
		n, err = unix.Fgetxattr(fd, stampAttr, b[:])
		return err
	})
	if err == nil && n != len(b) {
		err = unix.EINVAL
	}
	return binary.BigEndian.Uint64(b[:]), err
}

// SetStamp marks the file of the object bucket/key at loc with stamp,
// replacing the stamp it had; a zero stamp removes it. A missing file, or
// a Directory or Noncurrent location, has nothing to mark and is not an
// error. When the stamp cannot be set (no space for it, a file the
// gateway may not change) the old one is removed instead, or found
// absent: a file without a stamp never confirms a record. The one failure
// is an old stamp that stays.
func (fs *FS) SetStamp(bucket, key string, loc Location, stamp uint64) error {
	if loc != Natural && loc != Shadow {
		return nil
	}
	f, _, err := fs.Open(bucket, key, loc)
	if errors.Is(err, ErrNotFound) || errors.Is(err, os.ErrPermission) {
		// A file the gateway may not open cannot confirm a record to
		// any gateway (they all run as one user) either.
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if stamp != 0 && stampFile(f, stamp) == nil {
		return nil
	}
	err = stampFile(f, 0)
	if err == nil {
		return nil
	}
	if present, perr := stampPresent(f); perr == nil && !present {
		return nil
	}
	// Not wrapped: the gateway could not change its own marker, which is
	// no caller's missing permission.
	return fmt.Errorf("storage: the stamp of %s/%s can be neither replaced nor removed: %v", bucket, key, err)
}

// stampFile sets f's stamp, or removes it when stamp is zero (a stamp
// already absent is not an error). A locked version's file bears the
// immutable flag, and a file may bear the append-only flag, which refuse
// attribute changes too: they are lifted for the change and set again.
func stampFile(f *os.File, stamp uint64) error {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], stamp)
	change := func() error {
		return withFd(f, func(fd int) error {
			return ignoringEINTR(func() error {
				if stamp == 0 {
					err := unix.Fremovexattr(fd, stampAttr)
					if errors.Is(err, unix.ENODATA) {
						return nil
					}
					return err
				}
				return unix.Fsetxattr(fd, stampAttr, b[:], 0)
			})
		})
	}
	err := change()
	if !errors.Is(err, unix.EPERM) {
		return err
	}
	restore, lifted := liftFlags(f, fsImmutableFL|fsAppendFL)
	if !lifted {
		return err
	}
	return errors.Join(change(), restore())
}

// fsAppendFL is FS_APPEND_FL, the append-only flag of chattr +a.
const fsAppendFL = 0x00000020

// liftFlags clears the flags of mask that f bears and returns the function
// that sets them again; false when f bears none of them or they cannot be
// cleared (no CAP_LINUX_IMMUTABLE).
func liftFlags(f *os.File, mask uint32) (restore func() error, ok bool) {
	var flags uint32
	err := withFd(f, func(fd int) error {
		var err error
		if flags, err = unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS); err != nil {
			return err
		}
		if flags&mask == 0 {
			return unix.EINVAL
		}
		return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(int32(flags&^mask)))
	})
	if err != nil {
		return nil, false
	}
	return func() error {
		err := withFd(f, func(fd int) error { return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(int32(flags))) })
		if err != nil {
			return &os.PathError{Op: "ioctl FS_IOC_SETFLAGS", Path: f.Name(), Err: err}
		}
		return nil
	}, true
}

// Stamps reports whether the data root's filesystem keeps the user
// extended attributes that stamps are: it sets one on a probe file in the
// staging area (whose leftovers are cleared like any staging file's), and
// learns from the probe's ctime the filesystem's timestamp granularity
// (StampTick).
func (fs *FS) Stamps() bool {
	fs.stampTick = time.Second
	// A ctime with nanoseconds is kept at least as finely as the
	// kernel's clock tick; whole seconds twice are whole seconds.
	for range 2 {
		ctime, ok := fs.probeStamp()
		if !ok {
			fs.stampTick = 0
			return false
		}
		if ctime%1e9 != 0 {
			fs.stampTick = 10 * time.Millisecond
			break
		}
	}
	return true
}

// probeStamp stamps a new file in the staging area, reads the stamp back
// with the file's ctime, and removes the file.
func (fs *FS) probeStamp() (ctime int64, ok bool) {
	name := fs.prefix + "stamp-probe"
	f, err := fs.createProbe(name)
	if err != nil {
		return 0, false
	}
	defer func() {
		f.Close()
		_ = fs.unlinkAt(fs.staging, name, 0)
	}()
	if stampFile(f, 1) != nil {
		return 0, false
	}
	s, ctime, ok := FileStamp(f)
	return ctime, ok && s == 1
}

// StampTick is the granularity of the filesystem's timestamps as Stamps
// found it: 10 ms (the coarsest kernel clock tick) for a filesystem that
// keeps nanoseconds, a second for one that keeps whole seconds. A record
// cache must not trust a ctime that is younger than two ticks: a change
// of the file within the same tick may leave it as it is ("racily
// clean").
func (fs *FS) StampTick() time.Duration { return fs.stampTick }

// stampPresent reports whether f has a stamp: false only when the
// filesystem says the attribute is absent or it is no stamp; any other
// failure to read it is an error, and the stamp may be there.
func stampPresent(f *os.File) (bool, error) {
	err := withFd(f, func(fd int) error {
		_, err := readStamp(fd)
		return err
	})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENODATA), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ERANGE):
		// Absent, or a value of another length: no stamp, which
		// confirms nothing.
		return false, nil
	}
	return false, err
}

// unstampAt removes the stamp of the version file base in dir before it
// becomes current again (Restore): the stamp is that of the record the
// file had when it was current last. The move itself changes the file's
// ctime, which a record cache checks with the stamp; removing the stamp
// as well makes the file confirm no record until its new one is written.
// Best effort: f is the file already open for its immutable flag, or nil.
func unstampAt(dir *os.File, base string, f *os.File) {
	if f == nil {
		var err error
		if f, err = openFlagged(dir, base); err != nil {
			return
		}
		defer f.Close()
	}
	if _, _, stamped := FileStamp(f); stamped {
		_ = stampFile(f, 0)
	}
}
