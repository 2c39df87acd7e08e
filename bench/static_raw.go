package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// rawStatic answers GET and HEAD of files on raw connections, outside
// net/http: the request line and headers are read with one bufio.Reader
// per connection and not kept, the response header is built in a buffer
// of the connection's and written with one write, and the file follows
// with sendfile (net.TCPConn.ReadFrom of the *os.File). It is the least a
// Go server can spend on a GET of a file, the figure a cache hit outside
// net/http is measured against (docs/performance.md, "Edge hits"), and is
// meant for loopback benchmarks only: it understands keep-alive,
// Connection: close and HTTP/1.0, and answers anything else (another
// method, a request with a body, a header block over 4 KiB) with an error
// and a closed connection.
type rawStatic struct {
	root *os.Root

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	files map[string]rawFile
}

// rawFile is a file kept open, with what its answers need.
type rawFile struct {
	f       *os.File
	size    int64
	modTime time.Time
}

// serveRaw serves s on ln until ctx ends.
func serveRaw(ctx context.Context, ln net.Listener, root *os.Root) error {
	s := &rawStatic{root: root, conns: map[net.Conn]struct{}{}, files: map[string]rawFile{}}
	go func() {
		<-ctx.Done()
		ln.Close()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
	}()
	defer func() {
		s.mu.Lock()
		for _, rf := range s.files {
			rf.f.Close()
		}
		s.mu.Unlock()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		go func() {
			s.serveConn(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

// rawRequest is what serveConn keeps of a request.
type rawRequest struct {
	head      bool // HEAD, else GET
	path      string
	keepAlive bool
}

var errRawRequest = errors.New("bench: a request the raw static server does not serve")

// readRawRequest reads one request's line and headers from br.
func readRawRequest(br *bufio.Reader) (rawRequest, error) {
	var rq rawRequest
	line, err := br.ReadSlice('\n')
	if err != nil {
		return rq, err
	}
	line = bytes.TrimRight(line, "\r\n")
	method, rest, ok1 := bytes.Cut(line, []byte(" "))
	target, proto, ok2 := bytes.Cut(rest, []byte(" "))
	switch {
	case !ok1 || !ok2 || len(target) == 0 || target[0] != '/':
		return rq, errRawRequest
	case string(method) == http.MethodGet:
	case string(method) == http.MethodHead:
		rq.head = true
	default:
		return rq, errRawRequest
	}
	switch string(proto) {
	case "HTTP/1.1":
		rq.keepAlive = true
	case "HTTP/1.0":
	default:
		return rq, errRawRequest
	}
	path, _, _ := bytes.Cut(target, []byte("?"))
	rq.path = string(path)
	for {
		h, err := br.ReadSlice('\n')
		if err != nil {
			// ErrBufferFull too: a header line over the buffer.
			return rq, errRawRequest
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			return rq, nil
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return rq, errRawRequest
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				rq.keepAlive = false
			} else if bytes.EqualFold(value, []byte("keep-alive")) {
				rq.keepAlive = true
			}
		case bytes.EqualFold(name, []byte("Content-Length")) && !bytes.Equal(value, []byte("0")),
			bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return rq, errRawRequest
		}
	}
}

func (s *rawStatic) serveConn(c net.Conn) {
	tc, _ := c.(*net.TCPConn)
	br := bufio.NewReaderSize(c, 4096)
	out := make([]byte, 0, 512)
	for {
		c.SetReadDeadline(time.Now().Add(2 * time.Minute))
		rq, err := readRawRequest(br)
		if errors.Is(err, errRawRequest) {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			// Read what the client still sends for a moment, so that
			// closing with unread bytes does not reset the connection
			// before the client has read the answer.
			if tc != nil {
				tc.CloseWrite()
				c.SetReadDeadline(time.Now().Add(time.Second))
				io.Copy(io.Discard, io.LimitReader(c, 1<<20))
			}
			return
		}
		if err != nil {
			return
		}
		c.SetWriteDeadline(time.Now().Add(2 * time.Minute))
		if !s.answer(c, tc, &out, rq) || !rq.keepAlive {
			return
		}
	}
}

// open returns the kept descriptor of rel, opening it at its first GET;
// ok is false when rel is not a regular file.
func (s *rawStatic) open(rel string) (rawFile, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rf, ok := s.files[rel]; ok {
		return rf, true
	}
	f, err := s.root.Open(rel)
	if err != nil {
		return rawFile{}, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return rawFile{}, false
	}
	rf := rawFile{f: f, size: fi.Size(), modTime: fi.ModTime()}
	s.files[rel] = rf
	return rf, true
}

// answer writes the answer to rq; false when the connection must close.
func (s *rawStatic) answer(c net.Conn, tc *net.TCPConn, out *[]byte, rq rawRequest) bool {
	b := (*out)[:0]
	defer func() { *out = b[:0] }()
	rel, bucket, ok := staticPath(rq.path)
	var rf rawFile
	if ok && !bucket {
		rf, ok = s.open(rel)
	}
	if !ok || bucket {
		b = append(b, "HTTP/1.1 404 Not Found\r\nContent-Length: 0"...)
		b = rawTail(b, rq.keepAlive)
		_, err := c.Write(b)
		return err == nil
	}
	b = append(b, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: "...)
	b = strconv.AppendInt(b, rf.size, 10)
	b = append(b, "\r\nLast-Modified: "...)
	b = rf.modTime.UTC().AppendFormat(b, http.TimeFormat)
	b = rawTail(b, rq.keepAlive)
	if _, err := c.Write(b); err != nil || rq.head {
		return err == nil
	}
	if tc == nil {
		n, err := io.Copy(c, io.NewSectionReader(rf.f, 0, rf.size))
		return err == nil && n == rf.size
	}
	return sendFile(tc, rf.f, rf.size) == nil
}

// sendFile sends the size bytes of f to tc with sendfile at explicit
// offsets, which leave f's own offset alone, so that one descriptor serves
// every connection at once.
func sendFile(tc *net.TCPConn, f *os.File, size int64) error {
	rc, err := tc.SyscallConn()
	if err != nil {
		return err
	}
	src, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var off int64
	var serr error
	cerr := src.Control(func(in uintptr) {
		for off < size && serr == nil {
			werr := rc.Write(func(out uintptr) bool {
				o := off
				n, err := syscall.Sendfile(int(out), int(in), &o, int(min(size-off, 1<<30)))
				if n > 0 {
					off += int64(n)
				}
				if err == syscall.EAGAIN {
					return false
				}
				if err == nil && n == 0 {
					err = io.ErrUnexpectedEOF // the file shrank
				}
				serr = err
				return true
			})
			if werr != nil {
				serr = werr
			}
		}
	})
	if cerr != nil {
		return cerr
	}
	return serr
}

// rawTail ends a response header: Date, Connection when it closes.
func rawTail(b []byte, keepAlive bool) []byte {
	b = append(b, "\r\nDate: "...)
	b = time.Now().UTC().AppendFormat(b, http.TimeFormat)
	if !keepAlive {
		b = append(b, "\r\nConnection: close"...)
	}
	return append(b, "\r\n\r\n"...)
}
