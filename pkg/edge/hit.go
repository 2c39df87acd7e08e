package edge

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// The hit path. What a hit costs beyond net/http's own work is kept to
// what nginx does for a cached object:
//
//   - The response headers of a cached version are computed once (the
//     entry's headerBlock): every value is a shared, never-modified
//     []string, so a hit allocates nothing that grows with the object's
//     headers, and nothing is parsed again (Last-Modified, the unquoted
//     ETag, Content-Length of the whole object).
//   - The file of a cached version is opened once and its descriptor
//     kept for the next hits (entry.idle, at most maxIdlePerEntry per
//     entry and maxIdleFiles in all): a hit is an lseek and a sendfile,
//     not an openat, sendfile and close. A descriptor has its own file
//     offset, so one is used by one response at a time. Descriptors of an
//     entry that is dropped (evicted, purged, changed at the origin, its
//     disk failed) are closed with it; one in use is closed when its
//     response ends.
//   - Contiguous complete slices go out in one sendfile.
//     A descriptor kept open reads its file even if the file is removed
//     behind the cache's back; the bytes are still the cached version's,
//     and the entry is refetched once it is dropped or after a restart.
//   - A hit touches the LRU order in memory only; the catalogue records
//     access times at Close, never in a transaction per hit.

// maxIdlePerEntry bounds the open descriptors kept for one entry: enough
// for the concurrent hits on a hot object to skip the open, few enough
// that a cache of many objects does not hold many descriptors each.
const maxIdlePerEntry = 4

// maxIdleFiles bounds the descriptors kept open over all entries: 2,048,
// or a quarter of the process's descriptor limit when that is lower, so
// that kept descriptors never starve connections and fills (with those
// kept for syncs, maxSyncFiles, at most half of the limit).
var maxIdleFiles = idleFileLimit()

// headerBlock is what every answer from one cached version carries.
type headerBlock struct {
	kv      []headerKV // the stored headers, Etag and Accept-Ranges
	length  []string   // Content-Length of the whole object
	etag    string     // unquoted, for the preconditions
	lastMod time.Time
}

type headerKV struct {
	k string
	v []string
}

// xCacheValues are the shared X-Cache header values.
var xCacheValues = map[string][]string{
	xHit: {xHit}, xMiss: {xMiss}, xRevalidated: {xRevalidated}, xStale: {xStale}, xPass: {xPass},
}

var acceptRangesBytes = []string{"bytes"}

// headers returns e's header block. An entry's size and ETag never
// change (a new version of the object is a new entry); its stored
// headers may, at a revalidation whose answer carries others
// (setHeader), which replaces the block. The entry's makers set the block
// before anyone else sees the entry (setHeader); it is made here for one
// made otherwise.
func (e *entry) headers() *headerBlock {
	if hb := e.hdr.Load(); hb != nil {
		return hb
	}
	e.hdr.CompareAndSwap(nil, newHeaderBlock(e.size, e.etag, e.header))
	return e.hdr.Load()
}

// setHeader sets e's stored headers and the header block made of them.
// Once e is seen by others, only with Cache.mu held.
func (e *entry) setHeader(h http.Header) {
	e.header = h
	e.hdr.Store(newHeaderBlock(e.size, e.etag, h))
}

// newHeaderBlock makes the header block of an entry of size bytes, ETag
// etag and stored headers h.
func newHeaderBlock(size int64, etag string, h http.Header) *headerBlock {
	hb := &headerBlock{
		length: []string{strconv.FormatInt(size, 10)},
		etag:   strings.Trim(etag, `"`),
	}
	hb.lastMod, _ = http.ParseTime(h.Get("Last-Modified"))
	for k, v := range h {
		// A copy, full to capacity: an append by whoever writes the
		// response makes its own.
		hb.kv = append(hb.kv, headerKV{k, append([]string(nil), v...)[:len(v):len(v)]})
	}
	if etag != "" {
		hb.kv = append(hb.kv, headerKV{"Etag", []string{etag}})
	}
	hb.kv = append(hb.kv, headerKV{"Accept-Ranges", acceptRangesBytes})
	return hb
}

// set puts the block's headers and X-Cache into h.
func (hb *headerBlock) set(h http.Header, state string) {
	for _, kv := range hb.kv {
		h[kv.k] = kv.v
	}
	h["X-Cache"] = xCacheValue(state)
}

// xCacheValue is the X-Cache header value of state, shared.
func xCacheValue(state string) []string {
	if xc := xCacheValues[state]; xc != nil {
		return xc
	}
	return []string{state}
}

// unset removes what set and serveEntry put into h, for an answer that is
// made again from another source (the headers the caller had set before
// are none of these: the origin's stored headers are its entity headers,
// ETag and metadata).
func (hb *headerBlock) unset(h http.Header) {
	for _, kv := range hb.kv {
		delete(h, kv.k)
	}
	for _, k := range []string{"X-Cache", "Age", "Content-Range", "Content-Length"} {
		delete(h, k)
	}
}

// openFile returns a descriptor of e's file for one response, a kept one
// when there is one. The caller gives it back with releaseFile. Neither
// takes c.mu: a hit would otherwise take the cache's lock three times,
// and under load a goroutine that has to wait for a lock waits in the
// scheduler's queue as well.
func (c *Cache) openFile(e *entry) (*os.File, error) {
	if err := c.diskFault(e.d, "read"); err != nil {
		return nil, err
	}
	if !e.idleShut.Load() {
		for i := range e.idle {
			if e.idle[i].Load() == nil {
				continue
			}
			if f := e.idle[i].Swap(nil); f != nil {
				c.idleFiles.Add(-1)
				return f, nil
			}
		}
	}
	return openPath(e.path(), os.O_RDONLY, 0)
}

// releaseFile keeps f for e's next hit, or closes it when e's descriptors
// were closed for good meanwhile (e dropped, the cache closed), when the
// response failed (ok false: the descriptor's state is not trusted) or
// when enough are kept.
func (c *Cache) releaseFile(e *entry, f *os.File, ok bool) {
	if ok && !e.idleShut.Load() && c.keepIdle(e, f) {
		return
	}
	f.Close()
}

// keepIdle puts f in a free slot of e's and reports whether f is no
// longer the caller's: false when every slot is taken, when maxIdleFiles
// are kept already, or when closeIdleLocked ran meanwhile and f was taken
// back here (the caller closes it).
func (c *Cache) keepIdle(e *entry, f *os.File) bool {
	if c.idleFiles.Add(1) > int64(maxIdleFiles) {
		c.idleFiles.Add(-1)
		return false
	}
	for i := range e.idle {
		if !e.idle[i].CompareAndSwap(nil, f) {
			continue
		}
		// closeIdleLocked sets idleShut before it empties the slots:
		// if it ran since the caller's check, either it took f (and
		// closes it) or f is taken back here.
		if e.idleShut.Load() && e.idle[i].CompareAndSwap(f, nil) {
			break
		}
		return true
	}
	c.idleFiles.Add(-1)
	return false
}

// closeIdleLocked closes the descriptors kept for e (c.mu held): e is
// being dropped, its disk failed, or the cache closed.
func (c *Cache) closeIdleLocked(e *entry) {
	e.idleShut.Store(true)
	for i := range e.idle {
		if f := e.idle[i].Swap(nil); f != nil {
			c.idleFiles.Add(-1)
			f.Close()
		}
	}
	if e.syncFile != nil {
		e.syncFile.Close()
		e.syncFile = nil
		c.syncFiles--
	}
}

// presentRun returns the end (an object offset, at most end) of the run
// of complete slices starting with slice i (c.mu held).
func (e *entry) presentRun(i, end int64) int64 {
	j := i + 1
	for j*e.sliceSize < end && e.has(j) {
		j++
	}
	return min(end, j*e.sliceSize)
}

// memoryServeMax is the largest object the memory tier answers. A hit
// from memory copies the body into the socket; one from the file is a
// sendfile from the page cache, which leaves the copy out. Measured on
// 100 keep-alive connections (requests per server CPU-second, memory
// against a kept descriptor and sendfile): 16 KiB 1.12×, 48 KiB 1.0×,
// 100 KiB 0.80× — larger objects are cheaper from the file, and keeping
// them in memory only grows the heap.
const memoryServeMax = 48 << 10
