package edge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawOrigin is a TCP server whose connections are handled by handle, for
// answers net/http's server does not give (1xx, closing a kept
// connection, never answering).
type rawOrigin struct {
	ln       net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func newRawOrigin(t *testing.T, handle func(c net.Conn, br *bufio.Reader)) *rawOrigin {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &rawOrigin{ln: ln}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			o.accepted.Add(1)
			o.mu.Lock()
			o.conns = append(o.conns, c)
			o.mu.Unlock()
			o.wg.Add(1)
			go func() {
				defer o.wg.Done()
				handle(c, bufio.NewReader(c))
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		o.mu.Lock()
		for _, c := range o.conns {
			c.Close()
		}
		o.mu.Unlock()
		o.wg.Wait()
	})
	return o
}

func (o *rawOrigin) url() string { return "http://" + o.ln.Addr().String() }

// readRequest reads one request head from br and drops it.
func readRequest(br *bufio.Reader) error {
	req, err := http.ReadRequest(br)
	if err != nil {
		return err
	}
	return req.Body.Close()
}

// stubTransport records the requests handed to it.
type stubTransport struct{ got []string }

func (s *stubTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	s.got = append(s.got, r.Method+" "+r.URL.String())
	return &http.Response{StatusCode: http.StatusTeapot, Body: http.NoBody, Request: r}, nil
}

func newTestDirect(next http.RoundTripper) *directTransport {
	if next == nil {
		next = &stubTransport{}
	}
	return newDirectTransport(next, time.Minute, time.Minute, 4)
}

// directGet does a GET (or HEAD) through tr and returns the status and body.
func directGet(t *testing.T, tr *directTransport, method, url string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp.StatusCode, b
}

// TestDirectKeepsConnection checks that answers read to their end, with a
// length or chunked, and HEADs leave their connection for the next
// request.
func TestDirectKeepsConnection(t *testing.T) {
	var conns atomic.Int64
	body := bytes.Repeat([]byte("k"), 100<<10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.Write(body[:1000])
			w.(http.Flusher).Flush()
			w.Write(body[1000:])
			return
		}
		w.Header().Set("Content-Length", "102400")
		w.Write(body)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := newTestDirect(nil)
	defer tr.CloseIdleConnections()
	for _, p := range []string{"/a", "/chunked", "/b", "/chunked"} {
		if status, b := directGet(t, tr, http.MethodGet, srv.URL+p); status != http.StatusOK || !bytes.Equal(b, body) {
			t.Fatalf("GET %s: %d, %d bytes", p, status, len(b))
		}
	}
	if status, b := directGet(t, tr, http.MethodHead, srv.URL+"/a"); status != http.StatusOK || len(b) != 0 {
		t.Fatalf("HEAD: %d, %d bytes", status, len(b))
	}
	directGet(t, tr, http.MethodGet, srv.URL+"/a")
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for six requests in turn, want 1", n)
	}
}

// TestDirectStaleConnection checks that a kept connection the origin
// closed is found and the request sent again on a new one.
func TestDirectStaleConnection(t *testing.T) {
	o := newRawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		// One answer per connection, then the connection is closed as
		// an idle one would be, without saying so.
		if readRequest(br) == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
		c.Close()
	})
	tr := newTestDirect(nil)
	defer tr.CloseIdleConnections()
	for i := range 3 {
		if status, b := directGet(t, tr, http.MethodGet, o.url()+"/x"); status != http.StatusOK || string(b) != "ok" {
			t.Fatalf("GET %d: %d %q", i, status, b)
		}
	}
	if n := o.accepted.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

// TestDirectNotKept checks the answers after which a connection is not
// kept: a body closed before its end, and Connection: close.
func TestDirectNotKept(t *testing.T) {
	var conns atomic.Int64
	body := bytes.Repeat([]byte("n"), 1<<20)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		w.Write(body)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := newTestDirect(nil)
	defer tr.CloseIdleConnections()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/big", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := resp.Body.Read(make([]byte, 10)); err == nil {
		t.Error("a read after Close succeeded")
	}
	directGet(t, tr, http.MethodGet, srv.URL+"/close")
	directGet(t, tr, http.MethodGet, srv.URL+"/after")
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections, want 3 (none kept)", n)
	}
}

// TestDirectCancel checks that cancelling a request's context ends it
// while it waits for the answer's head and while it reads the body, and
// that closing the body ends a Read blocked in another goroutine.
func TestDirectCancel(t *testing.T) {
	arrived := make(chan struct{}, 3)
	o := newRawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		arrived <- struct{}{}
		if req.URL.Path != "/silent" {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhalf")
		}
		io.Copy(io.Discard, br) // until the client goes
	})
	tr := newTestDirect(nil)
	defer tr.CloseIdleConnections()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, o.url()+"/silent", nil)
	done := make(chan error, 1)
	go func() {
		_, err := tr.RoundTrip(req)
		done <- err
	}()
	<-arrived
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while waiting for the head: %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, o.url()+"/half", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	go cancel()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("the body's read went on after the cancellation")
	}
	resp.Body.Close()

	req, _ = http.NewRequest(http.MethodGet, o.url()+"/half", nil)
	if resp, err = tr.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	go resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("the body's read went on after Close")
	}
	if n := o.accepted.Load(); n != 3 {
		t.Errorf("%d connections, want 3 (none kept)", n)
	}
}

// TestDirectHeaderTimeout checks the limit on the wait for an answer's
// head.
func TestDirectHeaderTimeout(t *testing.T) {
	o := newRawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		readRequest(br)
		io.Copy(io.Discard, br) // never answers
	})
	tr := newDirectTransport(&stubTransport{}, 50*time.Millisecond, time.Minute, 4)
	req, _ := http.NewRequest(http.MethodGet, o.url()+"/x", nil)
	if _, err := tr.RoundTrip(req); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("an origin that never answers: %v, want a timeout", err)
	}
}

// TestDirectInformational checks that 1xx answers before the final one
// are skipped.
func TestDirectInformational(t *testing.T) {
	o := newRawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		for readRequest(br) == nil {
			io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"+
				"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	tr := newTestDirect(nil)
	defer tr.CloseIdleConnections()
	for range 2 {
		if status, b := directGet(t, tr, http.MethodGet, o.url()+"/x"); status != http.StatusOK || string(b) != "ok" {
			t.Fatalf("%d %q, want 200 ok", status, b)
		}
	}
	if n := o.accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// TestDirectHandsOn checks that what the client does not handle goes to
// the next transport: https, other methods, request bodies.
func TestDirectHandsOn(t *testing.T) {
	next := &stubTransport{}
	tr := newTestDirect(next)
	for _, r := range []*http.Request{
		httptest.NewRequest(http.MethodGet, "https://origin.example/b/k", nil),
		httptest.NewRequest(http.MethodPut, "http://origin.example/b/k", strings.NewReader("x")),
		httptest.NewRequest(http.MethodDelete, "http://origin.example/b/k", nil),
	} {
		r.RequestURI = ""
		resp, err := tr.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusTeapot {
			t.Errorf("%s %s: %v, %v; want the next transport's answer", r.Method, r.URL, resp, err)
		}
	}
	if len(next.got) != 3 {
		t.Errorf("next transport got %v", next.got)
	}
}
