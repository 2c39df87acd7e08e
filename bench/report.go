package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// FormatValue renders a metric's value with its unit.
func FormatValue(m Metric) string {
	switch m.Unit {
	case "ns":
		return FormatDuration(time.Duration(m.Value))
	case "MB/s":
		return fmt.Sprintf("%.0f MB/s", m.Value)
	case "ops/s":
		return fmt.Sprintf("%.0f ops/s", m.Value)
	case "x":
		return fmt.Sprintf("%.2fx", m.Value)
	case "count":
		return fmt.Sprintf("%.0f", m.Value)
	case "requests":
		return fmt.Sprintf("%.1f", m.Value)
	case "%":
		return fmt.Sprintf("%.1f%%", m.Value)
	case "s":
		return fmt.Sprintf("%.2f s", m.Value)
	case "MiB":
		return fmt.Sprintf("%.0f MiB", m.Value)
	case "MB/CPU-s":
		return fmt.Sprintf("%.0f MB/CPU-s", m.Value)
	}
	return fmt.Sprintf("%g %s", m.Value, m.Unit)
}

// FormatDuration renders a latency with three significant digits at most
// and a unit suited to its size.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < 10*time.Microsecond:
		return fmt.Sprintf("%.1fµs", float64(d)/1e3)
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/1e3)
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// FormatRatio renders a ratio column cell: "1.23x", or "—" when there is
// no ratio.
func FormatRatio(r float64, ok bool) string {
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.2fx", r)
}

// row is one line of the table: a metric of a scenario across endpoints.
type row struct {
	scenario, metric string
	cells            []string // one per endpoint
	ratios           []string // one per non-baseline endpoint
}

// baselineIndex is the position of the baseline among the endpoints.
func (rep *Report) baselineIndex() int {
	i := slices.IndexFunc(rep.Endpoints, func(e Endpoint) bool { return e.Name == rep.Baseline })
	return max(i, 0)
}

// rows lays the report out as table rows, metric by metric, in the order
// the scenario reports them.
func (rep *Report) rows() []row {
	base := rep.baselineIndex()
	var rows []row
	for _, sc := range rep.Scenarios {
		var names []string
		units := map[string]string{}
		for _, r := range sc.Results {
			for _, m := range r.Metrics {
				if !slices.Contains(names, m.Name) {
					names = append(names, m.Name)
					units[m.Name] = m.Unit
				}
			}
		}
		if slices.ContainsFunc(sc.Results, func(r EndpointResult) bool { return r.Errors > 0 }) {
			names = append(names, "errors")
			units["errors"] = "count"
		}
		if len(names) == 0 {
			names = []string{"skipped"}
		}
		for _, name := range names {
			rw := row{scenario: sc.Name, metric: name}
			vals := make([]Metric, len(sc.Results))
			has := make([]bool, len(sc.Results))
			for i, r := range sc.Results {
				if name == "errors" && r.Skipped == "" {
					vals[i], has[i] = Metric{Name: name, Unit: "count", Value: float64(r.Errors)}, true
				} else {
					vals[i], has[i] = r.Metric(name)
				}
				cell := "—"
				if has[i] {
					cell = FormatValue(vals[i])
				}
				rw.cells = append(rw.cells, cell)
			}
			for i := range sc.Results {
				if i == base {
					continue
				}
				ok := has[i] && has[base] && units[name] != "count"
				r, ok2 := Ratio(vals[i].Value, vals[base].Value)
				rw.ratios = append(rw.ratios, FormatRatio(r, ok && ok2))
			}
			rows = append(rows, rw)
		}
	}
	return rows
}

// WriteTable writes the report as a text table.
func WriteTable(w io.Writer, rep *Report) error {
	m := rep.Machine
	fmt.Fprintf(w, "objectgateway bench — %s, %d CPUs (%s), kernel %s, %s",
		rep.Started.UTC().Format("2006-01-02 15:04 MST"), m.CPUs, m.CPUModel, m.Kernel, m.GoVersion)
	if rep.Quick {
		fmt.Fprint(w, ", --quick")
	}
	fmt.Fprintf(w, ", %s\n", FormatDuration(rep.Elapsed))
	for _, e := range rep.Endpoints {
		fmt.Fprintf(w, "  %-12s %s (%s)\n", e.Name, e.URL, e.Mode)
	}
	if rep.EdgeOrigin != "" {
		fmt.Fprintf(w, "  %-12s %s (edge objects in bucket %s)\n", "edge origin", rep.EdgeOrigin, rep.EdgeBucket)
	}
	fmt.Fprintf(w, "ratio columns: the endpoint's value / %s's (latency: lower is better; MB/s, ops/s: higher is better)\n\n", rep.Baseline)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	base := rep.baselineIndex()
	hdr := []string{"scenario", "metric"}
	for _, e := range rep.Endpoints {
		hdr = append(hdr, e.Name)
	}
	for i, e := range rep.Endpoints {
		if i != base {
			hdr = append(hdr, e.Name+"/"+rep.Baseline)
		}
	}
	// tabwriter right-aligns every column; the first two read better
	// left-aligned, so they are padded here.
	rows := rep.rows()
	wsc, wm := len("scenario"), len("metric")
	for _, r := range rows {
		wsc, wm = max(wsc, len(r.scenario)), max(wm, len([]rune(r.metric)))
	}
	line := func(cells []string) {
		fmt.Fprintf(tw, "%-*s  %-*s\t%s\t\n", wsc, cells[0], wm, cells[1], strings.Join(cells[2:], "\t"))
	}
	line(hdr)
	prev := ""
	for _, r := range rows {
		sc := r.scenario
		if sc == prev {
			sc = ""
		}
		prev = r.scenario
		line(append(append([]string{sc, r.metric}, r.cells...), r.ratios...))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, sc := range rep.Scenarios {
		for _, r := range sc.Results {
			switch {
			case r.Skipped != "":
				fmt.Fprintf(w, "note: %s on %s skipped: %s\n", sc.Name, r.Endpoint, r.Skipped)
			case r.FirstError != "":
				fmt.Fprintf(w, "note: %s on %s: %d errors, first: %s\n", sc.Name, r.Endpoint, r.Errors, r.FirstError)
			}
		}
	}
	for name, err := range rep.Cleanup {
		fmt.Fprintf(w, "warning: cleanup of %s (bucket %s) failed: %s\n", name, rep.Buckets[name], err)
	}
	if rep.Interrupted {
		fmt.Fprintln(w, "interrupted: the results above are partial")
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
