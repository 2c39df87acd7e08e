package edge

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/objectgateway/objectgateway/pkg/byterange"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The answers the cache keeps in memory only, beside the entries: origin
// 404s (negative caching) and the metadata of HEAD misses. Neither has a
// file or a catalogue record, neither counts against MaxBytes, and both
// are forgotten on restart and by Purge.
//
// A HEAD miss is answered by an origin HEAD, not by fetching the first
// slice: a client that only asks for the headers (a HeadObject before a
// download, a player probing a segment) costs the origin no body bytes
// and the cache no disk space. Its metadata is kept for the object's
// freshness (the same Cache-Control rules as a GET) so that repeated HEADs
// are hits, but only in memory: a disk entry would have to be created
// sparse at the object's size and would count its whole size against the
// byte budget, so HEADs of many large objects could evict cached bytes
// for objects nobody downloaded. A GET of the object makes a real entry,
// which then answers HEADs too.
type sideCache struct {
	mu    sync.Mutex
	neg   map[string]negative // by bucket + "/" + key
	heads map[string]*entry   // unregistered entries without slices
	// heading holds the origin HEADs in flight: however many clients
	// miss a HEAD at once, one request goes to the origin.
	heading map[string]*headCall
}

// headCall is one origin HEAD, shared by the clients that miss at once.
type headCall struct {
	done  chan struct{}
	e     *entry
	state string
	err   error
}

// negative is a cached origin 404.
type negative struct {
	err    *s3err.Error
	stored time.Time // when the origin answered it, for Age
	until  time.Time
	// head: the 404 answered a HEAD, which has no body, so whether the
	// key or the bucket is missing is not known; it answers HEADs only.
	head bool
}

// maxSideEntries bounds each map of the side cache. When one is full,
// expired answers are swept out; if none has expired, the new answer is
// not kept (the next request asks the origin again).
const maxSideEntries = 100000

// DefaultNegativeTTL is how long an origin 404 is cached when
// Options.NegativeTTL is zero; see docs/cdn.md ("Negative caching").
const DefaultNegativeTTL = 10 * time.Second

// negativeHit returns the cached 404 of ck for a request of method, nil
// when there is none, it expired, or it came from a HEAD and method is
// not HEAD (a GET's answer names the missing thing, NoSuchKey or
// NoSuchBucket, which a HEAD's 404 does not tell).
func (c *Cache) negativeHit(ck, method string, now time.Time) *s3err.Error {
	s := &c.side
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.neg[ck]
	if !ok {
		return nil
	}
	if !now.Before(n.until) {
		delete(s.neg, ck)
		return nil
	}
	if n.head && method != http.MethodHead {
		return nil
	}
	return n.err.WithHeader("Age", strconv.FormatInt(max(0, now.Unix()-n.stored.Unix()), 10))
}

// rememberMissing caches an origin 404 of ck for Options.NegativeTTL,
// unless negative caching is off or the origin's 404 says not to store
// it (no-store, private, no-cache, max-age=0).
func (c *Cache) rememberMissing(ck string, resp *http.Response, err error) {
	ttl := c.o.NegativeTTL
	if ttl <= 0 || resp.StatusCode != http.StatusNotFound {
		return
	}
	now := c.o.Now()
	pol := cachePolicy(resp.Header, now, ttl)
	if !pol.store || pol.ttl <= pol.age {
		return
	}
	// The 404's own lifetime, less the Age it came with, caps
	// NegativeTTL.
	ttl = min(ttl, pol.ttl-pol.age)
	e := s3err.As(err).WithHeader("X-Cache", xHit)
	s := &c.side
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.neg == nil {
		s.neg = make(map[string]negative)
	}
	if len(s.neg) >= maxSideEntries {
		for k, n := range s.neg {
			if !now.Before(n.until) {
				delete(s.neg, k)
			}
		}
		if len(s.neg) >= maxSideEntries {
			return
		}
	}
	head := resp.Request != nil && resp.Request.Method == http.MethodHead
	s.neg[ck] = negative{err: e, stored: pol.since(now), until: now.Add(ttl), head: head}
}

// headHit returns the fresh HEAD metadata of ck, nil when there is none.
func (c *Cache) headHit(ck string, now time.Time) *entry {
	s := &c.side
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.heads[ck]
	if e == nil {
		return nil
	}
	if !now.Before(e.freshUntil) {
		delete(s.heads, ck)
		return nil
	}
	return e
}

func (c *Cache) rememberHead(e *entry, now time.Time) {
	s := &c.side
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.heads == nil {
		s.heads = make(map[string]*entry)
	}
	if len(s.heads) >= maxSideEntries {
		for k, h := range s.heads {
			if !now.Before(h.freshUntil) {
				delete(s.heads, k)
			}
		}
		if len(s.heads) >= maxSideEntries {
			return
		}
	}
	s.heads[e.ck] = e
}

// forgetSide drops what the side cache holds of ck: the object was
// fetched (its entry answers now) or changed at the origin.
func (c *Cache) forgetSide(ck string) {
	s := &c.side
	s.mu.Lock()
	delete(s.neg, ck)
	delete(s.heads, ck)
	s.mu.Unlock()
}

// purgeSide applies a Purge to the side cache.
func (c *Cache) purgeSide(pg purge) {
	s := &c.side
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.neg {
		if pg.matches(k) {
			delete(s.neg, k)
		}
	}
	for k := range s.heads {
		if pg.matches(k) {
			delete(s.heads, k)
		}
	}
}

// headMiss answers a HEAD of an object that has no entry with an origin
// HEAD. The entry it returns is not registered: it carries the headers
// for serveEntry, which sends no body to a HEAD. state is MISS, or PASS
// when the origin's answer may not be stored.
func (c *Cache) headMiss(ctx context.Context, bucket, key string) (*entry, string, error) {
	ck := bucket + "/" + key
	s := &c.side
	s.mu.Lock()
	if call := s.heading[ck]; call != nil {
		s.mu.Unlock()
		select {
		case <-call.done:
			return call.e, call.state, call.err
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
	// The call in flight is removed only after its answer was kept: a
	// client that finds none finds the answer, if it may be kept.
	if e := s.heads[ck]; e != nil && c.o.Now().Before(e.freshUntil) {
		s.mu.Unlock()
		c.stats.misses.Add(^uint64(0))
		c.stats.hits.Add(1)
		return e, xHit, nil
	}
	call := &headCall{done: make(chan struct{})}
	if s.heading == nil {
		s.heading = make(map[string]*headCall)
	}
	s.heading[ck] = call
	s.mu.Unlock()
	// Not the client's context: the joiners wait for this answer too.
	call.e, call.state, call.err = c.originHead(context.Background(), bucket, key)
	s.mu.Lock()
	delete(s.heading, ck)
	s.mu.Unlock()
	close(call.done)
	return call.e, call.state, call.err
}

// originHead is headMiss's request to the origin.
func (c *Cache) originHead(ctx context.Context, bucket, key string) (*entry, string, error) {
	ck := bucket + "/" + key
	ctx, cancel := context.WithTimeout(ctx, stallTimeout)
	defer cancel()
	c.stats.fetches.Add(1)
	c.stats.originHeads.Add(1)
	resp, err := c.up.do(ctx, http.MethodHead, bucket, key, nil)
	if err != nil {
		c.stats.upstreamErrors.Add(1)
		return nil, "", originDown(err)
	}
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode >= 500 {
			c.stats.upstreamErrors.Add(1)
		}
		err := upstreamError(resp)
		c.rememberMissing(ck, resp, err)
		return nil, "", err
	}
	resp.Body.Close()
	now := c.o.Now()
	pol := cachePolicy(resp.Header, now, c.o.DefaultTTL)
	e := &entry{
		ck: ck, size: resp.ContentLength, etag: resp.Header.Get("ETag"),
		staleIfError: pol.staleIfError, sliceSize: c.o.SliceSize, lastAccess: now,
	}
	e.setFreshUntil(pol.freshUntil(now))
	e.setHeader(storedHeader(resp.Header))
	e.setFetched(pol.since(now))
	if e.size < 0 {
		return nil, "", originDown(errors.New("the origin answered a HEAD without Content-Length"))
	}
	if !pol.store || pol.ttl <= pol.age || e.etag == "" {
		return e, xPass, nil
	}
	c.rememberHead(e, now)
	return e, xMiss, nil
}

// resolveSide answers from the side cache a request for an object that
// has no entry: a cached 404, or a HEAD's fresh metadata. ok is false
// when the side cache holds nothing for it.
func (c *Cache) resolveSide(r *http.Request, bucket, key string, now time.Time) (e *entry, state string, err error, ok bool) {
	ck := bucket + "/" + key
	if nerr := c.negativeHit(ck, r.Method, now); nerr != nil {
		c.stats.hits.Add(1)
		c.stats.negativeHits.Add(1)
		return nil, "", nerr, true
	}
	if r.Method == http.MethodHead {
		if e := c.headHit(ck, now); e != nil {
			c.stats.hits.Add(1)
			return e, xHit, nil, true
		}
	}
	return nil, "", nil, false
}

// writtenTo reports whether a fill has put every byte of its range up to
// object offset end in the cache (its file, or its memory once the disk
// failed), recorded or not: a reader of those bytes gets none from the
// origin. False for nil.
func (fl *fill) writtenTo(end int64) bool {
	if fl == nil {
		return false
	}
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.err == nil && fl.off+fl.written >= end
}

// byteState is the X-Cache value of an answer with a body: state (HIT,
// REVALIDATED, STALE) only when every byte of rng is in the cache when
// the answer starts (its slice complete, or written by a fill still
// running), else MISS, whatever made the entry
// usable: some of the bytes come from the origin, by a fill this request
// starts or one it follows. The hit and miss counters follow the value.
func (c *Cache) byteState(e *entry, state string, rng byterange.Range) string {
	if state == xMiss || state == xPass {
		return state
	}
	end := rng.Start + rng.Length
	first, last := rng.Start/e.sliceSize, (end-1)/e.sliceSize
	c.mu.Lock()
	all := true
	for i := first; i <= last && all; i++ {
		all = e.has(i) || e.fills[i].writtenTo(min(end, (i+1)*e.sliceSize))
	}
	c.mu.Unlock()
	if all {
		return state
	}
	if state == xStale {
		c.stats.stale.Add(^uint64(0))
	} else {
		c.stats.hits.Add(^uint64(0))
	}
	c.stats.misses.Add(1)
	return xMiss
}
