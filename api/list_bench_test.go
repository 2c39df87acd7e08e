package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// BenchmarkListObjectsV2 measures the server side of a ListObjectsV2 of
// a 1,000-key page from the middle of a 10,000-object bucket: routing,
// SigV4, the index walk and the XML rendering. The bench tool's list-page
// and the 1,000,000-object figures in docs/performance.md measure the
// same request end to end.
func BenchmarkListObjectsV2(b *testing.B) {
	layer, srv := benchGateway(b, nil)
	for i := range 10000 {
		benchPut(b, layer, fmt.Sprintf("many/%07d", i), 1024)
	}
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/bench?list-type=2&prefix=many%2F&start-after=many%2F0004000&max-keys=1000", nil)
	sigv4.SignRequest(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
	benchServe(b, srv, req)
}
