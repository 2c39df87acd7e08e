package object

import (
	"hash/maphash"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/storage"
)

// DefaultRecordCache is the number of records a layer on a shared
// catalogue keeps when Options.RecordCache is zero.
const DefaultRecordCache = 4096

// recordCache keeps the current records of recently read keys, so that a
// GET on a shared catalogue (PostgreSQL) can skip the round trip to the
// database. An entry is used only when the open file proves it current:
// the catalogue stamps every current record it writes and marks the
// record's file with the stamp before the write commits
// (metadata.Stamper), so a file that carries the entry's stamp, with its
// size, mtime and inode, is described by the entry, whichever gateway
// wrote last. A replaced, moved or removed file, or one whose record
// changed without a new file (tags, ACL, retention), does not carry the
// stamp, and the read asks the catalogue.
//
// Entries are made only from a record read from the catalogue whose
// stamp the open file carries, never from a write's own record, and are
// dropped when a read finds them stale. An entry also keeps the file's
// ctime, which every change of the file moves forward and no process can
// set back: a copy of the file made with its attributes and copied back
// over it, or a hard link put back at the key's path, brings back the
// stamp and the inode but not the ctime. The cache holds up to its size in
// entries, evicting an arbitrary one of a full shard.
type recordCache struct {
	seed   maphash.Seed
	per    int
	shards [16]recordShard
	// hits counts the reads answered from the cache.
	hits atomic.Uint64
	// tick is the filesystem's timestamp granularity
	// (storage.FS.StampTick): a file whose ctime is younger than two
	// ticks is not cached, as a change within its tick might not show.
	tick time.Duration
}

type recordShard struct {
	mu sync.Mutex
	m  map[recordKey]cachedRecord
}

// cachedRecord is a record and the ctime its file had when the file's
// stamp confirmed it.
type cachedRecord struct {
	rec   Object
	ctime int64
}

type recordKey struct{ bucket, key string }

func newRecordCache(size int, tick time.Duration) *recordCache {
	c := &recordCache{seed: maphash.MakeSeed(), per: max(1, size/16), tick: tick}
	for i := range c.shards {
		c.shards[i].m = make(map[recordKey]cachedRecord)
	}
	return c
}

func (c *recordCache) shard(key string) *recordShard {
	return &c.shards[maphash.String(c.seed, key)%uint64(len(c.shards))]
}

func (c *recordCache) get(bucket, key string) (cachedRecord, bool) {
	s := c.shard(key)
	s.mu.Lock()
	e, ok := s.m[recordKey{bucket, key}]
	s.mu.Unlock()
	return e, ok
}

func (c *recordCache) put(bucket, key string, e cachedRecord) {
	s := c.shard(key)
	k := recordKey{bucket, key}
	s.mu.Lock()
	if _, ok := s.m[k]; !ok && len(s.m) >= c.per {
		for old := range s.m {
			delete(s.m, old)
			break
		}
	}
	s.m[k] = e
	s.mu.Unlock()
}

func (c *recordCache) drop(bucket, key string) {
	s := c.shard(key)
	s.mu.Lock()
	delete(s.m, recordKey{bucket, key})
	s.mu.Unlock()
}

// openCached opens a key's file as its cached record describes it, and
// returns the reader when the file carries the record's stamp, identity
// and the ctime it had when the entry was made; otherwise it drops the
// entry and returns nil, and the caller asks the catalogue.
func (l *Layer) openCached(bucket, key string) *Reader {
	if l.recs == nil {
		return nil
	}
	e, ok := l.recs.get(bucket, key)
	if !ok {
		return nil
	}
	f, fi, err := l.fs.Open(bucket, key, toStorage(e.rec.Location))
	if err == nil {
		if s, ctime, ok := storage.FileStamp(f); ok && s == e.rec.Stamp && ctime == e.ctime && matches(&e.rec, fi) {
			l.md5.note(bucket, &e.rec, fi)
			l.recs.hits.Add(1)
			return &Reader{Object: e.rec, File: f}
		}
		f.Close()
	}
	l.recs.drop(bucket, key)
	return nil
}

// remember caches rec, just read from the catalogue, when the open file f
// that matched it carries its stamp.
func (l *Layer) remember(bucket, key string, rec *Object, f *os.File) {
	if l.recs == nil || rec.Stamp == 0 || f == nil || rec.Location == metadata.Directory {
		return
	}
	s, ctime, ok := storage.FileStamp(f)
	if !ok || s != rec.Stamp {
		return
	}
	// Racily clean: a change of the file later within the tick of its
	// ctime could leave the ctime as it is (whole-second filesystems,
	// kernels with coarse timestamps); only a ctime two ticks old is
	// sure to move on with the next change. A file written a moment ago
	// is cached by a read a moment later.
	if time.Now().UnixNano()-ctime < 2*int64(l.recs.tick) {
		return
	}
	l.recs.put(bucket, key, cachedRecord{*rec, ctime})
}

// rememberPath is remember for a record confirmed without opening its
// file (StatObject): it opens the file to read its stamp, and caches
// nothing when it cannot.
func (l *Layer) rememberPath(bucket, key string, rec *Object) {
	if l.recs == nil || rec.Stamp == 0 || rec.Location == metadata.Directory {
		return
	}
	f, fi, err := l.fs.Open(bucket, key, toStorage(rec.Location))
	if err != nil {
		return
	}
	if matches(rec, fi) {
		l.remember(bucket, key, rec, f)
	}
	f.Close()
}
