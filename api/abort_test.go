package api_test

// A response that fails after its status line went out must reach the
// client as an error (the connection aborted), never as a body that ends
// cleanly: a chunked body ended with its last chunk, or a short
// Content-Length body followed by a reused connection, would let a
// client or a CDN keep a truncated object as the whole one.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/byterange"
	"github.com/objectgateway/objectgateway/pkg/edge"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// dyingOrigin serves objects that die mid-body: the origin's connection
// is closed once the response crosses byte cutAt of the object.
type dyingObject struct {
	data         []byte
	cutAt        int64
	chunked      bool // no Content-Length: the body goes chunked
	cacheControl string
}

func dyingOrigin(t *testing.T, objects map[string]dyingObject) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ob, ok := objects[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		size := int64(len(ob.data))
		h := w.Header()
		h.Set("ETag", `"dying"`)
		h.Set("Last-Modified", "Wed, 01 May 2024 12:00:00 GMT")
		if ob.cacheControl != "" {
			h.Set("Cache-Control", ob.cacheControl)
		}
		rng, partial, err := byterange.Parse(r.Header.Get("Range"), size)
		if err != nil {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		status := http.StatusOK
		if partial {
			status = http.StatusPartialContent
			h.Set("Content-Range", rng.ContentRange(size))
		} else {
			rng = byterange.Range{Start: 0, Length: size}
		}
		if !ob.chunked {
			h.Set("Content-Length", strconv.FormatInt(rng.Length, 10))
		}
		w.WriteHeader(status)
		if r.Method == http.MethodHead {
			return
		}
		body := ob.data[rng.Start : rng.Start+rng.Length]
		if ob.cutAt > rng.Start && ob.cutAt < rng.Start+rng.Length {
			w.Write(body[:ob.cutAt-rng.Start])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// wantCut GETs url and checks that the answer started (200) and then
// failed: the body read ends in an error, with fewer bytes than size.
func wantCut(t *testing.T, what, u string, size int) {
	t.Helper()
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Get(u)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d, want 200 then a cut", what, resp.StatusCode)
	}
	if err == nil {
		t.Fatalf("%s: the body ended cleanly after %d of %d bytes (Content-Length %d, %v); want an error",
			what, len(body), size, resp.ContentLength, resp.TransferEncoding)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Logf("%s: body error %v", what, err)
	}
	if len(body) >= size {
		t.Fatalf("%s: %d bytes, want fewer than %d", what, len(body), size)
	}
}

// TestAbortEdgeOriginDiesMidBody checks the three ways an edge answers
// with bytes straight from the origin: a fill (cached slices, with
// Content-Length), a relayed object too large to cache (the origin's
// Content-Length), and a pass-through of a no-store object the origin
// sends chunked, which is what ended as a clean, truncated body.
func TestAbortEdgeOriginDiesMidBody(t *testing.T) {
	const slice = 64 << 10
	objects := map[string]dyingObject{
		"bkt/filled":  {data: bytes.Repeat([]byte("f"), 3*slice), cutAt: slice + slice/2},
		"bkt/relayed": {data: bytes.Repeat([]byte("r"), 1<<20), cutAt: 100 << 10},
		"bkt/chunked": {data: bytes.Repeat([]byte("c"), 200<<10), cutAt: 10 << 10, chunked: true, cacheControl: "no-store"},
	}
	origin := dyingOrigin(t, objects)
	u, _ := url.Parse(origin.URL)
	c, err := edge.Open(edge.Options{
		Upstream: u, Dir: t.TempDir(), MaxBytes: 1 << 20, SliceSize: slice, NoSync: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	layer, err := object.Open(object.Options{Root: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { layer.Close() })
	srv := httptest.NewServer(api.New(layer, api.Options{
		Region: testRegion, Credentials: staticCreds{testAccessKey: testSecretKey},
		Edge: &api.EdgeOptions{Cache: c, Public: true},
	}))
	t.Cleanup(srv.Close)

	for _, k := range []string{"bkt/filled", "bkt/relayed", "bkt/chunked"} {
		wantCut(t, k, srv.URL+"/"+k, len(objects[k].data))
	}
	// The gateway goes on answering on new connections.
	resp, err := http.Get(srv.URL + "/bkt/missing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("after the cuts: status %d, want 404", resp.StatusCode)
	}
}

// TestAbortGetFileTruncatedMidBody checks the origin gateway's own GET:
// a file that shrinks under a GET already answering 200 (truncated by
// another program behind the gateway's back) cuts the connection.
func TestAbortGetFileTruncatedMidBody(t *testing.T) {
	g := startGateway(t)
	if resp, b := g.do(g.rawRequest(http.MethodPut, "/cut", "", nil), nil, true); resp.StatusCode != http.StatusOK {
		t.Fatalf("CreateBucket: %d %s", resp.StatusCode, b)
	}
	const size = 16 << 20
	data := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	if resp, b := g.do(g.rawRequest(http.MethodPut, "/cut/big", "", data), data, true); resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d %s", resp.StatusCode, b)
	}
	// A client with a small receive window: the server can have sent only
	// a few MiB of the 16 when the file is cut.
	dialer := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 16<<10) }); err != nil {
			return err
		}
		return serr
	}}
	tr := &http.Transport{DialContext: func(ctx context.Context, n, a string) (net.Conn, error) { return dialer.DialContext(ctx, n, a) }}
	defer tr.CloseIdleConnections()
	req := g.rawRequest(http.MethodGet, "/cut/big", "", nil)
	g.signAt(req, nil, g.SecretKey, time.Now())
	resp, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength != size {
		t.Fatalf("GET: %d, Content-Length %d", resp.StatusCode, resp.ContentLength)
	}
	first := make([]byte, 64<<10)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(g.Root, "cut", "big"), 1<<20); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Fatalf("the body ended cleanly after %d of %d bytes; want an error", len(first)+len(rest), size)
	}
	if len(first)+len(rest) >= size {
		t.Fatalf("%d bytes, want fewer than %d", len(first)+len(rest), size)
	}
}
