package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRunAgainstGatewayAndStatic runs every scenario briefly against an
// in-process gateway and the static server and checks the report's
// structure: every scenario present, counts right, no errors, buckets
// removed.
func TestRunAgainstGatewayAndStatic(t *testing.T) {
	gw := startGateway(t, nil)
	stURL, stDir := startStatic(t)
	gwEp := Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3}
	stEp := Endpoint{Name: "static", URL: stURL, Mode: ModeStatic}
	o := tinyOptions(gwEp, stEp)
	rep, err := Run(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cleanup) > 0 || rep.Interrupted {
		t.Fatalf("cleanup errors %v, interrupted %v", rep.Cleanup, rep.Interrupted)
	}
	var got []string
	for _, sc := range rep.Scenarios {
		got = append(got, sc.Name)
		if len(sc.Results) != 2 {
			t.Fatalf("%s: %d results, want 2", sc.Name, len(sc.Results))
		}
		for _, r := range sc.Results {
			listing := sc.Name == "list-page" || sc.Name == "list-full"
			if wantSkip := listing && r.Endpoint == "static"; (r.Skipped != "") != wantSkip {
				t.Errorf("%s on %s: skipped %q, want skipped=%v", sc.Name, r.Endpoint, r.Skipped, wantSkip)
			}
			if r.Skipped != "" {
				continue
			}
			if r.Errors != 0 || r.Ops == 0 || len(r.Metrics) == 0 {
				t.Errorf("%s on %s: %d ops, %d errors (first %q), %d metrics", sc.Name, r.Endpoint, r.Ops, r.Errors, r.FirstError, len(r.Metrics))
			}
		}
	}
	if !slices.Equal(got, ScenarioNames()) {
		t.Fatalf("scenarios %v, want %v", got, ScenarioNames())
	}
	for _, ep := range []string{"gw", "static"} {
		for _, c := range []struct {
			scenario, metric string
			want             float64
		}{
			{"read-10k", "objects read", float64(o.Objects)},
			{"burst-put", "bursts all ok", 2},
			{"burst-put", "bursts", 2},
		} {
			if v := metric(t, rep, c.scenario, ep, c.metric); v != c.want {
				t.Errorf("%s on %s: %s = %v, want %v", c.scenario, ep, c.metric, v, c.want)
			}
		}
		for _, kind := range []string{"small-get:GET", "small-head:HEAD", "small-put:PUT", "get-range:GET range"} {
			sc, k, _ := strings.Cut(kind, ":")
			if n := result(t, rep, sc, ep).Latency[k].Count; n != o.Count {
				t.Errorf("%s on %s: %d %s samples, want %d", sc, ep, n, k, o.Count)
			}
		}
		if v := metric(t, rep, "mixed", ep, "ops/s"); v <= 0 {
			t.Errorf("mixed on %s: ops/s %v", ep, v)
		}
	}
	if v := metric(t, rep, "list-full", "gw", "keys listed"); v != float64(o.Objects) {
		t.Errorf("list-full: %v keys listed, want %d", v, o.Objects)
	}
	if n := result(t, rep, "list-page", "gw").Latency["LIST"].Count; n != o.ListCount {
		t.Errorf("list-page: %d LISTs, want %d", n, o.ListCount)
	}
	if !bucketGone(t, gwEp, rep.Buckets["gw"]) {
		t.Errorf("bucket %s left on the gateway", rep.Buckets["gw"])
	}
	if _, err := os.Stat(filepath.Join(stDir, rep.Buckets["static"])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("static bucket directory left behind: %v", err)
	}

	var table bytes.Buffer
	if err := WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range append(ScenarioNames(), "static/gw", "GET p50", "PUT 1 stream / MD5") {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON does not parse: %v", err)
	}
	if len(back.Scenarios) != len(rep.Scenarios) || back.Scenarios[0].Results[0].Latency["GET"].Count != o.Count {
		t.Errorf("JSON round trip lost results: %+v", back.Scenarios[0])
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	h := page.String()
	if !strings.Contains(h, "<svg") || !strings.Contains(h, "<polyline") || strings.Contains(h, "<script") || strings.Contains(h, "http-equiv") {
		t.Errorf("HTML report is not a self-contained page with SVG charts")
	}
}

func result(t *testing.T, rep *Report, scenario, endpoint string) EndpointResult {
	t.Helper()
	for _, sc := range rep.Scenarios {
		if sc.Name != scenario {
			continue
		}
		for _, r := range sc.Results {
			if r.Endpoint == endpoint {
				return r
			}
		}
	}
	t.Fatalf("no result for %s on %s", scenario, endpoint)
	return EndpointResult{}
}

func metric(t *testing.T, rep *Report, scenario, endpoint, name string) float64 {
	t.Helper()
	m, ok := result(t, rep, scenario, endpoint).Metric(name)
	if !ok {
		t.Fatalf("%s on %s: no metric %q", scenario, endpoint, name)
	}
	return m.Value
}

// TestMainQuick runs the subcommand as a user would, with credentials
// from the environment and every output.
func TestMainQuick(t *testing.T) {
	gw := startGateway(t, nil)
	stURL, _ := startStatic(t)
	dir := t.TempDir()
	env := map[string]string{"AWS_ACCESS_KEY_ID": testAccess, "AWS_SECRET_ACCESS_KEY": testSecret}
	var stdout, stderr bytes.Buffer
	err := Main(context.Background(), []string{
		"--quick", "--compare", "gw=" + gw.URL + ",static=" + stURL + ";mode=static", "--baseline", "static",
		"--scenarios", "small-get,small-put,get-large,mixed",
		"--count", "4", "--large-mib", "1", "--concurrency", "3", "--duration", "50ms", "--rounds", "2",
		"--json", filepath.Join(dir, "r.json"), "--html", filepath.Join(dir, "r.html"), "--progress",
	}, &stdout, &stderr, func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("Main: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "gw/static") || !strings.Contains(stdout.String(), "small-put") {
		t.Errorf("table:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "small-get") {
		t.Errorf("--progress showed nothing on stderr")
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Scenarios) != 4 || rep.Baseline != "static" {
		t.Fatalf("JSON report: %v, %d scenarios, baseline %q", err, len(rep.Scenarios), rep.Baseline)
	}
	page, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil || !bytes.Contains(page, []byte("<svg")) {
		t.Fatalf("HTML report: %v, has svg: %v", err, bytes.Contains(page, []byte("<svg")))
	}
}

// TestRunInterruptedCleansUp cancels the run in the middle of a scenario,
// as SIGINT does, and checks that the bucket is removed all the same.
func TestRunInterruptedCleansUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var gets atomic.Int32
	gw := startGateway(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/small/obj") && gets.Add(1) == 3 {
				cancel()
			}
			h.ServeHTTP(w, r)
		})
	})
	ep := Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3}
	o := tinyOptions(ep)
	o.Count = 1000
	rep, err := Run(ctx, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || len(rep.Cleanup) > 0 {
		t.Fatalf("interrupted %v, cleanup errors %v", rep.Interrupted, rep.Cleanup)
	}
	if n := len(rep.Scenarios); n != 1 {
		t.Errorf("%d scenarios reported after an interrupt in the first, want 1", n)
	}
	if !bucketGone(t, ep, rep.Buckets["gw"]) {
		t.Errorf("bucket %s left behind after the interrupt", rep.Buckets["gw"])
	}
}

// TestRunGivenBucket uses an existing bucket: the run empties what it
// wrote but keeps the bucket.
func TestRunGivenBucket(t *testing.T) {
	gw := startGateway(t, nil)
	ep := Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3}
	c, err := newClient(ep, Credentials{AccessKey: testAccess, SecretKey: testSecret, Region: "us-east-1"}, true, "keepme", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	ctx := context.Background()
	if err := c.createBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.put(ctx, "theirs", []byte("x")); err != nil {
		t.Fatal(err)
	}
	o := tinyOptions(ep)
	o.Bucket = "keepme"
	o.Scenarios = []string{"small-put", "burst-put"}
	rep, err := Run(ctx, o, nil)
	if err != nil || len(rep.Cleanup) > 0 {
		t.Fatalf("Run: %v, cleanup %v", err, rep.Cleanup)
	}
	keys, err := c.listAll(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, []string{"theirs"}) {
		t.Errorf("bucket holds %v after the run, want only the key that was there before", keys)
	}
}

// TestRunNoEndpointUsable fails fast when nothing answers.
func TestRunNoEndpointUsable(t *testing.T) {
	gw := startGateway(t, nil)
	o := tinyOptions(Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3})
	o.Credentials.SecretKey = "wrong"
	if _, err := Run(context.Background(), o, nil); err == nil {
		t.Fatal("Run with bad credentials succeeded")
	}
}
