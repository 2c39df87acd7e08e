package api

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkMetricsEnd records one finished GetObject, the metrics work of
// every request.
func BenchmarkMetricsEnd(b *testing.B) {
	m := NewMetrics(prometheus.NewRegistry())
	b.ReportAllocs()
	for b.Loop() {
		m.begin()
		m.end("GetObject", 200, 0, 1024, 300*time.Microsecond)
	}
}
