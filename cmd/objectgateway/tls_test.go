package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/pkg/tlsreload"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "ObjectGateway test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pool: pool}
}

// issue returns a PEM server certificate for 127.0.0.1 with serial, and
// its key.
func (ca *testCA) issue(t *testing.T, serial int64) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}

// writePair writes a pair with serial into dir as cert.pem and key.pem,
// each by rename over the old file, as cert-manager and certbot do.
func (ca *testCA) writePair(t *testing.T, dir string, serial int64) (certFile, keyFile string) {
	t.Helper()
	c, k := ca.issue(t, serial)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for path, data := range map[string][]byte{certFile: c, keyFile: k} {
		tmp := path + ".new"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

// tlsServed is a gateway serving S3 over TLS in-process, with its
// listeners' reload entry points.
type tlsServed struct {
	*served
	tl  *tlsListeners
	log *syncBuffer
}

func startTLSServe(t *testing.T, args ...string) *tlsServed {
	t.Helper()
	tlc := make(chan *tlsListeners, 1)
	log := &syncBuffer{}
	sv := startServeEnv(t, append([]string{"--listen", "127.0.0.1:0", "--fsync=false", "--log-level", "info",
		"--tls-reload-interval", "0"}, args...), map[string]string{
		"OBJECTGATEWAY_ACCESS_KEY": cdnAccess,
		"OBJECTGATEWAY_SECRET_KEY": cdnSecret,
	}, log, env{tlsReady: func(tl *tlsListeners) { tlc <- tl }})
	return &tlsServed{served: sv, tl: <-tlc, log: log}
}

// tlsS3Client is an SDK client of the gateway at addr over HTTPS, trusting
// pool, on transport tr.
func tlsS3Client(addr string, tr *http.Transport) *s3.Client {
	return s3.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: awscreds.NewStaticCredentialsProvider(cdnAccess, cdnSecret, ""),
		HTTPClient:  &http.Client{Transport: tr},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String("https://" + addr)
		o.UsePathStyle = true
	})
}

func trustingTransport(t *testing.T, pool *x509.CertPool) *http.Transport {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// peerCert is the certificate a new connection to addr sees.
func peerCert(t *testing.T, addr string, pool *x509.CertPool) *x509.Certificate {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatalf("TLS dial: %v", err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0]
}

// peerSerial is the serial of the certificate a new connection to addr
// sees (the tests' certificates have small serials).
func peerSerial(t *testing.T, addr string, pool *x509.CertPool) int64 {
	t.Helper()
	return peerCert(t, addr, pool).SerialNumber.Int64()
}

// TestTLSServeSDK runs PUT, GET and LIST through aws-sdk-go-v2 over TLS
// with a CA the test made, checks the connection is TLS 1.2 or later
// without HTTP/2, and serves the admin listener over TLS too.
func TestTLSServeSDK(t *testing.T) {
	ca := newTestCA(t)
	certFile, keyFile := ca.writePair(t, t.TempDir(), 10)
	adminCert, adminKey := ca.writePair(t, t.TempDir(), 20)
	g := startTLSServe(t, "--root", t.TempDir(), "--tls-cert", certFile, "--tls-key", keyFile,
		"--admin-listen", "127.0.0.1:0", "--admin-tls-cert", adminCert, "--admin-tls-key", adminKey)
	ctx := context.Background()
	c := tlsS3Client(g.addr, trustingTransport(t, ca.pool))
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("tls")}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	body := []byte("over TLS\n")
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("tls"), Key: aws.String("a/b.txt"), Body: bytes.NewReader(body)}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("tls"), Key: aws.String("a/b.txt")})
	if err != nil {
		t.Fatalf("GetObject: %v", err)
	}
	got, err := io.ReadAll(out.Body)
	out.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("GetObject body %q, %v; want %q", got, err, body)
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("tls")})
	if err != nil || len(list.Contents) != 1 || aws.ToString(list.Contents[0].Key) != "a/b.txt" {
		t.Fatalf("ListObjectsV2: %v %v", list, err)
	}

	conn, err := tls.Dial("tcp", g.addr, &tls.Config{RootCAs: ca.pool, NextProtos: []string{"h2", "http/1.1"}, MaxVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatalf("TLS 1.2 dial: %v", err)
	}
	if st := conn.ConnectionState(); st.NegotiatedProtocol != "http/1.1" || st.Version != tls.VersionTLS12 {
		t.Errorf("negotiated %q version %x, want http/1.1 over TLS 1.2", st.NegotiatedProtocol, st.Version)
	}
	conn.Close()
	if _, err := tls.Dial("tcp", g.addr, &tls.Config{RootCAs: ca.pool, MaxVersion: tls.VersionTLS11}); err == nil {
		t.Error("a TLS 1.1 handshake succeeded")
	}

	resp, err := (&http.Client{Transport: trustingTransport(t, ca.pool)}).Get("https://" + g.admin + "/healthz")
	if err != nil {
		t.Fatalf("admin GET /healthz over TLS: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS.PeerCertificates[0].SerialNumber.Int64() != 20 {
		t.Errorf("admin /healthz: %d serial %v, want 200 serial 20", resp.StatusCode, resp.TLS.PeerCertificates[0].SerialNumber)
	}
}

// TestTLSReload replaces the pair by rename and by rewriting, reloading
// through the file check and through SIGHUP's entry point, while one
// keep-alive connection stays open: it keeps working with the certificate
// it shook hands with, and new connections see the new one.
func TestTLSReload(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	certFile, keyFile := ca.writePair(t, dir, 1)
	g := startTLSServe(t, "--root", t.TempDir(), "--tls-cert", certFile, "--tls-key", keyFile, "--admin-listen", "127.0.0.1:0")
	ctx := context.Background()
	c := tlsS3Client(g.addr, trustingTransport(t, ca.pool))
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("reload")}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	// request runs a PutObject on c's one connection and returns whether
	// the connection was reused and the serial it sees.
	request := func(step string) (reused bool, serial int64) {
		t.Helper()
		var info httptrace.GotConnInfo
		tctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { info = i }})
		if _, err := c.PutObject(tctx, &s3.PutObjectInput{Bucket: aws.String("reload"), Key: aws.String(step), Body: strings.NewReader(step)}); err != nil {
			t.Fatalf("%s: PutObject: %v", step, err)
		}
		tc, ok := info.Conn.(*tls.Conn)
		if !ok {
			t.Fatalf("%s: connection %T is not TLS", step, info.Conn)
		}
		return info.Reused, tc.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	if _, serial := request("before"); serial != 1 {
		t.Fatalf("serial before any reload: %d, want 1", serial)
	}

	// The file check sees a pair renamed over the old one.
	if tried, _ := g.tl.reloaders[0].Poll(); tried {
		t.Fatal("the file check reloaded files that had not changed")
	}
	ca.writePair(t, dir, 2)
	g.tl.poll()
	if reused, serial := request("after-rename"); !reused || serial != 1 {
		t.Errorf("keep-alive connection after the rename: reused %v serial %d, want reused with serial 1", reused, serial)
	}
	if s := peerSerial(t, g.addr, ca.pool); s != 2 {
		t.Errorf("new connection after the rename: serial %d, want 2", s)
	}

	// SIGHUP reloads files rewritten in place.
	c3, k3 := ca.issue(t, 3)
	if err := os.WriteFile(certFile, c3, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, k3, 0o600); err != nil {
		t.Fatal(err)
	}
	g.tl.reload()
	if reused, serial := request("after-sighup"); !reused || serial != 1 {
		t.Errorf("keep-alive connection after SIGHUP: reused %v serial %d, want reused with serial 1", reused, serial)
	}
	if s := peerSerial(t, g.addr, ca.pool); s != 3 {
		t.Errorf("new connection after SIGHUP: serial %d, want 3", s)
	}
	if ok, failed := g.tl.reloaders[0].Reloads(); ok != 2 || failed != 0 {
		t.Errorf("reloads: %d ok %d failed, want 2 ok", ok, failed)
	}
	if n := strings.Count(g.log.String(), "TLS certificate reloaded"); n != 2 {
		t.Errorf("%d \"TLS certificate reloaded\" log lines, want 2", n)
	}
	resp, err := http.Get("http://" + g.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`objectgateway_tls_reloads_total{listener="s3",result="ok"} 2`, `objectgateway_tls_reloads_total{listener="s3",result="failed"} 0`,
		`objectgateway_tls_certificate_not_after_seconds{listener="s3"}`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestTLSReloadFailureKeepsCertificate writes a garbage key, then a
// certificate without its key (a pair caught half-written): each reload
// fails, is logged as a warning, and the gateway keeps serving the
// certificate it had.
func TestTLSReloadFailureKeepsCertificate(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	certFile, keyFile := ca.writePair(t, dir, 1)
	g := startTLSServe(t, "--root", t.TempDir(), "--tls-cert", certFile, "--tls-key", keyFile)

	if err := os.WriteFile(keyFile, []byte("-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g.tl.reload()
	if s := peerSerial(t, g.addr, ca.pool); s != 1 {
		t.Errorf("after a reload with a garbage key: serial %d, want 1", s)
	}
	c2, _ := ca.issue(t, 2)
	if err := os.WriteFile(certFile, c2, 0o600); err != nil {
		t.Fatal(err)
	}
	g.tl.poll()
	if s := peerSerial(t, g.addr, ca.pool); s != 1 {
		t.Errorf("after a reload of a half-written pair: serial %d, want 1", s)
	}
	if ok, failed := g.tl.reloaders[0].Reloads(); ok != 0 || failed != 2 {
		t.Errorf("reloads: %d ok %d failed, want 2 failed", ok, failed)
	}
	warns := 0
	for _, line := range strings.Split(g.log.String(), "\n") {
		if strings.Contains(line, `"level":"warn"`) && strings.Contains(line, "TLS certificate reload failed") {
			warns++
		}
	}
	if warns != 2 {
		t.Errorf("%d warnings of a failed reload, want 2; log:\n%s", warns, g.log.String())
	}
	// The pair made whole again is taken at the next check.
	ca.writePair(t, dir, 3)
	g.tl.poll()
	if s := peerSerial(t, g.addr, ca.pool); s != 3 {
		t.Errorf("after the pair is whole again: serial %d, want 3", s)
	}
}

// TestTLSPlainHTTPRefused sends a plain HTTP request to the TLS port: it
// gets a 400 and the connection is closed, and the gateway keeps serving
// TLS.
func TestTLSPlainHTTPRefused(t *testing.T) {
	ca := newTestCA(t)
	certFile, keyFile := ca.writePair(t, t.TempDir(), 1)
	g := startTLSServe(t, "--root", t.TempDir(), "--tls-cert", certFile, "--tls-key", keyFile)
	conn, err := net.Dial("tcp", g.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(cdnWait))
	if _, err := io.WriteString(conn, "GET /bucket/key HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to plain HTTP: %v", err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "HTTPS") {
		t.Errorf("plain HTTP on the TLS port: %d %q, want 400 naming HTTPS", resp.StatusCode, msg)
	}
	if s := peerSerial(t, g.addr, ca.pool); s != 1 {
		t.Errorf("TLS after the plain request: serial %d, want 1", s)
	}
}

// TestTLSSelfSigned starts with --tls-self-signed twice on one root: the
// first start generates the pair (key mode 0600) that the listener
// serves, the second reuses it unchanged.
func TestTLSSelfSigned(t *testing.T) {
	root := t.TempDir()
	g := startTLSServe(t, "--root", root, "--tls-self-signed", "--domain", "s3.example.test")
	dir := filepath.Join(root, ".objectgateway", "tls")
	certPEM, err := os.ReadFile(filepath.Join(dir, "cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key.pem mode %v, want 0600", fi.Mode().Perm())
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certPEM) {
		t.Fatal("cert.pem holds no certificate")
	}
	served := g.tl.reloaders[0].Certificate()
	for _, name := range []string{"localhost", "s3.example.test", "bucket.s3.example.test", "127.0.0.1", "::1"} {
		if err := served.VerifyHostname(name); err != nil {
			t.Errorf("self-signed certificate: %v", err)
		}
	}
	// The certificate file is its own CA: a client trusting it connects.
	if got := peerCert(t, g.addr, pool); !bytes.Equal(got.Raw, served.Raw) {
		t.Errorf("a client trusting cert.pem sees serial %v, want %v", got.SerialNumber, served.SerialNumber)
	}
	fp := tlsreload.Fingerprint(served)
	g.stop()

	g2 := startTLSServe(t, "--root", root, "--tls-self-signed")
	again, err := os.ReadFile(filepath.Join(dir, "cert.pem"))
	if err != nil || !bytes.Equal(again, certPEM) {
		t.Errorf("cert.pem changed across a restart (%v)", err)
	}
	if got := tlsreload.Fingerprint(g2.tl.reloaders[0].Certificate()); got != fp {
		t.Errorf("second start serves %s, want the first start's %s", got, fp)
	}

	if _, err := parseConfig([]string{"--tls-self-signed", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, io.Discard, func(string) string { return "" }); err == nil {
		t.Error("--tls-self-signed with --tls-cert was accepted")
	}
}

// TestEdgeUpstreamCA fronts an origin served over TLS by a CA the system
// does not know: the edge refuses the origin by default and reaches it
// with --upstream-ca-file.
func TestEdgeUpstreamCA(t *testing.T) {
	ca := newTestCA(t)
	certFile, keyFile := ca.writePair(t, t.TempDir(), 1)
	origin := startTLSServe(t, "--root", t.TempDir(), "--tls-cert", certFile, "--tls-key", keyFile)
	ctx := context.Background()
	c := tlsS3Client(origin.addr, trustingTransport(t, ca.pool))
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(cdnBucket), ACL: s3types.BucketCannedACLPublicRead}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(cdnBucket), Policy: aws.String(publicObjectsPolicy(cdnBucket))}); err != nil {
		t.Fatalf("PutBucketPolicy: %v", err)
	}
	body := []byte("from a TLS origin\n")
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(cdnBucket), Key: aws.String("page"), Body: bytes.NewReader(body)}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, ca.pem, 0o644); err != nil {
		t.Fatal(err)
	}
	startTLSEdge := func(extra ...string) *edgeNode {
		return &edgeNode{startServe(t, append([]string{"--root", t.TempDir(), "--listen", "127.0.0.1:0", "--fsync=false",
			"--log-level", "error", "--upstream", "https://" + origin.addr, "--edge-public", "--cache-size", "8MiB"}, extra...),
			map[string]string{"OBJECTGATEWAY_ACCESS_KEY": edgeAccess, "OBJECTGATEWAY_SECRET_KEY": edgeSecret}, nil)}
	}
	if r := startTLSEdge().get(t, "page", ""); r.status != http.StatusServiceUnavailable {
		t.Errorf("edge without --upstream-ca-file: %d %q, want 503 (the origin's certificate is not trusted)", r.status, r.body)
	}
	if r := startTLSEdge("--upstream-ca-file", caFile).get(t, "page", ""); r.status != 200 || !bytes.Equal(r.body, body) {
		t.Errorf("edge with --upstream-ca-file: %d %q, want 200 %q", r.status, r.body, body)
	}
}
