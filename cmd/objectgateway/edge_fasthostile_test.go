package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEdgeFastDiffHostile plays, as TestEdgeFastDiff does, hostile and
// malformed request streams on two edges identical but for
// --edge-fast-hits, each step on a connection of its own, and compares
// every answer: a stream the fast hits answer must be answered with the
// same bytes as by net/http (RFC 9112 message framing), and a stream they
// hand over must reach net/http whole, once. Most steps end with a plain
// hit with Connection: close, so that an answer too many (a request
// smuggled in a body, a head answered twice) shows as an answer that
// differs or a connection left open.
func TestEdgeFastDiffHostile(t *testing.T) {
	g := startCDNGateway(t, "")
	clock := &stepClock{t: time.Now()}
	slow := startDiffEdge(t, "edge --edge-fast-hits=false", g.addr, clock, "--edge-fast-hits=false")
	fast := startDiffEdge(t, "edge --edge-fast-hits", g.addr, clock, "--edge-fast-hits")
	g.put(t, "small.txt", []byte("hello from the origin\n"))
	for _, e := range []*diffEdge{slow, fast} {
		if r := e.node.get(t, "small.txt", ""); r.status != http.StatusOK {
			t.Fatalf("%s: warming GET: %d", e.name, r.status)
		}
	}

	p := "/" + cdnBucket + "/"
	hit := httpReq("GET", p+"small.txt")
	last := httpReq("GET", p+"small.txt", "Connection: close")
	// smuggled is a request that must never be answered: it is the body
	// of another one.
	smuggled := httpReq("GET", p+"smuggled.txt")
	// sized is a plain hit's head of exactly n bytes.
	sized := func(n int) string {
		pad := n - len(httpReq("GET", p+"small.txt", "Accept: "))
		return httpReq("GET", p+"small.txt", "Accept: "+strings.Repeat("a", pad))
	}
	raw := func(lines ...string) string { return strings.Join(lines, "\r\n") + "\r\n\r\n" }
	get := "GET " + p + "small.txt HTTP/1.1"
	const G, H = http.MethodGet, http.MethodHead
	many := strings.Repeat(hit, 300)
	manyMethods := make([]string, 301)
	for i := range manyMethods {
		manyMethods[i] = G
	}
	// Each step: the bytes, the methods of the answers that must come
	// (a 400 of net/http's ends the connection: nothing after it is
	// answered) and how many the fast edge answers itself.
	script := []diffStep{
		// Framing: a body the fast hits must not take for the next head.
		{name: "Content-Length and Transfer-Encoding", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "Content-Length: 5", "Transfer-Encoding: chunked") + "0\r\n\r\n" + last},
		{name: "Transfer-Encoding and Content-Length", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "Transfer-Encoding: chunked", "Content-Length: 3") + "0\r\n\r\n" + last},
		{name: "GET with a body that is a request", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "Content-Length: "+strconv.Itoa(len(smuggled))) + smuggled + last},
		{name: "HEAD with a body that is a request", fast: 0, methods: []string{H, G},
			raw: raw("HEAD "+p+"small.txt HTTP/1.1", "Host: e", "Content-Length: "+strconv.Itoa(len(smuggled))) + smuggled + last},
		{name: "GET with a chunked body that is a request", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "Transfer-Encoding: chunked") + strconv.FormatInt(int64(len(smuggled)), 16) + "\r\n" + smuggled + "\r\n0\r\n\r\n" + last},
		{name: "Content-Length: 0 twice", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "Content-Length: 0", "Content-Length: 0") + last},
		{name: "Content-Length: 00", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "Content-Length: 00") + last},
		{name: "Content-Length: +0", fast: 0, methods: []string{G},
			raw: raw(get, "Host: e", "Content-Length: +0") + last},
		{name: "Expect: 100-continue without a body", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "Expect: 100-continue") + last},
		{name: "Expect: something", fast: 1, methods: []string{G, G},
			raw: raw(get, "Host: e", "Expect: something") + last},
		{name: "a hit, a POST with a body, a hit", fast: 1, methods: []string{G, http.MethodPost, G},
			raw: hit + raw("POST "+p+"small.txt HTTP/1.1", "Host: e", "Content-Length: 5") + "abcde" + last},
		{name: "a hit, a PUT without a body, a hit", fast: 2, methods: []string{G, http.MethodPut, G},
			raw: hit + raw("PUT "+p+"small.txt HTTP/1.1", "Host: e") + last},
		// net/http skips a CRLF before a request line only after a POST,
		// the last request it read: never one it did not see.
		{name: "a POST, a hit, a CRLF and a hit", fast: 0, methods: []string{http.MethodPost, G, G},
			raw: raw("POST "+p+"small.txt HTTP/1.1", "Host: e") + hit + "\r\n" + last},
		{name: "a CRLF before the first request line", fast: 0, methods: []string{G},
			raw: "\r\n" + last},

		// Lines and bytes net/http refuses (400, closing) or reads its way.
		{name: "obs-fold", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "User-Agent: a", " b") + last},
		{name: "obs-fold hiding Content-Length", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "X: a", " Content-Length: 5") + last},
		{name: "space before the colon of Host", fast: 0, methods: []string{G},
			raw: raw(get, "Host : e") + last},
		{name: "space before the colon of Content-Length", fast: 0, methods: []string{G},
			raw: raw(get, "Host: e", "Content-Length : 5") + last},
		{name: "bare CR in a value", fast: 0, methods: []string{G},
			raw: raw(get, "Host: e", "User-Agent: a\rb") + last},
		{name: "bare LF ending a line", fast: 0, methods: []string{G, G},
			raw: get + "\r\nHost: e\nAccept: */*\r\n\r\n" + last},
		{name: "NUL in the target", fast: 0, methods: []string{G},
			raw: raw("GET "+p+"sm\x00all.txt HTTP/1.1", "Host: e") + last},
		{name: "NUL in a value", fast: 0, methods: []string{G},
			raw: raw(get, "Host: e", "User-Agent: a\x00b") + last},
		{name: "control byte in a value", fast: 0, methods: []string{G},
			raw: raw(get, "Host: e", "User-Agent: a\x01b") + last},
		{name: "DEL in a value", fast: 0, methods: []string{G},
			raw: raw(get, "Host: e", "User-Agent: a\x7fb") + last},
		{name: "obs-text in a value", fast: 2, methods: []string{G, G},
			raw: raw(get, "Host: e", "User-Agent: a\xffb") + last},
		{name: "UTF-8 in the target", fast: 1, methods: []string{G, G},
			raw: raw("GET "+p+"sm\xc3\xa9.txt HTTP/1.1", "Host: e") + last},
		{name: "empty header name", fast: 0, methods: []string{G},
			raw: raw(get, "Host: e", ":x") + last},
		{name: "two spaces after the method", fast: 0, methods: []string{G},
			raw: raw("GET  "+p+"small.txt HTTP/1.1", "Host: e") + last},
		{name: "tab after the method", fast: 0, methods: []string{G},
			raw: raw("GET\t"+p+"small.txt HTTP/1.1", "Host: e") + last},
		{name: "lower-case protocol", fast: 0, methods: []string{G},
			raw: raw("GET "+p+"small.txt http/1.1", "Host: e") + last},
		{name: "HTTP/1.2", fast: 0, methods: []string{G, G},
			raw: raw("GET "+p+"small.txt HTTP/1.2", "Host: e") + last},
		{name: "HTTP/2.0", fast: 0, methods: []string{G},
			raw: raw("GET "+p+"small.txt HTTP/2.0", "Host: e") + last},
		{name: "HTTP/1.0 keep-alive, then HTTP/1.1", fast: 0, methods: []string{G, G},
			raw: raw("GET "+p+"small.txt HTTP/1.0", "Host: e", "Connection: keep-alive") + last},
		{name: "h2c upgrade", fast: 0, methods: []string{G, G},
			raw: raw(get, "Host: e", "Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA") + last},
		{name: "Connection: keep-alive,,close", fast: 1, methods: []string{G},
			raw: httpReq("GET", p+"small.txt", "Connection: keep-alive,,close") + hit},

		// Host and the target's form.
		{name: "two equal Host lines", fast: 0, methods: []string{G},
			raw: raw(get, "Host: e", "Host: e") + last},
		{name: "empty Host", fast: 1, methods: []string{G, G},
			raw: raw(get, "Host:") + last},
		{name: "Host with a space", fast: 0, methods: []string{G},
			raw: raw(get, "Host: a b") + last},
		{name: "absolute form", fast: 1, methods: []string{G, G},
			raw: raw("GET http://e"+p+"small.txt HTTP/1.1", "Host: e") + last},
		{name: "absolute form naming another host", fast: 1, methods: []string{G, G},
			raw: raw("GET http://other"+p+"small.txt HTTP/1.1", "Host: e") + last},
		{name: "OPTIONS *", fast: 1, methods: []string{http.MethodOptions, G},
			raw: raw("OPTIONS * HTTP/1.1", "Host: e") + last},

		// The cache key: what would alias or poison an entry goes to
		// net/http, and the hit after it is the object's.
		{name: "dot segment", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"./small.txt") + last},
		{name: "escaped dot-dot segment", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"%2e%2e/"+cdnBucket+"/small.txt") + last},
		{name: "escaped dot segment", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"%2e/small.txt") + last},
		{name: "fragment", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt#x") + last},
		{name: "versionId", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt?versionId=x") + last},
		{name: "response-content-type", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt?response-content-type=text/html") + last},
		{name: "partNumber", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt?partNumber=1") + last},
		{name: "X-Amz- query parameter", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt?X-Amz-Expires=10") + last},
		{name: "a malformed Authorization", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt", "Authorization: AWS4-HMAC-SHA256 junk") + last},
		{name: "two Range lines", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt", "Range: bytes=0-1", "Range: bytes=2-3") + last},
		{name: "a malformed Range", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt", "Range: bytes=x-1") + last},
		{name: "Cache-Control: no-cache", fast: 1, methods: []string{G, G}, raw: httpReq("GET", p+"small.txt", "Cache-Control: no-cache") + last},

		// Pipelining and the head limit (16 KiB, net/http's MaxHeaderBytes).
		{name: "HEAD then GET in one write", fast: 2, methods: []string{H, G}, raw: httpReq("HEAD", p+"small.txt") + last},
		{name: "300 pipelined hits", fast: 301, methods: manyMethods, raw: many + last},
		{name: "a head of exactly 16 KiB", fast: 2, methods: []string{G, G}, raw: sized(16<<10) + last},
		{name: "a head of 16 KiB and one byte", fast: 0, methods: []string{G, G}, raw: sized(16<<10+1) + last},
		{name: "a head over net/http's limit", fast: 0, methods: []string{G}, raw: sized(20<<10+1) + last},
	}
	for i := range script {
		script[i].fresh, script[i].closes = true, true
	}
	playBoth(t, slow, fast, script)
	compareAccessLogs(t, slow, fast)
}
