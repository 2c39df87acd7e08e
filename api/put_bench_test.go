package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// BenchmarkPutObject measures the PUT path of a 1 KiB object over an
// existing key (routing, SigV4 verification, the bucket's identity and
// fence, staging, rename, index commit) with fsync off, so that the
// request path's own cost is what is measured, not the disk's.
func BenchmarkPutObject(b *testing.B) {
	layer, srv := benchGateway(b, nil)
	benchPut(b, layer, "obj", 1<<10)
	body := bytes.Repeat([]byte("p"), 1<<10)
	req := httptest.NewRequest(http.MethodPut, "http://127.0.0.1/bench/obj", nil)
	sigv4.SignRequest(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
	req.ContentLength = int64(len(body))
	w := &discardWriter{h: http.Header{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		w.status = 0
		req.Body = io.NopCloser(bytes.NewReader(body))
		srv.ServeHTTP(w, req)
		if w.status != 0 && w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}
