package edge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// fill is one fetch of a byte range of an object from the origin into
// the entry's file: one slice, or the whole object when the origin sent
// it whole. Every reader of the range follows the same fill: it streams
// what is already written and waits for the rest.
type fill struct {
	e                 *entry
	off, length       int64 // the range, in object offsets
	firstSlice, slice int64 // slices covered: [firstSlice, slice]

	mu      sync.Mutex
	cond    *sync.Cond
	written int64 // bytes of the range readers may read
	// memFrom is where the bytes stop being in the file and are in mem:
	// the cache disk failed during the fill (or before it), and the rest
	// is kept in memory for the readers.
	memFrom int64
	mem     []byte
	done    bool
	err     error

	// start, when not nil, runs the fill: the first fill of a small
	// object, run by the request that made it (runFirst).
	start func()
}

// defaultSmallObject is the size up to which a miss's request fetches the
// object itself, whole, before it answers: a fill of its own goroutine
// would cost the miss two hand-offs between goroutines (the fill's start
// and its end), each a wait for a CPU on a busy host (docs/performance.md,
// "Misses without hand-offs"). The object is stored
// before the answer begins, so an origin that fails mid-object is
// answered with an error, not a cut body; a client that reads slowly
// cannot slow the fill that other clients follow. The cost is the first
// byte's: it waits for the object's last from the origin.
const defaultSmallObject = 256 << 10

// maxFillMemory bounds the bytes a fill keeps in memory after its disk
// failed; beyond it the fill fails.
const maxFillMemory = 64 << 20

// stallTimeout is how long an origin body may stop sending before the
// fill gives up.
const stallTimeout = 60 * time.Second

func newFill(e *entry, off, length int64) *fill {
	fl := &fill{e: e, off: off, length: length, memFrom: length}
	fl.cond = sync.NewCond(&fl.mu)
	fl.firstSlice = off / e.sliceSize
	fl.slice = (off + max(length, 1) - 1) / e.sliceSize
	return fl
}

// fillLocked returns the fill of slice i of e, registering a new one when
// none runs; start is true when the caller must start it (c.mu held).
func (c *Cache) fillLocked(e *entry, i int64) (fl *fill, start bool) {
	if fl = e.fills[i]; fl != nil {
		return fl, false
	}
	off := i * e.sliceSize
	fl = newFill(e, off, min(e.sliceSize, e.size-off))
	if e.fills == nil {
		e.fills = make(map[int64]*fill)
	}
	e.fills[i] = fl
	return fl, true
}

// fetchSlice fetches slice fl covers with a ranged GET that must match
// the entry's ETag, then runs the fill.
func (c *Cache) fetchSlice(fl *fill, bucket, key string) {
	e := fl.e
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if e.etag == "" {
		// Without an ETag a refetched slice could belong to a new
		// version of the same size: drop the entry instead.
		c.drop(e)
		c.finish(fl, originDown(errors.New("the origin gave the object no ETag; it cannot be fetched in pieces")))
		return
	}
	h := http.Header{
		"Range":    {"bytes=" + strconv.FormatInt(fl.off, 10) + "-" + strconv.FormatInt(fl.off+fl.length-1, 10)},
		"If-Match": {e.etag},
	}
	c.stats.fetches.Add(1)
	resp, err := c.up.do(ctx, http.MethodGet, bucket, key, h)
	if err != nil {
		c.stats.upstreamErrors.Add(1)
		c.finish(fl, originDown(err))
		return
	}
	first, last, size, ok := contentRange(resp.Header.Get("Content-Range"))
	if resp.StatusCode != http.StatusPartialContent || !ok || first != fl.off || last != fl.off+fl.length-1 || size != e.size {
		if resp.StatusCode == http.StatusPreconditionFailed || resp.StatusCode == http.StatusNotFound ||
			resp.StatusCode == http.StatusPartialContent || resp.StatusCode == http.StatusOK {
			// The object changed at the origin since it was cached.
			c.drop(e)
		} else {
			c.stats.upstreamErrors.Add(1)
		}
		resp.Body.Close()
		c.finish(fl, originDown(fmt.Errorf("origin answered %s (%q) for slice %d", resp.Status, resp.Header.Get("Content-Range"), fl.slice)))
		return
	}
	c.run(ctx, cancel, fl, resp.Body, nil)
}

// run copies an origin body into the entry's file (or into memory, if
// the disk fails) and then records the fill's slices. f, when not nil, is
// the file open for writing (the entry's first fill, which created it);
// run takes it.
func (c *Cache) run(ctx context.Context, cancel context.CancelFunc, fl *fill, body io.ReadCloser, f *os.File) {
	defer cancel()
	defer body.Close()
	stall := time.AfterFunc(stallTimeout, cancel)
	defer stall.Stop()
	// Closing the body unblocks a Read of a stalled origin.
	stop := context.AfterFunc(ctx, func() { body.Close() })
	defer stop()

	d := fl.e.d
	if !d.healthy.Load() {
		if f != nil {
			f.Close()
			f = nil
		}
	} else {
		err := c.diskFault(d, "write")
		if err == nil && f == nil {
			f, err = openPath(fl.e.path(), os.O_WRONLY, 0)
		}
		if err != nil {
			if f != nil {
				f.Close()
			}
			// Out of descriptors, the fill goes through memory; the disk
			// is not at fault.
			if !errors.Is(err, os.ErrNotExist) && !outOfFiles(err) {
				c.diskFailed(d, "open", err)
			}
			f = nil
		}
	}
	if f == nil {
		fl.toMemory(0)
	}
	defer func() {
		if f != nil {
			f.Close()
		}
	}()

	buf := getBuffer()
	defer putBuffer(buf)
	var pos int64
	var err error
	for pos < fl.length {
		n, rerr := body.Read(buf[:min(int64(len(buf)), fl.length-pos)])
		if n > 0 {
			stall.Reset(stallTimeout)
			c.stats.bytesFromUpstream.Add(uint64(n))
			if f != nil {
				werr := c.diskFault(d, "write")
				if werr == nil {
					_, werr = f.WriteAt(buf[:n], fl.off+pos)
				}
				if werr != nil {
					c.diskFailed(d, "write", werr)
					f.Close()
					f = nil
					fl.toMemory(pos)
				}
			}
			if f == nil {
				if err = fl.keep(buf[:n]); err != nil {
					break
				}
			}
			pos += int64(n)
			fl.mu.Lock()
			fl.written = pos
			fl.mu.Unlock()
			fl.cond.Broadcast()
		}
		if rerr == io.EOF && pos < fl.length {
			err = io.ErrUnexpectedEOF
			break
		}
		if rerr != nil && rerr != io.EOF {
			err = rerr
			break
		}
	}
	if err != nil {
		c.stats.upstreamErrors.Add(1)
		c.finish(fl, originDown(fmt.Errorf("reading slice %d from the origin: %w", fl.slice, err)))
		return
	}
	// The slice is served from the page cache from now on; a flush
	// syncs it and records it (see Cache.flush and Cache.persist), with
	// f kept open for that sync or closed.
	c.complete(fl, f)
	f = nil
}

// runFirst runs a fill returned not started by Cache.open, in the
// calling goroutine, and returns its error. Only the request that opened
// the entry holds such a fill, and runs it once.
func (fl *fill) runFirst() error {
	if run := fl.start; run != nil {
		fl.start = nil
		run()
	}
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.err
}

// toMemory switches a fill to keeping bytes from pos in memory.
func (fl *fill) toMemory(pos int64) {
	fl.mu.Lock()
	fl.memFrom = pos
	fl.mu.Unlock()
}

func (fl *fill) keep(p []byte) error {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if len(fl.mem)+len(p) > maxFillMemory {
		return errors.New("edge: the cache disk failed and the object is too large to pass through memory")
	}
	fl.mem = append(fl.mem, p...)
	return nil
}

// complete records a finished fill: its slices are present when they
// were written to the entry's file through f (nil: kept in memory only),
// and the entry's record is scheduled. It takes f: persist keeps it for
// the flush's sync, or it is closed.
func (c *Cache) complete(fl *fill, f *os.File) {
	e := fl.e
	stored := f != nil
	c.mu.Lock()
	for i := fl.firstSlice; i <= fl.slice; i++ {
		if stored {
			e.set(i)
		}
		if e.fills[i] == fl {
			delete(e.fills, i)
		}
	}
	if stored {
		e.markWhole()
	}
	removed := e.removed.Load()
	c.mu.Unlock()
	fl.mu.Lock()
	fl.done = true
	fl.mu.Unlock()
	fl.cond.Broadcast()
	if stored && !removed {
		c.persist(e, f)
	} else if f != nil {
		f.Close()
	}
}

// finish ends a failed fill.
func (c *Cache) finish(fl *fill, err error) {
	c.mu.Lock()
	for i := fl.firstSlice; i <= fl.slice; i++ {
		if fl.e.fills[i] == fl {
			delete(fl.e.fills, i)
		}
	}
	c.mu.Unlock()
	fl.mu.Lock()
	fl.done, fl.err = true, err
	fl.mu.Unlock()
	fl.cond.Broadcast()
}

// stream writes the object bytes [from, from+n), which lie in fl's range,
// to w as the fill makes them available: from the file rf (sendfile) or
// from memory.
func (fl *fill) stream(w io.Writer, rf *os.File, from, n int64) error {
	pos := from - fl.off
	end := pos + n
	flushed := false
	for pos < end {
		fl.mu.Lock()
		if fl.written <= pos && fl.err == nil && !fl.done && !flushed {
			// About to wait for the origin: what the response holds
			// so far (its head, at first) goes out now, so that a
			// client of a slow or stalled origin gets the answer
			// begun, and later cut if it stalls, rather than nothing.
			// Not a head without Content-Type, which net/http sniffs
			// from the first bytes of the body, as it does for hits.
			flushed = true
			if f, ok := w.(interface {
				http.Flusher
				Header() http.Header
			}); ok && len(f.Header()["Content-Type"]) > 0 {
				fl.mu.Unlock()
				f.Flush()
				fl.mu.Lock()
			}
		}
		for fl.written <= pos && fl.err == nil && !fl.done {
			fl.cond.Wait()
		}
		avail, memFrom, mem, err := fl.written, fl.memFrom, fl.mem, fl.err
		fl.mu.Unlock()
		if avail <= pos {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		upto := min(avail, end)
		if pos < memFrom {
			if rf == nil {
				return errors.New("edge: cached file not open")
			}
			m := min(upto, memFrom)
			if err := sendRange(w, rf, fl.off+pos, m-pos); err != nil {
				return err
			}
			pos = m
			continue
		}
		if _, err := w.Write(mem[pos-memFrom : upto-memFrom]); err != nil {
			return err
		}
		pos = upto
	}
	return nil
}

// sendRange writes n bytes of f from off to w: sendfile(2) when w is a
// network connection.
func sendRange(w io.Writer, f *os.File, off, n int64) error {
	if n == 0 {
		return nil
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return err
	}
	got, err := io.CopyN(w, f, n)
	if err == io.EOF || err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	return err
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

func getBuffer() []byte  { return *bufPool.Get().(*[]byte) }
func putBuffer(b []byte) { bufPool.Put(&b) }
