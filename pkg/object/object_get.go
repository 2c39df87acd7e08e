package object

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
)

// Reader is an open object: its record and, unless the object is a folder
// marker, its file. The caller must Close it.
type Reader struct {
	Object
	// File is positioned at offset 0; nil for zero-byte folder markers
	// and when Body holds the object.
	File *os.File
	// Body is the whole object from the hot-object cache (ReadObject),
	// shared with the cache: read-only. Nil when File is set.
	Body []byte
}

// Close closes the file.
func (r *Reader) Close() error {
	if r.File == nil {
		return nil
	}
	return r.File.Close()
}

// OpenObject opens an object for reading. The record returned always
// describes the open file: the file is checked against the record, and a
// file changed behind the gateway's back gets a fresh record first.
func (l *Layer) OpenObject(bucket, key string) (*Reader, error) {
	if r := l.openCached(bucket, key); r != nil {
		return r, nil
	}
	// Fast path, without the key's lock: almost every read finds the file
	// its record describes.
	rec, err := l.ix.Object(bucket, key)
	if err != nil {
		return nil, l.noSuchKey(bucket, key, err)
	}
	f, fi, err := l.fs.Open(bucket, key, toStorage(rec.Location))
	if err == nil {
		if rec.Location == metadata.Directory || matches(&rec, fi) {
			l.md5.note(bucket, &rec, fi)
			l.remember(bucket, key, &rec, f)
			return &Reader{Object: rec, File: f}, nil
		}
		f.Close()
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, mapErr(err)
	}
	// Slow path: record and file disagree, or the file is missing. A
	// writer of this key may be between its rename and its index commit,
	// so decide only under the key's lock, when no writer is.
	unlock, err := l.lockKey(bucket, key)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if rec, err = l.ix.Object(bucket, key); err != nil {
		return nil, l.noSuchKey(bucket, key, err)
	}
	st, err := l.ix.BucketState(bucket)
	if err != nil {
		return nil, bucketErr(err, bucket)
	}
	versioned := st.Versioned()
	f, fi, err = l.fs.Open(bucket, key, toStorage(rec.Location))
	if err == nil && versioned && rec.Location != metadata.Directory && !matches(&rec, fi) {
		// A versioned key's file that disagrees with its record may be a
		// move that a crash cut short (versions.go).
		f.Close()
		if ok, rerr := l.recoverCurrent(bucket, key, &rec, false); rerr != nil || ok {
			return l.reopen(bucket, key, rerr)
		}
		f, fi, err = l.fs.Open(bucket, key, toStorage(rec.Location))
	}
	if errors.Is(err, storage.ErrNotFound) {
		if !versioned {
			// The file vanished behind the gateway's back: so does the
			// object.
			_ = l.ix.DeleteObject(bucket, key)
			return nil, keyErr(metadata.ErrNoSuchKey, bucket, key)
		}
		if ok, rerr := l.recoverCurrent(bucket, key, &rec, true); rerr != nil || ok {
			return l.reopen(bucket, key, rerr)
		}
		if err := l.vanished(bucket, key); err != nil {
			return nil, err
		}
		return l.reopen(bucket, key, nil)
	}
	if err != nil {
		return nil, mapErr(err)
	}
	if rec.Location == metadata.Directory || matches(&rec, fi) {
		return &Reader{Object: rec, File: f}, nil
	}
	if rec, err = l.refresh(bucket, key, fi); err != nil {
		f.Close()
		return nil, err
	}
	return &Reader{Object: rec, File: f}, nil
}

// StatObject returns an object's record, checked against its file like
// OpenObject but without opening it when the two agree: one fstatat of the
// file's path (storage.FS.Identify) against OpenObject's walk, open,
// fstat, fcntl and close. HeadObject and GetObjectAttributes answer from
// it. The stat proves the file is there with the record's size, mtime and
// inode, not that the gateway may read it: a file made unreadable behind
// the gateway's back answers HEAD and fails on GET, as its bytes, not its
// metadata, are what cannot be read.
// Anything else (no file, another file, not a regular file) takes
// OpenObject's path, which refreshes or drops the record under the key's
// lock. On a shared catalogue with a record cache, a cached record is
// confirmed by its opened file's stamp (record_cache.go), and a record
// read from the catalogue is cached when its file can be opened.
func (l *Layer) StatObject(bucket, key string) (Object, error) {
	if r := l.openCached(bucket, key); r != nil {
		r.Close()
		return r.Object, nil
	}
	rec, err := l.ix.Object(bucket, key)
	if err != nil {
		return Object{}, l.noSuchKey(bucket, key, err)
	}
	if rec.Location == metadata.Directory {
		return rec, nil
	}
	if fi, ok := l.fs.Identify(bucket, key, toStorage(rec.Location)); ok && matches(&rec, fi) {
		l.md5.note(bucket, &rec, fi)
		l.rememberPath(bucket, key, &rec)
		return rec, nil
	}
	r, err := l.OpenObject(bucket, key)
	if err != nil {
		return Object{}, err
	}
	r.Close()
	return r.Object, nil
}

// reopen opens the current version again after recoverCurrent changed
// the key (the caller holds the key's lock), or returns its error.
func (l *Layer) reopen(bucket, key string, err error) (*Reader, error) {
	if err != nil {
		return nil, err
	}
	rec, err := l.ix.Object(bucket, key)
	if err != nil {
		return nil, l.noSuchKey(bucket, key, err)
	}
	f, fi, err := l.fs.Open(bucket, key, toStorage(rec.Location))
	if err != nil {
		return nil, mapErr(err)
	}
	if rec.Location != metadata.Directory && !matches(&rec, fi) {
		f.Close()
		return nil, s3err.Newf(s3err.InternalError, "the file of %q changed during its recovery", key)
	}
	return &Reader{Object: rec, File: f}, nil
}

// vanished drops the record of a versioned key's current version whose
// file is gone behind the gateway's back (the caller holds the key's
// lock): the newest noncurrent version, if it is not a delete marker,
// becomes current again, as when the version is deleted by id, and
// vanished returns nil; otherwise it returns NoSuchKey. A promoted
// version whose file is gone too goes the same way, so the read finds the
// newest version that still has its bytes; every round drops one record.
func (l *Layer) vanished(bucket, key string) error {
	for {
		var promoted *Object
		err := l.ix.EditVersions(bucket, key, func(v *metadata.Versions) error {
			promoted = nil
			if err := v.DropCurrent(); err != nil {
				return err
			}
			var err error
			promoted, err = promote(v)
			return err
		})
		if err != nil {
			return keyErr(err, bucket, key)
		}
		if promoted == nil {
			return l.noSuchKey(bucket, key, metadata.ErrNoSuchKey)
		}
		if err := l.restore(bucket, key, promoted); !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
}

func matches(rec *Object, fi storage.FileInfo) bool {
	return fileSize(rec) == fi.Size && rec.FileMtime == fi.Mtime && rec.FileInode == fi.Inode
}

// refresh rewrites the record of a file that changed behind the gateway's
// back; the caller holds the key's lock. The gateway did not hash these
// bytes, so the ETag is derived from the file's identity and ends in "-1":
// clients treat such an ETag as opaque, never as an MD5 they could verify.
// Stored checksums no longer hold and are dropped; the other metadata is
// kept.
func (l *Layer) refresh(bucket, key string, fi storage.FileInfo) (Object, error) {
	var rec Object
	err := l.ix.UpdateObject(bucket, key, func(o *Object) error {
		describeFile(o, fi)
		rec = *o
		return nil
	})
	if err != nil {
		return Object{}, keyErr(err, bucket, key)
	}
	return rec, nil
}

// describeFile makes o describe fi, bytes the gateway did not write
// (refresh).
func describeFile(o *Object, fi storage.FileInfo) {
	o.Size = plainSize(o, fi.Size)
	o.FileMtime = fi.Mtime
	o.FileInode = fi.Inode
	o.LastModified = time.Unix(0, fi.Mtime).UTC()
	o.ETag = FileETag(fi)
	o.Checksums = nil
	o.PartsCount = 0
	o.Parts = nil
}

// FileETag is the ETag of bytes the gateway did not hash itself: a digest
// of the file's identity (size, mtime, inode) with a "-1" suffix, so it
// changes whenever the file does and is never mistaken for an MD5.
func FileETag(fi storage.FileInfo) string {
	var b [24]byte
	binary.BigEndian.PutUint64(b[0:], uint64(fi.Size))
	binary.BigEndian.PutUint64(b[8:], uint64(fi.Mtime))
	binary.BigEndian.PutUint64(b[16:], fi.Inode)
	sum := sha256.Sum256(b[:])
	return hex.EncodeToString(sum[:16]) + "-1"
}

func keyErr(err error, bucket, key string) error {
	if err == nil {
		return nil
	}
	e := s3err.As(mapErr(err))
	switch e.Code {
	case s3err.NoSuchKey:
		return e.With("Key", key)
	case s3err.NoSuchBucket:
		return e.With("BucketName", bucket)
	}
	return e
}
