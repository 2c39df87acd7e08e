package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// websiteGet sends method path to the website endpoint at addr for host,
// without following redirects.
func websiteGet(t *testing.T, method, addr, host, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	client := &http.Client{Timeout: cdnWait, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp, string(body)
}

// putSite gives the public-read bucket of g an index document, a
// directory and an error document, and a website configuration.
func putSite(t *testing.T, g *cdnGateway) {
	t.Helper()
	for key, body := range map[string]string{"index.html": "home page", "dir/index.html": "dir page", "error.html": "custom error page"} {
		if _, err := g.client.PutObject(context.Background(), &s3.PutObjectInput{
			Bucket: aws.String(cdnBucket), Key: aws.String(key), Body: strings.NewReader(body), ContentType: aws.String("text/html"),
		}); err != nil {
			t.Fatalf("PutObject %s: %v", key, err)
		}
	}
	if _, err := g.client.PutBucketWebsite(context.Background(), &s3.PutBucketWebsiteInput{Bucket: aws.String(cdnBucket),
		WebsiteConfiguration: &s3types.WebsiteConfiguration{
			IndexDocument: &s3types.IndexDocument{Suffix: aws.String("index.html")},
			ErrorDocument: &s3types.ErrorDocument{Key: aws.String("error.html")},
		}}); err != nil {
		t.Fatalf("PutBucketWebsite: %v", err)
	}
}

// TestServeWebsiteListener checks --website-listen and --website-domain:
// the website endpoint serves a bucket's site on its own listener, for
// bucket.DOMAIN hosts, refuses writes with 405, and logs its requests.
func TestServeWebsiteListener(t *testing.T) {
	g := startCDNGateway(t, "", "--website-listen", "127.0.0.1:0", "--website-domain", "sites.test")
	if g.website == "" || g.website == g.addr {
		t.Fatalf("website endpoint address %q (S3 on %q)", g.website, g.addr)
	}
	putSite(t, g)
	host := cdnBucket + ".sites.test"
	resp, body := websiteGet(t, http.MethodGet, g.website, host, "/")
	if resp.StatusCode != 200 || body != "home page" {
		t.Errorf("GET /: %d %q", resp.StatusCode, body)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != cdnMaxAge {
		t.Errorf("GET / Cache-Control %q, want the server default %q", cc, cdnMaxAge)
	}
	resp, body = websiteGet(t, http.MethodPut, g.website, host, "/index.html")
	if resp.StatusCode != 405 || !strings.Contains(body, "MethodNotAllowed") {
		t.Errorf("PUT: %d %q", resp.StatusCode, body)
	}
	resp, body = websiteGet(t, http.MethodGet, g.website, "other.example", "/")
	if resp.StatusCode != 404 || !strings.Contains(body, "NoSuchBucket") {
		t.Errorf("a host outside --website-domain: %d %q", resp.StatusCode, body)
	}
	// The S3 listener still answers S3, not the site.
	resp, _ = websiteGet(t, http.MethodGet, g.addr, host, "/")
	if resp.StatusCode == 200 && strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("the S3 listener served the site")
	}
	if n := g.countOp("WebsiteGetObject", "index.html", 200); n != 1 {
		t.Errorf("%d WebsiteGetObject lines for index.html in the access log, want 1\n%s", n, g.log.String())
	}
}

// TestServeWebsiteEdgeRefused checks that --website-listen is refused in
// edge mode, where the gateway holds no buckets of its own.
func TestServeWebsiteEdgeRefused(t *testing.T) {
	err := serve(t.Context(), []string{"--root", t.TempDir(), "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1",
		"--cache-dir", t.TempDir(), "--website-listen", "127.0.0.1:0"},
		env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "--website-listen") {
		t.Errorf("serve in edge mode with --website-listen: %v", err)
	}
}

// TestCDNNginxWebsite runs docs/cdn.md's nginx configuration for the
// website endpoint in front of it.
func TestCDNNginxWebsite(t *testing.T) {
	if _, err := os.Stat(nginxBin); err != nil {
		t.Skipf("nginx is not installed (%s: %v): the docs/cdn.md website configuration is not exercised; apt-get install nginx", nginxBin, err)
	}
	conf := docBlock(t, "nginx-website")
	g := startCDNGateway(t, "", "--website-listen", "127.0.0.1:0", "--website-domain", "sites.test")
	putSite(t, g)
	dir := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	conf = replaceOnce(t, conf, "server 127.0.0.1:9080;", "server "+g.website+";")
	conf = replaceOnce(t, conf, "listen 80;", "listen "+addr+";")
	conf = replaceOnce(t, conf, "/var/cache/nginx/site", filepath.Join(dir, "cache"))
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n"
	}
	main := fmt.Sprintf(`%sworker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log info;
events { worker_connections 128; }
http {
    access_log %[2]s/access.log;
    client_body_temp_path %[2]s/client_body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    include %[2]s/site.conf;
}
`, user, dir)
	if err := os.WriteFile(filepath.Join(dir, "site.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginxBin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", filepath.Join(dir, "nginx.conf"), "-g", "daemon off;")
	startProxy(t, cmd, addr, func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return string(b)
	})

	host := cdnBucket + ".sites.test"
	resp, body := websiteGet(t, http.MethodGet, addr, host, "/")
	if resp.StatusCode != 200 || body != "home page" || resp.Header.Get("X-Cache-Status") != "MISS" {
		t.Errorf("first GET /: %d %q %s", resp.StatusCode, body, resp.Header.Get("X-Cache-Status"))
	}
	resp, body = websiteGet(t, http.MethodGet, addr, host, "/?utm=1")
	if resp.StatusCode != 200 || body != "home page" || resp.Header.Get("X-Cache-Status") != "HIT" {
		t.Errorf("second GET /: %d %q %s", resp.StatusCode, body, resp.Header.Get("X-Cache-Status"))
	}
	if n := g.countOp("WebsiteGetObject", "index.html", 200); n != 1 {
		t.Errorf("the gateway served index.html %d times, want once (then from the cache)", n)
	}
	resp, body = websiteGet(t, http.MethodGet, addr, host, "/missing.html")
	if resp.StatusCode != 404 || body != "custom error page" {
		t.Errorf("GET a missing page: %d %q", resp.StatusCode, body)
	}
	resp, _ = websiteGet(t, http.MethodGet, addr, host, "/dir")
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "/dir/" {
		t.Errorf("GET /dir: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body = websiteGet(t, http.MethodGet, addr, host, "/dir/")
	if resp.StatusCode != 200 || body != "dir page" {
		t.Errorf("GET /dir/: %d %q", resp.StatusCode, body)
	}
	resp, _ = websiteGet(t, http.MethodPost, addr, host, "/index.html")
	if resp.StatusCode != 403 {
		t.Errorf("POST through nginx: %d, want 403 from limit_except", resp.StatusCode)
	}
}
