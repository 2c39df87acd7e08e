package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/object"
)

const (
	testAccess = "AKIDBENCHTEST"
	testSecret = "bench/test/secret/0123456789abcdefghij"
)

// testCreds is the gateway's credential store in tests.
type testCreds map[string]string

func (c testCreds) SecretKey(id string) (string, bool) {
	s, ok := c[id]
	return s, ok
}

// testGateway is an in-process ObjectGateway over a temporary root.
type testGateway struct {
	URL   string
	layer *object.Layer
}

// startGateway starts a gateway on 127.0.0.1:0; wrap, when not nil, wraps
// its handler. It stops at cleanup.
func startGateway(t testing.TB, wrap func(http.Handler) http.Handler) *testGateway {
	t.Helper()
	layer, err := object.Open(object.Options{Root: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = api.New(layer, api.Options{Credentials: testCreds{testAccess: testSecret}})
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		if err := layer.Close(); err != nil {
			t.Errorf("layer.Close: %v", err)
		}
	})
	return &testGateway{URL: srv.URL, layer: layer}
}

// startStatic starts the static-file server over a temporary directory
// and returns its URL and directory.
func startStatic(t testing.TB) (url, dir string) {
	t.Helper()
	dir = t.TempDir()
	h, closeRoot, err := NewStaticHandler(StaticOptions{Dir: dir, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		closeRoot()
	})
	return srv.URL, dir
}

// tinyOptions are options small enough for a test under -race.
func tinyOptions(eps ...Endpoint) Options {
	return Options{
		Endpoints:   eps,
		Credentials: Credentials{AccessKey: testAccess, SecretKey: testSecret},
		PathStyle:   true,
		Quick:       true,
		Count:       6,
		Objects:     1010,
		ListCount:   3,
		LargeSize:   3 << 20,
		Streams:     2,
		Concurrency: 4,
		Duration:    100_000_000, // 100ms
		Rounds:      2,
	}
}

// bucketGone reports whether bucket no longer exists on an S3 endpoint.
func bucketGone(t *testing.T, ep Endpoint, bucket string) bool {
	t.Helper()
	c, err := newClient(ep, Credentials{AccessKey: testAccess, SecretKey: testSecret, Region: "us-east-1"}, true, bucket, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	ok, err := c.bucketExists(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return !ok
}
