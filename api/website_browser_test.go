package api_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/api"
)

// chromiumBin is Debian's Chromium, which .ci/run installs.
const chromiumBin = "/usr/bin/chromium"

// browserWait bounds each run of the browser.
const browserWait = 60 * time.Second

// browserPage is the site's index document. Once the page, its style
// sheet and its image have loaded, its script writes what the browser
// made of them into #probe: the heading's computed colour (set only by
// the style sheet) and the image's decoded size.
const browserPage = `<!doctype html>
<html><head><title>Home</title><link rel="stylesheet" href="/css/site.css"></head>
<body><h1 id="title">Welcome to the site</h1><img id="logo" src="/img/logo.png" alt="logo">
<p id="probe">pending</p>
<script>
window.addEventListener("load", function () {
  var h = document.getElementById("title"), img = document.getElementById("logo");
  document.getElementById("probe").textContent =
    "color=" + getComputedStyle(h).color + " img=" + img.naturalWidth + "x" + img.naturalHeight;
});
</script></body></html>
`

// dumpDOM loads url in headless Chromium, with every host under
// site.test resolved to 127.0.0.1, and returns the DOM once the page has
// loaded. It skips the test when Chromium is missing or cannot start.
func dumpDOM(t *testing.T, url string) string {
	t.Helper()
	if _, err := os.Stat(chromiumBin); err != nil {
		t.Skipf("Chromium is not installed (%s: %v): the website endpoint is not checked in a browser; apt-get install chromium", chromiumBin, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), browserWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumBin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--no-proxy-server", "--host-resolver-rules=MAP *.site.test 127.0.0.1",
		"--user-data-dir="+t.TempDir(), "--dump-dom", url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Chromium did not load %s within %v\n%s", url, browserWait, stderr.String())
	}
	if err != nil || stdout.Len() == 0 {
		t.Skipf("Chromium cannot start here (%v): the website endpoint is not checked in a browser\n%s", err, stderr.String())
	}
	return stdout.String()
}

// TestWebsiteBrowser serves a small site from a bucket on the website
// endpoint and loads it in headless Chromium: the index document with
// its linked style sheet applied and its image decoded, and a missing
// page showing the error document.
func TestWebsiteBrowser(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("browser")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	// The website endpoint serves what the bucket policy lets everyone
	// read; the canned bucket ACL public-read would only let them list.
	putPolicy(t, c, bucket, publicReadPolicy(bucket, "", true))
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for x := range 3 {
		for y := range 2 {
			img.Set(x, y, color.RGBA{R: 200, A: 255})
		}
	}
	var logo bytes.Buffer
	if err := png.Encode(&logo, img); err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct{ key, ct, body string }{
		{"index.html", "text/html", browserPage},
		{"css/site.css", "text/css", "h1 { color: rgb(1, 2, 3); }\n"},
		{"img/logo.png", "image/png", logo.String()},
		{"error.html", "text/html", `<!doctype html><html><body><p id="err">Sorry, that page is not here</p></body></html>`},
	} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(o.key),
			Body: strings.NewReader(o.body), ContentType: aws.String(o.ct)}); err != nil {
			t.Fatalf("PutObject(%s): %v", o.key, err)
		}
	}
	if _, err := c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: aws.String(bucket), WebsiteConfiguration: indexAndErrors()}); err != nil {
		t.Fatalf("PutBucketWebsite: %v", err)
	}
	ws := startWebsite(t, g, api.WebsiteOptions{Domain: "site.test"})
	_, port, err := net.SplitHostPort(ws.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + bucket + ".site.test:" + port

	dom := dumpDOM(t, base+"/")
	for _, want := range []string{"Welcome to the site", "color=rgb(1, 2, 3) img=3x2"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the index page as Chromium rendered it lacks %q:\n%s", want, dom)
		}
	}
	dom = dumpDOM(t, base+"/no/such/page.html")
	if !strings.Contains(dom, "Sorry, that page is not here") {
		t.Errorf("a missing page as Chromium rendered it is not the error document:\n%s", dom)
	}
}
