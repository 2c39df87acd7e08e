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

// discardWriter is a ResponseWriter that throws the body away through
// ReadFrom, like a connection would take it with sendfile, so the
// benchmark counts the server's allocations, not a recorder's buffer.
type discardWriter struct {
	h      http.Header
	status int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(code int)        { d.status = code }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(io.Discard, r)
}

// benchGateway opens a gateway (fsync off) over b.TempDir() with a
// bucket "bench" holding one object per size in keys, named obj-<size>,
// and the given hot-object cache (nil: none).
func benchGateway(b *testing.B, hot *hotcache.Cache) (*object.Layer, *api.Server) {
	b.Helper()
	layer, err := object.Open(object.Options{Root: b.TempDir(), NoSync: true, HotCache: hot})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { layer.Close() })
	if err := layer.CreateBucket(object.Bucket{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	return layer, api.New(layer, api.Options{Credentials: staticCreds{testAccessKey: testSecretKey}})
}

// benchPut stores size bytes under key in bucket "bench".
func benchPut(b *testing.B, layer *object.Layer, key string, size int) {
	b.Helper()
	body := bytes.Repeat([]byte("b"), size)
	if _, err := layer.PutObject(object.PutInput{Bucket: "bench", Key: key, Body: bytes.NewReader(body), Size: int64(size)}); err != nil {
		b.Fatal(err)
	}
}

// benchServe serves req over and over, failing on any status but 200.
func benchServe(b *testing.B, srv *api.Server, req *http.Request) {
	b.Helper()
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		srv.ServeHTTP(w, req)
		if w.status != 0 && w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

// BenchmarkGetObject measures the GET path (routing, SigV4 verification,
// index lookup, open and stat check, headers, body) for a small and a
// large object. Its allocations per operation must not grow with the
// object's size.
func BenchmarkGetObject(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run(byteSize(size), func(b *testing.B) {
			layer, srv := benchGateway(b, nil)
			benchPut(b, layer, "obj", size)
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/bench/obj", nil)
			sigv4.SignRequest(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
			b.SetBytes(int64(size))
			benchServe(b, srv, req)
		})
	}
}

// presignedGet is a presigned GET of bucket "bench", key "obj", as wrk
// sends it in the CPU-per-request figures of docs/performance.md.
func presignedGet() *http.Request {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/bench/obj", nil)
	sigv4.Presign(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), time.Hour)
	return httptest.NewRequest(http.MethodGet, req.URL.String(), nil)
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return "1MiB"
	}
	return "1KiB"
}
