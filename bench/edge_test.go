package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testCache is a minimal caching proxy for the edge tests: it keeps every
// 200 answer of its origin in memory by path and says HIT or MISS in
// X-Cache. mangle, when set, may change a body as it is served.
type testCache struct {
	origin string
	mangle func(path string, body []byte) []byte

	mu sync.Mutex
	m  map[string][]byte
}

func (c *testCache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	body, hit := c.m[r.URL.Path]
	c.mu.Unlock()
	if !hit {
		resp, err := http.Get(c.origin + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			http.Error(w, "origin: "+resp.Status, http.StatusBadGateway)
			return
		}
		c.mu.Lock()
		c.m[r.URL.Path] = body
		c.mu.Unlock()
	}
	if c.mangle != nil {
		body = c.mangle(r.URL.Path, bytes.Clone(body))
	}
	w.Header().Set("X-Cache", map[bool]string{true: "HIT", false: "MISS"}[hit])
	w.Write(body)
}

// startCache starts a testCache in front of origin.
func startCache(t *testing.T, origin string, mangle func(string, []byte) []byte) string {
	t.Helper()
	srv := httptest.NewServer(&testCache{origin: origin, mangle: mangle, m: map[string][]byte{}})
	t.Cleanup(srv.Close)
	return srv.URL
}

// edgeOptions are options for a brief edge run against origin.
func edgeOptions(origin string, eps ...Endpoint) Options {
	o := tinyOptions(eps...)
	o.Scenarios = []string{edgeName}
	o.Edge = EdgeOptions{Origin: origin, Sizes: []int64{1000, 64 << 10}, Objects: 10, Requests: 80, Conns: 4}
	// The request count bounds the runs; the time bound is only a guard.
	o.Duration = time.Minute
	return o
}

// edgeResult returns the result of scenario at endpoint.
func edgeResult(t *testing.T, rep *Report, scenario, endpoint string) EndpointResult {
	t.Helper()
	for _, sc := range rep.Scenarios {
		for _, r := range sc.Results {
			if sc.Name == scenario && r.Endpoint == endpoint {
				return r
			}
		}
	}
	t.Fatalf("no result of %s at %s", scenario, endpoint)
	return EndpointResult{}
}

func metricValue(t *testing.T, r EndpointResult, name string) float64 {
	t.Helper()
	m, ok := r.Metric(name)
	if !ok {
		t.Fatalf("%s: no metric %q in %v", r.Endpoint, name, r.Metrics)
	}
	return m.Value
}

// TestEdgeOpenLoad runs the edge scenario with one client, closed and
// then open with every request due at once: closed, the client has one
// request out at a time; open, a request's latency counts from its due
// time, so the requests that waited for the client have the wait in it,
// and more than one request is outstanding on average.
func TestEdgeOpenLoad(t *testing.T) {
	gw := startGateway(t, nil)
	for _, open := range []bool{false, true} {
		o := edgeOptions(gw.URL, Endpoint{Name: "origin", URL: gw.URL, Mode: ModeHTTP})
		o.Edge.Sizes, o.Edge.Conns = []int64{1000}, 1
		if open {
			o.Edge.Rate = 1e9
		}
		rep, err := Run(context.Background(), o, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := edgeResult(t, rep, "edge-1000", "origin")
		if r.Errors != 0 || r.Ops != 80 {
			t.Fatalf("open %v: %d ops, %d errors (first %q)", open, r.Ops, r.Errors, r.FirstError)
		}
		inFlight := metricValue(t, r, "requests in flight")
		if open && inFlight <= 1 || !open && (inFlight <= 0 || inFlight > 1) {
			t.Errorf("open %v: %v requests in flight", open, inFlight)
		}
	}
}

// TestEdgeScenario runs the edge scenario through a caching proxy and
// straight at the origin (mode=http both), with this process as the
// proxy's "server" for the CPU figures, and checks the figures and the
// origin's cleanup.
func TestEdgeScenario(t *testing.T) {
	gw := startGateway(t, nil)
	cache := startCache(t, gw.URL, nil)
	gwS3 := Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3}
	pid := strconv.Itoa(os.Getpid())
	o := edgeOptions(gw.URL,
		Endpoint{Name: "cache", URL: cache, Mode: ModeHTTP, PIDs: pid},
		Endpoint{Name: "origin", URL: gw.URL, Mode: ModeHTTP},
		gwS3)
	o.Edge.OriginPIDs = pid
	rep, err := Run(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cleanup) > 0 || rep.Interrupted {
		t.Fatalf("cleanup errors %v, interrupted %v", rep.Cleanup, rep.Interrupted)
	}
	if len(rep.Scenarios) != 2 || rep.Scenarios[0].Name != "edge-1000" || rep.Scenarios[1].Name != "edge-64k" {
		t.Fatalf("scenarios %+v, want edge-1000 and edge-64k", rep.Scenarios)
	}
	for _, sc := range []string{"edge-1000", "edge-64k"} {
		if r := edgeResult(t, rep, sc, "gw"); r.Skipped == "" {
			t.Errorf("%s ran on the S3 endpoint", sc)
		}
		for _, ep := range []string{"cache", "origin"} {
			r := edgeResult(t, rep, sc, ep)
			if r.Skipped != "" || r.Errors != 0 || r.Ops != 80 {
				t.Fatalf("%s at %s: skipped %q, %d ops, %d errors (first %q)", sc, ep, r.Skipped, r.Ops, r.Errors, r.FirstError)
			}
			for _, m := range []string{"requests/s", "bytes/s", "TTFB p50", "TTLB p99"} {
				if v := metricValue(t, r, m); v <= 0 {
					t.Errorf("%s at %s: %s = %v", sc, ep, m, v)
				}
			}
			if v := metricValue(t, r, "responses"); v != 80 {
				t.Errorf("%s at %s: %v responses, want 80", sc, ep, v)
			}
			p99, p999, most := metricValue(t, r, "TTLB p99"), metricValue(t, r, "TTLB p99.9"), metricValue(t, r, "TTLB max")
			if p999 < p99 || most < p999 {
				t.Errorf("%s at %s: TTLB p99 %v, p99.9 %v, max %v: not in order", sc, ep, p99, p999, most)
			}
			// Each of the 4 clients has one request out at most.
			if v := metricValue(t, r, "requests in flight"); v <= 0 || v > 4 {
				t.Errorf("%s at %s: %v requests in flight, want (0, 4]", sc, ep, v)
			}
		}
		c := edgeResult(t, rep, sc, "cache")
		// One miss per key asked for, and a few more where the test
		// cache, which does not coalesce fills, sees concurrent first
		// requests for one key.
		keys := map[int32]bool{}
		for _, k := range edgeSequence(int64(map[string]int{"edge-1000": 1000, "edge-64k": 64 << 10}[sc]), 10, 80, 10, 92) {
			keys[k] = true
		}
		most := 100 * float64(80-len(keys)) / 80
		if v := metricValue(t, c, "hit ratio"); v < most-10 || v > most {
			t.Errorf("%s: hit ratio %v%%, want %v%% or a little less", sc, v, most)
		}
		if v := metricValue(t, c, "keys missed"); v != 100 {
			t.Errorf("%s: keys missed %v%%, want 100 (a cold cache)", sc, v)
		}
		for _, m := range []string{"TTLB p99 of hits", "TTLB p50 of others", "TTLB p99 of others"} {
			if v, ok := c.Metric(m); !ok || v.Value <= 0 {
				t.Errorf("%s at cache: %s = %v (reported %v)", sc, m, v.Value, ok)
			}
		}
		for _, m := range []string{"server CPU", "server RSS max", "MB per CPU-s", "origin CPU"} {
			if _, ok := c.Metric(m); !ok {
				t.Errorf("%s at cache: no %q", sc, m)
			}
		}
		for _, m := range []string{"hit ratio", "TTLB p99 of hits", "TTLB p50 of others"} {
			if _, ok := edgeResult(t, rep, sc, "origin").Metric(m); ok {
				t.Errorf("%s: %s for the origin, which sends no X-Cache", sc, m)
			}
		}
	}
	if !bucketGone(t, gwS3, rep.EdgeBucket) {
		t.Errorf("origin bucket %s left behind", rep.EdgeBucket)
	}
	var tbl bytes.Buffer
	if err := WriteTable(&tbl, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"edge-64k", "hit ratio", "MB per CPU-s", "edge origin"} {
		if !strings.Contains(tbl.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tbl.String())
		}
	}
}

// TestEdgeWrongBodies checks that a cache serving wrong bytes, a short
// body or an error status is counted as failing, each way.
func TestEdgeWrongBodies(t *testing.T) {
	gw := startGateway(t, nil)
	// Object 1 of each class: a byte flipped past the first bytes, which
	// only the hash finds. Object 2: the body cut short. Object 3: a body
	// of another object (the first bytes differ). Object 4: a 404.
	mangle := func(path string, b []byte) []byte {
		switch {
		case strings.HasSuffix(path, "/000001"):
			b[len(b)-1] ^= 1
		case strings.HasSuffix(path, "/000002"):
			b = b[:len(b)-1]
		case strings.HasSuffix(path, "/000003"):
			b = edgeData(int64(len(b)), 0)
		}
		return b
	}
	mangler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/000004") {
			http.NotFound(w, r)
			return
		}
		resp, err := http.Get(gw.URL + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		w.Write(mangle(r.URL.Path, body))
	}))
	t.Cleanup(mangler.Close)
	o := edgeOptions(gw.URL, Endpoint{Name: "bad", URL: mangler.URL, Mode: ModeHTTP})
	o.Edge.Sizes = []int64{4096}
	o.Edge.HotKeys, o.Edge.HotShare = 100, 100 // every key alike
	o.Edge.Verify = 1
	rep, err := Run(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := edgeResult(t, rep, "edge-4k", "bad")
	asked := map[int32]int{}
	for _, k := range edgeSequence(4096, 10, 80, 100, 100) {
		asked[k]++
	}
	want := asked[1] + asked[2] + asked[3] + asked[4]
	if r.Errors != want || r.Ops != 80-want {
		t.Fatalf("%d errors and %d good responses, want %d and %d (first error %q)", r.Errors, r.Ops, want, 80-want, r.FirstError)
	}
	var tbl bytes.Buffer
	WriteTable(&tbl, rep)
	if !strings.Contains(tbl.String(), "errors") {
		t.Errorf("table lacks the errors row:\n%s", tbl.String())
	}
}

// TestEdgeKeepAndReuse runs the edge scenario twice on one --bucket with
// Keep, as the restart phase of bench/edge-compare.sh does: the second run
// writes nothing, and a cache that kept its copies misses no key.
func TestEdgeKeepAndReuse(t *testing.T) {
	var puts atomic.Int64
	gw := startGateway(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/edge/") {
				puts.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	cache := startCache(t, gw.URL, nil)
	o := edgeOptions(gw.URL, Endpoint{Name: "cache", URL: cache, Mode: ModeHTTP})
	o.Edge.Sizes = []int64{2048}
	o.Edge.Keep = true
	o.Bucket = "edge-keep"
	for pass := range 2 {
		rep, err := Run(context.Background(), o, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := edgeResult(t, rep, "edge-2k", "cache")
		if r.Errors != 0 {
			t.Fatalf("pass %d: %d errors, first %q", pass, r.Errors, r.FirstError)
		}
		if n := puts.Load(); n != 10 {
			t.Fatalf("after pass %d: %d PUTs, want 10 (written once)", pass, n)
		}
		wantMissed := []float64{100, 0}[pass]
		if v := metricValue(t, r, "keys missed"); v != wantMissed {
			t.Errorf("pass %d: keys missed %v%%, want %v%%", pass, v, wantMissed)
		}
	}
	if bucketGone(t, Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3}, "edge-keep") {
		t.Error("the kept bucket is gone")
	}
}

// TestEdgeRefusesForeignPolicy checks that a --bucket with a bucket
// policy of its own is left alone.
func TestEdgeRefusesForeignPolicy(t *testing.T) {
	gw := startGateway(t, nil)
	c, err := newClient(Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3},
		Credentials{AccessKey: testAccess, SecretKey: testSecret, Region: "us-east-1"}, true, "theirs", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	ctx := context.Background()
	foreign := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::theirs/pub/*"}]}`
	if err := c.createBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.drain(ctx, request{method: http.MethodPut, query: "policy=", body: []byte(foreign)}); err != nil {
		t.Fatal(err)
	}
	o := edgeOptions(gw.URL, Endpoint{Name: "origin", URL: gw.URL, Mode: ModeHTTP})
	o.Bucket = "theirs"
	if _, err := Run(ctx, o, nil); err == nil || !strings.Contains(err.Error(), "has a bucket policy") {
		t.Fatalf("Run on a bucket with a foreign policy: %v", err)
	}
	resp, err := c.do(ctx, request{method: http.MethodGet, query: "policy="})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(doc), edgePolicySid) {
		t.Errorf("the foreign policy was replaced: %s", doc)
	}
}

func TestEdgeSequence(t *testing.T) {
	a := edgeSequence(1<<20, 1000, 20000, 10, 92)
	b := edgeSequence(1<<20, 1000, 20000, 10, 92)
	if !slices.Equal(a, b) {
		t.Fatal("the sequence is not deterministic")
	}
	hot := 0
	seen := map[int32]bool{}
	for _, k := range a {
		if k < 0 || k >= 1000 {
			t.Fatalf("key %d out of range", k)
		}
		if k < 100 {
			hot++
		}
		seen[k] = true
	}
	if share := float64(hot) / float64(len(a)); share < 0.91 || share > 0.93 {
		t.Errorf("hot share %.3f, want about 0.92", share)
	}
	// 1,600 requests spread over 900 cold keys reach about 750 of them.
	if len(seen) < 800 {
		t.Errorf("%d distinct keys asked for, want about 850 of 1000", len(seen))
	}
	// One key: every request is for it.
	for _, k := range edgeSequence(100, 1, 50, 10, 92) {
		if k != 0 {
			t.Fatalf("key %d of a one-key class", k)
		}
	}
}

func TestEdgeData(t *testing.T) {
	a, b := edgeData(1000, 1), edgeData(1000, 2)
	if bytes.Equal(a[:edgeHeadLen], b[:edgeHeadLen]) || !bytes.Equal(a, edgeData(1000, 1)) {
		t.Error("edge objects must be deterministic and differ from their first bytes")
	}
	if c := edgeData(2000, 1); bytes.Equal(a[:edgeHeadLen], c[:edgeHeadLen]) {
		t.Error("objects of two classes with one index start alike")
	}
}

func TestSizeName(t *testing.T) {
	for n, want := range map[int64]string{100 << 10: "100k", 1 << 20: "1m", 50 << 20: "50m", 1000: "1000", 1536 << 10: "1536k"} {
		if got := sizeName(n); got != want {
			t.Errorf("sizeName(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestReadProcStat(t *testing.T) {
	st, err := readProcStat([]byte("4242 (nginx: worker) (x) S 4240 4240 4240 0 -1 4194624 300 0 0 0 125 37 4 2 20 0 1 0 100 0 0\n"))
	if err != nil || st.ppid != 4240 || st.cpu != 162 {
		t.Errorf("readProcStat = %+v, %v; want ppid 4240, cpu 162", st, err)
	}
	if _, err := readProcStat([]byte("12 (x")); err == nil {
		t.Error("a stat without ')' parsed")
	}
	if got := readVmRSS([]byte("Name:\tx\nVmRSS:\t  2048 kB\nVmSwap: 0 kB\n")); got != 2048<<10 {
		t.Errorf("readVmRSS = %d, want %d", got, 2048<<10)
	}
}

func TestReadMachineCPU(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	got, err := readMachineCPU([]byte("cpu  100 2 30 5000 70 4 6 900 50 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n"))
	if err != nil || got != 100+2+30+4+6 {
		t.Errorf("readMachineCPU = %d, %v; want 142 (user, nice, system, irq, softirq)", got, err)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7\n", "cpu 1 2 x 4 5 6 7\n", "cpu 1 2 3\n"} {
		if _, err := readMachineCPU([]byte(bad)); err == nil {
			t.Errorf("readMachineCPU(%q) parsed", bad)
		}
	}
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	a, err := machineCPU()
	if err != nil {
		t.Fatal(err)
	}
	c, err := selfCPU()
	if err != nil {
		t.Fatal(err)
	}
	// Burn some CPU: both clocks move forward, never back.
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
	}
	b, err := machineCPU()
	if err != nil || b < a {
		t.Errorf("machineCPU went from %v to %v (%v)", a, b, err)
	}
	if d, err := selfCPU(); err != nil || d < c {
		t.Errorf("selfCPU went from %v to %v (%v)", c, d, err)
	}
}

func TestReadSchedstat(t *testing.T) {
	if ns, err := readSchedstat([]byte("1234567890 5000 42\n")); err != nil || ns != 1234567890 {
		t.Errorf("readSchedstat = %d, %v; want 1234567890", ns, err)
	}
	for _, bad := range []string{"", "12 3\n", "x 1 2\n", "-5 1 2\n"} {
		if _, err := readSchedstat([]byte(bad)); err == nil {
			t.Errorf("readSchedstat(%q) parsed", bad)
		}
	}
}

// fakeProc is a made-up /proc for the sampler's tests.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) *fakeProc { return &fakeProc{t: t, root: t.TempDir()} }

func (p *fakeProc) write(rel, data string) {
	p.t.Helper()
	f := filepath.Join(p.root, rel)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// stat writes /proc/PID/stat with utime and stime in clock ticks.
func (p *fakeProc) stat(pid, ppid, utime, stime int) {
	p.write(fmt.Sprintf("%d/stat", pid), fmt.Sprintf("%d (srv) S %d 1 1 0 -1 0 0 0 0 0 %d %d 0 0 20 0 1 0 1 0 0\n", pid, ppid, utime, stime))
}

func (p *fakeProc) remove(rel string) {
	p.t.Helper()
	if err := os.RemoveAll(filepath.Join(p.root, rel)); err != nil {
		p.t.Fatal(err)
	}
}

func (p *fakeProc) sample(pids ...int) procSample {
	p.t.Helper()
	s, err := sampleProcs(p.root, pids)
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

const tick = int64(time.Second / clockTicks)

// TestSampleProcsThreads samples a made-up /proc: a server (pid 10) with
// two threads and a child (pid 11) whose kernel gives no schedstat.
// Threads count to the nanosecond, the child by its clock ticks; a
// thread that exits between two samples loses only its own time.
func TestSampleProcsThreads(t *testing.T) {
	p := newFakeProc(t)
	p.stat(10, 1, 7, 3)
	p.write("10/status", "VmRSS:\t1000 kB\n")
	p.write("10/task/10/schedstat", "1000000 0 1\n")
	p.write("10/task/12/schedstat", "2500000 0 1\n")
	p.stat(11, 10, 2, 1)
	p.write("11/status", "VmRSS:\t500 kB\n")
	before := p.sample(10)
	if before.rss != 1500<<10 {
		t.Errorf("rss %d, want %d", before.rss, 1500<<10)
	}
	if got := before.cpu[10]; got.ticks != 10*tick || !maps.Equal(got.threads, map[int]int64{10: 1000000, 12: 2500000}) {
		t.Errorf("process 10: %+v", got)
	}
	if got := before.cpu[11]; got.ticks != 3*tick || got.threads != nil {
		t.Errorf("process 11: %+v, want 3 ticks and no threads", got)
	}
	// Thread 12 exits, thread 13 starts, the leader runs 0.25 ms and the
	// child one tick.
	p.remove("10/task/12")
	p.write("10/task/10/schedstat", "1250000 0 2\n")
	p.write("10/task/13/schedstat", "400000 0 1\n")
	p.stat(11, 10, 3, 1)
	after := p.sample(10)
	if got, want := after.cpuSince(before), 250*time.Microsecond+400*time.Microsecond+time.Second/clockTicks; got != want {
		t.Errorf("cpuSince = %v, want %v", got, want)
	}
}

// TestSampleProcsFallBack checks that a process whose thread times are
// missing from one of two samples is counted by its ticks in both, and
// that a thread time that does not parse, or a kernel that prints zeros,
// makes the process count by its ticks rather than by the threads read
// before it.
func TestSampleProcsFallBack(t *testing.T) {
	p := newFakeProc(t)
	p.stat(10, 1, 300, 0)
	p.write("10/task/10/schedstat", "500000000 0 1\n")
	p.write("10/task/11/schedstat", "2500000000 0 1\n")
	before := p.sample(10)
	// The task directory cannot be read at the second sample; the
	// process used one tick.
	p.remove("10/task")
	p.stat(10, 1, 301, 0)
	if got := p.sample(10).cpuSince(before); got != time.Duration(tick) {
		t.Errorf("threads, then ticks: cpuSince = %v, want %v", got, time.Duration(tick))
	}
	// A schedstat that does not parse: the ticks, not the threads read
	// before it as well.
	p.write("10/task/10/schedstat", "500000000 0 1\n")
	p.write("10/task/11/schedstat", "garbage\n")
	if got := p.sample(10).cpu[10]; got.threads != nil || got.ticks != 301*tick {
		t.Errorf("with a bad schedstat: %+v, want 301 ticks and no threads", got)
	}
	// Zeros while the ticks grow: a kernel that keeps no schedstat.
	p.write("10/task/10/schedstat", "0 0 0\n")
	p.write("10/task/11/schedstat", "0 0 0\n")
	if got := p.sample(10).cpu[10]; got.threads != nil {
		t.Errorf("with zero schedstats: %+v, want no threads", got)
	}
}

func TestSampleProcs(t *testing.T) {
	s, err := sampleProcs("/proc", []int{os.Getpid()})
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if s.rss <= 0 || len(s.cpu) == 0 {
		t.Errorf("sample of this process: %+v", s)
	}
	if _, err := sampleProcs("/proc", []int{1 << 30}); err == nil {
		t.Error("a missing process was sampled")
	}
}
