package storage

import (
	"errors"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// maxAttempts bounds how often Commit recreates a parent directory that a
// concurrent Remove pruned between MkdirAll and rename. After that the key
// goes to the shadow area, which nothing prunes.
const maxAttempts = 8

// errFinished is returned by Commit when the upload was already committed
// or aborted.
var errFinished = errors.New("storage: upload already committed or aborted")

// FileInfo is what fstat says about an object's file. The index keeps Size
// and Mtime so that a read whose stat disagrees can refresh the record.
type FileInfo struct {
	Size  int64
	Mtime int64 // Unix nanoseconds.
	Inode uint64
}

// fileInfo extracts FileInfo from an fstat result.
func fileInfo(fi os.FileInfo) FileInfo {
	return statInfo(fi.Sys().(*syscall.Stat_t))
}

// statInfo extracts FileInfo from a stat(2) buffer.
func statInfo(st *syscall.Stat_t) FileInfo {
	return FileInfo{
		Size:  st.Size,
		Mtime: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec),
		Inode: st.Ino,
	}
}

// Upload is an object being written: a temp file in StateDir/staging that
// Commit renames into place. An Upload is not safe for concurrent use.
type Upload struct {
	fs   *FS
	f    *os.File
	name string // base name in StateDir/staging
	done bool
	// pub is the Publish that Keep or Undo has yet to finish, if any.
	pub *published
	// synced is set once the file's bytes are durable (Sync).
	synced bool
	// written is the size of the file so far; flushed is the offset up
	// to which writeback has been started (see Write).
	written, flushed int64
}

// writebackChunk is how much an upload writes before it asks the kernel to
// start writing those pages to disk (sync_file_range), so that the fsync
// of Commit finds most of a large file already on its way to the disk
// instead of flushing all of it at the end.
const writebackChunk = 8 << 20

// NewUpload creates an empty temp file in StateDir/staging, on the same
// filesystem as the buckets so that Commit is a rename.
func (fs *FS) NewUpload() (*Upload, error) {
	name := fs.prefix + strconv.FormatUint(fs.seq.Add(1), 10)
	// Creating the file relative to the open staging directory costs one
	// openat instead of a walk from the root; O_EXCL|O_NOFOLLOW refuses
	// anything already at that name.
	var fd int
	err := withFd(fs.staging, func(dfd int) error {
		return ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(dfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
			return err
		})
	})
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: path.Join(fs.staging.Name(), name), Err: err}
	}
	return &Upload{fs: fs, f: os.NewFile(uintptr(fd), path.Join(fs.staging.Name(), name)), name: name}, nil
}

// Write appends p to the upload.
func (u *Upload) Write(p []byte) (int, error) {
	if err := u.injected("write"); err != nil {
		return 0, err
	}
	n, err := u.f.Write(p)
	u.written += int64(n)
	if !u.fs.noSync && u.written-u.flushed >= writebackChunk {
		u.startWriteback()
	}
	return n, err
}

// startWriteback starts the writeback of what was written since the last
// call, without waiting for it (SYNC_FILE_RANGE_WRITE): an optimisation
// only, so its errors are left to the fsync of Commit to report.
func (u *Upload) startWriteback() {
	off, n := u.flushed, u.written-u.flushed
	u.flushed = u.written
	_ = withFd(u.f, func(fd int) error {
		return unix.SyncFileRange(fd, off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}

// injected returns the test seam's error for op on the staged file, if
// any (FS.fault).
func (u *Upload) injected(op string) error {
	if u.fs.fault == nil {
		return nil
	}
	if err := u.fs.fault(op); err != nil {
		return &os.PathError{Op: op, Path: u.f.Name(), Err: err}
	}
	return nil
}

// File returns the temp file, so that io.Copy from another *os.File can use
// copy_file_range. Callers may write through it directly; they must not
// close it.
func (u *Upload) File() *os.File {
	return u.f
}

// Abort removes the temp file. After Publish it is Keep; it is a no-op
// after Commit and safe to call twice, so callers defer it right after
// NewUpload.
func (u *Upload) Abort() error {
	if u.done {
		return u.Keep()
	}
	u.done = true
	return u.discard()
}

// discard closes and removes the temp file. A missing file is fine: a
// failed Commit may already have renamed it.
func (u *Upload) discard() error {
	cerr := u.f.Close()
	err := u.fs.unlinkAt(u.fs.staging, u.name, 0)
	if errors.Is(err, syscall.ENOENT) {
		err = nil
	}
	return errors.Join(cerr, err)
}

// Commit makes the upload the object bucket/key and finishes the upload,
// whether or not it succeeds: on error the temp file is removed, and a
// file already renamed into place is taken back out. It is Publish of a
// key the index holds no version of, followed by Keep.
//
// The file is fsynced (unless NoSync), renamed into place and its parent
// directory fsynced, as are the parents of directories Commit created.
// prev is where the key's previous version lives (Natural if none); a key
// already in the shadow area stays there. A key whose natural path cannot
// hold it goes to the shadow area: keys NaturalPath refuses, a file where a
// parent directory is needed, a directory at the key's own path, names the
// filesystem rejects (ENAMETOOLONG, EILSEQ, EINVAL). A zero-byte key ending
// in "/" is kept as a directory (Location Directory, FileInfo zero); with
// content it goes to the shadow area. After a commit to the shadow area a
// natural file for the same key is removed.
//
// Commit returns ErrNotFound when the bucket's directory is missing and
// ErrEscape when a symbolic link would take the path out of the bucket.
func (u *Upload) Commit(bucket, key string, prev Location) (Location, FileInfo, error) {
	loc, fi, err := u.Publish(bucket, key, Prior{Location: prev})
	if err != nil {
		return 0, FileInfo{}, err
	}
	return loc, fi, u.Keep()
}

// Prior is what the index holds for a key before Publish replaces it.
type Prior struct {
	// Location is where the key's current version lives (Natural if
	// there is none).
	Location Location
	// Exists is set when the index holds a version of the key: Publish
	// then keeps that version's file until Keep or Undo. A key the index
	// does not hold costs no more than a rename.
	Exists bool
	// Demote, with Exists, keeps the replaced version as the noncurrent
	// version Version: Publish hard-links its file at VersionPath(bucket,
	// key, Version) instead of into staging, and Keep leaves it there. A
	// replaced Directory has no bytes, and nothing is linked.
	Demote bool
	// Version is the replaced version's id when Demote is set ("" or
	// "null" for the null version).
	Version string
	// Immutable says the replaced version's file carries the immutable
	// flag: Publish clears it for the link and the rename and sets it
	// again on the demoted file. It is ignored when ImmutableSupport is
	// false.
	Immutable bool
}

// published is what Keep and Undo need after a Publish.
type published struct {
	bucket, key string
	loc         Location
	existed     bool
	prior       Prior
	// backup is the name in StateDir/staging of a second link to the
	// file that the rename replaced, "" when it replaced nothing.
	backup string
	// dir is the directory the file was renamed into (open only while
	// backup or demoted is set), base its name there.
	dir  *os.File
	base string
	// demoted is set when the replaced file was linked into the versions
	// area (Prior.Demote).
	demoted *demotion
	// stale, when set, is the previous version's natural file or
	// directory, which a key that moved to the shadow area leaves
	// behind; Keep removes it.
	stale Location
	moved bool
}

// demotion is the replaced file of a Publish with Prior.Demote, now at
// VersionPath.
type demotion struct {
	dir  *os.File // the versions directory that holds it
	base string   // its name there
	// flagged is open on the file while its immutable flag is to be set
	// again (Prior.Immutable), nil otherwise.
	flagged *os.File
}

// close releases the demotion's descriptors.
func (d *demotion) close() {
	d.dir.Close()
	if d.flagged != nil {
		d.flagged.Close()
	}
}

// Publish is Commit that can be taken back: the upload becomes the object
// bucket/key, and until Keep or Undo the version it replaced is kept. The
// caller records the new version in the index, then calls Keep, or Undo
// when the index refused it, so that a failed write leaves the key as the
// index describes it. Abort after Publish is Keep.
//
// Before the rename over an existing file (prior.Exists), Publish links
// that file into StateDir/staging. A crash at any point leaves the old or
// the new version at the key's path, and the link is a staging leftover
// that Open removes. A directory in the way cannot be linked and is never
// moved: the rename then reports the collision as it does for Commit.
//
// With prior.Demote the link is made at VersionPath instead, replacing a
// file a crash left there, and the versions directory is fsynced before
// the rename over the key's path; Keep leaves that link as the
// noncurrent version and Undo renames it back. Against a Publish over an
// existing file it costs the open of the versions directory and one
// directory fsync more, and Keep saves the unlink of the staging link. A crash leaves the old version at the key's path (and maybe a
// link at VersionPath that the next demotion replaces) or the new one
// with the old at VersionPath. docs/durability.md has the ordering.
func (u *Upload) Publish(bucket, key string, prior Prior) (Location, FileInfo, error) {
	if u.done {
		return 0, FileInfo{}, errFinished
	}
	u.done = true
	loc, fi, err := u.commit(bucket, key, prior)
	if err != nil {
		u.discard()
		return 0, FileInfo{}, err
	}
	// A failure from here on comes after the rename: the caller will not
	// index the new version, so it is taken back at once.
	if loc == Directory {
		// The temp file only carried the (empty) body; the directory is
		// the object.
		if err := u.discard(); err != nil {
			return 0, FileInfo{}, errors.Join(err, u.Undo())
		}
		return loc, fi, nil
	}
	if err := u.f.Close(); err != nil {
		return 0, FileInfo{}, errors.Join(err, u.Undo())
	}
	return loc, fi, nil
}

// Sync makes the upload's bytes durable (fsync), unless NoSync is set or
// they already are. Publish and Commit call it; the object layer calls it
// first, so that the flush of a large file is not made while the commit
// holds the locks that order it against other requests.
func (u *Upload) Sync() error {
	if u.fs.noSync || u.synced {
		return nil
	}
	if err := u.injected("fsync"); err != nil {
		return err
	}
	if err := u.f.Sync(); err != nil {
		return err
	}
	u.synced = true
	return nil
}

// Keep finishes a Publish: the replaced version's file is unlinked, and
// a natural file or directory left behind by a key that moved to the
// shadow area is removed. It is a no-op without a pending Publish.
func (u *Upload) Keep() error {
	p := u.pub
	if p == nil {
		return nil
	}
	u.pub = nil
	var err error
	if p.backup != "" {
		p.dir.Close()
		err = u.fs.unlinkAt(u.fs.staging, p.backup, 0)
	}
	if p.demoted != nil {
		// The link is the noncurrent version now.
		p.dir.Close()
		p.demoted.close()
	}
	if p.moved {
		var rerr error
		if p.prior.Demote && p.stale == Natural {
			// A natural file a key that moved to the shadow area left
			// behind is the replaced version's, which is kept.
			rerr = u.fs.Demote(p.bucket, p.key, Natural, p.prior.Version, p.prior.Immutable)
		} else {
			rerr = u.fs.Remove(p.bucket, p.key, p.stale)
		}
		if rerr != nil && !errors.Is(rerr, ErrNotFound) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// Undo takes a Publish back: the replaced file is renamed back to the
// key's path, or, when the rename replaced nothing, the new file (or the
// new directory of a "/" key) is removed; the directory is fsynced. A
// key the index did not hold is absent afterwards. It is a no-op without
// a pending Publish.
func (u *Upload) Undo() error {
	p := u.pub
	if p == nil {
		return nil
	}
	u.pub = nil
	fs := u.fs
	switch {
	case p.demoted != nil:
		return u.undoDemotion(p)
	case p.backup != "":
		defer p.dir.Close()
		if err := fs.renameFromStaging(p.backup, p.dir, p.base); err != nil {
			return err
		}
		return fs.sync(p.dir)
	case p.loc == Directory && p.existed:
		// The directory was there before and holds no bytes.
		return nil
	}
	err := fs.Remove(p.bucket, p.key, p.loc)
	if errors.Is(err, ErrNotFound) {
		err = nil
	}
	return err
}

// undoDemotion renames the demoted file back over the key's path, as Undo
// does with a staging backup, fsyncs both directories and sets the
// immutable flag again if it was cleared.
func (u *Upload) undoDemotion(p *published) error {
	fs, dem := u.fs, p.demoted
	defer p.dir.Close()
	defer dem.close()
	if dem.flagged != nil {
		if err := setImmutable(dem.flagged, false); err != nil {
			return err
		}
	}
	if err := renameAt(dem.dir, dem.base, p.dir, p.base, 0); err != nil {
		return errors.Join(err, reflagOpen(dem.flagged))
	}
	return errors.Join(fs.sync(p.dir), fs.sync(dem.dir), reflagOpen(dem.flagged))
}

// reflagOpen sets the immutable flag on f, which stays open; nil is a
// no-op.
func reflagOpen(f *os.File) error {
	if f == nil {
		return nil
	}
	return setImmutable(f, true)
}

func (u *Upload) commit(bucket, key string, prior Prior) (Location, FileInfo, error) {
	fs := u.fs
	prev := prior.Location
	st, err := u.f.Stat()
	if err != nil {
		return 0, FileInfo{}, err
	}
	if err := u.Sync(); err != nil {
		return 0, FileInfo{}, err
	}
	fi := fileInfo(st)

	br, err := fs.bucketRoot(bucket)
	if err != nil {
		return 0, FileInfo{}, err
	}
	defer br.Close()

	pub := &published{bucket: bucket, key: key, existed: prior.Exists, prior: prior}
	dirKey := strings.HasSuffix(key, "/")
	if prev != Shadow {
		if dirKey && fi.Size == 0 {
			name := key[:len(key)-1]
			if _, ok := NaturalPath(bucket, name); ok {
				done, err := fs.commitDir(br, bucket, name)
				if err != nil {
					return 0, FileInfo{}, err
				}
				if done {
					pub.loc = Directory
					u.pub = pub
					return Directory, FileInfo{}, nil
				}
			}
		} else if _, ok := NaturalPath(bucket, key); ok {
			done, err := u.commitNatural(br, bucket, key, pub)
			if err != nil {
				return 0, FileInfo{}, err
			}
			if done {
				return Natural, fi, nil
			}
		}
	}

	if err := u.commitShadow(bucket, key, pub); err != nil {
		return 0, FileInfo{}, err
	}
	// The key's bytes now live only in the shadow area: what the natural
	// path may still hold for it is removed by Keep, so that Undo leaves
	// the previous version where the index says it is.
	if prev == Directory && dirKey {
		pub.stale, pub.moved = Directory, true
	} else if _, ok := NaturalPath(bucket, key); ok {
		pub.stale, pub.moved = Natural, true
	}
	return Shadow, fi, nil
}

// commitNatural renames the upload to bucket/key. It reports false, and
// no error, when the natural path cannot hold the key.
func (u *Upload) commitNatural(br *os.Root, bucket, key string, pub *published) (bool, error) {
	fs := u.fs
	dir, base := path.Dir(key), path.Base(key)
	for attempt := 1; ; attempt++ {
		d, err := fs.ensureDir(br, dir)
		if err == nil {
			err = u.place(d, base, Natural, pub)
			if err == nil {
				return true, nil
			}
		}
		switch {
		case fs.isEscape(err):
			return false, fs.mapErr(err)
		case isCollision(err):
			return false, nil
		case errors.Is(err, syscall.ENOENT):
			// A concurrent Remove pruned a directory we created, or the
			// bucket itself went away.
			if err := fs.bucketExists(bucket); err != nil {
				return false, err
			}
			if attempt < maxAttempts {
				continue
			}
			return false, nil
		}
		return false, err
	}
}

// place renames the upload into the open directory d as base and fsyncs
// d, keeping the file it replaces as pub.backup when pub.existed. It
// takes ownership of d. On success u.pub is pub; on error nothing has
// changed at base: a rename whose directory fsync failed is taken back,
// since the caller will not index the new bytes.
func (u *Upload) place(d *os.File, base string, loc Location, pub *published) error {
	if pub.existed && pub.prior.Demote {
		return u.placeDemoting(d, base, loc, pub)
	}
	fs := u.fs
	backup := ""
	exchanged := false
	if pub.existed {
		name := u.name + ".prev"
		err := u.injected("link")
		if err == nil {
			err = fs.linkToStaging(d, base, name)
		}
		switch {
		case err == nil:
			backup = name
		case errors.Is(err, syscall.ENOENT):
			// Nothing at base: the rename replaces nothing.
		case errors.Is(err, syscall.EPERM) && !fs.isDirAt(d, base):
			// A file that may not be linked: with fs.protected_hardlinks
			// (the Linux default) a process may link only files it owns
			// or may write, but may rename any. Exchanging the two names
			// keeps the previous file, now under the upload's staging
			// name, without a link.
			if err := fs.exchangeWithStaging(u.name, d, base); err != nil {
				d.Close()
				return err
			}
			// The previous file moves on to the backup name, which Close
			// and the upload's own clean-up leave alone (a pending write
			// may still need it); should that fail, it stays where it is.
			backup, exchanged = u.name, true
			if err := fs.renameInStaging(u.name, name); err == nil {
				backup = name
			}
		case errors.Is(err, syscall.EPERM):
			// A directory, which cannot be linked: the rename reports the
			// collision.
		default:
			d.Close()
			return err
		}
	}
	if exchanged {
		// The new file is in place already.
	} else if err := fs.renameFromStaging(u.name, d, base); err != nil {
		if backup != "" {
			_ = fs.unlinkAt(fs.staging, backup, 0)
		}
		d.Close()
		return err
	}
	pub.loc, pub.base = loc, base
	if backup != "" {
		pub.backup, pub.dir = backup, d
	} else {
		defer d.Close()
	}
	u.pub = pub
	err := u.injected("dirsync")
	if err == nil {
		err = fs.sync(d)
	}
	if err != nil {
		return errors.Join(err, u.Undo())
	}
	return nil
}

// commitDir creates bucket/name as the directory of a zero-byte key ending
// in "/". It reports false, and no error, when a file is in the way.
func (fs *FS) commitDir(br *os.Root, bucket, name string) (bool, error) {
	for attempt := 1; ; attempt++ {
		d, err := fs.ensureDir(br, name)
		if err == nil {
			// The directory itself holds nothing to persist; its parent's
			// entry was fsynced by ensureDir when it was created.
			d.Close()
			return true, nil
		}
		switch {
		case fs.isEscape(err):
			return false, fs.mapErr(err)
		case isCollision(err):
			return false, nil
		case errors.Is(err, syscall.ENOENT):
			if err := fs.bucketExists(bucket); err != nil {
				return false, err
			}
			if attempt < maxAttempts {
				continue
			}
			return false, nil
		}
		return false, err
	}
}

// commitShadow renames the upload to its shadow path. Nothing prunes the
// shadow area, so there is no retry.
func (u *Upload) commitShadow(bucket, key string, pub *published) error {
	fs := u.fs
	p := ShadowPath(bucket, key)
	d, err := fs.ensureDir(fs.root, path.Dir(p))
	if err != nil {
		return fs.mapErr(err)
	}
	return u.place(d, path.Base(p), Shadow, pub)
}

// isCollision reports whether err says the natural path cannot hold the
// key: a file where a directory is needed, a directory where the file
// goes, or a name the filesystem refuses.
func isCollision(err error) bool {
	for _, e := range []error{syscall.ENOTDIR, syscall.EEXIST, syscall.EISDIR,
		syscall.ENOTEMPTY, syscall.ENAMETOOLONG, syscall.EILSEQ, syscall.EINVAL} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (fs *FS) bucketExists(bucket string) error {
	fi, err := fs.root.Lstat(bucket)
	if err != nil {
		return fs.mapErr(err)
	}
	if !fi.IsDir() {
		return fs.mapErr(&os.PathError{Op: "lstat", Path: bucket, Err: syscall.ENOTDIR})
	}
	return nil
}

// renameFromStaging renames the temp file name into the open directory dir
// as base. Using directory descriptors and one path component keeps the
// target confined to dir, and a symbolic link at base is replaced, never
// followed.
func (fs *FS) renameFromStaging(name string, dir *os.File, base string) error {
	err := withFd(fs.staging, func(sfd int) error {
		return withFd(dir, func(dfd int) error {
			return ignoringEINTR(func() error { return unix.Renameat(sfd, name, dfd, base) })
		})
	})
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: path.Join(fs.staging.Name(), name), New: path.Join(dir.Name(), base), Err: err}
	}
	return nil
}

// exchangeWithStaging atomically exchanges the staged file name with the
// entry base of the open directory dir (renameat2 RENAME_EXCHANGE). A
// filesystem without it answers EINVAL, and nothing has changed.
func (fs *FS) exchangeWithStaging(name string, dir *os.File, base string) error {
	err := withFd(fs.staging, func(sfd int) error {
		return withFd(dir, func(dfd int) error {
			return ignoringEINTR(func() error { return unix.Renameat2(sfd, name, dfd, base, unix.RENAME_EXCHANGE) })
		})
	})
	if err != nil {
		return &os.LinkError{Op: "renameat2", Old: path.Join(fs.staging.Name(), name), New: path.Join(dir.Name(), base), Err: err}
	}
	return nil
}

// renameInStaging renames the staged file from to to, both in
// StateDir/staging.
func (fs *FS) renameInStaging(from, to string) error {
	err := withFd(fs.staging, func(sfd int) error {
		return ignoringEINTR(func() error { return unix.Renameat(sfd, from, sfd, to) })
	})
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: path.Join(fs.staging.Name(), from), New: path.Join(fs.staging.Name(), to), Err: err}
	}
	return nil
}

// isDirAt reports whether the entry base of the open directory dir is a
// directory (not following a symbolic link).
func (fs *FS) isDirAt(dir *os.File, base string) bool {
	var st unix.Stat_t
	err := withFd(dir, func(dfd int) error {
		return ignoringEINTR(func() error { return unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW) })
	})
	return err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

// linkToStaging links the entry base of the open directory dir into
// StateDir/staging as name, without following a symbolic link at base.
func (fs *FS) linkToStaging(dir *os.File, base, name string) error {
	err := withFd(dir, func(dfd int) error {
		return withFd(fs.staging, func(sfd int) error {
			return ignoringEINTR(func() error { return unix.Linkat(dfd, base, sfd, name, 0) })
		})
	})
	if err != nil {
		return &os.LinkError{Op: "linkat", Old: path.Join(dir.Name(), base), New: path.Join(fs.staging.Name(), name), Err: err}
	}
	return nil
}

// sync fsyncs f unless NoSync is set.
func (fs *FS) sync(f *os.File) error {
	if fs.noSync {
		return nil
	}
	return f.Sync()
}
