package bench

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// seriesColors are the line colours of the endpoints in charts.
var seriesColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"}

// cdfSeries is one endpoint's latencies of one kind, sorted.
type cdfSeries struct {
	name    string
	samples []time.Duration
}

// cdfSVG draws the latency CDFs of several endpoints on one logarithmic
// time axis as an inline SVG.
func cdfSVG(title string, series []cdfSeries) string {
	const w, h, left, right, top, bottom = 640.0, 280.0, 56.0, 150.0, 28.0, 40.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		if len(s.samples) == 0 {
			continue
		}
		lo = math.Min(lo, float64(max(s.samples[0], time.Microsecond)))
		hi = math.Max(hi, float64(max(s.samples[len(s.samples)-1], time.Microsecond)))
	}
	if math.IsInf(lo, 0) {
		return ""
	}
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi <= lo {
		hi = lo * 10
	}
	pw, ph := w-left-right, h-top-bottom
	x := func(d float64) float64 {
		return left + pw*(math.Log10(math.Max(d, lo))-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	y := func(q float64) float64 { return top + ph*(1-q) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`, w, h, w, h)
	fmt.Fprintf(&b, `<text x="%.0f" y="16" font-size="13" font-weight="bold">%s</text>`, left, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`, left, top, pw, ph)
	for d := lo; d <= hi*1.0001; d *= 10 {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#ddd"/>`, x(d), top, x(d), top+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`, x(d), top+ph+14, FormatDuration(time.Duration(d)))
	}
	for _, q := range []float64{0, 0.5, 0.9, 0.99, 1} {
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#eee"/>`, left, y(q), left+pw, y(q))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">p%g</text>`, left-4, y(q)+4, q*100)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">latency (log scale)</text>`, left+pw/2, h-6)
	for i, s := range series {
		color := seriesColors[i%len(seriesColors)]
		n := len(s.samples)
		if n > 0 {
			var pts []string
			steps := min(n, 300)
			for k := range steps {
				idx := k * (n - 1) / max(steps-1, 1)
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(s.samples[idx])), y(float64(idx+1)/float64(n))))
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.8" points="%s"/>`, color, strings.Join(pts, " "))
		}
		ly := top + 14 + float64(i)*16
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="3"/>`, w-right+10, ly-4, w-right+28, ly-4, color)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s (n=%d)</text>`, w-right+32, ly, template.HTMLEscapeString(s.name), n)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>objectgateway bench {{.Date}}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;font-size:13px}
td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:right}
td.l,th.l{text-align:left}
h2{margin-top:2em}
.note{color:#a33}
</style></head><body>
<h1>objectgateway bench</h1>
<p>{{.Date}} — {{.Machine.CPUs}} CPUs ({{.Machine.CPUModel}}), kernel {{.Machine.Kernel}}, {{.Machine.GoVersion}}{{if .Quick}}, --quick{{end}}, run time {{.Elapsed}}</p>
<ul>{{range .Endpoints}}<li><b>{{.Name}}</b> {{.URL}} ({{.Mode}})</li>{{end}}</ul>
<p>Ratio columns: the endpoint's value divided by {{.Baseline}}'s (latency: lower is better; MB/s and ops/s: higher is better).</p>
<table><tr><th class="l">scenario</th><th class="l">metric</th>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td class="l">{{.Scenario}}</td><td class="l">{{.Metric}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{range .Charts}}<h2>{{.Scenario}}</h2><p>{{.Description}}</p>{{range .SVGs}}{{.}}{{end}}{{end}}
</body></html>
`))

// WriteHTML writes the report as one self-contained HTML page: the table
// and, for every scenario that timed requests, latency CDF charts drawn as
// inline SVG (no scripts, fonts or other external resources).
func WriteHTML(w io.Writer, rep *Report) error {
	type hrow struct {
		Scenario, Metric string
		Cells            []string
	}
	type chart struct {
		Scenario, Description string
		SVGs                  []template.HTML
	}
	data := struct {
		*Report
		Date   string
		Header []string
		Rows   []hrow
		Notes  []string
		Charts []chart
	}{Report: rep, Date: rep.Started.UTC().Format("2006-01-02 15:04 MST")}
	base := rep.baselineIndex()
	for _, e := range rep.Endpoints {
		data.Header = append(data.Header, e.Name)
	}
	for i, e := range rep.Endpoints {
		if i != base {
			data.Header = append(data.Header, e.Name+"/"+rep.Baseline)
		}
	}
	for _, r := range rep.rows() {
		data.Rows = append(data.Rows, hrow{r.scenario, r.metric, append(slices.Clone(r.cells), r.ratios...)})
	}
	for _, sc := range rep.Scenarios {
		for _, r := range sc.Results {
			if r.Skipped != "" {
				data.Notes = append(data.Notes, fmt.Sprintf("%s on %s skipped: %s", sc.Name, r.Endpoint, r.Skipped))
			} else if r.FirstError != "" {
				data.Notes = append(data.Notes, fmt.Sprintf("%s on %s: %d errors, first: %s", sc.Name, r.Endpoint, r.Errors, r.FirstError))
			}
		}
		var kinds []string
		for _, r := range sc.Results {
			for k, s := range r.samples {
				if len(s) >= 5 && !slices.Contains(kinds, k) {
					kinds = append(kinds, k)
				}
			}
		}
		slices.Sort(kinds)
		c := chart{Scenario: sc.Name, Description: sc.Description}
		for _, k := range kinds {
			var series []cdfSeries
			for _, r := range sc.Results {
				s := slices.Clone(r.samples[k])
				slices.Sort(s)
				series = append(series, cdfSeries{name: r.Endpoint, samples: s})
			}
			if svg := cdfSVG(sc.Name+": "+k+" latency CDF", series); svg != "" {
				c.SVGs = append(c.SVGs, template.HTML(svg))
			}
		}
		if len(c.SVGs) > 0 {
			data.Charts = append(data.Charts, c)
		}
	}
	return htmlPage.Execute(w, data)
}
