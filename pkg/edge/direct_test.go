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
	"net/url"
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

// countingServer starts an HTTP server with handler and counts the
// connections made to it.
func countingServer(t *testing.T, handler http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	conns := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(handler)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, conns
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

// okServer starts an HTTP server answering every request with "ok".
func okServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// directStart sends a GET of url through tr and returns the answer with
// its body unread.
func directStart(t *testing.T, tr *directTransport, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp
}

// idleConns is the number of tr's kept connections to srv.
func idleConns(tr *directTransport, srv *httptest.Server) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.idle[strings.TrimPrefix(srv.URL, "http://")])
}

// TestDirectKeepsConnection checks that answers read to their end, with a
// length or chunked, and HEADs leave their connection for the next
// request.
func TestDirectKeepsConnection(t *testing.T) {
	body := bytes.Repeat([]byte("k"), 100<<10)
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.Write(body[:1000])
			w.(http.Flusher).Flush()
			w.Write(body[1000:])
			return
		}
		w.Header().Set("Content-Length", "102400")
		w.Write(body)
	})
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
	body := bytes.Repeat([]byte("n"), 1<<20)
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		w.Write(body)
	})
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

// TestDirectBodyEOFRepeats checks that a body read to its end keeps
// answering io.EOF, as net/http's bodies do: net/http's server reads its
// source again after the first 512 bytes (ResponseWriter.ReadFrom sniffs
// them first), and a body of exactly that length must not fail there.
func TestDirectBodyEOFRepeats(t *testing.T) {
	srv := okServer(t)
	tr := newTestDirect(nil)
	defer tr.CloseIdleConnections()
	resp := directStart(t, tr, srv.URL+"/x")
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "ok" {
		t.Fatalf("body %q, %v", b, err)
	}
	for range 2 {
		if n, err := resp.Body.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Errorf("a read after the end: %d, %v; want 0, io.EOF", n, err)
		}
	}
}

// TestPassSniffLength checks a pass-through of an object of exactly 512
// bytes (net/http's sniff length) through a real server, whose
// ResponseWriter.ReadFrom reads the body again after those bytes.
func TestPassSniffLength(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(56, 512)
	e.origin.put("b/obj", data, func(o *object) { o.cacheControl = "no-store" })
	errc := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		errc <- e.c().Serve(w, r, "b", "obj")
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/b/obj")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := <-errc; err != nil {
		t.Errorf("Serve of a 512-byte pass-through: %v", err)
	}
	if !bytes.Equal(b, data) {
		t.Errorf("got %d bytes, want the object's 512", len(b))
	}
}

// TestDirectHeaderLimit checks that an origin cannot make the edge hold
// an answer's head of any size: net/http's Transport refuses heads (1xx
// answers included) beyond 10 MiB.
func TestDirectHeaderLimit(t *testing.T) {
	big := strings.Repeat("v", 1<<20)
	for _, tc := range []struct{ name, head string }{
		{"header", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Big: "+big+"\r\n", 11) + "Content-Length: 2\r\n\r\nok"},
		{"1xx", strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: "+big+"\r\n\r\n", 11) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newRawOrigin(t, func(c net.Conn, br *bufio.Reader) {
				if readRequest(br) == nil {
					io.WriteString(c, tc.head)
				}
				c.Close()
			})
			tr := newTestDirect(nil)
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequest(http.MethodGet, o.url()+"/x", nil)
			resp, err := tr.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("an answer with 11 MiB of head: %s, want an error", resp.Status)
			}
		})
	}
}

// TestDirectUnsolicitedBytes checks that bytes an origin sends beyond an
// answer (more than its Content-Length, a body to a HEAD, a 408 while the
// connection is idle, before closing it) are never read as the next
// request's answer: the connection is not used again, as net/http's
// Transport does not use one that received bytes while idle. later: the
// bytes come once the client has read the answer, not with it.
func TestDirectUnsolicitedBytes(t *testing.T) {
	for _, tc := range []struct {
		name, method, extra string
		later, close        bool
	}{
		{"beyond length", http.MethodGet, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false, false},
		{"HEAD body", http.MethodHead, "ok", false, false},
		{"408 with the answer", http.MethodGet, "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false, true},
		{"408 while idle", http.MethodGet, "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := make(chan struct{})
			sent := make(chan struct{})
			var answered atomic.Bool
			o := newRawOrigin(t, func(c net.Conn, br *bufio.Reader) {
				for readRequest(br) == nil {
					answer := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
					if !answered.CompareAndSwap(false, true) {
						io.WriteString(c, answer+"ok")
						continue
					}
					if tc.method != http.MethodHead {
						answer += "ok"
					}
					if tc.later {
						io.WriteString(c, answer)
						<-read
						io.WriteString(c, tc.extra)
					} else {
						io.WriteString(c, answer+tc.extra)
					}
					if tc.close {
						c.Close()
					}
					close(sent)
					if tc.close {
						return
					}
				}
			})
			tr := newTestDirect(nil)
			defer tr.CloseIdleConnections()
			directGet(t, tr, tc.method, o.url()+"/a")
			close(read)
			<-sent
			if status, b := directGet(t, tr, http.MethodGet, o.url()+"/b"); status != http.StatusOK || string(b) != "ok" {
				t.Errorf("the next GET: %d %q, want 200 \"ok\"", status, b)
			}
		})
	}
}

// TestDirectIdleExpires checks that a kept connection idle beyond the
// idle timeout is closed although newer ones are used meanwhile (the
// pool hands out the most recent first).
func TestDirectIdleExpires(t *testing.T) {
	arrived := make(chan struct{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/held" {
			arrived <- struct{}{}
			<-release
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	clk := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	tr := newTestDirect(nil)
	tr.now = clk.Now
	tr.headerTimeout = 0 // a deadline from the fake clock would be past
	defer tr.CloseIdleConnections()
	// Three connections, on three requests at once.
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/held", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		}()
	}
	for range 3 {
		<-arrived
	}
	close(release)
	wg.Wait()
	if n := idleConns(tr, srv); n != 3 {
		t.Fatalf("%d kept connections, want 3", n)
	}
	for range 3 {
		clk.advance(30 * time.Second)
		directGet(t, tr, http.MethodGet, srv.URL+"/x")
	}
	if n := idleConns(tr, srv); n != 1 {
		t.Errorf("%d kept connections after 90 s, two of them idle all along; want 1", n)
	}
}

// TestDirectCloseIdleInFlight checks that a connection whose answer is
// read to its end after CloseIdleConnections (Cache.Close) is closed, not
// kept, as net/http's Transport does until the next request.
func TestDirectCloseIdleInFlight(t *testing.T) {
	srv := okServer(t)
	tr := newTestDirect(nil)
	defer tr.CloseIdleConnections()
	resp := directStart(t, tr, srv.URL+"/x")
	tr.CloseIdleConnections()
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := idleConns(tr, srv); n != 0 {
		t.Errorf("%d connections kept after CloseIdleConnections, want 0", n)
	}
}

// closeCounter counts CloseIdleConnections calls.
type closeCounter struct {
	http.RoundTripper
	closes atomic.Int64
}

func (c *closeCounter) CloseIdleConnections() { c.closes.Add(1) }

// TestCloseLeavesCallersClient checks that Cache.Close closes the idle
// connections of the client the cache made, and never those of a client
// the caller gave it (which may be shared).
func TestCloseLeavesCallersClient(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:1")
	cc := &closeCounter{RoundTripper: &stubTransport{}}
	c, err := Open(Options{Upstream: u, Dir: t.TempDir(), MaxBytes: 1 << 20, NoSync: true, Client: &http.Client{Transport: cc}})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if n := cc.closes.Load(); n != 0 {
		t.Errorf("the caller's client had its idle connections closed %d times", n)
	}
	c, err = Open(Options{Upstream: u, Dir: t.TempDir(), MaxBytes: 1 << 20, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	next := &closeCounter{RoundTripper: &stubTransport{}}
	c.o.Client.Transport.(*directTransport).next = next
	c.Close()
	if n := next.closes.Load(); n != 1 {
		t.Errorf("the cache's own client had its idle connections closed %d times, want 1", n)
	}
}
