package api_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/objectgateway/objectgateway/api"
)

// startWebsite serves g's buckets on a website endpoint of its own.
func startWebsite(t *testing.T, g *gateway, o api.WebsiteOptions) *httptest.Server {
	t.Helper()
	srv, ok := (*g.handler.Load()).(*api.Server)
	if !ok {
		t.Fatal("the gateway's handler is not an *api.Server")
	}
	ws := httptest.NewServer(srv.Website(o))
	t.Cleanup(ws.Close)
	return ws
}

// TestConformanceBucketWebsite runs PutBucketWebsite, GetBucketWebsite and
// DeleteBucketWebsite through aws-sdk-go-v2: the configuration comes back
// as stored, refusals carry S3's codes, and after the delete the bucket
// has none.
func TestConformanceBucketWebsite(t *testing.T) {
	g := startGateway(t)
	for _, m := range sdkModes {
		t.Run(m.name, func(t *testing.T) {
			c := g.sdk(m)
			ctx := t.Context()
			b := aws.String(makeBucket(t, c, "website"))
			_, err := c.GetBucketWebsite(ctx, &s3.GetBucketWebsiteInput{Bucket: b})
			wantCode(t, "GetBucketWebsite before any", err, 404, "NoSuchWebsiteConfiguration")

			cfg := &types.WebsiteConfiguration{
				IndexDocument: &types.IndexDocument{Suffix: aws.String("index.html")},
				ErrorDocument: &types.ErrorDocument{Key: aws.String("error.html")},
				RoutingRules: []types.RoutingRule{{
					Condition: &types.Condition{KeyPrefixEquals: aws.String("docs/")},
					Redirect:  &types.Redirect{ReplaceKeyPrefixWith: aws.String("documents/"), HttpRedirectCode: aws.String("302")},
				}},
			}
			if _, err := c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: b, WebsiteConfiguration: cfg}); err != nil {
				t.Fatalf("PutBucketWebsite: %v", err)
			}
			got, err := c.GetBucketWebsite(ctx, &s3.GetBucketWebsiteInput{Bucket: b})
			if err != nil {
				t.Fatalf("GetBucketWebsite: %v", err)
			}
			if aws.ToString(got.IndexDocument.Suffix) != "index.html" || aws.ToString(got.ErrorDocument.Key) != "error.html" ||
				len(got.RoutingRules) != 1 || aws.ToString(got.RoutingRules[0].Condition.KeyPrefixEquals) != "docs/" ||
				aws.ToString(got.RoutingRules[0].Redirect.ReplaceKeyPrefixWith) != "documents/" ||
				aws.ToString(got.RoutingRules[0].Redirect.HttpRedirectCode) != "302" {
				t.Errorf("GetBucketWebsite = %+v", got)
			}

			_, err = c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: b, WebsiteConfiguration: &types.WebsiteConfiguration{
				ErrorDocument: &types.ErrorDocument{Key: aws.String("error.html")}}})
			wantCode(t, "PutBucketWebsite without IndexDocument", err, 400, "InvalidArgument")
			var ae smithy.APIError
			if errors.As(err, &ae) && ae.ErrorMessage() != "A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty" {
				t.Errorf("message %q", ae.ErrorMessage())
			}
			_, err = c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: b, WebsiteConfiguration: &types.WebsiteConfiguration{
				RedirectAllRequestsTo: &types.RedirectAllRequestsTo{HostName: aws.String("example.com")},
				IndexDocument:         &types.IndexDocument{Suffix: aws.String("index.html")}}})
			wantCode(t, "PutBucketWebsite with RedirectAllRequestsTo and IndexDocument", err, 400, "InvalidArgument")
			_, err = c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: aws.String("no-such-bucket-website"),
				WebsiteConfiguration: &types.WebsiteConfiguration{IndexDocument: &types.IndexDocument{Suffix: aws.String("index.html")}}})
			wantCode(t, "PutBucketWebsite on a missing bucket", err, 404, "NoSuchBucket")
			if got, err := c.GetBucketWebsite(ctx, &s3.GetBucketWebsiteInput{Bucket: b}); err != nil || aws.ToString(got.IndexDocument.Suffix) != "index.html" {
				t.Errorf("a refused PutBucketWebsite changed the configuration: %+v, %v", got, err)
			}

			if _, err := c.DeleteBucketWebsite(ctx, &s3.DeleteBucketWebsiteInput{Bucket: b}); err != nil {
				t.Fatalf("DeleteBucketWebsite: %v", err)
			}
			_, err = c.GetBucketWebsite(ctx, &s3.GetBucketWebsiteInput{Bucket: b})
			wantCode(t, "GetBucketWebsite after delete", err, 404, "NoSuchWebsiteConfiguration")
		})
	}
}

// TestConformanceBucketWebsiteMalformed sends documents the SDK would not
// build: broken XML is MalformedXML, an oversized one is refused.
func TestConformanceBucketWebsiteMalformed(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	b := makeBucket(t, c, "website-malformed")
	for _, tc := range []struct {
		name, doc string
		status    int
		code      string
	}{
		{"broken", `<WebsiteConfiguration><IndexDocument>`, 400, "MalformedXML"},
		{"many tokens", `<WebsiteConfiguration>` + strings.Repeat("<x/>", 5000) + `</WebsiteConfiguration>`, 400, "MalformedXML"},
		{"too large", `<WebsiteConfiguration>` + strings.Repeat(" ", 70<<10) + `</WebsiteConfiguration>`, 400, "MaxMessageLengthExceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := g.do(g.rawRequest(http.MethodPut, "/"+b, "website", []byte(tc.doc)), []byte(tc.doc), true)
			wantXMLError(t, tc.name, resp, body, tc.status, tc.code)
		})
	}
}

// site is a bucket with a website configuration and objects, served on a
// website endpoint.
type site struct {
	g      *gateway
	c      *s3.Client
	bucket string
	ws     *httptest.Server
	client *http.Client
}

// startSite creates a bucket whose objects under public prefixes everyone
// may read (pub.html, index documents, error.html, css/, img/, dir/),
// with private.html readable by its owner only, and configures website.
func startSite(t *testing.T, cfg *types.WebsiteConfiguration, list bool) *site {
	t.Helper()
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	s := &site{g: g, c: c, bucket: makeBucket(t, c, "site")}
	ctx := t.Context()
	objects := map[string]string{
		"index.html": "<html><body>home</body></html>", "dir/index.html": "dir home", "error.html": "custom error page",
		"pub.html": "public page", "private.html": "secret", "css/site.css": "body{}",
	}
	for k, v := range objects {
		ct := "text/html"
		if strings.HasSuffix(k, ".css") {
			ct = "text/css"
		}
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k), Body: strings.NewReader(v), ContentType: aws.String(ct)}); err != nil {
			t.Fatalf("PutObject(%s): %v", k, err)
		}
	}
	pol := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":[` +
		`"arn:aws:s3:::` + s.bucket + `/index.html","arn:aws:s3:::` + s.bucket + `/dir/*","arn:aws:s3:::` + s.bucket + `/error.html",` +
		`"arn:aws:s3:::` + s.bucket + `/pub.html","arn:aws:s3:::` + s.bucket + `/css/*","arn:aws:s3:::` + s.bucket + `/missing*"]}`
	if list {
		pol += `,{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::` + s.bucket + `"}`
	}
	pol += `]}`
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(s.bucket), Policy: aws.String(pol)}); err != nil {
		t.Fatalf("PutBucketPolicy: %v", err)
	}
	if _, err := c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: aws.String(s.bucket), WebsiteConfiguration: cfg}); err != nil {
		t.Fatalf("PutBucketWebsite: %v", err)
	}
	s.ws = startWebsite(t, g, api.WebsiteOptions{Domain: "site.test"})
	s.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s
}

// get sends method path to the website endpoint for the site's host.
func (s *site) get(t *testing.T, method, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, s.ws.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = s.bucket + ".site.test"
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s body: %v", method, path, err)
	}
	return resp, string(body)
}

func wantPage(t *testing.T, what string, resp *http.Response, body string, status int, contains ...string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s: status %d, want %d; body %q", what, resp.StatusCode, status, body)
	}
	for _, c := range contains {
		if !strings.Contains(body, c) {
			t.Errorf("%s: body %q does not contain %q", what, body, c)
		}
	}
}

func indexAndErrors() *types.WebsiteConfiguration {
	return &types.WebsiteConfiguration{
		IndexDocument: &types.IndexDocument{Suffix: aws.String("index.html")},
		ErrorDocument: &types.ErrorDocument{Key: aws.String("error.html")},
	}
}

// TestWebsiteEndpoint checks the website endpoint against a site with
// index and error documents: index documents for the root and
// directories, the redirect of a directory named without its slash, the
// error document with the original status, 403 for a private object,
// 405 for a write, HEAD, Range and If-None-Match.
func TestWebsiteEndpoint(t *testing.T) {
	s := startSite(t, indexAndErrors(), true)

	resp, body := s.get(t, http.MethodGet, "/", nil)
	wantPage(t, "GET /", resp, body, 200, "home")
	if ct := resp.Header.Get("Content-Type"); ct != "text/html" {
		t.Errorf("GET / Content-Type %q", ct)
	}
	etag, lastModified := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if etag == "" || lastModified == "" {
		t.Errorf("GET / without ETag (%q) or Last-Modified (%q)", etag, lastModified)
	}
	resp, body = s.get(t, http.MethodGet, "/dir/", nil)
	wantPage(t, "GET /dir/", resp, body, 200, "dir home")
	resp, body = s.get(t, http.MethodGet, "/dir", nil)
	wantPage(t, "GET /dir", resp, body, 302)
	if loc := resp.Header.Get("Location"); loc != "/dir/" {
		t.Errorf("GET /dir Location %q, want /dir/", loc)
	}
	resp, body = s.get(t, http.MethodGet, "/pub.html?versionId=x&response-content-type=evil", nil)
	wantPage(t, "GET /pub.html with a query", resp, body, 200, "public page")
	if ct := resp.Header.Get("Content-Type"); ct != "text/html" {
		t.Errorf("the query changed Content-Type to %q", ct)
	}

	resp, body = s.get(t, http.MethodGet, "/missing.html", nil)
	wantPage(t, "GET a missing page", resp, body, 404, "custom error page")
	resp, body = s.get(t, http.MethodGet, "/private.html", nil)
	wantPage(t, "GET a private object", resp, body, 403, "custom error page")
	if strings.Contains(body, "secret") {
		t.Errorf("the private object was served: %q", body)
	}

	resp, body = s.get(t, http.MethodPut, "/pub.html", nil)
	wantPage(t, "PUT", resp, body, 405, "<title>405 Method Not Allowed</title>", "<li>Code: MethodNotAllowed</li>", "<li>RequestId: ")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("PUT answer Content-Type %q", ct)
	}

	resp, body = s.get(t, http.MethodHead, "/pub.html", nil)
	wantPage(t, "HEAD", resp, body, 200)
	if body != "" || resp.ContentLength != int64(len("public page")) {
		t.Errorf("HEAD: body %q, Content-Length %d", body, resp.ContentLength)
	}
	resp, body = s.get(t, http.MethodGet, "/pub.html", map[string]string{"Range": "bytes=0-5"})
	wantPage(t, "Range", resp, body, 206)
	if body != "public" || resp.Header.Get("Content-Range") != "bytes 0-5/11" {
		t.Errorf("Range: body %q, Content-Range %q", body, resp.Header.Get("Content-Range"))
	}
	resp, body = s.get(t, http.MethodGet, "/pub.html", map[string]string{"Range": "bytes=100-"})
	wantPage(t, "unsatisfiable Range", resp, body, 416, "custom error page")
	if cr := resp.Header.Get("Content-Range"); cr != "" {
		t.Errorf("the error document of a 416 carries Content-Range %q", cr)
	}
	resp, body = s.get(t, http.MethodGet, "/", map[string]string{"If-None-Match": etag})
	wantPage(t, "If-None-Match", resp, body, 304)
	if body != "" || resp.Header.Get("ETag") != etag {
		t.Errorf("304: body %q, ETag %q", body, resp.Header.Get("ETag"))
	}
	resp, body = s.get(t, http.MethodGet, "/", map[string]string{"If-Modified-Since": lastModified})
	wantPage(t, "If-Modified-Since", resp, body, 304)

	// A host of no bucket, and a bucket without a configuration.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.ws.URL+"/", nil)
	req.Host = "other.example"
	r2, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := io.ReadAll(r2.Body)
	r2.Body.Close()
	wantPage(t, "a host outside the domain", r2, string(b2), 404, "<li>Code: NoSuchBucket</li>")
	if _, err := s.c.DeleteBucketWebsite(t.Context(), &s3.DeleteBucketWebsiteInput{Bucket: aws.String(s.bucket)}); err != nil {
		t.Fatal(err)
	}
	resp, body = s.get(t, http.MethodGet, "/", nil)
	wantPage(t, "a bucket without a website configuration", resp, body, 404, "<title>404 Not Found</title>", "<li>Code: NoSuchWebsiteConfiguration</li>")
}

// TestWebsiteEndpointErrorPages checks the HTML pages of a site without
// an error document, and that without s3:ListBucket for everyone a
// missing page is 403, as S3 answers.
func TestWebsiteEndpointErrorPages(t *testing.T) {
	cfg := &types.WebsiteConfiguration{IndexDocument: &types.IndexDocument{Suffix: aws.String("index.html")}}
	s := startSite(t, cfg, true)
	resp, body := s.get(t, http.MethodGet, "/missing.html", nil)
	wantPage(t, "missing, listable", resp, body, 404, "<title>404 Not Found</title>", "<h1>404 Not Found</h1>", "<li>Code: NoSuchKey</li>", "<li>Message: ", "<li>Key: missing.html</li>")
	resp, body = s.get(t, http.MethodGet, "/private.html", nil)
	wantPage(t, "private", resp, body, 403, "<title>403 Forbidden</title>", "<li>Code: AccessDenied</li>")
	resp, body = s.get(t, http.MethodHead, "/missing.html", nil)
	wantPage(t, "HEAD missing", resp, body, 404)
	if body != "" {
		t.Errorf("HEAD missing body %q", body)
	}

	unlisted := startSite(t, cfg, false)
	resp, body = unlisted.get(t, http.MethodGet, "/missing.html", nil)
	wantPage(t, "missing, not listable", resp, body, 403, "<li>Code: AccessDenied</li>")
}

// TestWebsiteEndpointRedirects checks routing rules (before the lookup
// and on an error code) and RedirectAllRequestsTo.
func TestWebsiteEndpointRedirects(t *testing.T) {
	cfg := indexAndErrors()
	cfg.RoutingRules = []types.RoutingRule{
		{Condition: &types.Condition{KeyPrefixEquals: aws.String("docs/")},
			Redirect: &types.Redirect{ReplaceKeyPrefixWith: aws.String("dir/"), HttpRedirectCode: aws.String("302")}},
		{Condition: &types.Condition{HttpErrorCodeReturnedEquals: aws.String("404")},
			Redirect: &types.Redirect{HostName: aws.String("fallback.example"), Protocol: types.ProtocolHttps, ReplaceKeyWith: aws.String("notfound.html")}},
	}
	s := startSite(t, cfg, true)
	resp, body := s.get(t, http.MethodGet, "/docs/a.html", nil)
	wantPage(t, "prefix rule", resp, body, 302)
	if loc, want := resp.Header.Get("Location"), "http://"+s.bucket+".site.test/dir/a.html"; loc != want {
		t.Errorf("prefix rule Location %q, want %q", loc, want)
	}
	resp, body = s.get(t, http.MethodGet, "/missing.html", nil)
	wantPage(t, "error code rule", resp, body, 301)
	if loc := resp.Header.Get("Location"); loc != "https://fallback.example/notfound.html" {
		t.Errorf("error code rule Location %q", loc)
	}
	resp, body = s.get(t, http.MethodGet, "/pub.html", nil)
	wantPage(t, "no rule", resp, body, 200, "public page")

	// An object stored with x-amz-website-redirect-location.
	ctx := t.Context()
	if _, err := s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String("css/moved.html"),
		Body: strings.NewReader("old page"), WebsiteRedirectLocation: aws.String("/pub.html")}); err != nil {
		t.Fatalf("PutObject with a redirect: %v", err)
	}
	resp, body = s.get(t, http.MethodGet, "/css/moved.html", nil)
	wantPage(t, "object redirect", resp, body, 301)
	if loc := resp.Header.Get("Location"); loc != "/pub.html" {
		t.Errorf("object redirect Location %q, want /pub.html", loc)
	}

	if _, err := s.c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: aws.String(s.bucket), WebsiteConfiguration: &types.WebsiteConfiguration{
		RedirectAllRequestsTo: &types.RedirectAllRequestsTo{HostName: aws.String("www.example.com"), Protocol: types.ProtocolHttps}}}); err != nil {
		t.Fatalf("PutBucketWebsite: %v", err)
	}
	resp, body = s.get(t, http.MethodGet, "/a/b.html", nil)
	wantPage(t, "redirect all", resp, body, 301)
	if loc := resp.Header.Get("Location"); loc != "https://www.example.com/a/b.html" {
		t.Errorf("redirect all Location %q", loc)
	}
}

// TestWebsiteEndpointCatchAll checks the mode without a domain: the Host,
// without its port, is the bucket name.
func TestWebsiteEndpointCatchAll(t *testing.T) {
	s := startSite(t, indexAndErrors(), true)
	ws := startWebsite(t, s.g, api.WebsiteOptions{})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ws.URL+"/", nil)
	req.Host = strings.ToUpper(s.bucket) + ":8080"
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantPage(t, "catch-all", resp, string(body), 200, "home")
}

// TestWebsiteRedirectStaysOnSite checks that a directory redirect for a
// key beginning with "/" never answers a Location another host could be
// read from ("//host/…").
func TestWebsiteRedirectStaysOnSite(t *testing.T) {
	s := startSite(t, indexAndErrors(), true)
	ctx := t.Context()
	if _, err := s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String("/evil.example/index.html"), Body: strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	pol := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":["arn:aws:s3:::` + s.bucket + `/*"]}]}`
	if _, err := s.c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(s.bucket), Policy: aws.String(pol)}); err != nil {
		t.Fatal(err)
	}
	resp, _ := s.get(t, http.MethodGet, "//evil.example", nil)
	if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "//") {
		t.Fatalf("redirect to %q leaves the site", loc)
	}
}
