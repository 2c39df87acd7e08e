package edge

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// directTransport is the edge's client for a plain-HTTP origin: HTTP/1.1
// with keep-alive connections, each request written and its answer read
// in the goroutine that asks. net/http's Transport hands every request to
// a goroutine that writes it and every answer's head back from one that
// reads it: two waits for a CPU in each miss's wait for the origin, which
// on a busy host are where a miss's latency goes (docs/performance.md,
// "Misses without hand-offs"). Anything else (https://, a request with a
// body, a method other than GET and HEAD) goes to next.
//
// It keeps net/http's rules for what it handles: a kept connection the
// origin closed meanwhile is found at the first read and the request is
// sent again, once, on a new one (GET and HEAD are idempotent); 1xx
// answers are skipped; the request's context cancels the request and its
// body's reads; the answer's head must come within headerTimeout; a
// connection is kept only after its answer's body was read to its end
// and neither side asked to close it.
type directTransport struct {
	next          http.RoundTripper
	dialer        net.Dialer
	headerTimeout time.Duration
	idleTimeout   time.Duration
	maxIdle       int // per host
	now           func() time.Time

	mu   sync.Mutex
	idle map[string][]*directConn // by host:port, most recently used last
}

// directConn is one connection to the origin.
type directConn struct {
	conn net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	used time.Time // when it was put back
}

func newDirectTransport(next http.RoundTripper, headerTimeout, idleTimeout time.Duration, maxIdle int) *directTransport {
	return &directTransport{
		next: next, dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		headerTimeout: headerTimeout, idleTimeout: idleTimeout, maxIdle: maxIdle, now: time.Now,
		idle: make(map[string][]*directConn),
	}
}

// errStaleConn is a kept connection that ended before any byte of its
// answer: the origin closed it while it was idle.
var errStaleConn = errors.New("edge: kept connection to the origin closed")

// aLongTimeAgo is a deadline in the past: it ends a blocked read or write.
var aLongTimeAgo = time.Unix(1, 0)

// RoundTrip implements http.RoundTripper.
func (t *directTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" || (req.Method != http.MethodGet && req.Method != http.MethodHead) ||
		req.Body != nil && req.Body != http.NoBody {
		return t.next.RoundTrip(req)
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	for {
		pc, reused, err := t.conn(req.Context(), addr)
		if err != nil {
			return nil, err
		}
		resp, err := t.roundTrip(pc, addr, req)
		if errors.Is(err, errStaleConn) && reused {
			continue // each stale connection is closed: this ends
		}
		if errors.Is(err, errStaleConn) {
			err = io.ErrUnexpectedEOF
		}
		return resp, err
	}
}

// conn returns a kept connection to addr, or a new one.
func (t *directTransport) conn(ctx context.Context, addr string) (pc *directConn, reused bool, err error) {
	now := t.now()
	t.mu.Lock()
	for l := t.idle[addr]; len(l) > 0; l = t.idle[addr] {
		pc = l[len(l)-1]
		l[len(l)-1] = nil
		t.idle[addr] = l[:len(l)-1]
		if now.Sub(pc.used) < t.idleTimeout {
			t.mu.Unlock()
			return pc, true, nil
		}
		pc.conn.Close()
	}
	t.mu.Unlock()
	c, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return &directConn{conn: c, br: bufio.NewReaderSize(c, 32<<10), bw: bufio.NewWriterSize(c, 4<<10)}, false, nil
}

// put keeps pc for the next request to addr.
func (t *directTransport) put(addr string, pc *directConn) {
	pc.used = t.now()
	t.mu.Lock()
	if l := t.idle[addr]; len(l) < t.maxIdle {
		t.idle[addr] = append(l, pc)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	pc.conn.Close()
}

// CloseIdleConnections closes the kept connections (http.Client's
// CloseIdleConnections calls it), and those of next.
func (t *directTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = make(map[string][]*directConn)
	t.mu.Unlock()
	for _, l := range idle {
		for _, pc := range l {
			pc.conn.Close()
		}
	}
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// roundTrip sends req on pc and reads its answer's head. On an error pc
// is closed; errStaleConn says that nothing of an answer came.
func (t *directTransport) roundTrip(pc *directConn, addr string, req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		t.put(addr, pc)
		return nil, err
	}
	// Cancelling the request ends whatever read or write it is blocked
	// in; the connection is then not kept.
	stop := context.AfterFunc(ctx, func() { pc.conn.SetDeadline(aLongTimeAgo) })
	fail := func(err error) (*http.Response, error) {
		stop()
		pc.conn.Close()
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, err
	}
	if t.headerTimeout > 0 {
		pc.conn.SetReadDeadline(t.now().Add(t.headerTimeout))
	}
	if err := req.Write(pc.bw); err != nil {
		var ne net.Error
		if errors.As(err, &ne) {
			// Written in part: the kept connection was gone.
			return fail(errStaleConn)
		}
		return fail(err)
	}
	if err := pc.bw.Flush(); err != nil {
		return fail(errStaleConn)
	}
	if _, err := pc.br.Peek(1); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return fail(errors.New("edge: timeout awaiting the origin's response headers"))
		}
		return fail(errStaleConn)
	}
	var resp *http.Response
	for {
		var err error
		if resp, err = http.ReadResponse(pc.br, req); err != nil {
			return fail(err)
		}
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	pc.conn.SetReadDeadline(time.Time{})
	if err := ctx.Err(); err != nil {
		// Cancelled before the deadline was cleared: the cancellation's
		// deadline may have been cleared with it.
		return fail(err)
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return fail(errors.New("edge: the origin switched protocols"))
	}
	keep := !resp.Close && !req.Close
	if resp.Body == http.NoBody {
		if stop() && keep {
			t.put(addr, pc)
		} else {
			pc.conn.Close()
		}
		return resp, nil
	}
	resp.Body = &directBody{t: t, pc: pc, addr: addr, body: resp.Body, stop: stop, keep: keep}
	return resp, nil
}

// directBody is an answer's body: the connection is kept once it is read
// to its end, closed when it is closed before. Close may be called while
// a Read is blocked (a fill's cancellation does): it ends that Read.
type directBody struct {
	t    *directTransport
	pc   *directConn
	addr string
	body io.ReadCloser
	stop func() bool
	keep bool
	done atomic.Bool
}

func (b *directBody) Read(p []byte) (int, error) {
	if b.done.Load() {
		return 0, errors.New("edge: read of a closed origin body")
	}
	n, err := b.body.Read(p)
	if err == io.EOF && b.done.CompareAndSwap(false, true) {
		if b.stop() && b.keep {
			b.t.put(b.addr, b.pc)
		} else {
			b.pc.conn.Close()
		}
	}
	return n, err
}

func (b *directBody) Close() error {
	if b.done.CompareAndSwap(false, true) {
		b.stop()
		b.pc.conn.Close()
	}
	return nil
}
