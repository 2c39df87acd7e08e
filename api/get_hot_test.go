package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// TestGetObjectFromHotCache serves GET, HEAD and ranged GETs of a cached
// object over HTTP and checks they match what the file gives.
func TestGetObjectFromHotCache(t *testing.T) {
	hot, err := hotcache.New(hotcache.Options{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	layer, err := object.Open(object.Options{Root: t.TempDir(), NoSync: true, HotCache: hot})
	if err != nil {
		t.Fatal(err)
	}
	defer layer.Close()
	ts := httptest.NewServer(api.New(layer, api.Options{Credentials: staticCreds{testAccessKey: testSecretKey}}))
	defer ts.Close()
	if err := layer.CreateBucket(object.Bucket{Name: "hot"}); err != nil {
		t.Fatal(err)
	}
	body := []byte("0123456789abcdefghij")
	if _, err := layer.PutObject(object.PutInput{Bucket: "hot", Key: "obj", Body: bytes.NewReader(body), Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	do := func(method, rng string) (*http.Response, []byte) {
		t.Helper()
		req := httptest.NewRequest(method, ts.URL+"/hot/obj", nil)
		sigv4.Presign(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), time.Hour)
		req, err := http.NewRequest(method, req.URL.String(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	for _, tc := range []struct {
		method, rng  string
		status       int
		want, length string
	}{
		{"GET", "", 200, string(body), "20"}, // the miss that fills
		{"GET", "", 200, string(body), "20"},
		{"HEAD", "", 200, "", "20"},
		{"GET", "bytes=2-5", 206, "2345", "4"},
		{"GET", "bytes=-3", 206, "hij", "3"},
		{"GET", "bytes=15-", 206, "fghij", "5"},
	} {
		resp, got := do(tc.method, tc.rng)
		if resp.StatusCode != tc.status || string(got) != tc.want || resp.Header.Get("Content-Length") != tc.length {
			t.Errorf("%s %q: %d %q (Content-Length %s); want %d %q (%s)", tc.method, tc.rng,
				resp.StatusCode, got, resp.Header.Get("Content-Length"), tc.status, tc.want, tc.length)
		}
	}
	// HEAD answers from the record and a stat, without the cache.
	if s := hot.Stats(); s.Fills != 1 || s.Hits != 4 {
		t.Fatalf("stats %+v; want 1 fill and 4 hits", s)
	}
}
