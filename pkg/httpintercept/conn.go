package httpintercept

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Handler is offered every plain HTTP/1.1 GET or HEAD head (see the
// package documentation) read while net/http is between requests. It
// either declines (answered false) without having written anything, or
// writes its whole answer to w, the raw connection, and returns answered
// true; closeConn true then closes the connection after the answer (the
// Handler decides it, from req.WantsClose, a failed write, or its own
// reasons). req and everything it points to are valid only during the
// call. The write deadline of w is set from Options.WriteTimeout around
// the call; the Handler must not touch the read side of w.
type Handler func(w net.Conn, req *Request) (answered, closeConn bool)

// Options configure a Listener.
type Options struct {
	// Handler answers the requests it wants. Required.
	Handler Handler

	// IdleTimeout is how long a connection may wait for its next request
	// after an answer of the Handler. Set it to the timeout net/http uses
	// between requests: the server's IdleTimeout, or its ReadTimeout when
	// IdleTimeout is zero. Zero means no timeout.
	IdleTimeout time.Duration

	// ReadHeaderTimeout bounds the reading of a request head once its
	// first bytes arrived between requests, as net/http bounds it. Set
	// it to the server's ReadHeaderTimeout. Zero means no bound once a
	// head has begun, as in net/http.
	ReadHeaderTimeout time.Duration

	// WriteTimeout bounds each answer of the Handler. Zero means none.
	WriteTimeout time.Duration

	// MaxHeadBytes is the largest request head looked at; a longer head
	// switches the connection to pass-through and net/http reads it with
	// its own limit (MaxHeaderBytes). Zero means DefaultMaxHeadBytes.
	MaxHeadBytes int

	// Plaintext says that every connection of the listener carries
	// plaintext HTTP/1.x even when it is not a *net.TCPConn (a wrapper
	// around one, such as pkg/expect's). Without it only *net.TCPConn
	// connections are wrapped.
	Plaintext bool

	// MaxBufferedBytes bounds what is read ahead while net/http serves a
	// request (pipelined requests). Past it the connection switches to
	// pass-through. Zero means DefaultMaxBufferedBytes. It is raised to
	// MaxHeadBytes if smaller.
	MaxBufferedBytes int
}

// Defaults of Options.
const (
	DefaultMaxHeadBytes     = 8 << 10
	DefaultMaxBufferedBytes = 64 << 10
)

// Listener wraps a plain TCP listener; give it to http.Server.Serve and
// set the server's ConnState to ConnState (or ChainConnState). Register
// Shutdown with the server's RegisterOnShutdown, and call Cut before the
// server's Close (see Shutdown).
type Listener struct {
	net.Listener
	opts Options

	mu      sync.Mutex
	conns   map[*Conn]struct{} // open connections
	waiters []chan struct{}    // Wait calls, closed when answering drops to 0

	// answering counts the Handler's answers in progress; stopping is
	// set by Shutdown (and Wait) before any Conn's closing, cutNow by
	// Cut. Accept reads both under mu.
	answering atomic.Int64
	stopping  atomic.Bool
	cutNow    atomic.Bool
}

// NewListener returns a Listener on l. l must give plain TCP connections
// (not TLS): the Conn reads HTTP/1.1 from the bytes it receives.
func NewListener(l net.Listener, opts Options) *Listener {
	if opts.Handler == nil {
		panic("httpintercept: nil Handler")
	}
	if opts.MaxHeadBytes <= 0 {
		opts.MaxHeadBytes = DefaultMaxHeadBytes
	}
	if opts.MaxBufferedBytes <= 0 {
		opts.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if opts.MaxBufferedBytes < opts.MaxHeadBytes {
		opts.MaxBufferedBytes = opts.MaxHeadBytes
	}
	return &Listener{Listener: l, opts: opts, conns: make(map[*Conn]struct{})}
}

// Accept waits for the next connection and returns it wrapped in a *Conn.
// A connection that is not a *net.TCPConn is returned as it is, and
// net/http serves it alone.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if _, ok := nc.(*net.TCPConn); !ok && !l.opts.Plaintext {
			return nc, nil
		}
		c := &Conn{Conn: nc, opts: &l.opts, l: l}
		c.state.Store(stateUnset)
		l.mu.Lock()
		if l.cutNow.Load() {
			// The server is being closed: so is its listener, next.
			l.mu.Unlock()
			nc.Close()
			continue
		}
		l.conns[c] = struct{}{}
		if l.stopping.Load() {
			c.closing.Store(true)
		}
		l.mu.Unlock()
		return c, nil
	}
}

// Shutdown stops the Handler's part: no answer of the Handler starts
// after it (a head read later goes to net/http, which serves it as its
// own Shutdown allows), a connection waiting for a head in the Conn ends
// at once, and one whose answer is being written ends after it.
// Connections that net/http serves are net/http's to close, as its
// Server.Shutdown does. Without this, a connection on which the Handler
// answered every request is one net/http has never seen a request on
// (StateNew), and Server.Shutdown waits about five seconds before it
// treats it as idle.
//
// Register it with the http.Server's RegisterOnShutdown, and after the
// server's Shutdown returns, call Wait: net/http's Shutdown closes the
// connections it thinks idle, a Conn whose answer is being written only
// looks idle to it, and Conn.Close then leaves the closing to the end of
// that answer, which Server.Shutdown does not wait for.
func (l *Listener) Shutdown() {
	l.stopping.Store(true)
	for _, c := range l.snapshot() {
		c.shutdown()
	}
}

// Wait waits until no answer of the Handler is in progress, or until ctx
// is done (then it returns ctx's error; call Cut). No answer starts
// after Shutdown, so once Wait returns nil none is left.
func (l *Listener) Wait(ctx context.Context) error {
	l.stopping.Store(true)
	ch := make(chan struct{})
	l.mu.Lock()
	l.waiters = append(l.waiters, ch)
	n := l.answering.Load()
	l.mu.Unlock()
	if n == 0 {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// beginAnswer counts an answer of the Handler about to start, unless the
// listener is stopping (then it reports false and nothing starts): the
// count goes up before stopping is read, and Wait sets stopping before it
// reads the count, so Wait never misses an answer.
func (l *Listener) beginAnswer() bool {
	l.answering.Add(1)
	if l.stopping.Load() {
		l.endAnswer()
		return false
	}
	return true
}

func (l *Listener) endAnswer() {
	if l.answering.Add(-1) == 0 && l.stopping.Load() {
		l.mu.Lock()
		for _, ch := range l.waiters {
			close(ch)
		}
		l.waiters = nil
		l.mu.Unlock()
	}
}

// Cut closes every connection now, answers of the Handler in progress
// included, and every later one at Accept. Call it before the
// http.Server's Close when a graceful Shutdown ran out of time.
func (l *Listener) Cut() {
	l.cutNow.Store(true)
	for _, c := range l.snapshot() {
		c.closeRaw()
	}
}

// snapshot returns the open connections. Shutdown and Cut act on them
// after l.mu is released: no lock of this package is taken while another
// is held. A connection accepted after the snapshot sees the flag its
// caller set before taking it (Accept reads it under l.mu).
func (l *Listener) snapshot() []*Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	conns := make([]*Conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	return conns
}

func (l *Listener) forget(c *Conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// States of a Conn besides net/http's own (http.ConnState values).
const (
	// stateUnset: the ConnState hook has not reported StateNew, so it
	// is not wired; the Conn passes everything through.
	stateUnset = -1
	// stateHanded: a head was handed to net/http and the hook has not yet
	// reported StateActive. net/http reports it before reading again, so
	// a Read seeing this state means the hook is not wired as documented
	// (or net/http changed); the Conn then passes everything through.
	stateHanded = -2
)

// ConnState must be called by the http.Server's ConnState hook with every
// state change: set Server.ConnState to ConnState, or to
// ChainConnState(yourHook). It ignores connections that are not *Conn.
// Without it a Conn passes every byte through to net/http and answers
// nothing itself.
func ConnState(nc net.Conn, st http.ConnState) {
	if c, ok := nc.(*Conn); ok {
		c.state.Store(int32(st))
	}
}

// ChainConnState returns a ConnState hook that calls ConnState and then
// next (if not nil). next receives the *Conn; Conn.NetConn gives the
// connection under it.
func ChainConnState(next func(net.Conn, http.ConnState)) func(net.Conn, http.ConnState) {
	return func(nc net.Conn, st http.ConnState) {
		ConnState(nc, st)
		if next != nil {
			next(nc, st)
		}
	}
}

// Conn is an accepted connection. net/http reads it through Read; Write,
// Close and the deadline methods are the raw connection's.
type Conn struct {
	net.Conn // the raw connection
	opts     *Options
	l        *Listener

	// closing is set by Listener.Shutdown: the Conn stops reading heads
	// itself and ends the connection at its next pause.
	closing atomic.Bool
	// phase says what Read is doing, for Shutdown and Close (which run
	// on other goroutines): phaseWaiting while it waits for a head with
	// nothing buffered, phaseAnswering while the Handler answers.
	phase atomic.Int32

	// closeMu guards the Close handshake: a Close while the Handler
	// answers during shutdown is done by Read once the answer ends.
	closeMu    sync.Mutex
	closed     bool
	closeLater bool

	// state is the last http.ConnState reported by the hook, or
	// stateUnset/stateHanded. Written by the hook (on net/http's serve
	// goroutine, or its accept goroutine for StateNew) and by Read.
	state atomic.Int32

	// mu serializes Read. net/http never reads concurrently (its
	// connReader panics on it); the mutex makes the Conn's own state
	// safe regardless, and is never contended in practice. It is held
	// across blocking reads of the raw connection, so nothing else may
	// take it: the hook and the deadline methods do not.
	mu sync.Mutex

	buf      []byte // bytes read from the raw connection...
	off, end int    // ...not yet consumed: buf[off:end]
	scanned  int    // scanHead resume offset, relative to off
	deliver  int    // bytes of a head still to hand to net/http, at buf[off:]
	pass     bool   // pass-through for good
	eof      bool   // the Handler closed the connection: Read returns io.EOF
	lingered bool   // linger ran
	sticky   error  // a read error to return after the buffered bytes, in pass-through
	answered bool   // the Handler answered since net/http's last Read began
	// afterPost: the last head handed to net/http was a POST's. net/http
	// discards up to four CR or LF bytes before the request line that
	// follows a POST (server.go's "RFC 7230 section 3 tolerance for old
	// buggy clients"), and only then: it remembers the method of the
	// last request it read. The next head is therefore handed to it
	// rather than answered, so that what it remembers is the method of
	// the request before the one it reads next, as without this package.
	afterPost bool
	// headTimed: the ReadHeaderTimeout deadline is set for the head
	// whose first bytes are at buf[off:end].
	headTimed bool
	req       Request
}

// ReadFrom forwards to the raw connection's, so that net/http's own
// answers keep using sendfile.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite forwards to the raw connection's, which net/http uses to
// close a connection without losing its last answer to a reset.
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// NetConn returns the raw connection.
func (c *Conn) NetConn() net.Conn { return c.Conn }

// Phases of a Conn (Conn.phase).
const (
	phaseOther int32 = iota
	phaseWaiting
	phaseAnswering
)

// Close closes the raw connection, except while the Handler answers and
// Listener.Cut was not called: the only Close then is net/http's
// Server.Shutdown closing the connections it thinks idle, and this one
// only looks idle to it. The answer then ends first, and Read closes the
// connection and returns io.EOF. (Shutdown's hooks run on their own
// goroutines, so Listener.Shutdown may not have run yet.)
func (c *Conn) Close() error {
	c.closeMu.Lock()
	if c.closed {
		c.closeMu.Unlock()
		return net.ErrClosed
	}
	if c.phase.Load() == phaseAnswering && !c.isCut() {
		c.closeLater = true
		c.closing.Store(true)
		c.closeMu.Unlock()
		return nil
	}
	c.closed = true
	c.closeMu.Unlock()
	c.l.forget(c)
	return c.Conn.Close()
}

// isCut reports whether Listener.Cut was called. It takes no lock:
// Close calls it holding closeMu.
func (c *Conn) isCut() bool { return c.l.cutNow.Load() }

// closeRaw closes the connection whatever it is doing (Listener.Cut).
func (c *Conn) closeRaw() {
	c.closeMu.Lock()
	already := c.closed
	c.closed = true
	c.closeMu.Unlock()
	if !already {
		c.l.forget(c)
		c.Conn.Close()
	}
}

// shutdown is Listener.Shutdown's part for c: a Read waiting for a head
// with nothing buffered is woken by a past read deadline and ends the
// connection. The phase is read and the deadline set under closeMu, under
// which Read leaves phaseWaiting, so the deadline never lands after Read
// went on to hand a head to net/http (whose background read would fail
// with it and cancel the request). Called without c.l.mu.
func (c *Conn) shutdown() {
	c.closing.Store(true)
	c.closeMu.Lock()
	if c.phase.Load() == phaseWaiting {
		c.Conn.SetReadDeadline(aLongTimeAgo)
	}
	c.closeMu.Unlock()
}

// aLongTimeAgo is a deadline that has passed.
var aLongTimeAgo = time.Unix(1, 0)

// Read is for net/http only. See the package documentation.
func (c *Conn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.eof {
		return 0, io.EOF
	}
	if c.pass {
		return c.readPass(p)
	}
	if c.deliver > 0 {
		return c.deliverHead(p), nil
	}
	if len(p) == 0 {
		return 0, nil
	}
	switch st := c.state.Load(); st {
	case int32(http.StateNew), int32(http.StateIdle):
		return c.serveHeads(p, st)
	case int32(http.StateActive):
		return c.watch(p)
	default:
		// StateHijacked, StateClosed, stateUnset, stateHanded.
		c.pass = true
		return c.readPass(p)
	}
}

// readPass returns the buffered bytes, then the sticky error, then reads
// the raw connection.
func (c *Conn) readPass(p []byte) (int, error) {
	if c.off < c.end {
		n := copy(p, c.buf[c.off:c.end])
		c.consume(n)
		return n, nil
	}
	if err := c.sticky; err != nil {
		c.sticky = nil
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *Conn) consume(n int) {
	c.off += n
	c.scanned = 0
	if c.off == c.end {
		c.off, c.end = 0, 0
	}
}

func (c *Conn) deliverHead(p []byte) int {
	n := copy(p, c.buf[c.off:c.off+c.deliver])
	c.deliver -= n
	c.consume(n)
	return n
}

// serveHeads runs while net/http waits for a request (StateNew or
// StateIdle, its own buffer empty). It answers the requests the Handler
// takes and returns with the first one it does not: the head handed over,
// or pass-through, or an error.
//
// Deadlines follow net/http's. Before the first request of a connection
// (StateNew) net/http has set its header deadline before this Read. In
// StateIdle it has set its idle deadline and wants 4 bytes (Peek), after
// which it gives the rest of the head ReadHeaderTimeout; after an answer
// of the Handler the Conn does the same itself: the idle deadline while
// nothing of the next head is here, the header deadline from its first
// bytes.
func (c *Conn) serveHeads(p []byte, st int32) (int, error) {
	c.answered = false
	c.headTimed = false
	for {
		if c.off < c.end {
			end, v, next := scanHead(c.buf[c.off:c.end], c.scanned)
			c.scanned = next
			if v == passThrough {
				return c.switchPass(p)
			}
			if end == 0 && c.end-c.off >= c.opts.MaxHeadBytes {
				return c.switchPass(p)
			}
			if end > c.opts.MaxHeadBytes {
				return c.switchPass(p)
			}
			if end > 0 {
				v := parseHead(c.buf[c.off:c.off+end], &c.req)
				switch {
				case v == passThrough:
					return c.switchPass(p)
				case v == offer && !c.afterPost:
					if c.offer() {
						c.consume(end)
						if c.eof {
							c.linger()
							return 0, io.EOF
						}
						c.answered = true
						c.headTimed = false
						if c.off == c.end {
							c.setIdleDeadline()
						}
						continue
					}
				}
				// Hand exactly this head over. net/http reports
				// StateActive before it reads again.
				c.afterPost = c.req.post
				c.deliver = end
				c.state.CompareAndSwap(st, stateHanded)
				return c.deliverHead(p), nil
			}
		}
		empty := c.off == c.end
		if !empty {
			c.timeHead(st)
		} else if !c.setPhase(phaseWaiting) {
			c.linger()
			return 0, io.EOF
		}
		n, err := c.fill(c.opts.MaxHeadBytes)
		c.setPhase(phaseOther)
		if n > 0 {
			// Also for a head that arrived whole: one handed to net/http
			// in StateNew is read on under the deadline left here when
			// net/http sets none (no ReadHeaderTimeout, or one equal to
			// ReadTimeout), so the idle deadline of an earlier answer
			// must not be it.
			c.timeHead(st)
		}
		if err != nil {
			if empty && c.closing.Load() {
				// Woken by Shutdown.
				c.linger()
				return 0, io.EOF
			}
			if c.off < c.end {
				// net/http would have seen these bytes, then the error.
				c.sticky = err
				return c.switchPass(p)
			}
			return 0, err
		}
	}
}

// offer gives the parsed head to the Handler and reports whether it
// answered. After Shutdown it offers nothing (the head goes to net/http).
func (c *Conn) offer() bool {
	if !c.l.beginAnswer() {
		return false
	}
	// The phase changes under closeMu, so that a Close either sees the
	// answer coming (and leaves the closing to it) or closes first.
	c.closeMu.Lock()
	if c.closed {
		c.closeMu.Unlock()
		c.l.endAnswer()
		c.eof = true
		return true
	}
	c.phase.Store(phaseAnswering)
	c.closeMu.Unlock()
	answered, closeConn := c.answer()
	if answered && closeConn {
		c.eof = true
	}
	return answered || c.eof
}

// answer runs the Handler. Its deferred part runs on a panic too, which
// net/http recovers from by closing the connection: the phase is left,
// a Close deferred to the answer's end is done, and the answer leaves
// the listener's count.
func (c *Conn) answer() (answered, closeConn bool) {
	wt := c.opts.WriteTimeout
	if wt > 0 {
		c.Conn.SetWriteDeadline(time.Now().Add(wt))
	}
	defer func() {
		c.closeMu.Lock()
		c.phase.Store(phaseOther)
		later := c.closeLater
		c.closeMu.Unlock()
		if wt > 0 {
			c.Conn.SetWriteDeadline(time.Time{})
		}
		c.req.Header = c.req.Header[:0]
		if later {
			// net/http closed the connection during the answer (see
			// Close).
			c.linger()
			c.closeRaw()
			c.eof = true
		}
		c.l.endAnswer()
	}()
	c.req.closing = c.closing.Load()
	return c.opts.Handler(c.Conn, &c.req)
}

// lingerTime bounds how long linger waits for the client to close, as
// net/http waits after its CloseWrite (rstAvoidanceDelay); lingerBytes
// how much it reads and drops meanwhile.
const (
	lingerTime  = 500 * time.Millisecond
	lingerBytes = 1 << 20
)

// linger prepares the close of a connection the Conn ends itself (after
// an answer that closes it, or at Shutdown): it half-closes the
// connection, so that the client gets the whole answer and then the end
// of the stream, and reads and drops what the client sends until it
// closes its side, for at most lingerTime and lingerBytes. A close with
// unread bytes in the kernel (a request the client pipelined during the
// answer) would make Linux send a reset and drop the answer's bytes still
// queued to go out (RFC 9112 §9.6). Once per connection; nothing when it
// was closed already.
func (c *Conn) linger() {
	if c.lingered {
		return
	}
	c.lingered = true
	c.closeMu.Lock()
	closed := c.closed
	c.closeMu.Unlock()
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if closed || !ok || cw.CloseWrite() != nil {
		// Without a half-close the client is not told the answer
		// ended: waiting for its close would only delay it.
		return
	}
	c.Conn.SetReadDeadline(time.Now().Add(lingerTime))
	var scratch [16 << 10]byte
	for n := 0; n < lingerBytes; {
		m, err := c.Conn.Read(scratch[:])
		n += m
		if err != nil {
			return
		}
	}
}

// setPhase sets c's phase under closeMu (see shutdown). Entering
// phaseWaiting fails, leaving phaseOther, once Shutdown has been: the
// connection then ends instead of waiting.
func (c *Conn) setPhase(ph int32) bool {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if ph == phaseWaiting && c.closing.Load() {
		c.phase.Store(phaseOther)
		return false
	}
	c.phase.Store(ph)
	return true
}

// timeHead gives the head begun at buf[off:] the header deadline, once,
// where the Conn is in charge of deadlines (see serveHeads). With no
// ReadHeaderTimeout the head has no deadline, as in net/http.
func (c *Conn) timeHead(st int32) {
	if c.headTimed || (st == int32(http.StateNew) && !c.answered) {
		return
	}
	c.headTimed = true
	var d time.Time
	if t := c.opts.ReadHeaderTimeout; t > 0 {
		d = time.Now().Add(t)
	}
	c.Conn.SetReadDeadline(d)
}

func (c *Conn) setIdleDeadline() {
	if d := c.opts.IdleTimeout; d > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(d))
	} else {
		c.Conn.SetReadDeadline(time.Time{})
	}
}

// watch runs while net/http serves a request (StateActive). net/http's
// only read then is its background read of one byte, which watches for
// the client closing. watch reads the raw connection into the Conn's
// buffer, keeping whatever arrives (pipelined requests) for later, and
// returns only an error: the timeout net/http provokes to end the
// background read, or the client's EOF or reset, which cancels the
// request's context as it does without this package.
func (c *Conn) watch(p []byte) (int, error) {
	for {
		if c.end-c.off >= c.opts.MaxBufferedBytes {
			return c.switchPass(p)
		}
		_, err := c.fill(c.opts.MaxBufferedBytes)
		if err == nil {
			continue
		}
		var ne net.Error
		if c.off < c.end && !(errors.As(err, &ne) && ne.Timeout()) {
			// The client sent pipelined requests, then closed or
			// reset. Without this package net/http would have read
			// one byte of them and not cancelled the request: do as
			// it does.
			c.sticky = err
			return c.switchPass(p)
		}
		return 0, err
	}
}

func (c *Conn) switchPass(p []byte) (int, error) {
	c.pass = true
	c.deliver = 0
	return c.readPass(p)
}

// fill reads the raw connection once into the free end of buf, growing
// it up to limit bytes (plus what is consumed at the front).
func (c *Conn) fill(limit int) (int, error) {
	if c.buf == nil {
		c.buf = make([]byte, 4<<10)
	}
	if c.end == len(c.buf) {
		if c.off > 0 {
			n := copy(c.buf, c.buf[c.off:c.end])
			c.off, c.end = 0, n
		} else {
			size := 2 * len(c.buf)
			if size > limit {
				size = limit
			}
			if size <= len(c.buf) {
				size = len(c.buf) + 1
			}
			nb := make([]byte, size)
			copy(nb, c.buf[:c.end])
			c.buf = nb
		}
	}
	n, err := c.Conn.Read(c.buf[c.end:])
	c.end += n
	return n, err
}
