package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

const (
	edgeAccess = "AKIDEDGETEST00000000"
	edgeSecret = "edge/test/secret/0123456789abcdefghijk"
)

// edgeNode is an edge-mode gateway started by serve in-process.
type edgeNode struct{ *served }

// stepClock is the edge cache's clock in these tests: it stands still
// until the test steps it, so a copy the origin marks max-age=1 stays
// fresh however slow the machine, and expires exactly when stepped past.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// step moves the clock forward by d. The clock starts at the real time
// and is stepped by minutes at most, so the edge's signatures to the
// origin stay within SigV4's 15-minute skew.
func (c *stepClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// expire is a step past the origin's max-age (cdnMaxAge, 1 second).
const expire = time.Minute

func startEdge(t *testing.T, root, origin string, clock *stepClock) *edgeNode {
	t.Helper()
	return startEdgeFlags(t, root, origin, env{edgeNow: clock.Now}, nil)
}

// startEdgeFlags is startEdge with more of the command's environment
// (base: its clock, which should be set, and hooks), the log written to
// logw (nil: discarded) and extra serve flags after startEdge's, which
// they override.
func startEdgeFlags(t *testing.T, root, origin string, base env, logw io.Writer, extra ...string) *edgeNode {
	t.Helper()
	args := []string{"--root", root, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--fsync=false", "--log-level", "error", "--upstream", "http://" + origin, "--upstream-access-key", cdnAccess,
		"--edge-public", "--cache-slice", "1MiB", "--cache-size", "64MiB"}
	return &edgeNode{startServeEnv(t, append(args, extra...), map[string]string{
		"OBJECTGATEWAY_ACCESS_KEY":          edgeAccess,
		"OBJECTGATEWAY_SECRET_KEY":          edgeSecret,
		"OBJECTGATEWAY_UPSTREAM_SECRET_KEY": cdnSecret,
	}, logw, base)}
}

func (n *edgeNode) get(t *testing.T, key, rng string) cdnResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+n.addr+"/"+cdnBucket+"/"+key, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := (&http.Client{Timeout: cdnWait}).Do(req)
	if err != nil {
		t.Fatalf("edge GET %s: %v", key, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("edge GET %s: reading body: %v", key, err)
	}
	return cdnResponse{status: resp.StatusCode, header: resp.Header, body: body}
}

// originCount counts the origin's access-log lines of op on key with
// status.
func originCount(g *cdnGateway, op, key string, status int) int {
	n := 0
	for _, line := range strings.Split(g.log.String(), "\n") {
		var m struct {
			Op     string `json:"op"`
			Key    string `json:"key"`
			Status int    `json:"status"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Op == op && m.Key == key && m.Status == status {
			n++
		}
	}
	return n
}

// TestEdgeMode runs an edge-mode gateway in front of an origin gateway:
// miss then hit, revalidation by a HEAD, an overwrite reaching the edge,
// ranges fetched as slices, signed access with the edge's own users,
// refused writes, purge through the admin listener, and a restart that
// keeps the cache. The edge's clock moves only when the test steps it,
// so every copy is fresh or expired because the test made it so.
func TestEdgeMode(t *testing.T) {
	g := startCDNGateway(t, "")
	edgeRoot := t.TempDir()
	clock := &stepClock{t: time.Now()}
	n := startEdge(t, edgeRoot, g.addr, clock)

	const page = "index.html"
	v1, v2 := []byte("<h1>edge one</h1>\n"), []byte("<h1>edge two, longer</h1>\n")
	g.put(t, page, v1)
	if r := n.get(t, page, ""); r.status != 200 || !bytes.Equal(r.body, v1) || r.header.Get("X-Cache") != "MISS" ||
		r.header.Get("Cache-Control") != cdnMaxAge || r.header.Get("ETag") == "" || r.header.Get("Last-Modified") == "" {
		t.Fatalf("first GET: %d %q X-Cache %q headers %v", r.status, r.body, r.header.Get("X-Cache"), r.header)
	}
	if r := n.get(t, page, ""); r.status != 200 || !bytes.Equal(r.body, v1) || r.header.Get("X-Cache") != "HIT" {
		t.Fatalf("second GET: %d %q X-Cache %q", r.status, r.body, r.header.Get("X-Cache"))
	}
	if got := originCount(g, "GetObject", page, 206) + originCount(g, "GetObject", page, 200); got != 1 {
		t.Errorf("origin GETs of %s after a miss and a hit: %d, want 1", page, got)
	}

	// Expiry (max-age=1) → a HEAD answered 200 with the same ETag: same
	// bytes, no download.
	clock.step(expire)
	if r := n.get(t, page, ""); r.status != 200 || !bytes.Equal(r.body, v1) || r.header.Get("X-Cache") != "REVALIDATED" {
		t.Fatalf("GET of the expired copy: %d %q X-Cache %q, want 200 %q REVALIDATED", r.status, r.body, r.header.Get("X-Cache"), v1)
	}
	// The origin logs a request once it has answered it, so its line may
	// trail the edge's answer by a moment.
	eventually(t, "the origin's HEAD answer to the edge's revalidation", func() (bool, string) {
		c := originCount(g, "HeadObject", page, 200)
		return c > 0, fmt.Sprintf("%d HeadObject 200 lines", c)
	})
	if got := originCount(g, "GetObject", page, 206) + originCount(g, "GetObject", page, 200); got != 1 {
		t.Errorf("origin GETs of %s after the revalidation: %d, want 1 (no download)", page, got)
	}
	if r := n.get(t, page, ""); r.header.Get("X-Cache") != "HIT" || !bytes.Equal(r.body, v1) {
		t.Fatalf("GET after revalidation: %q X-Cache %q, want a HIT", r.body, r.header.Get("X-Cache"))
	}

	// An overwrite at the origin is not seen while the copy is fresh, and
	// reaches the edge once the copy expires.
	g.put(t, page, v2)
	if r := n.get(t, page, ""); r.status != 200 || !bytes.Equal(r.body, v1) || r.header.Get("X-Cache") != "HIT" {
		t.Fatalf("GET of the fresh copy after the overwrite: %d %q X-Cache %q, want the old bytes, a HIT", r.status, r.body, r.header.Get("X-Cache"))
	}
	clock.step(expire)
	if r := n.get(t, page, ""); r.status != 200 || !bytes.Equal(r.body, v2) {
		t.Fatalf("GET of the expired copy after the overwrite: %d %q X-Cache %q, want %q", r.status, r.body, r.header.Get("X-Cache"), v2)
	}

	// Ranges of a large object: fetched from the origin as 1 MiB slices.
	const big = "video/movie.mp4"
	data := checkLargeRanges(t, g, "edge", big, 3, func(rng string) cdnResponse { return n.get(t, big, rng) })
	if whole, parts := originCount(g, "GetObject", big, 200), originCount(g, "GetObject", big, 206); whole != 0 || parts < 4 || parts > 6 {
		t.Errorf("the origin served the large object as %d whole GETs and %d ranges, want only ranges, each of its 4 slices about once", whole, parts)
	}

	// Signed access with the edge's own credentials; writes are refused.
	client := s3Client(n.addr, edgeAccess, edgeSecret)
	out, err := client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(cdnBucket), Key: aws.String(big)})
	if err != nil {
		t.Fatalf("SDK GetObject through the edge: %v", err)
	}
	got, err := io.ReadAll(out.Body)
	out.Body.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("SDK GetObject through the edge: %d bytes, %v", len(got), err)
	}
	_, err = client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(cdnBucket), Key: aws.String("new"), Body: strings.NewReader("x")})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "NotImplemented" {
		t.Errorf("PutObject through the edge: %v, want NotImplemented", err)
	}

	// Names that could leave the bucket or the origin's base path through
	// a proxy in front of the origin are refused, not passed on.
	for _, c := range []struct{ path, code string }{
		{"/%2e%2e/%2e%2e/admin/secret", "InvalidBucketName"},
		{"/" + cdnBucket + "/a/../other/" + page, "InvalidArgument"},
		{"/" + cdnBucket + "/./" + page, "InvalidArgument"},
	} {
		resp, err := http.Get("http://" + n.addr + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "<Code>"+c.code+"</Code>") {
			t.Errorf("GET %s through the edge: %d %s, want 400 %s", c.path, resp.StatusCode, body, c.code)
		}
	}
	if got := originCount(g, "GetObject", "../admin/secret", 200) + originCount(g, "GetObject", "a/../other/"+page, 200); got != 0 {
		t.Errorf("the origin was asked for a dot-segment key %d times", got)
	}

	// A SigV2 presigned URL gets the gateway's own answer, not NotImplemented.
	sigv2 := "/" + cdnBucket + "/" + page + "?AWSAccessKeyId=" + edgeAccess + "&Signature=abc%3D&Expires=1"
	var codes [2]int
	for i, host := range []string{g.addr, n.addr} {
		resp, err := http.Get("http://" + host + sigv2)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes[i] = resp.StatusCode
	}
	if codes[1] != codes[0] || codes[1] == http.StatusNotImplemented {
		t.Errorf("SigV2 presigned GET: edge %d, gateway %d", codes[1], codes[0])
	}

	// Purge: unsigned is refused; signed by the root user removes the key.
	purge := func(query string, sign bool) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, "http://"+n.admin+"/edge/purge?"+query, nil)
		if sign {
			sigv4.SignRequest(req, edgeAccess, edgeSecret, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := purge("bucket="+cdnBucket+"&key="+page, false); code != 403 {
		t.Errorf("unsigned purge: %d, want 403", code)
	}
	if code, body := purge("bucket="+cdnBucket+"&key="+page, true); code != 200 || !strings.Contains(body, `"purged":1`) {
		t.Errorf("purge of one key: %d %s", code, body)
	}
	if r := n.get(t, page, ""); r.header.Get("X-Cache") != "MISS" || !bytes.Equal(r.body, v2) {
		t.Errorf("GET after purge: X-Cache %q %q, want a MISS", r.header.Get("X-Cache"), r.body)
	}
	_, metrics := get(t, "http://"+n.admin+"/metrics")
	if !strings.Contains(metrics, "objectgateway_edge_hits_total") || !strings.Contains(metrics, "objectgateway_edge_disk_healthy 1") {
		t.Errorf("edge metrics missing from /metrics")
	}

	// A restart keeps the cache: the large object is a HIT, no origin GET.
	before := originCount(g, "GetObject", big, 206) + originCount(g, "GetObject", big, 200)
	n.stop()
	n = startEdge(t, edgeRoot, g.addr, clock)
	if r := n.get(t, big, ""); r.status != 200 || !bytes.Equal(r.body, data) || r.header.Get("X-Cache") != "HIT" {
		t.Errorf("GET after restart: %d X-Cache %q (equal %v)", r.status, r.header.Get("X-Cache"), bytes.Equal(r.body, data))
	}
	if after := originCount(g, "GetObject", big, 206) + originCount(g, "GetObject", big, 200); after != before {
		t.Errorf("origin GETs of the large object after the restart: %d more, want 0", after-before)
	}
}

// TestEdgeCacheDirFlag checks the parsing of --cache-dir: a plain
// directory (the single-dir form), DIR:SIZE, repeats, comma lists, and
// the refusal of a colon not followed by a size.
func TestEdgeCacheDirFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want cacheDirs
		bad  bool
	}{
		{args: nil, want: nil},
		{args: []string{"--cache-dir", "/var/cache/edge"}, want: cacheDirs{{dir: "/var/cache/edge"}}},
		{args: []string{"--cache-dir", "/ssd1/edge:200GiB", "--cache-dir", "/ssd2/edge:100GiB"},
			want: cacheDirs{{dir: "/ssd1/edge", size: 200 << 30}, {dir: "/ssd2/edge", size: 100 << 30}}},
		{args: []string{"--cache-dir", "/ssd1/edge,/ssd2/edge:1GB"}, want: cacheDirs{{dir: "/ssd1/edge"}, {dir: "/ssd2/edge", size: 1e9}}},
		{args: []string{"--cache-dir", "/mnt/a:b"}, bad: true},
		{args: []string{"--cache-dir", "/ssd1:0"}, bad: true},
		{args: []string{"--cache-dir", ":1GiB"}, bad: true},
		{args: []string{"--cache-dir", "/a,,/b"}, bad: true},
	} {
		cfg, err := parseConfig(append([]string{"--upstream", "http://127.0.0.1:1"}, c.args...), io.Discard, func(string) string { return "" })
		if c.bad {
			if err == nil {
				t.Errorf("%q accepted: %v", c.args, cfg.cacheDirs)
			}
			continue
		}
		if err != nil || fmt.Sprint(cfg.cacheDirs) != fmt.Sprint(c.want) {
			t.Errorf("%q: %v, %v; want %v", c.args, cfg.cacheDirs, err, c.want)
		}
	}
	cfg, err := parseConfig(nil, io.Discard, func(k string) string {
		if k == "OBJECTGATEWAY_CACHE_DIR" {
			return "/ssd1/edge:2GiB,/ssd2/edge:1GiB"
		}
		return ""
	})
	if err != nil || len(cfg.cacheDirs) != 2 || cfg.cacheDirs[1].size != 1<<30 {
		t.Errorf("OBJECTGATEWAY_CACHE_DIR: %v, %v", cfg.cacheDirs, err)
	}
}

// TestEdgeCacheDirs runs an edge with two cache disks, one of them not
// mounted (its directory absent): the edge starts, caches on the other,
// and /metrics shows each disk's figures and state.
func TestEdgeCacheDirs(t *testing.T) {
	g := startCDNGateway(t, "")
	present := t.TempDir()
	absent := filepath.Join(t.TempDir(), "not-mounted")
	n := &edgeNode{startServeEnv(t, []string{"--root", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--fsync=false", "--log-level", "error", "--upstream", "http://" + g.addr, "--upstream-access-key", cdnAccess,
		"--edge-public", "--cache-slice", "1MiB", "--cache-dir", present + ":64MiB", "--cache-dir", absent + ":32MiB"}, map[string]string{
		"OBJECTGATEWAY_ACCESS_KEY":          edgeAccess,
		"OBJECTGATEWAY_SECRET_KEY":          edgeSecret,
		"OBJECTGATEWAY_UPSTREAM_SECRET_KEY": cdnSecret,
	}, nil, env{})}
	v := []byte("<h1>two disks</h1>\n")
	g.put(t, "page.html", v)
	if r := n.get(t, "page.html", ""); r.status != 200 || !bytes.Equal(r.body, v) || r.header.Get("X-Cache") != "MISS" {
		t.Fatalf("first GET: %d %q X-Cache %q", r.status, r.body, r.header.Get("X-Cache"))
	}
	if r := n.get(t, "page.html", ""); r.status != 200 || !bytes.Equal(r.body, v) || r.header.Get("X-Cache") != "HIT" {
		t.Fatalf("second GET: %d %q X-Cache %q", r.status, r.body, r.header.Get("X-Cache"))
	}
	if _, err := os.Stat(absent); !os.IsNotExist(err) {
		t.Errorf("the absent cache directory was created (%v)", err)
	}
	_, metrics := get(t, "http://"+n.admin+"/metrics")
	for _, want := range []string{
		`objectgateway_edge_cache_disk_healthy{disk="` + present + `"} 1`,
		`objectgateway_edge_cache_disk_healthy{disk="` + absent + `"} 0`,
		`objectgateway_edge_cache_disk_objects{disk="` + present + `"} 1`,
		`objectgateway_edge_cache_disk_hits_total{disk="` + present + `"} 1`,
		`objectgateway_edge_cache_disk_misses_total{disk="` + present + `"} 1`,
		`objectgateway_edge_cache_disk_max_bytes{disk="` + absent + `"} 3.3554432e+07`,
		"objectgateway_edge_disk_healthy 0",
		"objectgateway_edge_objects 1",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
