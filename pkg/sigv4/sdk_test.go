package sigv4_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

const (
	testAK     = "AKIDOBJECTGATEWAY"
	testSecret = "secret/with+odd=chars"
	region     = "us-east-1"
)

type creds map[string]string

func (c creds) SecretKey(ak string) (string, bool) { s, ok := c[ak]; return s, ok }

// authServer runs a real HTTP server whose handler only authenticates,
// answering "OK <payload hash>" or the S3 error code, so tests exercise
// exactly what Go's server hands a handler.
func authServer(t *testing.T, tls bool) *httptest.Server {
	t.Helper()
	v := sigv4.NewVerifier(sigv4.Options{Region: region, Credentials: creds{testAK: testSecret}})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, err := v.Verify(r)
		io.Copy(io.Discard, r.Body)
		if err != nil {
			e := s3err.As(err)
			w.Header().Set("X-Test-Code", e.Code.String())
			w.WriteHeader(e.Code.Status())
			return
		}
		if a.Anonymous {
			w.Header().Set("X-Test-Code", "Anonymous")
		} else {
			w.Header().Set("X-Test-Code", "OK")
		}
		w.Header().Set("X-Test-Payload", a.PayloadHash)
	})
	var s *httptest.Server
	if tls {
		s = httptest.NewTLSServer(h)
	} else {
		s = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

// s3Path encodes a key as the SDK does: every byte but unreserved and '/'.
func s3Path(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

var hostilePaths = []string{
	"/bucket/key",
	"/bucket/with space",
	"/bucket/plus+sign",
	"/bucket/100%",
	"/bucket/日本語/ключ",
	"/bucket//double//slash",
	"/bucket/./dot/../dotdot",
	"/bucket/trailing/",
	"/bucket/sym!$&'()*,;=:@",
	"/bucket/~tilde_-.",
	"/bucket",
}

var hostileQueries = []string{
	"",
	"acl",
	"prefix=a%2Fb&delimiter=%2F&list-type=2",
	"marker=x%3Dy%26z&max-keys=10",
	"prefix=&encoding-type=url",
	"response-content-disposition=attachment%3B%20filename%3D%22a%20b.txt%22",
	"tagging&versionId=abc",
	"a=%2B&b=+",
}

func sdkRequest(t *testing.T, srv *httptest.Server, method, path, query string, body []byte) *http.Request {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = path
	u.RawPath = s3Path(path)
	u.RawQuery = query
	r, err := http.NewRequest(method, u.String(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if r.URL.EscapedPath() != u.RawPath {
		t.Fatalf("client would send %q, not %q", r.URL.EscapedPath(), u.RawPath)
	}
	return r
}

func do(t *testing.T, c *http.Client, r *http.Request) (code, payload string) {
	t.Helper()
	resp, err := c.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("X-Test-Code"), resp.Header.Get("X-Test-Payload")
}

// TestSDKSigner signs requests with aws-sdk-go-v2's signer, configured as
// the S3 client configures it (no double path escaping), and sends them
// through a real server.
func TestSDKSigner(t *testing.T) {
	srv := authServer(t, false)
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	cred := aws.Credentials{AccessKeyID: testAK, SecretAccessKey: testSecret}
	for _, p := range hostilePaths {
		for _, q := range hostileQueries {
			for _, method := range []string{"GET", "PUT"} {
				var body []byte
				payload := sigv4.UnsignedPayload
				if method == "PUT" {
					body = []byte("hello world")
					sum := sha256.Sum256(body)
					payload = hex.EncodeToString(sum[:])
				}
				r := sdkRequest(t, srv, method, p, q, body)
				r.Header.Set("X-Amz-Content-Sha256", payload)
				r.Header.Set("X-Amz-Meta-Spaces", "  a   b  c ")
				r.Header.Set("Content-Type", "text/plain")
				r.Header.Set("Range", "bytes=0-9")
				r.Header.Add("X-Amz-Meta-Multi", "one")
				r.Header.Add("X-Amz-Meta-Multi", "two")
				if err := signer.SignHTTP(context.Background(), cred, r, payload, "s3", region, time.Now()); err != nil {
					t.Fatal(err)
				}
				if code, ph := do(t, srv.Client(), r); code != "OK" || ph != payload {
					t.Errorf("%s %s?%s: %s (payload %q)", method, p, q, code, ph)
				}
			}
		}
	}
}

// TestSDKPresigner presigns with aws-sdk-go-v2 and fetches the URL with
// plain net/http, as a browser or curl would.
func TestSDKPresigner(t *testing.T) {
	srv := authServer(t, false)
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	cred := aws.Credentials{AccessKeyID: testAK, SecretAccessKey: testSecret}
	for _, p := range hostilePaths {
		for _, q := range hostileQueries {
			r := sdkRequest(t, srv, "GET", p, q, nil)
			r.URL.RawQuery = strings.TrimPrefix(q+"&"+"X-Amz-Expires=900", "&")
			signedURL, hdr, err := signer.PresignHTTP(context.Background(), cred, r, sigv4.UnsignedPayload, "s3", region, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest("GET", signedURL, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range hdr {
				if !strings.EqualFold(k, "Host") {
					req.Header[k] = v
				}
			}
			if code, ph := do(t, srv.Client(), req); code != "OK" || ph != sigv4.UnsignedPayload {
				t.Errorf("presigned %s?%s: %s", p, q, code)
			}
		}
	}
}

// TestS3Client drives a real S3 client against the server: PutObject over
// TLS (which sends STREAMING-UNSIGNED-PAYLOAD-TRAILER), GetObject,
// ListObjectsV2 with a hostile prefix and the presign client.
func TestS3Client(t *testing.T) {
	srv := authServer(t, true)
	var lastCode, lastPayload string
	base := srv.Client().Transport
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(r)
		if err == nil {
			lastCode, lastPayload = resp.Header.Get("X-Test-Code"), resp.Header.Get("X-Test-Payload")
		}
		return resp, err
	})}
	client := s3.New(s3.Options{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(testAK, testSecret, ""),
		HTTPClient:   hc,
		BaseEndpoint: aws.String(srv.URL),
		UsePathStyle: true,
		// s3.New does not apply the config loader's defaults; ask for the
		// SDK default (trailing CRC32 on uploads) explicitly.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
	})
	ctx := context.Background()
	key := "dir//sub/日本 +%?#&=.txt"

	_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bucket"), Key: aws.String(key), Body: strings.NewReader("payload")})
	if err != nil || lastCode != "OK" {
		t.Fatalf("PutObject: %v, %s", err, lastCode)
	}
	if lastPayload != sigv4.StreamingUnsignedTrailer {
		t.Fatalf("PutObject payload mode %s, want %s", lastPayload, sigv4.StreamingUnsignedTrailer)
	}
	_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bucket"), Key: aws.String(key), Body: strings.NewReader("payload")},
		func(o *s3.Options) { o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired })
	if err != nil || lastCode != "OK" || lastPayload != sigv4.UnsignedPayload {
		t.Fatalf("PutObject when-required: %v, %s, %s", err, lastCode, lastPayload)
	}
	_, err = client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("bucket"), Key: aws.String(key), Range: aws.String("bytes=0-1")})
	if err != nil || lastCode != "OK" {
		t.Fatalf("GetObject: %v, %s", err, lastCode)
	}
	_, err = client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("bucket"), Prefix: aws.String("a/b c+d=e&f"), Delimiter: aws.String("/")})
	if lastCode != "OK" {
		t.Fatalf("ListObjectsV2: %v, %s", err, lastCode)
	}

	ps := s3.NewPresignClient(client)
	req, err := ps.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("bucket"), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	hr, _ := http.NewRequest(req.Method, req.URL, nil)
	if code, _ := do(t, srv.Client(), hr); code != "OK" {
		t.Fatalf("presigned GetObject: %s", code)
	}
	preq, err := ps.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bucket"), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	hr, _ = http.NewRequest(preq.Method, preq.URL, strings.NewReader("body"))
	for k, v := range preq.SignedHeader {
		if !strings.EqualFold(k, "Host") {
			hr.Header[k] = v
		}
	}
	if code, _ := do(t, srv.Client(), hr); code != "OK" {
		t.Fatalf("presigned PutObject: %s", code)
	}

	// The wrong secret must be refused with the typed SDK error code.
	bad := s3.New(s3.Options{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(testAK, "wrong", ""),
		HTTPClient:   srv.Client(),
		BaseEndpoint: aws.String(srv.URL),
		UsePathStyle: true,
	})
	_, err = bad.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("bucket"), Key: aws.String(key)})
	var re interface{ HTTPStatusCode() int }
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusForbidden {
		t.Fatalf("wrong secret: %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestServerHeaders documents which headers Go's server moves out of
// r.Header, since signed requests depend on them.
func TestServerHeaders(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
	}))
	defer srv.Close()
	r, _ := http.NewRequest("PUT", srv.URL+"/b/k", strings.NewReader("abc"))
	r.Header.Set("Expect", "100-continue")
	resp, err := srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := <-got
	if h.Get("Host") != "" {
		t.Error("Go's server now keeps Host in r.Header")
	}
	if h.Get("Content-Length") != "3" {
		t.Errorf("Content-Length header = %q", h.Get("Content-Length"))
	}
}
