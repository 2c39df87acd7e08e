package main

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/objectgateway/objectgateway/pkg/connlimit"
	lcworker "github.com/objectgateway/objectgateway/pkg/expire"
)

// admin is the operator-facing listener: /metrics, /healthz, /readyz and,
// when enabled, /debug/pprof/. It is separate from the S3 listener, so
// none of its paths can be mistaken for a bucket (a bucket may well be
// called "healthz") and none of it is reachable by S3 clients.
type admin struct {
	reg   *prometheus.Registry
	ready atomic.Bool
	srv   *http.Server
	mux   *http.ServeMux
}

func newAdmin(pprofOn bool) *admin {
	a := &admin{reg: prometheus.NewRegistry()}
	a.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !a.ready.Load() {
			http.Error(w, "index not open yet", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	if pprofOn {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	a.mux = mux
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return a
}

// serve starts the admin listener in the background, over TLS when
// a.srv.TLSConfig is set (--admin-tls-cert).
func (a *admin) serve(addr string) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if a.srv.TLSConfig != nil {
		ln = tls.NewListener(ln, a.srv.TLSConfig)
	}
	go a.srv.Serve(ln)
	return ln.Addr(), nil
}

// indexSize reports the size of the index file at scrape time.
// immutableFlag exports whether locked versions' files get the
// filesystem's immutable flag (1) or only the index's protection (0).
func (a *admin) immutableFlag(supported bool) {
	v := 0.0
	if supported {
		v = 1
	}
	a.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "objectgateway_immutable_flag_supported",
		Help: "1 when the files of versions under Object Lock get the filesystem's immutable flag (chattr +i), 0 when the filesystem or the gateway's privilege (CAP_LINUX_IMMUTABLE) does not allow it.",
	}, func() float64 { return v }))
}

// lifecycle exports the lifecycle worker's progress.
func (a *admin) lifecycle(st *lcworker.Stats) {
	counter := func(name, help string, v *atomic.Uint64) {
		a.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v.Load()) }))
	}
	counter("objectgateway_lifecycle_examined_total", "Index entries (objects, versions, uploads) the lifecycle worker examined.", &st.Examined)
	counter("objectgateway_lifecycle_expired_total", "Objects, versions and delete markers the lifecycle worker expired.", &st.Expired)
	counter("objectgateway_lifecycle_aborted_total", "Multipart uploads the lifecycle worker aborted.", &st.Aborted)
	counter("objectgateway_lifecycle_locked_total", "Versions a lifecycle rule expired that Object Lock kept.", &st.Locked)
	counter("objectgateway_lifecycle_errors_total", "Lifecycle removals that failed (logged); the next pass retries them.", &st.Errors)
	counter("objectgateway_lifecycle_deferred_total", "Lifecycle rounds not run because another gateway sharing the index held the lifecycle lease.", &st.Deferred)
	a.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "objectgateway_lifecycle_cpu_seconds_total",
		Help: "CPU time the lifecycle worker's passes used (their walks and removals).",
	}, func() float64 { return time.Duration(st.CPUNanos.Load()).Seconds() }))
	a.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "objectgateway_lifecycle_last_pass_timestamp_seconds",
		Help: "Unix time the last complete lifecycle pass ended; 0 before the first.",
	}, func() float64 { return float64(st.LastPass.Load()) }))
	a.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "objectgateway_lifecycle_last_pass_duration_seconds",
		Help: "Duration of the last complete lifecycle pass.",
	}, func() float64 { return time.Duration(st.LastPassNanos.Load()).Seconds() }))
}

func (a *admin) indexSize(path string) {
	a.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "objectgateway_index_bytes",
		Help: "Size of the bbolt index file.",
	}, func() float64 {
		fi, err := os.Stat(path)
		if err != nil {
			return 0
		}
		return float64(fi.Size())
	}))
}

// connections exports the connection counts of a listener's cap (none
// when st is nil: no cap).
func (a *admin) connections(listener string, st *connlimit.Stats) {
	if st == nil {
		return
	}
	labels := prometheus.Labels{"listener": listener}
	a.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "objectgateway_connections_open", ConstLabels: labels,
		Help: "Connections the listener holds open, counted against --max-connections.",
	}, func() float64 { return float64(st.Open.Load()) }))
	a.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "objectgateway_connections_evicted_total", ConstLabels: labels,
		Help: "Connections waiting for a request (idle keep-alive, or an unfinished request head) closed at --max-connections to make room for a new one.",
	}, func() float64 { return float64(st.Evicted.Load()) }))
	a.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "objectgateway_connections_waited_total", ConstLabels: labels,
		Help: "New connections held at --max-connections before they were served.",
	}, func() float64 { return float64(st.Waited.Load()) }))
}
