package connlimit

import (
	"container/list"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Listener caps the open connections of the http.Server it is given to.
// Give it to Server.Serve and set the server's ConnState to
// ChainConnState (see the package documentation).
type Listener struct {
	net.Listener
	max   int
	grace time.Duration
	// now and afterFunc are the clock (tests set their own).
	now       func() time.Time
	afterFunc func(time.Duration, func())

	mu   sync.Mutex
	cond sync.Cond // signalled when a connection ends or the listener closes
	// conns are the open connections Accept returned.
	conns map[net.Conn]*entry
	// waiting are the open connections waiting for a request
	// (StateNew, StateIdle), the longest waiting first.
	waiting list.List
	// evicting is the number of connections Accept closed that have
	// not ended yet.
	evicting int
	// blocked is set while Accept waits at the cap with no connection
	// to close: one that starts waiting for a request wakes it.
	blocked bool
	// timed is set while a wake-up of Accept at the end of the oldest
	// waiting connection's grace is pending.
	timed  bool
	closed bool

	// onWait, when set (tests), is called with mu held each time Accept
	// starts waiting at the cap.
	onWait func()

	stats Stats
}

// Stats are a Listener's counters, for metrics.
type Stats struct {
	// Open is the number of connections counted now.
	Open atomic.Int64
	// Evicted counts the connections Accept closed at the cap.
	Evicted atomic.Uint64
	// Waited counts the connections Accept held at the cap before it
	// returned them.
	Waited atomic.Uint64
}

type entry struct {
	c    net.Conn
	elem *list.Element // in waiting, or nil
	// since is when the connection started waiting for a request.
	since time.Time
	// evicted: Accept closed the connection, which has not ended yet.
	evicted bool
}

// Options configure a Listener.
type Options struct {
	// Max is the most connections open at once. Required: positive.
	Max int
	// Grace is how long a connection may wait for a request before it
	// can be closed at the cap, so that a new connection gets that long
	// to send its request head however fast others arrive. Zero closes
	// the longest waiting at once.
	Grace time.Duration
}

// NewListener returns a Listener on l.
func NewListener(l net.Listener, opts Options) *Listener {
	if opts.Max <= 0 {
		panic("connlimit: Options.Max must be positive")
	}
	cl := &Listener{Listener: l, max: opts.Max, grace: opts.Grace, conns: make(map[net.Conn]*entry),
		now: time.Now, afterFunc: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
	cl.cond.L = &cl.mu
	return cl
}

// Stats returns the listener's counters.
func (l *Listener) Stats() *Stats { return &l.stats }

// Accept waits for the next connection and returns it once fewer than
// the cap are open, closing at the cap the connection that has waited
// longest for a request (see the package documentation). After Close it
// closes the connection it holds and returns net.ErrClosed.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	waited := false
	for len(l.conns) >= l.max && !l.closed {
		if !waited {
			waited = true
			l.stats.Waited.Add(1)
		}
		if l.evicting == 0 {
			l.evictOldest()
		}
		l.blocked = l.evicting == 0
		if l.onWait != nil {
			l.onWait()
		}
		l.cond.Wait()
	}
	l.blocked = false
	if l.closed {
		c.Close()
		return nil, net.ErrClosed
	}
	e := &entry{c: c, since: l.now()}
	e.elem = l.waiting.PushBack(e)
	l.conns[c] = e
	l.stats.Open.Store(int64(len(l.conns)))
	return c, nil
}

// evictOldest closes the connection that has waited longest for a
// request, if any has waited for the grace, and counts it in evicting;
// if the longest has not, it has Accept woken at the end of its grace.
// The close is left to a goroutine: a TLS connection's Close writes an
// alert, and a pkg/httpintercept connection answering a request closes
// at the answer's end; the connection ends, and leaves the count, when
// net/http sees it closed. Called with mu held.
func (l *Listener) evictOldest() {
	front := l.waiting.Front()
	if front == nil {
		return
	}
	e := front.Value.(*entry)
	if wait := e.since.Add(l.grace).Sub(l.now()); wait > 0 {
		if !l.timed {
			l.timed = true
			l.afterFunc(wait, func() {
				l.mu.Lock()
				l.timed = false
				l.cond.Broadcast()
				l.mu.Unlock()
			})
		}
		return
	}
	l.waiting.Remove(front)
	e.elem = nil
	e.evicted = true
	l.evicting++
	l.stats.Evicted.Add(1)
	go e.c.Close()
}

// Close closes the inner listener and makes a waiting Accept return.
func (l *Listener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}

// ConnState must be called by the http.Server's ConnState hook with every
// state change of the connections Accept returned (ChainConnState does).
// Others are ignored.
func (l *Listener) ConnState(c net.Conn, st http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.conns[c]
	if !ok {
		return
	}
	switch st {
	case http.StateNew, http.StateIdle:
		switch {
		case e.elem != nil:
			e.since = l.now()
			l.waiting.MoveToBack(e.elem)
		case !e.evicted:
			e.since = l.now()
			e.elem = l.waiting.PushBack(e)
			if l.blocked {
				l.cond.Broadcast()
			}
		}
	case http.StateActive:
		if e.elem != nil {
			l.waiting.Remove(e.elem)
			e.elem = nil
		}
	case http.StateClosed, http.StateHijacked:
		if e.elem != nil {
			l.waiting.Remove(e.elem)
		}
		if e.evicted {
			l.evicting--
		}
		delete(l.conns, c)
		l.stats.Open.Store(int64(len(l.conns)))
		l.cond.Broadcast()
	}
}

// ChainConnState returns a ConnState hook that calls next (if not nil)
// and then l.ConnState.
func (l *Listener) ChainConnState(next func(net.Conn, http.ConnState)) func(net.Conn, http.ConnState) {
	return func(c net.Conn, st http.ConnState) {
		if next != nil {
			next(c, st)
		}
		l.ConnState(c, st)
	}
}
