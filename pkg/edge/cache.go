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
	o  Options
	up *upstream
	// ownClient is true when the cache made o.Client (Options.Client
	// nil): Close closes its idle connections, never those of a client
	// the caller may share.
	ownClient bool
	// disks are the cache directories (disks.go); each entry lives on
	// one.
	disks []*disk

	mu      sync.Mutex
	entries map[string]*entry
	// index holds what entries holds, changed with it under mu, for the
	// fast hit, which reads it without mu (index.go).
	index   *hitIndex
	opening map[string]*opening
	closed  bool
	// syncFiles counts the descriptors kept for a flush's sync
	// (entry.syncFile); idleFiles those kept in the entries' idle slots
	// (hit.go), which hits take and give back without c.mu.
	syncFiles int
	idleFiles atomic.Int64

	stop    chan struct{}
	wg      sync.WaitGroup
	flushMu sync.Mutex

	stats counters
	// side holds the origin 404s and HEAD answers kept in memory only
	// (miss.go).
	side sideCache
}

// entry is one cached object (one version of it). Its fields are guarded
// by Cache.mu; the file's bytes by the slices bitmap.
type entry struct {
	ck     string // bucket + "/" + key
	d      *disk  // the disk holding the file
	id     string // file name, under d.data/id[:2] (dataPath)
	size   int64
	etag   string
	header http.Header // replaced, never changed (setHeader)
	// fetched is when the object was fetched or last validated at the
	// origin, in Unix nanoseconds (setFetched); read without Cache.mu for
	// the Age of answers.
	fetched      atomic.Int64
	freshUntil   time.Time
	staleIfError time.Duration // -1: Options.StaleIfError
	sliceSize    int64
	present      []byte // bitmap of complete slices
	fills        map[int64]*fill
	reval        *revalidation
	lastAccess   time.Time
	elem         *list.Element
	// removed is set, once, when e leaves the cache (markRemoved, c.mu
	// held); the fast hit reads it without c.mu.
	removed atomic.Bool
	// queued is set while e waits in d.dirty (since dirtySince) or in
	// d.due for a flush to record it; syncFile is a descriptor of its
	// file kept open from a fill until that flush syncs it.
	queued     bool
	dirtySince time.Time
	syncFile   *os.File
	// freshNs (freshUntil as sinceEpoch counts it) and whole (every
	// slice present) are what the fast hit reads of e without c.mu, with
	// removed; each is written with the field it mirrors (setFreshUntil,
	// markWhole).
	freshNs atomic.Int64
	whole   atomic.Bool
	// hdr is the header block of every answer (hit.go); idle the file
	// descriptors kept for the next hits, taken and given back without
	// c.mu; idleShut is set once they are closed for good (e dropped, its
	// disk failed, the cache closed), after which one given back is
	// closed (hit.go, keepIdle).
	hdr      atomic.Pointer[headerBlock]
	idle     [maxIdlePerEntry]atomic.Pointer[os.File]
	idleShut atomic.Bool
	// hit is the rendered header lines of a fast hit (fasthit.go).
	hit atomic.Pointer[hitLines]
}

func (e *entry) slices() int64 {
	if e.size == 0 {
		return 1
	}
	return (e.size + e.sliceSize - 1) / e.sliceSize
}

func (e *entry) has(i int64) bool { return e.present[i/8]&(1<<(i%8)) != 0 }
func (e *entry) set(i int64)      { e.present[i/8] |= 1 << (i % 8) }

// monoEpoch is what entry.freshNs counts from: a time stored as its
// distance from it keeps the monotonic clock's reading where both have
// one, as time.Time's own comparisons do, so that a step of the wall
// clock moves the fast hit's freshness as little as the slow path's.
var monoEpoch = time.Now()

// sinceEpoch is t as entry.freshNs holds it (clamped by time.Time.Sub).
func sinceEpoch(t time.Time) int64 { return int64(t.Sub(monoEpoch)) }

// setFreshUntil sets e's freshness limit (c.mu held, or e not yet
// shared).
func (e *entry) setFreshUntil(t time.Time) {
	e.freshUntil = t
	e.freshNs.Store(sinceEpoch(t))
}

// markWhole records, for the fast hit, whether every slice of e is
// present (c.mu held, or e not yet shared).
func (e *entry) markWhole() { e.whole.Store(e.complete()) }

// markRemoved marks e removed (c.mu held, or e not yet shared).
func (e *entry) markRemoved() { e.removed.Store(true) }

// complete reports whether every slice is present.
func (e *entry) complete() bool {
	for i := range e.slices() {
		if !e.has(i) {
			return false
		}
	}
	return true
}

// setFetched records when e's object was fetched or last validated at
// the origin.
func (e *entry) setFetched(t time.Time) { e.fetched.Store(t.UnixNano()) }

// fetchedAt is when e's object was fetched or last validated.
func (e *entry) fetchedAt() time.Time { return time.Unix(0, e.fetched.Load()) }

// age is the value of the Age header of an answer from e at now (RFC 9111
// §5.1): the whole seconds since its object was fetched or last
// validated.
func (e *entry) age(now time.Time) int64 {
	return max(0, now.Unix()-e.fetchedAt().Unix())
}

func (e *entry) record() record {
	return record{
		ID: e.id, Size: e.size, ETag: e.etag, Header: e.header,
		Fetched: e.fetchedAt().UTC(), FreshUntil: e.freshUntil, StaleIfError: e.staleIfError,
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
	// Healthy is true while every cache disk works.
	Healthy bool
	// Disks are the figures of each cache disk, in the order of
	// Options.Disks.
	Disks []DiskStats

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

// Open opens (or creates) the cache in o.Dir, or o.Disks, and loads its
// catalogues: every object cached before a restart is served again
// without a refill.
// A cache disk that cannot be used does not fail Open: the cache starts
// without it (in pass-through when it is the only one) and probes the
// disk until it works.
func Open(o Options) (*Cache, error) {
	ownClient := o.Client == nil
	if err := o.defaults(); err != nil {
		return nil, err
	}
	c := &Cache{
		o:         o,
		ownClient: ownClient,
		entries:   make(map[string]*entry),
		index:     newHitIndex(),
		opening:   make(map[string]*opening),
		stop:      make(chan struct{}),
	}
	for _, d := range o.Disks {
		c.disks = append(c.disks, newDisk(d, len(o.Disks) == 1))
	}
	c.up = newUpstream(&c.o)
	for _, d := range c.disks {
		if err := c.attach(d, false); err != nil {
			msg := "edge cache disk unusable: passing requests through to the origin"
			if len(c.disks) > 1 {
				msg = "edge cache disk unusable: its share of the objects goes to the other disks"
			}
			o.Logger.Error().Err(err).Str("dir", d.dir).Msg(msg)
		}
	}
	c.wg.Add(2)
	go c.every(o.ProbeInterval, c.probe)
	go c.every(o.syncInterval, c.flush)
	return c, nil
}

// attach opens d's catalogue, loads it and removes files no record names
// (interrupted fills of an earlier run). With verify (a disk coming back
// after a failure, whose files may have been damaged or truncated by a
// repair), a record is kept only if its file has the object's size; at
// Open the names suffice, so that start-up costs no stat per object.
func (c *Cache) attach(d *disk, verify bool) error {
	if err := c.diskFault(d, "attach"); err != nil {
		return err
	}
	if err := d.checkDir(); err != nil {
		return err
	}
	if err := makeDataDirs(d.data); err != nil {
		return err
	}
	cat, err := openCatalog(filepath.Join(d.dir, "catalog.db"), c.o.NoSync)
	if err != nil {
		return err
	}
	if !c.o.NoSync {
		// Before any fill of this attach writes: its syncfs reports
		// their writeback errors.
		cat.syncDir = openSyncDir(d.dir)
	}
	entries := make(map[string]*entry)
	var bad []string
	err = cat.load(func(ck string, r record, ok bool) {
		if !ok || r.SliceSize <= 0 || r.Size < 0 || !validID(r.ID) {
			bad = append(bad, ck)
			return
		}
		e := &entry{ck: ck, d: d, id: r.ID, size: r.Size, etag: r.ETag,
			staleIfError: r.StaleIfError,
			sliceSize:    r.SliceSize, present: r.Slices, lastAccess: r.LastAccess}
		if int64(len(e.present)) != (e.slices()+7)/8 {
			bad = append(bad, ck)
			return
		}
		e.setFreshUntil(r.FreshUntil)
		e.markWhole()
		h := http.Header(r.Header)
		if h == nil {
			h = http.Header{}
		}
		e.setHeader(h)
		e.setFetched(r.Fetched)
		entries[ck] = e
	})
	var names []string
	if err == nil {
		start := time.Now()
		var moved int
		names, moved, err = listData(d.data, entries)
		if moved > 0 {
			c.o.Logger.Info().Str("dir", d.dir).Int("files", moved).Dur("took", time.Since(start)).
				Msg("edge cache: files moved from data/ into its subdirectories")
		}
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
			if !present[e.id] || verify && !fileHasSize(d.path(e.id), e.size) {
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
			_ = os.Remove(d.path(n))
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
	d.cat = cat
	var purged []*entry
	for _, e := range ordered {
		if old := c.entries[e.ck]; old != nil {
			if old.d == d && old.id == e.id {
				continue // served while detached; keep the live one
			}
			// The object is on another disk too: fetched there while this
			// one was away, or left by a run with the disks in another
			// order. The newer copy stays.
			if !e.fetchedAt().After(old.fetchedAt()) {
				e.markRemoved()
				purged = append(purged, e)
				continue
			}
			c.dropLocked(old)
			purged = append(purged, old)
		}
		if slices.ContainsFunc(d.detachedPurges, func(p purge) bool { return p.matches(e.ck) }) {
			e.markRemoved()
			purged = append(purged, e)
			continue
		}
		c.entries[e.ck] = e
		c.index.set(e.ck, e)
		e.elem = d.lru.PushFront(e)
		d.bytes += e.size
	}
	d.detachedPurges = nil
	if len(purged) > 0 {
		go c.removeFiles(purged)
	}
	d.rawSendfile.Store(pageCacheFS(d.data))
	d.healthy.Store(true)
	c.evictLocked(d, nil)
	return nil
}

// makeDataDirs makes a disk's data directory and its 256 subdirectories
// (dataPath), the directory marked first so that they spread.
func makeDataDirs(data string) error {
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	markTopDir(data)
	for i := range 256 {
		sub := filepath.Join(data, hex.EncodeToString([]byte{byte(i)}))
		err := os.Mkdir(sub, 0o700)
		if errors.Is(err, os.ErrExist) {
			fi, serr := os.Lstat(sub)
			if serr != nil || fi.IsDir() {
				err = serr
			} else if err = os.Remove(sub); err == nil {
				// A stray file of the subdirectory's name.
				err = os.Mkdir(sub, 0o700)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// listData returns the ids of the files under a disk's data directory,
// and how many of them it moved.
// A file in data itself, where caches kept their files before the
// subdirectories, is moved to its subdirectory when a record names it
// (entries, by key) and removed otherwise; so is anything else that is
// not a file of the layout, which an interrupted run or a person left.
func listData(data string, entries map[string]*entry) (ids []string, moved int, err error) {
	top, err := readDirNames(data)
	if err != nil {
		return nil, 0, err
	}
	var recorded map[string]bool
	for _, n := range top {
		if len(n) == 2 && isLowerHex(n) {
			sub, err := readDirNames(filepath.Join(data, n))
			if err != nil {
				return nil, moved, err
			}
			for _, id := range sub {
				if validID(id) && id[:2] == n {
					ids = append(ids, id)
				} else {
					_ = os.Remove(filepath.Join(data, n, id))
				}
			}
			continue
		}
		if recorded == nil {
			recorded = make(map[string]bool, len(entries))
			for _, e := range entries {
				recorded[e.id] = true
			}
		}
		old := filepath.Join(data, n)
		if validID(n) && recorded[n] {
			if err := os.Rename(old, dataPath(data, n)); err != nil {
				return nil, moved, err
			}
			ids = append(ids, n)
			moved++
			continue
		}
		_ = os.Remove(old)
	}
	return ids, moved, nil
}

func isLowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
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

// diskFault runs the test hooks.
func (c *Cache) diskFault(d *disk, op string) error {
	if c.o.fault != nil {
		if err := c.o.fault(op); err != nil {
			return err
		}
	}
	if c.o.faultAt != nil {
		return c.o.faultAt(d.dir, op)
	}
	return nil
}

// diskFailed drops disk d from placement after a write or read of it
// failed: its share goes to the other disks, or the cache is in
// pass-through when it was the last one working. The catalogue is
// closed; the probe reattaches it when the disk works again.
func (c *Cache) diskFailed(d *disk, op string, err error) {
	c.stats.diskErrors.Add(1)
	d.failures.Add(1)
	if !d.healthy.Swap(false) {
		return
	}
	msg := "edge cache disk failed: passing requests through to the origin until it works again"
	if c.anyHealthy() {
		msg = "edge cache disk failed: its share of the objects goes to the other disks until it works again"
	}
	c.o.Logger.Error().Err(err).Str("op", op).Str("dir", d.dir).Msg(msg)
	c.mu.Lock()
	cat := d.cat
	d.cat = nil
	// Forget the disk's entries: what they describe may not be on disk.
	// The catalogue is reloaded from disk when the probe reattaches it.
	for ck, e := range c.entries {
		if e.d == d {
			e.markRemoved()
			c.closeIdleLocked(e)
			delete(c.entries, ck)
			c.index.del(ck)
			// d.lru.Init below: the element is in no list any more (a
			// fast hit that read e before this must not move it).
			e.elem = nil
		}
	}
	d.lru.Init()
	d.bytes = 0
	d.dirty, d.due, d.dropped = nil, nil, 0
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

// probe tries the failed disks again (every ProbeInterval).
func (c *Cache) probe() {
	for _, d := range c.disks {
		if d.healthy.Load() {
			continue
		}
		if err := c.checkDisk(d); err != nil {
			continue
		}
		if err := c.attach(d, true); err != nil {
			continue
		}
		c.o.Logger.Info().Str("dir", d.dir).Msg("edge cache disk works again: caching resumed")
	}
}

// checkDisk writes, syncs and removes a probe file.
func (c *Cache) checkDisk(d *disk) error {
	if err := c.diskFault(d, "probe"); err != nil {
		return err
	}
	if err := d.checkDir(); err != nil {
		return err
	}
	if err := os.MkdirAll(d.data, 0o700); err != nil {
		return err
	}
	p := filepath.Join(d.dir, ".probe")
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

// touch marks e used now (c.mu held); a removed entry is left alone (a
// fast hit reads its entry before it takes the lock).
func (c *Cache) touchLocked(e *entry, now time.Time) {
	if e.removed.Load() {
		return
	}
	e.lastAccess = now
	if e.elem != nil {
		e.d.lru.MoveToFront(e.elem)
	}
}

// evictLocked removes d's least recently used entries until its budget
// holds, never keep. Files are unlinked after the lock is released by the
// returned function's caller (see removeEntries). c.mu held.
func (c *Cache) evictLocked(d *disk, keep *entry) []*entry {
	var out []*entry
	for el := d.lru.Back(); el != nil && d.bytes > d.maxBytes; {
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
	if e.removed.Load() {
		return
	}
	e.markRemoved()
	if e.queued {
		e.d.dropped++
	}
	c.closeIdleLocked(e)
	if c.entries[e.ck] == e {
		delete(c.entries, e.ck)
		c.index.del(e.ck)
	}
	if e.elem != nil {
		e.d.lru.Remove(e.elem)
		e.elem = nil
	}
	e.d.bytes -= e.size
}

// removeFiles deletes the records and files of dropped entries. A reader
// that opened a file keeps reading it: unlinking does not cut it short.
func (c *Cache) removeFiles(es []*entry) {
	c.mu.Lock()
	// Their records go in the next flush's transaction: one commit for
	// many evictions. A crash before it leaves records whose file is
	// gone, which Open drops.
	for _, e := range es {
		if e.d.cat != nil {
			e.d.gone = append(e.d.gone, gone{ck: e.ck, id: e.id})
		}
	}
	c.mu.Unlock()
	for _, e := range es {
		if err := os.Remove(e.path()); err != nil && !errors.Is(err, os.ErrNotExist) {
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
	was := !e.removed.Load()
	c.dropLocked(e)
	c.mu.Unlock()
	if was {
		c.removeFiles([]*entry{e})
	}
}

// persist schedules e's record for a flush, unless e was dropped, and
// takes f, a descriptor of e's file from the fill that just finished (or
// nil): it is kept for the flush's sync, or closed.
//
// The record waits syncAge (see flush) only while such a descriptor is
// kept: it holds e's inode in memory, so that an error of the kernel's
// writeback of the file, kept with the inode, reaches that sync even if
// nothing opened the file in between. An entry without one (more than
// maxSyncFiles waiting, or a record changed by a revalidation alone) is
// synced and recorded by the next flush.
func (c *Cache) persist(e *entry, f *os.File) {
	c.mu.Lock()
	c.persistLocked(e, &f)
	c.mu.Unlock()
	if f != nil {
		// Outside the lock: the close of a descriptor that wrote may
		// write itself on some file systems (NFS).
		f.Close()
	}
}

// persistLocked is persist with c.mu held; it sets *f to nil when it
// keeps the descriptor.
func (c *Cache) persistLocked(e *entry, f **os.File) {
	if e.d.cat == nil || c.closed || e.removed.Load() {
		return
	}
	if *f != nil && e.syncFile == nil && c.o.syncAge > 0 && c.syncFiles < maxSyncFiles {
		e.syncFile, *f = *f, nil
		c.syncFiles++
	}
	if e.queued {
		return
	}
	e.queued = true
	if e.syncFile != nil || c.o.syncAge == 0 {
		e.dirtySince = c.o.Now()
		e.d.dirty = append(e.d.dirty, e)
	} else {
		e.d.due = append(e.d.due, e)
	}
}

// maxSyncFiles bounds the descriptors kept for syncs (entry.syncFile,
// one per file waiting): 16,384, or a quarter of the process's
// descriptor limit when that is lower; about 40 s of fills at 400 a
// second.
var maxSyncFiles = syncFileLimit()

// flushChunk is how many entries Close syncs and records per transaction,
// so that a shutdown cut short keeps what it recorded.
const flushChunk = 512

// flush makes the slices finished at least syncAge ago durable and
// records them: each file with new slices is synced, then all their
// records are written in one transaction. A slice is served from the
// page cache as soon as its fill ends; it enters the catalogue only here,
// after its bytes are on disk, so a crash loses at most the slices of the
// last syncAge and a second (fetched again) and never records bytes that
// were not written.
//
// An entry waits until its oldest unrecorded slice is syncAge old
// (Options.syncAge: the kernel's writeback delay), as the kernel's
// flusher waits until a file's oldest dirty page is that old: by then the
// flusher has written the pages out, as it does for any file, and the
// sync finds the data written, which costs the edge's process a fraction
// of a sync that writes it; a file evicted meanwhile costs none. Batching
// turns one file sync and one index commit per slice into one sync per
// file and one commit per interval.
func (c *Cache) flush() {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	cutoff := c.o.Now().Add(-c.o.syncAge)
	for _, d := range c.disks {
		c.flushDisk(d, cutoff, false, 0)
	}
}

// flushAll is flush of every finished slice, however recent (Close), in
// transactions of flushChunk entries.
func (c *Cache) flushAll() {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	for _, d := range c.disks {
		for c.flushDisk(d, time.Time{}, true, flushChunk) > 0 {
		}
	}
}

// flushDisk is flush of one disk's due entries and those dirty since
// cutoff or before, or of all of them, at most limit (0: no limit) of
// them (c.flushMu held). It returns how many entries it took.
func (c *Cache) flushDisk(d *disk, cutoff time.Time, all bool, limit int) int {
	c.mu.Lock()
	cat := d.cat
	if cat == nil || len(d.dirty) == 0 && len(d.due) == 0 && len(d.gone) == 0 {
		c.mu.Unlock()
		return 0
	}
	removed := d.gone
	d.gone = nil
	var batch []*entry
	var recs []record
	var files []*os.File
	take := func(e *entry) {
		e.queued = false
		if e.removed.Load() {
			d.dropped--
			return
		}
		batch = append(batch, e)
		recs = append(recs, e.record())
		files = append(files, e.syncFile)
		if e.syncFile != nil {
			e.syncFile = nil
			c.syncFiles--
		}
	}
	full := func() bool { return limit > 0 && len(batch) >= limit }
	n := 0
	for _, e := range d.due {
		if full() {
			break
		}
		n++
		take(e)
	}
	clear(d.due[:n])
	d.due = d.due[n:]
	taken := n
	n = 0
	for _, e := range d.dirty {
		if full() || !all && !e.removed.Load() && e.dirtySince.After(cutoff) {
			break // and so are all after it
		}
		n++
		take(e)
	}
	clear(d.dirty[:n])
	d.dirty = d.dirty[n:]
	taken += n
	// Dropped entries behind a young one would stay until it is old:
	// they go once they are half of the queue.
	if d.dropped > 0 && 2*d.dropped >= len(d.dirty) {
		d.dirty = slices.DeleteFunc(d.dirty, func(e *entry) bool {
			if e.removed.Load() {
				e.queued = false
			}
			return e.removed.Load()
		})
		d.dropped = 0
		for _, e := range d.due {
			if e.removed.Load() {
				d.dropped++
			}
		}
	}
	if len(d.dirty) == 0 {
		d.dirty = nil
	}
	if len(d.due) == 0 {
		d.due = nil
	}
	c.mu.Unlock()
	if len(batch) == 0 && len(removed) == 0 {
		return taken
	}
	if !c.o.NoSync {
		// With a syncfs descriptor, the files are synced together after
		// the loop, and each is closed only then.
		together := cat.syncDir != nil && !cat.perFileSync.Load()
		for i, e := range batch {
			f := files[i]
			files[i] = nil
			c.mu.Lock()
			gone := e.removed.Load()
			c.mu.Unlock()
			var err error
			if !gone {
				err = c.diskFault(d, "sync")
			}
			if err == nil && f == nil && !gone {
				if together {
					// syncfs needs no descriptor: only that the file is
					// there (syncBatch opens it if it must sync it
					// alone).
					_, err = os.Lstat(e.path())
				} else {
					f, err = openPath(e.path(), os.O_RDONLY, 0)
				}
			}
			if gone || errors.Is(err, os.ErrNotExist) {
				if f != nil {
					f.Close()
				}
				batch[i] = nil // evicted meanwhile
				continue
			}
			if outOfFiles(err) {
				// Not the disk's fault: the entry waits for the next
				// flush, unrecorded, with its descriptor if it had one.
				c.mu.Lock()
				c.persistLocked(e, &f)
				c.mu.Unlock()
				if f != nil {
					f.Close()
				}
				batch[i] = nil
				continue
			}
			if f != nil {
				switch {
				case err == nil && together:
					files[i] = f
				case err == nil:
					err = syncFile(f)
					f.Close()
				default:
					f.Close()
				}
			}
			if err != nil {
				closeFiles(files)
				c.diskFailed(d, "sync", err)
				return taken
			}
		}
		if together {
			paths := make([]string, len(batch))
			for i, e := range batch {
				if e != nil {
					paths[i] = e.path()
				}
			}
			if err := cat.syncBatch(files, paths); err != nil {
				closeFiles(files)
				c.diskFailed(d, "sync", err)
				return taken
			}
		}
	}
	closeFiles(files)
	if len(removed) == 0 && !slices.ContainsFunc(batch, func(e *entry) bool { return e != nil }) {
		return taken
	}
	err := cat.db.Update(func(tx *bolt.Tx) error {
		if err := c.diskFault(d, "catalogue"); err != nil {
			return err
		}
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
			removed := e.removed.Load()
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
		current := d.cat == cat
		c.mu.Unlock()
		// A flush that lost the race with a disk failure wrote to the
		// catalogue closed then; the disk may be healthy again by now.
		if current {
			c.diskFailed(d, "catalogue", err)
		}
	}
	return taken
}

// syncBatch makes the files of a flush's batch durable with one syncfs of
// the file system of cat.syncDir: files[i] is the descriptor of the file
// at paths[i], or nil when the flush kept none (neither, for an entry the
// flush skipped). When syncfs reports an error, which may be any file's of
// that file system and which it reports only once, each file is synced
// (opened for it if it has no descriptor), the first that fails giving
// the error, and so are the files of every later flush of this attach
// (perFileSync): a cache file whose writeback failed may not be due yet,
// and a later syncfs would not report its error again.
func (cat *catalog) syncBatch(files []*os.File, paths []string) error {
	if !slices.ContainsFunc(paths, func(p string) bool { return p != "" }) {
		return nil
	}
	if !cat.perFileSync.Load() {
		if syncFS(cat.syncDir) == nil {
			return nil
		}
		cat.perFileSync.Store(true)
	}
	for i, p := range paths {
		var err error
		switch {
		case p == "":
		case files[i] != nil:
			err = syncFile(files[i])
		default:
			err = syncPath(p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// syncPath opens, syncs and closes the file at p; one removed meanwhile
// (evicted) is no error.
func syncPath(p string) error {
	f, err := openPath(p, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	return syncFile(f)
}

// syncFile is fsync(2) of one cache file. Tests replace it.
var syncFile = (*os.File).Sync

// closeFiles closes the descriptors of fs that are not nil.
func closeFiles(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// Purge removes cached objects: the one named key when prefix is false,
// every object of bucket whose key starts with key when it is true, every
// object of every bucket when bucket is "". It returns how many it
// removed.
//
// While a cache disk is failed, its catalogue's objects are not in
// memory: the purge is kept and applied to them when the disk is attached
// again, before any of them is served.
func (c *Cache) Purge(bucket, key string, prefix bool) int {
	pg := purge{bucket: bucket, key: key, prefix: prefix}
	c.purgeSide(pg)
	c.mu.Lock()
	for _, d := range c.disks {
		if d.cat == nil && !c.closed {
			d.detachedPurges = append(d.detachedPurges, pg)
		}
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
	n := len(c.entries)
	disks := c.diskStatsLocked()
	c.mu.Unlock()
	var b int64
	healthy := true
	for _, d := range disks {
		b += d.Bytes
		healthy = healthy && d.Healthy
	}
	s := &c.stats
	return Stats{
		Hits: s.hits.Load(), Misses: s.misses.Load(), Revalidations: s.revalidations.Load(),
		NotModified: s.notModified.Load(), Stale: s.stale.Load(), Passes: s.passes.Load(),
		UpstreamFetches: s.fetches.Load(), UpstreamErrors: s.upstreamErrors.Load(),
		Evictions: s.evictions.Load(), DiskErrors: s.diskErrors.Load(),
		BytesFromCache: s.bytesFromCache.Load(), BytesFromUpstream: s.bytesFromUpstream.Load(),
		NegativeHits: s.negativeHits.Load(), OriginHeads: s.originHeads.Load(),
		Objects: n, Bytes: b, MaxBytes: c.o.MaxBytes, Healthy: healthy, Disks: disks,
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
	if c.ownClient {
		c.o.Client.CloseIdleConnections()
	}
	// Record everything finished, however recent, so that a slice a
	// client has just received is not fetched again after a restart.
	c.flushAll()
	var err error
	for _, d := range c.disks {
		c.mu.Lock()
		cat := d.cat
		d.cat = nil
		times := make(map[string]time.Time, d.lru.Len())
		for ck, e := range c.entries {
			if e.d == d {
				times[ck] = e.lastAccess
				c.closeIdleLocked(e)
			}
		}
		c.mu.Unlock()
		if cat == nil {
			continue
		}
		terr := cat.touchAll(times)
		if cerr := cat.close(); terr == nil {
			terr = cerr
		}
		if err == nil {
			err = terr
		}
	}
	return err
}
