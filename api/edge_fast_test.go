package api_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/edge"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/httpintercept"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// fastEdge is an edge with --edge-public served twice by the same
// api.Server: on fast, whose listener answers hits through EdgeHit
// (httpintercept), and on slow, plain net/http. served counts the
// requests net/http handed to the api.Server.
type fastEdge struct {
	cache      *edge.Cache
	memory     *hotcache.Cache // nil without a memory tier
	fast, slow string
	served     atomic.Int64
}

// startFastEdge starts a fastEdge in front of an origin of two objects,
// with a memory tier if memory.
func startFastEdge(t testing.TB, memory bool) *fastEdge {
	t.Helper()
	mod := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	return serveFastEdge(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		switch r.URL.Path {
		case "/bkt/small.txt":
			body = []byte("hello, edge\n")
		case "/bkt/dir/big.bin":
			body = bytes.Repeat([]byte("0123456789abcdef"), 100<<10/16)
		default:
			w.WriteHeader(http.StatusNotFound)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Etag", `"v1-`+strconv.Itoa(len(body))+`"`)
		h.Set("Cache-Control", "max-age=3600")
		h.Set("X-Amz-Meta-Color", "blue")
		http.ServeContent(w, r, "", mod, bytes.NewReader(body))
	}), memory)
}

// serveFastEdge starts a fastEdge in front of origin.
func serveFastEdge(t testing.TB, origin http.Handler, memory bool) *fastEdge {
	t.Helper()
	osrv := httptest.NewServer(origin)
	t.Cleanup(osrv.Close)
	u, _ := url.Parse(osrv.URL)
	eo := edge.Options{Upstream: u, Dir: t.TempDir(), MaxBytes: 64 << 20, SliceSize: 64 << 10, NoSync: true}
	var mem *hotcache.Cache
	if memory {
		m, err := hotcache.New(hotcache.Options{MaxBytes: 16 << 20})
		if err != nil {
			t.Fatal(err)
		}
		eo.Memory, mem = m, m
	}
	c, err := edge.Open(eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	layer, err := object.Open(object.Options{Root: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { layer.Close() })
	h := api.New(layer, api.Options{
		Region: testRegion, Credentials: staticCreds{testAccessKey: testSecretKey},
		Edge: &api.EdgeOptions{Cache: c, Public: true},
	})
	fe := &fastEdge{cache: c, memory: mem}
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fe.served.Add(1)
		h.ServeHTTP(w, r)
	})
	serve := func(intercept bool) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: counted, IdleTimeout: time.Minute}
		var sl net.Listener = ln
		if intercept {
			srv.ConnState = httpintercept.ChainConnState(nil)
			sl = httpintercept.NewListener(ln, httpintercept.Options{Handler: h.EdgeHit, IdleTimeout: time.Minute})
		}
		go srv.Serve(sl)
		t.Cleanup(func() { srv.Close() })
		return ln.Addr().String()
	}
	fe.fast, fe.slow = serve(true), serve(false)
	return fe
}

// rawResponse is one answer read off a connection.
type rawResponse struct {
	head string
	body []byte
}

func (r rawResponse) header(name string) string {
	for _, l := range strings.Split(r.head, "\r\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// roundTrip writes a request head on c and reads the answer.
func roundTrip(t testing.TB, c net.Conn, br *bufio.Reader, method, target string, extra ...string) rawResponse {
	t.Helper()
	req := method + " " + target + " HTTP/1.1\r\nHost: edge.test\r\nUser-Agent: test\r\n"
	for _, e := range extra {
		req += e + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var head strings.Builder
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("%s %s: %v after %q", method, target, err, head.String())
		}
		head.WriteString(l)
		if l == "\r\n" {
			break
		}
	}
	r := rawResponse{head: head.String()}
	if method == http.MethodHead || strings.HasPrefix(r.head, "HTTP/1.1 304 ") {
		return r
	}
	n, err := strconv.Atoi(r.header("Content-Length"))
	if err != nil {
		t.Fatalf("%s %s: no Content-Length in %q", method, target, r.head)
	}
	r.body = make([]byte, n)
	if _, err := io.ReadFull(br, r.body); err != nil {
		t.Fatal(err)
	}
	return r
}

func dial(t testing.TB, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

var varying = regexp.MustCompile(`(?m)^(Age|Date|X-Amz-Request-Id|X-Amz-Id-2): .*\r$`)

// TestEdgeFastHitSameBytes compares, byte for byte but for the values of Age, Date and the
// request IDs, the answer of an intercepted hit with net/http's answer of
// the same request, for GET and HEAD, small and multi-slice objects, with
// and without Connection: close.
func TestEdgeFastHitSameBytes(t *testing.T) {
	t.Run("disk", func(t *testing.T) { testEdgeFastHitSameBytes(t, startFastEdge(t, false)) })
	// small.txt is answered from the memory tier, its body in the same
	// write as the head.
	t.Run("memory", func(t *testing.T) {
		fe := startFastEdge(t, true)
		testEdgeFastHitSameBytes(t, fe)
		if st := fe.memory.Stats(); st.Hits == 0 {
			t.Errorf("memory tier: %+v, want hits", st)
		}
	})
}

func testEdgeFastHitSameBytes(t *testing.T, fe *fastEdge) {
	sc, sbr := dial(t, fe.slow)
	for _, key := range []string{"/bkt/small.txt", "/bkt/dir/big.bin"} {
		if r := roundTrip(t, sc, sbr, "GET", key); r.header("X-Cache") != "MISS" {
			t.Fatalf("first GET %s: %q", key, r.head)
		}
		fe.waitFast(t, key)
	}
	for _, key := range []string{"/bkt/small.txt", "/bkt/dir/big.bin"} {
		for _, method := range []string{"GET", "HEAD"} {
			for _, extra := range [][]string{nil, {"Connection: close"}} {
				sc, sbr := dial(t, fe.slow)
				fc, fbr := dial(t, fe.fast)
				before := fe.served.Load()
				slow := roundTrip(t, sc, sbr, method, key, extra...)
				fast := roundTrip(t, fc, fbr, method, key, extra...)
				if got := fe.served.Load() - before; got != 1 {
					t.Fatalf("%s %s %v: net/http served %d requests, want 1 (the slow one)", method, key, extra, got)
				}
				if slow.header("X-Cache") != "HIT" {
					t.Fatalf("%s %s: slow answer not a hit: %q", method, key, slow.head)
				}
				if a, b := varying.ReplaceAllString(slow.head, "$1: -\r"), varying.ReplaceAllString(fast.head, "$1: -\r"); a != b {
					t.Errorf("%s %s %v: heads differ\nnet/http:\n%s\nfast:\n%s", method, key, extra, a, b)
				}
				if !bytes.Equal(slow.body, fast.body) {
					t.Errorf("%s %s: bodies differ (%d, %d bytes)", method, key, len(slow.body), len(fast.body))
				}
				if fast.header("X-Amz-Request-Id") == "" || fast.header("X-Amz-Request-Id") == slow.header("X-Amz-Request-Id") {
					t.Errorf("request IDs: fast %q, slow %q", fast.header("X-Amz-Request-Id"), slow.header("X-Amz-Request-Id"))
				}
			}
		}
	}
}

// TestEdgeFastHitKeepAlive: on one keep-alive connection, a miss goes to
// net/http, the following hits (GET, HEAD) to the interceptor, a Range
// request, a conditional, a query and a signed request to net/http, and
// the hit counters count the intercepted hits as hits.
func TestEdgeFastHitKeepAlive(t *testing.T) {
	fe := startFastEdge(t, false)
	c, br := dial(t, fe.fast)
	st0 := fe.cache.Stats()
	step := func(want int64, method, target string, extra ...string) rawResponse {
		t.Helper()
		before := fe.served.Load()
		r := roundTrip(t, c, br, method, target, extra...)
		if got := fe.served.Load() - before; got != want {
			t.Fatalf("%s %s %v: net/http served %d, want %d\n%s", method, target, extra, got, want, r.head)
		}
		return r
	}
	if r := step(1, "GET", "/bkt/dir/big.bin"); r.header("X-Cache") != "MISS" || !strings.HasPrefix(r.head, "HTTP/1.1 200 ") {
		t.Fatalf("miss: %q", r.head)
	}
	fe.waitFast(t, "/bkt/dir/big.bin")
	st0 = fe.cache.Stats()
	st0.Misses--
	r := step(0, "GET", "/bkt/dir/big.bin")
	if r.header("X-Cache") != "HIT" || len(r.body) != 100<<10 || r.header("X-Amz-Meta-Color") != "blue" {
		t.Fatalf("hit: %q, %d bytes", r.head, len(r.body))
	}
	if r := step(0, "HEAD", "/bkt/dir/big.bin"); r.header("Content-Length") != strconv.Itoa(100<<10) || r.header("X-Cache") != "HIT" {
		t.Fatalf("HEAD hit: %q", r.head)
	}
	if r := step(1, "GET", "/bkt/dir/big.bin", "Range: bytes=10-19"); !strings.HasPrefix(r.head, "HTTP/1.1 206 ") || string(r.body) != "abcdef0123" {
		t.Fatalf("range: %q %q", r.head, r.body)
	}
	etag := r.header("Etag")
	if r := step(1, "GET", "/bkt/dir/big.bin", "If-None-Match: "+etag); !strings.HasPrefix(r.head, "HTTP/1.1 304 ") {
		t.Fatalf("conditional: %q", r.head)
	}
	step(1, "GET", "/bkt/dir/big.bin?x-id=GetObject")
	step(1, "GET", "/bkt/dir/big.bin", "Origin: https://example.com")
	step(1, "GET", "/bkt/dir/big.bin", "Authorization: AWS4-HMAC-SHA256 Credential=x")
	step(1, "GET", "/bkt/dir/b%69g.bin")
	step(0, "GET", "/bkt/dir/big.bin")
	st := fe.cache.Stats()
	// Hits: the two fast GETs, the fast HEAD, the range, the 304 (a
	// fresh entry), the query, the Origin and the escaped key go through
	// resolve as hits too; the signed one is refused before the cache.
	if got := st.Hits - st0.Hits; got != 8 {
		t.Errorf("hits %d, want 8", got)
	}
	if got := st.Misses - st0.Misses; got != 1 {
		t.Errorf("misses %d, want 1", got)
	}
	// A hit counts its bytes once they are written, which may be after
	// the client has read them: wait for the count to get there.
	want := uint64(100<<10*2 + 10 + 100<<10*2 + 100<<10)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := fe.cache.Stats().BytesFromCache - st0.BytesFromCache
		if got >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bytes from cache %d, want at least %d", got, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitFast waits until a GET of target is answered outside net/http. The
// answer of a miss can reach the client before the fill has recorded the
// entry complete; until then hits go to net/http (and are answered
// correctly there). Each answer on the way must be a whole hit.
func (fe *fastEdge) waitFast(t testing.TB, target string) {
	t.Helper()
	c, br := dial(t, fe.fast)
	deadline := time.Now().Add(20 * time.Second)
	for {
		before := fe.served.Load()
		r := roundTrip(t, c, br, "GET", target)
		if !strings.HasPrefix(r.head, "HTTP/1.1 200 ") || r.header("X-Cache") != "HIT" {
			t.Fatalf("GET %s after its miss: %q", target, r.head)
		}
		if fe.served.Load() == before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: never answered outside net/http", target)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkEdgeFastHit times an intercepted hit of a small object on one
// keep-alive connection, client included; its allocations per operation
// are the server's per-hit allocations plus the client's few.
func BenchmarkEdgeFastHit(b *testing.B) {
	for _, tc := range []struct {
		name   string
		memory bool
		target string
	}{
		{"disk-small", false, "/bkt/small.txt"},
		{"memory-small", true, "/bkt/small.txt"},
		{"disk-100KiB", false, "/bkt/dir/big.bin"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			fe := startFastEdge(b, tc.memory)
			sc, sbr := dial(b, fe.slow)
			roundTrip(b, sc, sbr, "GET", tc.target)
			fe.waitFast(b, tc.target)
			c, br := dial(b, fe.fast)
			req := []byte("GET " + tc.target + " HTTP/1.1\r\nHost: edge.test\r\nUser-Agent: bench\r\n\r\n")
			tp := textprotoReader(br)
			before := fe.served.Load()
			b.ReportAllocs()
			cpu0 := processCPU(b)
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				n, err := tp.readResponse()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := br.Discard(n); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			// CPU per hit, client included: steadier than the time per
			// round trip, which the scheduler's wake-ups set on a busy
			// machine.
			b.ReportMetric(float64(processCPU(b)-cpu0)/1e3/float64(b.N), "cpu-µs/op")
			if got := fe.served.Load() - before; got != 0 {
				b.Fatalf("%d requests went through net/http", got)
			}
		})
	}
}

// headReader reads response heads without allocating per response.
type headReader struct{ br *bufio.Reader }

func textprotoReader(br *bufio.Reader) headReader { return headReader{br} }

// readResponse reads one response head and returns its Content-Length.
func (h headReader) readResponse() (int, error) {
	n := -1
	for first := true; ; first = false {
		l, err := h.br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if first && !bytes.HasPrefix(l, []byte("HTTP/1.1 200 ")) {
			return 0, fmt.Errorf("status line %q", l)
		}
		if len(l) == 2 {
			break
		}
		if v, ok := bytes.CutPrefix(l, []byte("Content-Length: ")); ok {
			n, err = strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil {
				return 0, err
			}
		}
	}
	if n < 0 {
		return 0, errors.New("no Content-Length")
	}
	return n, nil
}
