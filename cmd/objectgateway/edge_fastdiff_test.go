package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// This file checks that --edge-fast-hits is invisible to clients: two
// edges in front of one origin, identical but for the flag, get the same
// bytes on raw connections and must answer with the same bytes, but for
// Date and the request IDs.

// diffWait bounds every read of an answer. It is a safety net only: the
// test never waits for time to pass.
const diffWait = 30 * time.Second

// diffEdge is one of the two edges, with the raw connection the script is
// played on.
type diffEdge struct {
	name string
	node *edgeNode
	log  *syncBuffer
	// handled counts the requests net/http handed to the S3 handler. It
	// is counted before the handler writes anything, so once an answer
	// has been read the request is counted if net/http served it.
	handled atomic.Int64
	c       net.Conn
	br      *bufio.Reader
}

func startDiffEdge(t *testing.T, name, origin string, clock *stepClock, extra ...string) *diffEdge {
	t.Helper()
	d := &diffEdge{name: name, log: &syncBuffer{}}
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d.handled.Add(1)
			h.ServeHTTP(w, r)
		})
	}
	// The access log (info) is compared between the edges at the end.
	d.node = startEdgeFlags(t, t.TempDir(), origin, env{edgeNow: clock.Now, wrap: wrap}, d.log,
		append([]string{"--log-level", "info"}, extra...)...)
	return d
}

func (d *diffEdge) dial(t *testing.T) {
	t.Helper()
	d.hangUp()
	c, err := net.Dial("tcp", d.node.addr)
	if err != nil {
		t.Fatalf("%s: %v", d.name, err)
	}
	d.c, d.br = c, bufio.NewReader(c)
}

func (d *diffEdge) hangUp() {
	if d.c != nil {
		d.c.Close()
		d.c, d.br = nil, nil
	}
}

// rawAnswer is one answer read off a connection: the status line and
// header block as sent (up to and including the empty line) and the body
// as sent (chunk framing included), or what went wrong reading it.
type rawAnswer struct {
	head string
	body []byte
	err  string
}

// readRawAnswer reads one answer to a request of method: the head line by
// line, then the body by the rules of HTTP/1.1 message framing (none for
// HEAD, 1xx, 204 and 304; chunked; Content-Length; else until EOF).
// Methods are case-sensitive: the answer to "head" has a body.
func readRawAnswer(br *bufio.Reader, method string) rawAnswer {
	var head strings.Builder
	for {
		l, err := br.ReadString('\n')
		head.WriteString(l)
		if err != nil {
			return rawAnswer{head: head.String(), err: fmt.Sprintf("reading the head: %v", err)}
		}
		if l == "\r\n" || l == "\n" {
			break
		}
	}
	a := rawAnswer{head: head.String()}
	status, _, _ := strings.Cut(a.head, "\r\n")
	f := strings.Fields(status)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/") {
		a.err = "not a status line"
		return a
	}
	code, err := strconv.Atoi(f[1])
	if err != nil {
		a.err = "not a status line"
		return a
	}
	if method == http.MethodHead || code/100 == 1 || code == http.StatusNoContent || code == http.StatusNotModified {
		return a
	}
	if te := headValue(a.head, "Transfer-Encoding"); te != "" {
		if !strings.EqualFold(te, "chunked") {
			a.err = "transfer encoding " + te
			return a
		}
		var body bytes.Buffer
		for {
			l, err := br.ReadString('\n')
			body.WriteString(l)
			if err != nil {
				a.body, a.err = body.Bytes(), fmt.Sprintf("reading a chunk size: %v", err)
				return a
			}
			sz, _, _ := strings.Cut(strings.TrimSpace(l), ";")
			n, err := strconv.ParseInt(sz, 16, 64)
			if err != nil || n < 0 {
				a.body, a.err = body.Bytes(), "bad chunk size "+strconv.Quote(l)
				return a
			}
			if n == 0 {
				break
			}
			if _, err := io.CopyN(&body, br, n+2); err != nil {
				a.body, a.err = body.Bytes(), fmt.Sprintf("reading a chunk: %v", err)
				return a
			}
		}
		for { // trailers, then the empty line
			l, err := br.ReadString('\n')
			body.WriteString(l)
			if err != nil {
				a.body, a.err = body.Bytes(), fmt.Sprintf("reading the trailer: %v", err)
				return a
			}
			if l == "\r\n" || l == "\n" {
				break
			}
		}
		a.body = body.Bytes()
		return a
	}
	if cl := headValue(a.head, "Content-Length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n < 0 {
			a.err = "bad Content-Length " + strconv.Quote(cl)
			return a
		}
		a.body = make([]byte, n)
		if m, err := io.ReadFull(br, a.body); err != nil {
			a.body, a.err = a.body[:m], fmt.Sprintf("reading %d body bytes: %v", n, err)
		}
		return a
	}
	a.body, err = io.ReadAll(br)
	if err != nil {
		a.err = fmt.Sprintf("reading the body to EOF: %v", err)
	}
	return a
}

// headValue is the value of the first header line named name in head.
func headValue(head, name string) string {
	for _, l := range strings.Split(head, "\r\n")[1:] {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// varyingFields are the header lines that may differ between the edges:
// when the answer was made and which request it was.
var varyingFields = []string{"Date", "X-Amz-Request-Id", "X-Amz-Id-2"}

// normalize drops the varying header lines and puts a placeholder for
// the request IDs wherever the body repeats them (error documents).
func (a rawAnswer) normalize() rawAnswer {
	lines := strings.SplitAfter(a.head, "\n")
	var ids []string
	out := lines[:0:0]
	for i, l := range lines {
		if i > 0 {
			if k, v, ok := strings.Cut(l, ":"); ok && slices.ContainsFunc(varyingFields, func(f string) bool { return strings.EqualFold(f, k) }) {
				if v = strings.TrimSpace(v); v != "" && !strings.EqualFold(k, "Date") {
					ids = append(ids, v)
				}
				continue
			}
		}
		out = append(out, l)
	}
	n := rawAnswer{head: strings.Join(out, ""), body: a.body, err: a.err}
	for _, id := range ids {
		n.body = bytes.ReplaceAll(n.body, []byte(id), []byte("<request-id>"))
	}
	return n
}

// diffStep is one write of the script: one or more requests, the answers
// read after it, and what the fast edge should do with them.
type diffStep struct {
	name string
	// fresh plays the step on a new connection.
	fresh bool
	// raw is written in one write; methods has one entry per request in
	// it, in order (the method decides whether an answer has a body).
	raw     string
	methods []string
	// closes: the server must close the connection after the answers.
	closes bool
	// fast is how many of the requests the fast edge should answer
	// outside net/http; -1 leaves it unchecked.
	fast int
}

// diffResult is what one edge made of a step.
type diffResult struct {
	answers []rawAnswer
	// after is what followed the answers of a step that closes: "closed",
	// or the answer to a request written after them.
	after string
	// handled is how many of the step's requests net/http handed to the
	// S3 handler.
	handled int64
}

// play writes s on d's connection and reads the answers.
func (d *diffEdge) play(t *testing.T, s diffStep) diffResult {
	t.Helper()
	if s.fresh || d.c == nil {
		d.dial(t)
	}
	before := d.handled.Load()
	var r diffResult
	d.c.SetDeadline(time.Now().Add(diffWait))
	if _, err := io.WriteString(d.c, s.raw); err != nil {
		r.answers = append(r.answers, rawAnswer{err: fmt.Sprintf("writing: %v", err)})
		d.hangUp()
		return r
	}
	broken := false
	for _, m := range s.methods {
		a := readRawAnswer(d.br, m)
		r.answers = append(r.answers, a)
		if a.err != "" {
			broken = true
			break
		}
	}
	r.handled = d.handled.Load() - before
	if s.closes && !broken {
		// Whether the connection was closed, without waiting for a
		// timeout: a request written now is answered only if it was not.
		r.after = "closed"
		if _, err := io.WriteString(d.c, "GET /"+cdnBucket+"/"+probeKey+" HTTP/1.1\r\nHost: edge.test\r\n\r\n"); err == nil {
			if a := readRawAnswer(d.br, http.MethodGet); a.err == "" {
				r.after = "open: a request written after the answer was answered:\n" + a.head
			}
		}
	}
	if broken || s.closes {
		d.hangUp()
	}
	return r
}

// probeKey is what a step that closes asks for after its answers, to see
// whether the connection is still open. The access logs leave it out.
const probeKey = "probe-after-close"

// httpReq is an HTTP/1.1 request head for target with a Host and the
// extra header lines.
func httpReq(method, target string, extra ...string) string {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: edge.test\r\nUser-Agent: fastdiff\r\n")
	for _, e := range extra {
		b.WriteString(e + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

func getReq(target string, extra ...string) (string, []string) {
	return httpReq(http.MethodGet, target, extra...), []string{http.MethodGet}
}

func headReq(target string, extra ...string) (string, []string) {
	return httpReq(http.MethodHead, target, extra...), []string{http.MethodHead}
}

func one(name string, fast int, req func(string, ...string) (string, []string), target string, extra ...string) diffStep {
	raw, methods := req(target, extra...)
	return diffStep{name: name, raw: raw, methods: methods, fast: fast}
}

// TestEdgeFastDiff plays the same requests, over raw connections, on two
// edges in front of one origin, identical but for --edge-fast-hits, and
// compares every answer byte for byte, but for Date and the request IDs
// (in the headers and in error documents): plain hits and HEADs of small,
// empty, multi-slice, oddly named and nested objects, ranges,
// conditionals, a missing key, the bucket and the service, queries,
// mixed-case header names, Accept-Encoding, CORS, Content-Length: 0, a
// lower-case method, pipelined requests, Connection: close, HTTP/1.0 with
// and without keep-alive. On the fast edge it checks, from the requests
// net/http hands to the S3 handler, that the plain hits were answered
// outside net/http and the rest were not; and at the end that both edges
// logged the same access-log lines.
func TestEdgeFastDiff(t *testing.T) {
	g := startCDNGateway(t, "")
	clock := &stepClock{t: time.Now()}
	slow := startDiffEdge(t, "edge --edge-fast-hits=false", g.addr, clock, "--edge-fast-hits=false")
	fast := startDiffEdge(t, "edge --edge-fast-hits", g.addr, clock, "--edge-fast-hits")
	edges := []*diffEdge{slow, fast}

	big := make([]byte, 5<<20/2) // 2.5 MiB: three 1 MiB cache slices
	for i := range big {
		big[i] = byte(i*7 + i>>11)
	}
	mid := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvwxyz\n"), 300<<10/37+1)[:300<<10]
	objects := []struct {
		key, target string
		data        []byte
	}{
		{"small.txt", "small.txt", []byte("hello from the origin\n")},
		{"empty.txt", "empty.txt", nil},
		{"mid.bin", "mid.bin", mid},
		{"big.bin", "big.bin", big},
		{"a b+c~(1).txt", "a%20b+c~(1).txt", []byte("a key with a space\n")},
		{"plus+tilde~(1)!.txt", "plus+tilde~(1)!.txt", []byte("a key without escapes\n")},
		{"ünïcødé/日本.txt", "%C3%BCn%C3%AFc%C3%B8d%C3%A9/%E6%97%A5%E6%9C%AC.txt", []byte("unicode\n")},
		{"dir/sub/nested.json", "dir/sub/nested.json", []byte(`{"nested":true}` + "\n")},
	}
	for _, o := range objects {
		g.put(t, o.key, o.data)
	}
	// Warm both edges: one GET of each object, a miss filling the cache.
	warm := map[string]cdnResponse{}
	for _, e := range edges {
		for _, o := range objects {
			r := e.node.get(t, o.target, "")
			if r.status != http.StatusOK || !bytes.Equal(r.body, o.data) {
				t.Fatalf("%s: warming GET %s: %d, %d bytes, want 200, %d bytes", e.name, o.key, r.status, len(r.body), len(o.data))
			}
			warm[o.key] = r
		}
	}
	etag := warm["small.txt"].header.Get("ETag")
	lastMod := warm["small.txt"].header.Get("Last-Modified")
	if etag == "" || lastMod == "" {
		t.Fatalf("small.txt: no ETag or Last-Modified: %v", warm["small.txt"].header)
	}

	p := "/" + cdnBucket + "/"
	pipelined := []struct {
		method, target string
		extra          []string
	}{
		{"GET", p + "small.txt", nil},
		{"HEAD", p + "mid.bin", nil},
		{"GET", p + "big.bin", []string{"Range: bytes=1048570-1048585"}},
		{"GET", p + "missing.txt", nil},
		{"GET", p + "dir/sub/nested.json", nil},
		{"HEAD", p + "empty.txt", nil},
		{"GET", p + objects[6].target, nil},
		{"GET", p + "big.bin", nil},
	}
	var pipe diffStep
	pipe.name, pipe.fast = "pipelined requests in one write", 5
	for _, r := range pipelined {
		pipe.raw += httpReq(r.method, r.target, r.extra...)
		pipe.methods = append(pipe.methods, r.method)
	}

	script := []diffStep{
		// On one keep-alive connection.
		one("GET small", 1, getReq, p+"small.txt"),
		one("HEAD small", 1, headReq, p+"small.txt"),
		one("GET empty", 1, getReq, p+"empty.txt"),
		one("HEAD empty", 1, headReq, p+"empty.txt"),
		one("GET 300 KiB", 1, getReq, p+"mid.bin"),
		one("HEAD 300 KiB", 1, headReq, p+"mid.bin"),
		one("GET 2.5 MiB", 1, getReq, p+"big.bin"),
		one("HEAD 2.5 MiB after GET", 1, headReq, p+"big.bin"),
		one("GET key with space, escaped", 0, getReq, p+objects[4].target),
		one("HEAD key with space, escaped", 0, headReq, p+objects[4].target),
		one("GET key with + ~ ( ) !", 1, getReq, p+objects[5].target),
		one("HEAD key with + ~ ( ) !", 1, headReq, p+objects[5].target),
		one("GET key with + ~ ( ) !, all escaped", 0, getReq, p+"plus%2Btilde%7E%281%29%21.txt"),
		one("GET unicode key", 0, getReq, p+objects[6].target),
		one("HEAD unicode key", 0, headReq, p+objects[6].target),
		one("GET nested", 1, getReq, p+"dir/sub/nested.json"),
		one("HEAD nested", 1, headReq, p+"dir/sub/nested.json"),
		one("GET nested, %2F", 0, getReq, p+"dir%2Fsub%2Fnested.json"),
		one("GET range", 0, getReq, p+"mid.bin", "Range: bytes=0-99"),
		one("GET suffix range", 0, getReq, p+"mid.bin", "Range: bytes=-500"),
		one("GET open-ended range", 0, getReq, p+"mid.bin", "Range: bytes=300000-"),
		one("GET unsatisfiable range", 0, getReq, p+"mid.bin", "Range: bytes=99999999-"),
		one("GET range across slices", 0, getReq, p+"big.bin", "Range: bytes=1048000-2100000"),
		one("HEAD range", 0, headReq, p+"big.bin", "Range: bytes=0-9"),
		one("GET range of empty", 0, getReq, p+"empty.txt", "Range: bytes=0-9"),
		one("GET If-None-Match matching", 0, getReq, p+"small.txt", "If-None-Match: "+etag),
		one("GET If-None-Match not matching", 0, getReq, p+"small.txt", `If-None-Match: "0123"`),
		one("HEAD If-None-Match matching", 0, headReq, p+"small.txt", "If-None-Match: "+etag),
		one("GET If-Modified-Since Last-Modified", 0, getReq, p+"small.txt", "If-Modified-Since: "+lastMod),
		one("GET If-Modified-Since long ago", 0, getReq, p+"small.txt", "If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT"),
		one("GET If-Match mismatch", 0, getReq, p+"small.txt", `If-Match: "0123"`),
		one("GET missing key (the origin's 404)", 0, getReq, p+"missing.txt"),
		one("GET missing key again (cached 404)", 0, getReq, p+"missing.txt"),
		one("HEAD missing key", 0, headReq, p+"missing.txt"),
		one("GET bucket root", 0, getReq, p),
		one("HEAD bucket root", 0, headReq, p),
		one("GET bucket without slash", 0, getReq, "/"+cdnBucket),
		one("GET /", 0, getReq, "/"),
		one("GET ?x=1", 0, getReq, p+"small.txt?x=1"),
		one("GET ?versionId", 0, getReq, p+"small.txt?versionId=3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY"),
		one("GET ?versionId=null", 0, getReq, p+"small.txt?versionId=null"),
		one("GET ?partNumber=1", 0, getReq, p+"big.bin?partNumber=1"),
		one("HEAD ?partNumber=1", 0, headReq, p+"big.bin?partNumber=1"),
		one("GET empty query", 0, getReq, p+"small.txt?"),
		{name: "GET mixed-case header names", fast: 1, methods: []string{"GET"},
			raw: "GET " + p + "small.txt HTTP/1.1\r\nhOsT: edge.test\r\nuSER-aGENT: fastdiff\r\naCCEPT: */*\r\nCONNECTION: keep-alive\r\naccept-language: en\r\n\r\n"},
		{name: "HEAD mixed-case header names", fast: 1, methods: []string{"HEAD"},
			raw: "HEAD " + p + "mid.bin HTTP/1.1\r\nHOST: edge.test\r\naccept: text/plain\r\n\r\n"},
		one("GET Accept-Encoding: gzip", 1, getReq, p+"small.txt", "Accept-Encoding: gzip"),
		one("GET Accept-Encoding: gzip, big", 1, getReq, p+"mid.bin", "Accept-Encoding: gzip, deflate, br"),
		one("GET Origin (CORS)", 0, getReq, p+"small.txt", "Origin: https://example.com"),
		one("HEAD Origin (CORS)", 0, headReq, p+"small.txt", "Origin: https://example.com"),
		one("OPTIONS preflight", 0, func(target string, extra ...string) (string, []string) {
			return httpReq(http.MethodOptions, target, extra...), []string{http.MethodOptions}
		}, p+"small.txt", "Origin: https://example.com", "Access-Control-Request-Method: GET"),
		one("GET Content-Length: 0", 1, getReq, p+"small.txt", "Content-Length: 0"),
		one("HEAD Content-Length: 0", 1, headReq, p+"big.bin", "Content-Length: 0"),
		one("GET dot segment", 0, getReq, p+"dir/sub/../sub/nested.json"),
		one("GET double slash", 0, getReq, p+"dir//sub/nested.json"),
		one("GET X-Amz header", 0, getReq, p+"small.txt", "X-Amz-Content-Sha256: UNSIGNED-PAYLOAD"),
		one("GET target starting with //", 0, getReq, "/"+p+"small.txt"),
		one("GET Connection: upgrade", 1, getReq, p+"small.txt", "Connection: upgrade"),
		one("GET Connection with a tab, keep-alive", 1, getReq, p+"small.txt", "Connection:\tkeep-alive\t"),
		{name: "lower-case method get", fast: 0, methods: []string{"GET"},
			raw: "get " + p + "small.txt HTTP/1.1\r\nHost: edge.test\r\n\r\n"},
		{name: "lower-case method head", fast: 0, methods: []string{"head"},
			raw: "head " + p + "small.txt HTTP/1.1\r\nHost: edge.test\r\n\r\n"},
		one("GET after the lower-case methods", 1, getReq, p+"small.txt"),
		pipe,
		one("GET after the pipelined requests", 1, getReq, p+"big.bin"),
		{name: "GET Connection: close", fast: 1, methods: []string{"GET"}, closes: true,
			raw: httpReq("GET", p+"small.txt", "Connection: close")},

		// Each on a connection of its own.
		{name: "HEAD Connection: close", fresh: true, fast: 1, methods: []string{"HEAD"}, closes: true,
			raw: httpReq("HEAD", p+"big.bin", "Connection: close")},
		{name: "GET Connection: keep-alive, close", fresh: true, fast: 1, methods: []string{"GET"}, closes: true,
			raw: httpReq("GET", p+"small.txt", "Connection: keep-alive, close")},
		{name: "GET Connection: CLOSE with a tab", fresh: true, fast: 1, methods: []string{"GET"}, closes: true,
			raw: httpReq("GET", p+"small.txt", "Connection:\tfoo,CLOSE\t")},
		{name: "GET range, Connection: close", fresh: true, fast: 0, methods: []string{"GET"}, closes: true,
			raw: httpReq("GET", p+"mid.bin", "Range: bytes=10-20", "Connection: close")},
		{name: "GET missing key, Connection: close", fresh: true, fast: 0, methods: []string{"GET"}, closes: true,
			raw: httpReq("GET", p+"missing.txt", "Connection: close")},
		{name: "pipelined, Connection: close on the second", fresh: true, fast: 2, methods: []string{"GET", "HEAD"}, closes: true,
			raw: httpReq("GET", p+"mid.bin") + httpReq("HEAD", p+"small.txt", "Connection: close") + httpReq("GET", p+"small.txt")},
		{name: "HTTP/1.0 GET", fresh: true, fast: 0, methods: []string{"GET"}, closes: true,
			raw: "GET " + p + "small.txt HTTP/1.0\r\nHost: edge.test\r\n\r\n"},
		{name: "HTTP/1.0 HEAD without Host", fresh: true, fast: 0, methods: []string{"HEAD"}, closes: true,
			raw: "HEAD " + p + "mid.bin HTTP/1.0\r\n\r\n"},
		{name: "HTTP/1.0 GET keep-alive", fresh: true, fast: 0, methods: []string{"GET"},
			raw: "GET " + p + "small.txt HTTP/1.0\r\nHost: edge.test\r\nConnection: keep-alive\r\n\r\n"},
		{name: "HTTP/1.0 HEAD keep-alive, same connection", fast: 0, methods: []string{"HEAD"},
			raw: "HEAD " + p + "big.bin HTTP/1.0\r\nHost: edge.test\r\nConnection: keep-alive\r\n\r\n"},
		// After HTTP/1.0 net/http has the connection for good.
		one("HTTP/1.1 GET after HTTP/1.0, same connection", 0, getReq, p+"small.txt"),
		{name: "HTTP/1.0 GET without keep-alive, same connection", fast: 0, methods: []string{"GET"}, closes: true,
			raw: "GET " + p + "empty.txt HTTP/1.0\r\nHost: edge.test\r\n\r\n"},
		{name: "request lines ending in a bare LF", fresh: true, fast: 0, methods: []string{"GET"},
			raw: "GET " + p + "small.txt HTTP/1.1\nHost: edge.test\n\n"},
		{name: "GET without Host", fresh: true, fast: 0, methods: []string{"GET"}, closes: true,
			raw: "GET " + p + "small.txt HTTP/1.1\r\nUser-Agent: fastdiff\r\n\r\n"},
		{name: "GET with two Host headers", fresh: true, fast: 0, methods: []string{"GET"}, closes: true,
			raw: "GET " + p + "small.txt HTTP/1.1\r\nHost: edge.test\r\nHost: other.test\r\n\r\n"},
		// Two Connection headers: net/http closes when any of them says
		// close.
		{name: "GET Connection: keep-alive then Connection: close", fresh: true, fast: -1, methods: []string{"GET"}, closes: true,
			raw: httpReq("GET", p+"small.txt", "Connection: keep-alive", "Connection: close")},
		{name: "HEAD Connection: keep-alive then Connection: close", fresh: true, fast: -1, methods: []string{"HEAD"}, closes: true,
			raw: httpReq("HEAD", p+"mid.bin", "Connection: keep-alive", "Connection: close")},
	}

	playBoth(t, slow, fast, script)
	compareAccessLogs(t, slow, fast)
}

// playBoth plays script on slow and fast (an edge without and one with
// --edge-fast-hits) and reports every step whose answers differ, but for
// Date and the request IDs, or whose count of requests answered outside
// net/http on fast is not the step's.
func playBoth(t *testing.T, slow, fast *diffEdge, script []diffStep) {
	t.Helper()
	fastSeen, differing := 0, 0
	for i, s := range script {
		rs := slow.play(t, s)
		rf := fast.play(t, s)
		var diffs []string
		if len(rs.answers) != len(rf.answers) {
			diffs = append(diffs, fmt.Sprintf("%d answers from %s, %d from %s", len(rs.answers), slow.name, len(rf.answers), fast.name))
		}
		for j := range min(len(rs.answers), len(rf.answers)) {
			a, b := rs.answers[j].normalize(), rf.answers[j].normalize()
			if a.err != "" {
				t.Errorf("step %d (%s), answer %d: %s: %s\n%s", i, s.name, j+1, slow.name, a.err, a.head)
			}
			if a.head != b.head || a.err != b.err {
				diffs = append(diffs, fmt.Sprintf("answer %d, heads differ:\n--- %s:\n%s%s\n--- %s:\n%s%s", j+1,
					slow.name, a.head, errNote(a.err), fast.name, b.head, errNote(b.err)))
			}
			if !bytes.Equal(a.body, b.body) {
				diffs = append(diffs, fmt.Sprintf("answer %d, bodies differ: %s", j+1, bodyDiff(slow.name, a.body, fast.name, b.body)))
			}
		}
		if rs.after != rf.after {
			diffs = append(diffs, fmt.Sprintf("after the answers: %s: %s; %s: %s", slow.name, rs.after, fast.name, rf.after))
		} else if s.closes && rs.after != "closed" {
			t.Errorf("step %d (%s): neither edge closed the connection after the answer to Connection: close: %s", i, s.name, rs.after)
		}
		if len(diffs) > 0 {
			differing++
			t.Errorf("step %d (%s): the edges answer differently.\nrequest bytes: %q\n%s", i, s.name, s.raw, strings.Join(diffs, "\n"))
			// Later steps start on fresh connections of both.
			slow.hangUp()
			fast.hangUp()
		}
		// The answers net/http served on the slow edge but not on the
		// fast one were answered outside it.
		if rs.handled != int64(len(s.methods)) && rs.handled != 0 {
			// Some answers are net/http's own (400): they are not
			// handled on either edge.
			t.Logf("step %d (%s): net/http handed %d of %d requests to the handler", i, s.name, rs.handled, len(s.methods))
		}
		got := int(rs.handled - rf.handled)
		fastSeen += got
		if s.fast >= 0 && got != s.fast && len(diffs) == 0 {
			t.Errorf("step %d (%s): %d requests answered outside net/http on the fast edge, want %d", i, s.name, got, s.fast)
		}
	}
	if fastSeen == 0 {
		t.Errorf("no request was answered outside net/http on the edge with --edge-fast-hits: the fast path was not exercised")
	}
	t.Logf("%d steps, %d answered outside net/http on the fast edge, %d steps answered differently", len(script), fastSeen, differing)
}

// compareAccessLogs stops both edges and compares their access logs.
func compareAccessLogs(t *testing.T, slow, fast *diffEdge) {
	t.Helper()
	// The access logs: one line per request, the same on both edges once
	// they have stopped (and so written every line), but for the request
	// IDs, remote ports and durations.
	for _, e := range []*diffEdge{slow, fast} {
		e.hangUp()
		e.node.stop()
	}
	ls, lf := accessLines(t, slow.log.String()), accessLines(t, fast.log.String())
	if !slices.Equal(ls, lf) {
		t.Errorf("the access logs differ:\n%s", lineDiff(slow.name, ls, fast.name, lf))
	}
}

func errNote(err string) string {
	if err == "" {
		return ""
	}
	return "(error: " + err + ")"
}

// bodyDiff describes how two bodies differ.
func bodyDiff(na string, a []byte, nb string, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	show := func(p []byte) string {
		p = p[i:]
		if len(p) > 200 {
			p = p[:200]
		}
		return strconv.Quote(string(p))
	}
	return fmt.Sprintf("%s %d bytes, %s %d bytes, first difference at byte %d: %s: %s; %s: %s",
		na, len(a), nb, len(b), i, na, show(a), nb, show(b))
}

// accessLines returns the access-log lines of log (message "request")
// with the fields that do not vary between two runs of the same request,
// sorted: a pipelined hit answered outside net/http may be logged before
// the answer before it. The probes of closed connections are left out.
func accessLines(t *testing.T, log string) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) != nil || m["message"] != "request" || m["key"] == probeKey {
			continue
		}
		for _, k := range []string{"request_id", "remote", "duration_us", "time"} {
			delete(m, k)
		}
		b, err := json.Marshal(m) // keys sorted
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if len(lines) == 0 {
		t.Errorf("no access-log lines in the log:\n%s", log)
	}
	slices.Sort(lines)
	return lines
}

// lineDiff lists the lines only one of two sorted lists holds.
func lineDiff(na string, a []string, nb string, b []string) string {
	var out []string
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0] < b[0]:
			out = append(out, "only "+na+": "+a[0])
			a = a[1:]
		case len(a) == 0 || b[0] < a[0]:
			out = append(out, "only "+nb+": "+b[0])
			b = b[1:]
		default:
			a, b = a[1:], b[1:]
		}
	}
	return strings.Join(out, "\n")
}
