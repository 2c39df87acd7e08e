package api_test

// This file is the harness of the conformance suite: an in-process gateway
// (httptest on 127.0.0.1:0 over t.TempDir()) and the real clients that
// drive it. Every test in conformance_*_test.go goes through startGateway.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/expect"
	"github.com/objectgateway/objectgateway/pkg/object"
)

const (
	testAccessKey = "AKIDCONFORMANCE"
	testSecretKey = "conformance/secret+key/0123456789abcdefGHIJ"
	testRegion    = "us-east-1"
)

// staticCreds is the gateway's credential store in tests: one key pair.
type staticCreds map[string]string

func (c staticCreds) SecretKey(id string) (string, bool) {
	s, ok := c[id]
	return s, ok
}

// gatewayOption adjusts the api.Options of a test gateway.
type gatewayOption func(*api.Options)

// withNow sets the server clock.
func withNow(now func() time.Time) gatewayOption {
	return func(o *api.Options) { o.Now = now }
}

// withDomain enables virtual-hosted-style addressing under domain.
func withDomain(domain string) gatewayOption {
	return func(o *api.Options) { o.Domain = domain }
}

// withRegion sets the gateway's region.
func withRegion(region string) gatewayOption {
	return func(o *api.Options) { o.Region = region }
}

// gateway is one in-process ObjectGateway with a plain-HTTP and a TLS
// listener over the same handler. The handler is swappable so that a
// restart (close the layer, open a new one on the same root) keeps the
// endpoints, and with them every client, valid.
type gateway struct {
	t         *testing.T
	Endpoint  string // http://127.0.0.1:port
	TLS       string // https://127.0.0.1:port
	AccessKey string
	SecretKey string
	Region    string
	Root      string

	opts api.Options
	// layerOpts, when set, adjusts the object layer's options.
	layerOpts func(*object.Options)
	plain     *httptest.Server
	secure    *httptest.Server
	handler   atomic.Pointer[http.Handler]

	mu    sync.Mutex
	layer *object.Layer
}

// startGateway starts a gateway over a fresh t.TempDir() and stops it at
// cleanup. Every response any client of the harness receives is checked
// for x-amz-request-id.
func startGateway(t *testing.T, opts ...gatewayOption) *gateway {
	t.Helper()
	return startGatewayLayer(t, nil, opts...)
}

// startGatewayLayer is startGateway with the object layer's options
// adjusted by layerOpts.
func startGatewayLayer(t *testing.T, layerOpts func(*object.Options), opts ...gatewayOption) *gateway {
	t.Helper()
	g := &gateway{
		layerOpts: layerOpts,
		t:         t,
		AccessKey: testAccessKey,
		SecretKey: testSecretKey,
		Root:      t.TempDir(),
	}
	g.opts = api.Options{Region: testRegion, Credentials: staticCreds{testAccessKey: testSecretKey}}
	for _, o := range opts {
		o(&g.opts)
	}
	g.Region = g.opts.Region
	g.open()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*g.handler.Load()).ServeHTTP(w, r)
	})
	// The plain server listens as objectgateway serve does, through
	// expect.Listener.
	g.plain = httptest.NewUnstartedServer(h)
	g.plain.Listener = expect.Listener(g.plain.Listener)
	g.plain.Start()
	g.secure = httptest.NewTLSServer(h)
	g.Endpoint = g.plain.URL
	g.TLS = g.secure.URL
	t.Cleanup(func() {
		g.plain.Close()
		g.secure.Close()
		g.mu.Lock()
		defer g.mu.Unlock()
		if err := g.layer.Close(); err != nil {
			t.Errorf("layer.Close: %v", err)
		}
	})
	return g
}

func (g *gateway) open() {
	g.t.Helper()
	// NoSync: the suite checks the S3 protocol, not durability, and fsync
	// would dominate its run time.
	lo := object.Options{Root: g.Root, NoSync: true}
	if g.layerOpts != nil {
		g.layerOpts(&lo)
	}
	layer, err := object.Open(lo)
	if err != nil {
		g.t.Fatalf("object.Open(%s): %v", g.Root, err)
	}
	g.mu.Lock()
	g.layer = layer
	g.mu.Unlock()
	var h http.Handler = api.New(layer, g.opts)
	g.handler.Store(&h)
}

// restart closes the object layer and opens a new one on the same root,
// as a process restart would. No request may be in flight.
func (g *gateway) restart() {
	g.t.Helper()
	g.mu.Lock()
	err := g.layer.Close()
	g.mu.Unlock()
	if err != nil {
		g.t.Fatalf("layer.Close: %v", err)
	}
	g.open()
}

// requestIDCheck is a RoundTripper that fails the test when a response
// lacks x-amz-request-id: S3 sends it on every response.
type requestIDCheck struct {
	t    *testing.T
	next http.RoundTripper
}

func (c requestIDCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil && resp.Header.Get("X-Amz-Request-Id") == "" {
		c.t.Errorf("%s %s: %d response without x-amz-request-id", r.Method, r.URL.Path, resp.StatusCode)
	}
	return resp, err
}

// transport returns a fresh transport trusting the TLS listener's
// certificate, wrapped in the request-id check.
func (g *gateway) transport() http.RoundTripper {
	tr := g.secure.Client().Transport.(*http.Transport).Clone()
	// Keep connections of concurrent workers alive instead of
	// re-handshaking for every request.
	tr.MaxIdleConnsPerHost = 128
	g.t.Cleanup(tr.CloseIdleConnections)
	return requestIDCheck{t: g.t, next: tr}
}

// httpClient is a plain net/http client for presigned URLs and raw
// requests; it checks x-amz-request-id like every other client.
func (g *gateway) httpClient() *http.Client {
	return &http.Client{Transport: g.transport()}
}

// sdkMode is one way of configuring aws-sdk-go-v2.
type sdkMode struct {
	name string
	// tls selects the HTTPS listener. Over HTTPS the SDK's default mode
	// sends checksums as aws-chunked trailers
	// (STREAMING-UNSIGNED-PAYLOAD-TRAILER); over HTTP it signs the payload
	// hash and sends the checksum as a header.
	tls bool
	// whenRequired sets RequestChecksumCalculation and
	// ResponseChecksumValidation to WhenRequired.
	whenRequired bool
}

// sdkModes are the aws-sdk-go-v2 configurations every SDK test runs
// under: the default checksum behaviour (over HTTP and over HTTPS, where
// it uses trailers) and when-required.
var sdkModes = []sdkMode{
	{name: "sdk-default"},
	{name: "sdk-default-tls", tls: true},
	{name: "sdk-when-required", whenRequired: true},
}

// sdkClient is a named aws-sdk-go-v2 client.
type sdkClient struct {
	name string
	*s3.Client
}

// sdk returns a path-style aws-sdk-go-v2 client with the harness
// credentials.
func (g *gateway) sdk(m sdkMode, opts ...func(*s3.Options)) *s3.Client {
	return g.sdkWith(m, g.AccessKey, g.SecretKey, opts...)
}

// sdkWith is sdk with explicit credentials.
func (g *gateway) sdkWith(m sdkMode, accessKey, secretKey string, opts ...func(*s3.Options)) *s3.Client {
	endpoint := g.Endpoint
	if m.tls {
		endpoint = g.TLS
	}
	cfg := aws.Config{
		Region:      g.Region,
		Credentials: awscreds.NewStaticCredentialsProvider(accessKey, secretKey, ""),
		HTTPClient:  &http.Client{Transport: g.transport()},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
		if m.whenRequired {
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
		for _, f := range opts {
			f(o)
		}
	})
}

// sdkClients returns one client per sdkMode.
func (g *gateway) sdkClients() []sdkClient {
	var cs []sdkClient
	for _, m := range sdkModes {
		cs = append(cs, sdkClient{name: m.name, Client: g.sdk(m)})
	}
	return cs
}

// minioClient is a named minio-go client.
type minioClient struct {
	name string
	*minio.Client
}

// minio returns a path-style minio-go client over plain HTTP. With
// trailers set it sends checksums as trailers of signed aws-chunked
// bodies; without, it signs each chunk (STREAMING-AWS4-HMAC-SHA256-PAYLOAD).
func (g *gateway) minio(trailers bool, opts ...func(*minio.Options)) *minio.Client {
	g.t.Helper()
	u, err := url.Parse(g.Endpoint)
	if err != nil {
		g.t.Fatal(err)
	}
	o := &minio.Options{
		Creds:           miniocreds.NewStaticV4(g.AccessKey, g.SecretKey, ""),
		Secure:          false,
		Region:          g.Region,
		BucketLookup:    minio.BucketLookupPath,
		Transport:       g.transport(),
		TrailingHeaders: trailers,
		MaxRetries:      1,
	}
	for _, f := range opts {
		f(o)
	}
	c, err := minio.New(u.Host, o)
	if err != nil {
		g.t.Fatalf("minio.New: %v", err)
	}
	return c
}

// minioClients returns minio-go with and without trailing checksums.
func (g *gateway) minioClients() []minioClient {
	return []minioClient{
		{name: "minio", Client: g.minio(false)},
		{name: "minio-trailers", Client: g.minio(true)},
	}
}

// signer signs raw requests the way S3 clients do (no double escaping of
// the path).
var signer = v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })

// rawRequest builds a request to the plain-HTTP listener. path is the
// escaped path ("/bucket/key"), rawQuery the escaped query.
func (g *gateway) rawRequest(method, path, rawQuery string, body []byte) *http.Request {
	g.t.Helper()
	u := g.Endpoint + path
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	if body == nil {
		req.Body = http.NoBody
		req.ContentLength = 0
	}
	return req
}

// sign signs req with SigV4 in the Authorization header, over the SHA-256
// of body, at time at.
func (g *gateway) signAt(req *http.Request, body []byte, secret string, at time.Time) {
	g.t.Helper()
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	creds := aws.Credentials{AccessKeyID: g.AccessKey, SecretAccessKey: secret}
	if err := signer.SignHTTP(context.Background(), creds, req, hash, "s3", g.Region, at); err != nil {
		g.t.Fatalf("SignHTTP: %v", err)
	}
}

// do signs (when signed) and sends a raw request, returning the response
// and its whole body.
func (g *gateway) do(req *http.Request, body []byte, signed bool) (*http.Response, []byte) {
	g.t.Helper()
	if signed {
		g.signAt(req, body, g.SecretKey, time.Now())
	}
	resp, err := g.httpClient().Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return resp, b
}

// s3Error is the S3 XML error body.
type s3Error struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Resource  string   `xml:"Resource"`
	RequestID string   `xml:"RequestId"`
}

// wantXMLError checks that a raw response is the S3 error code with the
// given status, an XML body and a request id.
func wantXMLError(t *testing.T, what string, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s: status %d, want %d (body %q)", what, resp.StatusCode, status, body)
	}
	if resp.Header.Get("X-Amz-Request-Id") == "" {
		t.Errorf("%s: no x-amz-request-id", what)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "xml") {
		t.Errorf("%s: Content-Type %q, want application/xml", what, ct)
	}
	var e s3Error
	if err := xml.Unmarshal(body, &e); err != nil {
		t.Errorf("%s: body is not an S3 error: %v (%q)", what, err, body)
		return
	}
	if e.Code != code {
		t.Errorf("%s: Code %q, want %q (message %q)", what, e.Code, code, e.Message)
	}
	if e.RequestID == "" {
		t.Errorf("%s: error body without RequestId", what)
	} else if id := resp.Header.Get("X-Amz-Request-Id"); id != "" && id != e.RequestID {
		t.Errorf("%s: RequestId %q, header %q", what, e.RequestID, id)
	}
}

// apiCode returns the S3 error code of an SDK error, or "" when err is
// not an API error.
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// apiMessage returns the S3 error message of an SDK error, or "".
func apiMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return ""
}

// entryError returns the error of a DeleteObjects call, or else the first
// Error entry of its answer as an API error with the entry's code and
// message (apiCode, apiMessage read them), or nil when every entry was
// deleted.
func entryError(out *s3.DeleteObjectsOutput, err error) error {
	if err != nil || len(out.Errors) == 0 {
		return err
	}
	e := out.Errors[0]
	return &smithy.GenericAPIError{Code: aws.ToString(e.Code), Message: aws.ToString(e.Key) + ": " + aws.ToString(e.Message)}
}

// httpStatus returns the HTTP status of an SDK error, or 0.
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// wantCode checks an SDK error's S3 code and HTTP status.
func wantCode(t *testing.T, what string, err error, status int, code string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %d %s", what, status, code)
		return
	}
	if got := apiCode(err); got != code {
		t.Errorf("%s: error code %q, want %q (%v)", what, got, code, err)
	}
	if got := httpStatus(err); got != status {
		t.Errorf("%s: HTTP status %d, want %d (%v)", what, got, status, err)
	}
}

// wantMinioCode checks a minio-go error's S3 code and HTTP status.
func wantMinioCode(t *testing.T, what string, err error, status int, code string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %d %s", what, status, code)
		return
	}
	r := minio.ToErrorResponse(err)
	if r.Code != code || r.StatusCode != status {
		t.Errorf("%s: got %d %q, want %d %q (%v)", what, r.StatusCode, r.Code, status, code, err)
	}
}

// dialer returns a DialContext that connects every host ending in domain
// (and domain itself) to addr, for virtual-hosted-style tests.
func dialer(addr, domain string) func(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(address)
		if err == nil && (host == domain || strings.HasSuffix(host, "."+domain)) {
			address = addr
		}
		return d.DialContext(ctx, network, address)
	}
}

// bucketSeq numbers the buckets of uniqueBucket.
var bucketSeq atomic.Int64

// uniqueBucket returns a valid bucket name unique within the process, so
// subtests sharing one gateway never collide.
func uniqueBucket(prefix string) string {
	return prefix + "-" + strconv.FormatInt(bucketSeq.Add(1), 10)
}
