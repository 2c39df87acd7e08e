package object

import (
	"hash/maphash"
	"os"
	"sync"
	"sync/atomic"

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
// dropped when a read finds them stale. The cache holds up to its size in
// entries, evicting an arbitrary one of a full shard.
type recordCache struct {
	seed   maphash.Seed
	per    int
	shards [16]recordShard
	// hits counts the reads answered from the cache.
	hits atomic.Uint64
}

type recordShard struct {
	mu sync.Mutex
	m  map[recordKey]Object
}

type recordKey struct{ bucket, key string }

func newRecordCache(size int) *recordCache {
	c := &recordCache{seed: maphash.MakeSeed(), per: max(1, size/16)}
	for i := range c.shards {
		c.shards[i].m = make(map[recordKey]Object)
	}
	return c
}

func (c *recordCache) shard(key string) *recordShard {
	return &c.shards[maphash.String(c.seed, key)%uint64(len(c.shards))]
}

func (c *recordCache) get(bucket, key string) (Object, bool) {
	s := c.shard(key)
	s.mu.Lock()
	o, ok := s.m[recordKey{bucket, key}]
	s.mu.Unlock()
	return o, ok
}

func (c *recordCache) put(bucket, key string, o Object) {
	s := c.shard(key)
	k := recordKey{bucket, key}
	s.mu.Lock()
	if _, ok := s.m[k]; !ok && len(s.m) >= c.per {
		for old := range s.m {
			delete(s.m, old)
			break
		}
	}
	s.m[k] = o
	s.mu.Unlock()
}

func (c *recordCache) drop(bucket, key string) {
	s := c.shard(key)
	s.mu.Lock()
	delete(s.m, recordKey{bucket, key})
	s.mu.Unlock()
}

// openCached opens a key's file as its cached record describes it, and
// returns the reader when the file carries the record's stamp and
// identity; otherwise it drops the entry and returns nil, and the caller
// asks the catalogue.
func (l *Layer) openCached(bucket, key string) *Reader {
	if l.recs == nil {
		return nil
	}
	rec, ok := l.recs.get(bucket, key)
	if !ok {
		return nil
	}
	f, fi, err := l.fs.Open(bucket, key, toStorage(rec.Location))
	if err == nil {
		if s, ok := storage.FileStamp(f); ok && s == rec.Stamp && matches(&rec, fi) {
			l.md5.note(bucket, &rec, fi)
			l.recs.hits.Add(1)
			return &Reader{Object: rec, File: f}
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
	if s, ok := storage.FileStamp(f); ok && s == rec.Stamp {
		l.recs.put(bucket, key, *rec)
	}
}
