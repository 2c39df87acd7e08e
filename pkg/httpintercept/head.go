package httpintercept

import "bytes"

// Request is a request head as the Handler sees it. Every slice points
// into the connection's own buffer and is valid only during the Handler
// call: a Handler that keeps any of it must copy it. Parsing a head
// allocates nothing once the connection's Header slice has grown to the
// number of header lines its requests carry.
type Request struct {
	// Method is "GET" or "HEAD" (a constant: comparing it allocates nothing).
	Method string
	// Target is the request target as sent, in origin form (it starts
	// with '/'), with its query if any. No byte is a control character,
	// a space or DEL (bytes from 0x80 up may occur), and every '%' is
	// followed by two hex digits.
	Target []byte
	// Proto is always "HTTP/1.1".
	Proto string
	// Host is the value of the request's only Host header.
	Host []byte
	// Header holds the header lines in the order received (Host too),
	// values trimmed of surrounding spaces and tabs.
	Header []HeaderField

	// closing: the listener is shutting down (WantsClose).
	closing bool
	// post: the head parsed last was a POST's (see Conn.afterPost).
	post bool
}

// HeaderField is one header line of a Request.
type HeaderField struct {
	Name, Value []byte
}

// Get returns the value of the first header line named name (compared
// without regard to case) and whether there was one.
func (r *Request) Get(name string) ([]byte, bool) {
	for i := range r.Header {
		if equalFold(r.Header[i].Name, name) {
			return r.Header[i].Value, true
		}
	}
	return nil, false
}

// WantsClose reports whether the answer should close the connection (and
// say "Connection: close"), as net/http decides it for an HTTP/1.1
// request: a Connection header holds the token "close", or the
// server is shutting down (Listener.Shutdown). The Conn closes the
// connection after an answer in the second case whatever the Handler
// returns.
func (r *Request) WantsClose() bool {
	if r.closing {
		return true
	}
	for i := range r.Header {
		if !equalFold(r.Header[i].Name, "Connection") {
			continue
		}
		for v := r.Header[i].Value; len(v) > 0; {
			var tok []byte
			if j := bytes.IndexByte(v, ','); j >= 0 {
				tok, v = v[:j], v[j+1:]
			} else {
				tok, v = v, nil
			}
			if equalFold(trimSpace(tok), "close") {
				return true
			}
		}
	}
	return false
}

// verdict is what the parser makes of the bytes at the front of the
// connection's buffer.
type verdict int

const (
	// needMore: no complete head yet, and nothing seen so far forbids
	// waiting for the rest.
	needMore verdict = iota
	// passThrough: the bytes are something this package does not take
	// part in (a body, HTTP/1.0, a bare LF, anything malformed); all of
	// the connection goes to net/http from now on.
	passThrough
	// handOver: a complete, well-formed HTTP/1.1 head without a body
	// that the Handler is not offered; net/http gets exactly this head.
	handOver
	// offer: like handOver, but a plain GET or HEAD the Handler may answer.
	offer
)

// scanHead looks for the end of the head at the front of b, resuming at
// from (the value it returned last time for the same head, 0 at first).
// It returns the head's length when complete (end > 0), passThrough when
// a line ends in a bare LF or the first line is empty (net/http answers
// both itself, and a client sending them may never send CRLFCRLF), and
// the offset to resume at.
func scanHead(b []byte, from int) (end int, v verdict, next int) {
	for {
		i := bytes.IndexByte(b[from:], '\n')
		if i < 0 {
			return 0, needMore, len(b)
		}
		i += from
		if i == 0 || b[i-1] != '\r' || i == 1 {
			return 0, passThrough, i
		}
		if i >= 3 && b[i-2] == '\n' && b[i-3] == '\r' {
			return i + 1, needMore, i + 1
		}
		from = i + 1
	}
}

// parseHead parses the complete head h (ending in CRLFCRLF) into r and
// says what to do with it. It is deliberately narrower than net/http:
// whatever it does not recognise as clearly valid and body-less is
// passThrough, so that net/http gives the answer it gives today.
func parseHead(h []byte, r *Request) verdict {
	r.Header = r.Header[:0]
	r.Host = nil
	r.Target = nil
	r.Method = ""
	r.Proto = ""
	r.post = false

	eol := bytes.Index(h, crlf)
	line := h[:eol]
	rest := h[eol+2:]

	// Request line: method SP target SP "HTTP/1.1", single spaces.
	sp1 := bytes.IndexByte(line, ' ')
	if sp1 <= 0 || !isToken(line[:sp1]) {
		return passThrough
	}
	method := line[:sp1]
	line = line[sp1+1:]
	sp2 := bytes.IndexByte(line, ' ')
	if sp2 <= 0 {
		return passThrough
	}
	target := line[:sp2]
	if string(line[sp2+1:]) != "HTTP/1.1" {
		return passThrough
	}
	for _, c := range target {
		if c < 0x21 || c == 0x7f {
			return passThrough
		}
	}
	switch string(method) {
	case "CONNECT", "PRI":
		return passThrough
	}

	hosts := 0
	for len(rest) > 2 {
		eol := bytes.Index(rest, crlf)
		line := rest[:eol]
		rest = rest[eol+2:]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			// Includes obs-fold (a line starting with SP or HT).
			return passThrough
		}
		name := line[:colon]
		value := trimSpace(line[colon+1:])
		for _, c := range value {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				return passThrough
			}
		}
		switch {
		case equalFold(name, "Content-Length"):
			if string(value) != "0" {
				return passThrough
			}
			if _, dup := r.Get("Content-Length"); dup {
				return passThrough
			}
		case equalFold(name, "Transfer-Encoding"), equalFold(name, "Expect"), equalFold(name, "Upgrade"):
			return passThrough
		case equalFold(name, "Host"):
			hosts++
			r.Host = value
		}
		r.Header = append(r.Header, HeaderField{Name: name, Value: value})
	}

	switch string(method) {
	case "POST":
		r.post = true
		return handOver
	case "GET":
		r.Method = "GET"
	case "HEAD":
		r.Method = "HEAD"
	default:
		return handOver
	}
	if hosts != 1 || !validHost(r.Host) || !validOriginTarget(target) {
		r.Host = nil
		return handOver
	}
	r.Target = target
	r.Proto = "HTTP/1.1"
	return offer
}

var crlf = []byte("\r\n")

// isToken reports whether b is a non-empty RFC 9110 token.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c >= 0x80 || !tokenTable[c] {
			return false
		}
	}
	return true
}

var tokenTable = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// validHost is a conservative subset of what net/http accepts as a Host
// value: a non-empty name or address with an optional port. A host it
// refuses is handed to net/http, which decides.
func validHost(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '-', c == ':', c == '[', c == ']', c == '_':
		default:
			return false
		}
	}
	return true
}

// validOriginTarget reports whether t is an origin-form target net/http
// certainly parses: it starts with '/', has only printable ASCII (checked
// by the caller) and every '%' starts a valid escape.
func validOriginTarget(t []byte) bool {
	if len(t) == 0 || t[0] != '/' {
		return false
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '%':
			if i+2 >= len(t) || !isHex(t[i+1]) || !isHex(t[i+2]) {
				return false
			}
		case '#':
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold compares b and the ASCII string s without regard to case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i], s[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
