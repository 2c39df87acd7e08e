package edge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// opening is the first fetch of an object that is not cached: however
// many clients miss it at once, one request goes to the origin, and they
// all get the entry it creates (or the error, or "pass").
type opening struct {
	done chan struct{}
	e    *entry
	pass bool
	err  error
}

// open returns the entry of bucket/key, fetching the slice holding byte
// offset at from the origin when it is not cached. pass is true when the
// object is not to be stored (no-store, private, too large, disk failed):
// the caller relays the origin's answer.
//
// joined is true when the entry was there or made by another client's
// fetch: this request caused no origin request of its own. first, when
// not nil, is the entry's first fill, made by this request and not
// started: the caller runs it (fill.runFirst) before it answers; other
// clients follow it meanwhile.
func (c *Cache) open(ctx context.Context, bucket, key string, at int64) (e *entry, first *fill, pass, joined bool, err error) {
	ck := bucket + "/" + key
	c.mu.Lock()
	if e := c.entries[ck]; e != nil && c.o.Now().Before(e.freshUntil) {
		c.mu.Unlock()
		return e, nil, false, true, nil
	}
	if op := c.opening[ck]; op != nil {
		c.mu.Unlock()
		// No timeout: a slow origin is waited for, not asked again by
		// every waiter.
		select {
		case <-op.done:
			return op.e, nil, op.pass, op.e != nil, op.err
		case <-ctx.Done():
			return nil, nil, false, false, ctx.Err()
		}
	}
	op := &opening{done: make(chan struct{})}
	c.opening[ck] = op
	c.mu.Unlock()
	op.e, first, op.pass, op.err = c.fetchFirst(bucket, key, at)
	c.mu.Lock()
	delete(c.opening, ck)
	c.mu.Unlock()
	close(op.done)
	return op.e, first, op.pass, false, op.err
}

// fetchFirst fetches the slice holding at (the whole object when the
// origin does not serve ranges) and makes the entry. Its fill runs in a
// goroutine of its own or, for an object of at most Options.smallObject
// bytes fetched whole, is returned not started, for the request to run.
func (c *Cache) fetchFirst(bucket, key string, at int64) (*entry, *fill, bool, error) {
	s := c.o.SliceSize
	slice := at / s
	ctx, cancel := context.WithCancel(context.Background())
	fetch := func(h http.Header) (*http.Response, error) {
		c.stats.fetches.Add(1)
		resp, err := c.up.do(ctx, http.MethodGet, bucket, key, h)
		if err != nil {
			c.stats.upstreamErrors.Add(1)
			return nil, originDown(err)
		}
		return resp, nil
	}
	resp, err := fetch(http.Header{"Range": {"bytes=" + strconv.FormatInt(slice*s, 10) + "-" + strconv.FormatInt((slice+1)*s-1, 10)}})
	if err == nil && resp.StatusCode == http.StatusRequestedRangeNotSatisfiable {
		// The object is shorter than the offset asked for (or empty):
		// fetch it from the start.
		resp.Body.Close()
		slice = 0
		resp, err = fetch(http.Header{"Range": {"bytes=0-" + strconv.FormatInt(s-1, 10)}})
		if err == nil && resp.StatusCode == http.StatusRequestedRangeNotSatisfiable {
			resp.Body.Close()
			resp, err = fetch(nil)
		}
	}
	if err != nil {
		cancel()
		return nil, nil, false, err
	}
	var first, last, size int64
	switch resp.StatusCode {
	case http.StatusPartialContent:
		var ok bool
		first, last, size, ok = contentRange(resp.Header.Get("Content-Range"))
		// The whole slice asked for, or up to the object's end: a shorter
		// answer would leave a hole recorded as present.
		if !ok || first != slice*s || last != min((slice+1)*s, size)-1 {
			resp.Body.Close()
			cancel()
			return nil, nil, false, originDown(fmt.Errorf("origin sent Content-Range %q for slice %d", resp.Header.Get("Content-Range"), slice))
		}
	case http.StatusOK:
		size = resp.ContentLength
		first, last = 0, size-1
	default:
		if resp.StatusCode >= 500 {
			c.stats.upstreamErrors.Add(1)
		}
		cancel()
		err := upstreamError(resp)
		c.rememberMissing(bucket+"/"+key, resp, err)
		return nil, nil, false, err
	}
	now := c.o.Now()
	pol := cachePolicy(resp.Header, now, c.o.DefaultTTL)
	etag := resp.Header.Get("ETag")
	if !pol.store || size < 0 || etag == "" && size > s {
		resp.Body.Close()
		cancel()
		return nil, nil, true, nil
	}
	e := &entry{
		ck: bucket + "/" + key, id: newID(), size: size, etag: etag,
		staleIfError: pol.staleIfError, sliceSize: s, lastAccess: now,
	}
	e.setFreshUntil(pol.freshUntil(now))
	e.setHeader(storedHeader(resp.Header))
	e.setFetched(pol.since(now))
	e.present = make([]byte, (e.slices()+7)/8)
	e.markWhole()
	// A disk failing at create is dropped from placement: the next in
	// the hash order is tried, each disk once at most.
	var f *os.File
	for tries := 0; ; tries++ {
		if e.d = c.place(e.ck, size); e.d == nil || tries == len(c.disks) {
			resp.Body.Close()
			cancel()
			return nil, nil, true, nil
		}
		var err error
		if f, err = c.create(e, last-first+1); err == nil {
			break
		}
		if outOfFiles(err) {
			// No descriptor to spare: the answer is relayed, not
			// stored, and no disk is at fault.
			resp.Body.Close()
			cancel()
			return nil, nil, true, nil
		}
	}
	fl := newFill(e, first, last-first+1)
	if size == 0 {
		fl = newFill(e, 0, 0)
	}
	c.mu.Lock()
	if c.closed || !e.d.healthy.Load() {
		c.mu.Unlock()
		resp.Body.Close()
		cancel()
		f.Close()
		os.Remove(e.path())
		return nil, nil, true, nil
	}
	if old := c.entries[e.ck]; old != nil {
		c.dropLocked(old)
		go c.removeFiles([]*entry{old})
	}
	e.fills = make(map[int64]*fill)
	for i := fl.firstSlice; i <= fl.slice; i++ {
		e.fills[i] = fl
	}
	c.entries[e.ck] = e
	c.index.set(e.ck, e)
	e.elem = e.d.lru.PushFront(e)
	e.d.bytes += size
	c.evictLocked(e.d, e)
	c.mu.Unlock()
	if first == 0 && last == size-1 && size <= c.o.smallObject {
		fl.start = func() {
			// A panic in the fill, which net/http's server recovers in the
			// request's goroutine, still ends it: its followers get an
			// error, and later requests do not follow it for good.
			ran := false
			defer func() {
				if !ran {
					c.drop(e)
					c.finish(fl, originDown(errors.New("edge: the fill stopped")))
				}
			}()
			c.run(ctx, cancel, fl, resp.Body, f)
			ran = true
		}
		return e, fl, false, nil
	}
	go c.run(ctx, cancel, fl, resp.Body, f)
	return e, nil, false, nil
}

// create makes an entry's file on its disk and returns it open for
// writing: the first fill, of firstFill bytes, writes through it. When
// that fill is not the whole object, the file is made sparse at the
// object's size, which a recorded entry's file has (attach checks it);
// a whole object's fill gives the file its size as it writes, and the
// entry is recorded only when it has.
func (c *Cache) create(e *entry, firstFill int64) (*os.File, error) {
	err := c.diskFault(e.d, "create")
	var f *os.File
	if err == nil {
		p := e.path()
		f, err = openPath(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, os.ErrNotExist) {
			// Its subdirectory was removed behind the cache's back. Only
			// that is made again: a data directory gone with its disk
			// (unmounted) stays a failed disk.
			if err = os.Mkdir(filepath.Dir(p), 0o700); err == nil || errors.Is(err, os.ErrExist) {
				f, err = openPath(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
			}
		}
	}
	if err == nil && firstFill < e.size {
		if err = f.Truncate(e.size); err != nil {
			f.Close()
			os.Remove(e.path())
		}
	}
	if err != nil {
		if !outOfFiles(err) {
			c.diskFailed(e.d, "create", err)
		}
		return nil, err
	}
	return f, nil
}

// revalidation is one conditional request for a stale entry, shared by
// the clients that find it stale at the same time.
type revalidation struct {
	done    chan struct{}
	outcome outcome
	err     error
}

type outcome int

const (
	fresh   outcome = iota // still the same object: fresh again
	changed                // changed or gone at the origin: dropped
	failed                 // the origin could not answer
)

// revalidate asks the origin whether a stale entry still holds its
// object: a HEAD, whose answer carries its ETag and all of its current
// headers (a 304 would carry few of them: no Content-Type, no metadata).
func (c *Cache) revalidate(ctx context.Context, e *entry, bucket, key string) (outcome, error) {
	c.mu.Lock()
	if rv := e.reval; rv != nil {
		c.mu.Unlock()
		select {
		case <-rv.done:
			return rv.outcome, rv.err
		case <-ctx.Done():
			return failed, ctx.Err()
		}
	}
	rv := &revalidation{done: make(chan struct{})}
	e.reval = rv
	c.mu.Unlock()
	rv.outcome, rv.err = c.doRevalidate(e, bucket, key)
	c.mu.Lock()
	e.reval = nil
	c.mu.Unlock()
	close(rv.done)
	return rv.outcome, rv.err
}

func (c *Cache) doRevalidate(e *entry, bucket, key string) (outcome, error) {
	c.stats.revalidations.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), stallTimeout)
	defer cancel()
	c.stats.fetches.Add(1)
	resp, err := c.up.do(ctx, http.MethodHead, bucket, key, nil)
	if err != nil {
		c.stats.upstreamErrors.Add(1)
		return failed, originDown(err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified,
		resp.StatusCode == http.StatusOK && e.etag != "" && resp.Header.Get("ETag") == e.etag &&
			(resp.ContentLength == e.size || resp.ContentLength < 0):
		c.stats.notModified.Add(1)
		// The stored headers, updated with those the answer carries
		// (RFC 9111 §4.3.4): a 304 carries those that may have changed,
		// a 200 all of them.
		nh := storedHeader(resp.Header)
		if resp.StatusCode == http.StatusNotModified {
			merged := e.header.Clone()
			for k, v := range nh {
				merged[k] = v
			}
			nh = merged
		}
		now := c.o.Now()
		pol := cachePolicy(nh, now, c.o.DefaultTTL)
		pol.age = answerAge(resp.Header) // not a stored header: this answer's own
		if !pol.store {
			// The same bytes, no longer to be stored (no-store,
			// private): the entry goes, and the request passes the
			// object through.
			c.drop(e)
			return changed, nil
		}
		c.mu.Lock()
		if !sameHeader(nh, e.header) {
			// Answers from now on carry them, and so does the record.
			e.setHeader(nh)
		}
		e.setFreshUntil(pol.freshUntil(now))
		e.staleIfError = pol.staleIfError
		e.setFetched(pol.since(now))
		c.mu.Unlock()
		c.persist(e, nil)
		return fresh, nil
	case resp.StatusCode >= 500:
		c.stats.upstreamErrors.Add(1)
		return failed, originDown(fmt.Errorf("origin answered %s", resp.Status))
	case resp.StatusCode == http.StatusOK, resp.StatusCode == http.StatusNotFound,
		resp.StatusCode == http.StatusForbidden, resp.StatusCode == http.StatusPreconditionFailed:
		c.drop(e)
		return changed, nil
	}
	c.stats.upstreamErrors.Add(1)
	return failed, originDown(fmt.Errorf("origin answered %s to a revalidation", resp.Status))
}

// staleUsable reports whether a stale entry may be served while the
// origin fails.
func (c *Cache) staleUsable(e *entry, now time.Time) bool {
	c.mu.Lock()
	window, until := e.staleIfError, e.freshUntil
	c.mu.Unlock()
	if window < 0 {
		window = c.o.StaleIfError
	}
	return window > 0 && now.Before(until.Add(window))
}

var errRetry = errors.New("edge: cached file gone; retry")

// sameHeader reports whether a and b hold the same fields with the same
// values, in the same order.
func sameHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		if !slices.Equal(av, b[k]) {
			return false
		}
	}
	return true
}
