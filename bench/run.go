package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Report is the result of a run.
type Report struct {
	Started   time.Time         `json:"started"`
	Elapsed   time.Duration     `json:"elapsed_ns"`
	Machine   Machine           `json:"machine"`
	Quick     bool              `json:"quick"`
	Endpoints []Endpoint        `json:"endpoints"`
	Baseline  string            `json:"baseline"`
	Buckets   map[string]string `json:"buckets"`
	// Cleanup holds, per endpoint, an error met removing what the run
	// wrote; absent when cleanup succeeded.
	Cleanup   map[string]string `json:"cleanup_errors,omitempty"`
	Scenarios []ScenarioResult  `json:"scenarios"`
	// EdgeOrigin and EdgeBucket are where the edge scenario's objects
	// were written, when it ran.
	EdgeOrigin string `json:"edge_origin,omitempty"`
	EdgeBucket string `json:"edge_bucket,omitempty"`
	// Interrupted is set when the run's context ended before every
	// scenario was done.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Machine describes where a run happened.
type Machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model"`
	Kernel    string `json:"kernel"`
	GoVersion string `json:"go"`
	OSArch    string `json:"os_arch"`
}

// ScenarioResult is one scenario measured against every endpoint.
type ScenarioResult struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Results     []EndpointResult `json:"results"`
}

// EndpointResult is one scenario against one endpoint.
type EndpointResult struct {
	Endpoint string `json:"endpoint"`
	// Skipped says why the scenario did not run here ("" when it ran).
	Skipped    string             `json:"skipped,omitempty"`
	Ops        int                `json:"ops"`
	Errors     int                `json:"errors"`
	FirstError string             `json:"first_error,omitempty"`
	Metrics    []Metric           `json:"metrics"`
	Latency    map[string]Summary `json:"latency,omitempty"`

	// samples are the raw latencies per request kind, for the HTML
	// charts.
	samples map[string][]time.Duration
}

// Metric is one figure of a scenario.
type Metric struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"` // "ns", "MB/s", "ops/s", "count", "x", "%", "s", "MiB", "MB/CPU-s"
	Value float64 `json:"value"`
}

// Metric returns the named metric of r.
func (r EndpointResult) Metric(name string) (Metric, bool) {
	i := slices.IndexFunc(r.Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return r.Metrics[i], true
}

// Run measures every selected scenario against every endpoint, removes
// what it wrote, and returns the report. It returns an error only when
// nothing could be measured (bad options, no endpoint reachable); a
// cancelled ctx ends the run early with a partial, Interrupted report.
func Run(ctx context.Context, o Options, progress io.Writer) (*Report, error) {
	o = o.Defaults()
	if len(o.Endpoints) == 0 {
		return nil, errors.New("bench: no endpoints")
	}
	scens, err := selectScenarios(&o)
	if err != nil {
		return nil, err
	}
	edge := slices.ContainsFunc(scens, func(s *scenario) bool { return s.edge })
	rep := &Report{
		Started: time.Now(), Machine: ReadMachine(), Quick: o.Quick,
		Endpoints: o.Endpoints, Baseline: o.Baseline, Buckets: map[string]string{},
	}
	pr := newProgress(progress)
	defer pr.done()

	eps := make([]*target, len(o.Endpoints))
	data := &sharedData{}
	conns := o.Concurrency + o.Streams
	if edge {
		bucket := o.Bucket
		if bucket == "" {
			bucket = randomBucket()
		}
		if data.edge, err = openEdgeOrigin(ctx, &o, bucket); err != nil {
			return nil, err
		}
		rep.EdgeOrigin, rep.EdgeBucket = o.Edge.Origin, bucket
		conns = max(conns, o.Edge.Conns)
	}
	for i, ep := range o.Endpoints {
		bucket := o.Bucket
		switch {
		case ep.Mode == ModeHTTP && data.edge != nil:
			// A cache in front of the origin serves the origin's bucket.
			bucket = data.edge.c.bucket
		case bucket == "":
			bucket = randomBucket()
		}
		c, err := newClient(ep, o.Credentials, o.PathStyle, bucket, conns)
		if err != nil {
			if data.edge != nil {
				data.edge.cleanup(ctx)
			}
			return nil, err
		}
		eps[i] = &target{c: c, opts: &o, data: data}
		rep.Buckets[ep.Name] = bucket
	}
	// Cleanup runs even when ctx is cancelled (SIGINT): it gets its own
	// bounded context.
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
		defer cancel()
		for _, t := range eps {
			pr.set("cleanup", t.c.ep.Name, "")
			if err := t.cleanup(cctx); err != nil {
				if rep.Cleanup == nil {
					rep.Cleanup = map[string]string{}
				}
				rep.Cleanup[t.c.ep.Name] = err.Error()
			}
			t.c.close()
		}
		if data.edge != nil {
			pr.set("cleanup", "edge-origin", "")
			if err := data.edge.cleanup(cctx); err != nil {
				if rep.Cleanup == nil {
					rep.Cleanup = map[string]string{}
				}
				rep.Cleanup["edge-origin"] = err.Error()
			}
		}
	}()
	for _, t := range eps {
		if err := t.prepare(ctx); err != nil {
			t.broken = err
		}
	}
	if !slices.ContainsFunc(eps, func(t *target) bool { return t.broken == nil }) {
		return nil, fmt.Errorf("bench: no endpoint usable: %w", eps[0].broken)
	}

	for _, sc := range scens {
		if ctx.Err() != nil {
			break
		}
		res := ScenarioResult{Name: sc.name, Description: sc.desc}
		runs := make([]*run, len(eps))
		for i, t := range eps {
			runs[i] = &run{target: t, scen: sc, rec: newRecorder()}
			switch {
			case t.broken != nil:
				runs[i].skipped = "endpoint unusable: " + t.broken.Error()
			case sc.edge && t.c.ep.Mode != ModeHTTP:
				runs[i].skipped = "the edge scenario measures mode=http endpoints only"
			case !sc.edge && t.c.ep.Mode == ModeHTTP:
				runs[i].skipped = "a mode=http endpoint is measured by the edge scenario only"
			case sc.s3Only && t.c.ep.Mode != ModeS3:
				runs[i].skipped = "not applicable to a static endpoint"
			}
		}
		for _, r := range runs {
			if r.skipped != "" || ctx.Err() != nil {
				continue
			}
			pr.set(sc.name, r.target.c.ep.Name, "setup")
			if sc.setup != nil {
				if err := sc.setup(ctx, r); err != nil {
					r.skipped = "setup failed: " + err.Error()
				}
			}
		}
		rounds := sc.rounds(&o)
		for round := range rounds {
			for _, i := range Interleave(len(runs), round) {
				r := runs[i]
				if r.skipped != "" || ctx.Err() != nil {
					continue
				}
				pr.set(sc.name, r.target.c.ep.Name, fmt.Sprintf("round %d/%d", round+1, rounds))
				deadline := time.Now().Add(o.Timeout / time.Duration(rounds))
				if err := sc.round(ctx, r, round, rounds, deadline); err != nil && ctx.Err() == nil {
					r.rec.fail(err)
				}
			}
		}
		for _, r := range runs {
			er := EndpointResult{Endpoint: r.target.c.ep.Name, Skipped: r.skipped}
			if r.skipped == "" {
				er.Ops, er.Errors, er.FirstError = r.rec.ops, r.rec.errors, r.rec.firstErr
				er.samples = r.rec.samples
				er.Latency = map[string]Summary{}
				for kind, s := range r.rec.samples {
					er.Latency[kind] = Summarize(s)
				}
				er.Metrics = sc.metrics(r, er.Latency)
			}
			res.Results = append(res.Results, er)
		}
		rep.Scenarios = append(rep.Scenarios, res)
	}
	rep.Interrupted = ctx.Err() != nil
	rep.Elapsed = time.Since(rep.Started)
	return rep, nil
}

// target is one endpoint during a run, with what the run has written to
// it so far.
type target struct {
	c       *client
	opts    *Options
	broken  error
	created bool
	data    *sharedData

	mu        sync.Mutex
	populated []string // keys of the shared small-object set
	largeKey  string   // the large object, once written
}

func randomBucket() string {
	var b [6]byte
	rand.Read(b[:])
	return "ogbench-" + hex.EncodeToString(b[:])
}

// prepare creates the bucket unless it exists. A mode=http endpoint has
// none of its own: it serves the edge origin's.
func (t *target) prepare(ctx context.Context) error {
	if t.c.ep.Mode == ModeHTTP {
		return nil
	}
	ok, err := t.c.bucketExists(ctx)
	if err != nil {
		return err
	}
	if ok {
		if t.opts.Bucket == "" {
			return fmt.Errorf("random bucket %s already exists", t.c.bucket)
		}
		return nil
	}
	if err := t.c.createBucket(ctx); err != nil {
		return err
	}
	t.created = true
	return nil
}

// benchPrefixes are the key prefixes the scenarios write under.
var benchPrefixes = []string{"small/", "many/", "large/", "burst/", "mixed/"}

// cleanup removes what the run wrote, and the bucket if the run created
// it.
func (t *target) cleanup(ctx context.Context) error {
	if t.c.ep.Mode == ModeHTTP || t.broken != nil && !t.created {
		return nil
	}
	if t.c.ep.Mode == ModeStatic && t.created {
		return t.c.deleteBucket(ctx)
	}
	var prefixes []string
	if t.c.ep.Mode == ModeS3 {
		prefixes = []string{""}
		if !t.created {
			prefixes = benchPrefixes
		}
	} else {
		prefixes = benchPrefixes
	}
	var errs []error
	for _, p := range prefixes {
		keys, err := t.c.listAll(ctx, p)
		if err == nil {
			err = t.c.deleteKeys(ctx, keys)
		}
		if err != nil && !isNotFound(err) {
			errs = append(errs, err)
		}
	}
	if t.created && len(errs) == 0 {
		errs = append(errs, t.c.deleteBucket(ctx))
	}
	return errors.Join(errs...)
}

// run is one scenario against one target.
type run struct {
	target  *target
	scen    *scenario
	rec     *recorder
	skipped string
	// state is the scenario's own per-endpoint data between rounds.
	state any
}

// recorder collects the outcome of a scenario's requests. It is safe for
// concurrent use.
type recorder struct {
	mu       sync.Mutex
	ops      int
	errors   int
	firstErr string
	samples  map[string][]time.Duration
	// totals are scenario-specific sums (bytes, elapsed time) by name.
	totals map[string]float64
	// series are scenario-specific per-round figures by name.
	series map[string][]float64
}

func newRecorder() *recorder {
	return &recorder{samples: map[string][]time.Duration{}, totals: map[string]float64{}, series: map[string][]float64{}}
}

// ok records one successful request of kind that took d.
func (r *recorder) ok(kind string, d time.Duration) {
	r.mu.Lock()
	r.ops++
	r.samples[kind] = append(r.samples[kind], d)
	r.mu.Unlock()
}

// sample records the latency d of a request of kind without counting it as
// another request: a second figure of a request already recorded with ok
// (its time to first byte, say).
func (r *recorder) sample(kind string, d time.Duration) {
	r.mu.Lock()
	r.samples[kind] = append(r.samples[kind], d)
	r.mu.Unlock()
}

// fail records one failed request.
func (r *recorder) fail(err error) {
	r.mu.Lock()
	r.errors++
	if r.firstErr == "" {
		r.firstErr = err.Error()
	}
	r.mu.Unlock()
}

// add adds v to the total called name.
func (r *recorder) add(name string, v float64) {
	r.mu.Lock()
	r.totals[name] += v
	r.mu.Unlock()
}

// point appends v to the per-round series called name.
func (r *recorder) point(name string, v float64) {
	r.mu.Lock()
	r.series[name] = append(r.series[name], v)
	r.mu.Unlock()
}

// median returns the median of the series called name (0 when empty).
func (r *recorder) median(name string) float64 {
	s := slices.Clone(r.series[name])
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ReadMachine describes this machine.
func ReadMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), OSArch: runtime.GOOS + "/" + runtime.GOARCH}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// progress draws one status line on a terminal, rewritten in place.
type progress struct {
	w     io.Writer
	start time.Time
	drawn bool
}

func newProgress(w io.Writer) *progress { return &progress{w: w, start: time.Now()} }

func (p *progress) set(scenario, endpoint, step string) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K[%5.1fs] %-11s %-12s %s", time.Since(p.start).Seconds(), scenario, endpoint, step)
	p.drawn = true
}

func (p *progress) done() {
	if p.w != nil && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// IsTerminal reports whether f is a character device (a terminal), so the
// progress line is shown only where it can be redrawn.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
