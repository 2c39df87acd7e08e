// Package bench measures an S3 endpoint — ObjectGateway or any other — and,
// for reference, a minimal static-file server, and reports latency and
// throughput per named scenario.
//
// The edge scenario (edge.go) measures caches in front of an S3 origin —
// Varnish, nginx, ObjectGateway's edge mode — as mode=http endpoints:
// objects written once to the origin, then fetched with anonymous GETs
// through each cache, with the cache server's CPU and memory read from
// /proc (procstat.go). bench/edge-compare.sh runs it on one machine.
//
// It owns three things: the scenarios (what is measured and how), the
// runner (several endpoints measured in one run, interleaved round by round
// A B B A … so that noise on the machine hits all of them alike), and the
// reports (a text table, JSON, a self-contained HTML page with inline SVG
// charts). It also owns the static-file server used as the raw-disk
// ceiling (see ServeStatic).
//
// The client side speaks S3 with plain net/http and pkg/sigv4 rather than
// an SDK: one request is one round trip with nothing else on the client's
// hot path, so a 1 KiB latency measures the server, not the client (the
// SDK's middleware stack costs several times a loopback GET; see
// docs/performance.md and BenchmarkClientOverhead).
//
// Invariants: every loop is bounded by a count and by a deadline; the
// bucket a run creates is removed with everything in it when the run ends,
// including when its context is cancelled (SIGINT); a bucket given with
// Options.Bucket is emptied of what the run wrote but never deleted unless
// the run created it.
//
// # Caveats
//
// Figures from a shared or virtualised machine are noisy; compare
// endpoints measured in the same run (the ratio columns), not figures from
// different runs.
package bench
