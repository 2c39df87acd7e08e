package sigv4

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The example credentials and time of the AWS SigV4 documentation.
const (
	docAK     = "AKIAIOSFODNN7EXAMPLE"
	docSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

var docTime = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)

type creds map[string]string

func (c creds) SecretKey(ak string) (string, bool) { s, ok := c[ak]; return s, ok }

func docVerifier() *Verifier {
	return NewVerifier(Options{
		Region:      "us-east-1",
		Credentials: creds{docAK: docSecret},
		Now:         func() time.Time { return docTime },
	})
}

func wantCode(t *testing.T, err error, code s3err.Code, msg string) {
	t.Helper()
	var e *s3err.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *s3err.Error %v", err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %v (%q), want %v", e.Code, e.Text(), code)
	}
	if msg != "" && e.Text() != msg {
		t.Fatalf("message = %q, want %q", e.Text(), msg)
	}
}

// serverRequest turns a client request into the request a handler would
// see, with RequestURI set and Host promoted out of the header map, as
// Go's server does.
func serverRequest(r *http.Request) *http.Request {
	s := r.Clone(r.Context())
	s.RequestURI = r.URL.RequestURI()
	if h := s.Header.Get("Host"); h != "" {
		s.Host = h
		s.Header.Del("Host")
	}
	return s
}

// TestDocGetObject is the GET Object example of the AWS documentation
// ("Example: GET Object"), a known answer independent of this code.
func TestDocGetObject(t *testing.T) {
	r := httptest.NewRequest("GET", "/test.txt", nil)
	r.Host = "examplebucket.s3.amazonaws.com"
	r.Header.Set("Range", "bytes=0-9")
	r.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
	a, err := docVerifier().Verify(r)
	if err != nil {
		t.Fatal(err)
	}
	if a.AccessKeyID != docAK || a.Presigned || a.Anonymous || a.PayloadHash != emptySHA256 {
		t.Fatalf("Auth = %+v", a)
	}
}

// TestDocPresigned is the presigned-URL example of the AWS documentation.
func TestDocPresigned(t *testing.T) {
	r := httptest.NewRequest("GET", "/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404", nil)
	r.Host = "examplebucket.s3.amazonaws.com"
	v := docVerifier()
	a, err := v.Verify(r)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Presigned || a.PayloadHash != UnsignedPayload {
		t.Fatalf("Auth = %+v", a)
	}
	v.o.Now = func() time.Time { return docTime.Add(86401 * time.Second) }
	_, err = v.Verify(r)
	wantCode(t, err, s3err.AccessDenied, "Request has expired")
}

// TestDocStreaming is the chunked upload example of the AWS documentation
// (sigv4-streaming): the seed signature and the signature of each chunk.
func TestDocStreaming(t *testing.T) {
	r := httptest.NewRequest("PUT", "/examplebucket/chunkObject.txt", nil)
	r.Host = "s3.amazonaws.com"
	r.ContentLength = 66824
	r.Header.Set("Content-Length", "66824")
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("X-Amz-Storage-Class", "REDUCED_REDUNDANCY")
	r.Header.Set("Content-Encoding", "aws-chunked")
	r.Header.Set("X-Amz-Decoded-Content-Length", "66560")
	r.Header.Set("X-Amz-Content-Sha256", StreamingPayload)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
	a, err := docVerifier().Verify(r)
	if err != nil {
		t.Fatal(err)
	}
	cv := a.ChunkVerifier()
	chunks := []struct {
		n   int
		sig string
	}{
		{65536, "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648"},
		{1024, "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497"},
		{0, "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9"},
	}
	for _, c := range chunks {
		sum := sha256.Sum256([]byte(strings.Repeat("a", c.n)))
		if err := cv.VerifyChunk(c.sig, sum[:]); err != nil {
			t.Fatalf("chunk of %d: %v", c.n, err)
		}
	}

	// Out of order, the same signatures must fail: the chain binds order.
	cv = a.ChunkVerifier()
	sum := sha256.Sum256([]byte(strings.Repeat("a", 1024)))
	wantCode(t, cv.VerifyChunk(chunks[1].sig, sum[:]), s3err.SignatureDoesNotMatch, "")
	// A broken chain stays broken even for the right signature.
	sum = sha256.Sum256([]byte(strings.Repeat("a", 65536)))
	wantCode(t, cv.VerifyChunk(chunks[0].sig, sum[:]), s3err.SignatureDoesNotMatch, "")

	var nilCV *ChunkVerifier
	wantCode(t, nilCV.VerifyChunk(chunks[0].sig, sum[:]), s3err.SignatureDoesNotMatch, "")
	wantCode(t, nilCV.VerifyTrailer(chunks[0].sig, nil), s3err.SignatureDoesNotMatch, "")
	if (&Auth{Anonymous: true}).ChunkVerifier() != nil {
		t.Fatal("anonymous Auth must not yield a verifier")
	}
}

// TestTrailerSignature checks VerifyTrailer against an independent
// computation of the AWS4-HMAC-SHA256-TRAILER string to sign.
func TestTrailerSignature(t *testing.T) {
	a := &Auth{key: SigningKey(docSecret, "20130524", "us-east-1", "s3"), amzDate: "20130524T000000Z",
		scope: "20130524/us-east-1/s3/aws4_request", seed: strings.Repeat("ab", 32)}
	trailer := []byte("x-amz-checksum-crc32c:sOO8/Q==\n")
	sum := sha256.Sum256(trailer)
	sts := "AWS4-HMAC-SHA256-TRAILER\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n" + a.seed + "\n" + hex.EncodeToString(sum[:])
	sig := hex.EncodeToString(hmacSHA256(a.key, sts))
	if err := a.ChunkVerifier().VerifyTrailer(sig, trailer); err != nil {
		t.Fatal(err)
	}
	wantCode(t, a.ChunkVerifier().VerifyTrailer(sig, []byte("x-amz-checksum-crc32c:AAAAAA==\n")), s3err.SignatureDoesNotMatch, "")
	wantCode(t, a.ChunkVerifier().VerifyTrailer("zz", trailer), s3err.SignatureDoesNotMatch, "")
}

func TestCanonicalURI(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"", "/"},
		{"/", "/"},
		{"/b/k", "/b/k"},
		{"/b/a%20b", "/b/a%20b"},
		{"/b/a+b", "/b/a%2Bb"},
		{"/b/a%2Bb", "/b/a%2Bb"},
		{"/b/100%25", "/b/100%25"},
		{"/b/%e6%97%a5", "/b/%E6%97%A5"},
		{"/b/日", "/b/%E6%97%A5"},
		{"/b//x/./y/../z", "/b//x/./y/../z"},
		{"/b/a%2Fb", "/b/a/b"},
		{"/b/~_-.!*'()", "/b/~_-.%21%2A%27%28%29"},
	}
	for _, tt := range tests {
		got, err := appendCanonicalURI([]byte("x"), tt.raw)
		if err != nil || string(got) != "x"+tt.want {
			t.Errorf("canonicalURI(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
		}
	}
	_, err := appendCanonicalURI(nil, "/b/%zz")
	wantCode(t, err, s3err.InvalidURI, "")
}

func TestCanonicalQuery(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"", ""},
		{"acl", "acl="},
		{"b=2&a=1&a=0", "a=0&a=1&b=2"},
		{"prefix=a%2Fb&prefix=a-b", "prefix=a%2Fb&prefix=a-b"},
		{"k=a+b&x=%20", "k=a%20b&x=%20"},
		{"k=a%2Bb", "k=a%2Bb"},
		{"v=x%3Dy%26z&&", "v=x%3Dy%26z"},
		{"X-Amz-Signature=abc&z=1", "z=1"},
		{"list-type=2&prefix=&delimiter=%2F", "delimiter=%2F&list-type=2&prefix="},
	}
	for _, tt := range tests {
		pairs, err := parseQuery(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(appendCanonicalQuery([]byte("x"), pairs, "X-Amz-Signature")); got != "x"+tt.want {
			t.Errorf("canonicalQuery(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

func TestCanonicalHeaders(t *testing.T) {
	r := httptest.NewRequest("PUT", "/", strings.NewReader("abc"))
	r.Host = "h:9000"
	r.Header.Del("Content-Length")
	r.Header.Add("X-Amz-Meta-A", "  a   b  ")
	r.Header.Add("X-Amz-Meta-A", "c")
	r.TransferEncoding = []string{"chunked"}
	b := appendCanonicalHeaders(nil, r, []string{"content-length", "host", "transfer-encoding", "x-amz-meta-a", "x-amz-missing"})
	want := "content-length:3\nhost:h:9000\ntransfer-encoding:chunked\nx-amz-meta-a:a b,c\nx-amz-missing:\n"
	if string(b) != want {
		t.Fatalf("canonical headers = %q, want %q", b, want)
	}
}

// signed returns a header-signed request built by SignRequest with the doc
// credentials at docTime, after mutate has adjusted it.
func signed(method, target string, mutate func(*http.Request)) *http.Request {
	r := httptest.NewRequest(method, "http://example.com"+target, nil)
	r.RequestURI = ""
	if mutate != nil {
		mutate(r)
	}
	SignRequest(r, docAK, docSecret, "us-east-1", docTime, emptySHA256)
	return serverRequest(r)
}

func TestVerifyHeaderErrors(t *testing.T) {
	replaceAuth := func(old, new string) func(*http.Request) {
		return func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), old, new, 1))
		}
	}
	tests := []struct {
		name  string
		r     *http.Request
		after func(*http.Request) // applied after signing
		code  s3err.Code
		msg   string
	}{
		{name: "ok", r: signed("GET", "/b/k", nil)},
		{name: "ok with spaces in header", r: signed("GET", "/b/k", nil), after: replaceAuth(", ", " , ")},
		{name: "ok without spaces", r: signed("GET", "/b/k", nil), after: replaceAuth(", ", ",")},
		{name: "sigv2", r: signed("GET", "/b/k", nil),
			after: func(r *http.Request) {
				r.Header.Set("Authorization", "AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=")
			},
			code: s3err.InvalidRequest, msg: "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256."},
		{name: "sigv4a", r: signed("GET", "/b/k", nil), after: replaceAuth("AWS4-HMAC-SHA256", "AWS4-ECDSA-P256-SHA256"),
			code: s3err.InvalidArgument},
		{name: "missing signature", r: signed("GET", "/b/k", nil), after: func(r *http.Request) {
			a := r.Header.Get("Authorization")
			r.Header.Set("Authorization", a[:strings.Index(a, ", Signature")])
		}, code: s3err.AuthorizationHeaderMalformed},
		{name: "unknown component", r: signed("GET", "/b/k", nil), after: replaceAuth("SignedHeaders", "Signed"), code: s3err.AuthorizationHeaderMalformed},
		{name: "wrong region", r: signed("GET", "/b/k", nil), after: replaceAuth("/us-east-1/", "/eu-west-1/"),
			code: s3err.AuthorizationHeaderMalformed, msg: "The authorization header is malformed; the region 'eu-west-1' is wrong; expecting 'us-east-1'"},
		{name: "wrong service", r: signed("GET", "/b/k", nil), after: replaceAuth("/s3/", "/iam/"), code: s3err.AuthorizationHeaderMalformed},
		{name: "wrong terminator", r: signed("GET", "/b/k", nil), after: replaceAuth("aws4_request", "aws4_reques"), code: s3err.AuthorizationHeaderMalformed},
		{name: "credential short", r: signed("GET", "/b/k", nil), after: replaceAuth("/aws4_request", ""), code: s3err.AuthorizationHeaderMalformed},
		{name: "scope date differs", r: signed("GET", "/b/k", nil), after: replaceAuth("/20130524/", "/20130525/"), code: s3err.AuthorizationHeaderMalformed},
		{name: "unknown access key", r: signed("GET", "/b/k", nil), after: replaceAuth(docAK, "AKIDUNKNOWN"), code: s3err.InvalidAccessKeyID},
		{name: "missing date", r: signed("GET", "/b/k", nil), after: func(r *http.Request) { r.Header.Del("X-Amz-Date") },
			code: s3err.AccessDenied, msg: "AWS authentication requires a valid Date or x-amz-date header"},
		{name: "bad date", r: signed("GET", "/b/k", nil), after: func(r *http.Request) { r.Header.Set("X-Amz-Date", "2013-05-24") },
			code: s3err.AccessDenied},
		{name: "missing content sha256", r: signed("GET", "/b/k", nil), after: func(r *http.Request) { r.Header.Del("X-Amz-Content-Sha256") },
			code: s3err.InvalidRequest, msg: "Missing required header for this request: x-amz-content-sha256"},
		{name: "bad content sha256", r: signed("GET", "/b/k", nil), after: func(r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", "abc") },
			code: s3err.InvalidArgument},
		{name: "tampered path", r: signed("GET", "/b/k", nil), after: func(r *http.Request) { r.RequestURI = "/b/k2" }, code: s3err.SignatureDoesNotMatch},
		{name: "tampered query", r: signed("GET", "/b?list-type=2", nil), after: func(r *http.Request) { r.RequestURI = "/b?list-type=1" }, code: s3err.SignatureDoesNotMatch},
		{name: "tampered method", r: signed("GET", "/b/k", nil), after: func(r *http.Request) { r.Method = "DELETE" }, code: s3err.SignatureDoesNotMatch},
		{name: "tampered host", r: signed("GET", "/b/k", nil), after: func(r *http.Request) { r.Host = "other" }, code: s3err.SignatureDoesNotMatch},
		{name: "tampered signed header", r: signed("GET", "/b/k", func(r *http.Request) { r.Header.Set("Range", "bytes=0-1") }),
			after: func(r *http.Request) { r.Header.Set("Range", "bytes=0-2") }, code: s3err.SignatureDoesNotMatch},
		{name: "bad signature hex", r: signed("GET", "/b/k", nil), after: func(r *http.Request) {
			a := r.Header.Get("Authorization")
			r.Header.Set("Authorization", a[:len(a)-1]+"x")
		}, code: s3err.SignatureDoesNotMatch},
		{name: "signature in uppercase hex", r: signed("GET", "/b/k", nil), after: func(r *http.Request) {
			a := r.Header.Get("Authorization")
			i := strings.LastIndex(a, "=") + 1
			r.Header.Set("Authorization", a[:i]+strings.ToUpper(a[i:]))
		}, code: s3err.SignatureDoesNotMatch},
		{name: "unsigned x-amz header", r: signed("GET", "/b/k", nil), after: func(r *http.Request) { r.Header.Set("X-Amz-Acl", "public-read") },
			code: s3err.AccessDenied, msg: "There were headers present in the request which were not signed"},
		{name: "host not signed", r: signed("GET", "/b/k", nil), after: replaceAuth("host;", ""), code: s3err.AuthorizationHeaderMalformed},
		{name: "header and query", r: signed("GET", "/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256", nil), code: s3err.InvalidArgument},
		{name: "skew past", r: signed("GET", "/b/k", nil), after: func(r *http.Request) {}, code: s3err.RequestTimeTooSkewed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := docVerifier()
			if tt.code == s3err.RequestTimeTooSkewed {
				v.o.Now = func() time.Time { return docTime.Add(16 * time.Minute) }
			}
			if tt.after != nil {
				tt.after(tt.r)
			}
			a, err := v.Verify(tt.r)
			if tt.code == 0 && tt.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				if a.AccessKeyID != docAK || a.PayloadHash != emptySHA256 {
					t.Fatalf("Auth = %+v", a)
				}
				return
			}
			wantCode(t, err, tt.code, tt.msg)
		})
	}
}

func TestSkewWithinLimit(t *testing.T) {
	for _, d := range []time.Duration{-14 * time.Minute, 14 * time.Minute} {
		v := docVerifier()
		v.o.Now = func() time.Time { return docTime.Add(d) }
		if _, err := v.Verify(signed("GET", "/b/k", nil)); err != nil {
			t.Errorf("skew %v: %v", d, err)
		}
	}
	v := NewVerifier(Options{Credentials: creds{docAK: docSecret}, Now: func() time.Time { return docTime.Add(-16 * time.Minute) }})
	_, err := v.Verify(signed("GET", "/b/k", nil))
	wantCode(t, err, s3err.RequestTimeTooSkewed, "")
}

// TestDateHeader signs with the Date header instead of X-Amz-Date.
func TestDateHeader(t *testing.T) {
	r := httptest.NewRequest("GET", "/b/k", nil)
	r.Host = "example.com"
	r.Header.Set("Date", docTime.Format(http.TimeFormat))
	r.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	sh := []string{"date", "host", "x-amz-content-sha256"}
	pairs, _ := parseQuery("")
	sig, scope := sign(r, pairs, "", sh, docSecret, "us-east-1", docTime.Format(amzDateFmt), emptySHA256)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+docAK+"/"+scope+", SignedHeaders=date;host;x-amz-content-sha256, Signature="+sig)
	if _, err := docVerifier().Verify(r); err != nil {
		t.Fatal(err)
	}
}

func TestAnonymous(t *testing.T) {
	r := httptest.NewRequest("GET", "/b/k?prefix=x", nil)
	a, err := docVerifier().Verify(r)
	if err != nil || !a.Anonymous || a.PayloadHash != UnsignedPayload || a.AccessKeyID != "" {
		t.Fatalf("Verify = %+v, %v", a, err)
	}
	r = httptest.NewRequest("GET", "/b/k?AWSAccessKeyId=AK&Signature=x&Expires=1", nil)
	_, err = docVerifier().Verify(r)
	wantCode(t, err, s3err.InvalidRequest, "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.")
}

func presigned(target string, expires time.Duration) *http.Request {
	r := httptest.NewRequest("GET", "http://example.com"+target, nil)
	r.RequestURI = ""
	Presign(r, docAK, docSecret, "us-east-1", docTime, expires)
	return serverRequest(r)
}

func TestVerifyPresignedErrors(t *testing.T) {
	setQuery := func(k, v string) func(*http.Request) {
		return func(r *http.Request) {
			q := r.URL.Query()
			q.Set(k, v)
			r.URL.RawQuery = q.Encode()
			r.RequestURI = r.URL.RequestURI()
		}
	}
	tests := []struct {
		name  string
		r     *http.Request
		after func(*http.Request)
		now   time.Duration
		code  s3err.Code
		msg   string
	}{
		{name: "ok", r: presigned("/b/k", time.Hour)},
		{name: "ok with query", r: presigned("/b/k?response-content-type=text%2Fplain&versionId=", time.Hour)},
		{name: "ok at expiry", r: presigned("/b/k", time.Hour), now: time.Hour},
		{name: "expired", r: presigned("/b/k", time.Hour), now: time.Hour + time.Second, code: s3err.AccessDenied, msg: "Request has expired"},
		{name: "not yet valid", r: presigned("/b/k", time.Hour), now: -time.Hour, code: s3err.AccessDenied, msg: "Request is not valid yet"},
		{name: "expires zero", r: presigned("/b/k", 0), code: s3err.AuthorizationQueryParametersError},
		{name: "expires over a week", r: presigned("/b/k", 604801*time.Second), code: s3err.AuthorizationQueryParametersError},
		{name: "expires a week", r: presigned("/b/k", 604800*time.Second)},
		{name: "expires not a number", r: presigned("/b/k", time.Hour), after: setQuery("X-Amz-Expires", "soon"), code: s3err.AuthorizationQueryParametersError},
		{name: "bad algorithm", r: presigned("/b/k", time.Hour), after: setQuery("X-Amz-Algorithm", "AWS4-HMAC-SHA1"), code: s3err.AuthorizationQueryParametersError},
		{name: "missing signature", r: presigned("/b/k", time.Hour), after: setQuery("X-Amz-Signature", ""), code: s3err.AuthorizationQueryParametersError},
		{name: "bad date", r: presigned("/b/k", time.Hour), after: setQuery("X-Amz-Date", "20130524"), code: s3err.AuthorizationQueryParametersError},
		{name: "wrong region", r: presigned("/b/k", time.Hour), after: setQuery("X-Amz-Credential", docAK+"/20130524/eu-west-1/s3/aws4_request"),
			code: s3err.AuthorizationQueryParametersError, msg: "Error parsing the X-Amz-Credential parameter; the region 'eu-west-1' is wrong; expecting 'us-east-1'"},
		{name: "unknown key", r: presigned("/b/k", time.Hour), after: setQuery("X-Amz-Credential", "NOPE/20130524/us-east-1/s3/aws4_request"), code: s3err.InvalidAccessKeyID},
		{name: "tampered expires", r: presigned("/b/k", time.Hour), after: setQuery("X-Amz-Expires", "7200"), code: s3err.SignatureDoesNotMatch},
		{name: "added query", r: presigned("/b/k", time.Hour), after: setQuery("acl", ""), code: s3err.SignatureDoesNotMatch},
		{name: "unsigned x-amz header", r: presigned("/b/k", time.Hour), after: func(r *http.Request) { r.Header.Set("X-Amz-Acl", "public-read") }, code: s3err.AccessDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := docVerifier()
			v.o.Now = func() time.Time { return docTime.Add(tt.now) }
			if tt.after != nil {
				tt.after(tt.r)
			}
			a, err := v.Verify(tt.r)
			if tt.code == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if !a.Presigned || a.PayloadHash != UnsignedPayload {
					t.Fatalf("Auth = %+v", a)
				}
				return
			}
			wantCode(t, err, tt.code, tt.msg)
		})
	}
}

func TestKeyCacheBounded(t *testing.T) {
	var c keyCache
	for i := 0; i < keyCacheSize*2; i++ {
		k := c.get("secret", "2013052"+string(rune('0'+i%10)), strings.Repeat("r", i))
		if len(k) != sha256.Size {
			t.Fatal("bad key length")
		}
	}
	if len(c.m) > keyCacheSize {
		t.Fatalf("cache holds %d keys, bound is %d", len(c.m), keyCacheSize)
	}
	if hex.EncodeToString(c.get(docSecret, "20130524", "us-east-1")) != hex.EncodeToString(SigningKey(docSecret, "20130524", "us-east-1", "s3")) {
		t.Fatal("cached key differs from derived key")
	}
}

func FuzzVerifyHeader(f *testing.F) {
	// Seeds: a valid header, the SigV2 form, spacing variants and junk.
	valid := signed("GET", "/b/k", nil).Header.Get("Authorization")
	f.Add(valid)
	f.Add(strings.ReplaceAll(valid, ", ", ","))
	f.Add("AWS AKIAIOSFODNN7EXAMPLE:sig")
	f.Add("AWS4-HMAC-SHA256 Credential=/////, SignedHeaders=;;, Signature=")
	f.Add("AWS4-HMAC-SHA256")
	f.Add("AWS4-HMAC-SHA256 ,,,==,Credential==")
	f.Fuzz(func(t *testing.T, authz string) {
		r := signed("GET", "/b/k", nil)
		r.Header.Set("Authorization", authz)
		a, err := docVerifier().Verify(r)
		if err != nil {
			var e *s3err.Error
			if !errors.As(err, &e) {
				t.Fatalf("non-S3 error %T: %v", err, err)
			}
			return
		}
		if a.Anonymous {
			if authz != "" {
				t.Fatalf("header %q treated as anonymous", authz)
			}
			return
		}
		// Only the valid signature's header forms can succeed.
		if !strings.Contains(authz, valid[strings.LastIndex(valid, "=")+1:]) {
			t.Fatalf("accepted %q", authz)
		}
	})
}

func FuzzVerifyQuery(f *testing.F) {
	f.Add(presigned("/b/k", time.Hour).URL.RawQuery)
	f.Add("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=-1")
	f.Add("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=%2F%2F&X-Amz-Date=x&X-Amz-Expires=1&X-Amz-SignedHeaders=host&X-Amz-Signature=00")
	f.Add("a=%zz&&=&X-Amz-Algorithm")
	f.Fuzz(func(t *testing.T, q string) {
		r := httptest.NewRequest("GET", "/b/k", nil)
		r.URL.RawQuery = q
		r.RequestURI = "/b/k?" + q
		_, err := docVerifier().Verify(r)
		if err != nil {
			var e *s3err.Error
			if !errors.As(err, &e) {
				t.Fatalf("non-S3 error %T: %v", err, err)
			}
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	r := signed("GET", "/bucket/photos/2024/img_0001.jpg", func(r *http.Request) {
		r.Header.Set("Range", "bytes=0-1023")
		r.Header.Set("User-Agent", "aws-sdk-go-v2/1.0")
	})
	v := docVerifier()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyPresigned verifies a presigned GET, the request of the
// CPU-per-request figures in docs/performance.md.
func BenchmarkVerifyPresigned(b *testing.B) {
	r := presigned("/bucket/photos/2024/img_0001.jpg", time.Hour)
	v := docVerifier()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseQuery splits a presigned URL's query into its pairs.
func BenchmarkParseQuery(b *testing.B) {
	raw := presigned("/bucket/photos/2024/img_0001.jpg", time.Hour).URL.RawQuery
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseQuery(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignRequest measures the client signer the bench tool and the
// edge's upstream client sign each request with.
func BenchmarkSignRequest(b *testing.B) {
	r := httptest.NewRequest(http.MethodHead, "http://127.0.0.1:9000/bench/small/obj", nil)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		SignRequest(r, "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", now, UnsignedPayload)
	}
}

// TestSignedHeadersListedTwice sends SignedHeaders that name a header more
// than once. The canonical request holds a header's values once for each
// time it is listed, so a header of 30 KB listed 7,000 times, in 58 KB of
// headers, made a canonical request of 210 MB (1.3 GB of RSS for one
// request, and the canonical request again in the SignatureDoesNotMatch
// answer) for anyone who knows an access key id. Such a list is malformed,
// found before the canonical request is built; an unsorted list of
// distinct names is still verified.
func TestSignedHeadersListedTwice(t *testing.T) {
	big := strings.Repeat("a", 30000)
	withBig := func(r *http.Request) { r.Header.Set("X-B", big) }
	repeat := strings.TrimSuffix(strings.Repeat("x-b;", 7000), ";")
	cases := []struct {
		name, old, new string
		code           s3err.Code
	}{
		{"listed 7000 times", "x-b", repeat, s3err.AuthorizationHeaderMalformed},
		{"listed twice, unsorted", "host;x-amz-content-sha256;x-amz-date;x-b", "x-b;host;x-amz-content-sha256;x-amz-date;x-b", s3err.AuthorizationHeaderMalformed},
		{"unsorted, each once", "host;x-amz-content-sha256;x-amz-date;x-b", "x-b;x-amz-date;x-amz-content-sha256;host", s3err.SignatureDoesNotMatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := signed("GET", "/b/k", withBig)
			auth := r.Header.Get("Authorization")
			if !strings.Contains(auth, "SignedHeaders="+"host;x-amz-content-sha256;x-amz-date;x-b,") {
				t.Fatalf("unexpected Authorization %q", auth)
			}
			r.Header.Set("Authorization", strings.Replace(auth, c.old, c.new, 1))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := docVerifier().Verify(r)
			runtime.ReadMemStats(&after)
			wantCode(t, err, c.code, "")
			if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
				t.Fatalf("verifying allocated %d bytes", n)
			}
		})
	}
	r := presigned("/b/k", time.Hour)
	r.URL.RawQuery = strings.Replace(r.URL.RawQuery, "X-Amz-SignedHeaders=host", "X-Amz-SignedHeaders=host%3Bhost", 1)
	r.RequestURI = r.URL.RequestURI()
	_, err := docVerifier().Verify(r)
	wantCode(t, err, s3err.AuthorizationQueryParametersError, "")
}
