package edge

import (
	"container/list"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
)

// A cache of several disks keeps one catalogue, byte budget, LRU list,
// failure state and probe per disk; the entries of all of them share
// Cache.entries (one entry per key, on the disk that holds its file) and
// Cache.mu.
//
// Placement is rendezvous (highest random weight) hashing weighted by
// the disks' budgets: each healthy disk scores a key by a hash of the
// disk's directory and the key, and a new object goes to the highest
// score. Losing a disk moves only the keys it held; adding one takes
// from each the share it gets. Placement decides where a miss is
// stored, never where a hit is looked up: an entry is found in
// Cache.entries wherever it lives, so keys fetched while their disk was
// failed stay cached where they were put.
//
// A failed disk's share is re-placed by the same hash order on the other
// healthy disks, which then hold more keys in the same budgets (their
// least recently used objects go first). The alternative, relaying that
// share uncached until the disk comes back (as Varnish MSE does), keeps
// the survivors' contents intact but sends the whole share to the origin
// for as long as the disk is out, which for a dead SSD is until someone
// replaces it. When the disk is reattached, its recorded objects are
// served again, except those fetched meanwhile onto another disk: the
// newer copy stays and the older one is removed.

// disk is one cache directory. Its fields after healthy are guarded by
// Cache.mu.
type disk struct {
	dir, data string
	maxBytes  int64
	weight    float64
	seed      uint64 // hash of dir: the disk's identity in placement
	// mayCreate is set for the sole disk of a cache, whose directory is
	// created when absent; with several, an absent directory is a disk
	// not mounted.
	mayCreate bool

	healthy                atomic.Bool
	hits, misses, failures atomic.Uint64
	// rawSendfile is set at attach when the disk's file system lets a
	// hit's sendfile of cached pages be a raw call (pageCacheFS);
	// slowSends counts the hits' sendfiles from it under way through the
	// scheduler (sendfileNoPark).
	rawSendfile atomic.Bool
	slowSends   atomic.Int32

	lru   *list.List // of *entry, most recently used at the front
	bytes int64      // sum of the sizes of the entries
	cat   *catalog   // nil while the disk is failed
	// dirty holds the entries whose records a flush writes once their
	// oldest unrecorded slice is syncAge old, in the order they became
	// dirty (entry.dirtySince); due those the next flush writes (see
	// Cache.persist). dropped counts the removed entries in both.
	dirty, due []*entry
	dropped    int
	// detachedPurges are purges made while the disk was failed, applied
	// when it is attached again.
	detachedPurges []purge
	// gone holds the records of removed entries the next flush deletes.
	gone []gone
}

func newDisk(d Disk, sole bool) *disk {
	return &disk{
		dir: d.Dir, data: filepath.Join(d.Dir, "data"), maxBytes: d.MaxBytes,
		weight: float64(d.MaxBytes), seed: fnv64(fnvOffset, filepath.Clean(d.Dir)),
		mayCreate: sole, lru: list.New(),
	}
}

func (d *disk) path(id string) string { return dataPath(d.data, id) }

// dataPath is the file of id under a disk's data directory: in the
// subdirectory named by the id's first two hex digits, one of 256, so
// that no directory holds more than a 256th of a large cache and the
// file system spreads the files over its allocation groups (markTopDir).
// Caches written before the subdirectories had their files in data
// itself; attach moves them.
func dataPath(data, id string) string { return filepath.Join(data, id[:2], id) }

// path is the entry's file.
func (e *entry) path() string { return e.d.path(e.id) }

// disks checks Disks (or makes it from Dir and MaxBytes) and sets
// MaxBytes to their total.
func (o *Options) disks() error {
	if len(o.Disks) == 0 {
		if o.Dir == "" {
			return errors.New("edge: no cache directory")
		}
		o.Disks = []Disk{{Dir: o.Dir, MaxBytes: o.MaxBytes}}
	} else if o.Dir != "" {
		return errors.New("edge: give the cache directory as Dir or as Disks, not both")
	}
	seen := make(map[string]bool, len(o.Disks))
	var total int64
	for _, d := range o.Disks {
		if d.Dir == "" {
			return errors.New("edge: no cache directory")
		}
		if d.MaxBytes <= 0 {
			return fmt.Errorf("edge: the cache size of %s must be positive", d.Dir)
		}
		p := filepath.Clean(d.Dir)
		if seen[p] {
			return fmt.Errorf("edge: cache directory %s given twice", d.Dir)
		}
		seen[p] = true
		total += d.MaxBytes
	}
	o.Disks = append([]Disk(nil), o.Disks...)
	o.MaxBytes = total
	return nil
}

// place returns the healthy disk a new object of key ck and the given
// size goes to: the highest rendezvous score among the disks whose
// budget takes it (an object larger than half a disk's budget is not
// stored there). nil: none.
func (c *Cache) place(ck string, size int64) *disk {
	var best *disk
	var bestScore float64
	for _, d := range c.disks {
		if !d.healthy.Load() || size > d.maxBytes/2 {
			continue
		}
		if len(c.disks) == 1 {
			return d
		}
		if s := d.score(ck); best == nil || s > bestScore {
			best, bestScore = d, s
		}
	}
	return best
}

// anyHealthy reports whether some disk can take new objects.
func (c *Cache) anyHealthy() bool {
	for _, d := range c.disks {
		if d.healthy.Load() {
			return true
		}
	}
	return false
}

// score is d's weighted rendezvous score for key ck: -w/ln(u) with u
// uniform in (0,1) from the hash of the disk and the key, so that each
// disk wins a share of the keys proportional to its weight.
func (d *disk) score(ck string) float64 {
	h := mix64(fnv64(d.seed, ck))
	u := (float64(h>>11) + 0.5) / (1 << 53)
	return -d.weight / math.Log(u)
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv64 continues an FNV-1a hash h over s.
func fnv64(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// mix64 is splitmix64's finalizer: FNV's low-entropy high bits become
// uniform.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// readError drops disk d from placement when err, met while sending one
// of its files, is the disk's (EIO) rather than the client's (a reset or
// closed connection): the response is cut either way.
func (c *Cache) readError(d *disk, err error) {
	if errors.Is(err, syscall.EIO) {
		c.diskFailed(d, "read", err)
	}
}

// fileHasSize reports whether the file at p is a regular file of size
// bytes.
func fileHasSize(p string, size int64) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == size
}

// checkDir fails when d's directory is absent and may not be created.
func (d *disk) checkDir() error {
	if d.mayCreate {
		return nil
	}
	fi, err := os.Stat(d.dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("edge: cache directory %s is not a directory", d.dir)
	}
	return nil
}

// DiskStats are one cache disk's figures.
type DiskStats struct {
	Dir             string
	Objects         int
	Bytes, MaxBytes int64
	// Hits counts the requests answered from the disk's objects, Misses
	// the misses stored on it, Failures its failed operations.
	Hits, Misses, Failures uint64
	Healthy                bool
}

// diskStatsLocked returns the figures of every disk (c.mu held).
func (c *Cache) diskStatsLocked() []DiskStats {
	out := make([]DiskStats, len(c.disks))
	for i, d := range c.disks {
		out[i] = DiskStats{
			Dir: d.dir, Objects: d.lru.Len(), Bytes: d.bytes, MaxBytes: d.maxBytes,
			Hits: d.hits.Load(), Misses: d.misses.Load(), Failures: d.failures.Load(),
			Healthy: d.healthy.Load(),
		}
	}
	return out
}
