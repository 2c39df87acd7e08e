package api_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// BenchmarkHeadObject measures the HEAD path (routing, SigV4
// verification, index lookup, the stat check against the record, headers)
// of a 1 KiB object under a prefix, as the bench tool's small-head
// scenario sends it; "stat" is the record-and-stat step alone.
func BenchmarkHeadObject(b *testing.B) {
	layer, srv := benchGateway(b, nil)
	benchPut(b, layer, "small/obj", 1<<10)
	b.Run("handler", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodHead, "http://127.0.0.1/bench/small/obj", nil)
		sigv4.SignRequest(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
		benchServe(b, srv, req)
	})
	b.Run("stat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := layer.StatObject("bench", "small/obj"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
