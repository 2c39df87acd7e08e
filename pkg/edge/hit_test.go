package edge

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// kept returns the descriptors kept for ck's entry and the cache's count
// of kept descriptors, once no request is in flight.
func (e *env) kept(ck string) ([]*os.File, int) {
	e.t.Helper()
	e.waitInflight(0)
	c := e.c()
	c.mu.Lock()
	defer c.mu.Unlock()
	var fs []*os.File
	if en := c.entries[ck]; en != nil {
		for i := range en.idle {
			if f := en.idle[i].Load(); f != nil {
				fs = append(fs, f)
			}
		}
	}
	return fs, int(c.idleFiles.Load())
}

// TestHitKeepsDescriptor checks that hits on a cached object share one
// open descriptor of its file rather than opening it each time, and that
// the descriptor is closed when the entry goes: purged, or replaced by a
// new version of the object.
func TestHitKeepsDescriptor(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(300, 3*testSlice+100)
	e.origin.put("b/a", data, func(o *object) { o.cacheControl = "max-age=60" })
	e.mustGet("b/a", data, xMiss)
	e.settle()
	for range 3 {
		e.mustGet("b/a", data, xHit)
		fs, n := e.kept("b/a")
		if len(fs) != 1 || n != 1 {
			t.Fatalf("after a hit: %d descriptors kept for the entry, %d in all; want 1, 1", len(fs), n)
		}
	}
	r := e.get("b/a", "Range", "bytes=70000-70099")
	checkBody(t, "range hit on a kept descriptor", r, http.StatusPartialContent, data[70000:70100])
	e.mustGet("b/a", data, xHit)
	fs, _ := e.kept("b/a")
	if len(fs) != 1 {
		t.Fatalf("%d descriptors kept, want 1", len(fs))
	}

	// Purged: the kept descriptor is closed.
	old := fs[0]
	if n := e.c().Purge("b", "a", false); n != 1 {
		t.Fatalf("purged %d, want 1", n)
	}
	if _, err := old.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a purged entry's descriptor is still open (Stat: %v)", err)
	}
	if _, n := e.kept("b/a"); n != 0 {
		t.Errorf("%d descriptors kept after the purge, want 0", n)
	}

	// A new version at the origin: the old version's descriptor is
	// closed and never answers for the new one.
	e.mustGet("b/a", data, xMiss)
	e.settle()
	e.mustGet("b/a", data, xHit)
	fs, _ = e.kept("b/a")
	if len(fs) != 1 {
		t.Fatalf("%d descriptors kept, want 1", len(fs))
	}
	old = fs[0]
	v2 := randomBytes(301, 2*testSlice+5)
	e.origin.put("b/a", v2, func(o *object) { o.cacheControl = "max-age=60" })
	e.clock.advance(61 * time.Second)
	e.mustGet("b/a", v2, "")
	e.settle()
	e.mustGet("b/a", v2, xHit)
	if _, err := old.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the replaced version's descriptor is still open (Stat: %v)", err)
	}
	if _, n := e.kept("b/a"); n != 1 {
		t.Errorf("%d descriptors kept, want 1 (the new version's)", n)
	}

	// Closing the cache closes what it kept.
	fs, _ = e.kept("b/a")
	if err := e.c().Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := fs[0].Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a descriptor is still open after Close (Stat: %v)", err)
	}
}

// TestHitEvictionClosesDescriptor checks that an evicted entry's kept
// descriptor is closed.
func TestHitEvictionClosesDescriptor(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxBytes = 5 * testSlice })
	a, b := randomBytes(310, 2*testSlice), randomBytes(311, 2*testSlice)
	e.origin.put("b/a", a)
	e.origin.put("b/b", b)
	e.mustGet("b/a", a, xMiss)
	e.settle()
	e.mustGet("b/a", a, xHit)
	fs, _ := e.kept("b/a")
	if len(fs) != 1 {
		t.Fatalf("%d descriptors kept, want 1", len(fs))
	}
	e.mustGet("b/b", b, xMiss)
	e.settle()
	c := randomBytes(312, 2*testSlice)
	e.origin.put("b/c", c)
	e.mustGet("b/c", c, xMiss) // over the budget: b/a, the oldest, goes
	e.settle()
	if e.fileOf("b/a") != "" {
		t.Fatal("b/a not evicted")
	}
	if _, err := fs[0].Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("an evicted entry's descriptor is still open (Stat: %v)", err)
	}
}

// TestHitHeaders checks that hits carry the same headers as the miss that
// filled the entry, that the Content-Length of a range does not leak into
// the next whole answer, and that an answer made again after the cached
// file vanished carries the new version's headers only.
func TestHitHeaders(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(320, 2*testSlice+9)
	e.origin.put("b/h", data, func(o *object) {
		o.cacheControl = "max-age=60"
		o.contentType = "video/mp4"
		o.meta = map[string]string{"Color": "blue"}
	})
	miss := e.mustGet("b/h", data, xMiss)
	e.settle()
	for _, k := range []string{"Content-Type", "Cache-Control", "Etag", "Last-Modified", "X-Amz-Meta-Color", "Accept-Ranges", "Content-Length"} {
		if miss.header.Get(k) == "" {
			t.Fatalf("the miss has no %s", k)
		}
	}
	for i := range 3 {
		r := e.get("b/h", "Range", fmt.Sprintf("bytes=%d-%d", i, i+9))
		checkBody(t, "range hit", r, http.StatusPartialContent, data[i:i+10])
		if r.header.Get("Content-Length") != "10" {
			t.Errorf("range hit: Content-Length %q", r.header.Get("Content-Length"))
		}
		hit := e.mustGet("b/h", data, xHit)
		for k, v := range miss.header {
			if k == "Date" || k == "X-Cache" {
				continue
			}
			if got := hit.header.Values(k); fmt.Sprint(got) != fmt.Sprint(v) {
				t.Errorf("hit %d: %s %q, the miss had %q", i, k, got, v)
			}
		}
		if len(hit.header) != len(miss.header) {
			t.Errorf("hit %d: %d headers, the miss had %d", i, len(hit.header), len(miss.header))
		}
	}

	// After a restart nothing is kept open; with the file gone the hit is
	// answered again from the origin, as the new version it now is,
	// without the old one's headers.
	e.restart()
	id := e.fileOf("b/h")
	if err := os.Remove(dataPath(filepath.Join(e.opts.Dir, "data"), id)); err != nil {
		t.Fatal(err)
	}
	v2 := randomBytes(321, testSlice+3)
	e.origin.put("b/h", v2, func(o *object) { o.cacheControl = "max-age=60" })
	r := e.mustGet("b/h", v2, xMiss)
	for _, k := range []string{"X-Amz-Meta-Color"} {
		if r.header.Get(k) != "" {
			t.Errorf("the new version's answer carries the old one's %s", k)
		}
	}
	if r.header.Get("Content-Type") == "video/mp4" {
		t.Error("the new version's answer carries the old one's Content-Type")
	}
}

// TestHitConcurrentRanges has several clients read ranges of one cached
// object at once: the kept descriptors each have their own offset, so
// every answer has its own bytes.
func TestHitConcurrentRanges(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(330, 5*testSlice+77)
	e.origin.put("b/r", data)
	e.mustGet("b/r", data, xMiss)
	e.settle()
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				start := (g*7919 + i*104729) % (len(data) - 1)
				n := min(len(data)-start, 1+(i*31337+g)%(3*testSlice))
				var r response
				if i%4 == 0 {
					start, n = 0, len(data)
					r = e.get("b/r")
				} else {
					r = e.get("b/r", "Range", fmt.Sprintf("bytes=%d-%d", start, start+n-1))
				}
				if r.err != nil || string(r.body) != string(data[start:start+n]) {
					errs <- fmt.Errorf("client %d, request %d (bytes %d+%d): status %d, %d bytes, err %v", g, i, start, n, r.status, len(r.body), r.err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, n := e.kept("b/r"); n < 1 || n > maxIdlePerEntry {
		t.Errorf("%d descriptors kept, want 1..%d", n, maxIdlePerEntry)
	}
}

// TestKeptDescriptorsRaceDrop takes and gives back an entry's kept
// descriptors from several goroutines while the entry is dropped: a
// descriptor in use is never closed under its user, and once everything
// is given back every one is closed and none is counted as kept.
func TestKeptDescriptorsRaceDrop(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(301, 2*testSlice)
	e.origin.put("b/a", data, func(o *object) { o.cacheControl = "max-age=60" })
	e.mustGet("b/a", data, xMiss)
	e.settle()
	c := e.c()
	c.mu.Lock()
	en := c.entries["b/a"]
	c.mu.Unlock()
	if en == nil {
		t.Fatal("no entry after a miss")
	}
	var (
		mu    sync.Mutex
		seen  = map[*os.File]bool{}
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	const workers, rounds = 8, 200
	dropAt := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			<-start
			b := make([]byte, 1)
			for i := range rounds {
				if w == 0 && i == rounds/2 {
					close(dropAt)
				}
				f, err := c.openFile(en)
				if err != nil {
					t.Errorf("openFile: %v", err)
					return
				}
				mu.Lock()
				seen[f] = true
				mu.Unlock()
				if _, err := f.ReadAt(b, int64(i)); err != nil {
					t.Errorf("a descriptor in use was closed under its user: %v", err)
					return
				}
				c.releaseFile(en, f, true)
			}
		})
	}
	wg.Go(func() {
		<-dropAt
		c.mu.Lock()
		c.dropLocked(en)
		c.mu.Unlock()
	})
	close(start)
	wg.Wait()
	if n := c.idleFiles.Load(); n != 0 {
		t.Errorf("%d descriptors counted as kept after the entry was dropped", n)
	}
	for i := range en.idle {
		if f := en.idle[i].Load(); f != nil {
			t.Errorf("slot %d still holds a descriptor", i)
		}
	}
	for f := range seen {
		if _, err := f.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("a descriptor of the dropped entry is still open (Stat: %v)", err)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no descriptor was handed out")
	}
}

// TestFastHitDoesNotWaitForTheLock answers a hit with ServeHit while the
// cache's lock is held elsewhere: the hit is answered (it would wait for
// ever if it took the lock), and the LRU order, which needs the lock, is
// left as it was; the next hit with the lock free moves the entry.
func TestFastHitDoesNotWaitForTheLock(t *testing.T) {
	e := newEnv(t, nil)
	a, b := randomBytes(302, 1000), randomBytes(303, 1000)
	e.origin.put("b/a", a, func(o *object) { o.cacheControl = "max-age=600" })
	e.origin.put("b/b", b, func(o *object) { o.cacheControl = "max-age=600" })
	e.mustGet("b/a", a, xMiss)
	e.clock.advance(time.Second)
	e.mustGet("b/b", b, xMiss)
	e.settle()
	c := e.c()
	front := func() string {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.disks[0].lru.Front().Value.(*entry).ck
	}
	if f := front(); f != "b/b" {
		t.Fatalf("front of the LRU order %s, want b/b", f)
	}
	e.clock.advance(time.Second)
	c.mu.Lock()
	r := e.fastHit("b", "a")
	c.mu.Unlock()
	if r.status != http.StatusOK || !bytes.Equal(r.body, a) {
		t.Fatalf("hit with the lock held: %d, %d bytes", r.status, len(r.body))
	}
	if f := front(); f != "b/b" {
		t.Errorf("front of the LRU order %s after a hit that could not take the lock, want b/b", f)
	}
	e.fastHit("b", "a")
	if f := front(); f != "b/a" {
		t.Errorf("front of the LRU order %s after a hit with the lock free, want b/a", f)
	}
}

// TestTouchAfterDiskFailedKeepsLRU replays a fast hit that read its entry
// just before the entry's disk failed: ServeHit's checks pass, diskFailed
// runs, then ServeHit's touch. The touch must leave the disk's new LRU
// list alone (it moved the removed entry's old element into it, and an
// eviction then found the list's root as an element and panicked with
// the cache's lock held), and a miss that evicts on the reattached disk
// works.
func TestTouchAfterDiskFailedKeepsLRU(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxBytes = 2500 })
	a, b, x := randomBytes(304, 1000), randomBytes(305, 1000), randomBytes(306, 1000)
	for ck, data := range map[string][]byte{"b/a": a, "b/b": b, "b/x": x} {
		e.origin.put(ck, data, func(o *object) { o.cacheControl = "max-age=600" })
	}
	e.mustGet("b/a", a, xMiss)
	e.clock.advance(time.Second)
	e.mustGet("b/b", b, xMiss)
	e.settle()
	c, d := e.c(), e.c().disks[0]

	// ServeHit's checks pass ...
	en := c.index.get("b/b")
	if en == nil || en.removed.Load() || sinceEpoch(e.clock.Now()) >= en.freshNs.Load() || !en.d.healthy.Load() || !en.whole.Load() {
		t.Fatal("b/b is not a fast hit")
	}
	// ... the disk fails (another response's read error) ...
	c.diskFailed(d, "read", syscall.EIO)
	// ... and ServeHit touches.
	if c.mu.TryLock() {
		c.touchLocked(en, e.clock.Now())
		c.mu.Unlock()
	}
	eventually(t, "the disk to be reattached", func() bool { return d.healthy.Load() })
	c.mu.Lock()
	p := lruProblem(c, d)
	c.mu.Unlock()
	if p != "" {
		t.Fatalf("LRU list of the reattached disk: %s", p)
	}
	e.mustGet("b/x", x, xMiss)
	e.clock.advance(time.Second)
	e.mustGet("b/a", a, "")
}
