package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"
)

// This file is the versions area: the files of noncurrent versions and
// of the versions behind delete markers, under StateDir/versions. A file
// gets there, and back, by rename or hard link on the same filesystem,
// never by copy.

// ErrExists is returned by Restore when a file is already at the key's
// path: Restore never replaces one.
var ErrExists = errors.New("storage: a file is already at the key's path")

// maxVersionID is the longest version id VersionPath accepts.
const maxVersionID = 64

// VersionPath returns the file of version vid of bucket/key, relative to
// the root: StateDir/versions/<bucket>/<first 2 hex>/<sha256(key) hex>.<vid>,
// the hash as in ShadowPath. The null version ("" or "null") is spelled
// "null". Version ids are the caller's: only 1–64 characters of
// [0-9A-Za-z_-] are accepted, so that an id is never a path component
// nobody checked; any other id, or an invalid bucket name, is an error
// wrapping EINVAL.
func VersionPath(bucket, key, vid string) (string, error) {
	if !validBucket(bucket) {
		return "", &os.PathError{Op: "version", Path: bucket, Err: syscall.EINVAL}
	}
	if vid == "" {
		vid = "null"
	}
	if !validVersionID(vid) {
		return "", &os.PathError{Op: "version", Path: vid, Err: syscall.EINVAL}
	}
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:])
	return versionsDir + "/" + bucket + "/" + h[:2] + "/" + h + "." + vid, nil
}

func validVersionID(vid string) bool {
	if vid == "" || len(vid) > maxVersionID {
		return false
	}
	for i := 0; i < len(vid); i++ {
		c := vid[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// versionsBucketDir is the versions directory of one bucket.
func versionsBucketDir(bucket string) string {
	return versionsDir + "/" + bucket
}

// OpenVersion opens the file of version vid of bucket/key for reading,
// as Open does for a current version: ErrNotFound when it is missing or
// not a regular file.
func (fs *FS) OpenVersion(bucket, key, vid string) (*os.File, FileInfo, error) {
	p, err := VersionPath(bucket, key, vid)
	if err != nil {
		return nil, FileInfo{}, err
	}
	return fs.openRegular(fs.root, p)
}

// IdentifyVersion is Identify for the file of version vid of bucket/key:
// its FileInfo without opening it, ok false when it is missing, not a
// regular file, or reached through a symbolic link.
func (fs *FS) IdentifyVersion(bucket, key, vid string) (FileInfo, bool) {
	p, err := VersionPath(bucket, key, vid)
	if err != nil {
		return FileInfo{}, false
	}
	var st unix.Stat_t
	if err := withFd(fs.rootDir, func(fd int) error { return statBeneath(fd, p, &st) }); err != nil ||
		st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileInfo{}, false
	}
	return FileInfo{Size: st.Size, Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Inode: st.Ino}, true
}

// RemoveVersion removes the file of version vid of bucket/key and fsyncs
// its directory. A file that carries the immutable flag has it cleared
// first (the unlink's EPERM says so, which costs nothing when the flag
// is not set). It returns ErrNotFound when the file is missing.
func (fs *FS) RemoveVersion(bucket, key, vid string) error {
	p, err := VersionPath(bucket, key, vid)
	if err != nil {
		return err
	}
	return fs.removeVersionFile(p)
}

// removeVersionFile is RemoveVersion of the file p, relative to the root.
func (fs *FS) removeVersionFile(p string) error {
	d, err := openDir(fs.root, path.Dir(p))
	if err != nil {
		return fs.mapErr(err)
	}
	defer d.Close()
	base := path.Base(p)
	err = fs.unlinkAt(d, base, 0)
	if errors.Is(err, syscall.EPERM) && fs.immutableOK {
		f, ferr := fs.unflag(d, base, true)
		if ferr != nil {
			return errors.Join(err, ferr)
		}
		if err = fs.unlinkAt(d, base, 0); err != nil {
			// The file stays; so does its protection.
			return errors.Join(err, reflag(f))
		}
		if f != nil {
			f.Close()
		}
	}
	if err != nil {
		if errors.Is(err, syscall.EISDIR) {
			return fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		return fs.mapErr(err)
	}
	if err := fs.injected("dirsync", d); err != nil {
		return err
	}
	return fs.sync(d)
}

// Demote moves the current version of bucket/key at loc to the versions
// area as version vid, for a DELETE that writes a delete marker: the file
// (Natural or Shadow) is renamed to VersionPath(bucket, key, vid),
// replacing a file a crash may have left there, then the versions
// directory and the directory it left are fsynced, and for Natural the
// parent directories that became empty are pruned as Remove does. A
// Directory location has no bytes: its directory is removed if empty, as
// Remove does, and nothing is moved. immutable says the file carries the
// immutable flag: it is cleared for the rename and set again on the same
// inode at its new name.
//
// A failed fsync takes the rename back, so an error leaves the file at
// the key's path. Demote returns ErrNotFound when the file is missing (a
// directory at the path counts as missing), and an error wrapping EINVAL
// for anything at the path but a regular file.
func (fs *FS) Demote(bucket, key string, loc Location, vid string, immutable bool) error {
	vp, err := VersionPath(bucket, key, vid)
	if err != nil {
		return err
	}
	var r *os.Root
	var rel string
	switch loc {
	case Directory:
		return fs.Remove(bucket, key, Directory)
	case Natural:
		if _, ok := NaturalPath(bucket, key); !ok {
			return fmt.Errorf("%w: %q has no natural path", ErrNotFound, key)
		}
		br, err := fs.bucketRoot(bucket)
		if err != nil {
			return err
		}
		defer br.Close()
		r, rel = br, key
	case Shadow:
		r, rel = fs.root, ShadowPath(bucket, key)
	default:
		return fmt.Errorf("storage: cannot demote from location %v", loc)
	}
	d, err := openDir(r, path.Dir(rel))
	if err != nil {
		return fs.mapErr(err)
	}
	defer d.Close()
	base := path.Base(rel)
	if err := regularAt(d, base); err != nil {
		return fs.mapErr(err)
	}
	vd, err := fs.ensureDir(fs.root, path.Dir(vp))
	if err != nil {
		return fs.mapErr(err)
	}
	defer vd.Close()
	vbase := path.Base(vp)
	flagged, err := fs.unflag(d, base, immutable)
	if err != nil {
		return err
	}
	err = fs.injected("rename", d)
	if err == nil {
		err = fs.renameOver(d, base, vd, vbase)
	}
	if err != nil {
		return errors.Join(fs.mapErr(err), reflag(flagged))
	}
	err = fs.injected("dirsync", vd)
	if err == nil {
		err = fs.sync(vd)
	}
	if err == nil {
		err = fs.injected("dirsync", d)
	}
	if err == nil {
		err = fs.sync(d)
	}
	if err != nil {
		// The caller will not write the delete marker: the file goes back.
		return errors.Join(err, renameAt(vd, vbase, d, base, 0), reflag(flagged))
	}
	if err := reflag(flagged); err != nil {
		return err
	}
	if loc == Natural {
		fs.prune(r, bucket, path.Dir(key))
	}
	return nil
}

// Restore makes version vid of bucket/key current again (an undelete, or
// a noncurrent version promoted): its file is renamed from the versions
// area to the key's natural path, creating parent directories, or to the
// shadow path when the natural path cannot hold the key (the collisions
// Commit handles). Both directories are fsynced. It returns where the
// file landed and its FileInfo (the same inode). immutable says the file
// carries the immutable flag, which is cleared for the rename and set
// again afterwards.
//
// Restore never replaces a file: one already at the key's path makes it
// fail with an error wrapping ErrExists, and the version stays where it
// was. It returns ErrNotFound when the version's file is missing. It
// needs renameat2 RENAME_NOREPLACE (Linux 3.15, ext4, XFS, Btrfs, tmpfs).
func (fs *FS) Restore(bucket, key, vid string, immutable bool) (Location, FileInfo, error) {
	vp, err := VersionPath(bucket, key, vid)
	if err != nil {
		return 0, FileInfo{}, err
	}
	vd, err := openDir(fs.root, path.Dir(vp))
	if err != nil {
		return 0, FileInfo{}, fs.mapErr(err)
	}
	defer vd.Close()
	vbase := path.Base(vp)
	var st unix.Stat_t
	if err := fstatAt(vd, vbase, &st); err != nil {
		return 0, FileInfo{}, fs.mapErr(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, FileInfo{}, fmt.Errorf("%w: version %s is not a regular file", ErrNotFound, vp)
	}
	fi := FileInfo{Size: st.Size, Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Inode: st.Ino}
	flagged, err := fs.unflag(vd, vbase, immutable)
	if err != nil {
		return 0, FileInfo{}, err
	}
	unstampAt(vd, vbase, flagged)
	loc, d, err := fs.restoreNatural(vd, vbase, bucket, key)
	if err == nil && d == nil {
		loc, d, err = fs.restoreShadow(vd, vbase, bucket, key)
	}
	if err != nil {
		return 0, FileInfo{}, errors.Join(err, reflag(flagged))
	}
	defer d.Close()
	err = fs.injected("dirsync", d)
	if err == nil {
		err = fs.sync(d)
	}
	if err == nil {
		err = fs.injected("dirsync", vd)
	}
	if err == nil {
		err = fs.sync(vd)
	}
	if err != nil {
		// The caller will not index the version as current: it goes back.
		base := path.Base(key)
		if loc == Shadow {
			base = path.Base(ShadowPath(bucket, key))
		}
		return 0, FileInfo{}, errors.Join(err, renameAt(d, base, vd, vbase, 0), reflag(flagged))
	}
	if err := reflag(flagged); err != nil {
		return 0, FileInfo{}, err
	}
	return loc, fi, nil
}

// restoreNatural renames the version file vbase of vd to bucket/key
// without replacing anything. It returns the open directory it landed
// in, or a nil directory and no error when the natural path cannot hold
// the key. Like commitNatural it retries when a concurrent Remove pruned
// a directory it created.
func (fs *FS) restoreNatural(vd *os.File, vbase, bucket, key string) (Location, *os.File, error) {
	if _, ok := NaturalPath(bucket, key); !ok {
		return 0, nil, nil
	}
	br, err := fs.bucketRoot(bucket)
	if err != nil {
		return 0, nil, err
	}
	defer br.Close()
	dir, base := path.Dir(key), path.Base(key)
	for attempt := 1; ; attempt++ {
		d, err := fs.ensureDir(br, dir)
		if err == nil {
			err = fs.injected("rename", d)
			if err == nil {
				err = renameAt(vd, vbase, d, base, unix.RENAME_NOREPLACE)
			}
			if err == nil {
				return Natural, d, nil
			}
			if errors.Is(err, syscall.EEXIST) && !fs.isDirAt(d, base) {
				d.Close()
				return 0, nil, fmt.Errorf("%w: %w", ErrExists, err)
			}
			d.Close()
		}
		switch {
		case fs.isEscape(err):
			return 0, nil, fs.mapErr(err)
		case isCollision(err):
			return 0, nil, nil
		case errors.Is(err, syscall.ENOENT):
			var st unix.Stat_t
			if serr := fstatAt(vd, vbase, &st); serr != nil {
				return 0, nil, fs.mapErr(serr)
			}
			if err := fs.bucketExists(bucket); err != nil {
				return 0, nil, err
			}
			if attempt < maxAttempts {
				continue
			}
			return 0, nil, nil
		}
		return 0, nil, err
	}
}

// restoreShadow renames the version file vbase of vd to the key's shadow
// path without replacing anything.
func (fs *FS) restoreShadow(vd *os.File, vbase, bucket, key string) (Location, *os.File, error) {
	p := ShadowPath(bucket, key)
	d, err := fs.ensureDir(fs.root, path.Dir(p))
	if err != nil {
		return 0, nil, fs.mapErr(err)
	}
	err = fs.injected("rename", d)
	if err == nil {
		err = renameAt(vd, vbase, d, path.Base(p), unix.RENAME_NOREPLACE)
	}
	if errors.Is(err, syscall.EEXIST) {
		err = fmt.Errorf("%w: %w", ErrExists, err)
	}
	if err != nil {
		d.Close()
		return 0, nil, fs.mapErr(err)
	}
	return Shadow, d, nil
}

// removeVersionsDir removes the versions directory of a bucket when it
// holds no file: its fan-out directories, then itself. A directory that
// still holds a file is left, with everything in it; the index removes
// every version before the bucket, so such a file is a crash's orphan
// for fsck to report.
func (fs *FS) removeVersionsDir(bucket string) error {
	if !validBucket(bucket) {
		return nil
	}
	top, err := openDir(fs.root, versionsBucketDir(bucket))
	if errors.Is(err, syscall.ENOENT) {
		return nil
	}
	if err != nil {
		return err
	}
	defer top.Close()
	names, err := top.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		err := fs.unlinkAt(top, n, unix.AT_REMOVEDIR)
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		if err != nil && !errors.Is(err, syscall.ENOENT) {
			return err
		}
	}
	err = fs.rmdirIn(fs.root, versionsBucketDir(bucket))
	if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOENT) {
		return nil
	}
	if err != nil {
		return err
	}
	return fs.syncDir(fs.root, versionsDir)
}

// injected returns the test seam's error for op on the directory d, if
// any (FS.fault).
func (fs *FS) injected(op string, d *os.File) error {
	if fs.fault == nil {
		return nil
	}
	if err := fs.fault(op); err != nil {
		return &os.PathError{Op: op, Path: d.Name(), Err: err}
	}
	return nil
}

// regularAt returns nil when base in dir is a regular file (not following
// a symbolic link), an error wrapping ErrNotFound when it is missing or a
// directory, and one wrapping EINVAL for anything else.
func regularAt(dir *os.File, base string) error {
	var st unix.Stat_t
	if err := fstatAt(dir, base, &st); err != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return nil
	case unix.S_IFDIR:
		return fmt.Errorf("%w: %w", ErrNotFound, &os.PathError{Op: "stat", Path: path.Join(dir.Name(), base), Err: syscall.EISDIR})
	}
	return &os.PathError{Op: "stat", Path: path.Join(dir.Name(), base), Err: syscall.EINVAL}
}

// fstatAt stats base in dir without following a symbolic link.
func fstatAt(dir *os.File, base string, st *unix.Stat_t) error {
	err := withFd(dir, func(fd int) error {
		return ignoringEINTR(func() error { return unix.Fstatat(fd, base, st, unix.AT_SYMLINK_NOFOLLOW) })
	})
	if err != nil {
		return &os.PathError{Op: "fstatat", Path: path.Join(dir.Name(), base), Err: err}
	}
	return nil
}

// renameAt renames from in fromDir to to in toDir with renameat2 flags.
func renameAt(fromDir *os.File, from string, toDir *os.File, to string, flags uint) error {
	err := withFd(fromDir, func(ffd int) error {
		return withFd(toDir, func(tfd int) error {
			return ignoringEINTR(func() error { return unix.Renameat2(ffd, from, tfd, to, flags) })
		})
	})
	if err != nil {
		return &os.LinkError{Op: "renameat2", Old: path.Join(fromDir.Name(), from), New: path.Join(toDir.Name(), to), Err: err}
	}
	return nil
}

// renameOver renames from in fromDir over to in toDir, where a crash may
// have left a file: one that carries the immutable flag (rename refuses
// to replace it with EPERM) has the flag cleared and the rename is tried
// again, so a leftover never blocks the move.
func (fs *FS) renameOver(fromDir *os.File, from string, toDir *os.File, to string) error {
	err := renameAt(fromDir, from, toDir, to, 0)
	if errors.Is(err, syscall.EPERM) && fs.immutableOK {
		if fs.clearImmutableAt(toDir, to) == nil {
			err = renameAt(fromDir, from, toDir, to, 0)
		}
	}
	return err
}

// linkAt links from in fromDir as to in toDir, not following a symbolic
// link at from.
func linkAt(fromDir *os.File, from string, toDir *os.File, to string) error {
	err := withFd(fromDir, func(ffd int) error {
		return withFd(toDir, func(tfd int) error {
			return ignoringEINTR(func() error { return unix.Linkat(ffd, from, tfd, to, 0) })
		})
	})
	if err != nil {
		return &os.LinkError{Op: "linkat", Old: path.Join(fromDir.Name(), from), New: path.Join(toDir.Name(), to), Err: err}
	}
	return nil
}
