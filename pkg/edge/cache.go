package edge

import (
	"container/list"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Cache is the edge cache. It is safe for concurrent use.
type Cache struct {
	o    Options
	up   *upstream
	data string // Dir/data

	mu      sync.Mutex
	entries map[string]*entry
	lru     *list.List // of *entry, most recently used at the front
	bytes   int64      // sum of the sizes of the entries
	opening map[string]*opening
	cat     *catalog // nil while the disk is failed
	closed  bool
	// idleFiles counts the descriptors kept in the entries' idle lists.
	idleFiles int

	healthy atomic.Bool
	stop    chan struct{}
	wg      sync.WaitGroup
	// dirty holds the entries whose records the next flush writes.
	dirty map[*entry]struct{}
	// detachedPurges are purges made while the disk was failed, applied
	// when it is attached again.
	detachedPurges []purge
	// gone holds the records of removed entries the next flush deletes.
	gone    []gone
	flushMu sync.Mutex

	stats counters
	// side holds the origin 404s and HEAD answers kept in memory only
	// (miss.go).
	side sideCache
}

// entry is one cached object (one version of it). Its fields are guarded
// by Cache.mu; the file's bytes by the slices bitmap.
type entry struct {
	ck           string // bucket + "/" + key
	id           string // file name under Dir/data
	size         int64
	etag         string
	header       http.Header
	fetched      time.Time
	freshUntil   time.Time
	staleIfError time.Duration // -1: Options.StaleIfError
	sliceSize    int64
	present      []byte // bitmap of complete slices
	fills        map[int64]*fill
	reval        *revalidation
	lastAccess   time.Time
	elem         *list.Element
	removed      bool
	// hdr is the header block of every answer (hit.go); idle the file
	// descriptors kept for the next hits, closed when e is dropped.
	hdr  atomic.Pointer[headerBlock]
	idle []*os.File
}

func (e *entry) slices() int64 {
	if e.size == 0 {
		return 1
	}
	return (e.size + e.sliceSize - 1) / e.sliceSize
}

func (e *entry) has(i int64) bool { return e.present[i/8]&(1<<(i%8)) != 0 }
func (e *entry) set(i int64)      { e.present[i/8] |= 1 << (i % 8) }

// complete reports whether every slice is present.
func (e *entry) complete() bool {
	for i := range e.slices() {
		if !e.has(i) {
			return false
		}
	}
	return true
}

func (e *entry) record() record {
	return record{
		ID: e.id, Size: e.size, ETag: e.etag, Header: e.header,
		Fetched: e.fetched, FreshUntil: e.freshUntil, StaleIfError: e.staleIfError,
		SliceSize: e.sliceSize, Slices: append([]byte(nil), e.present...), LastAccess: e.lastAccess,
	}
}

// Stats are the cache's counters.
type Stats struct {
	Hits, Misses, Revalidations, NotModified, Stale, Passes uint64
	UpstreamFetches, UpstreamErrors, Evictions, DiskErrors  uint64
	BytesFromCache, BytesFromUpstream                       uint64
	Objects                                                 int
	Bytes, MaxBytes                                         int64
	Healthy                                                 bool

	// NegativeHits are the requests answered by a cached origin 404;
	// OriginHeads the HEAD misses answered by an origin HEAD.
	NegativeHits, OriginHeads uint64
}

type counters struct {
	hits, misses, revalidations, notModified, stale, passes atomic.Uint64
	fetches, upstreamErrors, evictions, diskErrors          atomic.Uint64
	bytesFromCache, bytesFromUpstream                       atomic.Uint64
	negativeHits, originHeads                               atomic.Uint64
}

// Open opens (or creates) the cache in o.Dir and loads its catalogue:
// every object cached before a restart is served again without a refill.
// A cache disk that cannot be used does not fail Open: the cache starts
// in pass-through and probes the disk until it works.
func Open(o Options) (*Cache, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	c := &Cache{
		o:       o,
		data:    filepath.Join(o.Dir, "data"),
		entries: make(map[string]*entry),
		lru:     list.New(),
		opening: make(map[string]*opening),
		dirty:   make(map[*entry]struct{}),
		stop:    make(chan struct{}),
	}
	c.up = newUpstream(&c.o)
	if err := c.attach(); err != nil {
		o.Logger.Error().Err(err).Str("dir", o.Dir).Msg("edge cache disk unusable: passing requests through to the origin")
	}
	c.wg.Add(2)
	go c.every(o.ProbeInterval, c.probe)
	go c.every(o.syncInterval, c.flush)
	return c, nil
}

// attach opens the catalogue, loads it and removes files no record names
// (interrupted fills of an earlier run).
func (c *Cache) attach() error {
	if err := c.diskFault("attach"); err != nil {
		return err
	}
	if err := os.MkdirAll(c.data, 0o700); err != nil {
		return err
	}
	cat, err := openCatalog(filepath.Join(c.o.Dir, "catalog.db"), c.o.NoSync)
	if err != nil {
		return err
	}
	entries := make(map[string]*entry)
	var bad []string
	err = cat.load(func(ck string, r record, ok bool) {
		if !ok || r.SliceSize <= 0 || r.Size < 0 || !validID(r.ID) {
			bad = append(bad, ck)
			return
		}
		e := &entry{ck: ck, id: r.ID, size: r.Size, etag: r.ETag, header: http.Header(r.Header),
			fetched: r.Fetched, freshUntil: r.FreshUntil, staleIfError: r.StaleIfError,
			sliceSize: r.SliceSize, present: r.Slices, lastAccess: r.LastAccess}
		if int64(len(e.present)) != (e.slices()+7)/8 {
			bad = append(bad, ck)
			return
		}
		if e.header == nil {
			e.header = http.Header{}
		}
		entries[ck] = e
	})
	var names []string
	if err == nil {
		names, err = readDirNames(c.data)
	}
	if err == nil {
		// A record whose file is gone (removed behind the cache's back,
		// or evicted by a run that stopped before the record's removal
		// reached the catalogue) describes nothing servable: drop it
		// rather than count it against the budget.
		present := make(map[string]bool, len(names))
		for _, n := range names {
			present[n] = true
		}
		for ck, e := range entries {
			if !present[e.id] {
				bad = append(bad, ck)
				delete(entries, ck)
			}
		}
		err = cat.removeMany(bad)
	}
	if err != nil {
		cat.close()
		return err
	}
	known := make(map[string]bool, len(entries))
	for _, e := range entries {
		known[e.id] = true
	}
	for _, n := range names {
		if !known[n] {
			_ = os.Remove(filepath.Join(c.data, n))
		}
	}
	// Oldest first into the back of the list: the front is the most
	// recently used.
	ordered := make([]*entry, 0, len(entries))
	for _, e := range entries {
		ordered = append(ordered, e)
	}
	sortByAccess(ordered)

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		// The probe reattached while Close ran.
		cat.close()
		return errCatalogClosed
	}
	c.cat = cat
	var purged []*entry
	for _, e := range ordered {
		if old := c.entries[e.ck]; old != nil {
			continue // served while detached; keep the live one
		}
		if slices.ContainsFunc(c.detachedPurges, func(p purge) bool { return p.matches(e.ck) }) {
			e.removed = true
			purged = append(purged, e)
			continue
		}
		c.entries[e.ck] = e
		e.elem = c.lru.PushFront(e)
		c.bytes += e.size
	}
	c.detachedPurges = nil
	if len(purged) > 0 {
		go c.removeFiles(purged)
	}
	c.healthy.Store(true)
	c.evictLocked(nil)
	return nil
}

func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

func sortByAccess(es []*entry) {
	// Insertion order matters only for eviction; a simple sort suffices.
	slices.SortFunc(es, func(a, b *entry) int { return a.lastAccess.Compare(b.lastAccess) })
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

func (c *Cache) path(id string) string { return filepath.Join(c.data, id) }

// diskFault runs the test hook.
func (c *Cache) diskFault(op string) error {
	if c.o.fault != nil {
		return c.o.fault(op)
	}
	return nil
}

// diskFailed puts the cache in pass-through after a write or read of the
// cache disk failed. The catalogue is closed; the probe reattaches it
// when the disk works again. Entries stay in memory: their files are
// tried again then.
func (c *Cache) diskFailed(op string, err error) {
	c.stats.diskErrors.Add(1)
	if !c.healthy.Swap(false) {
		return
	}
	c.o.Logger.Error().Err(err).Str("op", op).Str("dir", c.o.Dir).
		Msg("edge cache disk failed: passing requests through to the origin until it works again")
	c.mu.Lock()
	cat := c.cat
	c.cat = nil
	// Forget the entries: what they describe may not be on disk. The
	// catalogue is reloaded from disk when the probe reattaches it.
	for ck, e := range c.entries {
		e.removed = true
		c.closeIdleLocked(e)
		delete(c.entries, ck)
	}
	c.lru.Init()
	c.bytes = 0
	c.mu.Unlock()
	if cat != nil {
		go cat.close() // waits for transactions in flight
	}
}

// every runs f every d until Close.
func (c *Cache) every(d time.Duration, f func()) {
	defer c.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			f()
		}
	}
}

// probe tries a failed disk again (every ProbeInterval).
func (c *Cache) probe() {
	if c.healthy.Load() {
		return
	}
	if err := c.checkDisk(); err != nil {
		return
	}
	if err := c.attach(); err != nil {
		return
	}
	c.o.Logger.Info().Str("dir", c.o.Dir).Msg("edge cache disk works again: caching resumed")
}

// checkDisk writes, syncs and removes a probe file.
func (c *Cache) checkDisk() error {
	if err := c.diskFault("probe"); err != nil {
		return err
	}
	if err := os.MkdirAll(c.data, 0o700); err != nil {
		return err
	}
	p := filepath.Join(c.o.Dir, ".probe")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte("probe"))
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	os.Remove(p)
	return err
}

// touch marks e used now (c.mu held).
func (c *Cache) touchLocked(e *entry, now time.Time) {
	e.lastAccess = now
	if e.elem != nil {
		c.lru.MoveToFront(e.elem)
	}
}

// evictLocked removes least recently used entries until the budget
// holds, never keep. Files are unlinked after the lock is released by the
// returned function's caller (see removeEntries). c.mu held.
func (c *Cache) evictLocked(keep *entry) []*entry {
	var out []*entry
	for el := c.lru.Back(); el != nil && c.bytes > c.o.MaxBytes; {
		e := el.Value.(*entry)
		el = el.Prev()
		if e == keep {
			continue
		}
		c.dropLocked(e)
		out = append(out, e)
		c.stats.evictions.Add(1)
	}
	if len(out) > 0 {
		go c.removeFiles(out)
	}
	return out
}

// dropLocked takes e out of the cache's memory (c.mu held); its file and
// record are removed by removeFiles.
func (c *Cache) dropLocked(e *entry) {
	if e.removed {
		return
	}
	e.removed = true
	c.closeIdleLocked(e)
	if c.entries[e.ck] == e {
		delete(c.entries, e.ck)
	}
	if e.elem != nil {
		c.lru.Remove(e.elem)
		e.elem = nil
	}
	c.bytes -= e.size
}

// removeFiles deletes the records and files of dropped entries. A reader
// that opened a file keeps reading it: unlinking does not cut it short.
func (c *Cache) removeFiles(es []*entry) {
	c.mu.Lock()
	if c.cat != nil {
		// Their records go in the next flush's transaction: one commit
		// for many evictions. A crash before it leaves records whose
		// file is gone, which Open drops.
		for _, e := range es {
			c.gone = append(c.gone, gone{ck: e.ck, id: e.id})
		}
	}
	c.mu.Unlock()
	for _, e := range es {
		if err := os.Remove(c.path(e.id)); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.o.Logger.Warn().Err(err).Str("key", e.ck).Msg("edge cache: removing a cached file")
		}
	}
}

// gone is the record of a removed entry, deleted by the next flush if it
// is still the record of that file.
type gone struct{ ck, id string }

// drop removes one entry now (object changed or gone at the origin).
func (c *Cache) drop(e *entry) {
	c.mu.Lock()
	was := !e.removed
	c.dropLocked(e)
	c.mu.Unlock()
	if was {
		c.removeFiles([]*entry{e})
	}
}

// persist schedules e's record for the next flush, unless e was dropped.
func (c *Cache) persist(e *entry) {
	c.mu.Lock()
	if c.cat != nil && !c.closed && !e.removed {
		c.dirty[e] = struct{}{}
	}
	c.mu.Unlock()
}

// flush makes the slices finished since the last flush durable and
// records them: each file with new slices is synced, then all their
// records are written in one transaction. A slice is served from the
// page cache as soon as its fill ends; it enters the catalogue only here,
// after its bytes are on disk, so a crash loses at most the last
// interval's slices (fetched again) and never records bytes that were
// not written. Batching turns one file sync and one index commit per
// slice into one sync per file and one commit per interval.
func (c *Cache) flush() {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	c.mu.Lock()
	cat := c.cat
	if cat == nil || len(c.dirty) == 0 && len(c.gone) == 0 {
		c.mu.Unlock()
		return
	}
	removed := c.gone
	c.gone = nil
	batch := make([]*entry, 0, len(c.dirty))
	recs := make([]record, 0, len(c.dirty))
	for e := range c.dirty {
		if !e.removed {
			batch = append(batch, e)
			recs = append(recs, e.record())
		}
	}
	clear(c.dirty)
	c.mu.Unlock()
	if !c.o.NoSync {
		for i, e := range batch {
			err := c.diskFault("sync")
			var f *os.File
			if err == nil {
				f, err = os.Open(c.path(e.id))
			}
			if errors.Is(err, os.ErrNotExist) {
				batch[i] = nil // evicted meanwhile
				continue
			}
			if err == nil {
				err = f.Sync()
				f.Close()
			}
			if err != nil {
				c.diskFailed("sync", err)
				return
			}
		}
	}
	err := cat.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(objectsBucket)
		for _, g := range removed {
			if err := deleteRecord(b, g.ck, g.id); err != nil {
				return err
			}
		}
		for i, e := range batch {
			if e == nil {
				continue
			}
			c.mu.Lock()
			removed := e.removed
			c.mu.Unlock()
			if removed {
				continue
			}
			recs[i].Version = catalogVersion
			v, err := json.Marshal(recs[i])
			if err != nil {
				return err
			}
			if err := b.Put([]byte(e.ck), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.mu.Lock()
		current := c.cat == cat
		c.mu.Unlock()
		// A flush that lost the race with a disk failure wrote to the
		// catalogue closed then; the disk may be healthy again by now.
		if current {
			c.diskFailed("catalogue", err)
		}
	}
}

// Purge removes cached objects: the one named key when prefix is false,
// every object of bucket whose key starts with key when it is true, every
// object of every bucket when bucket is "". It returns how many it
// removed.
//
// While the cache disk is failed, the catalogue's objects are not in
// memory: the purge is kept and applied to them when the disk is attached
// again, before any of them is served.
func (c *Cache) Purge(bucket, key string, prefix bool) int {
	pg := purge{bucket: bucket, key: key, prefix: prefix}
	c.purgeSide(pg)
	c.mu.Lock()
	if c.cat == nil && !c.closed {
		c.detachedPurges = append(c.detachedPurges, pg)
	}
	var out []*entry
	if bucket != "" && !prefix {
		if e := c.entries[bucket+"/"+key]; e != nil {
			out = append(out, e)
		}
	} else {
		for ck, e := range c.entries {
			if pg.matches(ck) {
				out = append(out, e)
			}
		}
	}
	for _, e := range out {
		c.dropLocked(e)
	}
	c.mu.Unlock()
	c.removeFiles(out)
	return len(out)
}

// purge is one Purge request.
type purge struct {
	bucket, key string
	prefix      bool
}

func (p purge) matches(ck string) bool {
	switch {
	case p.bucket == "":
		return true
	case !p.prefix:
		return ck == p.bucket+"/"+p.key
	}
	return strings.HasPrefix(ck, p.bucket+"/"+p.key)
}

// Stats returns the cache's counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	n, b := len(c.entries), c.bytes
	c.mu.Unlock()
	s := &c.stats
	return Stats{
		Hits: s.hits.Load(), Misses: s.misses.Load(), Revalidations: s.revalidations.Load(),
		NotModified: s.notModified.Load(), Stale: s.stale.Load(), Passes: s.passes.Load(),
		UpstreamFetches: s.fetches.Load(), UpstreamErrors: s.upstreamErrors.Load(),
		Evictions: s.evictions.Load(), DiskErrors: s.diskErrors.Load(),
		BytesFromCache: s.bytesFromCache.Load(), BytesFromUpstream: s.bytesFromUpstream.Load(),
		NegativeHits: s.negativeHits.Load(), OriginHeads: s.originHeads.Load(),
		Objects: n, Bytes: b, MaxBytes: c.o.MaxBytes, Healthy: c.healthy.Load(),
	}
}

// Close stops the probe, records the access times (so the eviction order
// survives a restart) and closes the catalogue. Fills in flight finish
// writing into files whose slices are then not recorded.
func (c *Cache) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	close(c.stop)
	c.wg.Wait()
	// Record what finished since the last flush, so that a slice a
	// client has just received is not fetched again after a restart.
	c.flush()
	c.mu.Lock()
	cat := c.cat
	c.cat = nil
	times := make(map[string]time.Time, len(c.entries))
	for ck, e := range c.entries {
		times[ck] = e.lastAccess
		c.closeIdleLocked(e)
	}
	c.mu.Unlock()
	if cat == nil {
		return nil
	}
	err := cat.touchAll(times)
	if cerr := cat.close(); err == nil {
		err = cerr
	}
	return err
}
