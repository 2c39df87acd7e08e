package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// BenchmarkGetObjectSSE is BenchmarkGetObject for the same objects
// stored plain and with SSE-S3, 1 KiB (CPU per request) and 100 MiB
// (single-stream throughput, to set against pkg/sse's
// BenchmarkAESGCMCeiling in the same run).
func BenchmarkGetObjectSSE(b *testing.B) {
	for _, size := range []int{1 << 10, 100 << 20} {
		for _, alg := range []string{"", sse.AES256} {
			name := byteSize(size) + "-plain"
			if size == 100<<20 {
				name = "100MiB-plain"
			}
			if alg != "" {
				name = name[:len(name)-len("plain")] + "sse-s3"
			}
			b.Run(name, func(b *testing.B) {
				layer, srv := benchGateway(b, nil)
				body := bytes.Repeat([]byte("b"), size)
				if _, err := layer.PutObject(object.PutInput{Bucket: "bench", Key: "obj", Body: bytes.NewReader(body), Size: int64(size),
					Encryption: sse.Request{Algorithm: alg}}); err != nil {
					b.Fatal(err)
				}
				req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/bench/obj", nil)
				sigv4.SignRequest(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
				b.SetBytes(int64(size))
				benchServe(b, srv, req)
			})
		}
	}
}
