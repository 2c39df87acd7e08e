package edge

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

type vhostCreds map[string]string

func (c vhostCreds) SecretKey(id string) (string, bool) { s, ok := c[id]; return s, ok }

// TestVirtualHostOrigin checks Options.VirtualHost against an origin that
// serves virtual-hosted-style requests only, each signed with SigV4: the
// bucket goes into the Host (bucket.s3.test), the path holds the key,
// and the signature covers that host. Path-style requests and bad
// signatures are refused by the origin, so any reaching it fail the test.
func TestVirtualHostOrigin(t *testing.T) {
	const access, secret, domain = "AKIDVHOST", "vhost/secret", "s3.test"
	var e *env
	var refused atomic.Int64
	var verifier *sigv4.Verifier
	vhost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		bucket, ok := strings.CutSuffix(host, "."+domain)
		if !ok || bucket == "" || strings.Contains(bucket, ".") {
			refused.Add(1)
			writeS3Error(w, http.StatusBadRequest, "InvalidRequest") // path-style refused
			return
		}
		if _, err := verifier.Verify(r); err != nil {
			refused.Add(1)
			writeS3Error(w, s3err.As(err).Code.Status(), s3err.As(err).Code.String())
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + bucket + r.URL.Path
		r2.URL.RawPath = ""
		e.origin.serve(w, r2)
	}))
	t.Cleanup(vhost.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(vhost.URL, "http://"))
	dialer := &net.Dialer{}
	client := &http.Client{Transport: &http.Transport{
		// Every *.s3.test name is the test origin, as a wildcard DNS
		// record would make it.
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(addr)
			if !strings.HasSuffix(host, "."+domain) && host != domain {
				return nil, &net.DNSError{Err: "no such host", Name: host}
			}
			return dialer.DialContext(ctx, network, vhost.Listener.Addr().String())
		},
	}}
	t.Cleanup(client.CloseIdleConnections)
	// Each part has its own cache (and env), closed before the next.
	t.Run("virtual-hosted", func(t *testing.T) { vhostGets(t, &e, &verifier, domain, port, access, secret, client, &refused) })
	t.Run("path-style refused", func(t *testing.T) {
		e = newEnv(t, func(o *Options) {
			o.Upstream = &url.URL{Scheme: "http", Host: domain + ":" + port}
			o.AccessKey, o.SecretKey = access, secret
			o.Client = client
		})
		verifier = sigv4.NewVerifier(sigv4.Options{Credentials: vhostCreds{access: secret}, Now: e.clock.Now})
		before := refused.Load()
		e.origin.put("media/obj", []byte("x"))
		if r := e.get("media/obj"); r.status == http.StatusOK {
			t.Errorf("path-style request to a virtual-host-only origin: %d, want a refusal", r.status)
		}
		if refused.Load() == before {
			t.Error("the origin refused nothing path-style")
		}
	})
}

func vhostGets(t *testing.T, ep **env, verifier **sigv4.Verifier, domain, port, access, secret string, client *http.Client, refused *atomic.Int64) {
	e := newEnv(t, func(o *Options) {
		o.Upstream = &url.URL{Scheme: "http", Host: domain + ":" + port}
		o.VirtualHost = true
		o.AccessKey, o.SecretKey = access, secret
		o.Client = client
	})
	*ep = e
	*verifier = sigv4.NewVerifier(sigv4.Options{Credentials: vhostCreds{access: secret}, Now: e.clock.Now})

	data := randomBytes(94, 2*testSlice+3)
	e.origin.put("media/dir/a b+c.bin", data)
	e.mustGet("media/dir/a b+c.bin", data, xMiss)
	e.mustGet("media/dir/a b+c.bin", data, xHit)
	if r := e.get("media/dir/a b+c.bin", "Range", "bytes=5-9"); r.status != http.StatusPartialContent || string(r.body) != string(data[5:10]) {
		t.Errorf("ranged GET: %d %q", r.status, r.body)
	}
	if r := e.do(http.MethodHead, "media/other"); r.status != http.StatusNotFound {
		t.Errorf("HEAD of a missing key: %d, want 404", r.status)
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("the origin refused %d requests", n)
	}
	if got := e.origin.total(http.MethodGet, "media/dir/a b+c.bin"); got != 3 {
		t.Errorf("%d origin GETs, want 3 (one per slice)", got)
	}
}
