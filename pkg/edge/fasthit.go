package edge

import (
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objectgateway/objectgateway/pkg/hotcache"
)

// The fast hit (ServeHit): a plain GET or HEAD of a fresh object whose
// every byte is cached, answered on the raw connection without net/http
// (pkg/httpintercept), with the bytes net/http writes for the same answer
// of Serve: the status line, the response headers sorted by name as
// http.Header.Write sorts them (the caller's and the entry's), then Date
// and, when the client asked for it, "Connection: close", as net/http
// appends them.

// HeaderField is a response header the caller adds to a fast hit. Name
// must be in canonical form and Value need no cleaning.
type HeaderField struct {
	Name, Value string
}

// HitRequest is a request ServeHit may answer.
type HitRequest struct {
	Head        bool
	Bucket, Key string
	// Fields are the caller's response headers (Server, request IDs),
	// sorted by Name. An entry header of the same name wins, as it does
	// in Serve, which sets the entry's headers over the caller's.
	Fields []HeaderField
	// Close adds "Connection: close", as net/http does when the request
	// asks for it.
	Close bool
}

// hitLines are an entry's rendered header lines for a hit (X-Cache HIT,
// Content-Length of the whole object), sorted by name.
type hitLines struct {
	lines []hitLine
	src   *headerBlock // the entry's header block they were made of
}

type hitLine struct {
	name string
	line []byte // "Name: value\r\n", one per value
}

// headerCleaner is what net/http does to header values on the wire.
var headerCleaner = strings.NewReplacer("\n", " ", "\r", " ")

// hitLines renders e's hit headers once for each header block of e. ok
// is false when a hit of e is not answered fast: without a Content-Type
// net/http would sniff one from the body.
func (e *entry) hitLines() (*hitLines, bool) {
	hb := e.headers()
	if hl := e.hit.Load(); hl != nil && hl.src == hb {
		return hl, len(hl.lines) > 0
	}
	hl := &hitLines{src: hb}
	hasType := false
	add := func(k string, vs []string) {
		var b []byte
		for _, v := range vs {
			v = strings.Trim(headerCleaner.Replace(v), " \t")
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
		hl.lines = append(hl.lines, hitLine{k, b})
	}
	for _, kv := range hb.kv {
		if kv.k == "Content-Type" && len(kv.v) > 0 {
			hasType = true
		}
		if kv.k == "Content-Length" || kv.k == "X-Cache" {
			continue
		}
		add(kv.k, kv.v)
	}
	add("Content-Length", hb.length)
	add("X-Cache", xCacheValue(xHit))
	slices.SortFunc(hl.lines, func(a, b hitLine) int { return strings.Compare(a.name, b.name) })
	if !hasType {
		hl.lines = nil
	}
	// Whoever made lines of an older block may store them after these:
	// the next hit sees their src and makes them again.
	e.hit.Store(hl)
	return hl, len(hl.lines) > 0
}

var hitBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2<<10); return &b }}

// ServeHit answers r on w when it is a fresh hit whose every byte is in
// the cache, on a healthy disk or in the memory tier, and returns
// answered true and the body bytes written. Otherwise it writes nothing
// and returns answered false: the caller serves the request the slow way
// (Serve). A non-nil err with answered true means the answer was cut
// short and the connection must be closed. It counts the hit in the same
// statistics Serve does.
func (c *Cache) ServeHit(w io.Writer, r *HitRequest) (answered bool, written int64, err error) {
	ck := r.Bucket + "/" + r.Key
	now := c.o.Now()
	// A hit does not wait for the cache's lock: the entry is read from
	// the index (a shard's read lock) and its state from atomics
	// (removed, freshNs, whole); the descriptor is taken and given back
	// with atomics (openFile); the LRU order is touched when the lock is
	// free (even if the slow path answers after all, as it would touch it
	// too), and left as it is when another goroutine holds it. On two CPUs shared with other
	// processes the holder's thread is often descheduled, and a hit that
	// waited for the lock would wait for it and then in the scheduler's
	// queue: with the lock taken, 2.6 % of the hits of the 100 KiB class
	// waited, 0.5 ms at the median (docs/performance.md).
	e := c.index.get(ck)
	if e == nil || e.removed.Load() || sinceEpoch(now) >= e.freshNs.Load() || !e.d.healthy.Load() || !e.whole.Load() {
		return false, 0, nil
	}
	if c.mu.TryLock() {
		c.touchLocked(e, now)
		c.mu.Unlock()
	}
	hl, ok := e.hitLines()
	if !ok {
		return false, 0, nil
	}

	// The body's source: the memory tier, or a descriptor of the file.
	var mem []byte
	var rf *os.File
	if !r.Head && e.size > 0 {
		if b, ok := c.memoryBody(e); ok {
			mem = b
		} else {
			f, oerr := c.openFile(e)
			if oerr != nil {
				// Serve decides what the failure means.
				return false, 0, nil
			}
			rf = f
			// err is the answer's: a descriptor whose answer failed is
			// not kept.
			defer func() { c.releaseFile(e, rf, err == nil) }()
		}
	}

	c.stats.hits.Add(1)
	e.d.hits.Add(1)

	bp := hitBufPool.Get().(*[]byte)
	b := append((*bp)[:0], "HTTP/1.1 200 OK\r\n"...)
	// Three sorted sources: the entry's lines, the caller's fields and
	// Age, which neither holds.
	f := r.Fields
	age, aged := e.age(now), false
	for _, l := range hl.lines {
		for len(f) > 0 && f[0].Name <= l.name {
			if !aged && ageName < f[0].Name {
				b, aged = appendAge(b, age), true
			}
			if f[0].Name != l.name {
				b = appendField(b, f[0])
			}
			f = f[1:]
		}
		if !aged && ageName < l.name {
			b, aged = appendAge(b, age), true
		}
		b = append(b, l.line...)
	}
	for _, fl := range f {
		if !aged && ageName < fl.Name {
			b, aged = appendAge(b, age), true
		}
		b = appendField(b, fl)
	}
	if !aged {
		b = appendAge(b, age)
	}
	b = append(b, "Date: "...)
	b = appendDate(b, time.Now())
	b = append(b, "\r\n"...)
	if r.Close {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, "\r\n"...)
	if mem != nil {
		// A memory-tier body (at most memoryServeMax bytes) goes out
		// with the head, in one write.
		b = append(b, mem...)
	}
	if rf != nil {
		// The head with the body's first bytes, the body by sendfile.
		err = sendHit(w, b, rf, 0, e.size, e.d)
	} else {
		err = sendBytes(w, b)
	}
	*bp = b[:0]
	hitBufPool.Put(bp)
	if err != nil {
		if rf != nil {
			c.readError(e.d, err)
		}
		return true, 0, err
	}
	if r.Head {
		return true, 0, nil
	}
	c.stats.bytesFromCache.Add(uint64(e.size))
	return true, e.size, nil
}

// httpDate is a Date header's value and the second it names.
type httpDate struct {
	sec  int64
	text []byte
}

// lastDate is the value appendDate formatted last: hits within one second
// share it (formatting it was 3 % of the Go code of a hit).
var lastDate atomic.Pointer[httpDate]

// appendDate appends now as an HTTP date (http.TimeFormat).
func appendDate(b []byte, now time.Time) []byte {
	sec := now.Unix()
	d := lastDate.Load()
	if d == nil || d.sec != sec {
		d = &httpDate{sec: sec, text: now.UTC().AppendFormat(make([]byte, 0, len(http.TimeFormat)), http.TimeFormat)}
		lastDate.Store(d)
	}
	return append(b, d.text...)
}

// ageName is the Age header's name, which a fast hit adds (see
// entry.age).
const ageName = "Age"

func appendAge(b []byte, age int64) []byte {
	b = append(b, ageName+": "...)
	b = strconv.AppendInt(b, age, 10)
	return append(b, "\r\n"...)
}

func appendField(b []byte, f HeaderField) []byte {
	b = append(b, f.Name...)
	b = append(b, ": "...)
	b = append(b, f.Value...)
	return append(b, "\r\n"...)
}

// memoryBody returns e's bytes from the memory tier as serveMemory does
// (reading the file once on a memory miss and offering it to the tier),
// or false when e is not for the tier.
func (c *Cache) memoryBody(e *entry) ([]byte, bool) {
	mem := c.o.Memory
	if !mem.Fits(e.size) || e.size > memoryServeMax {
		return nil, false
	}
	k := hotcache.Key{Bucket: e.ck, Object: e.id, ETag: e.etag, Size: e.size}
	if b, ok := mem.Get(k); ok {
		mem.Hit()
		return b, true
	}
	mem.Miss()
	b, ok := c.readWhole(e)
	if !ok {
		return nil, false
	}
	mem.Put(k, b)
	return b, true
}
