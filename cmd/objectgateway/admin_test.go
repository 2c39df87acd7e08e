package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAdminListener checks /healthz, /readyz, /metrics (with the request
// counters of an S3 request made before the scrape) and that pprof is off
// unless asked for.
func TestAdminListener(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	sv := startServe(t, []string{"--root", root, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--log-level", "error"}, nil, nil)
	admin, s3addr := sv.admin, sv.addr
	if code, body := get(t, "http://"+admin+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	if code, _ := get(t, "http://"+admin+"/readyz"); code != 200 {
		t.Fatalf("/readyz once serving: %d", code)
	}
	get(t, "http://"+s3addr+"/") // anonymous: 403 AccessDenied
	code, body := get(t, "http://"+admin+"/metrics")
	if code != 200 || !strings.Contains(body, `objectgateway_requests_total{op="ListBuckets",status="403"} 1`) || !strings.Contains(body, "objectgateway_index_bytes") {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	if code, _ := get(t, "http://"+admin+"/debug/pprof/"); code != 404 {
		t.Fatalf("pprof must be off by default, got %d", code)
	}
	// The S3 listener does not serve the admin paths: /healthz there is a
	// bucket name like any other, and anonymous requests are refused.
	if code, _ := get(t, "http://"+s3addr+"/healthz"); code != 403 {
		t.Fatalf("/healthz on the S3 listener: %d, want 403", code)
	}
}
