package bench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, c := range []struct {
		name    string
		samples []time.Duration
		p       float64
		want    time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"p0 is the minimum", ms(1, 2, 3), 0, time.Millisecond},
		{"p50 of two is the lower", ms(1, 2), 50, time.Millisecond},
		{"p50 of three", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"p100 is the maximum", ms(1, 2, 3), 100, 3 * time.Millisecond},
		{"p90 of 1..100", hundred, 90, 90 * time.Millisecond},
		{"p99 of 1..100", hundred, 99, 99 * time.Millisecond},
		{"p99.9 of 1..100", hundred, 99.9, 100 * time.Millisecond},
	} {
		if got := Percentile(c.samples, c.p); got != c.want {
			t.Errorf("%s: Percentile(p%g) = %v, want %v", c.name, c.p, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]time.Duration{5, 1, 4, 2, 3})
	want := Summary{Count: 5, P50: 3, P90: 5, P99: 5, P999: 5, Max: 5, Mean: 3}
	if s != want {
		t.Fatalf("Summarize = %+v, want %+v", s, want)
	}
	if (Summarize(nil) != Summary{}) {
		t.Fatal("Summarize(nil) is not zero")
	}
}

func TestInterleave(t *testing.T) {
	for _, c := range []struct {
		n, round int
		want     []int
	}{
		{1, 0, []int{0}},
		{1, 1, []int{0}},
		{2, 0, []int{0, 1}},
		{2, 1, []int{1, 0}},
		{2, 2, []int{0, 1}},
		{3, 1, []int{2, 1, 0}},
		{0, 0, []int{}},
	} {
		if got := Interleave(c.n, c.round); !slices.Equal(got, c.want) {
			t.Errorf("Interleave(%d, %d) = %v, want %v", c.n, c.round, got, c.want)
		}
	}
	// Over a pair of rounds every endpoint holds every position once: the
	// A B B A pattern.
	var seq []int
	for r := range 4 {
		seq = append(seq, Interleave(2, r)...)
	}
	if !slices.Equal(seq, []int{0, 1, 1, 0, 0, 1, 1, 0}) {
		t.Errorf("four rounds of two: %v, want A B B A A B B A", seq)
	}
}

func TestRatioAndFormat(t *testing.T) {
	for _, c := range []struct {
		v, base float64
		want    string
	}{
		{2, 1, "2.00x"},
		{1, 2, "0.50x"},
		{125, 100, "1.25x"},
		{0, 1, "—"},
		{1, 0, "—"},
	} {
		if got := FormatRatio(Ratio(c.v, c.base)); got != c.want {
			t.Errorf("ratio %v/%v = %q, want %q", c.v, c.base, got, c.want)
		}
	}
}

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		m    Metric
		want string
	}{
		{Metric{Unit: "ns", Value: 0}, "0"},
		{Metric{Unit: "ns", Value: 8500}, "8.5µs"},
		{Metric{Unit: "ns", Value: 212_400}, "212µs"},
		{Metric{Unit: "ns", Value: 2_345_000}, "2.35ms"},
		{Metric{Unit: "ns", Value: 45_670_000}, "45.7ms"},
		{Metric{Unit: "ns", Value: 3_210_000_000}, "3.21s"},
		{Metric{Unit: "MB/s", Value: 1234.4}, "1234 MB/s"},
		{Metric{Unit: "ops/s", Value: 99.6}, "100 ops/s"},
		{Metric{Unit: "x", Value: 0.8123}, "0.81x"},
		{Metric{Unit: "count", Value: 10000}, "10000"},
		{Metric{Unit: "%", Value: 91.66}, "91.7%"},
		{Metric{Unit: "s", Value: 1.234}, "1.23 s"},
		{Metric{Unit: "MiB", Value: 512.4}, "512 MiB"},
		{Metric{Unit: "MB/CPU-s", Value: 2400.2}, "2400 MB/CPU-s"},
	} {
		if got := FormatValue(c.m); got != c.want {
			t.Errorf("FormatValue(%v %s) = %q, want %q", c.m.Value, c.m.Unit, got, c.want)
		}
	}
}

func TestShareCoversEveryItemOnce(t *testing.T) {
	for _, c := range []struct{ n, rounds int }{{10, 3}, {3, 10}, {10000, 10}, {0, 2}, {7, 1}} {
		next := 0
		for i := range c.rounds {
			from, to := share(c.n, c.rounds, i)
			if from != next || to < from {
				t.Fatalf("share(%d, %d, %d) = [%d, %d), want to start at %d", c.n, c.rounds, i, from, to, next)
			}
			next = to
		}
		if next != c.n {
			t.Errorf("share(%d, %d) covers %d items", c.n, c.rounds, next)
		}
	}
}

func TestMixedWeights(t *testing.T) {
	total := 0
	counts := map[string]int{}
	for _, k := range mixedKinds {
		total += k.weight
	}
	if total != 100 {
		t.Fatalf("mixed weights sum to %d, want 100", total)
	}
	for x := range 100 {
		counts[pickKind(x)]++
	}
	for _, k := range mixedKinds {
		if counts[k.kind] != k.weight {
			t.Errorf("pickKind chose %s %d times in 100, want %d", k.kind, counts[k.kind], k.weight)
		}
	}
}

func TestCDFSVG(t *testing.T) {
	svg := cdfSVG("a <title>", []cdfSeries{
		{name: "gw", samples: []time.Duration{100 * time.Microsecond, 200 * time.Microsecond, 3 * time.Millisecond}},
		{name: "static", samples: nil},
	})
	for _, want := range []string{"<svg", "<polyline", "a &lt;title&gt;", "gw (n=3)", "static (n=0)"} {
		if !contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if cdfSVG("empty", []cdfSeries{{name: "x"}}) != "" {
		t.Error("a chart without samples is drawn")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
