package connlimit

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/httpintercept"
)

// guard bounds every wait of these tests. It is only reached when the
// behaviour under test is broken: no test waits for time to pass.
const guard = 30 * time.Second

// server is an http.Server behind a Listener of max connections.
type server struct {
	t    *testing.T
	lim  *Listener
	srv  *http.Server
	addr string
	tls  *tls.Config // client configuration when the listener is TLS
	// atCap receives a value each time Accept starts waiting at the cap.
	atCap chan struct{}
	// entered receives the query of each /block request as its handler
	// starts; closing gate(query) ends it.
	entered chan string
	gates   sync.Map
}

// gate is the channel whose close ends the /block requests of query name.
func (s *server) gate(name string) chan struct{} {
	ch, _ := s.gates.LoadOrStore(name, make(chan struct{}))
	return ch.(chan struct{})
}

type serverOptions struct {
	max  int
	tls  bool
	hits bool // pkg/httpintercept under the Listener, answering /hit
	idle time.Duration
	head time.Duration
	// grace is Options.Grace; clock, when set, is the Listener's clock.
	grace time.Duration
	clock *fakeClock
	// hook, when set, is called after the Listener's with every state
	// change.
	hook func(*Listener, net.Conn, http.ConnState)
}

func startServer(t *testing.T, o serverOptions) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, addr: ln.Addr().String(), atCap: make(chan struct{}, 1),
		entered: make(chan string, 16)}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), IdleTimeout: o.idle, ReadHeaderTimeout: o.head,
		ErrorLog: log.New(io.Discard, "", 0)}
	var inner net.Listener = ln
	if o.tls {
		// httptest's certificate, and a client configuration that
		// trusts it.
		ts := httptest.NewTLSServer(http.NotFoundHandler())
		certs := ts.TLS.Certificates
		s.tls = ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		ts.Close()
		inner = tls.NewListener(ln, &tls.Config{Certificates: certs, NextProtos: []string{"http/1.1"}})
	}
	if o.hits {
		s.srv.ConnState = httpintercept.ChainConnState(nil)
		inner = httpintercept.NewListener(inner, httpintercept.Options{Handler: answerHit, IdleTimeout: o.idle, ReadHeaderTimeout: o.head})
	}
	s.lim = NewListener(inner, Options{Max: o.max, Grace: o.grace})
	if o.clock != nil {
		s.lim.now, s.lim.afterFunc = o.clock.now, o.clock.afterFunc
	}
	s.lim.onWait = func() {
		select {
		case s.atCap <- struct{}{}:
		default:
		}
	}
	s.srv.ConnState = s.lim.ChainConnState(s.srv.ConnState)
	if hook, next := s.srv.ConnState, o.hook; next != nil {
		s.srv.ConnState = func(c net.Conn, st http.ConnState) {
			hook(c, st)
			next(s.lim, c, st)
		}
	}
	served := make(chan error, 1)
	go func() { served <- s.srv.Serve(s.lim) }()
	t.Cleanup(func() {
		s.srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

// answerHit answers GET /hit on the connection itself, closing it when
// the request asks to.
func answerHit(w net.Conn, req *httpintercept.Request) (answered, closeConn bool) {
	if string(req.Target) != "/hit" {
		return false, false
	}
	v, _ := req.Get("Connection")
	closeConn = string(v) == "close"
	_, err := io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nhit")
	return true, closeConn || err != nil
}

func (s *server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/block":
		s.entered <- r.URL.RawQuery
		select {
		case <-s.gate(r.URL.RawQuery):
		case <-r.Context().Done():
		}
	case "/hijack":
		c, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
		bw.Flush()
		c.Close()
		return
	}
	io.WriteString(w, "ok")
}

// client is one connection to the server.
type client struct {
	t *testing.T
	net.Conn
	br *bufio.Reader
}

func (s *server) dial() *client {
	s.t.Helper()
	var c net.Conn
	var err error
	if s.tls != nil {
		c, err = tls.Dial("tcp", s.addr, s.tls)
	} else {
		c, err = net.Dial("tcp", s.addr)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(guard))
	s.t.Cleanup(func() { c.Close() })
	return &client{t: s.t, Conn: c, br: bufio.NewReader(c)}
}

// send writes a GET of path, with Connection: close when closing.
func (c *client) send(path string, closing bool) {
	c.t.Helper()
	conn := ""
	if closing {
		conn = "Connection: close\r\n"
	}
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n", path, conn); err != nil {
		c.t.Fatal(err)
	}
}

// answer reads one answer and returns its body.
func (c *client) answer() string {
	c.t.Helper()
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.t.Fatalf("no answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.t.Fatal(err)
	}
	return string(b)
}

func (c *client) get(path string, closing bool) string {
	c.t.Helper()
	c.send(path, closing)
	return c.answer()
}

// closedByServer checks that the server closed the connection without
// answering.
func (c *client) closedByServer() {
	c.t.Helper()
	n, err := io.Copy(io.Discard, c.br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatalf("connection still open after %v", guard)
	}
	if n > 0 {
		c.t.Fatalf("%d bytes before the close", n)
	}
}

// waitAtCap waits until Accept holds a connection at the cap.
func (s *server) waitAtCap() {
	s.t.Helper()
	select {
	case <-s.atCap:
	case <-time.After(guard):
		s.t.Fatalf("Accept not waiting at the cap after %v", guard)
	}
}

func (s *server) waitEntered() {
	s.t.Helper()
	select {
	case <-s.entered:
	case <-time.After(guard):
		s.t.Fatalf("no request started after %v", guard)
	}
}

// waitOpen waits until exactly n connections are counted, and checks
// the listener's bookkeeping then.
func (s *server) waitOpen(n int) {
	s.t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		l := s.lim
		l.mu.Lock()
		defer l.mu.Unlock()
		for len(l.conns) != n {
			l.cond.Wait()
		}
	}()
	select {
	case <-done:
	case <-time.After(guard):
		s.lim.mu.Lock()
		open := len(s.lim.conns)
		s.lim.mu.Unlock()
		s.t.Fatalf("%d connections counted after %v, want %d", open, guard, n)
	}
	s.checkBooks()
}

// checkBooks checks that the waiting list holds only counted
// connections, each once, and that the counters agree.
func (s *server) checkBooks() {
	s.t.Helper()
	l := s.lim
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[*entry]bool{}
	for el := l.waiting.Front(); el != nil; el = el.Next() {
		e := el.Value.(*entry)
		if seen[e] || l.conns[e.c] != e || e.elem != el || e.evicted {
			s.t.Fatalf("waiting list out of step with the connections")
		}
		seen[e] = true
	}
	evicting := 0
	for _, e := range l.conns {
		if e.evicted {
			evicting++
		}
	}
	if evicting != l.evicting || int(l.stats.Open.Load()) != len(l.conns) || len(l.conns) > l.max {
		s.t.Fatalf("evicting %d (counted %d), open %d (stat %d), max %d", evicting, l.evicting, len(l.conns), l.stats.Open.Load(), l.max)
	}
}

// TestCapHoldsTheNextConnection: with the cap's connections all serving
// requests, the next one is held unread, and served once one of them
// ends; none is closed to make room.
func TestCapHoldsTheNextConnection(t *testing.T) {
	s := startServer(t, serverOptions{max: 2})
	c1, c2 := s.dial(), s.dial()
	c1.send("/block?1", true)
	c2.send("/block?2", false)
	s.waitEntered()
	s.waitEntered()
	c3 := s.dial()
	c3.send("/", false)
	s.waitAtCap()
	s.checkBooks()
	if n := s.lim.Stats().Open.Load(); n != 2 {
		t.Fatalf("%d connections counted at the cap of 2", n)
	}
	// c1 asked for its close: its end frees the slot c3 takes.
	close(s.gate("1"))
	if got := c1.answer(); got != "ok" {
		t.Fatalf("c1: %q", got)
	}
	if got := c3.answer(); got != "ok" {
		t.Fatalf("c3: %q", got)
	}
	if n := s.lim.Stats().Evicted.Load(); n != 0 {
		t.Fatalf("%d connections closed to make room, want 0", n)
	}
	if n := s.lim.Stats().Waited.Load(); n != 1 {
		t.Fatalf("Waited %d, want 1", n)
	}
	close(s.gate("2"))
	if got := c2.answer(); got != "ok" {
		t.Fatalf("c2: %q", got)
	}
}

// TestCapWakesWhenAConnectionTurnsIdle: a connection held at the cap
// while all are busy gets the slot of the first to fall idle, which is
// closed for it.
func TestCapWakesWhenAConnectionTurnsIdle(t *testing.T) {
	s := startServer(t, serverOptions{max: 1})
	c1 := s.dial()
	c1.send("/block?1", false)
	s.waitEntered()
	c2 := s.dial()
	c2.send("/", false)
	s.waitAtCap()
	close(s.gate("1"))
	if got := c1.answer(); got != "ok" {
		t.Fatalf("c1: %q", got)
	}
	if got := c2.answer(); got != "ok" {
		t.Fatalf("c2: %q", got)
	}
	c1.closedByServer()
	if n := s.lim.Stats().Evicted.Load(); n != 1 {
		t.Fatalf("Evicted %d, want 1", n)
	}
}

// TestCapClosesTheLongestWaiting: at the cap, the connection that has
// waited longest for a request is closed for the new one: an idle
// keep-alive connection, or one whose request head is not complete (a
// slow-loris), in the order they started waiting.
func TestCapClosesTheLongestWaiting(t *testing.T) {
	// idled receives a value once the Listener has seen a connection
	// fall idle, which happens after its client has read the answer.
	idled := make(chan struct{}, 8)
	s := startServer(t, serverOptions{max: 2, hook: func(_ *Listener, _ net.Conn, st http.ConnState) {
		if st == http.StateIdle {
			idled <- struct{}{}
		}
	}})
	get := func(c *client, name string) {
		t.Helper()
		if got := c.get("/", false); got != "ok" {
			t.Fatalf("%s: %q", name, got)
		}
		select {
		case <-idled:
		case <-time.After(guard):
			t.Fatalf("%s not idle after %v", name, guard)
		}
	}
	loris := s.dial()
	get(loris, "loris")
	// The next head is never finished.
	if _, err := io.WriteString(loris, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	idle := s.dial()
	get(idle, "idle")
	c3 := s.dial()
	get(c3, "c3")
	loris.closedByServer()
	c4 := s.dial()
	get(c4, "c4")
	idle.closedByServer()
	// c3 has waited longer than c4.
	c5 := s.dial()
	get(c5, "c5")
	c3.closedByServer()
	get(c4, "c4 again")
	if n := s.lim.Stats().Evicted.Load(); n != 3 {
		t.Fatalf("Evicted %d, want 3", n)
	}
	s.waitOpen(2)
}

// TestReleasedConnectionsFreeTheSlot: a connection ended any way frees
// its slot for the next one, which is served without closing another.
func TestReleasedConnectionsFreeTheSlot(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts serverOptions
		end  func(s *server)
	}{
		{"closed by the server", serverOptions{}, func(s *server) {
			c := s.dial()
			if got := c.get("/", true); got != "ok" {
				t.Fatal(got)
			}
			c.closedByServer()
		}},
		{"closed by the client", serverOptions{}, func(s *server) {
			c := s.dial()
			c.get("/", false)
			c.Close()
		}},
		{"closed during a request", serverOptions{}, func(s *server) {
			c := s.dial()
			c.send("/block", false)
			s.waitEntered()
			c.Close()
		}},
		{"hijacked", serverOptions{}, func(s *server) {
			c := s.dial()
			if got := c.get("/hijack", false); got != "ok" {
				t.Fatal(got)
			}
		}},
		{"idle timeout", serverOptions{idle: time.Millisecond}, func(s *server) {
			c := s.dial()
			c.get("/", false)
			c.closedByServer()
		}},
		{"header timeout", serverOptions{head: time.Millisecond}, func(s *server) {
			c := s.dial()
			io.WriteString(c, "GET / HTTP/1.1\r\n")
			c.closedByServer()
		}},
		{"TLS, closed by the server", serverOptions{tls: true}, func(s *server) {
			c := s.dial()
			if got := c.get("/", true); got != "ok" {
				t.Fatal(got)
			}
			c.closedByServer()
		}},
		{"TLS, failed handshake", serverOptions{tls: true}, func(s *server) {
			c, err := net.Dial("tcp", s.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			c.SetReadDeadline(time.Now().Add(guard))
			io.Copy(io.Discard, c)
		}},
		{"hit answered on the connection, then closed", serverOptions{hits: true}, func(s *server) {
			c := s.dial()
			if got := c.get("/hit", false); got != "hit" {
				t.Fatal(got)
			}
			if got := c.get("/hit", true); got != "hit" {
				t.Fatal(got)
			}
			c.closedByServer()
		}},
		{"hit, then a request net/http serves and closes", serverOptions{hits: true}, func(s *server) {
			c := s.dial()
			if got := c.get("/hit", false); got != "hit" {
				t.Fatal(got)
			}
			if got := c.get("/", true); got != "ok" {
				t.Fatal(got)
			}
			c.closedByServer()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.max = 1
			s := startServer(t, tc.opts)
			tc.end(s)
			s.waitOpen(0)
			next := s.dial()
			want := "ok"
			path := "/"
			if tc.opts.hits {
				path, want = "/hit", "hit"
			}
			if got := next.get(path, false); got != want {
				t.Fatalf("next connection: %q", got)
			}
			if n := s.lim.Stats().Evicted.Load(); n != 0 {
				t.Fatalf("Evicted %d: the slot was not freed by the end", n)
			}
			// With a 1 ms idle timeout the server closes the next
			// connection too, as soon as its answer is out: by the time
			// it is counted it may be gone. Its answer without an
			// eviction says its slot was free.
			if tc.opts.idle == 0 {
				s.waitOpen(1)
			}
		})
	}
}

// TestCapClosesAnIdleInterceptedConnection: a connection whose every
// request pkg/httpintercept answered is waiting for a request too (net/http
// sees it as new), and is closed at the cap for the next one.
func TestCapClosesAnIdleInterceptedConnection(t *testing.T) {
	s := startServer(t, serverOptions{max: 1, hits: true})
	c1 := s.dial()
	if got := c1.get("/hit", false); got != "hit" {
		t.Fatal(got)
	}
	c2 := s.dial()
	if got := c2.get("/hit", false); got != "hit" {
		t.Fatalf("c2: %q", got)
	}
	c1.closedByServer()
	s.waitOpen(1)
}

// TestCloseReleasesAHeldAccept: closing the server while Accept holds a
// connection at the cap closes that connection and ends Serve.
func TestCloseReleasesAHeldAccept(t *testing.T) {
	s := startServer(t, serverOptions{max: 1})
	c1 := s.dial()
	c1.send("/block", false)
	s.waitEntered()
	c2 := s.dial()
	c2.send("/", false)
	s.waitAtCap()
	s.srv.Close()
	c2.closedByServer()
	s.waitOpen(0)
}

// TestCountUnderConcurrency: many clients connecting, served, timed out,
// closed at the cap and closing at once leave no slot taken and never
// exceed the cap.
func TestCountUnderConcurrency(t *testing.T) {
	const limit = 4
	var mu sync.Mutex
	highest := int64(0)
	s := startServer(t, serverOptions{max: limit, hits: true, hook: func(l *Listener, _ net.Conn, _ http.ConnState) {
		mu.Lock()
		highest = max(highest, l.Stats().Open.Load())
		mu.Unlock()
	}})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				c, err := net.Dial("tcp", s.addr)
				if err != nil {
					t.Error(err)
					return
				}
				c.SetDeadline(time.Now().Add(guard))
				br := bufio.NewReader(c)
				switch (g + i) % 5 {
				case 0: // served and closed by the server
					fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
					io.Copy(io.Discard, br)
				case 1: // a hit, then the client leaves
					fmt.Fprintf(c, "GET /hit HTTP/1.1\r\nHost: x\r\n\r\n")
					if resp, err := http.ReadResponse(br, nil); err == nil {
						io.Copy(io.Discard, resp.Body)
					}
				case 2: // a partial head, then the client leaves
					fmt.Fprintf(c, "GET / HTTP/1.1\r\n")
				case 3: // hijacked
					fmt.Fprintf(c, "GET /hijack HTTP/1.1\r\nHost: x\r\n\r\n")
					io.Copy(io.Discard, br)
				case 4: // two requests, kept alive, then the client leaves
					fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /hit HTTP/1.1\r\nHost: x\r\n\r\n")
					for range 2 {
						resp, err := http.ReadResponse(br, nil)
						if err != nil {
							break // closed at the cap
						}
						io.Copy(io.Discard, resp.Body)
					}
				}
				c.Close()
			}
		}()
	}
	wg.Wait()
	s.waitOpen(0)
	mu.Lock()
	defer mu.Unlock()
	if highest > limit {
		t.Fatalf("%d connections counted at once, cap %d", highest, limit)
	}
}

// fakeClock is a Listener's clock that moves only when a test says.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	f  func()
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) afterFunc(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, fakeTimer{c.t.Add(d), f})
}

// advance moves the clock by d and runs the timers due.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	var due []func()
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if tm.at.After(c.t) {
			kept = append(kept, tm)
		} else {
			due = append(due, tm.f)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// TestGraceProtectsANewConnection: at the cap, a connection waiting for
// its request for less than the grace is not closed; the new connection
// is held until the grace has passed, and then takes its slot.
func TestGraceProtectsANewConnection(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	s := startServer(t, serverOptions{max: 1, grace: time.Second, clock: clock})
	c1 := s.dial()
	if _, err := io.WriteString(c1, "GET / HTTP/1.1\r\n"); err != nil {
		t.Fatal(err)
	}
	c2 := s.dial()
	c2.send("/", false)
	s.waitAtCap()
	if n := s.lim.Stats().Evicted.Load(); n != 0 {
		t.Fatalf("Evicted %d within the grace", n)
	}
	clock.mu.Lock()
	if len(clock.timers) != 1 || !clock.timers[0].at.Equal(time.Unix(1001, 0)) {
		t.Errorf("wake-ups %v, want one at the end of c1's grace", clock.timers)
	}
	clock.mu.Unlock()
	clock.advance(999 * time.Millisecond)
	if n := s.lim.Stats().Evicted.Load(); n != 0 {
		t.Fatalf("Evicted %d within the grace", n)
	}
	clock.advance(time.Millisecond)
	if got := c2.answer(); got != "ok" {
		t.Fatalf("c2: %q", got)
	}
	c1.closedByServer()
	if n := s.lim.Stats().Evicted.Load(); n != 1 {
		t.Fatalf("Evicted %d, want 1", n)
	}
}
