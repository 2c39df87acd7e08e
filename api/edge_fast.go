package api

import (
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/pkg/edge"
	"github.com/objectgateway/objectgateway/pkg/httpintercept"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// EdgeHit is an httpintercept.Handler for a plain-TCP listener of an
// edge (Options.Edge with Public): it answers an anonymous path-style
// GET or HEAD of an object whose every byte is fresh in the cache on the
// raw connection (edge.Cache.ServeHit), with the request ID, Server
// header, anonymous admission, in-flight accounting, metrics and access
// log line of ServeHTTP. It declines, having written nothing, whatever
// else it is offered: ServeHTTP then answers it through net/http.
//
// Declined: any header besides Host, User-Agent, Accept,
// Accept-Encoding, Accept-Language, Connection and Content-Length: 0 (so
// every credential, Range, If-*, Origin, X-Amz-*); a query string; a
// target with a byte outside the unreserved and sub-delims set (percent
// escapes included); virtual-hosted-style servers (Options.Domain); a
// full anonymous budget; and whatever edge.Cache.ServeHit declines.
func (s *Server) EdgeHit(w net.Conn, req *httpintercept.Request) (answered, closeConn bool) {
	eo := s.opts.Edge
	if eo == nil || !eo.Public || !s.pathStyleOnly || !plainTarget(req.Target) {
		return false, false
	}
	for i := range req.Header {
		if !fastHeader(req.Header[i]) {
			return false, false
		}
	}
	p := string(req.Target)
	a, ok := pathAddress(p)
	if !ok || a.lv != levelObject || edgeAddress(a.bucket, a.key) != nil {
		return false, false
	}
	op := "GetObject"
	if req.Method == http.MethodHead {
		op = "HeadObject"
	}
	start := s.now()
	if !s.anonymous.take() {
		// ServeHTTP answers SlowDown.
		return false, false
	}
	defer s.anonymous.release()
	id := s.nextID()
	s.opts.Metrics.begin()
	var fl flight
	s.flights.begin(&fl)
	defer fl.done()
	closeConn = req.WantsClose()
	fields := [3]edge.HeaderField{
		{Name: "Server", Value: "ObjectGateway"},
		{Name: "X-Amz-Id-2", Value: id},
		{Name: "X-Amz-Request-Id", Value: id},
	}
	answered, written, err := eo.Cache.ServeHit(w, &edge.HitRequest{
		Head: req.Method == http.MethodHead, Bucket: a.bucket, Key: a.key,
		Fields: fields[:], Close: closeConn,
	})
	if !answered {
		s.opts.Metrics.abandon()
		return false, false
	}
	if err != nil {
		// Cut short after the status line: as abortCut, the connection
		// goes.
		closeConn = true
	}
	elapsed := s.now().Sub(start)
	s.opts.Metrics.end(op, http.StatusOK, 0, written, elapsed)
	if fl.leave() {
		s.logFastHit(s.opts.Logger.Warn(), "request cut at shutdown", id, op, req.Method, a, written, elapsed, w, err, true)
		return true, closeConn
	}
	s.logFastHit(s.opts.Logger.Info(), "request", id, op, req.Method, a, written, elapsed, w, err, false)
	return true, closeConn
}

// logFastHit writes the access-log line (or the line of a request cut at
// shutdown) of an intercepted hit, with the fields of logAccess.
func (s *Server) logFastHit(ev *zerolog.Event, msg, id, op, method string, a address, written int64, elapsed time.Duration, w net.Conn, err error, cut bool) {
	if !ev.Enabled() {
		return
	}
	ev = ev.Str("request_id", id).
		Str("op", op).
		Str("method", method).
		Str("bucket", a.bucket).
		Str("key", a.key)
	if cut {
		ev = ev.Str("status", "cut")
	} else {
		ev = ev.Int("status", http.StatusOK)
	}
	ev = ev.Int64("bytes_in", 0).
		Int64("bytes_out", written).
		Int64("duration_us", elapsed.Microseconds()).
		Str("remote", w.RemoteAddr().String()).
		Str("access_key", "")
	if cut {
		ev = ev.Int("answered", http.StatusOK)
	}
	if err != nil {
		e := s3err.As(err)
		ev = ev.Str("error", e.Code.String())
		if e.Code == s3err.InternalError && !cut {
			ev = ev.AnErr("cause", err)
		}
	}
	ev.Msg(msg)
}

// plainTarget reports whether t is a path with no query whose bytes all
// stand for themselves after net/http's parsing and url.PathUnescape:
// unreserved characters, sub-delims, ':', '@' and '/'.
func plainTarget(t []byte) bool {
	if len(t) < 2 || t[0] != '/' {
		return false
	}
	for _, c := range t {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '/', c == '-', c == '.', c == '_', c == '~',
			c == '!', c == '$', c == '&', c == '\'', c == '(', c == ')',
			c == '*', c == '+', c == ',', c == ';', c == '=', c == ':', c == '@':
		default:
			return false
		}
	}
	return true
}

// fastHeader reports whether a request header leaves an edge hit's
// answer as it is for a request without it.
func fastHeader(f httpintercept.HeaderField) bool {
	switch len(f.Name) {
	case 4:
		return eqFold(f.Name, "Host")
	case 6:
		return eqFold(f.Name, "Accept")
	case 10:
		return eqFold(f.Name, "User-Agent") || eqFold(f.Name, "Connection")
	case 14:
		return eqFold(f.Name, "Content-Length") // httpintercept offers only "0"
	case 15:
		return eqFold(f.Name, "Accept-Encoding") || eqFold(f.Name, "Accept-Language")
	}
	return false
}

func eqFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
