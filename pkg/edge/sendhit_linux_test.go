package edge

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// writeTestFile writes n pseudo-random bytes to a new file and returns it
// open for reading, with its content.
func writeTestFile(t *testing.T, n int) (*os.File, []byte) {
	t.Helper()
	data := make([]byte, n)
	rand.NewChaCha8([32]byte{1}).Read(data)
	name := filepath.Join(t.TempDir(), "obj")
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, data
}

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server *net.TCPConn, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		client.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); client.Close() })
	return c.(*net.TCPConn), client
}

func TestCachestatResident(t *testing.T) {
	size := 3*int(pageSize) + 100
	f, data := writeTestFile(t, size)
	fd := int(f.Fd())
	pc := &cachestat{call: cachestatRaw}
	if !pc.resident(fd, 0, int64(size)) {
		if pc.missing.Load() {
			t.Skip("cachestat(2) is missing here: every sendfile goes through the scheduler")
		}
		if !pageCacheFS(filepath.Dir(f.Name())) {
			t.Skip("the test's directory is on a file system the edge does not send from raw (overlay, NFS, FUSE …)")
		}
		t.Fatal("the pages of a file just written are not reported in the page cache")
	}
	if !pc.resident(fd, pageSize+1, 10) {
		t.Error("a range inside the file is not reported in the page cache")
	}
	if pc.resident(fd, 0, int64(size)+4*pageSize) {
		t.Error("a range running past the end of the file is reported in the page cache")
	}
	if pc.resident(fd, 0, 0) || pc.resident(fd, -1, 10) {
		t.Error("an empty or negative range is reported in the page cache")
	}
	if pc.missing.Load() {
		t.Error("a working cachestat was marked missing")
	}

	// What a disk allows: raw only from a file system that allows it,
	// while no send from the disk goes through the scheduler.
	d := &disk{}
	if d.rawSendOK(fd, 0, int64(size)) {
		t.Error("raw send allowed from a disk whose file system was not checked")
	}
	d.rawSendfile.Store(true)
	if !d.rawSendOK(fd, 0, int64(size)) {
		t.Error("raw send refused for cached pages")
	}
	d.slowSends.Add(1)
	if d.rawSendOK(fd, 0, int64(size)) {
		t.Error("raw send allowed while a send from the disk goes through the scheduler")
	}
	d.slowSends.Add(-1)

	t.Run("evicted", func(t *testing.T) {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
		if pc.resident(fd, 0, int64(size)) {
			// tmpfs and some others keep the pages of a file for its life.
			t.Skip("this file system kept the pages after POSIX_FADV_DONTNEED")
		}
		if d.rawSendOK(fd, 0, int64(size)) {
			t.Fatal("raw send allowed for pages not in the page cache")
		}
		// The slow path serves it all the same.
		server, client := tcpPair(t)
		go func() {
			sendHit(server, []byte("head\n"), f, 0, int64(size), d)
			server.CloseWrite()
		}()
		got, err := io.ReadAll(client)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, append([]byte("head\n"), data...)) {
			t.Fatalf("got %d bytes, not the head and the %d bytes of the file", len(got), size)
		}
		if n := d.slowSends.Load(); n != 0 {
			t.Fatalf("%d sends still counted as under way", n)
		}
	})
}

func TestCachestatMissing(t *testing.T) {
	f, data := writeTestFile(t, 200<<10)
	fd := int(f.Fd())
	// A kernel before 6.5 answers ENOSYS: cachestat is not asked again.
	calls := 0
	pc := &cachestat{call: func(int, int64, int64) (uint64, syscall.Errno) { calls++; return 0, syscall.ENOSYS }}
	if pc.resident(fd, 0, int64(len(data))) || pc.resident(fd, 0, int64(len(data))) {
		t.Fatal("resident without cachestat")
	}
	if !pc.missing.Load() || calls != 1 {
		t.Fatalf("after ENOSYS: missing %v, %d calls; want true, 1", pc.missing.Load(), calls)
	}
	// EPERM (a file the process may not write, on kernels that check)
	// says nothing of the next file.
	calls = 0
	pc = &cachestat{call: func(int, int64, int64) (uint64, syscall.Errno) { calls++; return 0, syscall.EPERM }}
	if pc.resident(fd, 0, 10) || pc.resident(fd, 0, 10) || pc.missing.Load() || calls != 2 {
		t.Fatalf("after EPERM: missing %v, %d calls; want false, 2", pc.missing.Load(), calls)
	}

	// A disk that does not allow raw sends sends the same bytes.
	server, client := tcpPair(t)
	raw, err := server.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	d := &disk{}
	done := make(chan error, 1)
	go func() {
		off, end := int64(1000), int64(len(data))
		var serr error
		werr := raw.Write(func(sfd uintptr) bool {
			for off < end {
				_, e := sendfileNoPark(d, int(sfd), fd, &off, int(end-off))
				if e == unix.EAGAIN {
					return false
				}
				if e != nil {
					serr = e
					return true
				}
			}
			return true
		})
		server.CloseWrite()
		done <- errors.Join(werr, serr)
	}()
	got, err := io.ReadAll(client)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data[1000:]) {
		t.Fatalf("got %d bytes, want the %d from offset 1000", len(got), len(data)-1000)
	}
	if n := d.slowSends.Load(); n != 0 {
		t.Fatalf("%d sends still counted as under way", n)
	}
}

// TestSendHitFillsTheSocket sends a body far larger than the socket's
// buffers to a reader that takes it in small pieces, so that the raw
// sendfile returns EAGAIN many times and the hit waits for the socket
// through the poller between them.
func TestSendHitFillsTheSocket(t *testing.T) {
	f, data := writeTestFile(t, 8<<20)
	d := &disk{}
	d.rawSendfile.Store(pageCacheFS(filepath.Dir(f.Name())))
	server, client := tcpPair(t)
	if err := server.SetWriteBuffer(64 << 10); err != nil {
		t.Fatal(err)
	}
	head := []byte("HTTP/1.1 200 OK\r\nContent-Length: 8388595\r\n\r\n")
	const off = 13
	done := make(chan error, 1)
	go func() {
		err := sendHit(server, head, f, off, int64(len(data)-off), d)
		server.CloseWrite()
		done <- err
	}()
	var got bytes.Buffer
	buf := make([]byte, 4<<10)
	for {
		client.SetReadDeadline(time.Now().Add(time.Minute))
		n, err := client.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte(nil), head...), data[off:]...)
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("got %d bytes, want %d: the head and the file from offset %d", got.Len(), len(want), off)
	}
	if n := d.slowSends.Load(); n != 0 {
		t.Fatalf("%d sends still counted as under way", n)
	}
}

// TestRawSendsOrderMemory: what a goroutine wrote before a raw send is
// seen by the goroutine that read the bytes sent, for the race detector
// as for the program (under -race this fails if the sends do not tell
// the detector, as syscall.Write does).
func TestRawSendsOrderMemory(t *testing.T) {
	f, data := writeTestFile(t, 64<<10)
	d := &disk{}
	d.rawSendfile.Store(pageCacheFS(filepath.Dir(f.Name())))
	for _, tc := range []struct {
		name string
		send func(w io.Writer) error
		n    int
	}{
		{"bytes", func(w io.Writer) error { return sendBytes(w, []byte("head and body")) }, 13},
		{"file", func(w io.Writer) error { return sendHit(w, []byte("head"), f, 0, int64(len(data)), d) }, 4 + len(data)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server, client := tcpPair(t)
			var x int
			go func() {
				x = 1
				if err := tc.send(server); err != nil {
					t.Error(err)
				}
			}()
			if _, err := io.ReadFull(client, make([]byte, tc.n)); err != nil {
				t.Fatal(err)
			}
			if x != 1 {
				t.Fatal("the write before the send is not seen after the read")
			}
		})
	}
}

// BenchmarkCachestat is the price of asking before a raw sendfile.
func BenchmarkCachestat(b *testing.B) {
	for _, n := range []int{100 << 10, 1 << 20, 4 << 20} {
		data := make([]byte, n)
		name := filepath.Join(b.TempDir(), "obj")
		if err := os.WriteFile(name, data, 0o600); err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strconv.Itoa(n>>10)+"KiB", func(b *testing.B) {
			for range b.N {
				if !pageCache.resident(int(f.Fd()), 0, int64(n)) {
					b.Fatal("not in the page cache")
				}
			}
		})
		f.Close()
	}
}
