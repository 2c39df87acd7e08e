package api_test

import "testing"

// BenchmarkGetObjectPresigned is BenchmarkGetObject's 1 KiB GET with a
// presigned URL, the request wrk sends in the CPU-per-request figure of
// docs/performance.md: its long query string is the difference.
func BenchmarkGetObjectPresigned(b *testing.B) {
	layer, srv := benchGateway(b, nil)
	benchPut(b, layer, "obj", 1024)
	benchServe(b, srv, presignedGet())
}
