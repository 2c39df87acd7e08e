package httpintercept

import "testing"

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
