package object

import (
	"errors"
	"io"
	"strconv"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/storage"
)

// errNotCached is returned by fill when the object turned out not to be
// cacheable (it grew past the limit, or is a folder marker): every caller
// sharing the fill then opens it the ordinary way.
var errNotCached = errors.New("object: not cacheable")

// filled is the result of one fill, shared by the misses that waited for
// it: a record and the whole object's bytes, read from the file the record
// described at the time.
type filled struct {
	obj  Object
	body []byte
}

// HotCache returns the layer's cache of hot objects; nil when off.
func (l *Layer) HotCache() *hotcache.Cache { return l.hot }

// ReadObject is OpenObject for GetObject and HeadObject. With a hot-object
// cache, a small object may come back with its bytes in Body and no File.
// Cached bytes are served only when their key matches the current record
// and the file, checked with one stat without opening it (storage.FS.
// Identify: the bytes were read through a confined open when the entry was
// filled, and the stat confirms the same file is still there), still has the
// size, mtime and inode of the record; anything else takes the ordinary
// path, which refreshes a record that no longer matches its file.
// Concurrent misses of one object version share a single read.
func (l *Layer) ReadObject(bucket, key string) (*Reader, error) {
	if l.hot == nil {
		return l.OpenObject(bucket, key)
	}
	if r := l.openCached(bucket, key); r != nil {
		// The record is confirmed by its open file: the cached bytes of
		// this very version, if any, spare the read, and a miss fills.
		if r.File == nil || r.SSE.Encrypted() || !l.hot.Fits(r.Size) {
			return r, nil
		}
		r.File.Close()
		k := hotKey(bucket, key, &r.Object)
		if b, ok := l.hot.Get(k); ok {
			l.hot.Hit()
			return &Reader{Object: r.Object, Body: b}, nil
		}
		return l.readMiss(bucket, key, k)
	}
	rec, err := l.ix.Object(bucket, key)
	if err != nil {
		// noSuchKey, as OpenObject answers: a key whose latest version is
		// a delete marker answers with the marker's headers.
		return nil, l.noSuchKey(bucket, key, err)
	}
	// An encrypted object is never cached: its file is ciphertext and
	// its bytes must not outlive the request in memory.
	if rec.Location == metadata.Directory || rec.SSE.Encrypted() || !l.hot.Fits(rec.Size) {
		return l.OpenObject(bucket, key)
	}
	k := hotKey(bucket, key, &rec)
	if b, ok := l.hot.Get(k); ok {
		fi, ok := l.fs.Identify(bucket, key, toStorage(rec.Location))
		if ok && matches(&rec, fi) {
			l.hot.Hit()
			l.md5.note(bucket, &rec, fi)
			return &Reader{Object: rec, Body: b}, nil
		}
	}
	return l.readMiss(bucket, key, k)
}

// readMiss is ReadObject's miss of the hot-object cache: one fill shared by
// the concurrent misses of the version k.
func (l *Layer) readMiss(bucket, key string, k hotcache.Key) (*Reader, error) {
	l.hot.Miss()
	v, err, _ := l.fills.Do(fillKey(k), func() (any, error) { return l.fill(bucket, key) })
	if errors.Is(err, errNotCached) {
		return l.OpenObject(bucket, key)
	}
	if err != nil {
		return nil, err
	}
	f := v.(*filled)
	return &Reader{Object: f.obj, Body: f.body}, nil
}

// fill reads a whole small object the ordinary way and offers it to the
// cache if its file did not change while it was read.
func (l *Layer) fill(bucket, key string) (*filled, error) {
	if l.onFill != nil {
		l.onFill()
	}
	r, err := l.OpenObject(bucket, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// The key may have been rewritten encrypted since ReadObject looked
	// at its record: such a file is ciphertext, never a cache body.
	if r.File == nil || r.SSE.Encrypted() || !l.hot.Fits(r.Size) {
		return nil, errNotCached
	}
	body := make([]byte, r.Size)
	if n, err := r.File.ReadAt(body, 0); n < len(body) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, mapErr(err)
	}
	if fi, err := storage.FileStat(r.File); err == nil && matches(&r.Object, fi) {
		l.hot.Put(hotKey(bucket, key, &r.Object), body)
	}
	return &filled{obj: r.Object, body: body}, nil
}

func hotKey(bucket, key string, rec *Object) hotcache.Key {
	return hotcache.Key{
		Bucket: bucket, Object: key, ETag: rec.ETag,
		Inode: rec.FileInode, Mtime: rec.FileMtime, Size: rec.Size,
	}
}

// fillKey is the singleflight key of a cache key: every field, NUL
// separated (bucket names and ETags hold no NUL; keys are last).
func fillKey(k hotcache.Key) string {
	b := make([]byte, 0, len(k.Bucket)+len(k.ETag)+len(k.Object)+64)
	b = append(b, k.Bucket...)
	b = append(b, 0)
	b = append(b, k.ETag...)
	b = append(b, 0)
	b = strconv.AppendUint(b, k.Inode, 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, k.Mtime, 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, k.Size, 10)
	b = append(b, 0)
	b = append(b, k.Object...)
	return string(b)
}
