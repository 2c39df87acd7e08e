package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// stampAttr is the extended attribute that carries a file's stamp: the
// Stamp of the catalogue record that describes it (metadata.Stamper),
// eight bytes, big-endian.
const stampAttr = "user.objectgateway.stamp"

// FileStamp returns the stamp of an open file, and false when it has none
// (or the filesystem keeps no extended attributes).
func FileStamp(f *os.File) (uint64, bool) {
	var b [8]byte
	n := 0
	err := withFd(f, func(fd int) error {
		return ignoringEINTR(func() (err error) {
			n, err = unix.Fgetxattr(fd, stampAttr, b[:])
			return err
		})
	})
	if err != nil || n != len(b) {
		return 0, false
	}
	return binary.BigEndian.Uint64(b[:]), true
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
	if errors.Is(err, ErrNotFound) {
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
	if _, stamped := FileStamp(f); !stamped {
		return nil
	}
	return fmt.Errorf("storage: stamp %s/%s: %w", bucket, key, err)
}

// stampFile sets f's stamp, or removes it when stamp is zero (a stamp
// already absent is not an error). A locked version's file bears the
// immutable flag, which refuses attribute changes too: it is lifted for
// the change and set again.
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
	if on, ierr := isImmutable(f); ierr != nil || !on || setImmutable(f, false) != nil {
		return err
	}
	err = change()
	return errors.Join(err, setImmutable(f, true))
}

// Stamps reports whether the data root's filesystem keeps the user
// extended attributes that stamps are: it sets one on a staging file.
func (fs *FS) Stamps() bool {
	u, err := fs.NewUpload()
	if err != nil {
		return false
	}
	defer u.Abort()
	if stampFile(u.File(), 1) != nil {
		return false
	}
	s, ok := FileStamp(u.File())
	return ok && s == 1
}

// unstampAt removes the stamp of the version file base in dir before it
// becomes current again (Restore): the stamp is that of the record the
// file had when it was current last, and a reader holding that record
// must not take it for the record the version has now. f is the file
// already open for its immutable flag, or nil. A file that cannot be
// opened has no stamp to fear (Restore then fails on it anyway).
func unstampAt(dir *os.File, base string, f *os.File) error {
	if f == nil {
		var err error
		if f, err = openFlagged(dir, base); err != nil {
			return nil
		}
		defer f.Close()
	}
	if _, stamped := FileStamp(f); !stamped {
		return nil
	}
	return stampFile(f, 0)
}
