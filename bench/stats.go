package bench

import (
	"math"
	"slices"
	"time"
)

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of sorted by the
// nearest-rank method: the smallest sample such that at least p percent of
// the samples are ≤ it. It returns 0 for no samples.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if p <= 0 {
		return sorted[0]
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	if rank > n {
		rank = n
	}
	return sorted[rank-1]
}

// Summary is the distribution of one kind of request.
type Summary struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50_ns"`
	P90   time.Duration `json:"p90_ns"`
	P99   time.Duration `json:"p99_ns"`
	P999  time.Duration `json:"p999_ns"`
	Max   time.Duration `json:"max_ns"`
	Mean  time.Duration `json:"mean_ns"`
}

// Summarize sorts samples in place and summarises them.
func Summarize(samples []time.Duration) Summary {
	slices.Sort(samples)
	s := Summary{Count: len(samples)}
	if len(samples) == 0 {
		return s
	}
	var sum time.Duration
	for _, d := range samples {
		sum += d
	}
	s.P50 = Percentile(samples, 50)
	s.P90 = Percentile(samples, 90)
	s.P99 = Percentile(samples, 99)
	s.P999 = Percentile(samples, 99.9)
	s.Max = samples[len(samples)-1]
	s.Mean = sum / time.Duration(len(samples))
	return s
}

// MBps is a throughput in megabytes (10^6 bytes) per second.
func MBps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}

// Interleave returns the order in which endpoints 0..n-1 run in round r:
// forward in even rounds, backward in odd ones (A B, B A, A B …), so a
// drift in the machine's speed over a round pair favours no endpoint.
func Interleave(n, round int) []int {
	order := make([]int, n)
	for i := range order {
		if round%2 == 0 {
			order[i] = i
		} else {
			order[i] = n - 1 - i
		}
	}
	return order
}

// Ratio is v divided by base, the endpoint every other is compared with.
// Whether above 1 is good depends on the metric (a latency ratio of 1.2 is
// 20% slower, a throughput ratio of 1.2 is 20% faster). It reports false
// when either is zero or not a number.
func Ratio(v, base float64) (float64, bool) {
	if v == 0 || base == 0 || math.IsNaN(v) || math.IsNaN(base) {
		return 0, false
	}
	return v / base, true
}
