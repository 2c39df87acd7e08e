package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// BenchmarkGetObjectHot is BenchmarkGetObjectPresigned's 1 KiB GET with the
// hot-object cache off and on: what a hit saves in the handler (the open,
// fstat, fcntl, read and close of the file, for one stat).
func BenchmarkGetObjectHot(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			var hot *hotcache.Cache
			if mode == "on" {
				var err error
				if hot, err = hotcache.New(hotcache.Options{MaxBytes: 1 << 20}); err != nil {
					b.Fatal(err)
				}
			}
			layer, err := object.Open(object.Options{Root: b.TempDir(), NoSync: true, HotCache: hot})
			if err != nil {
				b.Fatal(err)
			}
			defer layer.Close()
			srv := api.New(layer, api.Options{Credentials: staticCreds{testAccessKey: testSecretKey}})
			if err := layer.CreateBucket(object.Bucket{Name: "bench"}); err != nil {
				b.Fatal(err)
			}
			body := bytes.Repeat([]byte("b"), 1024)
			if _, err := layer.PutObject(object.PutInput{Bucket: "bench", Key: "obj", Body: bytes.NewReader(body), Size: int64(len(body))}); err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/bench/obj", nil)
			sigv4.Presign(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), time.Hour)
			req = httptest.NewRequest(http.MethodGet, req.URL.String(), nil)
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				srv.ServeHTTP(w, req)
				if w.status != 0 && w.status != http.StatusOK {
					b.Fatalf("status %d", w.status)
				}
			}
			if hot != nil && hot.Stats().Hits == 0 {
				b.Fatal("no cache hits")
			}
		})
	}
}
