package storage

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// WalkFunc receives one regular file found by Walk: its key (the path
// below the bucket directory, segments joined by "/") and its FileInfo.
// Returning an error stops the walk and Walk returns that error.
type WalkFunc func(key string, fi FileInfo) error

// SkipFunc receives an entry Walk does not yield, with the reason: a
// symbolic link that leaves the bucket or points at a directory, a FIFO,
// socket or device, a directory that cannot be read.
type SkipFunc func(key string, reason error)

// WalkOptions configure Walk. The zero value yields every regular file and
// ignores skipped entries.
type WalkOptions struct {
	// Skip, when set, is told about every entry that is not yielded.
	Skip SkipFunc
	// NoStat yields a zero FileInfo without calling fstatat, for a quick
	// first pass that only counts files.
	NoStat bool
}

// errSpecial is the skip reason of FIFOs, sockets and devices.
var errSpecial = errors.New("storage: not a regular file")

// errDirLink is the skip reason of symbolic links to directories, which
// Walk does not follow so that a link cannot make it loop.
var errDirLink = errors.New("storage: symbolic link to a directory is not followed")

// Walk visits the regular files of a bucket in S3 key order (unsigned
// byte order of the keys), calling fn for each. It never leaves the bucket
// directory, so it never enters another bucket or StateDir.
//
// Directories are entered without following symbolic links (openat with
// O_NOFOLLOW, one component at a time). A symbolic link to a file is
// resolved through the bucket's os.Root: a link whose target stays inside
// the bucket is yielded with the target's FileInfo, as Open would serve
// it; one that leaves the bucket (or is absolute, or dangles) is skipped
// with ErrEscape or ErrNotFound. Links to directories, FIFOs, sockets and
// devices are skipped too.
//
// Keys are made of directory entry names, so they never hold empty, "."
// or ".." segments, but they may be invalid UTF-8 or longer than S3
// allows; that is the caller's concern. Walk returns ErrNotFound when the
// bucket directory is missing and ErrEscape when it is not a plain
// directory.
//
// Each directory is read whole and sorted before its entries are visited,
// so memory follows the largest directory, not the tree, and one file
// descriptor is open per level of depth.
func (fs *FS) Walk(bucket string, o WalkOptions, fn WalkFunc) error {
	br, err := fs.bucketRoot(bucket)
	if err != nil {
		return err
	}
	defer br.Close()
	top, err := openDir(br, ".")
	if err != nil {
		return fs.mapErr(err)
	}
	defer top.Close()
	w := walker{fs: fs, br: br, o: o, fn: fn}
	return w.dir(top, "")
}

type walker struct {
	fs *FS
	br *os.Root
	o  WalkOptions
	fn WalkFunc
}

func (w *walker) skip(key string, reason error) {
	if w.o.Skip != nil {
		w.o.Skip(key, reason)
	}
}

// walkEntry is a directory entry with the name it sorts by: a directory
// sorts as name + "/", because every key below it starts with that.
type walkEntry struct {
	sortName string
	name     string
	typ      iofs.FileMode
}

// dir visits the open directory d whose keys start with prefix.
func (w *walker) dir(d *os.File, prefix string) error {
	ents, err := d.ReadDir(-1)
	if err != nil {
		w.skip(prefix, err)
		return nil
	}
	list := make([]walkEntry, 0, len(ents))
	for _, e := range ents {
		t := e.Type()
		sn := e.Name()
		if t.IsDir() {
			sn += "/"
		}
		list = append(list, walkEntry{sortName: sn, name: e.Name(), typ: t})
	}
	// Entries of one directory share prefix, and a directory's keys all
	// start with its name + "/", so this order is the keys' byte order.
	slices.SortFunc(list, func(a, b walkEntry) int { return strings.Compare(a.sortName, b.sortName) })
	for _, e := range list {
		key := prefix + e.name
		switch {
		case e.typ.IsDir():
			sub, err := openBelow(d, e.name)
			if err != nil {
				// Replaced by a file or link since ReadDir: skip it.
				w.skip(key+"/", err)
				continue
			}
			err = w.dir(sub, key+"/")
			sub.Close()
			if err != nil {
				return err
			}
		case e.typ.IsRegular():
			var fi FileInfo
			if !w.o.NoStat {
				var ok bool
				if fi, ok, err = statAt(d, e.name); err != nil {
					if errors.Is(err, syscall.ENOENT) {
						continue // removed since ReadDir
					}
					w.skip(key, err)
					continue
				} else if !ok {
					// Replaced by something else since ReadDir.
					w.skip(key, errSpecial)
					continue
				}
			}
			if err := w.fn(key, fi); err != nil {
				return err
			}
		case e.typ&iofs.ModeSymlink != 0:
			st, err := w.br.Stat(key)
			if err != nil {
				w.skip(key, w.fs.mapErr(err))
				continue
			}
			if st.IsDir() {
				w.skip(key, errDirLink)
				continue
			}
			if !st.Mode().IsRegular() {
				w.skip(key, errSpecial)
				continue
			}
			if err := w.fn(key, fileInfo(st)); err != nil {
				return err
			}
		default:
			w.skip(key, errSpecial)
		}
	}
	return nil
}

// statAt is fstatat(dir, name, AT_SYMLINK_NOFOLLOW). It reports false when
// name is not a regular file.
func statAt(dir *os.File, name string) (FileInfo, bool, error) {
	var st unix.Stat_t
	err := withFd(dir, func(fd int) error {
		return ignoringEINTR(func() error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	})
	if err != nil {
		return FileInfo{}, false, &os.PathError{Op: "fstatat", Path: dir.Name() + "/" + name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileInfo{}, false, nil
	}
	return FileInfo{
		Size:  st.Size,
		Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		Inode: st.Ino,
	}, true, nil
}

// Stat returns the FileInfo of the object bucket/key stored at loc, like
// Open without keeping the file: ErrNotFound when it is missing or not a
// regular file. A Directory location is checked to be a directory at the
// key's natural path (without its trailing "/") and has a zero FileInfo.
func (fs *FS) Stat(bucket, key string, loc Location) (FileInfo, error) {
	if loc != Directory {
		f, fi, err := fs.Open(bucket, key, loc)
		if err != nil {
			return FileInfo{}, err
		}
		f.Close()
		return fi, nil
	}
	if !strings.HasSuffix(key, "/") {
		return FileInfo{}, fmt.Errorf("%w: directory key %q does not end in /", ErrNotFound, key)
	}
	name := key[:len(key)-1]
	if _, ok := NaturalPath(bucket, name); !ok {
		return FileInfo{}, fmt.Errorf("%w: %q has no natural path", ErrNotFound, key)
	}
	br, err := fs.bucketRoot(bucket)
	if err != nil {
		return FileInfo{}, err
	}
	defer br.Close()
	st, err := br.Lstat(name)
	if err != nil {
		return FileInfo{}, fs.mapErr(err)
	}
	if !st.IsDir() {
		return FileInfo{}, fmt.Errorf("%w: %q is not a directory", ErrNotFound, name)
	}
	return FileInfo{}, nil
}
