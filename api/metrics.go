package api

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Prometheus collectors of the S3 API: requests by AWS
// operation and status, latency, bytes and requests in flight. The zero
// *Metrics (nil) records nothing.
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	bytesIn  prometheus.Counter
	bytesOut prometheus.Counter
	inFlight prometheus.Gauge

	// mu guards children, the labelled collectors already looked up:
	// WithLabelValues hashes and validates the label values and takes
	// the vector's lock on every call, which showed in the profile of a
	// small GET. The label sets are few (operations × statuses).
	mu       sync.RWMutex
	children map[opStatus]opCollectors
}

// opStatus is the label set of one request: operation and status.
type opStatus struct {
	op     string
	status int
}

// opCollectors are the collectors a request with one opStatus updates.
type opCollectors struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// NewMetrics creates the collectors and registers them with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "objectgateway_requests_total",
			Help: "S3 requests by AWS operation name and HTTP status.",
		}, []string{"op", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "objectgateway_request_duration_seconds",
			Help:    "Time from the request's arrival to the end of its response, by AWS operation name.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"op"}),
		bytesIn: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "objectgateway_received_bytes_total",
			Help: "Request body bytes announced by clients (Content-Length).",
		}),
		bytesOut: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "objectgateway_sent_bytes_total",
			Help: "Response body bytes sent.",
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "objectgateway_requests_in_flight",
			Help: "S3 requests being served.",
		}),
	}
	reg.MustRegister(m.requests, m.duration, m.bytesIn, m.bytesOut, m.inFlight)
	return m
}

func (m *Metrics) begin() {
	if m != nil {
		m.inFlight.Inc()
	}
}

// abandon undoes begin for a request that another path serves and
// counts (an intercepted hit declined by the edge: see EdgeHit).
func (m *Metrics) abandon() {
	if m != nil {
		m.inFlight.Dec()
	}
}

// end records one finished request.
func (m *Metrics) end(op string, status int, in, out int64, d time.Duration) {
	if m == nil {
		return
	}
	m.inFlight.Dec()
	c := m.collectors(op, status)
	c.requests.Inc()
	c.duration.Observe(d.Seconds())
	if in > 0 {
		m.bytesIn.Add(float64(in))
	}
	if out > 0 {
		m.bytesOut.Add(float64(out))
	}
}

// collectors returns the cached collectors of op and status, looking
// them up in the vectors the first time.
func (m *Metrics) collectors(op string, status int) opCollectors {
	k := opStatus{op, status}
	m.mu.RLock()
	c, ok := m.children[k]
	m.mu.RUnlock()
	if ok {
		return c
	}
	c = opCollectors{
		requests: m.requests.WithLabelValues(op, statusLabel(status)),
		duration: m.duration.WithLabelValues(op),
	}
	m.mu.Lock()
	if m.children == nil {
		m.children = map[opStatus]opCollectors{}
	}
	m.children[k] = c
	m.mu.Unlock()
	return c
}

// statusLabel avoids formatting the common statuses on every request.
func statusLabel(code int) string {
	switch code {
	case 200:
		return "200"
	case 204:
		return "204"
	case 206:
		return "206"
	case 304:
		return "304"
	case 403:
		return "403"
	case 404:
		return "404"
	}
	return strconv.Itoa(code)
}
