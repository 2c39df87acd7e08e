package hotcache

import (
	"fmt"
	"sync/atomic"

	"github.com/maypok86/otter/v2"
	"github.com/maypok86/otter/v2/stats"
)

// DefaultMaxObject is the largest object cached when Options.MaxObject is
// zero. Serving from memory measured cheaper than open + sendfile up to
// 256 KiB and dearer at 1 MiB (docs/performance.md, "Hot-object cache").
const DefaultMaxObject = 256 << 10

// entryOverhead is what an entry costs beyond its bytes (key strings,
// slice header, the policy's node), counted against the budget so that a
// budget full of tiny objects stays near its size.
const entryOverhead = 128

// Key identifies cached bytes: an object (Bucket, Object, ETag) as read
// from one version of its file (Inode, Mtime, Size).
type Key struct {
	Bucket, Object, ETag string
	Inode                uint64
	Mtime                int64 // Unix nanoseconds.
	Size                 int64
}

// Options configure a Cache.
type Options struct {
	// MaxBytes is the memory budget, entry overhead included. It must be
	// positive.
	MaxBytes int64
	// MaxObject is the largest object cached; zero means DefaultMaxObject.
	MaxObject int64
}

// Cache is a byte-budgeted cache of object bytes. A nil *Cache caches
// nothing: Fits reports false and the counters read zero. A Cache is safe
// for concurrent use.
type Cache struct {
	c         *otter.Cache[Key, []byte]
	counter   *stats.Counter
	maxObject int64
	hits      atomic.Uint64
	misses    atomic.Uint64
	fills     atomic.Uint64
}

// New returns a Cache.
func New(o Options) (*Cache, error) {
	if o.MaxBytes <= 0 {
		return nil, fmt.Errorf("hotcache: memory budget %d is not positive", o.MaxBytes)
	}
	if o.MaxObject == 0 {
		o.MaxObject = DefaultMaxObject
	}
	if o.MaxObject < 0 || o.MaxObject > 1<<30 {
		return nil, fmt.Errorf("hotcache: max object size %d out of range", o.MaxObject)
	}
	counter := stats.NewCounter()
	c, err := otter.New(&otter.Options[Key, []byte]{
		MaximumWeight: uint64(o.MaxBytes),
		Weigher:       weigh,
		StatsRecorder: counter,
	})
	if err != nil {
		return nil, err
	}
	return &Cache{c: c, counter: counter, maxObject: o.MaxObject}, nil
}

func weigh(k Key, v []byte) uint32 {
	return uint32(len(v) + len(k.Bucket) + len(k.Object) + len(k.ETag) + entryOverhead)
}

// Fits reports whether an object of size bytes may be cached.
func (c *Cache) Fits(size int64) bool {
	return c != nil && size >= 0 && size <= c.maxObject
}

// Get returns the bytes cached under k. The caller must not modify them.
// It counts neither a hit nor a miss: the caller decides, after checking
// that k is current, with Hit or Miss.
func (c *Cache) Get(k Key) ([]byte, bool) {
	return c.c.GetIfPresent(k)
}

// Put offers b, the whole object k, to the cache, which keeps it unless
// the admission policy prefers what it holds. Objects that do not fit are
// ignored. The cache keeps b: the caller must not modify it afterwards.
func (c *Cache) Put(k Key, b []byte) {
	if !c.Fits(int64(len(b))) || int64(len(b)) != k.Size {
		return
	}
	c.fills.Add(1)
	c.c.Set(k, b)
}

// Hit counts a GET served from the cache.
func (c *Cache) Hit() { c.hits.Add(1) }

// Miss counts a GET of a cacheable object not served from the cache.
func (c *Cache) Miss() { c.misses.Add(1) }

// Stats are a Cache's counters.
type Stats struct {
	Hits, Misses uint64
	// Fills counts the objects offered to the cache after a miss.
	Fills uint64
	// Evictions counts entries dropped for the budget (or refused by the
	// admission policy).
	Evictions uint64
	// Bytes is the weight held now, entry overhead included.
	Bytes uint64
	// Entries is the number of entries held now (an estimate).
	Entries int
}

// Stats returns the counters; all zero for a nil Cache.
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	s := c.counter.Snapshot()
	return Stats{
		Hits:      c.hits.Load(),
		Misses:    c.misses.Load(),
		Fills:     c.fills.Load(),
		Evictions: s.Evictions,
		Bytes:     c.c.WeightedSize(),
		Entries:   c.c.EstimatedSize(),
	}
}

// CleanUp runs pending maintenance (evictions) now; tests use it to observe
// the budget.
func (c *Cache) CleanUp() { c.c.CleanUp() }

// Close stops the cache's background work.
func (c *Cache) Close() {
	if c != nil {
		c.c.StopAllGoroutines()
	}
}
