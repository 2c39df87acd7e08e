package edge

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/objectgateway/objectgateway/pkg/byterange"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/precondition"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The X-Cache values of responses.
const (
	xHit         = "HIT"
	xMiss        = "MISS"
	xRevalidated = "REVALIDATED"
	xStale       = "STALE"
	xPass        = "PASS"
)

// Serve answers a GET or HEAD of bucket/key from the cache, filling it
// from the origin on a miss. Errors are *s3err.Error values for the
// caller to write; once the response has started, an error means the
// body was cut short (the origin failed mid-object) and the connection
// must not be reused.
func (c *Cache) Serve(w http.ResponseWriter, r *http.Request, bucket, key string) error {
	for attempt := 0; ; attempt++ {
		e, state, first, err := c.resolve(r, bucket, key)
		if err != nil {
			return err
		}
		if e == nil {
			c.stats.passes.Add(1)
			return c.pass(w, r, bucket, key)
		}
		if first != nil {
			err = c.serveOpened(w, r, e, state, bucket, key, first)
		} else {
			err = c.serveEntry(w, r, e, state, bucket, key, nil)
		}
		if errors.Is(err, errRetry) && attempt == 0 {
			continue
		}
		if errors.Is(err, errRetry) {
			c.stats.passes.Add(1)
			return c.pass(w, r, bucket, key)
		}
		return err
	}
}

// serveOpened is serveEntry for the request that opened e, which holds
// its first fill not started. However the answer ends without running it
// (it needed none of the bytes: a condition failed, the range was empty;
// or a panic, which net/http's server recovers), the fill still runs, for
// the clients following it and for the cache.
func (c *Cache) serveOpened(w http.ResponseWriter, r *http.Request, e *entry, state, bucket, key string, first *fill) error {
	defer func() {
		if first.start != nil {
			go first.runFirst()
		}
	}()
	return c.serveEntry(w, r, e, state, bucket, key, first)
}

// resolve finds a usable entry: fresh, revalidated, stale within its
// stale-if-error window while the origin fails, or newly opened. A nil
// entry without error means pass-through. first is the newly opened
// entry's first fill when this request is to run it (Cache.open).
func (c *Cache) resolve(r *http.Request, bucket, key string) (e *entry, state string, first *fill, err error) {
	ck := bucket + "/" + key
	now := c.o.Now()
	c.mu.Lock()
	e = c.entries[ck]
	if e != nil {
		c.touchLocked(e, now)
		isFresh := now.Before(e.freshUntil)
		c.mu.Unlock()
		if isFresh {
			c.stats.hits.Add(1)
			e.d.hits.Add(1)
			return e, xHit, nil, nil
		}
		switch out, err := c.revalidate(r.Context(), e, bucket, key); out {
		case fresh:
			c.stats.hits.Add(1)
			e.d.hits.Add(1)
			return e, xRevalidated, nil, nil
		case failed:
			if c.staleUsable(e, now) {
				c.stats.stale.Add(1)
				return e, xStale, nil, nil
			}
			return nil, "", nil, err
		case changed:
			c.forgetSide(ck)
		}
	} else {
		c.mu.Unlock()
	}
	if e, state, err, ok := c.resolveSide(r, bucket, key, now); ok {
		return e, state, nil, err
	}
	c.stats.misses.Add(1)
	if !c.anyHealthy() {
		return nil, xPass, nil, nil
	}
	if r.Method == http.MethodHead {
		e, state, err = c.headMiss(r.Context(), bucket, key)
		return e, state, nil, err
	}
	e, first, pass, joined, err := c.open(r.Context(), bucket, key, firstOffset(r.Header.Get("Range")))
	if err != nil || pass {
		return nil, xPass, nil, err
	}
	c.forgetSide(ck)
	if joined {
		// Served by another client's fetch, as a cache's waiting list
		// is: no origin request of its own. A hit unless byteState finds
		// bytes of the answer still to come from the origin.
		c.stats.misses.Add(^uint64(0))
		c.stats.hits.Add(1)
		e.d.hits.Add(1)
		return e, xHit, nil, nil
	}
	e.d.misses.Add(1)
	return e, xMiss, first, nil
}

// firstOffset is the first byte a Range header asks for, before the
// object's size is known: 0 for anything but "bytes=N-…".
func firstOffset(h string) int64 {
	spec, ok := strings.CutPrefix(strings.TrimSpace(h), "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return 0
	}
	a, _, ok := strings.Cut(spec, "-")
	n, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	if !ok || err != nil || n < 0 {
		return 0
	}
	return n
}

// serveEntry answers from an entry: conditionals, range, headers, then
// the bytes slice by slice, from the file when the slice is complete,
// else following (or starting) its fill. first, when not nil, is the
// entry's first fill, not started, which this request runs before its
// answer begins (Cache.open).
func (c *Cache) serveEntry(w http.ResponseWriter, r *http.Request, e *entry, state, bucket, key string, first *fill) error {
	size, hb := e.size, e.headers()
	etag, lastMod := hb.etag, hb.lastMod
	h := w.Header()
	hb.set(h, state)
	h["Age"] = []string{strconv.FormatInt(e.age(c.o.Now()), 10)}
	cond := precondition.FromHeader(r.Header, "")
	cond.Now = c.o.Now()
	if err := precondition.Check(cond, etag, lastMod); err != nil {
		if s3err.As(err).Code != s3err.NotModified {
			clearEntityHeaders(h)
		}
		return err
	}
	rangeHeader := r.Header.Get("Range")
	if !precondition.RangeApplies(r.Header.Get("If-Range"), etag, lastMod) {
		// The client holds another version: the whole object, never a
		// range of this one spliced onto it (RFC 9110 §13.1.5).
		rangeHeader = ""
	}
	rng, partial, err := byterange.Parse(rangeHeader, size)
	if err != nil {
		clearEntityHeaders(h)
		h["Content-Range"] = []string{byterange.UnsatisfiedContentRange(size)}
		return err
	}
	if !partial {
		rng = byterange.Range{Start: 0, Length: size}
	}
	status := http.StatusOK
	if partial {
		status = http.StatusPartialContent
		h["Content-Range"] = []string{rng.ContentRange(size)}
	}
	if partial {
		h["Content-Length"] = []string{strconv.FormatInt(rng.Length, 10)}
	} else {
		h["Content-Length"] = hb.length
	}
	if r.Method != http.MethodHead && rng.Length > 0 {
		h["X-Cache"] = xCacheValue(c.byteState(e, state, rng))
	}
	if r.Method == http.MethodHead || rng.Length == 0 {
		w.WriteHeader(status)
		return nil
	}

	if first != nil {
		if err := first.runFirst(); err != nil {
			// Nothing was sent: the client gets the origin's failure,
			// and the entry, which holds none of the object, goes.
			c.drop(e)
			hb.unset(h)
			clearEntityHeaders(h)
			return err
		}
	}
	if done, err := c.serveMemory(w, e, status, rng); done {
		return err
	}
	rf, err := c.openFile(e)
	if err != nil {
		// The file is gone (removed behind the cache's back) or its disk
		// failed: forget the entry and start again, from another disk or
		// the origin. Running out of file descriptors is neither's fault:
		// the entry stays.
		switch {
		case outOfFiles(err):
		case errors.Is(err, os.ErrNotExist):
			c.drop(e)
		default:
			c.diskFailed(e.d, "read", err)
		}
		// Nothing was sent: drop every header the entry set, so that
		// the next answer carries none of the old version's.
		hb.unset(h)
		clearEntityHeaders(h)
		return errRetry
	}
	sent := false
	defer func() { c.releaseFile(e, rf, sent) }()
	w.WriteHeader(status)

	pos, end := rng.Start, rng.Start+rng.Length
	lastSlice := (end - 1) / e.sliceSize
	for pos < end {
		i := pos / e.sliceSize
		n := min(end, (i+1)*e.sliceSize) - pos
		var fl, next *fill
		var startFl, startNext bool
		c.mu.Lock()
		usable := !e.removed.Load() && e.d.healthy.Load()
		present := e.has(i)
		if present {
			// The complete slices that follow go in the same sendfile.
			n = e.presentRun(i, end) - pos
			i = (pos + n - 1) / e.sliceSize
		} else if first != nil && first.firstSlice <= i && i <= first.slice {
			// The fill this request ran kept its bytes in memory (its
			// disk failed).
			fl = first
		} else {
			if usable {
				fl, startFl = c.fillLocked(e, i)
			} else if fl = e.fills[i]; fl == nil {
				c.mu.Unlock()
				// Dropped or disk failed: the rest comes straight from
				// the origin.
				return c.relay(r.Context(), w, e, bucket, key, pos, end-pos)
			}
		}
		// Read one slice ahead, so that a long object does not wait a
		// round trip to the origin at each slice boundary.
		if usable && i+1 <= lastSlice && !e.has(i+1) {
			next, startNext = c.fillLocked(e, i+1)
		}
		c.mu.Unlock()
		if startFl {
			go c.fetchSlice(fl, bucket, key)
		}
		if startNext {
			go c.fetchSlice(next, bucket, key)
		}
		if present {
			if err := sendRange(w, rf, pos, n); err != nil {
				c.readError(e.d, err)
				return err
			}
			c.stats.bytesFromCache.Add(uint64(n))
		} else if err := fl.stream(w, rf, pos, n); err != nil {
			c.readError(e.d, err)
			return err
		}
		pos += n
	}
	sent = true
	return nil
}

// clearEntityHeaders removes what describes a body that is not sent.
func clearEntityHeaders(h http.Header) {
	for _, k := range []string{"Content-Type", "Content-Encoding", "Content-Disposition", "Content-Language", "Accept-Ranges"} {
		delete(h, k)
	}
	for k := range h {
		if strings.HasPrefix(k, "X-Amz-Meta-") {
			delete(h, k)
		}
	}
}

// relay sends n bytes from pos of an object straight from the origin,
// with the object's ETag as a condition so that a changed object is not
// spliced into a response already begun.
func (c *Cache) relay(ctx context.Context, w io.Writer, e *entry, bucket, key string, pos, n int64) error {
	h := http.Header{"Range": {"bytes=" + strconv.FormatInt(pos, 10) + "-" + strconv.FormatInt(pos+n-1, 10)}}
	if e.etag != "" {
		h["If-Match"] = []string{e.etag}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := time.AfterFunc(stallTimeout, cancel)
	defer stall.Stop()
	c.stats.fetches.Add(1)
	resp, err := c.up.do(ctx, http.MethodGet, bucket, key, h)
	if err != nil {
		c.stats.upstreamErrors.Add(1)
		return originDown(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return originDown(errors.New("origin answered " + resp.Status + " while relaying"))
	}
	got, err := io.CopyN(w, stallReader{resp.Body, stall}, n)
	c.stats.bytesFromUpstream.Add(uint64(got))
	if err != nil {
		return originDown(err)
	}
	return nil
}

// passHeaders are the request headers a pass-through forwards.
var passHeaders = []string{"Range", "If-Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"}

// pass answers a request straight from the origin, storing nothing.
func (c *Cache) pass(w http.ResponseWriter, r *http.Request, bucket, key string) error {
	h := http.Header{}
	for _, k := range passHeaders {
		if v := r.Header.Values(k); len(v) > 0 {
			h[k] = v
		}
	}
	c.stats.fetches.Add(1)
	resp, err := c.up.do(r.Context(), r.Method, bucket, key, h)
	if err != nil {
		c.stats.upstreamErrors.Add(1)
		return originDown(err)
	}
	out := w.Header()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusPartialContent, http.StatusNotModified:
	case http.StatusRequestedRangeNotSatisfiable:
		if v := resp.Header.Get("Content-Range"); v != "" {
			out["Content-Range"] = []string{v}
		}
		return upstreamError(resp)
	default:
		err := upstreamError(resp)
		c.rememberMissing(bucket+"/"+key, resp, err)
		return err
	}
	defer resp.Body.Close()
	for k, v := range storedHeader(resp.Header) {
		out[k] = v
	}
	for _, k := range []string{"Etag", "Content-Range", "Accept-Ranges", "Age"} {
		if v := resp.Header.Values(k); len(v) > 0 {
			out[k] = v
		}
	}
	out["X-Cache"] = []string{xPass}
	if resp.StatusCode == http.StatusNotModified {
		return s3err.New(s3err.NotModified)
	}
	if resp.ContentLength >= 0 {
		out["Content-Length"] = []string{strconv.FormatInt(resp.ContentLength, 10)}
	}
	w.WriteHeader(resp.StatusCode)
	if r.Method == http.MethodHead {
		return nil
	}
	got, err := io.Copy(w, resp.Body)
	c.stats.bytesFromUpstream.Add(uint64(got))
	if err == nil && resp.ContentLength >= 0 && got < resp.ContentLength {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return originDown(err)
	}
	return nil
}

// serveMemory answers from the memory tier (Options.Memory) when the
// whole object is cached and small enough (at most memoryServeMax): no open, seek or sendfile, the
// bytes leave from memory as Varnish's do. On a memory miss of a complete
// object it reads the file once, offers it to the tier (whose admission
// policy decides) and answers from those bytes. done is false when the
// caller must serve from the file.
func (c *Cache) serveMemory(w http.ResponseWriter, e *entry, status int, rng byterange.Range) (done bool, err error) {
	mem := c.o.Memory
	if !mem.Fits(e.size) || e.size > memoryServeMax {
		return false, nil
	}
	k := hotcache.Key{Bucket: e.ck, Object: e.id, ETag: e.etag, Size: e.size}
	b, ok := mem.Get(k)
	if ok {
		mem.Hit()
	} else {
		c.mu.Lock()
		complete := !e.removed.Load() && e.complete()
		c.mu.Unlock()
		if !complete {
			return false, nil
		}
		mem.Miss()
		b, ok = c.readWhole(e)
		if !ok {
			return false, nil
		}
		mem.Put(k, b)
	}
	w.WriteHeader(status)
	n, err := w.Write(b[rng.Start : rng.Start+rng.Length])
	c.stats.bytesFromCache.Add(uint64(n))
	return true, err
}

// readWhole reads a complete entry's file.
func (c *Cache) readWhole(e *entry) ([]byte, bool) {
	if c.diskFault(e.d, "read") != nil {
		return nil, false
	}
	f, err := openPath(e.path(), os.O_RDONLY, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b := make([]byte, e.size)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, false
	}
	return b, true
}

// stallReader restarts a stall timer at every read that returns bytes.
type stallReader struct {
	r     io.Reader
	stall *time.Timer
}

func (s stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.stall.Reset(stallTimeout)
	}
	return n, err
}

// outOfFiles reports whether err is the process or the system running out
// of file descriptors: no fault of a disk nor of a file.
func outOfFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
