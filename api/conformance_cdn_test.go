package api_test

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// withDefaultCacheControl sets the Cache-Control of objects stored
// without one.
func withDefaultCacheControl(v string) gatewayOption {
	return func(o *api.Options) { o.DefaultCacheControl = v }
}

// perRequestHeaders differ between two requests for the same object.
var perRequestHeaders = []string{"Date", "X-Amz-Request-Id", "X-Amz-Id-2"}

// TestCDNOriginHeaders checks what an edge cache relies on: validators and
// Cache-Control (stored, else the bucket's default, else the server's) on
// every GET, HEAD and 304; HEAD answering exactly the headers GET does, with and without
// Range; and 304s without a body.
func TestCDNOriginHeaders(t *testing.T) {
	const def = "public, max-age=60"
	for _, tc := range []struct {
		name      string
		def       string
		stored    string // Cache-Control the object is stored with
		bucket    string // the bucket's default Cache-Control
		wantCache string
	}{
		{"stored, no default", "", "max-age=5", "", "max-age=5"},
		{"none, no default", "", "", "", ""},
		{"stored wins over default", def, "no-cache", "", "no-cache"},
		{"default", def, "", "", def},
		{"bucket default", "", "", "max-age=7", "max-age=7"},
		{"bucket default wins over server default", def, "", "max-age=7", "max-age=7"},
		{"stored wins over bucket default", def, "no-store", "max-age=7", "no-store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := startGateway(t, withDefaultCacheControl(tc.def))
			bucket := uniqueBucket("cdn")
			if resp, body := g.do(g.rawRequest(http.MethodPut, "/"+bucket, "", nil), nil, true); resp.StatusCode != http.StatusOK {
				t.Fatalf("CreateBucket: %d %s", resp.StatusCode, body)
			}
			if tc.bucket != "" {
				if err := g.layer.UpdateBucket(bucket, 0, func(b *object.Bucket) error { b.CacheControl = tc.bucket; return nil }); err != nil {
					t.Fatal(err)
				}
				// A bucket's default is set with the gateway stopped
				// (objectgateway bucket cache-control); the server reads
				// whether any bucket has one when it starts.
				g.restart()
			}
			data := bytes.Repeat([]byte("0123456789abcdef"), 1024)
			put := g.rawRequest(http.MethodPut, "/"+bucket+"/video/seg-1.m4s", "", data)
			if tc.stored != "" {
				put.Header.Set("Cache-Control", tc.stored)
			}
			if resp, body := g.do(put, data, true); resp.StatusCode != http.StatusOK {
				t.Fatalf("PutObject: %d %s", resp.StatusCode, body)
			}
			path := "/" + bucket + "/video/seg-1.m4s"

			for _, rng := range []string{"", "bytes=10-4105", "bytes=-100"} {
				var got [2]http.Header
				for i, method := range []string{http.MethodGet, http.MethodHead} {
					req := g.rawRequest(method, path, "", nil)
					if rng != "" {
						req.Header.Set("Range", rng)
					}
					resp, body := g.do(req, nil, true)
					want := http.StatusOK
					if rng != "" {
						want = http.StatusPartialContent
					}
					if resp.StatusCode != want {
						t.Fatalf("%s Range %q: status %d, want %d", method, rng, resp.StatusCode, want)
					}
					if method == http.MethodHead && len(body) != 0 {
						t.Errorf("HEAD Range %q: %d body bytes", rng, len(body))
					}
					if method == http.MethodGet && resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
						t.Errorf("GET Range %q: Content-Length %q for %d bytes", rng, resp.Header.Get("Content-Length"), len(body))
					}
					h := resp.Header.Clone()
					for _, k := range perRequestHeaders {
						h.Del(k)
					}
					got[i] = h
				}
				if !sameHeaders(got[0], got[1]) {
					t.Errorf("Range %q: GET and HEAD headers differ:\nGET  %v\nHEAD %v", rng, got[0], got[1])
				}
				if got[0].Get("ETag") == "" || got[0].Get("Last-Modified") == "" {
					t.Errorf("Range %q: validators missing: %v", rng, got[0])
				}
				if cc := got[0].Get("Cache-Control"); cc != tc.wantCache {
					t.Errorf("Range %q: Cache-Control %q, want %q", rng, cc, tc.wantCache)
				}
			}

			// Conditional GET and HEAD: 304 with the validators and
			// Cache-Control, and no body.
			head, _ := g.do(g.rawRequest(http.MethodHead, path, "", nil), nil, true)
			etag, lastMod := head.Header.Get("ETag"), head.Header.Get("Last-Modified")
			for _, cond := range [][2]string{{"If-None-Match", etag}, {"If-Modified-Since", lastMod}} {
				for _, method := range []string{http.MethodGet, http.MethodHead} {
					req := g.rawRequest(method, path, "", nil)
					req.Header.Set(cond[0], cond[1])
					resp, body := g.do(req, nil, true)
					if resp.StatusCode != http.StatusNotModified {
						t.Fatalf("%s %s: status %d, want 304", method, cond[0], resp.StatusCode)
					}
					if len(body) != 0 {
						t.Errorf("%s %s: 304 with %d body bytes", method, cond[0], len(body))
					}
					if resp.Header.Get("ETag") != etag || resp.Header.Get("Last-Modified") != lastMod {
						t.Errorf("%s %s: 304 validators ETag %q Last-Modified %q, want %q %q", method, cond[0],
							resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), etag, lastMod)
					}
					if cc := resp.Header.Get("Cache-Control"); cc != tc.wantCache {
						t.Errorf("%s %s: 304 Cache-Control %q, want %q", method, cond[0], cc, tc.wantCache)
					}
				}
			}
		})
	}
}

// sameHeaders reports whether a and b hold the same names and values.
func sameHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
