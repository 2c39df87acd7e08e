package main

import (
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/prometheus/client_golang/prometheus"
)

// hotCache exports the hot-object cache's counters, read at scrape time.
func (a *admin) hotCache(c *hotcache.Cache) {
	counter := func(name, help string, v func(hotcache.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v(c.Stats())) })
	}
	a.reg.MustRegister(
		counter("objectgateway_hot_cache_hits_total", "GETs and HEADs served from the hot-object cache.",
			func(s hotcache.Stats) uint64 { return s.Hits }),
		counter("objectgateway_hot_cache_misses_total", "GETs and HEADs of cacheable objects not served from the hot-object cache.",
			func(s hotcache.Stats) uint64 { return s.Misses }),
		counter("objectgateway_hot_cache_fills_total", "Objects read and offered to the hot-object cache after a miss.",
			func(s hotcache.Stats) uint64 { return s.Fills }),
		counter("objectgateway_hot_cache_evictions_total", "Entries the hot-object cache dropped or refused for its byte budget.",
			func(s hotcache.Stats) uint64 { return s.Evictions }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "objectgateway_hot_cache_bytes",
			Help: "Bytes held by the hot-object cache, entry overhead included.",
		}, func() float64 { return float64(c.Stats().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "objectgateway_hot_cache_entries",
			Help: "Objects held by the hot-object cache (estimate).",
		}, func() float64 { return float64(c.Stats().Entries) }),
	)
}
