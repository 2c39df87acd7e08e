package main

import (
	"encoding/json"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/objectgateway/objectgateway/pkg/edge"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// edgeCache adds the edge cache's purge endpoint and metrics to the admin
// listener. POST /edge/purge?bucket=B&key=K removes one object,
// ?bucket=B&prefix=P the objects of B whose keys start with P, ?all=true
// everything. Requests must be signed with SigV4 (service s3) by the
// root credentials, e.g. curl --aws-sigv4 "aws:amz:us-east-1:s3" with
// -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" (see docs/cdn.md).
func (a *admin) edgeCache(c *edge.Cache, root credentials, region string) {
	// Only the root user's key verifies: the purge is for the operator.
	v := sigv4.NewVerifier(sigv4.Options{Region: region, Credentials: root})
	a.mux.HandleFunc("POST /edge/purge", func(w http.ResponseWriter, r *http.Request) {
		auth, err := v.Verify(r)
		if err == nil && auth.Anonymous {
			err = s3err.New(s3err.AccessDenied)
		}
		if err != nil {
			e := s3err.As(err)
			http.Error(w, e.Code.String()+": "+e.Text(), e.Code.Status())
			return
		}
		q := r.URL.Query()
		bucket, key, prefix := q.Get("bucket"), q.Get("key"), q.Get("prefix")
		var n int
		switch {
		case q.Get("all") == "true" && bucket == "":
			n = c.Purge("", "", true)
		case bucket != "" && q.Has("key") && !q.Has("prefix"):
			n = c.Purge(bucket, key, false)
		case bucket != "" && !q.Has("key"):
			n = c.Purge(bucket, prefix, true)
		default:
			http.Error(w, "say what to purge: ?bucket=B&key=K, ?bucket=B&prefix=P (all of B without prefix), or ?all=true", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]int{"purged": n})
	})

	counter := func(name, help string, f func(edge.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(f(c.Stats())) })
	}
	a.reg.MustRegister(
		counter("objectgateway_edge_hits_total", "Edge requests answered with every byte from the cache (fresh or revalidated), and cached 404s.", func(s edge.Stats) uint64 { return s.Hits }),
		counter("objectgateway_edge_misses_total", "Edge requests answered with bytes from the origin (objects or slices not cached).", func(s edge.Stats) uint64 { return s.Misses }),
		counter("objectgateway_edge_negative_hits_total", "Edge requests answered by a cached origin 404 (--negative-ttl).", func(s edge.Stats) uint64 { return s.NegativeHits }),
		counter("objectgateway_edge_origin_heads_total", "HEAD misses answered by an origin HEAD.", func(s edge.Stats) uint64 { return s.OriginHeads }),
		counter("objectgateway_edge_revalidations_total", "Conditional requests to the origin for stale objects.", func(s edge.Stats) uint64 { return s.Revalidations }),
		counter("objectgateway_edge_not_modified_total", "Revalidations that found the object unchanged.", func(s edge.Stats) uint64 { return s.NotModified }),
		counter("objectgateway_edge_stale_total", "Stale objects served while the origin failed.", func(s edge.Stats) uint64 { return s.Stale }),
		counter("objectgateway_edge_passes_total", "Edge requests relayed from the origin without storing.", func(s edge.Stats) uint64 { return s.Passes }),
		counter("objectgateway_edge_upstream_requests_total", "Requests sent to the origin.", func(s edge.Stats) uint64 { return s.UpstreamFetches }),
		counter("objectgateway_edge_upstream_errors_total", "Origin requests that failed.", func(s edge.Stats) uint64 { return s.UpstreamErrors }),
		counter("objectgateway_edge_evictions_total", "Objects evicted for the byte budget.", func(s edge.Stats) uint64 { return s.Evictions }),
		counter("objectgateway_edge_disk_errors_total", "Cache disk operations that failed.", func(s edge.Stats) uint64 { return s.DiskErrors }),
		counter("objectgateway_edge_bytes_from_cache_total", "Body bytes sent from cached slices.", func(s edge.Stats) uint64 { return s.BytesFromCache }),
		counter("objectgateway_edge_bytes_from_upstream_total", "Body bytes received from the origin.", func(s edge.Stats) uint64 { return s.BytesFromUpstream }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "objectgateway_edge_bytes", Help: "Bytes of the objects held by the edge cache."},
			func() float64 { return float64(c.Stats().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "objectgateway_edge_objects", Help: "Objects held by the edge cache."},
			func() float64 { return float64(c.Stats().Objects) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "objectgateway_edge_disk_healthy", Help: "1 while every cache disk works, 0 while one is failed (with one disk: in pass-through)."},
			func() float64 {
				if c.Stats().Healthy {
					return 1
				}
				return 0
			}),
		edgeDiskCollector{c},
	)
}

// edgeDiskCollector exports the figures of each cache disk, labelled
// disk=<its directory>, from one Stats call per scrape.
type edgeDiskCollector struct{ c *edge.Cache }

var (
	edgeDiskBytes    = prometheus.NewDesc("objectgateway_edge_cache_disk_bytes", "Bytes of the objects held by the cache disk.", []string{"disk"}, nil)
	edgeDiskMax      = prometheus.NewDesc("objectgateway_edge_cache_disk_max_bytes", "Byte budget of the cache disk.", []string{"disk"}, nil)
	edgeDiskObjects  = prometheus.NewDesc("objectgateway_edge_cache_disk_objects", "Objects held by the cache disk.", []string{"disk"}, nil)
	edgeDiskHits     = prometheus.NewDesc("objectgateway_edge_cache_disk_hits_total", "Edge requests answered from the cache disk's objects.", []string{"disk"}, nil)
	edgeDiskMisses   = prometheus.NewDesc("objectgateway_edge_cache_disk_misses_total", "Misses whose object was stored on the cache disk.", []string{"disk"}, nil)
	edgeDiskFailures = prometheus.NewDesc("objectgateway_edge_cache_disk_failures_total", "Operations of the cache disk that failed.", []string{"disk"}, nil)
	edgeDiskHealthy  = prometheus.NewDesc("objectgateway_edge_cache_disk_healthy", "1 while the cache disk works, 0 while it is failed (dropped from placement).", []string{"disk"}, nil)
)

func (edgeDiskCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{edgeDiskBytes, edgeDiskMax, edgeDiskObjects, edgeDiskHits, edgeDiskMisses, edgeDiskFailures, edgeDiskHealthy} {
		ch <- d
	}
}

func (k edgeDiskCollector) Collect(ch chan<- prometheus.Metric) {
	for _, d := range k.c.Stats().Disks {
		healthy := 0.0
		if d.Healthy {
			healthy = 1
		}
		ch <- prometheus.MustNewConstMetric(edgeDiskBytes, prometheus.GaugeValue, float64(d.Bytes), d.Dir)
		ch <- prometheus.MustNewConstMetric(edgeDiskMax, prometheus.GaugeValue, float64(d.MaxBytes), d.Dir)
		ch <- prometheus.MustNewConstMetric(edgeDiskObjects, prometheus.GaugeValue, float64(d.Objects), d.Dir)
		ch <- prometheus.MustNewConstMetric(edgeDiskHits, prometheus.CounterValue, float64(d.Hits), d.Dir)
		ch <- prometheus.MustNewConstMetric(edgeDiskMisses, prometheus.CounterValue, float64(d.Misses), d.Dir)
		ch <- prometheus.MustNewConstMetric(edgeDiskFailures, prometheus.CounterValue, float64(d.Failures), d.Dir)
		ch <- prometheus.MustNewConstMetric(edgeDiskHealthy, prometheus.GaugeValue, healthy, d.Dir)
	}
}
