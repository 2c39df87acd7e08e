package edge

import (
	"hash/maphash"
	"sync"
)

// hitIndex holds what Cache.entries holds, for the fast hit, which reads
// it without the cache's lock (ServeHit): the same map, split in shards
// each behind a read-write lock. Writers hold c.mu as well (set, del), so
// shards change only with the entries; a hit takes only its shard's read
// lock, which other hits share and which a writer holds for one map
// assignment. A sync.Map would have cost about 100 bytes per entry here
// against a map's 35.
type hitIndex struct {
	seed   maphash.Seed
	shards [indexShards]indexShard
}

const indexShards = 64

type indexShard struct {
	mu sync.RWMutex
	m  map[string]*entry
	_  [32]byte // a shard per cache line: hits on two CPUs do not share one
}

func newHitIndex() *hitIndex {
	x := &hitIndex{seed: maphash.MakeSeed()}
	for i := range x.shards {
		x.shards[i].m = make(map[string]*entry)
	}
	return x
}

func (x *hitIndex) shard(ck string) *indexShard {
	return &x.shards[maphash.String(x.seed, ck)%indexShards]
}

// get returns the entry of ck (the fast hit's lookup).
func (x *hitIndex) get(ck string) *entry {
	s := x.shard(ck)
	s.mu.RLock()
	e := s.m[ck]
	s.mu.RUnlock()
	return e
}

// set makes e the entry of ck (c.mu held).
func (x *hitIndex) set(ck string, e *entry) {
	s := x.shard(ck)
	s.mu.Lock()
	s.m[ck] = e
	s.mu.Unlock()
}

// del removes ck (c.mu held).
func (x *hitIndex) del(ck string) {
	s := x.shard(ck)
	s.mu.Lock()
	delete(s.m, ck)
	s.mu.Unlock()
}
