package api_test

import (
	"bufio"
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	// downloaded (GET) or 200 (PUT); it returns curl's own time for the
	// transfer, which leaves out the process's start.
	run := func(b *testing.B, want string, args ...string) time.Duration {
		out, err := exec.Command(curl, append([]string{"-s", "-S", "-o", "/dev/null", "-w", "%{http_code} %{size_download} %{time_total}"}, args...)...).Output()
		return clientAnswer(b, "curl", want, out, err)
	}
	// goGet runs TestLoopbackGetClient in a process of its own; discard
	// makes it leave the body in the kernel.
	goGet := func(b *testing.B, want, url string, discard bool) time.Duration {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestLoopbackGetClient$")
		cmd.Env = append(os.Environ(), "OBJECTGATEWAY_LOOPBACK_GET="+url)
		if discard {
			cmd.Env = append(cmd.Env, "OBJECTGATEWAY_LOOPBACK_DISCARD=1")
		}
		out, err := cmd.Output()
		return clientAnswer(b, "the Go client", want, bytes.TrimSuffix(out, []byte("PASS\n")), err)
	}
	// measure runs op b.N times and reports the process's CPU per
	// operation (the server's, for the HTTP rows), the client's, and
	// wire-MB/s: the bytes over the clients' own times for them.
	measure := func(b *testing.B, op func(b *testing.B) time.Duration) {
		b.SetBytes(loopbackSize)
		self, kids := rusage(b, syscall.RUSAGE_SELF), rusage(b, syscall.RUSAGE_CHILDREN)
		var wire time.Duration
		for b.Loop() {
			wire += op(b)
		}
		b.ReportMetric(float64(rusage(b, syscall.RUSAGE_SELF)-self)/1e6/float64(b.N), "cpu-ms/op")
		if k := rusage(b, syscall.RUSAGE_CHILDREN) - kids; k > 0 {
			b.ReportMetric(float64(k)/1e6/float64(b.N), "client-cpu-ms/op")
		}
		if wire > 0 {
			b.ReportMetric(float64(loopbackSize)*float64(b.N)/wire.Seconds()/1e6, "wire-MB/s")
		}
	}
	getWant := "200 " + strconv.Itoa(loopbackSize)
	for _, c := range []struct{ name, bucket string }{{"GET/plain", "bench"}, {"GET/sse-s3", "benchsse"}} {
		url := presign(http.MethodGet, c.bucket, "obj")
		b.Run(c.name, func(b *testing.B) { measure(b, func(b *testing.B) time.Duration { return run(b, getWant, url) }) })
		b.Run(c.name+"-go", func(b *testing.B) {
			measure(b, func(b *testing.B) time.Duration { return goGet(b, getWant, url, false) })
		})
		b.Run(c.name+"-go-discard", func(b *testing.B) {
			measure(b, func(b *testing.B) time.Duration { return goGet(b, getWant, url, true) })
		})
	}
	b.Run("GET/ceiling-aes-gcm", func(b *testing.B) {
		block, _ := aes.NewCipher(make([]byte, 32))
		g, _ := cipher.NewGCM(block)
		nonce := make([]byte, g.NonceSize())
		sealed := g.Seal(nil, nonce, body[:sse.PackagePayload], nil)
		out := make([]byte, sse.PackagePayload)
		measure(b, func(b *testing.B) time.Duration {
			for range loopbackSize / sse.PackagePayload {
				if _, err := g.Open(out[:0], nonce, sealed, nil); err != nil {
					b.Fatal(err)
				}
			}
			return 0
		})
	})
	key := make([]byte, 32)
	var ct bytes.Buffer
	w, _ := sse.NewWriter(&ct, key)
	w.Write(body)
	w.Close()
	b.Run("GET/ceiling-sio", func(b *testing.B) {
		buf := make([]byte, 1<<20)
		measure(b, func(b *testing.B) time.Duration {
			r, err := sio.DecryptReader(bytes.NewReader(ct.Bytes()), sio.Config{MinVersion: sio.Version20, Key: key})
			if err != nil {
				b.Fatal(err)
			}
			if n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf); n != loopbackSize || err != nil {
				b.Fatal(n, err)
			}
			return 0
		})
	})
	for _, c := range []struct{ name, bucket string }{{"PUT/plain", "bench"}, {"PUT/sse-s3", "benchsse"}} {
		url := presign(http.MethodPut, c.bucket, "put")
		b.Run(c.name, func(b *testing.B) {
			measure(b, func(b *testing.B) time.Duration { return run(b, "200 0", "-H", "Expect:", "-T", bodyFile, url) })
		})
	}
	b.Run("PUT/ceiling-encrypt-md5", func(b *testing.B) {
		measure(b, func(b *testing.B) time.Duration {
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
			return 0
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

// clientAnswer checks a client's answer, "CODE BYTES SECONDS", against
// want ("CODE BYTES") and returns the seconds.
func clientAnswer(b *testing.B, who, want string, out []byte, err error) time.Duration {
	b.Helper()
	f := strings.Fields(string(out))
	if err != nil || len(f) != 3 || f[0]+" "+f[1] != want {
		b.Fatalf("%s: %q, %v", who, out, err)
	}
	s, err := strconv.ParseFloat(f[2], 64)
	if err != nil {
		b.Fatalf("%s: %q: %v", who, out, err)
	}
	return time.Duration(s * float64(time.Second))
}

// TestLoopbackGetClient is BenchmarkSSELoopback's Go client, run in a
// process of its own: with OBJECTGATEWAY_LOOPBACK_GET set to a URL, it
// GETs it over one connection, reads the body with 1 MiB reads (a copy of
// every byte out of the socket, as any client makes), and prints the
// status, the body's size and the seconds from the request to its last
// byte. Without the variable it does nothing.
//
// With OBJECTGATEWAY_LOOPBACK_DISCARD=1 it reads the body with
// recv(MSG_TRUNC), which drops it in the kernel without copying it out:
// the least a client on the same machine takes from the server's cores,
// the nearest this benchmark comes to a client on another machine.
func TestLoopbackGetClient(t *testing.T) {
	target := os.Getenv("OBJECTGATEWAY_LOOPBACK_GET")
	if target == "" {
		return
	}
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", u.RequestURI(), u.Host); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The body is read from the connection itself once bufio's buffer is
	// drained, in 1 MiB reads.
	got := int64(br.Buffered())
	br.Discard(br.Buffered())
	buf := make([]byte, 1<<20)
	read := conn.Read
	if os.Getenv("OBJECTGATEWAY_LOOPBACK_DISCARD") == "1" {
		raw, err := conn.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		read = func(p []byte) (n int, err error) {
			if rerr := raw.Read(func(fd uintptr) bool {
				n, _, err = syscall.Recvfrom(int(fd), p, syscall.MSG_TRUNC)
				return err != syscall.EAGAIN
			}); rerr != nil {
				return 0, rerr
			}
			if n == 0 && err == nil {
				err = io.EOF
			}
			return n, err
		}
	}
	for got < resp.ContentLength {
		n, err := read(buf)
		got += int64(max(n, 0))
		if err != nil {
			break
		}
	}
	fmt.Printf("%d %d %.6f\n", resp.StatusCode, got, time.Since(start).Seconds())
}
