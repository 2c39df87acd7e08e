package httpintercept

import (
	"bufio"
	"bytes"
	"net/http"
	"slices"
	"testing"

	"golang.org/x/net/http/httpguts"
)

func TestParseHead(t *testing.T) {
	cases := []struct {
		head string
		want verdict
	}{
		{"GET /a HTTP/1.1\r\nHost: h\r\n\r\n", offer},
		{"HEAD /a?b=%2F HTTP/1.1\r\nHost: h:80\r\nContent-Length: 0\r\n\r\n", offer},
		{"GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n", passThrough},
		{"GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n", passThrough},
		{"GET /a HTTP/1.1\r\nHost: h\r\ntransfer-encoding: chunked\r\n\r\n", passThrough},
		{"GET /a HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n", passThrough},
		{"GET /a HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n", passThrough},
		{"GET /a HTTP/1.0\r\nHost: h\r\n\r\n", passThrough},
		{"CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n", passThrough},
		{"GET /a HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", passThrough},
		{"GET /a HTTP/1.1\r\nHost: h\r\nX\x01: v\r\n\r\n", passThrough},
		{"GET /a\x7f HTTP/1.1\r\nHost: h\r\n\r\n", passThrough},
		{"DELETE /a HTTP/1.1\r\nHost: h\r\n\r\n", handOver},
		{"GET /a HTTP/1.1\r\n\r\n", handOver},
		{"GET /a HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n", handOver},
		{"GET http://h/a HTTP/1.1\r\nHost: h\r\n\r\n", handOver},
		{"GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n", handOver},
	}
	var r Request
	for _, tc := range cases {
		end, v, _ := scanHead([]byte(tc.head), 0)
		if v != needMore || end != len(tc.head) {
			t.Fatalf("scanHead(%q) = %d, %d", tc.head, end, v)
		}
		if got := parseHead([]byte(tc.head), &r); got != tc.want {
			t.Errorf("parseHead(%q) = %d, want %d", tc.head, got, tc.want)
		}
	}
}

func TestScanHead(t *testing.T) {
	for _, tc := range []struct {
		in   string
		end  int
		want verdict
	}{
		{"GET / HTTP/1.1\r\nHost: h\r\n", 0, needMore},
		{"GET / HTTP/1.1\r\nHost: h\r\n\r\nGET", 27, needMore},
		{"GET / HTTP/1.1\nHost: h\r\n", 0, passThrough},
		{"\r\nGET / HTTP/1.1\r\n\r\n", 0, passThrough},
		{"\n", 0, passThrough},
	} {
		end, v, _ := scanHead([]byte(tc.in), 0)
		if end != tc.end || v != tc.want {
			t.Errorf("scanHead(%q) = %d, %d; want %d, %d", tc.in, end, v, tc.end, tc.want)
		}
	}
	// Resuming gives the same answer as scanning at once.
	in := []byte("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
	from := 0
	for i := 1; i <= len(in); i++ {
		var end int
		end, _, from = scanHead(in[:i], from)
		if (end != 0) != (i == len(in)) {
			t.Fatalf("at %d: end %d", i, end)
		}
	}
}

func TestParseHeadAllocs(t *testing.T) {
	h := []byte("GET /hit/a HTTP/1.1\r\nHost: h\r\nUser-Agent: x\r\nAccept: */*\r\nConnection: close\r\n\r\n")
	var r Request
	allocs := testing.AllocsPerRun(100, func() {
		if parseHead(h, &r) != offer || !r.WantsClose() {
			t.Fatal("not offered")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per head", allocs)
	}
}

// FuzzParseHead checks scanHead and parseHead against net/http on the
// same bytes: a head they hand over or offer is one net/http reads as a
// request without a body, ending where scanHead says (so the next
// request starts at the same byte for both); an offered head is one
// net/http's server accepts (its Host and header checks) with the same
// method, target, Host, header lines and Connection: close.
func FuzzParseHead(f *testing.F) {
	for _, seed := range []string{
		// Offered, with a pipelined request after it.
		"GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n",
		"HEAD /a?b=%2F HTTP/1.1\r\nHost: h:80\r\nContent-Length: 0\r\nConnection: keep-alive, close\r\n\r\n",
		"GET /a HTTP/1.1\r\nhost: h\r\nUser-Agent: \x80\xff\r\nAccept:\t*/*\t\r\n\r\n",
		// Handed over.
		"POST /a HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET http://h/a HTTP/1.1\r\nHost: h\r\n\r\n",
		// Passed through: bodies, folding, bare CR and LF.
		"GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: h\r\nX: a\r\n Content-Length: 5\r\n\r\nabcde",
		"GET /a HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n",
		"GET /a HTTP/1.1\nHost: h\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		end, v, _ := scanHead(b, 0)
		if v == passThrough || end == 0 {
			return
		}
		var r Request
		v = parseHead(b[:end], &r)
		if v == passThrough {
			return
		}
		rd := bytes.NewReader(b)
		br := bufio.NewReader(rd)
		req, err := http.ReadRequest(br)
		if err != nil {
			if v == offer {
				t.Fatalf("offered, net/http refuses it: %v\n%q", err, b[:end])
			}
			return
		}
		if req.ContentLength != 0 || len(req.TransferEncoding) > 0 || req.Body != http.NoBody {
			t.Fatalf("verdict %d, net/http reads a body (Content-Length %d, %q)\n%q", v, req.ContentLength, req.TransferEncoding, b[:end])
		}
		if left := br.Buffered() + rd.Len(); left != len(b)-end {
			t.Fatalf("net/http's head is %d bytes, scanHead's %d\n%q", len(b)-left, end, b)
		}
		if v != offer {
			return
		}
		// http.ReadRequest moves Host out of the header; net/http's
		// server checks it and every header line first.
		if !httpguts.ValidHostHeader(req.Host) {
			t.Fatalf("offered, net/http's server refuses the Host %q\n%q", req.Host, b[:end])
		}
		lines := 0
		for k, vs := range req.Header {
			if !httpguts.ValidHeaderFieldName(k) {
				t.Fatalf("offered, net/http's server refuses the header name %q\n%q", k, b[:end])
			}
			for _, hv := range vs {
				if !httpguts.ValidHeaderFieldValue(hv) {
					t.Fatalf("offered, net/http's server refuses the value %q\n%q", hv, b[:end])
				}
			}
			lines += len(vs)
		}
		if req.Method != r.Method || req.RequestURI != string(r.Target) || req.Host != string(r.Host) || req.Close != r.WantsClose() {
			t.Fatalf("offered as %s %q Host %q close %v; net/http reads %s %q Host %q close %v\n%q", r.Method, r.Target, r.Host, r.WantsClose(),
				req.Method, req.RequestURI, req.Host, req.Close, b[:end])
		}
		if lines != len(r.Header)-1 {
			t.Fatalf("%d header lines besides Host, net/http reads %d\n%q", len(r.Header)-1, lines, b[:end])
		}
		for _, hf := range r.Header {
			if equalFold(hf.Name, "Host") {
				continue
			}
			if !slices.Contains(req.Header.Values(string(hf.Name)), string(hf.Value)) {
				t.Fatalf("header %q: %q, net/http reads %q\n%q", hf.Name, hf.Value, req.Header.Values(string(hf.Name)), b[:end])
			}
		}
	})
}
