package api_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A request with two Connection header lines, the second one "close":
// net/http closes after the answer and says "Connection: close" (it looks
// at every Connection line: shouldClose/HeaderValuesContainsToken);
// httpintercept.Request.WantsClose looks at the first line only, so the
// fast hit keeps the connection open and omits the header.
func TestReviewEdgeFastHitSecondConnectionClose(t *testing.T) {
	fe := startFastEdge(t, false)
	sc, sbr := dial(t, fe.slow)
	roundTrip(t, sc, sbr, "GET", "/bkt/small.txt") // fill
	extra := []string{"Connection: keep-alive", "Connection: close"}
	for _, tc := range []struct{ name, addr string }{{"net/http", fe.slow}, {"fast", fe.fast}} {
		c, br := dial(t, tc.addr)
		r := roundTrip(t, c, br, "GET", "/bkt/small.txt", extra...)
		if r.header("X-Cache") != "HIT" {
			t.Fatalf("%s: not a hit: %q", tc.name, r.head)
		}
		if got := r.header("Connection"); got != "close" {
			t.Errorf("%s: Connection header %q, want close\n%s", tc.name, got, strings.TrimSpace(r.head))
		}
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("%s: connection not closed after the answer: %v", tc.name, err)
		}
	}
}

// startOddEdge is startFastEdge with an origin of odd objects.
func startOddEdge(t *testing.T) (fast, slow string) {
	t.Helper()
	fe := serveFastEdge(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Cache-Control"] = []string{"max-age=3600"}
		var body string
		switch r.URL.Path {
		case "/bkt/empty":
			h["Content-Type"] = []string{"text/plain"}
		case "/bkt/odd":
			body = "odd"
			h["Content-Type"] = []string{"  text/plain; charset=utf-8 \t"}
			h["Content-Language"] = []string{"en", "fr"}
			h["Content-Encoding"] = []string{"identity"}
			h["X-Amz-Meta-Utf8"] = []string{"h\xc3\xa9llo"}
			h["X-Amz-Meta-Empty"] = []string{""}
			h["X-Amz-Meta-Zz"] = []string{"last"}
			h["X-Amz-Meta-A"] = []string{"first"}
			h["Expires"] = []string{"Thu, 01 Jan 2099 00:00:00 GMT"}
		default:
			w.WriteHeader(http.StatusNotFound)
			return
		}
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		if r.Method != http.MethodHead {
			io.WriteString(w, body)
		}
	}), false)
	return fe.fast, fe.slow
}

func TestReviewEdgeFastHitOddObjects(t *testing.T) {
	fast, slow := startOddEdge(t)
	sc, sbr := dial(t, slow)
	for _, key := range []string{"/bkt/empty", "/bkt/odd"} {
		roundTrip(t, sc, sbr, "GET", key)
	}
	for _, key := range []string{"/bkt/empty", "/bkt/odd"} {
		for _, method := range []string{"GET", "HEAD"} {
			sc, sbr := dial(t, slow)
			fc, fbr := dial(t, fast)
			s := roundTrip(t, sc, sbr, method, key)
			f := roundTrip(t, fc, fbr, method, key)
			if a, b := varying.ReplaceAllString(s.head, "$1: -\r"), varying.ReplaceAllString(f.head, "$1: -\r"); a != b {
				t.Errorf("%s %s: heads differ\nnet/http:\n%q\nfast:\n%q", method, key, a, b)
			}
			if string(s.body) != string(f.body) {
				t.Errorf("%s %s: bodies differ: net/http %q fast %q\n%s", method, key, s.body, f.body, s.head)
			}
		}
	}
}
