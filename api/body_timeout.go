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
// Deadlines are wall-clock times for the network poller, so idleBody uses
// time.Now, never the server's (possibly fixed) clock.
type idleBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	off     bool // the connection does not support deadlines
}

// watchBody returns r with its Body wrapped in an idleBody when
// Options.BodyTimeout is set and the request has a body, and r itself
// otherwise. The wrapped body goes into a shallow copy: a handler does not
// modify the Request the server gave it.
func (s *Server) watchBody(w http.ResponseWriter, r *http.Request) *http.Request {
	if s.opts.BodyTimeout <= 0 || r.Body == nil || r.Body == http.NoBody {
		return r
	}
	c := *r
	c.Body = &idleBody{ReadCloser: r.Body, rc: http.NewResponseController(w), timeout: s.opts.BodyTimeout}
	return &c
}

func (b *idleBody) Read(p []byte) (int, error) {
	if !b.off {
		if err := b.rc.SetReadDeadline(time.Now().Add(b.timeout)); err != nil {
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
