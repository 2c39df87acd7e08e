package api

import (
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// This file keeps count of the requests being served, so that a shutdown
// that runs out of time can say which ones it cuts off. The process owns
// the listener: when its drain limit passes it calls Cut, closes the
// connections, and waits on the channel Cut returns. Each request still
// running then ends on its own goroutine (its body read or response write
// fails on the closed connection) and logs itself as cut, with the fields
// of its access-log line, instead of the access line.

// flights is the set of requests being served.
type flights struct {
	mu sync.Mutex
	n  int
	// cut is set by Cut; idle is closed when n reaches zero after it.
	cut  bool
	idle chan struct{}
}

// flight is one request's membership of flights.
type flight struct {
	set  *flights
	gone bool
}

// begin adds a request, whose flight is fl, to the set.
func (f *flights) begin(fl *flight) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	*fl = flight{set: f}
}

// leave reports whether the request was cut, to choose its log line. A
// request that was not cut leaves the set at once, so that a later Cut
// never counts a request that logs no cut line; a cut one stays until
// done, called after its line is written, so that whoever waits for the
// set to empty finds every cut request logged.
func (fl *flight) leave() (cut bool) {
	f := fl.set
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cut {
		return true
	}
	f.n--
	fl.gone = true
	return false
}

// done takes the request out of the set if leave has not. ServeHTTP
// defers it, which also covers a handler that panics.
func (fl *flight) done() {
	if fl.gone {
		return
	}
	fl.gone = true
	f := fl.set
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.cut && f.n == 0 {
		close(f.idle)
	}
}

// Cut marks every request being served as cut off by a shutdown: each
// logs a "request cut at shutdown" line, with status "cut", when it ends,
// instead of its access-log line. It returns how many requests that is
// and a channel closed once all of them have ended. The caller closes
// their connections (http.Server.Close) after Cut; requests that arrive
// afterwards are cut too. Calling Cut again returns the requests still
// running and the same channel.
func (s *Server) Cut() (int, <-chan struct{}) {
	f := &s.flights
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.cut {
		f.cut = true
		f.idle = make(chan struct{})
		if f.n == 0 {
			close(f.idle)
		}
	}
	return f.n, f.idle
}

// countedBody counts the body bytes a request has received, for the line
// of a request cut at shutdown (the access line has the announced length).
type countedBody struct {
	io.ReadCloser
	n *int64
}

func (b countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	*b.n += int64(n)
	return n, err
}

// countBody returns r with its body counted into rq.received, in a shallow
// copy, and r itself when it has no body.
func countBody(r *http.Request, rq *request) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r
	}
	c := *r
	c.Body = countedBody{ReadCloser: r.Body, n: &rq.received}
	return &c
}

// logCut writes the line of a request cut at shutdown: the access line's
// fields, the body bytes received so far, and status "cut", since its
// client gets no complete answer. answered is the status the gateway gave
// when the response had started (perhaps only as the connection was
// closed, and never received), error the S3 error it ended with.
func (s *Server) logCut(r *http.Request, rq *request, w *responseWriter, err error, elapsed time.Duration) {
	ev := s.opts.Logger.Warn().
		Str("request_id", rq.id).
		Str("op", rq.op).
		Str("method", r.Method).
		Str("bucket", rq.bucket).
		Str("key", rq.key).
		Str("status", "cut").
		Int64("bytes_in", rq.received).
		Int64("bytes_out", w.written).
		Int64("duration_us", elapsed.Microseconds()).
		Str("remote", r.RemoteAddr).
		Str("access_key", rq.accessKey)
	if w.started {
		ev = ev.Int("answered", w.status)
	}
	if err != nil {
		ev = ev.Str("error", s3err.As(err).Code.String())
	}
	ev.Msg("request cut at shutdown")
}
