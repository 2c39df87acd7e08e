package bench

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options configure a run. The zero value of a count or size means "the
// default"; Defaults fills them in, smaller when Quick is set.
type Options struct {
	// Endpoints are measured in this order; the first that is the
	// Baseline (by default the first) is the one ratios are relative to.
	Endpoints []Endpoint
	// Baseline names the endpoint every ratio column divides by.
	Baseline string
	// Credentials sign requests to S3 endpoints.
	Credentials Credentials
	// PathStyle addresses buckets as /bucket/key; false uses
	// virtual-hosted style (bucket.host/key).
	PathStyle bool
	// Bucket, when set, is used instead of a new randomly named bucket. It
	// is created if missing (and then removed at the end) and emptied of
	// what the run wrote.
	Bucket string
	// Scenarios selects scenarios by name; empty means all.
	Scenarios []string
	// Quick uses small counts for every scenario that was not given one.
	Quick bool

	// Count is the number of sequential requests of each latency scenario
	// (small-get, small-head, small-put, get-range). Default 2000 (quick 50).
	Count int
	// Objects is the number of 1 KiB objects read by read-10k and held by
	// the bucket of list-page and list-full. Default 10000 (quick 1200).
	Objects int
	// ListCount is the number of list-page requests. Default 200 (quick 10).
	ListCount int
	// LargeSize is the size of the large object. Default 100 MiB (quick 8 MiB).
	LargeSize int64
	// Streams is the number of parallel streams of get-large and
	// put-large's multi-stream figure. Default 4 (quick 2).
	Streams int
	// Concurrency is the number of clients of burst-put and mixed.
	// Default 32.
	Concurrency int
	// Duration is how long mixed runs against each endpoint. Default 10s
	// (quick 1s).
	Duration time.Duration
	// Rounds is how many rounds a scenario's work is split into for
	// interleaving. Default 10 (quick 2); large transfers, full listings
	// and bursts use at most 3.
	Rounds int
	// Timeout bounds each scenario's time per endpoint. Default 2m
	// (quick 15s).
	Timeout time.Duration

	// Edge configures the edge scenario; it runs only when Edge.Origin
	// is set.
	Edge EdgeOptions

	// JSON and HTML are output files ("-" is stdout for JSON).
	JSON, HTML string
	// Progress forces the progress line on stderr; by default it is shown
	// only when stderr is a terminal.
	Progress bool
}

// Defaults returns o with every zero count and size set.
func (o Options) Defaults() Options {
	pick := func(full, quick int) int {
		if o.Quick {
			return quick
		}
		return full
	}
	set := func(v *int, full, quick int) {
		if *v <= 0 {
			*v = pick(full, quick)
		}
	}
	set(&o.Count, 2000, 50)
	set(&o.Objects, 10000, 1200)
	set(&o.ListCount, 200, 10)
	set(&o.Streams, 4, 2)
	set(&o.Concurrency, 32, 32)
	set(&o.Rounds, 10, 2)
	if o.LargeSize <= 0 {
		o.LargeSize = int64(pick(100<<20, 8<<20))
	}
	if o.Duration <= 0 {
		o.Duration = time.Duration(pick(10, 1)) * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Duration(pick(120, 15)) * time.Second
	}
	o.Edge = o.Edge.defaults()
	if o.Credentials.Region == "" {
		o.Credentials.Region = "us-east-1"
	}
	if o.Baseline == "" && len(o.Endpoints) > 0 {
		o.Baseline = o.Endpoints[0].Name
	}
	return o
}

// ParseCompare parses the --compare list: NAME=URL entries separated by
// commas, each optionally followed by ";mode=static", ";mode=http" (or
// ";mode=s3", the default) and ";pid=PID[,PID…]", the server's process
// ids for the edge scenario's CPU and memory figures. A list element
// made only of digits continues the pid list of the entry before it.
func ParseCompare(s string) ([]Endpoint, error) {
	var items []string
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if n := len(items); n > 0 && isDigits(item) && strings.Contains(items[n-1], ";pid=") {
			items[n-1] += "," + item
			continue
		}
		items = append(items, item)
	}
	var eps []Endpoint
	for _, item := range items {
		name, rest, ok := strings.Cut(item, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--compare: %q is not NAME=URL", item)
		}
		ep := Endpoint{Name: name, Mode: ModeS3}
		parts := strings.Split(rest, ";")
		ep.URL = parts[0]
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(p, "=")
			switch {
			case k == "mode" && (v == string(ModeS3) || v == string(ModeStatic) || v == string(ModeHTTP)):
				ep.Mode = Mode(v)
			case k == "pid":
				if _, err := parsePIDs(v); err != nil {
					return nil, fmt.Errorf("--compare: %q: %w", name, err)
				}
				ep.PIDs = v
			default:
				return nil, fmt.Errorf("--compare: %q: unknown option %q (want mode=s3, mode=static, mode=http or pid=N)", name, p)
			}
		}
		if u, err := url.Parse(ep.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--compare: %q: %q is not an http(s) URL", name, ep.URL)
		}
		if slices.ContainsFunc(eps, func(e Endpoint) bool { return e.Name == name }) {
			return nil, fmt.Errorf("--compare: endpoint name %q given twice", name)
		}
		eps = append(eps, ep)
	}
	if len(eps) == 0 {
		return nil, errors.New("--compare: no endpoints")
	}
	return eps, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// parsePIDs parses a comma-separated list of positive process ids.
func parsePIDs(s string) ([]int, error) {
	var pids []int
	for _, f := range strings.Split(s, ",") {
		pid, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("pid=%s: %q is not a process id", s, f)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// parseSizes parses --edge-sizes: sizes such as 100k, 1m, 50m (KiB and
// MiB) or plain byte counts, comma-separated.
func parseSizes(s string) ([]int64, error) {
	var sizes []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		mult := int64(1)
		switch {
		case strings.HasSuffix(f, "k"):
			mult, f = 1<<10, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "m"):
			mult, f = 1<<20, strings.TrimSuffix(f, "m")
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n <= 0 || n > (1<<40)/mult {
			return nil, fmt.Errorf("--edge-sizes: %q is not a size (like 100k, 16m or 4096)", f)
		}
		sizes = append(sizes, n*mult)
	}
	if len(sizes) == 0 {
		return nil, errors.New("--edge-sizes: no sizes")
	}
	return sizes, nil
}

// Command is what the bench subcommand was asked to do: run a benchmark,
// or serve the static-file server.
type Command struct {
	Options Options
	// ServeStatic, when set, is the directory to serve instead of
	// benchmarking, on Listen.
	ServeStatic  string
	Listen       string
	StaticNoSync bool
	StaticSink   string
	StaticRaw    bool
}

// ParseArgs parses the bench subcommand's flags. Credentials come from
// the flags, else AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, else
// OBJECTGATEWAY_ACCESS_KEY/OBJECTGATEWAY_SECRET_KEY.
func ParseArgs(args []string, getenv func(string) string, stderr io.Writer) (Command, error) {
	var c Command
	o := &c.Options
	fs := flag.NewFlagSet("objectgateway bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("endpoint", "", "S3 endpoint URL to measure (same as --compare target=URL)")
	compare := fs.String("compare", "", "endpoints to measure in one run: NAME=URL[;mode=static|http][;pid=PID,...],...")
	fs.StringVar(&o.Baseline, "baseline", "", "endpoint the ratio columns divide by (default: the first)")
	fs.StringVar(&o.Credentials.AccessKey, "access-key", "", "access key id (default $AWS_ACCESS_KEY_ID, then $OBJECTGATEWAY_ACCESS_KEY)")
	fs.StringVar(&o.Credentials.SecretKey, "secret-key", "", "secret key (default $AWS_SECRET_ACCESS_KEY, then $OBJECTGATEWAY_SECRET_KEY)")
	fs.StringVar(&o.Credentials.Region, "region", "us-east-1", "region requests are signed for")
	fs.BoolVar(&o.PathStyle, "path-style", true, "path-style addressing; false: virtual-hosted (bucket.host)")
	fs.StringVar(&o.Bucket, "bucket", "", "bucket to use (default: a new random one, removed at the end)")
	scen := fs.String("scenarios", "", "comma-separated scenarios to run (default all, and edge when --edge-origin is set): "+strings.Join(append(ScenarioNames(), edgeName), ","))
	fs.BoolVar(&o.Quick, "quick", false, "small counts for every scenario (well under a minute)")
	fs.IntVar(&o.Count, "count", 0, "sequential requests per latency scenario (default 2000, quick 50)")
	fs.IntVar(&o.Objects, "objects", 0, "objects for read-10k and the listing bucket (default 10000, quick 1200)")
	fs.IntVar(&o.ListCount, "list-count", 0, "list-page requests (default 200, quick 10)")
	large := fs.Int64("large-mib", 0, "size of the large object in MiB (default 100, quick 8)")
	fs.IntVar(&o.Streams, "streams", 0, "parallel streams for the multi-stream large transfers (default 4, quick 2)")
	fs.IntVar(&o.Concurrency, "concurrency", 0, "clients of burst-put and mixed (default 32)")
	fs.DurationVar(&o.Duration, "duration", 0, "duration of mixed, and time bound of each edge size class, per endpoint (default 10s, quick 1s)")
	fs.IntVar(&o.Rounds, "rounds", 0, "rounds each scenario is split into for interleaving (default 10, quick 2)")
	fs.DurationVar(&o.Timeout, "timeout", 0, "time bound of each scenario per endpoint (default 2m, quick 15s)")
	e := &o.Edge
	fs.StringVar(&e.Origin, "edge-origin", "", "edge: S3 endpoint the edge objects are written to (signed, into a bucket whose policy lets everyone read them)")
	originPIDs := fs.String("edge-origin-pid", "", "edge: the origin's process ids, for the origin CPU each endpoint costs")
	sizes := fs.String("edge-sizes", "", "edge: size classes (default 100k,500k,1m,10m,16m,50m; k = KiB, m = MiB)")
	fs.IntVar(&e.Objects, "edge-objects", 0, "edge: objects per size class (default by size: 2 GiB/size within 20..1000; quick 32 MiB/size within 4..50)")
	fs.IntVar(&e.Requests, "edge-requests", 0, "edge: GETs per size class and endpoint (default by size: 4 GiB/size within 200..20000; quick 128 MiB/size within 10..500)")
	fs.IntVar(&e.Conns, "edge-conns", 0, "edge: keep-alive connections (clients) per endpoint (default 100)")
	fs.IntVar(&e.HotKeys, "edge-hot-keys", 0, "edge: percent of the keys that are hot (default 10)")
	fs.IntVar(&e.HotShare, "edge-hot-share", 0, "edge: percent of the requests that go to the hot keys (default 92)")
	fs.IntVar(&e.Verify, "edge-verify", 0, "edge: hash the whole body of one response in N, and of each key's first response (default 10; 1: every response)")
	fs.BoolVar(&e.Keep, "edge-keep", false, "edge: leave the objects and the bucket on the origin, for a later pass with --bucket")
	fs.Float64Var(&e.Rate, "edge-rate", 0, "edge: open load: requests due at this many per second per endpoint, latency counted from each one's due time (default 0: each client asks again when its answer ends)")
	fs.StringVar(&o.JSON, "json", "", "write the results as JSON to this file (- for stdout)")
	fs.StringVar(&o.HTML, "html", "", "write a self-contained HTML report to this file")
	fs.BoolVar(&o.Progress, "progress", false, "show the progress line even when stderr is not a terminal")
	fs.StringVar(&c.ServeStatic, "serve-static", "", "serve this directory as the static-file baseline instead of benchmarking")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:9100", "address of --serve-static")
	fs.BoolVar(&c.StaticNoSync, "static-nosync", false, "--serve-static: do not fsync PUTs")
	fs.BoolVar(&c.StaticRaw, "static-raw", false, "--serve-static: serve GET and HEAD only, on raw connections outside net/http (the least a Go server spends on a GET of a file)")
	fs.StringVar(&c.StaticSink, "static-sink", "", "--serve-static: PUTs store nothing; their bodies are dropped (discard) or hashed with MD5 (md5): the network and hash ceilings of put-large")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.StaticSink != "" && c.StaticSink != SinkDiscard && c.StaticSink != SinkMD5 {
		return c, fmt.Errorf("--static-sink %q: want %s or %s", c.StaticSink, SinkDiscard, SinkMD5)
	}
	if c.ServeStatic != "" {
		return c, nil
	}
	o.LargeSize = *large << 20
	switch {
	case *endpoint != "" && *compare != "":
		return c, errors.New("give --endpoint or --compare, not both")
	case *endpoint != "":
		eps, err := ParseCompare("target=" + *endpoint)
		if err != nil {
			return c, errors.New(strings.Replace(err.Error(), "--compare", "--endpoint", 1))
		}
		o.Endpoints = eps
	case *compare != "":
		eps, err := ParseCompare(*compare)
		if err != nil {
			return c, err
		}
		o.Endpoints = eps
	default:
		return c, errors.New("no endpoint: give --endpoint URL or --compare NAME=URL,...")
	}
	if o.Baseline != "" && !slices.ContainsFunc(o.Endpoints, func(e Endpoint) bool { return e.Name == o.Baseline }) {
		return c, fmt.Errorf("--baseline %q is not one of the endpoints", o.Baseline)
	}
	if *scen != "" {
		for _, s := range strings.Split(*scen, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(ScenarioNames(), s) && s != edgeName {
				return c, fmt.Errorf("--scenarios: unknown scenario %q (known: %s,%s)", s, strings.Join(ScenarioNames(), ","), edgeName)
			}
			o.Scenarios = append(o.Scenarios, s)
		}
	}
	if err := e.parse(*originPIDs, *sizes, o.Scenarios, o.Endpoints); err != nil {
		return c, err
	}
	cr := &o.Credentials
	for _, pair := range [][2]string{{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}, {"OBJECTGATEWAY_ACCESS_KEY", "OBJECTGATEWAY_SECRET_KEY"}} {
		if cr.AccessKey == "" && cr.SecretKey == "" {
			cr.AccessKey, cr.SecretKey = getenv(pair[0]), getenv(pair[1])
		}
	}
	needCreds := e.Origin != "" || slices.ContainsFunc(o.Endpoints, func(e Endpoint) bool { return e.Mode == ModeS3 })
	if needCreds && (cr.AccessKey == "" || cr.SecretKey == "") {
		return c, errors.New("no credentials: give --access-key and --secret-key, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	return c, nil
}
