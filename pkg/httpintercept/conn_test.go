package httpintercept

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fixture is an http.Server on 127.0.0.1, behind a Listener unless
// mode is plainServer. net/http answers "net/http:"+path (and for a PUT,
// ":"+body); the Handler answers GET and HEAD of /hit/... with
// "hit:"+target.
type fixture struct {
	t        *testing.T
	srv      *http.Server
	addr     string
	served   chan error
	nethttp  atomic.Int64
	hits     atomic.Int64
	canceled chan bool // /wait reports whether its context was cancelled
	entered  chan struct{}
	release  chan struct{} // /block waits for it
	ln       *Listener     // nil for plainServer
	// hitEntered and hitRelease: the Handler's answer to /hit/block
	// stops halfway through its body until hitRelease is closed;
	// hitWrote receives the error of its second write.
	hitEntered chan struct{}
	hitRelease chan struct{}
	hitWrote   chan error
}

// Modes of newFixture.
const (
	plainServer = iota
	intercepted
	interceptedNoHook
)

func newFixture(t *testing.T, mode int, configure func(*http.Server, *Options)) *fixture {
	t.Helper()
	base := runtime.NumGoroutine()
	f := &fixture{t: t, served: make(chan error, 1), canceled: make(chan bool, 1), entered: make(chan struct{}, 1), release: make(chan struct{}),
		hitEntered: make(chan struct{}, 1), hitRelease: make(chan struct{}), hitWrote: make(chan error, 1)}
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.nethttp.Add(1)
		body := "net/http:" + r.URL.Path
		switch {
		case r.Method == http.MethodPut:
			b, _ := io.ReadAll(r.Body)
			body += ":" + string(b)
		case r.URL.Path == "/sleep":
			time.Sleep(50 * time.Millisecond)
		case r.URL.Path == "/block":
			f.entered <- struct{}{}
			select {
			case <-f.release:
			case <-r.Context().Done():
				body += ":canceled"
			case <-time.After(20 * time.Second):
				body += ":timeout"
			}
		case r.URL.Path == "/wait":
			f.entered <- struct{}{}
			select {
			case <-r.Context().Done():
				f.canceled <- true
			case <-time.After(20 * time.Second):
				f.canceled <- false
			}
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, body)
	})
	f.srv = &http.Server{Handler: mux, ErrorLog: nil}
	opts := Options{Handler: f.hit}
	if configure != nil {
		configure(f.srv, &opts)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = l.Addr().String()
	var ln net.Listener = l
	if mode != plainServer {
		f.ln = NewListener(l, opts)
		ln = f.ln
		f.srv.RegisterOnShutdown(f.ln.Shutdown)
	}
	if mode == intercepted {
		f.srv.ConnState = ChainConnState(f.srv.ConnState)
	}
	go func() { f.served <- f.srv.Serve(ln) }()
	t.Cleanup(func() {
		f.srv.Close()
		if err := <-f.served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
		waitGoroutines(t, base)
	})
	return f
}

// waitGoroutines fails the test if the number of goroutines does not go
// back to base within a generous bound.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines: %d, want <= %d\n%s", n, base, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (f *fixture) hit(w net.Conn, req *Request) (answered, closeConn bool) {
	if !strings.HasPrefix(string(req.Target), "/hit/") {
		return false, false
	}
	f.hits.Add(1)
	body := "hit:" + string(req.Target)
	closeConn = req.WantsClose()
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	if closeConn {
		head += "Connection: close\r\n"
	}
	head += "\r\n"
	if req.Method == "GET" {
		head += body
	}
	if string(req.Target) == "/hit/large" {
		// bigBody bytes, more than the sockets' buffers hold.
		head := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + strconv.Itoa(bigBody) + "\r\n"
		if closeConn {
			head += "Connection: close\r\n"
		}
		if _, err := io.WriteString(w, head+"\r\n"); err != nil {
			return true, true
		}
		if _, err := w.Write(make([]byte, bigBody)); err != nil {
			return true, true
		}
		return true, closeConn
	}
	if string(req.Target) == "/hit/block" && req.Method == "GET" {
		half := len(head) - len(body)/2
		if _, err := io.WriteString(w, head[:half]); err != nil {
			return true, true
		}
		f.hitEntered <- struct{}{}
		<-f.hitRelease
		_, err := io.WriteString(w, head[half:])
		f.hitWrote <- err
		return true, closeConn || err != nil
	}
	if _, err := io.WriteString(w, head); err != nil {
		return true, true
	}
	return true, closeConn
}

type client struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func (f *fixture) dial() *client {
	f.t.Helper()
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		f.t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	f.t.Cleanup(func() { c.Close() })
	return &client{t: f.t, c: c, br: bufio.NewReader(c)}
}

func (c *client) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.c, s); err != nil {
		c.t.Fatal(err)
	}
}

// expect reads one response to a request of method and checks its status,
// body and whether it announces the connection's close.
func (c *client) expect(method string, code int, body string, closing bool) {
	c.t.Helper()
	res, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		c.t.Fatalf("reading response (want %d %q): %v", code, body, err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		c.t.Fatal(err)
	}
	if res.StatusCode != code || string(b) != body || res.Close != closing {
		c.t.Fatalf("got %d %q close=%v, want %d %q close=%v", res.StatusCode, b, res.Close, code, body, closing)
	}
}

// expectEOF checks that the server closes the connection, and returns how
// long it took.
func (c *client) expectEOF() time.Duration {
	c.t.Helper()
	start := time.Now()
	c.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := c.br.ReadByte()
	if err != io.EOF {
		c.t.Fatalf("got byte %q, err %v; want EOF", b, err)
	}
	return time.Since(start)
}

func get(path string, extra ...string) string {
	return "GET " + path + " HTTP/1.1\r\nHost: example.com\r\n" + strings.Join(extra, "") + "\r\n"
}

func head(path string) string {
	return "HEAD " + path + " HTTP/1.1\r\nHost: example.com\r\n\r\n"
}

func (f *fixture) counts(hits, nethttp int64) {
	f.t.Helper()
	if h, n := f.hits.Load(), f.nethttp.Load(); h != hits || n != nethttp {
		f.t.Fatalf("hits %d, net/http %d; want %d, %d", h, n, hits, nethttp)
	}
}

func TestKeepAliveMix(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	c := f.dial()
	steps := []struct{ req, method, body string }{
		{get("/hit/a"), "GET", "hit:/hit/a"},
		{get("/other"), "GET", "net/http:/other"},
		{get("/hit/b?x=1"), "GET", "hit:/hit/b?x=1"},
		{get("/hit/c"), "GET", "hit:/hit/c"},
		{"DELETE /gone HTTP/1.1\r\nHost: example.com\r\n\r\n", "DELETE", "net/http:/gone"},
		{get("/hit/d", "Content-Length: 0\r\n"), "GET", "hit:/hit/d"},
		{head("/hit/e"), "HEAD", ""},
		{head("/other"), "HEAD", ""},
		{get("/last"), "GET", "net/http:/last"},
	}
	for _, s := range steps {
		c.send(s.req)
		c.expect(s.method, 200, s.body, false)
	}
	f.counts(5, 4)
}

func TestPipelined(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	c := f.dial()
	c.send(get("/hit/1") + get("/sleep") + get("/hit/2") + head("/hit/3") + get("/n1") +
		head("/n2") + get("/sleep") + get("/hit/4") + get("/hit/5", "Connection: close\r\n"))
	c.expect("GET", 200, "hit:/hit/1", false)
	c.expect("GET", 200, "net/http:/sleep", false)
	c.expect("GET", 200, "hit:/hit/2", false)
	c.expect("HEAD", 200, "", false)
	c.expect("GET", 200, "net/http:/n1", false)
	c.expect("HEAD", 200, "", false)
	c.expect("GET", 200, "net/http:/sleep", false)
	c.expect("GET", 200, "hit:/hit/4", false)
	c.expect("GET", 200, "hit:/hit/5", true)
	c.expectEOF()
	f.counts(5, 4)
}

// Requests that arrive while net/http serves one are kept by the Conn
// (never given to net/http's background read) and answered after it.
func TestPipelinedDuringActive(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	c := f.dial()
	c.send(get("/block"))
	<-f.entered
	c.send(get("/hit/1") + head("/other") + get("/hit/2"))
	time.Sleep(50 * time.Millisecond) // most likely read by the background read by now
	close(f.release)
	c.expect("GET", 200, "net/http:/block", false)
	c.expect("GET", 200, "hit:/hit/1", false)
	c.expect("HEAD", 200, "", false)
	c.expect("GET", 200, "hit:/hit/2", false)
	f.counts(2, 2)
}

// More than MaxBufferedBytes sent during a request switches the
// connection to pass-through: every later request is net/http's.
func TestReadAheadLimit(t *testing.T) {
	f := newFixture(t, intercepted, func(s *http.Server, o *Options) { o.MaxBufferedBytes = 16 << 10 })
	c := f.dial()
	c.send(get("/block"))
	<-f.entered
	var b strings.Builder
	const n = 1000 // about 40 KiB
	for i := range n {
		b.WriteString(get("/hit/" + strconv.Itoa(i)))
	}
	c.send(b.String())
	time.Sleep(100 * time.Millisecond) // most likely past the limit by now
	close(f.release)
	c.expect("GET", 200, "net/http:/block", false)
	hits := 0
	for i := range n {
		res, err := http.ReadResponse(c.br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		switch string(body) {
		case "hit:/hit/" + strconv.Itoa(i):
			hits++
		case "net/http:/hit/" + strconv.Itoa(i):
		default:
			t.Fatalf("response %d: %q", i, body)
		}
	}
	// Either the limit was passed before the request ended (all
	// net/http's, the usual case) or not (all hits).
	if hits != 0 && hits != n {
		t.Fatalf("%d hits of %d: pass-through is not for good", hits, n)
	}
	t.Logf("%d hits of %d", hits, n)
}

// A head longer than net/http's read buffer (4 KiB) is handed over in
// several reads, and offered to the Handler when within MaxHeadBytes.
func TestLongHeads(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	c := f.dial()
	big := "X-Pad: " + strings.Repeat("p", 6000) + "\r\n"
	c.send(get("/other", big) + get("/hit/big", big) + get("/hit/small"))
	c.expect("GET", 200, "net/http:/other", false)
	c.expect("GET", 200, "hit:/hit/big", false)
	c.expect("GET", 200, "hit:/hit/small", false)
	// Over MaxHeadBytes but under net/http's limit: net/http answers,
	// and the connection is net/http's from then on.
	huge := "X-Pad: " + strings.Repeat("p", 10000) + "\r\n"
	c.send(get("/hit/huge", huge) + get("/hit/after"))
	c.expect("GET", 200, "net/http:/hit/huge", false)
	c.expect("GET", 200, "net/http:/hit/after", false)
	f.counts(2, 3)
}

func TestBodyPassThrough(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	c := f.dial()
	c.send(get("/hit/first"))
	c.expect("GET", 200, "hit:/hit/first", false)
	c.send("PUT /obj HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\nhello" + get("/hit/x"))
	c.expect("PUT", 200, "net/http:/obj:hello", false)
	c.expect("GET", 200, "net/http:/hit/x", false)
	c.send(head("/hit/y"))
	c.expect("HEAD", 200, "", false)
	c.send(get("/hit/z"))
	c.expect("GET", 200, "net/http:/hit/z", false)
	f.counts(1, 4)
}

func TestChunkedPassThrough(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	c := f.dial()
	c.send("PUT /obj HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + get("/hit/x"))
	c.expect("PUT", 200, "net/http:/obj:abc", false)
	c.expect("GET", 200, "net/http:/hit/x", false)
	f.counts(0, 2)
}

func TestConnectionClose(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	c := f.dial()
	c.send(get("/hit/a"))
	c.expect("GET", 200, "hit:/hit/a", false)
	c.send(get("/hit/b", "Connection: close\r\n"))
	c.expect("GET", 200, "hit:/hit/b", true)
	c.expectEOF()

	c = f.dial()
	c.send(get("/hit/a"))
	c.expect("GET", 200, "hit:/hit/a", false)
	c.send(get("/other", "Connection: keep-alive, close\r\n"))
	c.expect("GET", 200, "net/http:/other", true)
	c.expectEOF()
	f.counts(3, 1)
}

func TestIdleTimeout(t *testing.T) {
	const idle = 200 * time.Millisecond
	f := newFixture(t, intercepted, func(s *http.Server, o *Options) {
		s.IdleTimeout = idle
		o.IdleTimeout = idle
	})
	// After a hit (net/http still in StateNew).
	c := f.dial()
	c.send(get("/hit/a"))
	c.expect("GET", 200, "hit:/hit/a", false)
	c.expectEOF()
	// After a net/http answer then a hit.
	c = f.dial()
	c.send(get("/other"))
	c.expect("GET", 200, "net/http:/other", false)
	c.send(get("/hit/b"))
	c.expect("GET", 200, "hit:/hit/b", false)
	c.expectEOF()
	// After a net/http answer.
	c = f.dial()
	c.send(get("/hit/c") + get("/other"))
	c.expect("GET", 200, "hit:/hit/c", false)
	c.expect("GET", 200, "net/http:/other", false)
	c.expectEOF()
}

func TestClientCloseCancels(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	for _, prefix := range []string{"", get("/hit/a")} {
		c := f.dial()
		c.send(prefix + get("/wait"))
		if prefix != "" {
			c.expect("GET", 200, "hit:/hit/a", false)
		}
		<-f.entered
		c.c.Close()
		if !<-f.canceled {
			t.Fatal("the request's context was not cancelled by the client's close")
		}
	}
}

// TestErrorAnswers sends heads net/http refuses (or serves on the
// pass-through path), to a server with and without the Listener, and
// compares the answers.
func TestErrorAnswers(t *testing.T) {
	cfg := func(s *http.Server, o *Options) { s.MaxHeaderBytes = 16 << 10 }
	plain := newFixture(t, plainServer, cfg)
	inter := newFixture(t, intercepted, cfg)
	cases := []struct {
		name, req string
		code      int
	}{
		{"garbage", "GARBAGE\r\n\r\n", 400},
		{"no host", "GET /hit/x HTTP/1.1\r\n\r\n", 400},
		{"two hosts", "GET /hit/x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
		{"bad host", "GET /hit/x HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
		{"bad header name", "GET /hit/x HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n", 400},
		{"bad header value", "GET /hit/x HTTP/1.1\r\nHost: a\r\nX: a\x01b\r\n\r\n", 400},
		{"obs-fold", "GET /hit/x HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", 200},
		{"bad content-length", "GET /hit/x HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", 400},
		{"unknown transfer-encoding", "GET /hit/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"expect", "GET /hit/x HTTP/1.1\r\nHost: a\r\nExpect: something\r\n\r\n", 417},
		{"bad escape", "GET /hit/%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400},
		{"http/2.0", "GET /hit/x HTTP/2.0\r\nHost: a\r\n\r\n", 505},
		{"http/1.0", "GET /hit/x HTTP/1.0\r\n\r\n", 200},
		{"bare LF", "GET /hit/x HTTP/1.1\nHost: a\n\n", 200},
		{"double space", "GET  /hit/x HTTP/1.1\r\nHost: a\r\n\r\n", 400},
		{"oversized", "GET /hit/x HTTP/1.1\r\nHost: a\r\nX-Pad: " + strings.Repeat("p", 40<<10) + "\r\n\r\n", 431},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]string
			for i, f := range []*fixture{plain, inter} {
				for _, prefix := range []string{"", get("/hit/first")} {
					c := f.dial()
					go io.WriteString(c.c, prefix+tc.req) // the server may close before reading it all
					if prefix != "" {
						c.expect("GET", 200, map[bool]string{false: "net/http:/hit/first", true: "hit:/hit/first"}[i == 1], false)
					}
					res, err := http.ReadResponse(c.br, &http.Request{Method: "GET"})
					if err != nil {
						t.Fatalf("server %d: %v", i, err)
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					s := res.Status + "|" + string(b)
					if prefix == "" {
						got[i] = s
					} else if s != got[i] {
						t.Fatalf("server %d after a first request: %q, alone: %q", i, s, got[i])
					}
					if res.StatusCode != tc.code {
						t.Fatalf("server %d: %q, want code %d", i, s, tc.code)
					}
					c.c.Close()
				}
			}
			if got[0] != got[1] {
				t.Fatalf("without the Listener: %q; with it: %q", got[0], got[1])
			}
		})
	}
	if inter.hits.Load() != int64(len(cases)) {
		t.Fatalf("hits %d, want %d (only the /hit/first requests)", inter.hits.Load(), len(cases))
	}
}

// Shutdown closes connections that only the Handler has answered, and
// connections net/http left idle.
func TestShutdown(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	a := f.dial()
	a.send(get("/other") + get("/hit/a"))
	a.expect("GET", 200, "net/http:/other", false)
	a.expect("GET", 200, "hit:/hit/a", false)
	b := f.dial()
	b.send(get("/hit/b"))
	b.expect("GET", 200, "hit:/hit/b", false)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Connection b is still StateNew for net/http, which Shutdown
	// treats as idle only after 5 s.
	if err := f.srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	a.expectEOF()
	b.expectEOF()
}

// bigBody is the length of the Handler's answer to /hit/large.
const bigBody = 8 << 20

// TestCloseAfterAnswerKeepsItWhole checks that a connection the Conn ends
// after an answer (the answer closes it, or Shutdown came during it)
// delivers the whole answer and then the end of the stream, even when
// the client pipelined a request the Conn never read: closing with unread
// bytes would make Linux reset the connection and drop the answer's
// queued bytes.
func TestCloseAfterAnswerKeepsItWhole(t *testing.T) {
	for _, tc := range []struct {
		name     string
		request  string
		shutdown bool
	}{
		{"Connection: close", get("/hit/large", "Connection: close\r\n"), false},
		{"Shutdown", get("/hit/large"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, intercepted, nil)
			c := f.dial()
			if tcp, ok := c.c.(*net.TCPConn); ok {
				// Keep most of the answer queued at the server.
				tcp.SetReadBuffer(64 << 10)
			}
			c.send(tc.request)
			// The answer has begun: its head was read from the
			// connection, and the next request arrives unread.
			if _, err := c.br.Peek(1); err != nil {
				t.Fatal(err)
			}
			c.send(get("/hit/a"))
			if tc.shutdown {
				f.ln.Shutdown()
			}
			res, err := http.ReadResponse(c.br, &http.Request{Method: "GET"})
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, res.Body)
			if err != nil || n != bigBody {
				t.Fatalf("body: %d of %d bytes, error %v", n, bigBody, err)
			}
			c.expectEOF()
			f.counts(1, 0)
		})
	}
}

// Without the ConnState hook a Conn answers nothing itself.
func TestHookNotWired(t *testing.T) {
	f := newFixture(t, interceptedNoHook, nil)
	c := f.dial()
	c.send(get("/hit/a") + get("/hit/b"))
	c.expect("GET", 200, "net/http:/hit/a", false)
	c.expect("GET", 200, "net/http:/hit/b", false)
	f.counts(0, 2)
}

// Listener.Shutdown alone ends a connection on which the Handler answered
// every request: net/http has never seen a request on it (StateNew) and
// would leave it for five seconds, and it does not close it at all
// without its own Shutdown.
func TestListenerShutdownEndsHitConnections(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	b := f.dial()
	b.send(get("/hit/b"))
	b.expect("GET", 200, "hit:/hit/b", false)
	a := f.dial()
	a.send(get("/other"))
	a.expect("GET", 200, "net/http:/other", false)
	f.ln.Shutdown()
	b.expectEOF()
	// a is net/http's idle connection: its Read waits in the Conn too.
	a.expectEOF()
	f.counts(1, 1)
}

// net/http's Shutdown closes the connections it thinks idle; one whose
// answer the Handler is writing only looks idle, and the answer ends
// whole before the connection closes.
func TestShutdownLetsAnswerFinish(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	a := f.dial()
	a.send(get("/other"))
	a.expect("GET", 200, "net/http:/other", false)
	a.send(get("/hit/block"))
	<-f.hitEntered
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		err := f.srv.Shutdown(ctx)
		if err == nil {
			err = f.ln.Wait(ctx)
		}
		shut <- err
	}()
	// Wait until net/http has closed the connection (it is StateIdle to
	// it), which the Conn defers to the end of the answer.
	waitFor(t, "net/http's Close during the answer", func() bool {
		for c := range f.liveConns() {
			c.closeMu.Lock()
			later := c.closeLater
			c.closeMu.Unlock()
			if later {
				return true
			}
		}
		return false
	})
	// The answer cannot end before hitRelease: Shutdown and Wait are
	// still waiting for it.
	select {
	case err := <-shut:
		t.Fatalf("Shutdown and Wait returned (%v) during the answer", err)
	default:
	}
	close(f.hitRelease)
	if err := <-f.hitWrote; err != nil {
		t.Fatalf("second half of the answer: %v", err)
	}
	a.expect("GET", 200, "hit:/hit/block", false)
	a.expectEOF()
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// Cut ends an answer in progress: it is what the server's Close after a
// drain limit relies on.
func TestCutEndsAnswer(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	a := f.dial()
	a.send(get("/hit/block"))
	<-f.hitEntered
	f.ln.Cut()
	close(f.hitRelease)
	if err := <-f.hitWrote; err == nil {
		t.Fatal("the answer went on writing after Cut")
	}
	if _, err := http.ReadResponse(a.br, &http.Request{Method: "GET"}); err == nil {
		// The head was sent; the body must come up short.
		if _, err := io.ReadAll(a.br); err != nil {
			t.Logf("body after Cut: %v", err)
		}
	}
	// A connection accepted after Cut is closed at once, and the
	// listener goes on (the server's Close closes it).
	b := f.dial()
	b.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if n, err := b.br.ReadByte(); err == nil {
		t.Fatalf("a connection after Cut got a byte %q", n)
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("a connection after Cut was left open")
	}
	f.counts(1, 0)
}

// No answer of the Handler starts after Shutdown: a head read later goes
// to net/http, which serves it as its own shutdown allows (here, not
// shutting down, it answers and keeps the connection), and the Conn ends
// the connection at its next wait for a head.
func TestShutdownHandsLaterHeadsOver(t *testing.T) {
	f := newFixture(t, intercepted, nil)
	a := f.dial()
	// net/http serves /block; the hit behind it waits in the Conn.
	a.send(get("/block") + get("/hit/a"))
	<-f.entered
	f.ln.Shutdown()
	close(f.release)
	a.expect("GET", 200, "net/http:/block", false)
	a.expect("GET", 200, "net/http:/hit/a", false)
	a.expectEOF()
	f.counts(0, 2)
	if err := f.ln.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A Handler that panics: net/http recovers and closes the connection,
// and the Conn, whose answer ended with the panic, closes it at once.
func TestHandlerPanicClosesConn(t *testing.T) {
	f := newFixture(t, intercepted, func(s *http.Server, o *Options) {
		s.ErrorLog = log.New(io.Discard, "", 0)
		next := o.Handler
		o.Handler = func(w net.Conn, r *Request) (bool, bool) {
			if string(r.Target) == "/hit/panic" {
				panic("handler bug")
			}
			return next(w, r)
		}
	})
	a := f.dial()
	a.send(get("/hit/panic"))
	a.expectEOF()
	waitFor(t, "the connection leaving the listener", func() bool { return len(f.liveConns()) == 0 })
	if n := f.ln.answering.Load(); n != 0 {
		t.Fatalf("%d answers counted after the panic", n)
	}
	b := f.dial()
	b.send(get("/hit/b"))
	b.expect("GET", 200, "hit:/hit/b", false)
}

func (f *fixture) liveConns() map[*Conn]struct{} {
	f.ln.mu.Lock()
	defer f.ln.mu.Unlock()
	m := make(map[*Conn]struct{}, len(f.ln.conns))
	for c := range f.ln.conns {
		m[c] = struct{}{}
	}
	return m
}

// waitFor polls cond until it holds, failing the test after a generous
// bound (the condition is reached by the code under test, not by time).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not reached", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// A request head that starts arriving on a keep-alive connection between
// requests must be complete within ReadHeaderTimeout, as net/http
// enforces it from its Peek(4), whoever answered the request before: a
// net/http answer (StateIdle), or a hit with part of the next head
// already buffered. The idle timeout is an hour, so a head held to it
// would outlast the client's 20-second wait; the header timeout, 1 s,
// leaves whole heads written in one piece ample time on a loaded
// machine. What the server writes before it closes must be what net/http
// alone writes.
func TestReadHeaderTimeoutBetweenRequests(t *testing.T) {
	const header, idle = time.Second, time.Hour
	cfg := func(s *http.Server, o *Options) {
		s.ReadHeaderTimeout, s.IdleTimeout = header, idle
		o.ReadHeaderTimeout, o.IdleTimeout = header, idle
	}
	ends := map[int][]string{}
	for _, mode := range []int{plainServer, intercepted} {
		f := newFixture(t, mode, cfg)
		hit := hitAnswer(mode)

		// After a net/http answer: part of a head, then nothing.
		c := f.dial()
		c.send(get("/other"))
		c.expect("GET", 200, "net/http:/other", false)
		c.send("GET /other HTTP/1.1\r\nHost: example.com\r\n")
		ends[mode] = append(ends[mode], c.rest())

		// After a hit, with part of the next head buffered.
		c = f.dial()
		c.send(get("/hit/a") + "GET /other HTTP/1.1\r\n")
		c.expect("GET", 200, hit, false)
		ends[mode] = append(ends[mode], c.rest())

		// After a hit, the next head arriving in two parts.
		c = f.dial()
		c.send(get("/hit/a"))
		c.expect("GET", 200, hit, false)
		c.send("GET /oth")
		ends[mode] = append(ends[mode], c.rest())
	}
	for i := range ends[plainServer] {
		if a, b := ends[plainServer][i], ends[intercepted][i]; a != b {
			t.Errorf("case %d: net/http alone ends with %q, intercepted with %q", i, a, b)
		}
	}
}

// rest reads what the server writes until it closes the connection, and
// fails the test if it does not within 20 seconds.
func (c *client) rest() string {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := io.ReadAll(c.br)
	if err != nil {
		c.t.Fatalf("after %q: %v, want the connection closed", b, err)
	}
	return string(b)
}

// After a hit on a new connection (net/http still in StateNew, so the
// Conn is in charge of the header deadline), the next head must be held
// to ReadHeaderTimeout from its first bytes even when the read that
// brings them already switches the connection to pass-through: a request
// line ending in a bare LF (which net/http accepts, then waits for the
// rest of the head), or MaxHeadBytes of a head without its end. Held to
// the idle deadline the hit left (an hour), the head outlasts the
// client's 20-second wait; net/http alone closes after 1 s.
func TestReadHeaderTimeoutPassThroughAfterHit(t *testing.T) {
	const header, idle = time.Second, time.Hour
	cfg := func(s *http.Server, o *Options) {
		s.ReadHeaderTimeout, s.IdleTimeout = header, idle
		o.ReadHeaderTimeout, o.IdleTimeout = header, idle
		o.MaxHeadBytes = 4 << 10 // the size of the Conn's first buffer
	}
	partials := []string{
		"GET /other HTTP/1.1\nHost: example.com\n",
		"GET /other HTTP/1.1\r\nHost: example.com\r\nX-Pad: " + strings.Repeat("p", 5000),
	}
	ends := map[int][]string{}
	for _, mode := range []int{plainServer, intercepted} {
		f := newFixture(t, mode, cfg)
		hit := hitAnswer(mode)
		for _, partial := range partials {
			c := f.dial()
			c.send(get("/hit/a"))
			c.expect("GET", 200, hit, false)
			c.send(partial)
			ends[mode] = append(ends[mode], c.rest())
		}
	}
	for i := range ends[plainServer] {
		if a, b := ends[plainServer][i], ends[intercepted][i]; a != b {
			t.Errorf("case %d: net/http alone ends with %q, intercepted with %q", i, a, b)
		}
	}
}

// hitAnswer is what the fixture's answer of GET /hit/a says in mode: the
// Handler's, or net/http's when there is no Conn to take it.
func hitAnswer(mode int) string {
	if mode == plainServer {
		return "net/http:/hit/a"
	}
	return "hit:/hit/a"
}

// net/http discards CR and LF bytes before a request line only after a
// POST (its conn.lastMethod). A head after a POST is handed to net/http,
// not answered, so that a request line preceded by CRLF two requests
// after a POST gets net/http's 400, as without the Listener, instead of
// being served because net/http never saw the request in between.
func TestLeadingCRLFAfterPost(t *testing.T) {
	post := "POST /p HTTP/1.1\r\nHost: example.com\r\n\r\n"
	for _, tc := range []struct {
		name, req string
		plain     []string // net/http's answers, status|body
		intercept []string // the answers with the Listener
	}{
		{"hit, then CRLF", post + get("/hit/a") + "\r\n" + get("/hit/b"),
			[]string{"200|net/http:/p", "200|net/http:/hit/a", "400|400 Bad Request"},
			[]string{"200|net/http:/p", "200|net/http:/hit/a", "400|400 Bad Request"}},
		{"CRLF right after", post + "\r\n" + get("/hit/a") + get("/hit/b"),
			[]string{"200|net/http:/p", "200|net/http:/hit/a", "200|net/http:/hit/b"},
			// The CRLF makes the rest of the connection net/http's.
			[]string{"200|net/http:/p", "200|net/http:/hit/a", "200|net/http:/hit/b"}},
		{"two hits, then CRLF", post + get("/hit/a") + get("/hit/b") + "\r\n" + get("/hit/c"),
			[]string{"200|net/http:/p", "200|net/http:/hit/a", "200|net/http:/hit/b", "400|400 Bad Request"},
			[]string{"200|net/http:/p", "200|net/http:/hit/a", "200|hit:/hit/b", "400|400 Bad Request"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []int{plainServer, intercepted} {
				f := newFixture(t, mode, nil)
				c := f.dial()
				go io.WriteString(c.c, tc.req)
				want := tc.plain
				if mode == intercepted {
					want = tc.intercept
				}
				var hits, nets int64
				for i, w := range want {
					if strings.Contains(w, "|hit:") {
						hits++
					} else if strings.Contains(w, "|net/http:") {
						nets++
					}
					res, err := http.ReadResponse(c.br, &http.Request{Method: "GET"})
					if err != nil {
						t.Fatalf("mode %d, answer %d: %v", mode, i+1, err)
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if got := strconv.Itoa(res.StatusCode) + "|" + string(b); got != w {
						t.Fatalf("mode %d, answer %d: %q, want %q", mode, i+1, got, w)
					}
				}
				f.counts(hits, nets)
			}
		})
	}
}
