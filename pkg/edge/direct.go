package edge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
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
// lengthen a miss on a busy host (docs/performance.md, "Misses without
// hand-offs"). Anything else (https://, a request with a
// body, a method other than GET and HEAD) goes to next.
//
// It keeps net/http's rules for what it handles: a kept connection the
// origin closed meanwhile is found at the first read and the request is
// sent again, once, on a new one (GET and HEAD are idempotent); 1xx
// answers are skipped; the request's context cancels the request and its
// body's reads; the answer's head must come within headerTimeout and
// hold at most maxHeaderBytes, 1xx answers included; a connection is
// kept only after its answer's body was read to its end and neither side
// asked to close it, and is not used again once the origin sent it bytes
// that belong to no request (more than an answer's length, a 408 while
// it was idle), nor after idleTimeout.
type directTransport struct {
	next          http.RoundTripper
	dialer        net.Dialer
	headerTimeout time.Duration
	idleTimeout   time.Duration
	maxIdle       int // per host
	now           func() time.Time

	mu   sync.Mutex
	idle map[string][]*directConn // by host:port, most recently used last
	// closeIdle is set by CloseIdleConnections until the next dial: the
	// connections whose answers end meanwhile are closed, not kept, as
	// net/http's Transport does.
	closeIdle bool
}

// maxHeaderBytes bounds the bytes of an answer's head, 1xx answers
// before it included: net/http Transport's default
// (MaxResponseHeaderBytes).
const maxHeaderBytes = 10 << 20

// directConn is one connection to the origin.
type directConn struct {
	conn net.Conn
	// lim is what br reads conn through: it holds the reads of an
	// answer's head to maxHeaderBytes.
	lim  io.LimitedReader
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
		resp, err := t.roundTrip(pc, reused, addr, req)
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
	for {
		t.mu.Lock()
		l := t.idle[addr]
		if len(l) == 0 {
			t.closeIdle = false
			t.mu.Unlock()
			break
		}
		pc = l[len(l)-1]
		l[len(l)-1] = nil
		t.idle[addr] = l[:len(l)-1]
		t.mu.Unlock()
		// A connection that received bytes while idle (a 408, the
		// origin's close) is not used again: they would be read as the
		// answer to the request sent on it.
		if now.Sub(pc.used) < t.idleTimeout && pc.br.Buffered() == 0 && idleConnQuiet(pc.conn) {
			return pc, true, nil
		}
		pc.conn.Close()
	}
	c, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	pc = &directConn{conn: c, lim: io.LimitedReader{R: c, N: math.MaxInt64}, bw: bufio.NewWriterSize(c, 4<<10)}
	pc.br = bufio.NewReaderSize(&pc.lim, 32<<10)
	return pc, false, nil
}

// put keeps pc for the next request to addr, unless bytes beyond the
// answer just read came with it, and closes the kept connections of addr
// idle for idleTimeout (the most recent are used first: the oldest can
// stay idle however busy the others are).
func (t *directTransport) put(addr string, pc *directConn) {
	if pc.br.Buffered() > 0 {
		pc.conn.Close()
		return
	}
	pc.used = t.now()
	var expired []*directConn
	t.mu.Lock()
	l := t.idle[addr]
	for len(l) > 0 && pc.used.Sub(l[0].used) >= t.idleTimeout {
		expired = append(expired, l[0])
		l[0] = nil
		l = l[1:]
	}
	keep := len(l) < t.maxIdle && !t.closeIdle
	if keep {
		l = append(l, pc)
	}
	t.idle[addr] = l
	t.mu.Unlock()
	for _, old := range expired {
		old.conn.Close()
	}
	if !keep {
		pc.conn.Close()
	}
}

// release ends pc's answer, read to its end: pc is kept when keep (no
// cancellation came, and neither side asked to close it), else closed.
func (t *directTransport) release(addr string, pc *directConn, keep bool) {
	if keep {
		t.put(addr, pc)
	} else {
		pc.conn.Close()
	}
}

// CloseIdleConnections closes the kept connections (http.Client's
// CloseIdleConnections calls it), and those of next.
func (t *directTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = make(map[string][]*directConn)
	t.closeIdle = true
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

// roundTrip sends req on pc, a kept connection when reused, and reads its
// answer's head. On an error pc is closed; errStaleConn says that no
// answer to req came.
func (t *directTransport) roundTrip(pc *directConn, reused bool, addr string, req *http.Request) (*http.Response, error) {
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
	pc.lim.N = maxHeaderBytes
	for {
		var err error
		if resp, err = http.ReadResponse(pc.br, req); err != nil {
			if pc.lim.N <= 0 {
				err = fmt.Errorf("edge: the origin's response headers exceeded %d bytes", maxHeaderBytes)
			}
			return fail(err)
		}
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	pc.lim.N = math.MaxInt64
	if resp.StatusCode == http.StatusRequestTimeout && reused {
		// Sent for the connection while it was idle, before the request
		// (net/http's Transport takes it so too): the origin closes it.
		return fail(errStaleConn)
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
		t.release(addr, pc, stop() && keep)
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
	// eof is set by the Read that saw the end: later Reads answer
	// io.EOF again, as io.Reader's contract and net/http's bodies do
	// (net/http's ResponseWriter.ReadFrom reads again after a body of
	// exactly its 512 sniffed bytes).
	eof atomic.Bool
}

// errClosedBody is a Read after Close.
var errClosedBody = errors.New("edge: read of a closed origin body")

func (b *directBody) Read(p []byte) (int, error) {
	if b.eof.Load() {
		return 0, io.EOF
	}
	if b.done.Load() {
		return 0, errClosedBody
	}
	n, err := b.body.Read(p)
	if err == io.EOF && b.done.CompareAndSwap(false, true) {
		b.eof.Store(true)
		b.t.release(b.addr, b.pc, b.stop() && b.keep)
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
