//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le || s390x)

package rawread

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// pair returns the accepted end of a loopback TCP connection, through
// Listener, and the dialled end.
func pair(t *testing.T) (*Conn, *net.TCPConn) {
	t.Helper()
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Listener(tl)
	defer ln.Close()
	d, err := net.Dial("tcp", tl.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		d.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); d.Close() })
	rc, ok := c.(*Conn)
	if !ok {
		t.Fatalf("Accept returned %T, not *rawread.Conn", c)
	}
	if _, ok := rc.NetConn().(*net.TCPConn); !ok {
		t.Fatalf("NetConn returned %T", rc.NetConn())
	}
	return rc, d.(*net.TCPConn)
}

func TestReadThenEOF(t *testing.T) {
	c, peer := pair(t)
	want := make([]byte, 8<<20)
	rand.NewChaCha8([32]byte{7}).Read(want)
	go func() {
		peer.Write(want)
		peer.CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}
	if n, err := c.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("after the end: %d, %v; want 0, io.EOF", n, err)
	}
	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Fatalf("empty read: %d, %v", n, err)
	}
}

// TestReadWaitsInThePoller: a read with no bytes there waits for them.
func TestReadWaitsInThePoller(t *testing.T) {
	c, peer := pair(t)
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 64)
		n, err := c.Read(b)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(b[:n])
	}()
	// Whether the read started before this write or not, it must
	// return these bytes.
	if _, err := peer.Write([]byte("GET / HTTP/1.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "GET / HTTP/1.1\r\n\r\n" {
		t.Fatalf("read %q", s)
	}
}

func TestReadDeadline(t *testing.T) {
	c, peer := pair(t)
	c.SetReadDeadline(time.Now().Add(-time.Second))
	n, err := c.Read(make([]byte, 10))
	var ne net.Error
	if n != 0 || !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %d, %v; want a timeout", n, err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "read" || oe.Net != "tcp" || oe.Addr == nil || oe.Source == nil {
		t.Fatalf("error %#v is not the net package's *net.OpError of a read", err)
	}
	// A deadline in the future lets the read through.
	c.SetReadDeadline(time.Now().Add(time.Hour))
	if _, err := peer.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 10)); n != 1 || err != nil {
		t.Fatalf("read under a later deadline: %d, %v", n, err)
	}
}

// TestDeadlineFromAnotherGoroutine: net/http ends a read waiting in the
// poller by setting a deadline in the past from another goroutine.
func TestDeadlineFromAnotherGoroutine(t *testing.T) {
	c, _ := pair(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		errc <- err
	}()
	c.SetReadDeadline(time.Unix(1, 0))
	if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read across SetReadDeadline in the past: %v; want os.ErrDeadlineExceeded", err)
	}
}

// TestReadOrdersMemory: what the peer's goroutine wrote before sending is
// seen after the raw read, for the race detector as for the program
// (under -race this fails if the read does not tell the detector, as
// syscall.Read does).
func TestReadOrdersMemory(t *testing.T) {
	c, peer := pair(t)
	var x int
	go func() {
		x = 1
		peer.Write([]byte("ping"))
	}()
	if _, err := io.ReadFull(c, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	if x != 1 {
		t.Fatal("the write before the send is not seen after the read")
	}
}

func TestReadClosed(t *testing.T) {
	c, _ := pair(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		errc <- err
	}()
	c.Close()
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read across Close: %v; want net.ErrClosed", err)
	}
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v; want net.ErrClosed", err)
	}
}

func TestReadReset(t *testing.T) {
	c, peer := pair(t)
	peer.SetLinger(0)
	peer.Close() // sends RST
	var err error
	for err == nil {
		_, err = c.Read(make([]byte, 10))
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read of a reset connection: %v; want ECONNRESET", err)
	}
	var se *os.SyscallError
	if !errors.As(err, &se) || se.Syscall != "read" {
		t.Fatalf("error %#v does not name the read system call", err)
	}
}

// TestWritesAreTheTCPConns: ReadFrom (sendfile) and the rest are the
// *net.TCPConn's.
func TestWritesAreTheTCPConns(t *testing.T) {
	c, peer := pair(t)
	data := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{9}).Read(data)
	name := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	go func() {
		io.Copy(c, f)
		c.CloseWrite()
	}()
	got, err := io.ReadAll(peer)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("peer read %d bytes, not the file's %d", len(got), len(data))
	}
}

func TestOtherConnectionsPassThrough(t *testing.T) {
	ul, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	ln := Listener(ul)
	defer ln.Close()
	d, err := net.Dial("unix", ul.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*net.UnixConn); !ok {
		t.Fatalf("a Unix connection came back as %T", c)
	}
}
