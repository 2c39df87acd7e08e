package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// edgeName is the --scenarios name that selects the edge scenario, one
// scenario per size class (edge-100k, edge-1m …).
const edgeName = "edge"

// edgePrefix is the key prefix of the edge objects on the origin.
const edgePrefix = "edge/"

// edgeHeadLen is how many leading bytes of every response are compared
// with the object's: enough to tell any two objects apart, so a cache
// that serves the wrong object is caught on every request.
const edgeHeadLen = 64

// edgeSeed seeds the key sequence, so that every endpoint and every run
// with the same options sees the same requests in the same order.
const edgeSeed = 0x6564676520626e63

// EdgeOptions configure the edge scenario: objects of each size class are
// written once to an S3 origin, then fetched with anonymous GETs through
// every mode=http endpoint (caches in front of that origin). The zero value
// of a count means "the default".
type EdgeOptions struct {
	// Origin is the S3 endpoint the objects are written to, signed with
	// the run's credentials, into a bucket made public-read by a bucket
	// policy. The edge scenario runs only when it is set.
	Origin string
	// OriginPIDs, when set, are the origin's process ids (comma-separated):
	// the origin CPU each endpoint's requests cost is reported.
	OriginPIDs string
	// Sizes are the size classes, measured one after another. Default
	// 100 KiB, 500 KiB, 1 MiB, 10 MiB, 16 MiB, 50 MiB.
	Sizes []int64
	// Objects is the number of objects of each size class. Default by
	// size: 2 GiB/size within [20, 1000] (quick: 32 MiB/size within
	// [4, 50]).
	Objects int
	// Requests is the number of GETs of each size class per endpoint.
	// Default by size: 4 GiB/size within [200, 20000] (quick: 128 MiB/size
	// within [10, 500]).
	Requests int
	// Conns is the number of clients per endpoint, each on its own
	// keep-alive connection. Default 100.
	Conns int
	// HotKeys is the percentage of the keys that are hot, and HotShare the
	// percentage of the requests that go to them. Default 10 and 92.
	HotKeys, HotShare int
	// Verify makes one response in Verify (and the first response of each
	// key at each endpoint) have its whole body hashed and compared; every
	// response has its length and first bytes checked. Default 10.
	Verify int
	// Keep leaves the objects and the bucket on the origin at the end, so
	// that a later run given the same --bucket (after restarting the
	// caches, say) reads them without writing them again.
	Keep bool
	// Rate, when above zero, makes the load open: the class's requests
	// are due at Rate per second from the start of each round, a client
	// waits for a request's due time before sending it, and its latency
	// counts from that time, so a request that found every client busy
	// has the wait in its latency (no coordinated omission). Caches
	// compared at one Rate have their latency measured under the same
	// offered load; without it each client asks again as soon as its
	// answer ends, and a cache that holds some requests back has the
	// others measured under less concurrency. Zero: closed loop.
	Rate float64
}

// defaultEdgeSizes are the size classes of the published edge-node test.
var defaultEdgeSizes = []int64{100 << 10, 500 << 10, 1 << 20, 10 << 20, 16 << 20, 50 << 20}

func (e EdgeOptions) defaults() EdgeOptions {
	if len(e.Sizes) == 0 {
		e.Sizes = slices.Clone(defaultEdgeSizes)
	}
	if e.Conns <= 0 {
		e.Conns = 100
	}
	if e.HotKeys <= 0 {
		e.HotKeys = 10
	}
	if e.HotShare <= 0 {
		e.HotShare = 92
	}
	if e.Verify <= 0 {
		e.Verify = 10
	}
	return e
}

// parse checks the edge flags against the rest of the command line.
func (e *EdgeOptions) parse(originPIDs, sizes string, scenarios []string, eps []Endpoint) error {
	if originPIDs != "" {
		if _, err := parsePIDs(originPIDs); err != nil {
			return fmt.Errorf("--edge-origin-pid: %w", err)
		}
		e.OriginPIDs = originPIDs
	}
	if sizes != "" {
		s, err := parseSizes(sizes)
		if err != nil {
			return err
		}
		e.Sizes = s
	}
	if e.HotKeys > 100 || e.HotShare > 100 {
		return errors.New("--edge-hot-keys and --edge-hot-share are percentages (1..100)")
	}
	if e.Origin == "" {
		if slices.Contains(scenarios, edgeName) {
			return errors.New("--scenarios edge: give the origin with --edge-origin URL")
		}
		if i := slices.IndexFunc(eps, func(ep Endpoint) bool { return ep.Mode == ModeHTTP }); i >= 0 {
			return fmt.Errorf("--compare: %q is mode=http, which only the edge scenario measures: give --edge-origin URL", eps[i].Name)
		}
		return nil
	}
	if u, err := url.Parse(e.Origin); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--edge-origin: %q is not an http(s) URL", e.Origin)
	}
	return nil
}

// edgeObjects is the number of objects of a size class.
func (o *Options) edgeObjects(size int64) int {
	if o.Edge.Objects > 0 {
		return o.Edge.Objects
	}
	if o.Quick {
		return clampDiv(32<<20, size, 4, 50)
	}
	return clampDiv(2<<30, size, 20, 1000)
}

// edgeRequests is the number of GETs of a size class per endpoint.
func (o *Options) edgeRequests(size int64) int {
	if o.Edge.Requests > 0 {
		return o.Edge.Requests
	}
	if o.Quick {
		return clampDiv(128<<20, size, 10, 500)
	}
	return clampDiv(4<<30, size, 200, 20000)
}

func clampDiv(budget, size int64, lo, hi int) int {
	return int(max(int64(lo), min(int64(hi), budget/size)))
}

// sizeName names a size class: 100k, 16m, or a byte count.
func sizeName(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "m"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// edgeKey is the key of object i of a size class.
func edgeKey(size int64, i int) string {
	return fmt.Sprintf("%s%s/%06d", edgePrefix, sizeName(size), i)
}

// edgeData is the content of object i of a size class: a ChaCha8 stream
// seeded by both, so every object differs from every other from its first
// byte.
func edgeData(size int64, i int) []byte {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[0:], uint64(size))
	binary.LittleEndian.PutUint64(seed[8:], uint64(i))
	copy(seed[16:], "objectgateway-ed")
	b := make([]byte, size)
	rand.NewChaCha8(seed).Read(b)
	return b
}

// edgeSequence returns the key index of each of n requests over keys
// objects: hotShare percent of them uniformly over the first hotKeys
// percent of the keys (at least one key), the rest uniformly over the
// others. It depends only on its arguments.
func edgeSequence(size int64, keys, n, hotKeys, hotShare int) []int32 {
	hot := max(1, keys*hotKeys/100)
	rng := rand.New(rand.NewPCG(edgeSeed, uint64(size)))
	seq := make([]int32, n)
	for j := range seq {
		if hot >= keys || rng.IntN(100) < hotShare {
			seq[j] = int32(rng.IntN(hot))
		} else {
			seq[j] = int32(hot + rng.IntN(keys-hot))
		}
	}
	return seq
}

// edgeOrigin is the origin of a run's edge scenarios: a bucket on an S3
// endpoint that anonymous GETs of edge/* may read.
type edgeOrigin struct {
	c       *client
	created bool
	keep    bool
	pids    []int
}

// edgePolicySid marks the bucket policy the edge scenario puts.
const edgePolicySid = "ObjectGatewayEdgeBenchPublicRead"

// publicReadPolicy is a bucket policy letting anyone GET the edge objects.
func publicReadPolicy(bucket string) string {
	return `{"Version":"2012-10-17","Statement":[{"Sid":"` + edgePolicySid + `","Effect":"Allow","Principal":"*",` +
		`"Action":"s3:GetObject","Resource":"arn:aws:s3:::` + bucket + `/` + edgePrefix + `*"}]}`
}

// openEdgeOrigin creates (or, when o.Bucket is given, reuses) the origin
// bucket and makes edge/* public-read.
func openEdgeOrigin(ctx context.Context, o *Options, bucket string) (*edgeOrigin, error) {
	ep := Endpoint{Name: "edge-origin", URL: o.Edge.Origin, Mode: ModeS3}
	c, err := newClient(ep, o.Credentials, o.PathStyle, bucket, o.Concurrency)
	if err != nil {
		return nil, err
	}
	eo := &edgeOrigin{c: c, keep: o.Edge.Keep}
	eo.pids, _ = parsePIDs(o.Edge.OriginPIDs)
	if o.Edge.OriginPIDs == "" {
		eo.pids = nil
	}
	fail := func(err error) (*edgeOrigin, error) {
		c.close()
		return nil, fmt.Errorf("bench: edge origin %s: %w", o.Edge.Origin, err)
	}
	ok, err := c.bucketExists(ctx)
	if err != nil {
		return fail(err)
	}
	switch {
	case ok && o.Bucket == "":
		return fail(fmt.Errorf("random bucket %s already exists", bucket))
	case !ok:
		if err := c.createBucket(ctx); err != nil {
			return fail(err)
		}
		eo.created = true
	default:
		// A bucket given with --bucket keeps a policy of its own: the
		// scenario would replace it.
		resp, err := c.do(ctx, request{method: http.MethodGet, query: "policy="})
		if err == nil {
			doc, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if !bytes.Contains(doc, []byte(edgePolicySid)) {
				return fail(fmt.Errorf("bucket %s has a bucket policy, which the edge scenario would replace: give another --bucket", bucket))
			}
		} else if !isNotFound(err) {
			return fail(fmt.Errorf("GetBucketPolicy: %w", err))
		}
	}
	if _, err := c.drain(ctx, request{method: http.MethodPut, query: "policy=", body: []byte(publicReadPolicy(bucket)),
		header: http.Header{"Content-Type": {"application/json"}}}); err != nil {
		eo.cleanup(ctx)
		return fail(fmt.Errorf("PutBucketPolicy: %w", err))
	}
	return eo, nil
}

// cleanup removes the edge objects, and the bucket if the run created it,
// unless they are to be kept.
func (eo *edgeOrigin) cleanup(ctx context.Context) error {
	defer eo.c.close()
	if eo.keep {
		return nil
	}
	keys, err := eo.c.listAll(ctx, edgePrefix)
	if err == nil {
		err = eo.c.deleteKeys(ctx, keys)
	}
	if err == nil && eo.created {
		err = eo.c.deleteBucket(ctx)
	}
	return err
}

// edgeClass is one size class of a run: its objects, written once to the
// origin and shared by every endpoint, and its request sequence.
type edgeClass struct {
	size  int64
	keys  []string
	heads [][]byte
	sums  [][sha256.Size]byte
	seq   []int32

	once sync.Once
	err  error
}

// write computes the objects' checksums and writes to the origin those it
// does not hold yet (same key and size), then checks that the origin
// answers an anonymous GET.
func (cl *edgeClass) write(ctx context.Context, eo *edgeOrigin, o *Options) error {
	n := o.edgeObjects(cl.size)
	cl.keys = make([]string, n)
	cl.heads = make([][]byte, n)
	cl.sums = make([][sha256.Size]byte, n)
	writers := clampDiv(256<<20, cl.size, 1, 16)
	err := parallel(ctx, writers, n, func(ctx context.Context, i int) error {
		data := edgeData(cl.size, i)
		cl.keys[i] = edgeKey(cl.size, i)
		cl.heads[i] = data[:min(edgeHeadLen, len(data))]
		cl.sums[i] = sha256.Sum256(data)
		resp, err := eo.c.do(ctx, request{method: http.MethodHead, key: cl.keys[i]})
		if err == nil {
			resp.Body.Close()
			if resp.ContentLength == cl.size {
				return nil
			}
		} else if !isNotFound(err) {
			return err
		}
		// A lifetime of an hour keeps every cache's copy fresh for the
		// whole run, whatever its own default, so the figures compare
		// serving, not revalidation policies.
		_, err = eo.c.drain(ctx, request{method: http.MethodPut, key: cl.keys[i], body: data, header: http.Header{
			"Content-Type": {"application/octet-stream"}, "Cache-Control": {"public, max-age=3600"}}})
		return err
	})
	if err != nil {
		return fmt.Errorf("writing %d objects of %d bytes to the origin: %w", n, cl.size, err)
	}
	anon := *eo.c
	anon.ep.Mode = ModeHTTP
	resp, err := anon.do(ctx, request{method: http.MethodHead, key: cl.keys[0]})
	if err != nil {
		return fmt.Errorf("the origin refuses an anonymous HEAD of a public-read object (no bucket policy support?): %w", err)
	}
	resp.Body.Close()
	cl.seq = edgeSequence(cl.size, n, o.edgeRequests(cl.size), o.Edge.HotKeys, o.Edge.HotShare)
	return nil
}

// edgeScenario measures anonymous GETs of one size class through every
// mode=http endpoint.
func edgeScenario(o *Options, size int64) *scenario {
	cl := &edgeClass{size: size}
	return &scenario{
		name: edgeName + "-" + sizeName(size),
		desc: fmt.Sprintf("anonymous GETs of %d-byte objects written to the origin: %d objects, %d requests per endpoint from %d clients, %d%% of them on %d%% of the keys",
			size, o.edgeObjects(size), o.edgeRequests(size), o.Edge.Conns, o.Edge.HotShare, o.Edge.HotKeys),
		edge: true, rounds: roundsOf,
		setup: func(ctx context.Context, r *run) error {
			t := r.target
			cl.once.Do(func() { cl.err = cl.write(ctx, t.data.edge, t.opts) })
			if cl.err != nil {
				return cl.err
			}
			pids, _ := parsePIDs(t.c.ep.PIDs)
			if t.c.ep.PIDs == "" {
				pids = nil
			}
			st := &edgeRun{cl: cl, pids: pids, originPIDs: t.data.edge.pids, seen: make([]atomic.Bool, len(cl.keys)),
				answered: make([]atomic.Bool, len(cl.keys)), missed: make([]atomic.Bool, len(cl.keys))}
			st.urls = make([]string, len(cl.keys))
			for i, k := range cl.keys {
				st.urls[i] = t.c.url(k, "").String()
			}
			r.state = st
			return nil
		},
		round:   edgeRound,
		metrics: edgeMetrics,
	}
}

// edgeRun is one size class at one endpoint.
type edgeRun struct {
	cl         *edgeClass
	urls       []string
	pids       []int
	originPIDs []int
	// seen marks the keys this endpoint has been asked for; answered
	// the keys it has answered with an X-Cache header, and missed those
	// it has answered at least once with one that is not a hit.
	seen, answered, missed []atomic.Bool

	bytes, xcache, hits  atomic.Int64
	procFailed, oProcErr atomic.Bool
	cpuFailed            atomic.Bool // a client or machine CPU sample failed
}

func edgeRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	st := r.state.(*edgeRun)
	o := r.target.opts
	from, to := share(len(st.cl.seq), n, i)
	end := time.Now().Add(o.Duration / time.Duration(n))
	if deadline.Before(end) {
		end = deadline
	}
	procBefore, procErr := st.sample(st.pids)
	originBefore, originErr := st.sample(st.originPIDs)
	clientBefore, clientErr := selfCPU()
	machineBefore, machineErr := machineCPU()
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(o.Edge.Conns, to-from) {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			for {
				q := int(next.Add(1)) - 1 // the request's place in the round
				j := from + q
				if j >= to || ctx.Err() != nil || time.Now().After(end) {
					return
				}
				var due time.Time
				if o.Edge.Rate > 0 {
					due = start.Add(time.Duration(float64(q) / o.Edge.Rate * float64(time.Second)))
					if !sleepCtx(ctx, time.Until(due)) {
						return
					}
				}
				st.fetch(ctx, r, j, buf, due)
			}
		})
	}
	wg.Wait()
	r.rec.add("elapsed", float64(time.Since(start)))
	// The client's and the whole machine's CPU time over the same
	// window: the kernel does part of a server's work (the delivery of
	// loopback packets, writeback of dirty pages) in whichever context
	// is running, the client's, a kernel thread's or the server's, so the
	// machine's total is the measure that does not depend on where it
	// lands.
	//
	// Without /proc (not Linux) neither is measured. Otherwise a failed
	// sample fails the run, as the servers' do: a round left out of the
	// CPU but not of the bytes would inflate MB per CPU-s.
	clientAfter, err := selfCPU()
	if err = errors.Join(clientErr, err); err == nil {
		r.rec.add("client cpu", (clientAfter - clientBefore).Seconds())
	} else if !errors.Is(err, fs.ErrNotExist) && !st.cpuFailed.Swap(true) {
		r.rec.fail(fmt.Errorf("client CPU: %w", err))
	}
	machineAfter, err := machineCPU()
	if err = errors.Join(machineErr, err); err == nil {
		r.rec.add("machine cpu", (machineAfter - machineBefore).Seconds())
	} else if !errors.Is(err, fs.ErrNotExist) && !st.cpuFailed.Swap(true) {
		r.rec.fail(fmt.Errorf("machine CPU: %w", err))
	}
	if st.pids != nil {
		after, err := st.sample(st.pids)
		if err = errors.Join(procErr, err); err != nil {
			if !st.procFailed.Swap(true) {
				r.rec.fail(fmt.Errorf("server processes: %w", err))
			}
		} else {
			r.rec.add("cpu", after.cpuSince(procBefore).Seconds())
			r.rec.point("rss", float64(after.rss))
		}
	}
	if st.originPIDs != nil {
		after, err := st.sample(st.originPIDs)
		if err = errors.Join(originErr, err); err != nil {
			if !st.oProcErr.Swap(true) {
				r.rec.fail(fmt.Errorf("origin processes: %w", err))
			}
		} else {
			r.rec.add("origin cpu", after.cpuSince(originBefore).Seconds())
		}
	}
	return nil
}

func (st *edgeRun) sample(pids []int) (procSample, error) {
	if pids == nil {
		return procSample{}, nil
	}
	return sampleProcs("/proc", pids)
}

// fetch GETs request j of the class's sequence and records it; its
// latency counts from due when that is earlier than now (an open load's
// request sent late), else from now.
func (st *edgeRun) fetch(ctx context.Context, r *run, j int, buf []byte, due time.Time) {
	k := int(st.cl.seq[j])
	first := !st.seen[k].Swap(true)
	var h hash.Hash
	if first || j%r.target.opts.Edge.Verify == 0 {
		h = sha256.New()
	}
	fail := func(err error) {
		if ctx.Err() == nil {
			r.rec.fail(fmt.Errorf("GET %s: %w", st.urls[k], err))
		}
	}
	t0 := time.Now()
	if !due.IsZero() && due.Before(t0) {
		t0 = due
	}
	var ttfb time.Duration
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { ttfb = time.Since(t0) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, st.urls[k], nil)
	if err != nil {
		fail(err)
		return
	}
	resp, err := r.target.c.hc.Do(req)
	if err != nil {
		fail(err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		fail(fmt.Errorf("HTTP %d %s", resp.StatusCode, firstN(strings.TrimSpace(string(msg)), 120)))
		return
	}
	got, headOK, err := readEdgeBody(resp.Body, buf, st.cl.heads[k], h)
	ttlb := time.Since(t0)
	switch {
	case err != nil:
		fail(fmt.Errorf("after %d of %d bytes: %w", got, st.cl.size, err))
		return
	case got != st.cl.size:
		fail(fmt.Errorf("short body: %d bytes, want %d", got, st.cl.size))
		return
	case !headOK:
		fail(errors.New("wrong bytes: the body does not start with the object's first bytes"))
		return
	case h != nil && !bytes.Equal(h.Sum(nil), st.cl.sums[k][:]):
		fail(errors.New("wrong bytes: the SHA-256 of the body is not the object's"))
		return
	}
	r.rec.ok("TTLB", ttlb)
	r.rec.sample("TTFB", ttfb)
	st.bytes.Add(got)
	xc := resp.Header.Get("X-Cache")
	if xc == "" {
		xc = resp.Header.Get("X-Cache-Status")
	}
	if xc == "" {
		return
	}
	st.xcache.Add(1)
	st.answered[k].Store(true)
	if strings.Contains(strings.ToUpper(xc), "HIT") {
		st.hits.Add(1)
		r.rec.sample("TTLB hit", ttlb)
	} else {
		st.missed[k].Store(true)
		r.rec.sample("TTLB miss", ttlb)
	}
}

// readEdgeBody reads body to its end through buf, comparing its first
// bytes with head and writing it to h when h is not nil. It returns the
// length read and whether the first bytes matched.
func readEdgeBody(body io.Reader, buf, head []byte, h hash.Hash) (int64, bool, error) {
	var n int64
	headOK := true
	for {
		m, err := body.Read(buf)
		if m > 0 {
			if n < int64(len(head)) {
				end := min(int64(len(head)), n+int64(m))
				if !bytes.Equal(buf[:end-n], head[n:end]) {
					headOK = false
				}
			}
			if h != nil {
				h.Write(buf[:m])
			}
			n += int64(m)
		}
		if err == io.EOF {
			return n, headOK && n >= int64(len(head)), nil
		}
		if err != nil {
			return n, headOK, err
		}
	}
}

func edgeMetrics(r *run, lat map[string]Summary) []Metric {
	st := r.state.(*edgeRun)
	el := time.Duration(r.rec.totals["elapsed"])
	ok := float64(lat["TTLB"].Count)
	bytes := st.bytes.Load()
	rps := 0.0
	if el > 0 {
		rps = ok / el.Seconds()
	}
	m := []Metric{
		{"requests/s", "ops/s", rps},
		{"bytes/s", "MB/s", MBps(bytes, el)},
		{"TTFB p50", "ns", float64(lat["TTFB"].P50)},
		{"TTFB p99", "ns", float64(lat["TTFB"].P99)},
		{"TTLB p50", "ns", float64(lat["TTLB"].P50)},
		{"TTLB p99", "ns", float64(lat["TTLB"].P99)},
		{"TTLB p99.9", "ns", float64(lat["TTLB"].P999)},
		{"TTLB max", "ns", float64(lat["TTLB"].Max)},
	}
	if el > 0 {
		// Little's law: the mean number of requests outstanding over the
		// class's time. Under the closed load (no Rate) the clients ask
		// again as soon as an answer ends, so it is Conns unless some
		// sit idle at a round's end behind a slow answer; a cache holding
		// a few requests back (nginx's proxy_cache_lock waiters sleep
		// 500 ms between checks) has the others' latency measured under
		// less concurrency. Under an open load it grows when the cache
		// falls behind the rate.
		s := lat["TTLB"]
		m = append(m, Metric{"requests in flight", "requests", float64(s.Mean) * float64(s.Count) / float64(el)})
	}
	if xc := st.xcache.Load(); xc > 0 {
		// The tail of a class with misses is mostly its misses': the
		// latency of hits and of the rest (misses, revalidations) apart
		// says which side a difference is on.
		if s := lat["TTLB hit"]; s.Count > 0 {
			m = append(m, Metric{"TTLB p99 of hits", "ns", float64(s.P99)})
		}
		if s := lat["TTLB miss"]; s.Count > 0 {
			m = append(m, Metric{"TTLB p50 of others", "ns", float64(s.P50)},
				Metric{"TTLB p99 of others", "ns", float64(s.P99)})
		}
		m = append(m, Metric{"hit ratio", "%", 100 * float64(st.hits.Load()) / float64(xc)})
		// Whether a key was ever missed does not depend on the order in
		// which concurrent requests for it reach the cache, unlike
		// whether its first request was a hit: a cache that kept its
		// copies across a restart misses none of its keys.
		answered, missed := 0, 0
		for i := range st.answered {
			if st.answered[i].Load() {
				answered++
				if st.missed[i].Load() {
					missed++
				}
			}
		}
		m = append(m, Metric{"keys missed", "%", 100 * float64(missed) / float64(answered)})
	}
	perCPU := func(cpu float64) float64 {
		if cpu <= 0 {
			return 0
		}
		return float64(bytes) / 1e6 / cpu
	}
	cpu, hasCPU := r.rec.totals["cpu"]
	if hasCPU {
		m = append(m,
			Metric{"server CPU", "s", cpu},
			Metric{"server RSS max", "MiB", maxOf(r.rec.series["rss"]) / (1 << 20)},
			Metric{"MB per CPU-s", "MB/CPU-s", perCPU(cpu)})
	}
	if oc, ok := r.rec.totals["origin cpu"]; ok {
		m = append(m, Metric{"origin CPU", "s", oc})
		if hasCPU {
			m = append(m, Metric{"MB per CPU-s with origin", "MB/CPU-s", perCPU(cpu + oc)})
		}
	}
	if cc, ok := r.rec.totals["client cpu"]; ok {
		m = append(m, Metric{"client CPU", "s", cc})
	}
	if mc, ok := r.rec.totals["machine cpu"]; ok {
		m = append(m, Metric{"machine CPU", "s", mc},
			Metric{"MB per machine CPU-s", "MB/CPU-s", perCPU(mc)})
	}
	return append(m, Metric{"responses", "count", ok})
}

func maxOf(s []float64) float64 {
	if len(s) == 0 {
		return 0
	}
	return slices.Max(s)
}

// sleepCtx waits for d (not at all when d <= 0); false when ctx ends
// first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
