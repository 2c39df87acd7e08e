package main

// This file runs the nginx and Varnish configurations of docs/cdn.md, as
// written there, in front of a real gateway. Each test skips with a clear
// message when its proxy is not installed; .ci/run installs both.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

const (
	nginxBin    = "/usr/sbin/nginx"
	varnishdBin = "/usr/sbin/varnishd"
	cdnDoc      = "../../docs/cdn.md"

	cdnAccess = "AKIDCDNTEST000000000"
	cdnSecret = "cdn/test/secret/0123456789abcdefghijklm"
	cdnBucket = "site"
	// cdnMaxAge is the gateway's --default-cache-control in these tests:
	// short, so that expiry and revalidation happen within the test.
	cdnMaxAge = "max-age=1"
	// cdnWait bounds every wait for a proxy or the gateway.
	cdnWait = 15 * time.Second
)

// docBlock returns the fenced code block that follows the marker
// "<!-- cdn-test: name -->" in docs/cdn.md.
func docBlock(t *testing.T, name string) string {
	t.Helper()
	return docBlockIn(t, cdnDoc, "cdn-test", name)
}

// docBlockIn returns the fenced code block that follows the marker
// "<!-- kind: name -->" in the document at path: the configurations the
// docs give, which the tests run as they are written.
func docBlockIn(t *testing.T, path, kind, name string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	marker := "<!-- " + kind + ": " + name + " -->\n"
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("%s: no %q marker", path, strings.TrimSpace(marker))
	}
	rest := doc[i+len(marker):]
	if !strings.HasPrefix(rest, "```") {
		t.Fatalf("%s: the %s marker is not followed by a code block", path, name)
	}
	rest = rest[strings.Index(rest, "\n")+1:]
	end := strings.Index(rest, "\n```\n")
	if end < 0 {
		t.Fatalf("%s: the %s code block does not end", path, name)
	}
	return rest[:end+1]
}

// replaceOnce replaces old, which must occur exactly once, in s, a
// configuration from docs/cdn.md.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	return replaceOnceIn(t, cdnDoc, s, old, new)
}

// replaceOnceIn replaces old, which must occur exactly once, in s, a
// configuration from the document at path.
func replaceOnceIn(t *testing.T, path, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("the configuration in %s holds %q %d times, want once", path, old, n)
	}
	return strings.Replace(s, old, new, 1)
}

// cdnGateway is the gateway the proxies front: the real serve command,
// in-process, with a public-read bucket.
type cdnGateway struct {
	addr string
	// website is the website endpoint's address, when extra asked for
	// one.
	website string
	client  *s3.Client
	log     *syncBuffer
	// stop shuts the gateway down; it runs at cleanup if not before.
	stop func()
}

// startCDNGateway serves root (a new temporary one if "") with the extra
// serve flags and creates the public-read bucket if it does not exist.
func startCDNGateway(t *testing.T, root string, extra ...string) *cdnGateway {
	t.Helper()
	if root == "" {
		root = t.TempDir()
	}
	g := &cdnGateway{log: &syncBuffer{}}
	sv := startServe(t, append([]string{"--root", root, "--listen", "127.0.0.1:0", "--fsync=false",
		"--default-cache-control", cdnMaxAge}, extra...), map[string]string{
		"OBJECTGATEWAY_ACCESS_KEY": cdnAccess,
		"OBJECTGATEWAY_SECRET_KEY": cdnSecret,
	}, g.log)
	g.addr, g.website, g.stop = sv.addr, sv.website, sv.stop
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	g.client = s3.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: awscreds.NewStaticCredentialsProvider(cdnAccess, cdnSecret, ""),
		HTTPClient:  &http.Client{Transport: tr},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String("http://" + g.addr)
		o.UsePathStyle = true
	})
	if _, err := g.client.HeadBucket(context.Background(), &s3.HeadBucketInput{Bucket: aws.String(cdnBucket)}); err == nil {
		return g
	}
	if _, err := g.client.CreateBucket(context.Background(), &s3.CreateBucketInput{
		Bucket: aws.String(cdnBucket), ACL: s3types.BucketCannedACLPublicRead,
	}); err != nil {
		t.Fatalf("CreateBucket public-read: %v", err)
	}
	// The bucket ACL public-read lists; the objects are published by the
	// bucket policy a CDN origin uses.
	if _, err := g.client.PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{
		Bucket: aws.String(cdnBucket), Policy: aws.String(publicObjectsPolicy(cdnBucket)),
	}); err != nil {
		t.Fatalf("PutBucketPolicy: %v", err)
	}
	return g
}

// publicObjectsPolicy is the bucket policy that lets everyone read and
// list bucket's objects, what the canned public-read of earlier versions
// granted.
func publicObjectsPolicy(bucket string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + bucket + `/*"},` +
		`{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::` + bucket + `"}]}`
}

func (g *cdnGateway) put(t *testing.T, key string, data []byte) {
	t.Helper()
	if _, err := g.client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(cdnBucket), Key: aws.String(key), Body: bytes.NewReader(data),
	}); err != nil {
		t.Fatalf("PutObject %s: %v", key, err)
	}
}

// count returns how many GetObject requests for key the gateway answered
// with status, from its access log.
func (g *cdnGateway) count(key string, status int) int {
	return g.countOp("GetObject", key, status)
}

// countOp returns how many op requests for key the gateway answered with
// status, from its access log.
func (g *cdnGateway) countOp(op, key string, status int) int {
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

// freePort returns a port nothing listened on a moment ago. nginx and
// varnishd cannot report the port they chose, so they get this one.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startProxy runs cmd until cleanup and waits until addr accepts
// connections; logs are shown if it does not.
func startProxy(t *testing.T, cmd *exec.Cmd, addr string, logs func() string) {
	t.Helper()
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(cdnWait):
			cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(cdnWait)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("%s exited: %v\n%s\n%s", cmd.Path, err, out.String(), logs())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s within %v\n%s\n%s", cmd.Path, addr, cdnWait, out.String(), logs())
		}
	}
}

// TestCDNNginx runs docs/cdn.md's nginx configuration in front of the
// gateway.
func TestCDNNginx(t *testing.T) {
	if _, err := os.Stat(nginxBin); err != nil {
		t.Skipf("nginx is not installed (%s: %v): the docs/cdn.md nginx configuration is not exercised; apt-get install nginx", nginxBin, err)
	}
	conf := docBlock(t, "nginx")
	g := startCDNGateway(t, "")
	dir := t.TempDir()
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	conf = replaceOnce(t, conf, "server 127.0.0.1:9000;", "server "+g.addr+";")
	conf = replaceOnce(t, conf, "listen 80;", "listen "+addr+";")
	conf = replaceOnce(t, conf, "/var/cache/nginx/s3", filepath.Join(dir, "cache"))
	startNginxConf(t, conf, addr)
	runCDNChecks(t, g, cdnProxy{
		name: "nginx", addr: addr,
		miss: "MISS", hit: "HIT", revalidated: "REVALIDATED", signed: "", slices: true,
	})
}

// TestCDNVarnish runs docs/cdn.md's VCL in front of the gateway.
func TestCDNVarnish(t *testing.T) {
	if _, err := os.Stat(varnishdBin); err != nil {
		t.Skipf("Varnish is not installed (%s: %v): the docs/cdn.md VCL is not exercised; apt-get install varnish", varnishdBin, err)
	}
	vcl := docBlock(t, "varnish")
	g := startCDNGateway(t, "")
	host, gport, err := net.SplitHostPort(g.addr)
	if err != nil {
		t.Fatal(err)
	}
	vcl = replaceOnce(t, vcl, `.host = "127.0.0.1";`, `.host = "`+host+`";`)
	vcl = replaceOnce(t, vcl, `.port = "9000";`, `.port = "`+gport+`";`)
	// varnishd drops privileges to its own users when started as root, so
	// its directory must be reachable by them: not under t.TempDir(),
	// which is private to this user.
	dir, err := os.MkdirTemp("", "objectgateway-varnish-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	vclPath := filepath.Join(dir, "objectgateway.vcl")
	if err := os.WriteFile(vclPath, []byte(vcl), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cmd := exec.Command(varnishdBin, "-F", "-a", addr, "-f", vclPath, "-s", "malloc,32m", "-n", filepath.Join(dir, "work"))
	startProxy(t, cmd, addr, func() string { return "" })
	runCDNChecks(t, g, cdnProxy{
		name: "varnish", addr: addr,
		miss: "MISS", hit: "HIT", signed: "PASS",
	})
}

// checkLargeRanges puts a 3 MiB object of random bytes (seeded with seed)
// at the gateway and checks, through get (which sends the given Range
// header, none for ""), three ranges — one crossing 1 MiB boundaries, a
// short one and a suffix — and a full GET. It returns the object's bytes.
func checkLargeRanges(t *testing.T, g *cdnGateway, name, key string, seed uint64, get func(rng string) cdnResponse) []byte {
	t.Helper()
	data := make([]byte, 3<<20+12345)
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	g.put(t, key, data)
	for _, c := range []struct{ rng, contentRange string }{
		{"bytes=1048000-2100000", "bytes 1048000-2100000/" + strconv.Itoa(len(data))},
		{"bytes=5-9", "bytes 5-9/" + strconv.Itoa(len(data))},
		{"bytes=-70000", fmt.Sprintf("bytes %d-%d/%d", len(data)-70000, len(data)-1, len(data))},
	} {
		r := get(c.rng)
		var first, last int
		fmt.Sscanf(c.contentRange, "bytes %d-%d/", &first, &last)
		if r.status != http.StatusPartialContent || r.header.Get("Content-Range") != c.contentRange || !bytes.Equal(r.body, data[first:last+1]) {
			t.Errorf("%s GET Range %s: %d Content-Range %q, %d bytes (equal: %v), want 206 %q, %d bytes",
				name, c.rng, r.status, r.header.Get("Content-Range"), len(r.body), bytes.Equal(r.body, data[first:last+1]), c.contentRange, last+1-first)
		}
	}
	if r := get(""); r.status != http.StatusOK || !bytes.Equal(r.body, data) {
		t.Errorf("%s full GET of the large object: %d, %d bytes (equal: %v), want 200, %d bytes", name, r.status, len(r.body), bytes.Equal(r.body, data), len(data))
	}
	return data
}

// cdnProxy is a running proxy and the X-Cache-Status values its
// configuration reports.
type cdnProxy struct {
	name, addr string
	miss, hit  string
	// revalidated is reported for a copy refreshed by a 304; "" when the
	// proxy does not say (Varnish revalidates in the background).
	revalidated string
	// signed is reported for a signed request ("" for no header).
	signed string
	// slices is set when the proxy fetches large objects in ranges (nginx's
	// slice module) rather than whole (Varnish).
	slices bool
}

type cdnResponse struct {
	status int
	header http.Header
	body   []byte
}

func (p cdnProxy) get(t *testing.T, key string, hdr map[string]string, sign bool) cdnResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+p.addr+"/"+cdnBucket+"/"+key, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if sign {
		req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
		creds := aws.Credentials{AccessKeyID: cdnAccess, SecretAccessKey: cdnSecret}
		if err := signer.SignHTTP(context.Background(), creds, req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	client := &http.Client{Timeout: cdnWait}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s GET %s: %v", p.name, key, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s GET %s: reading body: %v", p.name, key, err)
	}
	return cdnResponse{status: resp.StatusCode, header: resp.Header, body: body}
}

// eventually polls cond until it holds or cdnWait passes.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(cdnWait)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last: %s", what, cdnWait, last)
		}
		<-tick.C
	}
}

func runCDNChecks(t *testing.T, g *cdnGateway, p cdnProxy) {
	const page = "index.html"
	v1, v2, v3 := []byte("<h1>version one</h1>\n"), []byte("<h1>version two, longer</h1>\n"), []byte("<h1>three</h1>\n")
	g.put(t, page, v1)

	// 1. A miss, then a hit, with the object's bytes and validators.
	r := p.get(t, page, nil, false)
	if r.status != http.StatusOK || !bytes.Equal(r.body, v1) || r.header.Get("X-Cache-Status") != p.miss {
		t.Fatalf("%s first GET: %d %q X-Cache-Status %q, want 200 %q %q", p.name, r.status, r.body, r.header.Get("X-Cache-Status"), v1, p.miss)
	}
	if r.header.Get("ETag") == "" || r.header.Get("Last-Modified") == "" || r.header.Get("Cache-Control") != cdnMaxAge {
		t.Errorf("%s first GET: ETag %q Last-Modified %q Cache-Control %q", p.name, r.header.Get("ETag"), r.header.Get("Last-Modified"), r.header.Get("Cache-Control"))
	}
	r = p.get(t, page, nil, false)
	if r.status != http.StatusOK || !bytes.Equal(r.body, v1) || r.header.Get("X-Cache-Status") != p.hit {
		t.Fatalf("%s second GET: %d %q X-Cache-Status %q, want 200 %q %q", p.name, r.status, r.body, r.header.Get("X-Cache-Status"), v1, p.hit)
	}

	// 2. Once the copy expires it is revalidated: a 304 from the gateway,
	// and the same bytes.
	sawRevalidated := p.revalidated == ""
	eventually(t, p.name+": revalidation answered 304 by the gateway", func() (bool, string) {
		r := p.get(t, page, nil, false)
		if r.status != http.StatusOK || !bytes.Equal(r.body, v1) {
			t.Fatalf("%s GET while revalidating: %d %q, want 200 %q", p.name, r.status, r.body, v1)
		}
		if r.header.Get("X-Cache-Status") == p.revalidated {
			sawRevalidated = true
		}
		return sawRevalidated && g.count(page, http.StatusNotModified) > 0,
			fmt.Sprintf("X-Cache-Status %q, %d 304s at the gateway", r.header.Get("X-Cache-Status"), g.count(page, http.StatusNotModified))
	})

	// 3. An overwrite at the gateway reaches the edge once the copy
	// expires; until then the old bytes are served, never anything else.
	g.put(t, page, v2)
	eventually(t, p.name+": the overwritten object is served", func() (bool, string) {
		r := p.get(t, page, nil, false)
		if r.status != http.StatusOK || (!bytes.Equal(r.body, v1) && !bytes.Equal(r.body, v2)) {
			t.Fatalf("%s GET after overwrite: %d %q", p.name, r.status, r.body)
		}
		return bytes.Equal(r.body, v2), fmt.Sprintf("%q X-Cache-Status %q", r.body, r.header.Get("X-Cache-Status"))
	})

	// 4. Ranges of a large object (nginx: through the slice location, the
	// ranges crossing its 1 MiB slices).
	const big = "video/movie.mp4"
	checkLargeRanges(t, g, p.name, big, 1, func(rng string) cdnResponse {
		var hdr map[string]string
		if rng != "" {
			hdr = map[string]string{"Range": rng}
		}
		return p.get(t, big, hdr, false)
	})
	whole, parts := g.count(big, http.StatusOK), g.count(big, http.StatusPartialContent)
	if p.slices && (whole != 0 || parts < 4) {
		t.Errorf("%s fetched the large object as %d whole GETs and %d ranges, want only ranges (4 slices of 1 MiB)", p.name, whole, parts)
	}
	if !p.slices && whole != 1 {
		t.Errorf("%s fetched the large object %d times whole, want once", p.name, whole)
	}

	// 5. Signed requests (Authorization header, presigned URL) pass through
	// uncached: an overwrite shows at once.
	for i, want := range [][]byte{v2, v3} {
		if i == 1 {
			g.put(t, page, v3)
		}
		r := p.get(t, page, nil, true)
		if r.status != http.StatusOK || !bytes.Equal(r.body, want) || r.header.Get("X-Cache-Status") != p.signed {
			t.Errorf("%s signed GET %d: %d %q X-Cache-Status %q, want 200 %q %q", p.name, i+1, r.status, r.body, r.header.Get("X-Cache-Status"), want, p.signed)
		}
	}
	// A presigned URL (signed for the proxy's host) passes through too.
	presign := s3.NewPresignClient(s3.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: awscreds.NewStaticCredentialsProvider(cdnAccess, cdnSecret, ""),
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String("http://" + p.addr)
		o.UsePathStyle = true
	}))
	ps, err := presign.PresignGetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(cdnBucket), Key: aws.String(page)})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(ps.URL)
	if err != nil {
		t.Fatal(err)
	}
	r = p.get(t, page+"?"+u.RawQuery, nil, false)
	if r.status != http.StatusOK || !bytes.Equal(r.body, v3) || r.header.Get("X-Cache-Status") != p.signed {
		t.Errorf("%s presigned GET: %d %q X-Cache-Status %q, want 200 %q %q", p.name, r.status, r.body, r.header.Get("X-Cache-Status"), v3, p.signed)
	}
}
