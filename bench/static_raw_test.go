package bench

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startRawStatic serves dir with the raw static server until the test
// ends and returns its address.
func startRawStatic(t *testing.T, dir string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- ServeStatic(ctx, StaticOptions{Dir: dir, Raw: true}, "127.0.0.1:0", func(a string) { addrc <- a })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeStatic: %v", err)
		}
	})
	select {
	case a := <-addrc:
		return a
	case err := <-done:
		t.Fatal(err)
	}
	return ""
}

// rawExchange sends req on a new connection and returns everything the
// server wrote until it closed the connection.
func rawExchange(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%.60q: %v (the server must close the connection)", req, err)
	}
	return string(out)
}

// TestRawStatic checks the raw static server's answers: GETs over one
// keep-alive connection, HEAD, a missing file, a path out of the
// directory, HTTP/1.0 and Connection: close ending the connection, and the
// requests it refuses.
func TestRawStatic(t *testing.T) {
	dir := t.TempDir()
	body := bytes.Repeat([]byte("0123456789abcdef"), 6400) // 100 KiB
	if err := os.MkdirAll(filepath.Join(dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b", "k"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startRawStatic(t, dir)
	base := "http://" + addr

	// Three GETs and a HEAD on one connection.
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for i := range 3 {
		resp, err := client.Get(base + "/b/k")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || !bytes.Equal(got, body) || resp.ContentLength != int64(len(body)) {
			t.Fatalf("GET %d: %d, %d bytes, %v", i, resp.StatusCode, len(got), err)
		}
	}
	resp, err := client.Head(base + "/b/k")
	if err != nil || resp.StatusCode != 200 || resp.ContentLength != int64(len(body)) {
		t.Fatalf("HEAD: %v, %v", resp, err)
	}
	resp.Body.Close()
	for _, p := range []string{"/b/missing", "/b/../secret", "/b/.hidden", "/b"} {
		resp, err := client.Get(base + p)
		if err != nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %s: %v, %v, want 404", p, resp, err)
		}
		resp.Body.Close()
	}

	// HTTP/1.0 and Connection: close: the answer, then the connection ends.
	for _, req := range []string{
		"GET /b/k HTTP/1.0\r\nHost: x\r\n\r\n",
		"GET /b/k HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	} {
		out := rawExchange(t, addr, req)
		head, got, _ := strings.Cut(out, "\r\n\r\n")
		if !strings.HasPrefix(head, "HTTP/1.1 200 OK") || !strings.Contains(head, "Connection: close") || got != string(body) {
			t.Fatalf("%q: header %q, %d body bytes", req, head, len(got))
		}
	}
	// Two pipelined requests: two answers in order.
	out := rawExchange(t, addr, "HEAD /b/k HTTP/1.1\r\nHost: x\r\n\r\nGET /b/missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	br := bufio.NewReader(strings.NewReader(out))
	for i, want := range []int{200, 404} {
		method := map[int]string{0: http.MethodHead, 1: http.MethodGet}[i]
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil || resp.StatusCode != want {
			t.Fatalf("pipelined: %v, %v, want %d", resp, err, want)
		}
		io.Copy(io.Discard, resp.Body)
	}

	// Refused: another method, a body, a header over the buffer, garbage.
	for _, req := range []string{
		"PUT /b/k HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx",
		"GET /b/k HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET /b/k HTTP/1.1\r\nHost: x\r\nX-Long: " + strings.Repeat("a", 5000) + "\r\n\r\n",
		"GET /b/k HTTP/2.0\r\n\r\n",
		"hello\r\n\r\n",
	} {
		out := rawExchange(t, addr, req)
		if !strings.HasPrefix(out, "HTTP/1.1 400 Bad Request\r\n") || !strings.Contains(out, "Connection: close") {
			t.Fatalf("%.40q: answered %q, want 400 and a closed connection", req, out)
		}
	}
}
