package edge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// testSlice is the slice size of the tests: the minimum.
const testSlice = 64 << 10

// waitLimit bounds every wait of the tests.
const waitLimit = 10 * time.Second

// clock is a settable clock for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a cache in front of a test origin, served over HTTP.
type env struct {
	t      *testing.T
	origin *origin
	clock  *clock
	opts   Options
	cache  atomic.Pointer[Cache]
	srv    *httptest.Server
	client *http.Client
	// inflight counts the requests the cache's server is answering.
	inflight atomic.Int64
	// readFroms counts the bytes the cache wrote through ReadFrom (the
	// sendfile path of a network connection).
	readFroms atomic.Int64
}

// newEnv starts an origin and a cache in front of it; mod adjusts the
// options (whose defaults here are: 64 KiB slices, 64 MiB budget, NoSync,
// a fake clock, 1 hour TTL, slices recorded at the next flush).
func newEnv(t *testing.T, mod func(*Options)) *env {
	t.Helper()
	checkGoroutines(t)
	e := &env{t: t, origin: newOrigin(t), clock: &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}}
	e.origin.now = e.clock.Now
	u, _ := url.Parse(e.origin.srv.URL)
	e.opts = Options{
		Upstream:      u,
		Dir:           t.TempDir(),
		MaxBytes:      64 << 20,
		SliceSize:     testSlice,
		DefaultTTL:    time.Hour,
		NoSync:        true,
		Now:           e.clock.Now,
		ProbeInterval: 10 * time.Millisecond,
		syncInterval:  5 * time.Millisecond,
		syncAge:       -1, // at the next flush: the fake clock stands still
	}
	if mod != nil {
		mod(&e.opts)
	}
	e.open()
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	e.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, DisableCompression: true}}
	t.Cleanup(func() {
		e.origin.openGates()
		e.client.CloseIdleConnections()
		e.srv.Close()
		if c := e.cache.Load(); c != nil {
			checkIndex(t, c)
			c.Close()
		}
	})
	return e
}

// checkIndex checks that what the fast hit reads without the cache's lock
// is what the lock guards: the index holds exactly the entries, and each
// entry's mirrored state is its own.
func checkIndex(t *testing.T, c *Cache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for i := range c.index.shards {
		for k, v := range c.index.shards[i].m {
			n++
			if c.entries[k] != v {
				t.Errorf("index holds %s, which is not among the entries", k)
			}
		}
	}
	if n != len(c.entries) {
		t.Errorf("index holds %d entries, the cache %d", n, len(c.entries))
	}
	for ck, en := range c.entries {
		if en.removed.Load() || en.whole.Load() != en.complete() || en.freshNs.Load() != sinceEpoch(en.freshUntil) {
			t.Errorf("%s: removed %v; mirrors whole %v fresh %d, state complete %v fresh %d",
				ck, en.removed.Load(), en.whole.Load(), en.freshNs.Load(), en.complete(), sinceEpoch(en.freshUntil))
		}
	}
	for _, d := range c.disks {
		if p := lruProblem(c, d); p != "" {
			t.Errorf("LRU list of %s: %s", d.dir, p)
		}
	}
}

// lruProblem reports what is wrong with d's LRU list (c.mu held): an
// element that is not a live entry of d, the list's root returned as an
// element, or a length that is not the number of elements.
func lruProblem(c *Cache, d *disk) string {
	if b := d.lru.Back(); b != nil {
		if _, ok := b.Value.(*entry); !ok {
			return fmt.Sprintf("Back() is the list's root (Value %v), Len %d", b.Value, d.lru.Len())
		}
	}
	n := 0
	for el := d.lru.Front(); el != nil; el = el.Next() {
		n++
		if n > d.lru.Len()+16 {
			return fmt.Sprintf("more elements than Len %d", d.lru.Len())
		}
		en, ok := el.Value.(*entry)
		if !ok {
			return fmt.Sprintf("element %d is not an entry (%v)", n, el.Value)
		}
		if en.removed.Load() || c.entries[en.ck] != en || en.d != d {
			return fmt.Sprintf("element %d is %s, removed %v: not the live entry of its key on this disk", n, en.ck, en.removed.Load())
		}
	}
	if n != d.lru.Len() {
		return fmt.Sprintf("%d elements reachable from Front, Len %d", n, d.lru.Len())
	}
	return ""
}

// open opens a cache on the env's options and serves it.
func (e *env) open() *Cache {
	e.t.Helper()
	c, err := Open(e.opts)
	if err != nil {
		e.t.Fatalf("Open: %v", err)
	}
	e.cache.Store(c)
	return c
}

// restart closes the cache and opens a new one on the same directory.
func (e *env) restart() *Cache {
	e.t.Helper()
	if err := e.cache.Load().Close(); err != nil {
		e.t.Fatalf("Close: %v", err)
	}
	return e.open()
}

func (e *env) c() *Cache { return e.cache.Load() }

// serve is the handler in front of the cache: errors become their status,
// and an error after the response began cuts the connection.
func (e *env) serve(w http.ResponseWriter, r *http.Request) {
	e.inflight.Add(1)
	defer e.inflight.Add(-1)
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	tw := &trackingWriter{ResponseWriter: w, readFroms: &e.readFroms}
	err := e.c().Serve(tw, r, bucket, key)
	if err == nil {
		return
	}
	if tw.started {
		panic(http.ErrAbortHandler)
	}
	se := s3err.As(err)
	for _, f := range se.Headers {
		w.Header().Set(f.Name, f.Value)
	}
	// The error's code, which the gateway writes in an XML body.
	w.Header().Set("X-Test-Error-Code", se.Code.String())
	w.WriteHeader(se.Code.Status())
}

// trackingWriter records whether the response began. It forwards ReadFrom
// so that the cache's sendfile path is the one tested.
type trackingWriter struct {
	http.ResponseWriter
	started   bool
	readFroms *atomic.Int64
}

var _ io.ReaderFrom = (*trackingWriter)(nil)

func (w *trackingWriter) WriteHeader(code int) {
	w.started = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackingWriter) Write(p []byte) (int, error) {
	w.started = true
	return w.ResponseWriter.Write(p)
}

// Flush is the server's, as the api's writer offers it.
func (w *trackingWriter) Flush() {
	w.started = true
	w.ResponseWriter.(http.Flusher).Flush()
}

func (w *trackingWriter) ReadFrom(r io.Reader) (int64, error) {
	w.started = true
	n, err := w.ResponseWriter.(io.ReaderFrom).ReadFrom(r)
	w.readFroms.Add(n)
	return n, err
}

// fastHit answers a GET of bucket/key with ServeHit, which must answer
// it, and returns what a client got.
func (e *env) fastHit(bucket, key string) response {
	e.t.Helper()
	var buf bytes.Buffer
	answered, _, err := e.c().ServeHit(&buf, &HitRequest{Bucket: bucket, Key: key})
	if !answered || err != nil {
		e.t.Fatalf("ServeHit %s/%s: answered %v, err %v", bucket, key, answered, err)
	}
	r, err := http.ReadResponse(bufio.NewReader(&buf), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	defer r.Body.Close()
	body, err := io.ReadAll(r.Body)
	return response{status: r.StatusCode, header: r.Header, body: body, err: err}
}

// response is what a client got.
type response struct {
	status int
	header http.Header
	body   []byte
	err    error // reading the body
}

func (r response) xcache() string { return r.header.Get("X-Cache") }

// do sends a request for bucket/key (ck) with headers given as name,
// value pairs.
func (e *env) do(method, ck string, hdr ...string) response {
	req, err := http.NewRequest(method, e.srv.URL+"/"+ck, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: body, err: err}
}

func (e *env) get(ck string, hdr ...string) response { return e.do(http.MethodGet, ck, hdr...) }

// mustGet GETs ck and checks a 200 with the given body and X-Cache.
func (e *env) mustGet(ck string, want []byte, xcache string) response {
	e.t.Helper()
	r := e.get(ck)
	checkBody(e.t, ck, r, http.StatusOK, want)
	if xcache != "" && r.xcache() != xcache {
		e.t.Fatalf("GET %s: X-Cache %q, want %q", ck, r.xcache(), xcache)
	}
	return r
}

func checkBody(t *testing.T, what string, r response, status int, want []byte) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: %v", what, r.err)
	}
	if r.status != status {
		t.Fatalf("%s: status %d, want %d", what, r.status, status)
	}
	if !bytes.Equal(r.body, want) {
		t.Fatalf("%s: body of %d bytes differs from the %d wanted (first difference at %d)",
			what, len(r.body), len(want), firstDiff(r.body, want))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// randomBytes returns n bytes that differ for each seed.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// eventually polls cond until it holds or waitLimit passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// settle waits until no request is being answered (a client may have
// read its whole answer before the handler gave back its descriptor), no
// fill runs and the catalogue holds every entry as memory does: what a
// graceful shutdown after the clients finished would find.
func (e *env) settle() {
	e.t.Helper()
	e.waitInflight(0)
	c := e.c()
	eventually(e.t, "the fills to be recorded", func() bool {
		for _, d := range c.disks {
			c.mu.Lock()
			cat := d.cat
			want := make(map[string][]byte, len(c.entries))
			for ck, en := range c.entries {
				if len(en.fills) > 0 {
					c.mu.Unlock()
					return false
				}
				if en.d == d {
					want[ck] = slices.Clone(en.present)
				}
			}
			c.mu.Unlock()
			if cat == nil {
				if len(c.disks) == 1 {
					return false
				}
				continue // a failed disk of several: nothing to record
			}
			got := map[string][]byte{}
			if err := cat.load(func(ck string, r record, ok bool) { got[ck] = r.Slices }); err != nil {
				return false
			}
			for ck, p := range want {
				r, ok := got[ck]
				if !ok && !slices.ContainsFunc(p, func(b byte) bool { return b != 0 }) {
					continue // nothing complete, nothing recorded
				}
				if !bytes.Equal(r, p) {
					return false
				}
			}
		}
		return true
	})
}

// dataFiles lists the files under Dir/data, in its subdirectories and
// in itself, by name.
func (e *env) dataFiles() []string {
	e.t.Helper()
	var names []string
	err := filepath.WalkDir(filepath.Join(e.opts.Dir, "data"), func(p string, de fs.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			names = append(names, de.Name())
		}
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		e.t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// fileOf is the data file name of a cached key, "" when none.
func (e *env) fileOf(ck string) string {
	c := e.c()
	c.mu.Lock()
	defer c.mu.Unlock()
	if en := c.entries[ck]; en != nil {
		return en.id
	}
	return ""
}

// recorded returns the keys of the open cache's catalogues.
func (e *env) recorded() []string {
	e.t.Helper()
	c := e.c()
	var out []string
	for _, d := range c.disks {
		c.mu.Lock()
		cat := d.cat
		c.mu.Unlock()
		if cat == nil {
			e.t.Fatalf("the catalogue of %s is detached", d.dir)
		}
		if err := cat.load(func(ck string, _ record, _ bool) { out = append(out, ck) }); err != nil {
			e.t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// checkGoroutines fails the test if goroutines of the cache outlive it
// (after every cleanup registered later has run).
func checkGoroutines(t *testing.T) {
	t.Cleanup(func() {
		var stacks string
		deadline := time.Now().Add(waitLimit)
		for {
			buf := make([]byte, 1<<20)
			stacks = string(buf[:runtime.Stack(buf, true)])
			var leaked []string
			for _, g := range strings.Split(stacks, "\n\n") {
				if strings.Contains(g, "pkg/edge.(*Cache)") || strings.Contains(g, "pkg/edge.(*fill)") ||
					strings.Contains(g, "pkg/edge.(*catalog)") {
					leaked = append(leaked, g)
				}
			}
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines of the cache outlived the test:\n%s", len(leaked), strings.Join(leaked, "\n\n"))
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// stream starts a GET of ck and returns the response with its body unread.
func (e *env) stream(ck string) *http.Response {
	e.t.Helper()
	resp, err := e.client.Get(e.srv.URL + "/" + ck)
	if err != nil {
		e.t.Fatalf("GET %s: %v", ck, err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readN reads exactly n bytes of r, failing the test after waitLimit.
func readN(t *testing.T, r io.Reader, n int) []byte {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatalf("reading %d bytes: %v", n, res.err)
		}
		return res.b
	case <-time.After(waitLimit):
		t.Fatalf("reading %d bytes: timed out", n)
		return nil
	}
}

// waitInflight waits until the cache's server answers n requests.
func (e *env) waitInflight(n int64) {
	e.t.Helper()
	eventually(e.t, "requests in flight", func() bool { return e.inflight.Load() == n })
}
