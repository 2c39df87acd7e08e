package awschunked_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/pkg/awschunked"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

const (
	ak     = "AKIDTEST"
	secret = "test/secret"
	region = "us-east-1"
)

var when = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

type creds map[string]string

func (c creds) SecretKey(k string) (string, bool) { s, ok := c[k]; return s, ok }

// signer is the client side of the chunk signature chain, written from
// the AWS documentation independently of pkg/sigv4's verifier.
type signer struct {
	key          []byte
	date, scope  string
	prev         string
	corruptChunk int // 1-based chunk index whose signature is corrupted; 0 none
	n            int
}

func (s *signer) hmac(sts string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(sts))
	return hex.EncodeToString(m.Sum(nil))
}

func (s *signer) chunk(data []byte) string {
	sum := sha256.Sum256(data)
	sig := s.hmac("AWS4-HMAC-SHA256-PAYLOAD\n" + s.date + "\n" + s.scope + "\n" + s.prev + "\n" +
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n" + hex.EncodeToString(sum[:]))
	s.prev = sig
	s.n++
	if s.n == s.corruptChunk {
		return strings.Repeat("0", 64)
	}
	return sig
}

func (s *signer) trailer(lines []byte) string {
	sum := sha256.Sum256(lines)
	return s.hmac("AWS4-HMAC-SHA256-TRAILER\n" + s.date + "\n" + s.scope + "\n" + s.prev + "\n" + hex.EncodeToString(sum[:]))
}

// newSigned authenticates a streaming request through pkg/sigv4 and
// returns the resulting verifier plus a client-side signer seeded the same.
func newSigned(t testing.TB, mode string) (*sigv4.ChunkVerifier, *signer) {
	t.Helper()
	r := httptest.NewRequest("PUT", "http://gw.example/bucket/key", nil)
	r.RequestURI = ""
	r.Header.Set("Content-Encoding", "aws-chunked")
	sigv4.SignRequest(r, ak, secret, region, when, mode)
	v := sigv4.NewVerifier(sigv4.Options{Region: region, Credentials: creds{ak: secret}, Now: func() time.Time { return when }})
	a, err := v.Verify(r)
	if err != nil {
		t.Fatal(err)
	}
	authz := r.Header.Get("Authorization")
	seed := authz[strings.LastIndex(authz, "=")+1:]
	date := when.Format("20060102")
	return a.ChunkVerifier(), &signer{
		key:   sigv4.SigningKey(secret, date, region, "s3"),
		date:  when.Format("20060102T150405Z"),
		scope: date + "/" + region + "/s3/aws4_request",
		prev:  seed,
	}
}

// encode builds an aws-chunked body. With s nil the chunks are unsigned.
// trailer lines are "name:value"; they are signed when s is set.
func encode(chunks []string, s *signer, trailer []string) []byte {
	var b bytes.Buffer
	for _, c := range append(chunks, "") {
		fmt.Fprintf(&b, "%x", len(c))
		if s != nil {
			b.WriteString(";chunk-signature=" + s.chunk([]byte(c)))
		}
		b.WriteString("\r\n")
		if c != "" {
			b.WriteString(c + "\r\n")
		}
	}
	var signed bytes.Buffer
	for _, l := range trailer {
		b.WriteString(l + "\r\n")
		signed.WriteString(l + "\n")
	}
	if s != nil && trailer != nil {
		b.WriteString("x-amz-trailer-signature:" + s.trailer(signed.Bytes()) + "\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

func code(err error) s3err.Code {
	var e *s3err.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return -1
}

func TestModes(t *testing.T) {
	chunks := []string{strings.Repeat("a", 8192), "hello", strings.Repeat("z", 1)}
	want := strings.Join(chunks, "")
	crc := checksum.CRC32.New()
	crc.Write([]byte(want))
	crcLine := "x-amz-checksum-crc32:" + b64(crc.Sum(nil))

	tests := []struct {
		name    string
		mode    string
		trailer []string
	}{
		{"signed", sigv4.StreamingPayload, nil},
		{"signed trailer", sigv4.StreamingPayloadTrailer, []string{crcLine}},
		{"signed empty trailer", sigv4.StreamingPayloadTrailer, []string{}},
		{"unsigned trailer", sigv4.StreamingUnsignedTrailer, []string{crcLine}},
	}
	for _, tt := range tests {
		for _, reader := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{{"whole", func(r io.Reader) io.Reader { return r }}, {"onebyte", iotest.OneByteReader}, {"half", iotest.HalfReader}} {
			t.Run(tt.name+"/"+reader.name, func(t *testing.T) {
				o := awschunked.Options{Trailer: tt.trailer != nil, TrailerNames: crc32Name, DecodedLength: int64(len(want))}
				var s *signer
				if tt.mode != sigv4.StreamingUnsignedTrailer {
					var cv *sigv4.ChunkVerifier
					cv, s = newSigned(t, tt.mode)
					o.Verifier = cv
				}
				body := encode(chunks, s, tt.trailer)
				r := awschunked.NewReader(reader.wrap(bytes.NewReader(body)), o)
				got, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Fatalf("decoded %d bytes, want %d", len(got), len(want))
				}
				if len(tt.trailer) > 0 && r.Trailer().Get("X-Amz-Checksum-Crc32") != b64(crc.Sum(nil)) {
					t.Fatalf("trailer = %v", r.Trailer())
				}
				if r.Trailer().Get("X-Amz-Trailer-Signature") != "" {
					t.Fatal("the trailer signature must not be exposed as a field")
				}
				if n, err := r.Read(make([]byte, 10)); n != 0 || err != io.EOF {
					t.Fatalf("read after EOF = %d, %v", n, err)
				}
			})
		}
	}
}

func b64(b []byte) string { return base64Std(b) }

// crc32Name is what x-amz-trailer announces for a CRC32 trailer.
var crc32Name = []string{"x-amz-checksum-crc32"}

// metaNames returns n distinct trailer field names, x-amz-meta-0 on.
func metaNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = "x-amz-meta-" + strconv.Itoa(i)
	}
	return names
}

// metaLines returns one trailer line of size bytes for each of metaNames(n).
func metaLines(n, size int) string {
	var b strings.Builder
	for _, name := range metaNames(n) {
		b.WriteString(name + ":" + strings.Repeat("b", size) + "\r\n")
	}
	return b.String()
}

// TestBadSignatures checks that a bad chunk fails before any byte of the
// next chunk is returned, and that trailer tampering is caught.
func TestBadSignatures(t *testing.T) {
	chunks := []string{"first-chunk", "second-chunk", "third"}
	for bad := 1; bad <= 4; bad++ {
		cv, s := newSigned(t, sigv4.StreamingPayload)
		s.corruptChunk = bad
		body := encode(chunks, s, nil)
		r := awschunked.NewReader(iotest.OneByteReader(bytes.NewReader(body)), awschunked.Options{Verifier: cv, DecodedLength: -1})
		got, err := io.ReadAll(r)
		if code(err) != s3err.SignatureDoesNotMatch {
			t.Fatalf("corrupt chunk %d: err = %v", bad, err)
		}
		if want := strings.Join(chunks[:min(bad, 3)], ""); string(got) != want {
			t.Fatalf("corrupt chunk %d: returned %q, want at most %q", bad, got, want)
		}
	}

	// A trailer changed after signing.
	cv, s := newSigned(t, sigv4.StreamingPayloadTrailer)
	body := encode(chunks, s, []string{"x-amz-checksum-crc32:AAAAAA=="})
	body = bytes.Replace(body, []byte("AAAAAA=="), []byte("AAAAAB=="), 1)
	_, err := io.ReadAll(awschunked.NewReader(bytes.NewReader(body), awschunked.Options{Verifier: cv, Trailer: true, TrailerNames: crc32Name, DecodedLength: -1}))
	if code(err) != s3err.SignatureDoesNotMatch {
		t.Fatalf("tampered trailer: %v", err)
	}

	// A signed trailer without its signature: minio-go sends an empty line
	// between the fields and the signature line, so the body reads as one
	// cut short before its signature.
	cv, s = newSigned(t, sigv4.StreamingPayloadTrailer)
	body = encode(chunks, s, nil)
	body = append(body[:len(body)-2], "x-amz-checksum-crc32:AAAAAA==\r\n\r\n"...)
	_, err = io.ReadAll(awschunked.NewReader(bytes.NewReader(body), awschunked.Options{Verifier: cv, Trailer: true, TrailerNames: crc32Name, DecodedLength: -1}))
	if code(err) != s3err.IncompleteBody {
		t.Fatalf("unsigned trailer in signed mode: %v", err)
	}

	// Signed mode refuses chunks without a signature.
	cv, _ = newSigned(t, sigv4.StreamingPayload)
	_, err = io.ReadAll(awschunked.NewReader(bytes.NewReader(encode(chunks, nil, nil)), awschunked.Options{Verifier: cv, DecodedLength: -1}))
	if code(err) != s3err.SignatureDoesNotMatch {
		t.Fatalf("unsigned chunks in signed mode: %v", err)
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		trailer bool
		decoded int64
		code    s3err.Code
	}{
		{"empty body", "", false, -1, s3err.IncompleteBody},
		{"bad size", "zz\r\nab\r\n0\r\n\r\n", false, -1, s3err.IncompleteBody},
		{"negative size", "-1\r\n0\r\n\r\n", false, -1, s3err.IncompleteBody},
		{"17 digits", "00000000000000001\r\na\r\n0\r\n\r\n", false, -1, s3err.IncompleteBody},
		{"overflow", "ffffffffffffffff\r\na\r\n0\r\n\r\n", false, -1, s3err.IncompleteBody},
		{"huge chunk truncated", "7fffffffffffffff\r\nabc", false, -1, s3err.IncompleteBody},
		{"header too long", "1;" + strings.Repeat("x", 5000) + "\r\na\r\n0\r\n\r\n", false, -1, s3err.IncompleteBody},
		{"no crlf after data", "2\r\nabc\r\n0\r\n\r\n", false, -1, s3err.IncompleteBody},
		{"short data", "5\r\nabc", false, -1, s3err.IncompleteBody},
		{"no final chunk", "3\r\nabc\r\n", false, -1, s3err.IncompleteBody},
		{"longer than decoded", "3\r\nabc\r\n0\r\n\r\n", false, 2, s3err.IncompleteBody},
		{"shorter than decoded", "3\r\nabc\r\n0\r\n\r\n", false, 4, s3err.IncompleteBody},
		{"unexpected trailer", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n", false, -1, s3err.MalformedTrailerError},
		{"trailer without colon", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32\r\n\r\n", true, -1, s3err.MalformedTrailerError},
		{"trailer too long", "3\r\nabc\r\n0\r\n" + metaLines(17, 1000) + "\r\n", true, -1, s3err.MalformedTrailerError},
		{"trailer line truncated", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAA", true, -1, s3err.IncompleteBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := awschunked.Options{Trailer: tt.trailer, TrailerNames: append(metaNames(17), crc32Name...), DecodedLength: tt.decoded}
			_, err := io.ReadAll(awschunked.NewReader(strings.NewReader(tt.body), o))
			if code(err) != tt.code {
				t.Fatalf("err = %v, want %v", err, tt.code)
			}
		})
	}
}

func TestLenient(t *testing.T) {
	tests := []struct {
		name, body string
		trailer    bool
		want       string
		field      string
	}{
		{"final CRLF missing", "3\r\nabc\r\n0\r\n", false, "abc", ""},
		{"trailer final CRLF missing", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32:QixqFQ==\r\n", true, "abc", "QixqFQ=="},
		{"bare LF", "3\nabc\n0\n\n", false, "abc", ""},
		{"unsigned ignores extensions", "3;chunk-signature=xyz;foo\r\nabc\r\n0;bar=baz\r\n\r\n", false, "abc", ""},
		{"upper-case hex", "A\r\n0123456789\r\n0\r\n\r\n", false, "0123456789", ""},
		{"unsigned trailer signature ignored", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32:QixqFQ==\r\nx-amz-trailer-signature:00\r\n\r\n", true, "abc", "QixqFQ=="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := awschunked.NewReader(strings.NewReader(tt.body), awschunked.Options{Trailer: tt.trailer, TrailerNames: crc32Name, DecodedLength: int64(len(tt.want))})
			got, err := io.ReadAll(r)
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadAll = %q, %v", got, err)
			}
			if r.Trailer().Get("X-Amz-Checksum-Crc32") != tt.field {
				t.Fatalf("trailer = %v", r.Trailer())
			}
		})
	}
}

// TestTrailerFieldsAnnounced sends, signed and unsigned, trailers whose
// fields differ from what x-amz-trailer announced: a field it did not name
// and a field sent twice are refused, since the caller verifies only the
// one value it asked for.
func TestTrailerFieldsAnnounced(t *testing.T) {
	chunks := []string{"hello"}
	good := checksum.CRC32.New()
	good.Write([]byte("hello"))
	crcLine := "x-amz-checksum-crc32:" + b64(good.Sum(nil))
	otherLine := "x-amz-checksum-crc32:AAAAAA=="
	tests := []struct {
		name    string
		names   []string
		trailer []string
		code    s3err.Code // 0: accepted
	}{
		{"announced", crc32Name, []string{crcLine}, 0},
		{"announced in other case", []string{"X-Amz-Checksum-CRC32"}, []string{"X-AMZ-CHECKSUM-CRC32:" + b64(good.Sum(nil))}, 0},
		{"nothing announced", nil, []string{crcLine}, s3err.MalformedTrailerError},
		{"other checksum announced", []string{"x-amz-checksum-crc32c"}, []string{crcLine}, s3err.MalformedTrailerError},
		{"extra field", crc32Name, []string{crcLine, "x-amz-checksum-crc32c:AAAAAA=="}, s3err.MalformedTrailerError},
		{"extra field first", crc32Name, []string{"x-amz-meta-a:b", crcLine}, s3err.MalformedTrailerError},
		{"repeated, good first", crc32Name, []string{crcLine, otherLine}, s3err.MalformedTrailerError},
		{"repeated, good last", crc32Name, []string{otherLine, crcLine}, s3err.MalformedTrailerError},
		{"repeated identically", crc32Name, []string{crcLine, crcLine}, s3err.MalformedTrailerError},
	}
	for _, mode := range []string{sigv4.StreamingPayloadTrailer, sigv4.StreamingUnsignedTrailer} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				o := awschunked.Options{Trailer: true, TrailerNames: tt.names, DecodedLength: 5}
				var s *signer
				if mode == sigv4.StreamingPayloadTrailer {
					o.Verifier, s = newSigned(t, mode)
				}
				r := awschunked.NewReader(bytes.NewReader(encode(chunks, s, tt.trailer)), o)
				got, err := io.ReadAll(r)
				if tt.code == 0 {
					if err != nil || string(got) != "hello" {
						t.Fatalf("ReadAll = %q, %v", got, err)
					}
					if v := r.Trailer().Values("X-Amz-Checksum-Crc32"); len(v) != 1 || v[0] != b64(good.Sum(nil)) {
						t.Fatalf("trailer = %v", r.Trailer())
					}
					return
				}
				if code(err) != tt.code {
					t.Fatalf("err = %v, want %v", err, tt.code)
				}
			})
		}
	}
}

// TestTruncatedEverywhere cuts a body of each mode at every offset: the
// only cuts that may succeed are those removing just the final line end.
func TestTruncatedEverywhere(t *testing.T) {
	chunks := []string{"0123456789", "ab"}
	for _, mode := range []string{sigv4.StreamingPayload, sigv4.StreamingPayloadTrailer, sigv4.StreamingUnsignedTrailer} {
		trailer := []string(nil)
		if mode != sigv4.StreamingPayload {
			trailer = []string{"x-amz-checksum-crc32:AAAAAA=="}
		}
		_, s := newSigned(t, mode)
		if mode == sigv4.StreamingUnsignedTrailer {
			s = nil
		}
		body := encode(chunks, s, trailer)
		for cut := 0; cut < len(body); cut++ {
			o := awschunked.Options{Trailer: trailer != nil, TrailerNames: crc32Name, DecodedLength: 12}
			if s != nil {
				o.Verifier, _ = newSigned(t, mode)
			}
			got, err := io.ReadAll(awschunked.NewReader(bytes.NewReader(body[:cut]), o))
			if err == nil {
				if cut < len(body)-2 || string(got) != "0123456789ab" {
					t.Fatalf("%s: cut at %d/%d succeeded", mode, cut, len(body))
				}
				continue
			}
			if c := code(err); c != s3err.IncompleteBody && c != s3err.MalformedTrailerError {
				t.Fatalf("%s: cut at %d: err = %v", mode, cut, err)
			}
		}
	}
}

// errAfter returns data then a non-EOF error, like a timed-out connection.
type errAfter struct {
	r   io.Reader
	err error
}

func (e *errAfter) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, e.err
	}
	return n, err
}

func TestReaderErrorPassesThrough(t *testing.T) {
	boom := errors.New("connection reset")
	r := awschunked.NewReader(&errAfter{strings.NewReader("5\r\nab"), boom}, awschunked.Options{DecodedLength: -1})
	_, err := io.ReadAll(r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the transport error", err)
	}
}

// TestSDKBody decodes the body a real aws-sdk-go-v2 S3 client sends for
// PutObject over TLS (STREAMING-UNSIGNED-PAYLOAD-TRAILER with a CRC32
// trailer, its default) and checks the trailer with pkg/checksum, the way
// the HTTP layer will wire them.
func TestSDKBody(t *testing.T) {
	payload := bytes.Repeat([]byte("objectgateway-"), 20000) // 280 kB, several chunks
	type result struct {
		data  []byte
		err   error
		alg   checksum.Algorithm
		value string
	}
	results := make(chan result, 1)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dl, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64)
		if err != nil || r.Header.Get("X-Amz-Content-Sha256") != sigv4.StreamingUnsignedTrailer {
			results <- result{err: fmt.Errorf("unexpected headers %v", r.Header)}
			return
		}
		e, err := checksum.FromHeader(r.Header)
		if err != nil {
			results <- result{err: err}
			return
		}
		cr := awschunked.NewReader(r.Body, awschunked.Options{Trailer: true, TrailerNames: r.Header.Values("X-Amz-Trailer"), DecodedLength: dl})
		e.Trailer = func() string { return cr.Trailer().Get(e.Algorithm.Header()) }
		vr, err := checksum.NewReader(cr, e)
		if err != nil {
			results <- result{err: err}
			return
		}
		data, err := io.ReadAll(vr)
		alg, v := vr.Checksum()
		results <- result{data, err, alg, v}
	}))
	defer srv.Close()
	client := s3.New(s3.Options{
		Region:                     region,
		Credentials:                credentials.NewStaticCredentialsProvider(ak, secret, ""),
		HTTPClient:                 srv.Client(),
		BaseEndpoint:               aws.String(srv.URL),
		UsePathStyle:               true,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
	})
	// SHA512 is the newest algorithm the SDK computes itself (it sends MD5
	// and the xxhashes only as values the caller precomputed).
	for _, alg := range []checksum.Algorithm{checksum.None, checksum.CRC32C, checksum.CRC64NVME, checksum.SHA256, checksum.SHA512} {
		in := &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), Body: bytes.NewReader(payload)}
		if alg != checksum.None {
			in.ChecksumAlgorithm = s3Algorithm(alg)
		}
		if _, err := client.PutObject(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		res := <-results
		if res.err != nil {
			t.Fatalf("%v: %v", alg, res.err)
		}
		if !bytes.Equal(res.data, payload) {
			t.Fatalf("%v: decoded %d bytes, want %d", alg, len(res.data), len(payload))
		}
		want := alg
		if alg == checksum.None {
			want = checksum.CRC32 // the SDK's default request checksum
		}
		h := want.New()
		h.Write(payload)
		if res.alg != want || res.value != b64(h.Sum(nil)) {
			t.Fatalf("%v: checksum %v %s", alg, res.alg, res.value)
		}
	}
}

func FuzzReader(f *testing.F) {
	// Seeds: each mode's well-formed body, plus framing edge cases.
	f.Add([]byte("3\r\nabc\r\n0\r\n\r\n"), false, int64(-1))
	f.Add([]byte("3\r\nabc\r\n0\r\nx-amz-checksum-crc32:QixqFQ==\r\n\r\n"), true, int64(3))
	f.Add([]byte("3;chunk-signature=00\r\nabc\r\n0\r\n"), false, int64(3))
	f.Add([]byte("ffffffffffffffff\r\n"), false, int64(-1))
	f.Add([]byte("1\r\na\r\n1\r\nb\r\n0\r\nx:y\r\nx-amz-trailer-signature:zz\r\n\r\n"), true, int64(2))
	f.Add([]byte("0\n\n"), true, int64(0))
	f.Add([]byte("1\r\na\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\nX-Amz-Checksum-Crc32:AAAAAA==\r\n\r\n"), true, int64(1))
	f.Add([]byte("1\r\na\r\n0\r\nx-amz-checksum-crc32c:AAAAAA==\r\n\r\n"), true, int64(1))
	// The names of the newer algorithms, one announced (xxhash3) and the
	// others not, in the case SDKs and minio-go send them.
	f.Add([]byte("1\r\na\r\n0\r\nx-amz-checksum-xxhash3:AAAAAAAAAAA=\r\n\r\n"), true, int64(1))
	f.Add([]byte("1\r\na\r\n0\r\nX-Amz-Checksum-Xxhash128:AAAAAAAAAAAAAAAAAAAAAA==\r\n\r\n"), true, int64(1))
	f.Add([]byte("1\r\na\r\n0\r\nx-amz-checksum-sha512:"+strings.Repeat("A", 86)+"==\r\n\r\n"), true, int64(1))
	f.Add([]byte("1\r\na\r\n0\r\nx-amz-checksum-md5:AAAAAAAAAAAAAAAAAAAAAA==\r\nx-amz-checksum-xxhash64:AAAAAAAAAAA=\r\n\r\n"), true, int64(1))
	announced := []string{"x-amz-checksum-crc32", "x-amz-checksum-xxhash3"}
	f.Fuzz(func(t *testing.T, body []byte, trailer bool, decoded int64) {
		r := awschunked.NewReader(bytes.NewReader(body), awschunked.Options{Trailer: trailer, TrailerNames: announced, DecodedLength: decoded})
		got, err := io.ReadAll(r)
		// A clean decode exposes at most the announced fields, each once.
		for k, v := range r.Trailer() {
			if (k != "X-Amz-Checksum-Crc32" && k != "X-Amz-Checksum-Xxhash3") || len(v) != 1 {
				t.Fatalf("trailer field %q = %q was not announced once (err %v)", k, v, err)
			}
		}
		if len(got) > len(body) {
			t.Fatalf("decoded %d bytes from a %d-byte body", len(got), len(body))
		}
		if err != nil {
			if code(err) == -1 {
				t.Fatalf("non-S3 error %v", err)
			}
			return
		}
		if decoded >= 0 && int64(len(got)) != decoded {
			t.Fatalf("decoded %d bytes, x-amz-decoded-content-length %d", len(got), decoded)
		}
		// Differential: a clean decode re-encodes to a body that decodes
		// to the same bytes.
		again, err := io.ReadAll(awschunked.NewReader(bytes.NewReader(encode([]string{string(got)}, nil, nil)), awschunked.Options{DecodedLength: -1}))
		if len(got) > 0 && (err != nil || !bytes.Equal(again, got)) {
			t.Fatalf("re-encoded body decodes to %q, %v", again, err)
		}
	})
}

func BenchmarkReader(b *testing.B) {
	chunk := strings.Repeat("x", 64<<10)
	chunks := make([]string, 16) // 1 MiB
	for i := range chunks {
		chunks[i] = chunk
	}
	for _, mode := range []string{sigv4.StreamingPayload, sigv4.StreamingUnsignedTrailer} {
		b.Run(mode, func(b *testing.B) {
			_, s := newSigned(b, mode)
			if mode == sigv4.StreamingUnsignedTrailer {
				s = nil
			}
			body := encode(chunks, s, nil)
			buf := make([]byte, 32<<10)
			b.SetBytes(1 << 20)
			b.ReportAllocs()
			for b.Loop() {
				o := awschunked.Options{DecodedLength: 1 << 20}
				if s != nil {
					o.Verifier, _ = newSigned(b, mode)
				}
				r := awschunked.NewReader(bytes.NewReader(body), o)
				for {
					_, err := r.Read(buf)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
