package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// BenchmarkListObjectsV2 measures the server side of a ListObjectsV2 of
// a 1,000-key page from the middle of a 10,000-object bucket: routing,
// SigV4, the index walk and the XML rendering. The bench tool's list-page
// and the 1,000,000-object figures in docs/performance.md measure the
// same request end to end.
func BenchmarkListObjectsV2(b *testing.B) {
	layer, err := object.Open(object.Options{Root: b.TempDir(), NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer layer.Close()
	srv := api.New(layer, api.Options{Credentials: staticCreds{testAccessKey: testSecretKey}})
	if err := layer.CreateBucket(object.Bucket{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte("b"), 1024)
	for i := range 10000 {
		if _, err := layer.PutObject(object.PutInput{Bucket: "bench", Key: fmt.Sprintf("many/%07d", i), Body: bytes.NewReader(body), Size: int64(len(body))}); err != nil {
			b.Fatal(err)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/bench?list-type=2&prefix=many%2F&start-after=many%2F0004000&max-keys=1000", nil)
	sigv4.SignRequest(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
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
