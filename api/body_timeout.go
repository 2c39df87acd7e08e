package api

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// idleBody is a request body that must keep arriving. Before each Read it
// moves the connection's read deadline timeout into the future, so a
// client that stops sending body bytes for longer than timeout (a
// slow-loris upload) gets RequestTimeout, while a slow but steady upload of
// any size succeeds. The deadline is cleared once the body is read to its
// end, so that handler work after the body (fsync, multipart assembly)
// never races it.
//
// An idleBody can also carry a fixed deadline, until, that no read may
// pass however steadily bytes arrive: the form fields of a browser POST
// upload are read before the upload is authenticated, so they get
// Options.PostFieldTimeout in total, not per byte (see postObject).
//
// Deadlines are wall-clock times for the network poller, so idleBody uses
// time.Now, never the server's (possibly fixed) clock.
type idleBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration // zero: no idle timeout
	until   time.Time     // zero: no fixed deadline
	off     bool          // the connection does not support deadlines
}

// defaultPostFieldTimeout is Options.PostFieldTimeout's default.
const defaultPostFieldTimeout = 10 * time.Second

// watchBody returns r with its Body wrapped in an idleBody, also kept in
// rq.body, when the request has a body and Options.BodyTimeout is set or
// it is a browser POST upload (Options.PostFieldTimeout), and r itself
// otherwise. The wrapped body goes into a shallow copy: a handler does not
// modify the Request the server gave it.
func (s *Server) watchBody(w http.ResponseWriter, r *http.Request, rq *request) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r
	}
	b := &idleBody{ReadCloser: r.Body, timeout: max(s.opts.BodyTimeout, 0)}
	if rq.op == opPostObject && s.opts.PostFieldTimeout > 0 {
		b.until = time.Now().Add(s.opts.PostFieldTimeout)
	}
	if b.timeout == 0 && b.until.IsZero() {
		return r
	}
	b.rc = http.NewResponseController(w)
	rq.body = b
	c := *r
	c.Body = b
	return &c
}

// deadline is the read deadline of the next read: the idle timeout from
// now or the fixed deadline, whichever comes first; zero means none.
func (b *idleBody) deadline() time.Time {
	var d time.Time
	if b.timeout > 0 {
		d = time.Now().Add(b.timeout)
	}
	if !b.until.IsZero() && (d.IsZero() || b.until.Before(d)) {
		d = b.until
	}
	return d
}

// lift removes the fixed deadline, leaving the idle timeout if any. It is
// a no-op on a nil idleBody.
func (b *idleBody) lift() {
	if b == nil || b.until.IsZero() {
		return
	}
	b.until = time.Time{}
	if b.timeout == 0 && !b.off {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
}

func (b *idleBody) Read(p []byte) (int, error) {
	if d := b.deadline(); !b.off && !d.IsZero() {
		if err := b.rc.SetReadDeadline(d); err != nil {
			b.off = true
		}
	}
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == nil:
	case err == io.EOF:
		if !b.off {
			_ = b.rc.SetReadDeadline(time.Time{})
		}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return n, s3err.Wrap(s3err.RequestTimeout, err)
	}
	return n, err
}
