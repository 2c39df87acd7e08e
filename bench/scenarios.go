package bench

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"
)

// scenario is one named measurement.
type scenario struct {
	name, desc string
	// s3Only scenarios need S3 listings and are skipped on static
	// endpoints.
	s3Only bool
	// edge scenarios measure mode=http endpoints, and only they do.
	edge bool
	// rounds is how many rounds the work is split into.
	rounds func(o *Options) int
	// setup prepares one endpoint before the first round (not measured).
	setup func(ctx context.Context, r *run) error
	// round does round number i of n against one endpoint, recording into
	// r.rec, and stops at deadline.
	round func(ctx context.Context, r *run, i, n int, deadline time.Time) error
	// metrics turns what was recorded into the scenario's figures.
	metrics func(r *run, lat map[string]Summary) []Metric
}

const (
	smallSize = 1 << 10
	rangeSize = 1 << 20
	// listPageKeys is the page size of list-page.
	listPageKeys = 1000
)

// scenarios returns every scenario in the order they run.
func scenarios() []*scenario {
	return []*scenario{
		smallScenario("small-get", "GET", "1 KiB GET, sequential on one reused connection"),
		smallScenario("small-head", "HEAD", "1 KiB HEAD, sequential on one reused connection"),
		smallScenario("small-put", "PUT", "1 KiB PUT, sequential on one reused connection"),
		{
			name: "read-10k", desc: "the small-object set read one after another (10,000 objects by default)",
			rounds: roundsOf, setup: populate, round: read10kRound, metrics: read10kMetrics,
		},
		{
			name: "list-page", desc: "ListObjectsV2 of a 1,000-key page in a bucket holding --objects keys", s3Only: true,
			rounds: func(o *Options) int { return min(o.Rounds, o.ListCount) },
			setup:  populate, round: listPageRound, metrics: listPageMetrics,
		},
		{
			name: "list-full", desc: "full listing (pages of 1,000) of the --objects keys", s3Only: true,
			rounds: fewRounds, setup: populate, round: listFullRound, metrics: listFullMetrics,
		},
		{
			name: "put-large", desc: "large PUT (100 MiB by default), one stream and --streams at once; MD5 of the same bytes in memory as the ceiling",
			rounds: fewRounds, round: putLargeRound, metrics: putLargeMetrics,
		},
		{
			name: "get-large", desc: "large GET, one stream and --streams at once",
			rounds: fewRounds, setup: ensureLarge, round: getLargeRound, metrics: getLargeMetrics,
		},
		{
			name: "get-range", desc: "1 MiB ranged GETs at random offsets of the large object, sequential",
			rounds: roundsOf, setup: ensureLarge, round: getRangeRound, metrics: getRangeMetrics,
		},
		{
			name: "burst-put", desc: "--concurrency 1 KiB uploads started at the same instant",
			rounds: fewRounds, setup: warmConnections, round: burstRound, metrics: burstMetrics,
		},
		{
			name: "mixed", desc: "--concurrency clients for --duration: 55% GET, 15% HEAD, 20% PUT, 5% LIST, 5% DELETE of 1 KiB objects",
			rounds: roundsOf, setup: mixedSetup, round: mixedRound, metrics: mixedMetrics,
		},
	}
}

// ScenarioNames lists the scenarios in the order they run.
func ScenarioNames() []string {
	var names []string
	for _, s := range scenarios() {
		names = append(names, s.name)
	}
	return names
}

// selectScenarios returns the scenarios o.Scenarios names, in the order
// they run: all of ScenarioNames when it is empty, then the edge scenario
// (one per size class) when it is named, or when it is empty and an edge
// origin is given.
func selectScenarios(o *Options) ([]*scenario, error) {
	names := o.Scenarios
	var out []*scenario
	for _, s := range scenarios() {
		if len(names) == 0 || slices.Contains(names, s.name) {
			out = append(out, s)
		}
	}
	known := len(out)
	if (len(names) == 0 && o.Edge.Origin != "") || slices.Contains(names, edgeName) {
		if o.Edge.Origin == "" {
			return nil, errors.New("bench: the edge scenario needs an origin (--edge-origin)")
		}
		for _, size := range o.Edge.Sizes {
			out = append(out, edgeScenario(o, size))
		}
		known++
	}
	if len(names) > 0 && known != len(dedup(names)) {
		return nil, fmt.Errorf("bench: unknown scenario in %v (known: %v and %s)", names, ScenarioNames(), edgeName)
	}
	return out, nil
}

func dedup(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func roundsOf(o *Options) int  { return o.Rounds }
func fewRounds(o *Options) int { return min(3, o.Rounds) }

// singleStreamRepeats is how many one-stream transfers put-large and
// get-large make per round: the MB/s of one 100 MiB transfer moves by a
// factor of two from one to the next on a shared machine, so the figure
// is the median of several.
func singleStreamRepeats(o *Options) int {
	if o.Quick {
		return 1
	}
	return 3
}

// share is round i's part of n items split over rounds.
func share(n, rounds, i int) (from, to int) {
	return n * i / rounds, n * (i + 1) / rounds
}

func latencyMetrics(kind string, s Summary) []Metric {
	return []Metric{
		{kind + " p50", "ns", float64(s.P50)},
		{kind + " p90", "ns", float64(s.P90)},
		{kind + " p99", "ns", float64(s.P99)},
		{kind + " max", "ns", float64(s.Max)},
	}
}

// payload returns n bytes of random data (the same for every call with
// the same n within a process would be fine too, but a fresh buffer keeps
// targets independent).
func payload(n int64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{1})
	r.Read(b)
	return b
}

// smallScenario measures one kind of sequential 1 KiB request.
func smallScenario(name, kind, desc string) *scenario {
	type state struct{ body []byte }
	return &scenario{
		name: name, desc: desc, rounds: roundsOf,
		setup: func(ctx context.Context, r *run) error {
			st := &state{body: payload(smallSize)}
			r.state = st
			return r.target.c.put(ctx, "small/obj", st.body)
		},
		round: func(ctx context.Context, r *run, i, n int, deadline time.Time) error {
			st := r.state.(*state)
			c := r.target.c
			from, to := share(r.target.opts.Count, n, i)
			for j := from; j < to && time.Now().Before(deadline); j++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				t0 := time.Now()
				var err error
				switch kind {
				case "GET":
					var got int64
					got, err = c.get(ctx, "small/obj", "")
					if err == nil && got != smallSize {
						err = fmt.Errorf("GET small/obj: %d bytes, want %d", got, smallSize)
					}
				case "HEAD":
					err = c.head(ctx, "small/obj")
				case "PUT":
					err = c.put(ctx, "small/put-"+strconv.Itoa(j%8), st.body)
				}
				d := time.Since(t0)
				if err != nil {
					r.rec.fail(err)
					continue
				}
				r.rec.ok(kind, d)
			}
			return nil
		},
		metrics: func(r *run, lat map[string]Summary) []Metric {
			return latencyMetrics(kind, lat[kind])
		},
	}
}

// manyKey is the i-th key of the shared small-object set.
func manyKey(i int) string { return fmt.Sprintf("many/%07d", i) }

// populate writes the shared set of --objects 1 KiB objects, once per
// target, with --concurrency writers.
func populate(ctx context.Context, r *run) error {
	t := r.target
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.populated != nil {
		return nil
	}
	keys := make([]string, t.opts.Objects)
	for i := range keys {
		keys[i] = manyKey(i)
	}
	body := payload(smallSize)
	if err := parallel(ctx, t.opts.Concurrency, len(keys), func(ctx context.Context, i int) error {
		return t.c.put(ctx, keys[i], body)
	}); err != nil {
		return fmt.Errorf("writing %d objects: %w", len(keys), err)
	}
	t.populated = keys
	return nil
}

// parallel calls f(i) for i in [0, n) from up to workers goroutines and
// returns the first error; it stops handing out work after an error.
func parallel(ctx context.Context, workers, n int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				if err := f(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

func read10kRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	keys := r.target.populated
	from, to := share(len(keys), n, i)
	c := r.target.c
	start := time.Now()
	read := 0
	for _, k := range keys[from:to] {
		if err := ctx.Err(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			break
		}
		t0 := time.Now()
		got, err := c.get(ctx, k, "")
		if err == nil && got != smallSize {
			err = fmt.Errorf("GET %s: %d bytes, want %d", k, got, smallSize)
		}
		if err != nil {
			r.rec.fail(err)
			continue
		}
		r.rec.ok("GET", time.Since(t0))
		read++
	}
	r.rec.add("elapsed", float64(time.Since(start)))
	r.rec.add("read", float64(read))
	return nil
}

func read10kMetrics(r *run, lat map[string]Summary) []Metric {
	read := r.rec.totals["read"]
	total := r.rec.totals["elapsed"]
	per := 0.0
	if read > 0 {
		per = total / read
	}
	return []Metric{
		{"objects read", "count", read},
		{"total time", "ns", total},
		{"per object", "ns", per},
		{"GET p99", "ns", float64(lat["GET"].P99)},
	}
}

func listPageRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	keys := r.target.populated
	from, to := share(r.target.opts.ListCount, n, i)
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	for j := from; j < to && time.Now().Before(deadline); j++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Start after a random key so that the page is full and lies
		// anywhere in the bucket.
		after := ""
		if span := len(keys) - listPageKeys; span > 0 {
			after = keys[rng.IntN(span)]
		}
		p, d, err := r.target.c.timedList(ctx, "many/", after, "", listPageKeys)
		if err == nil && len(p.Keys) != min(listPageKeys, len(keys)) {
			err = fmt.Errorf("LIST after %q: %d keys, want %d", after, len(p.Keys), min(listPageKeys, len(keys)))
		}
		if err != nil {
			r.rec.fail(err)
			continue
		}
		r.rec.ok("LIST", d)
	}
	return nil
}

func listPageMetrics(r *run, lat map[string]Summary) []Metric {
	s := lat["LIST"]
	return []Metric{
		{"LIST p50", "ns", float64(s.P50)},
		{"LIST p99", "ns", float64(s.P99)},
		{"keys in bucket", "count", float64(len(r.target.populated))},
	}
}

func listFullRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	t0 := time.Now()
	keys, err := r.target.c.listAll(ctx, "many/")
	d := time.Since(t0)
	if err == nil && len(keys) != len(r.target.populated) {
		err = fmt.Errorf("full listing: %d keys, want %d", len(keys), len(r.target.populated))
	}
	if err != nil {
		return err
	}
	r.rec.ok("LIST full", d)
	r.rec.point("keys", float64(len(keys)))
	return nil
}

func listFullMetrics(r *run, lat map[string]Summary) []Metric {
	return []Metric{
		{"full listing p50", "ns", float64(lat["LIST full"].P50)},
		{"keys listed", "count", r.rec.median("keys")},
	}
}

// sharedData holds the large payload, made once per run and shared by
// every target.
type sharedData struct {
	once  sync.Once
	large []byte
	// edge is the origin of the edge scenarios (nil when none runs).
	edge *edgeOrigin
}

// largeData is the large payload of a run.
func largeData(t *target) []byte {
	t.data.once.Do(func() { t.data.large = payload(t.opts.LargeSize) })
	return t.data.large
}

// ensureLarge writes the large object that get-large and get-range read.
func ensureLarge(ctx context.Context, r *run) error {
	t := r.target
	data := largeData(t)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.largeKey != "" {
		return nil
	}
	if err := t.c.put(ctx, "large/obj", data); err != nil {
		return err
	}
	t.largeKey = "large/obj"
	return nil
}

// streams runs f for s = 0..n-1 at once and returns the wall time and the
// first error.
func streams(n int, f func(s int) error) (time.Duration, error) {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for s := range n {
		wg.Go(func() { errs[s] = f(s) })
	}
	wg.Wait()
	d := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return d, err
		}
	}
	return d, nil
}

func putLargeRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	t := r.target
	data := largeData(t)
	size := int64(len(data))
	// The ceiling: MD5 of the same bytes in memory, measured in the same
	// round so that it sees the same machine state.
	t0 := time.Now()
	md5.Sum(data)
	r.rec.point("md5", MBps(size, time.Since(t0)))

	for j := range singleStreamRepeats(t.opts) {
		if j > 0 && time.Now().After(deadline) {
			return nil
		}
		t0 = time.Now()
		if err := t.c.put(ctx, "large/put-1", data); err != nil {
			return err
		}
		d := time.Since(t0)
		r.rec.ok("PUT 1 stream", d)
		r.rec.point("one", MBps(size, d))
	}
	if time.Now().After(deadline) {
		return nil
	}
	ns := t.opts.Streams
	d, err := streams(ns, func(s int) error {
		return t.c.put(ctx, "large/put-s"+strconv.Itoa(s), data)
	})
	if err != nil {
		return err
	}
	r.rec.ok(fmt.Sprintf("PUT %d streams", ns), d)
	r.rec.point("multi", MBps(size*int64(ns), d))
	return nil
}

func putLargeMetrics(r *run, lat map[string]Summary) []Metric {
	one, md := r.rec.median("one"), r.rec.median("md5")
	ratio, _ := Ratio(one, md)
	return []Metric{
		{"PUT 1 stream", "MB/s", one},
		{fmt.Sprintf("PUT %d streams", r.target.opts.Streams), "MB/s", r.rec.median("multi")},
		{"MD5 in memory", "MB/s", md},
		{"PUT 1 stream / MD5", "x", ratio},
	}
}

func getLargeRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	t := r.target
	size := t.opts.LargeSize
	get := func() error {
		got, err := t.c.get(ctx, t.largeKey, "")
		if err == nil && got != size {
			err = fmt.Errorf("GET %s: %d bytes, want %d", t.largeKey, got, size)
		}
		return err
	}
	for j := range singleStreamRepeats(t.opts) {
		if j > 0 && time.Now().After(deadline) {
			return nil
		}
		t0 := time.Now()
		if err := get(); err != nil {
			return err
		}
		d := time.Since(t0)
		r.rec.ok("GET 1 stream", d)
		r.rec.point("one", MBps(size, d))
	}
	if time.Now().After(deadline) {
		return nil
	}
	ns := t.opts.Streams
	d, err := streams(ns, func(int) error { return get() })
	if err != nil {
		return err
	}
	r.rec.ok(fmt.Sprintf("GET %d streams", ns), d)
	r.rec.point("multi", MBps(size*int64(ns), d))
	return nil
}

func getLargeMetrics(r *run, lat map[string]Summary) []Metric {
	return []Metric{
		{"GET 1 stream", "MB/s", r.rec.median("one")},
		{fmt.Sprintf("GET %d streams", r.target.opts.Streams), "MB/s", r.rec.median("multi")},
	}
}

func getRangeRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	t := r.target
	size := t.opts.LargeSize
	length := min(int64(rangeSize), size)
	rng := rand.New(rand.NewPCG(uint64(i), 11))
	from, to := share(t.opts.Count, n, i)
	start := time.Now()
	var bytes int64
	for j := from; j < to && time.Now().Before(deadline); j++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		off := rng.Int64N(size - length + 1)
		t0 := time.Now()
		got, err := t.c.get(ctx, t.largeKey, fmt.Sprintf("bytes=%d-%d", off, off+length-1))
		d := time.Since(t0)
		if err == nil && got != length {
			err = fmt.Errorf("GET %s range at %d: %d bytes, want %d", t.largeKey, off, got, length)
		}
		if err != nil {
			r.rec.fail(err)
			continue
		}
		r.rec.ok("GET range", d)
		bytes += got
	}
	r.rec.add("bytes", float64(bytes))
	r.rec.add("elapsed", float64(time.Since(start)))
	return nil
}

func getRangeMetrics(r *run, lat map[string]Summary) []Metric {
	s := lat["GET range"]
	return []Metric{
		{"GET 1 MiB range p50", "ns", float64(s.P50)},
		{"GET 1 MiB range p99", "ns", float64(s.P99)},
		{"range throughput", "MB/s", MBps(int64(r.rec.totals["bytes"]), time.Duration(r.rec.totals["elapsed"]))},
	}
}

// warmConnections opens --concurrency connections so that a burst
// measures the uploads, not TCP handshakes.
func warmConnections(ctx context.Context, r *run) error {
	c := r.target.c
	_, err := streams(r.target.opts.Concurrency, func(int) error {
		_, err := c.bucketExists(ctx)
		return err
	})
	return err
}

func burstRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	t := r.target
	body := payload(smallSize)
	go1 := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var last time.Time
	ok := 0
	for s := range t.opts.Concurrency {
		wg.Go(func() {
			<-go1
			t0 := time.Now()
			err := t.c.put(ctx, fmt.Sprintf("burst/%d-%d", i, s), body)
			end := time.Now()
			if err != nil {
				r.rec.fail(err)
				return
			}
			r.rec.ok("PUT", end.Sub(t0))
			mu.Lock()
			ok++
			if end.After(last) {
				last = end
			}
			mu.Unlock()
		})
	}
	start := time.Now()
	close(go1)
	wg.Wait()
	r.rec.point("ok", float64(ok))
	if ok > 0 {
		r.rec.ok("time to last", last.Sub(start))
	}
	return nil
}

func burstMetrics(r *run, lat map[string]Summary) []Metric {
	allOK := 0.0
	for _, v := range r.rec.series["ok"] {
		if int(v) == r.target.opts.Concurrency {
			allOK++
		}
	}
	s := lat["time to last"]
	return []Metric{
		{"bursts all ok", "count", allOK},
		{"bursts", "count", float64(len(r.rec.series["ok"]))},
		{"time to last p50", "ns", float64(s.P50)},
		{"time to last max", "ns", float64(s.Max)},
		{"PUT p50", "ns", float64(lat["PUT"].P50)},
	}
}

// mixedKeys is the size of mixed's key space.
func mixedKeys(o *Options) int { return max(100, min(1000, o.Objects/10)) }

func mixedKey(i int) string { return fmt.Sprintf("mixed/%05d", i) }

func mixedSetup(ctx context.Context, r *run) error {
	t := r.target
	body := payload(smallSize)
	r.state = body
	return parallel(ctx, t.opts.Concurrency, mixedKeys(t.opts), func(ctx context.Context, i int) error {
		return t.c.put(ctx, mixedKey(i), body)
	})
}

// mixedKinds are mixed's request kinds with their weights (percent).
var mixedKinds = []struct {
	kind   string
	weight int
}{{"GET", 55}, {"HEAD", 15}, {"PUT", 20}, {"LIST", 5}, {"DELETE", 5}}

func pickKind(x int) string {
	for _, k := range mixedKinds {
		if x < k.weight {
			return k.kind
		}
		x -= k.weight
	}
	return mixedKinds[0].kind
}

func mixedRound(ctx context.Context, r *run, i, n int, deadline time.Time) error {
	t := r.target
	body := r.state.([]byte)
	keys := mixedKeys(t.opts)
	end := time.Now().Add(t.opts.Duration / time.Duration(n))
	if deadline.Before(end) {
		end = deadline
	}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range t.opts.Concurrency {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), uint64(w)))
			for time.Now().Before(end) && ctx.Err() == nil {
				kind := pickKind(rng.IntN(100))
				key := mixedKey(rng.IntN(keys))
				t0 := time.Now()
				var err error
				switch kind {
				case "GET":
					_, err = t.c.get(ctx, key, "")
				case "HEAD":
					err = t.c.head(ctx, key)
				case "PUT":
					err = t.c.put(ctx, key, body)
				case "DELETE":
					err = t.c.delete(ctx, key)
				}
				d := time.Since(t0)
				if kind == "LIST" {
					_, d, err = t.c.timedList(ctx, "mixed/", "", "", 100)
				}
				// A 404 is a right answer here: another client deleted
				// the key.
				if err != nil && !isNotFound(err) {
					if ctx.Err() == nil {
						r.rec.fail(err)
					}
					continue
				}
				r.rec.ok(kind, d)
			}
		})
	}
	wg.Wait()
	r.rec.add("elapsed", float64(time.Since(start)))
	return nil
}

func mixedMetrics(r *run, lat map[string]Summary) []Metric {
	el := time.Duration(r.rec.totals["elapsed"])
	ops := 0.0
	if el > 0 {
		ops = float64(r.rec.ops) / el.Seconds()
	}
	m := []Metric{{"ops/s", "ops/s", ops}}
	for _, k := range mixedKinds {
		s := lat[k.kind]
		m = append(m, Metric{k.kind + " p50", "ns", float64(s.P50)}, Metric{k.kind + " p99", "ns", float64(s.P99)})
	}
	return m
}
