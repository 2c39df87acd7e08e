package api_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minio/sio"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// loopbackSize is the object of BenchmarkSSELoopback: 100 MiB.
const loopbackSize = 100 << 20

// BenchmarkSSELoopback measures single-stream GET and PUT of a 100 MiB
// object, plain and SSE-S3, through a real net/http server on 127.0.0.1,
// with curl as the client (another process, so the process's CPU is the
// server's), and in the same run the in-process ceilings they are judged
// against:
//
//   - GET/ceiling-aes-gcm: AES-256-GCM Open of 1600 packages of 64 KiB,
//     the least work any reader of a DARE stream does per byte;
//   - GET/ceiling-sio: sio's own DecryptReader over the same stream in
//     memory, into 1 MiB reads;
//   - PUT/ceiling-encrypt-md5: sse.NewWriter into io.Discard plus MD5 of
//     the plaintext, one after the other on one goroutine (a PUT computes
//     the ETag's MD5 of an SSE-S3 object too).
//
// Sub-benchmarks of one function are interleaved by -count, so
//
//	go test -run '^$' -bench SSELoopback -benchtime 4x -count 7 ./api
//
// gives A B C … A B C … rounds; compare medians. cpu-ms/op is the
// process's user+system CPU per operation (the server's for the HTTP
// rows), client-cpu-ms/op curl's.
func BenchmarkSSELoopback(b *testing.B) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("needs curl")
	}
	layer, srv := benchGateway(b, nil)
	if err := layer.CreateBucket(object.Bucket{Name: "benchsse", SSEAlgorithm: sse.AES256}); err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	b.Cleanup(ts.Close)
	body := make([]byte, loopbackSize)
	for i := range body {
		body[i] = byte(i*7 + i>>16)
	}
	bodyFile := filepath.Join(b.TempDir(), "body")
	if err := os.WriteFile(bodyFile, body, 0o600); err != nil {
		b.Fatal(err)
	}
	for _, bucket := range []string{"bench", "benchsse"} {
		if _, err := layer.PutObject(object.PutInput{Bucket: bucket, Key: "obj", Body: bytes.NewReader(body), Size: loopbackSize,
			Encryption: map[bool]sse.Request{true: {Algorithm: sse.AES256}}[bucket == "benchsse"]}); err != nil {
			b.Fatal(err)
		}
	}
	presign := func(method, bucket, key string) string {
		req := httptest.NewRequest(method, ts.URL+"/"+bucket+"/"+key, nil)
		sigv4.Presign(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), 6*time.Hour)
		return req.URL.String()
	}
	// run runs curl with args, which must answer want with size bytes
	// downloaded (GET) or 200 (PUT).
	run := func(b *testing.B, want string, args ...string) {
		out, err := exec.Command(curl, append([]string{"-s", "-S", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"}, args...)...).Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			b.Fatalf("curl %v: %q, %v", args, out, err)
		}
	}
	measure := func(b *testing.B, op func(b *testing.B)) {
		b.SetBytes(loopbackSize)
		self, kids := rusage(b, syscall.RUSAGE_SELF), rusage(b, syscall.RUSAGE_CHILDREN)
		for b.Loop() {
			op(b)
		}
		b.ReportMetric(float64(rusage(b, syscall.RUSAGE_SELF)-self)/1e6/float64(b.N), "cpu-ms/op")
		if k := rusage(b, syscall.RUSAGE_CHILDREN) - kids; k > 0 {
			b.ReportMetric(float64(k)/1e6/float64(b.N), "client-cpu-ms/op")
		}
	}
	getWant := "200 " + strconv.Itoa(loopbackSize)
	for _, c := range []struct{ name, bucket string }{{"GET/plain", "bench"}, {"GET/sse-s3", "benchsse"}} {
		url := presign(http.MethodGet, c.bucket, "obj")
		b.Run(c.name, func(b *testing.B) { measure(b, func(b *testing.B) { run(b, getWant, url) }) })
	}
	b.Run("GET/ceiling-aes-gcm", func(b *testing.B) {
		block, _ := aes.NewCipher(make([]byte, 32))
		g, _ := cipher.NewGCM(block)
		nonce := make([]byte, g.NonceSize())
		sealed := g.Seal(nil, nonce, body[:sse.PackagePayload], nil)
		out := make([]byte, sse.PackagePayload)
		measure(b, func(b *testing.B) {
			for range loopbackSize / sse.PackagePayload {
				if _, err := g.Open(out[:0], nonce, sealed, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	key := make([]byte, 32)
	var ct bytes.Buffer
	w, _ := sse.NewWriter(&ct, key)
	w.Write(body)
	w.Close()
	b.Run("GET/ceiling-sio", func(b *testing.B) {
		buf := make([]byte, 1<<20)
		measure(b, func(b *testing.B) {
			r, err := sio.DecryptReader(bytes.NewReader(ct.Bytes()), sio.Config{MinVersion: sio.Version20, Key: key})
			if err != nil {
				b.Fatal(err)
			}
			if n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf); n != loopbackSize || err != nil {
				b.Fatal(n, err)
			}
		})
	})
	for _, c := range []struct{ name, bucket string }{{"PUT/plain", "bench"}, {"PUT/sse-s3", "benchsse"}} {
		url := presign(http.MethodPut, c.bucket, "put")
		b.Run(c.name, func(b *testing.B) {
			measure(b, func(b *testing.B) { run(b, "200 0", "-H", "Expect:", "-T", bodyFile, url) })
		})
	}
	b.Run("PUT/ceiling-encrypt-md5", func(b *testing.B) {
		measure(b, func(b *testing.B) {
			w, err := sse.NewWriter(io.Discard, key)
			if err != nil {
				b.Fatal(err)
			}
			h := md5.New()
			for p := body; len(p) > 0; p = p[1<<20:] {
				w.Write(p[:1<<20])
				h.Write(p[:1<<20])
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			h.Sum(nil)
		})
	})
}

// rusage is the user+system CPU time of who (RUSAGE_SELF, _CHILDREN).
func rusage(b *testing.B, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
