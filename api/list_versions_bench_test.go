package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// Sizes of the buckets of BenchmarkListVersioned: versionedKeys keys,
// each written versionsPerKey times.
const (
	versionedKeys  = 1000
	versionsPerKey = 100
)

// BenchmarkListVersioned measures the server side (routing, SigV4, the
// index walk, the XML) of the listings of a versioned bucket against an
// unversioned bucket of the same keys, in one gateway (fsync off):
//
//   - ListObjectsV2/plain: a 1,000-key page of bucket "plain", whose
//     1,000 keys were each written once into an unversioned bucket;
//   - ListObjectsV2/versioned: the same page of bucket "versioned", whose
//     same 1,000 keys were each written 100 times with versioning
//     Enabled, round by round (every key's first version, then every
//     key's second …), as overwrites arrive over time: 99 noncurrent
//     versions behind each current one, 100,000 versions in all;
//   - ListObjectVersions: a 1,000-entry page of "versioned" from the
//     middle (key-marker at key 499), which spans ten keys.
//
// The buckets are built once (~100,000 PUTs through the object layer,
// a minute or two on a loaded 2-core machine) and the three
// sub-benchmarks run one after the other in each of three rounds, so
// that a slow patch of the machine hits them all; besides ns/op each
// reports p50-µs, the median of its requests' times. docs/performance.md
// ("Versioning") quotes them.
func BenchmarkListVersioned(b *testing.B) {
	layer, srv := benchGateway(b, nil)
	if err := layer.CreateBucket(object.Bucket{Name: "plain"}); err != nil {
		b.Fatal(err)
	}
	if err := layer.CreateBucket(object.Bucket{Name: "versioned", Versioning: metadata.VersioningEnabled}); err != nil {
		b.Fatal(err)
	}
	keys := make([]string, versionedKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("dir/object-%05d", i)
	}
	body := []byte("sixteen bytes ..")
	put := func(bucket, key string) {
		_, err := layer.PutObject(object.PutInput{Bucket: bucket, Key: key, Body: bytes.NewReader(body), Size: int64(len(body))})
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, k := range keys {
		put("plain", k)
	}
	for range versionsPerKey {
		for _, k := range keys {
			put("versioned", k)
		}
	}
	list := signedGet("/plain?list-type=2&max-keys=1000")
	listVersioned := signedGet("/versioned?list-type=2&max-keys=1000")
	versions := signedGet("/versioned?versions&key-marker=dir%2Fobject-00499&max-keys=1000")
	for _, req := range []*http.Request{list, listVersioned, versions} {
		requireKeys(b, srv, req, 1000)
	}
	for range 3 {
		b.Run("ListObjectsV2/plain", func(b *testing.B) { benchServeP50(b, srv, list) })
		b.Run("ListObjectsV2/versioned", func(b *testing.B) { benchServeP50(b, srv, listVersioned) })
		b.Run("ListObjectVersions", func(b *testing.B) { benchServeP50(b, srv, versions) })
	}
}

// signedGet is a SigV4-signed GET of target on the benchmark gateway.
func signedGet(target string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil)
	sigv4.SignRequest(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
	return req
}

// requireKeys fails b unless req answers 200 with n <Key> elements: the
// benchmark measures full pages.
func requireKeys(b *testing.B, srv *api.Server, req *http.Request, n int) {
	b.Helper()
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	if got := bytes.Count(w.Body.Bytes(), []byte("<Key>")); w.Code != http.StatusOK || got != n {
		b.Fatalf("%s: status %d, %d keys, want 200 and %d", req.URL, w.Code, got, n)
	}
}

// benchServeP50 is benchServe that also reports the median time of one
// request as p50-µs (a mean, ns/op, takes a few slow requests of a
// loaded machine into the figure, the median does not) and the process's
// CPU time (user + system, the garbage collector included) per request
// as cpu-µs/op: on a machine shared with other work the wall-clock
// figures follow the share of the CPU the benchmark got, the CPU time
// much less so.
func benchServeP50(b *testing.B, srv *api.Server, req *http.Request) {
	b.Helper()
	w := &discardWriter{h: http.Header{}}
	var took []time.Duration
	b.ReportAllocs()
	cpu0 := processCPU(b)
	for b.Loop() {
		clear(w.h)
		w.status = 0
		start := time.Now()
		srv.ServeHTTP(w, req)
		took = append(took, time.Since(start))
		if w.status != 0 && w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
	b.ReportMetric(float64(processCPU(b)-cpu0)/1e3/float64(b.N), "cpu-µs/op")
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2])/1e3, "p50-µs")
}

// processCPU returns the user and system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
