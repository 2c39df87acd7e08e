package expect

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
)

// WireName is the name Listener gives on the wire to an Expect header
// net/http would refuse. It has the length of "Expect", so that it is
// rewritten in place, and is a valid header name that net/http keeps as it
// is when it canonicalizes names.
const WireName = "Expec_"

// Restore gives the headers Listener renamed their name back: the
// values of WireName are appended to Expect's, and WireName removed. It
// costs one map lookup when there are none.
func Restore(h http.Header) {
	v, ok := h[WireName]
	if !ok {
		return
	}
	h["Expect"] = append(h["Expect"], v...)
	delete(h, WireName)
}

// Listener returns ln whose connections rename, in each request's head,
// the Expect headers net/http would answer with 417 to WireName.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c}, nil
}

// bufSize is the buffer of a connection's request heads. A header line
// that decides something (Expect, Content-Length, Transfer-Encoding) is
// held in it until it is complete; one longer than bufSize turns the
// connection to passing through.
const bufSize = 4 << 10

// state is where a connection is in the framing of its requests.
type state uint8

const (
	// requestLine: at or in a request line.
	requestLine state = iota
	// lineStart: at the start of a header line (or the blank line
	// ending the head).
	lineStart
	// inLine: in a header line that decides nothing.
	inLine
	// body: in a request body of Content-Length bytes.
	body
	// pass: the rest of the connection passes through untouched.
	pass
)

// conn follows the requests on a connection and renames their Expect
// headers. The bytes of the buffer are in three parts: buf[r:d] are
// scanned and go to the reader next, buf[d:w] are read and not yet
// scanned.
type conn struct {
	net.Conn
	buf     []byte
	r, d, w int
	state   state
	// left is the number of body bytes still to come in state body.
	left int64
	// length and chunked are what the head being read says of its body.
	length    int64
	hasLength bool
	chunked   bool
	// err is a read error to return once nothing is left to hand out.
	err error
}

// NetConn returns the connection under c (for the edge's fast hits,
// which write to it with system calls of their own).
func (c *conn) NetConn() net.Conn { return c.Conn }

// Read hands out the connection's bytes with the Expect headers renamed.
// Body bytes are read straight into p when the buffer is empty.
func (c *conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if c.r < c.d {
			n := copy(p, c.buf[c.r:c.d])
			c.r += n
			return n, nil
		}
		if c.r == c.w {
			if c.err != nil {
				err := c.err
				c.err = nil
				return 0, err
			}
			c.r, c.d, c.w = 0, 0, 0
			switch c.state {
			case pass:
				return c.Conn.Read(p)
			case body:
				if int64(len(p)) > c.left {
					p = p[:c.left]
				}
				n, err := c.Conn.Read(p)
				if c.left -= int64(n); c.left == 0 {
					c.state = requestLine
				}
				return n, err
			}
		}
		c.scan()
		if c.r < c.d || c.r == c.w && (c.state == body || c.state == pass) {
			continue
		}
		// buf[d:w] is the start of a header line that may decide
		// something: read until it is complete.
		if c.err != nil {
			err := c.err
			c.err = nil
			return 0, err
		}
		if c.r > 0 {
			c.w = copy(c.buf, c.buf[c.r:c.w])
			c.r, c.d = 0, 0
		}
		if c.buf == nil {
			c.buf = make([]byte, bufSize)
		}
		if c.w == len(c.buf) {
			c.state, c.d = pass, c.w
			continue
		}
		n, err := c.Conn.Read(c.buf[c.w:])
		c.w += n
		switch {
		case err == nil:
		case n > 0:
			c.err = err
		case err == io.EOF && c.r < c.w:
			// The line will never be complete: hand it out as it is.
			c.state, c.d, c.err = pass, c.w, err
		default:
			// A deadline (net/http's ends its background reads so)
			// keeps the line for the next Read.
			return 0, err
		}
	}
}

// scan moves d over the bytes of buf[d:w] whose fate is known, renaming
// Expect headers, and stops at the start of an unfinished header line
// that may decide something.
func (c *conn) scan() {
	for c.d < c.w {
		switch c.state {
		case pass:
			c.d = c.w
		case body:
			n := min(c.left, int64(c.w-c.d))
			c.d += int(n)
			if c.left -= n; c.left == 0 {
				c.state = requestLine
			}
		case requestLine, inLine:
			i := bytes.IndexByte(c.buf[c.d:c.w], '\n')
			if i < 0 {
				c.d = c.w
				return
			}
			c.d += i + 1
			c.state = lineStart
		case lineStart:
			rest := c.buf[c.d:c.w]
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				if decides(rest) {
					return
				}
				c.state, c.d = inLine, c.w
				return
			}
			c.line(rest[:i])
			c.d += i + 1
		}
	}
}

// The header names whose lines decide something.
const (
	expectName   = "expect:"
	lengthName   = "content-length:"
	encodingName = "transfer-encoding:"
)

// decides reports whether the start of a line may be a header line that
// decides something, or the blank line that ends the head.
func decides(start []byte) bool {
	if len(start) == 1 && start[0] == '\r' {
		return true
	}
	for _, name := range [...]string{expectName, lengthName, encodingName} {
		n := min(len(start), len(name))
		if equalFold(start[:n], name[:n]) {
			return true
		}
	}
	return false
}

// line acts on one complete header line (without its newline), which
// starts at buf[d].
func (c *conn) line(l []byte) {
	l = bytes.TrimSuffix(l, []byte{'\r'})
	switch {
	case len(l) == 0:
		c.endHead()
	case hasPrefixFold(l, expectName):
		v := bytes.Trim(l[len(expectName):], " \t")
		if len(v) > 0 && !hasToken(v, "100-continue") {
			copy(c.buf[c.d:], WireName)
		}
	case hasPrefixFold(l, lengthName):
		n, err := strconv.ParseUint(string(bytes.Trim(l[len(lengthName):], " \t")), 10, 63)
		if err != nil || c.hasLength && int64(n) != c.length {
			c.state = pass
			return
		}
		c.length, c.hasLength = int64(n), true
	case hasPrefixFold(l, encodingName):
		c.chunked = true
	}
}

// endHead starts the body the head announced, or the next request.
func (c *conn) endHead() {
	switch {
	case c.chunked:
		c.state = pass
	case c.length > 0:
		c.state, c.left = body, c.length
	default:
		c.state = requestLine
	}
	c.length, c.hasLength, c.chunked = 0, false, false
}

// CloseWrite forwards to the connection's, which net/http uses to close
// a connection without losing its last answer to a reset.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom forwards to the connection's, so that net/http's responses
// keep using sendfile.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

var (
	_ io.ReaderFrom                   = (*conn)(nil)
	_ interface{ CloseWrite() error } = (*conn)(nil)
)

func hasPrefixFold(s []byte, prefix string) bool {
	return len(s) >= len(prefix) && equalFold(s[:len(prefix)], prefix)
}

// equalFold compares s with lower, which is lower case ASCII.
func equalFold(s []byte, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := range s {
		b := s[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != lower[i] {
			return false
		}
	}
	return true
}

// hasToken is net/http's: whether token, lower case, is one of the
// comma- or space-separated tokens of v, ignoring case.
func hasToken(v []byte, token string) bool {
	for sp := 0; sp+len(token) <= len(v); sp++ {
		if sp > 0 && !tokenBoundary(v[sp-1]) {
			continue
		}
		if end := sp + len(token); end != len(v) && !tokenBoundary(v[end]) {
			continue
		}
		if equalFold(v[sp:sp+len(token)], token) {
			return true
		}
	}
	return false
}

func tokenBoundary(b byte) bool { return b == ' ' || b == ',' || b == '\t' }
