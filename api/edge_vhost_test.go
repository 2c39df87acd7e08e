package api_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/edge"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// TestEdgeVirtualHostOrigin runs an edge whose origin is a gateway with
// virtual-hosted-style addressing (Options.Domain) behind a front that
// refuses path-style requests: the edge, with edge.Options.VirtualHost,
// addresses bucket.s3.test/key and signs for that host, and the gateway's
// own address handling and SigV4 verification accept it.
func TestEdgeVirtualHostOrigin(t *testing.T) {
	const domain = "s3.test"
	g := startGateway(t, withDomain(domain))
	if resp, b := g.do(g.rawRequest(http.MethodPut, "/vhost-bucket", "", nil), nil, true); resp.StatusCode != http.StatusOK {
		t.Fatalf("CreateBucket: %d %s", resp.StatusCode, b)
	}
	data := bytes.Repeat([]byte("virtual hosted "), 20000)
	if resp, b := g.do(g.rawRequest(http.MethodPut, "/vhost-bucket/dir/a%20b.bin", "", data), data, true); resp.StatusCode != http.StatusOK {
		t.Fatalf("PutObject: %d %s", resp.StatusCode, b)
	}

	var pathStyle, served atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !strings.HasSuffix(host, "."+domain) {
			pathStyle.Add(1)
			http.Error(w, "virtual-hosted-style requests only", http.StatusBadRequest)
			return
		}
		served.Add(1)
		(*g.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	_, port, _ := net.SplitHostPort(front.Listener.Addr().String())
	dialer := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, n, _ string) (net.Conn, error) {
		// Every *.s3.test name is the front, as a wildcard DNS record
		// would make it.
		return dialer.DialContext(ctx, n, front.Listener.Addr().String())
	}}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := edge.Open(edge.Options{
		Upstream: &url.URL{Scheme: "http", Host: domain + ":" + port}, VirtualHost: true,
		AccessKey: testAccessKey, SecretKey: testSecretKey, Region: testRegion,
		Client: &http.Client{Transport: tr}, Dir: t.TempDir(), MaxBytes: 64 << 20, SliceSize: 64 << 10, NoSync: true,
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

	client := &http.Client{Timeout: time.Minute}
	for i, want := range []string{"MISS", "HIT"} {
		resp, err := client.Get(srv.URL + "/vhost-bucket/dir/a%20b.bin")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(body, data) || resp.Header.Get("X-Cache") != want {
			t.Fatalf("GET %d through the edge: %d, %d bytes, X-Cache %q (want %s), %v", i, resp.StatusCode, len(body), resp.Header.Get("X-Cache"), want, err)
		}
	}
	resp, err := client.Head(srv.URL + "/vhost-bucket/missing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("HEAD of a missing key: %d, want 404", resp.StatusCode)
	}
	if n := pathStyle.Load(); n != 0 {
		t.Errorf("%d path-style requests reached the origin", n)
	}
	if served.Load() == 0 {
		t.Error("no request reached the origin")
	}
}
