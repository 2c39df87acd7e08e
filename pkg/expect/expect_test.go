package expect

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// chunkConn is a net.Conn whose Read returns its data at most chunk bytes
// at a time, as a network may cut it.
type chunkConn struct {
	net.Conn
	data  []byte
	chunk int
	// readFrom counts the calls of ReadFrom.
	readFrom int
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func (c *chunkConn) ReadFrom(r io.Reader) (int64, error) {
	c.readFrom++
	return io.Copy(io.Discard, r)
}

// readAll reads c through a buffer of size p, as net/http's bufio.Reader
// (4 KiB) or its background read (1 byte) do.
func readAll(t *testing.T, c net.Conn, p int) []byte {
	t.Helper()
	var out []byte
	buf := make([]byte, p)
	for range 1 << 20 {
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no end")
	return nil
}

// renamed is in with the Expect header of each line in lines renamed.
func renamed(in string, lines ...string) string {
	for _, l := range lines {
		in = strings.Replace(in, "\r\n"+l, "\r\n"+WireName+l[len(WireName):], 1)
	}
	return in
}

var wireCases = []struct {
	name, in, want string
}{
	{"Expect: 200 renamed", "PUT /b/k HTTP/1.1\r\nHost: x\r\nExpect: 200\r\nContent-Length: 0\r\n\r\n",
		renamed("PUT /b/k HTTP/1.1\r\nHost: x\r\nExpect: 200\r\nContent-Length: 0\r\n\r\n", "Expect: 200")},
	{"lower case name", "GET / HTTP/1.1\r\nexpect: foo\r\n\r\n", "GET / HTTP/1.1\r\n" + WireName + ": foo\r\n\r\n"},
	{"100-continue kept", "PUT /b/k HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc", ""},
	{"100-continue among others kept", "PUT /b/k HTTP/1.1\r\nExpect: 100-Continue, x\r\nContent-Length: 3\r\n\r\nabc", ""},
	{"empty Expect kept", "GET / HTTP/1.1\r\nExpect: \r\n\r\n", ""},
	{"not a line start", "GET / HTTP/1.1\r\nX-Expect: 200\r\nX: Expect: 200\r\n\r\n", ""},
	{"request line kept", "Expect: 200\r\nHost: x\r\n\r\n", ""},
	{"body not touched, next request renamed",
		"PUT /k HTTP/1.1\r\nContent-Length: 15\r\n\r\n\r\nExpect: 200\r\n\r\nGET /k HTTP/1.1\r\nExpect: 200\r\n\r\n",
		"PUT /k HTTP/1.1\r\nContent-Length: 15\r\n\r\n\r\nExpect: 200\r\n\r\nGET /k HTTP/1.1\r\n" + WireName + ": 200\r\n\r\n"},
	{"bare LF lines", "GET / HTTP/1.1\nExpect: 200\n\nGET / HTTP/1.1\nExpect: 201\n\n",
		"GET / HTTP/1.1\n" + WireName + ": 200\n\nGET / HTTP/1.1\n" + WireName + ": 201\n\n"},
	{"chunked passes through", "PUT /k HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab\r\nExpect: 1\r\n\r\n", ""},
	{"invalid Content-Length passes through", "PUT /k HTTP/1.1\r\nContent-Length: 1x\r\nExpect: 200\r\n\r\n", ""},
	{"differing Content-Length passes through", "PUT /k HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\nExpect: 200\r\n\r\nab", ""},
	{"long request line", "GET /" + strings.Repeat("a", 3*bufSize) + " HTTP/1.1\r\nExpect: 200\r\n\r\n",
		"GET /" + strings.Repeat("a", 3*bufSize) + " HTTP/1.1\r\n" + WireName + ": 200\r\n\r\n"},
	{"Expect line over the buffer passes through", "GET / HTTP/1.1\r\nExpect: " + strings.Repeat("2", bufSize) + "\r\n\r\n", ""},
	{"long other header", "GET / HTTP/1.1\r\nX-Long: " + strings.Repeat("b", 2*bufSize) + "\r\nExpect: 200\r\n\r\n",
		"GET / HTTP/1.1\r\nX-Long: " + strings.Repeat("b", 2*bufSize) + "\r\n" + WireName + ": 200\r\n\r\n"},
}

// TestConnRenames checks the bytes handed to net/http for every way the
// network may cut the input and every read size net/http uses.
func TestConnRenames(t *testing.T) {
	for _, tc := range wireCases {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		for _, chunk := range []int{1, 2, 3, 7, 16, 100, 4096, 1 << 20} {
			for _, p := range []int{1, 5, 4096} {
				c := &conn{Conn: &chunkConn{data: []byte(tc.in), chunk: chunk}}
				if got := readAll(t, c, p); string(got) != want {
					t.Fatalf("%s, chunks of %d, reads of %d:\n got  %.300q\n want %.300q", tc.name, chunk, p, got, want)
				}
			}
		}
	}
}

// FuzzConn checks on any input that the output is the input with at most
// some "Expect" names at line starts renamed, the same however the input
// is cut.
func FuzzConn(f *testing.F) {
	for _, tc := range wireCases {
		f.Add([]byte(tc.in), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		whole := readAll(t, &conn{Conn: &chunkConn{data: bytes.Clone(in), chunk: 1 << 20}}, 4096)
		cut := readAll(t, &conn{Conn: &chunkConn{data: bytes.Clone(in), chunk: int(chunk) + 1}}, int(chunk)%7+1)
		if !bytes.Equal(whole, cut) {
			t.Fatalf("output depends on how the input is cut:\n%q\n%q", whole, cut)
		}
		if len(whole) != len(in) {
			t.Fatalf("%d bytes in, %d out", len(in), len(whole))
		}
		for i := 0; i < len(in); i++ {
			if whole[i] == in[i] {
				continue
			}
			// A renamed name starts at a line start at most five bytes
			// before the first byte that differs.
			start := -1
			for s := max(1, i-len(WireName)+1); s <= i && s+len(WireName) <= len(in); s++ {
				if in[s-1] == '\n' && bytes.EqualFold(in[s:s+len(WireName)], []byte("Expect")) && string(whole[s:s+len(WireName)]) == WireName {
					start = s
				}
			}
			if start < 0 {
				t.Fatalf("byte %d changed other than by renaming an Expect header: %.200q → %.200q", i, in, whole)
			}
			i = start + len(WireName) - 1
		}
	})
}

// TestConnForwards checks that the connection forwards ReadFrom, so that
// responses keep using sendfile, and CloseWrite.
func TestConnForwards(t *testing.T) {
	inner := &chunkConn{}
	c := &conn{Conn: inner}
	if _, err := c.ReadFrom(strings.NewReader("x")); err != nil || inner.readFrom != 1 {
		t.Fatalf("ReadFrom not forwarded: %d calls, %v", inner.readFrom, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wl := Listener(ln)
	go func() {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			defer c.Close()
			_, _ = io.Copy(io.Discard, c)
		}
	}()
	sc, err := wl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if err := sc.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatalf("CloseWrite: %v", err)
	}
}

// TestRestore checks that Restore gives the renamed values their name
// back after those net/http kept.
func TestRestore(t *testing.T) {
	h := http.Header{"Expect": {"100-continue"}, WireName: {"200"}}
	Restore(h)
	if got := h["Expect"]; len(got) != 2 || got[0] != "100-continue" || got[1] != "200" || h[WireName] != nil {
		t.Fatalf("after Restore: %v", h)
	}
	h = http.Header{"Host": {"x"}}
	Restore(h)
	if len(h) != 1 {
		t.Fatalf("Restore changed %v", h)
	}
}

// TestServerSeesExpect runs net/http over Listener: a request with
// Expect: 200 reaches the handler with its header, one with
// Expect: 100-continue still gets 100 Continue before its body.
func TestServerSeesExpect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Restore(r.Header)
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Expect", strings.Join(r.Header.Values("Expect"), ","))
		_, _ = w.Write(b)
	})}
	go func() { _ = srv.Serve(Listener(ln)) }()
	defer srv.Close()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(conn)
	if _, err := io.WriteString(conn, "PUT /k HTTP/1.1\r\nHost: x\r\nExpect: 200\r\nContent-Length: 3\r\n\r\nabc"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("X-Expect") != "200" || string(body) != "abc" {
		t.Fatalf("Expect: 200: %d, Expect %q, body %q", resp.StatusCode, resp.Header.Get("X-Expect"), body)
	}
	if _, err := io.WriteString(conn, "PUT /k HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err = http.ReadResponse(rd, nil)
	if err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("Expect: 100-continue: %v %v, want 100 Continue before the body", resp, err)
	}
	if _, err := io.WriteString(conn, "xyz"); err != nil {
		t.Fatal(err)
	}
	resp, err = http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("X-Expect") != "100-continue" || string(body) != "xyz" {
		t.Fatalf("after 100 Continue: %d, Expect %q, body %q", resp.StatusCode, resp.Header.Get("X-Expect"), body)
	}
}

// headConn returns the same request head on every Read.
type headConn struct {
	net.Conn
	head []byte
}

func (c headConn) Read(p []byte) (int, error) { return copy(p, c.head), nil }

// BenchmarkConnGetHead is what Listener costs a presigned GET's head on a
// kept-alive connection: a copy and a scan of its lines, no allocation.
func BenchmarkConnGetHead(b *testing.B) {
	head := []byte("GET /bucket/key?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20261201%2Fus-east-1%2Fs3%2Faws4_request" +
		"&X-Amz-Date=20261201T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=" + strings.Repeat("0", 64) + " HTTP/1.1\r\n" +
		"Host: 127.0.0.1:9000\r\nUser-Agent: wrk\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n")
	c := &conn{Conn: headConn{head: head}}
	p := make([]byte, 4096)
	b.SetBytes(int64(len(head)))
	b.ReportAllocs()
	for b.Loop() {
		for n := 0; n < len(head); {
			m, err := c.Read(p)
			if err != nil {
				b.Fatal(err)
			}
			n += m
		}
	}
}
