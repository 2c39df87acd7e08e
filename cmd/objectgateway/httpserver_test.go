package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// startLimited serves ok on 127.0.0.1:0 with the connection limits of
// cfg and returns its address.
func startLimited(t *testing.T, cfg config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(cfg, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2")
		_, _ = w.Write([]byte("ok"))
	}))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// waitClosed reads from conn until the server closes it, failing after
// limit. Reaching EOF is what the test waits for, so no sleep is needed.
func waitClosed(t *testing.T, conn net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	if err := conn.SetReadDeadline(start.Add(limit)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %v", limit)
	}
	return time.Since(start)
}

func testLimitsConfig() config {
	return config{headerTimeout: 200 * time.Millisecond, idleTimeout: 200 * time.Millisecond, bodyTimeout: time.Second}
}

// TestHeaderLimit checks that request headers over maxHeaderBytes are
// refused by net/http with 431 before any handler runs.
func TestHeaderLimit(t *testing.T) {
	addr := startLimited(t, testLimitsConfig())
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/b/k", nil)
	req.Header.Set("X-Amz-Meta-Big", strings.Repeat("h", maxHeaderBytes+4096))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("status %d, want 431", resp.StatusCode)
	}
	// 24 KiB: over 16 KiB and what net/http reads past it.
	req.Header.Set("X-Amz-Meta-Big", strings.Repeat("h", 24<<10))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("24 KiB of headers: status %d, want 431", resp.StatusCode)
	}
	req.Header.Set("X-Amz-Meta-Big", strings.Repeat("h", 8<<10))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("8 KiB of headers (S3's limit): status %d", resp.StatusCode)
	}
}

// TestHeaderTimeout is the slow-loris case: a client that never finishes
// its request headers is disconnected after headerTimeout.
func TestHeaderTimeout(t *testing.T) {
	addr := startLimited(t, testLimitsConfig())
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /b/k HTTP/1.1\r\nHost: x\r\nX-Slow: 1")); err != nil {
		t.Fatal(err)
	}
	if d := waitClosed(t, conn, 10*time.Second); d < 100*time.Millisecond {
		t.Errorf("closed after %v, before the header timeout", d)
	}
}

// TestIdleTimeout checks that a keep-alive connection idle after a
// response is closed after idleTimeout.
func TestIdleTimeout(t *testing.T) {
	addr := startLimited(t, testLimitsConfig())
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /b/k HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("status %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	waitClosed(t, conn, 10*time.Second)
}

// TestParseConfigLimits checks the connection-limit flags and their
// defaults.
func TestParseConfigLimits(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, io.Discard, none)
	if err != nil {
		t.Fatal(err)
	}
	if c.headerTimeout != 30*time.Second || c.bodyTimeout != time.Minute || c.idleTimeout != 2*time.Minute || c.maxConnections != 1024 {
		t.Fatalf("defaults %v %v %v %d", c.headerTimeout, c.bodyTimeout, c.idleTimeout, c.maxConnections)
	}
	c, err = parseConfig([]string{"--header-timeout=5s", "--body-timeout=0", "--idle-timeout=1m", "--max-connections=0"}, io.Discard, none)
	if err != nil || c.headerTimeout != 5*time.Second || c.bodyTimeout != 0 || c.idleTimeout != time.Minute || c.maxConnections != 0 {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"--header-timeout=0", "--idle-timeout=-1s", "--body-timeout=-1s", "--max-connections=-1"} {
		if _, err := parseConfig([]string{bad}, io.Discard, none); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestParseConfigRequestBudgets checks the flags of the anonymous budget
// and the POST field deadline, their defaults and environment variables.
func TestParseConfigRequestBudgets(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, io.Discard, none)
	if err != nil {
		t.Fatal(err)
	}
	if c.maxRequests != 1024 || c.maxAnonymousRequests != 0 || c.postFieldTimeout != 10*time.Second {
		t.Fatalf("defaults %d %d %v", c.maxRequests, c.maxAnonymousRequests, c.postFieldTimeout)
	}
	env := map[string]string{"OBJECTGATEWAY_MAX_ANONYMOUS_REQUESTS": "64", "OBJECTGATEWAY_POST_FIELD_TIMEOUT": "3s"}
	c, err = parseConfig(nil, io.Discard, func(k string) string { return env[k] })
	if err != nil || c.maxAnonymousRequests != 64 || c.postFieldTimeout != 3*time.Second {
		t.Fatalf("from the environment: %d %v %v", c.maxAnonymousRequests, c.postFieldTimeout, err)
	}
	for _, bad := range []string{"--max-anonymous-requests=-1", "--max-requests=-1", "--post-field-timeout=0"} {
		if _, err := parseConfig([]string{bad}, io.Discard, none); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestParseConfigDocumentMemory checks --document-memory: its default is
// api.DefaultDocumentMemory, it takes byte sizes from the flag or
// OBJECTGATEWAY_DOCUMENT_MEMORY, and refuses what is not one.
func TestParseConfigDocumentMemory(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, io.Discard, none)
	if err != nil || c.documentMemory != api.DefaultDocumentMemory {
		t.Fatalf("default %d %v, want %d", c.documentMemory, err, api.DefaultDocumentMemory)
	}
	c, err = parseConfig([]string{"--document-memory=256MiB"}, io.Discard, none)
	if err != nil || c.documentMemory != 256<<20 {
		t.Fatalf("--document-memory=256MiB: %d %v", c.documentMemory, err)
	}
	env := map[string]string{"OBJECTGATEWAY_DOCUMENT_MEMORY": "8MiB"}
	c, err = parseConfig(nil, io.Discard, func(k string) string { return env[k] })
	if err != nil || c.documentMemory != 8<<20 {
		t.Fatalf("from the environment: %d %v", c.documentMemory, err)
	}
	for _, bad := range []string{"--document-memory=-1", "--document-memory=lots"} {
		if _, err := parseConfig([]string{bad}, io.Discard, none); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestServeExpectOtherThanContinue checks that objectgateway serve answers
// a signed PUT with Expect: 200 as if there were no expectation,
// where net/http alone answers 417 before any handler runs.
func TestServeExpectOtherThanContinue(t *testing.T) {
	root := t.TempDir()
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "AKIAEXPECT", "OBJECTGATEWAY_SECRET_KEY": "expect-secret"}
	sv := startServe(t, []string{"--root", root, "--listen", "127.0.0.1:0", "--fsync=false", "--log-level", "error"}, vars, nil)
	client := s3Client(sv.addr, vars["OBJECTGATEWAY_ACCESS_KEY"], vars["OBJECTGATEWAY_SECRET_KEY"])
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("expect")}); err != nil {
		t.Fatal(err)
	}
	body := "stored despite the expectation"
	req, _ := http.NewRequest(http.MethodPut, "http://"+sv.addr+"/expect/k", strings.NewReader(body))
	req.Header.Set("Expect", "200")
	sigv4.SignRequest(req, vars["OBJECTGATEWAY_ACCESS_KEY"], vars["OBJECTGATEWAY_SECRET_KEY"], "us-east-1", time.Now(), sigv4.UnsignedPayload)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT with Expect: 200: %d %s", resp.StatusCode, text)
	}
	out, err := client.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String("expect"), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(got) != body {
		t.Fatalf("stored %q", got)
	}
}

// TestPlainListenerChain: a plaintext connection is read through
// pkg/expect, and, when the edge answers hits on the connection, through
// pkg/rawread under it; over TLS the listener is left alone.
func TestPlainListenerChain(t *testing.T) {
	chain := func(ln net.Listener) []string {
		t.Helper()
		d, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var names []string
		for {
			names = append(names, fmt.Sprintf("%T", c))
			nc, ok := c.(interface{ NetConn() net.Conn })
			if !ok {
				return names
			}
			c = nc.NetConn()
		}
	}
	for _, tc := range []struct {
		plaintext, fastHits bool
		want                string
	}{
		{true, true, "*expect.conn > *rawread.Conn > *net.TCPConn"},
		{true, false, "*expect.conn > *net.TCPConn"},
		{false, true, "*net.TCPConn"},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(chain(plainListener(ln, tc.plaintext, tc.fastHits)), " > ")
		ln.Close()
		if got != tc.want {
			t.Errorf("plaintext %v, fast hits %v: %s, want %s", tc.plaintext, tc.fastHits, got, tc.want)
		}
	}
}

// TestServeMaxConnections is the slow-loris flood at the cap: with
// --max-connections 2 held by two connections that never finish their
// request heads, a client's request is served at once, and the
// connection that has waited longest is closed for it. Before the cap
// every such connection stayed until --header-timeout, holding its head.
func TestServeMaxConnections(t *testing.T) {
	root := t.TempDir()
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "AKIACONNS", "OBJECTGATEWAY_SECRET_KEY": "conns-secret"}
	sv := startServe(t, []string{"--root", root, "--listen", "127.0.0.1:0", "--fsync=false", "--log-level", "error",
		"--max-connections", "2", "--header-timeout", "1h"}, vars, nil)
	var loris []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", sv.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET /b/k HTTP/1.1\r\nHost: x\r\nX-Slow: "+strings.Repeat("s", 1000)); err != nil {
			t.Fatal(err)
		}
		loris = append(loris, c)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	resp, err := client.Get("http://" + sv.addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "AccessDenied") {
		t.Fatalf("anonymous ListBuckets at the cap: %d %s", resp.StatusCode, body)
	}
	waitClosed(t, loris[0], time.Minute)
}

// TestServePresignedLongKeyAndToken: a presigned GET and PUT of a key of
// 1,024 bytes that all need percent-encoding, with a session token of
// 4,096 characters (STS tokens are about 1 to 2 KB; their size is not
// fixed) whose '+', '/' and '=' are encoded too, fit the head limit: the
// request line alone is about 8 KB.
func TestServePresignedLongKeyAndToken(t *testing.T) {
	root := t.TempDir()
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "AKIALONGURL", "OBJECTGATEWAY_SECRET_KEY": "long-url-secret"}
	sv := startServe(t, []string{"--root", root, "--listen", "127.0.0.1:0", "--fsync=false", "--log-level", "error"}, vars, nil)
	client := s3Client(sv.addr, vars["OBJECTGATEWAY_ACCESS_KEY"], vars["OBJECTGATEWAY_SECRET_KEY"])
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("long")}); err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("\u00e9", 512) // 1,024 bytes, each sent as %XX
	token := strings.Repeat("AQoDYXdzEJr+/=", 293)[:4096]
	presign := s3.NewPresignClient(s3.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: awscreds.NewStaticCredentialsProvider(vars["OBJECTGATEWAY_ACCESS_KEY"], vars["OBJECTGATEWAY_SECRET_KEY"], token),
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String("http://" + sv.addr)
		o.UsePathStyle = true
	}))
	body := "behind a long presigned URL"
	put, err := presign.PresignPutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("long"), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	get, err := presign.PresignGetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String("long"), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(get.URL); n < 8000 || n > maxHeaderBytes {
		t.Fatalf("presigned URL of %d bytes: want 8,000 to %d, a realistic worst case that fits", n, maxHeaderBytes)
	}
	req, _ := http.NewRequest(http.MethodPut, put.URL, strings.NewReader(body))
	for name, v := range put.SignedHeader {
		if name != "Host" {
			req.Header[name] = v
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("presigned PUT of %d bytes of URL: %d %s", len(put.URL), resp.StatusCode, text)
	}
	resp, err = http.Get(get.URL)
	if err != nil {
		t.Fatal(err)
	}
	text, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(text) != body {
		t.Fatalf("presigned GET of %d bytes of URL: %d %s", len(get.URL), resp.StatusCode, text)
	}
}
