package checksum

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc64"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// check is the standard "123456789" check input used by CRC catalogues.
const check = "123456789"

func TestKnownVectors(t *testing.T) {
	tests := []struct {
		alg  Algorithm
		want string // hex of the digest of check
	}{
		{CRC32, "cbf43926"},
		{CRC32C, "e3069283"},
		{CRC64NVME, "ae8b14860a799888"},
		{SHA1, "f7c3bc1d808e04732adf679965ccc34ca7ae3441"},
		{SHA256, "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225"},
		{SHA512, "d9e6762dd1c8eaf6d61b3c6192fc408d4d6d5f1176d0c29169bc24e71c3f274ad27fcd5811b313d681f7e55ec02d73d499c95455b6b5bb503acf574fba8ffe85"},
		{MD5, "25f9e794323b453885f5181f1b624d0b"},
	}
	for _, tt := range tests {
		h := tt.alg.New()
		h.Write([]byte(check))
		if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
			t.Errorf("%v(%q) = %s, want %s", tt.alg, check, got, tt.want)
		}
		if h.Size() != tt.alg.size() {
			t.Errorf("%v size %d, want %d", tt.alg, tt.alg.size(), h.Size())
		}
	}
}

// TestXXHashVectors checks the xxhash digests against the reference
// values xxHash publishes for the empty input (seed 0), in the canonical
// big-endian form S3 base64-encodes: XXH3-128 high half first.
func TestXXHashVectors(t *testing.T) {
	tests := []struct {
		alg  Algorithm
		want string
	}{
		{XXHASH64, "ef46db3751d8e999"},
		{XXHASH3, "2d06800538d394c2"},
		{XXHASH128, "99aa06d3014798d86001c324468d497f"},
	}
	for _, tt := range tests {
		h := tt.alg.New()
		if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
			t.Errorf("%v(\"\") = %s, want %s", tt.alg, got, tt.want)
		}
		if h.Size() != tt.alg.size() || len(h.Sum(nil)) != tt.alg.size() {
			t.Errorf("%v size %d, sum %d bytes, want %d", tt.alg, h.Size(), len(h.Sum(nil)), tt.alg.size())
		}
		// Sum must not consume the state: a streamed body is summed once
		// at EOF, but a retry of Sum must agree.
		h.Write([]byte(check))
		if a, b := h.Sum(nil), h.Sum(nil); !bytes.Equal(a, b) {
			t.Errorf("%v: Sum changed the state", tt.alg)
		}
	}
}

// TestCRC64NVMEMatchesSDK compares against the construction aws-sdk-go-v2
// uses (hash/crc64 with the reflected NVME polynomial).
func TestCRC64NVMEMatchesSDK(t *testing.T) {
	tab := crc64.MakeTable(0x9a6c9329ac4bc9b5)
	for _, s := range []string{"", "a", check, strings.Repeat("objectgateway", 1000)} {
		ref := crc64.New(tab)
		ref.Write([]byte(s))
		h := CRC64NVME.New()
		h.Write([]byte(s))
		if !bytes.Equal(ref.Sum(nil), h.Sum(nil)) {
			t.Errorf("CRC64NVME(%.10q) differs from the SDK construction", s)
		}
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		in     string
		want   Algorithm
		ok     bool
		header string
	}{
		{"CRC32", CRC32, true, "x-amz-checksum-crc32"},
		{"crc32c", CRC32C, true, "x-amz-checksum-crc32c"},
		{"crc64nvme", CRC64NVME, true, "x-amz-checksum-crc64nvme"},
		{"Sha1", SHA1, true, "x-amz-checksum-sha1"},
		{"SHA256", SHA256, true, "x-amz-checksum-sha256"},
		{"sha512", SHA512, true, "x-amz-checksum-sha512"},
		{"MD5", MD5, true, "x-amz-checksum-md5"},
		{"xxhash64", XXHASH64, true, "x-amz-checksum-xxhash64"},
		{"XXHASH3", XXHASH3, true, "x-amz-checksum-xxhash3"},
		{"XxHash128", XXHASH128, true, "x-amz-checksum-xxhash128"},
		{"XXHASH", None, false, ""},
		{"SHA384", None, false, ""},
		{"", None, false, ""},
	}
	for _, tt := range tests {
		got, ok := ParseAlgorithm(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseAlgorithm(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if got.Header() != tt.header {
			t.Errorf("%v.Header() = %q, want %q", got, got.Header(), tt.header)
		}
		if ok && !strings.EqualFold(got.String(), tt.in) {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	if None.New() != nil || None.String() != "" {
		t.Error("None must have no hash and no name")
	}
	if len(Algorithms()) != 10 || Algorithms()[0] != CRC32 {
		t.Errorf("Algorithms() = %v", Algorithms())
	}
}

func b64(alg Algorithm, s string) string {
	h := alg.New()
	h.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

func md5b64(s string) string {
	m := md5.Sum([]byte(s))
	return base64.StdEncoding.EncodeToString(m[:])
}

func wantCode(t *testing.T, err error, code s3err.Code) {
	t.Helper()
	var e *s3err.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *s3err.Error %v", err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %v (%v), want %v", e.Code, e.Text(), code)
	}
}

func TestFromHeader(t *testing.T) {
	tests := []struct {
		name    string
		h       map[string]string
		want    Expect
		code    s3err.Code
		wantErr bool
	}{
		{name: "empty", h: nil, want: Expect{}},
		{name: "md5", h: map[string]string{"Content-Md5": md5b64("x")}, want: Expect{ContentMD5: md5b64("x")}},
		{name: "md5 bad base64", h: map[string]string{"Content-Md5": "!!!"}, wantErr: true, code: s3err.InvalidDigest},
		{name: "md5 wrong length", h: map[string]string{"Content-Md5": "AAAAAA=="}, wantErr: true, code: s3err.InvalidDigest},
		{name: "crc32 header", h: map[string]string{"X-Amz-Checksum-Crc32": b64(CRC32, check)},
			want: Expect{Algorithm: CRC32, Value: b64(CRC32, check)}},
		{name: "sha256 header", h: map[string]string{"X-Amz-Checksum-Sha256": b64(SHA256, check)},
			want: Expect{Algorithm: SHA256, Value: b64(SHA256, check)}},
		{name: "crc32 wrong length", h: map[string]string{"X-Amz-Checksum-Crc32": b64(CRC64NVME, check)}, wantErr: true, code: s3err.InvalidRequest},
		{name: "crc32c not base64", h: map[string]string{"X-Amz-Checksum-Crc32c": "zzzz*==="}, wantErr: true, code: s3err.InvalidRequest},
		{name: "two checksum headers", h: map[string]string{
			"X-Amz-Checksum-Crc32": b64(CRC32, check), "X-Amz-Checksum-Sha1": b64(SHA1, check)}, wantErr: true, code: s3err.InvalidRequest},
		{name: "sdk algorithm only", h: map[string]string{"X-Amz-Sdk-Checksum-Algorithm": "crc32c"}, wantErr: true, code: s3err.InvalidRequest},
		{name: "sha512 header", h: map[string]string{"X-Amz-Checksum-Sha512": b64(SHA512, check)},
			want: Expect{Algorithm: SHA512, Value: b64(SHA512, check)}},
		{name: "md5 checksum header", h: map[string]string{"X-Amz-Checksum-Md5": b64(MD5, check), "X-Amz-Sdk-Checksum-Algorithm": "md5"},
			want: Expect{Algorithm: MD5, Value: b64(MD5, check)}},
		{name: "xxhash64 header", h: map[string]string{"X-Amz-Checksum-Xxhash64": b64(XXHASH64, check)},
			want: Expect{Algorithm: XXHASH64, Value: b64(XXHASH64, check)}},
		{name: "xxhash3 header", h: map[string]string{"X-Amz-Checksum-Xxhash3": b64(XXHASH3, check)},
			want: Expect{Algorithm: XXHASH3, Value: b64(XXHASH3, check)}},
		{name: "xxhash128 header", h: map[string]string{"X-Amz-Checksum-Xxhash128": b64(XXHASH128, check)},
			want: Expect{Algorithm: XXHASH128, Value: b64(XXHASH128, check)}},
		{name: "xxhash128 wrong length", h: map[string]string{"X-Amz-Checksum-Xxhash128": b64(XXHASH64, check)}, wantErr: true, code: s3err.InvalidRequest},
		{name: "xxhash3 trailer", h: map[string]string{"X-Amz-Trailer": "x-amz-checksum-xxhash3", "X-Amz-Sdk-Checksum-Algorithm": "XXHASH3"},
			want: Expect{Algorithm: XXHASH3, trailerNamed: true}},
		{name: "sha512 trailer", h: map[string]string{"X-Amz-Trailer": "x-amz-checksum-sha512"}, want: Expect{Algorithm: SHA512, trailerNamed: true}},
		{name: "sdk algorithm agrees", h: map[string]string{"X-Amz-Sdk-Checksum-Algorithm": "CRC32", "X-Amz-Checksum-Crc32": b64(CRC32, "")},
			want: Expect{Algorithm: CRC32, Value: b64(CRC32, "")}},
		{name: "sdk algorithm conflicts", h: map[string]string{"X-Amz-Sdk-Checksum-Algorithm": "SHA1", "X-Amz-Checksum-Crc32": b64(CRC32, "")}, wantErr: true, code: s3err.InvalidRequest},
		{name: "sdk algorithm unknown", h: map[string]string{"X-Amz-Sdk-Checksum-Algorithm": "SHA384"}, wantErr: true, code: s3err.InvalidRequest},
		{name: "trailer", h: map[string]string{"X-Amz-Trailer": "x-amz-checksum-crc64nvme", "X-Amz-Sdk-Checksum-Algorithm": "CRC64NVME"},
			want: Expect{Algorithm: CRC64NVME, trailerNamed: true}},
		{name: "trailer upper case", h: map[string]string{"X-Amz-Trailer": " X-Amz-Checksum-CRC32 "}, want: Expect{Algorithm: CRC32, trailerNamed: true}},
		{name: "trailer unknown", h: map[string]string{"X-Amz-Trailer": "x-amz-meta-foo"}, wantErr: true, code: s3err.InvalidRequest},
		{name: "trailer and header", h: map[string]string{"X-Amz-Trailer": "x-amz-checksum-crc32", "X-Amz-Checksum-Crc32": b64(CRC32, "")}, wantErr: true, code: s3err.InvalidRequest},
		{name: "trailer conflicts with sdk", h: map[string]string{"X-Amz-Trailer": "x-amz-checksum-crc32", "X-Amz-Sdk-Checksum-Algorithm": "SHA256"}, wantErr: true, code: s3err.InvalidRequest},
		{name: "unrelated checksum headers ignored", h: map[string]string{"X-Amz-Checksum-Type": "FULL_OBJECT", "X-Amz-Checksum-Algorithm": "CRC32"}, want: Expect{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.h {
				h.Set(k, v)
			}
			got, err := FromHeader(h)
			if tt.wantErr {
				wantCode(t, err, tt.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.ContentMD5 != tt.want.ContentMD5 || got.Algorithm != tt.want.Algorithm ||
				got.Value != tt.want.Value || got.InTrailer() != tt.want.InTrailer() || got.Trailer != nil {
				t.Fatalf("FromHeader = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestReader(t *testing.T) {
	body := "hello, objectgateway"
	sha := sha256.Sum256([]byte(body))
	shaHex := hex.EncodeToString(sha[:])
	tests := []struct {
		name     string
		e        Expect
		wantAlg  Algorithm
		wantCode s3err.Code
		wantErr  bool
	}{
		{name: "default computes crc64nvme", e: Expect{}, wantAlg: CRC64NVME},
		{name: "md5 ok", e: Expect{ContentMD5: md5b64(body)}, wantAlg: CRC64NVME},
		{name: "md5 bad", e: Expect{ContentMD5: md5b64("other")}, wantErr: true, wantCode: s3err.BadDigest},
		{name: "sha256 hex ok", e: Expect{SHA256Hex: shaHex}, wantAlg: CRC64NVME},
		{name: "sha256 hex upper ok", e: Expect{SHA256Hex: strings.ToUpper(shaHex)}, wantAlg: CRC64NVME},
		{name: "sha256 hex bad", e: Expect{SHA256Hex: strings.Repeat("0", 64)}, wantErr: true, wantCode: s3err.XAmzContentSHA256Mismatch},
		{name: "sha256 checksum and hex share a hash", e: Expect{SHA256Hex: shaHex, Algorithm: SHA256, Value: b64(SHA256, body)}, wantAlg: SHA256},
		{name: "requested without value", e: Expect{Algorithm: SHA1}, wantAlg: SHA1},
		{name: "crc32 bad", e: Expect{Algorithm: CRC32, Value: b64(CRC32, "x")}, wantErr: true, wantCode: s3err.BadDigest},
		{name: "trailer ok", e: Expect{Algorithm: CRC32C, Trailer: func() string { return b64(CRC32C, body) }, trailerNamed: true}, wantAlg: CRC32C},
		{name: "trailer bad", e: Expect{Algorithm: CRC32C, Trailer: func() string { return b64(CRC32C, "y") }, trailerNamed: true}, wantErr: true, wantCode: s3err.BadDigest},
		{name: "trailer missing", e: Expect{Algorithm: CRC32C, Trailer: func() string { return "" }, trailerNamed: true}, wantErr: true, wantCode: s3err.MalformedTrailerError},
		{name: "trailer malformed", e: Expect{Algorithm: CRC32C, Trailer: func() string { return "nope" }, trailerNamed: true}, wantErr: true, wantCode: s3err.InvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(body), tt.e)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if string(got) != body {
				t.Fatalf("read %q, want %q", got, body)
			}
			if tt.wantErr {
				wantCode(t, err, tt.wantCode)
				// Errors are sticky, so a retrying caller cannot see EOF.
				if _, err2 := r.Read(make([]byte, 1)); err2 != err {
					t.Fatalf("second read = %v, want sticky %v", err2, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := md5.Sum([]byte(body))
			if !bytes.Equal(r.MD5(), m[:]) {
				t.Errorf("MD5 = %x", r.MD5())
			}
			alg, v := r.Checksum()
			if alg != tt.wantAlg || v != b64(tt.wantAlg, body) {
				t.Errorf("Checksum = %v %s, want %v %s", alg, v, tt.wantAlg, b64(tt.wantAlg, body))
			}
		})
	}
}

func TestNewReaderRejects(t *testing.T) {
	tests := []struct {
		name string
		e    Expect
		code s3err.Code
	}{
		{"bad md5", Expect{ContentMD5: "abc"}, s3err.InvalidDigest},
		{"bad sha256 hex", Expect{SHA256Hex: "xyz"}, s3err.InvalidArgument},
		{"bad value", Expect{Algorithm: CRC32, Value: "AAAA"}, s3err.InvalidRequest},
		{"trailer not wired", Expect{Algorithm: CRC32, trailerNamed: true}, s3err.InternalError},
	}
	for _, tt := range tests {
		_, err := NewReader(strings.NewReader(""), tt.e)
		if err == nil {
			t.Errorf("%s: NewReader accepted %+v", tt.name, tt.e)
			continue
		}
		wantCode(t, err, tt.code)
	}
}

// errReader fails after returning its data, like a dropped connection.
type errReader struct{ n int }

func (e *errReader) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	e.n--
	p[0] = 'x'
	return 1, nil
}

func TestReaderPassesErrors(t *testing.T) {
	r, err := NewReader(&errReader{n: 3}, Expect{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if len(b) != 3 || err != io.ErrUnexpectedEOF {
		t.Fatalf("ReadAll = %q, %v", b, err)
	}
	if r.MD5() != nil {
		t.Fatal("MD5 must stay nil when the body did not end cleanly")
	}
}

func FuzzReader(f *testing.F) {
	// Seeds: an empty body, the check string, and a body with binary bytes.
	f.Add([]byte(""), uint8(0), true)
	f.Add([]byte(check), uint8(CRC64NVME), false)
	f.Add([]byte{0, 0xff, 0x80, '\r', '\n'}, uint8(SHA256), true)
	f.Fuzz(func(t *testing.T, body []byte, a uint8, right bool) {
		alg := Algorithm(a % 6)
		e := Expect{Algorithm: alg}
		if alg != None {
			h := alg.New()
			h.Write(body)
			sum := h.Sum(nil)
			if !right {
				sum[0] ^= 1
			}
			e.Value = base64.StdEncoding.EncodeToString(sum)
		}
		r, err := NewReader(bytes.NewReader(body), e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if !bytes.Equal(got, body) {
			t.Fatal("reader altered the body")
		}
		if (err == nil) != (right || alg == None) {
			t.Fatalf("alg %v right %v: err = %v", alg, right, err)
		}
		// Differential check of CRC64NVME against the SDK's construction.
		if alg == None {
			ref := crc64.New(crc64.MakeTable(0x9a6c9329ac4bc9b5))
			ref.Write(body)
			_, v := r.Checksum()
			raw, _ := base64.StdEncoding.DecodeString(v)
			if len(raw) != 8 || binary.BigEndian.Uint64(raw) != ref.Sum64() {
				t.Fatalf("CRC64NVME mismatch: %s", v)
			}
		}
	})
}

func BenchmarkReader(b *testing.B) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	buf := make([]byte, 32<<10)
	for _, alg := range []Algorithm{None, CRC32, CRC32C, SHA256} {
		name := alg.String()
		if alg == None {
			name = "default-CRC64NVME"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := NewReader(bytes.NewReader(body), Expect{Algorithm: alg})
				if err != nil {
					b.Fatal(err)
				}
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

// TestReaderEveryAlgorithm verifies a body with each algorithm, from a
// header value: the right value reads to io.EOF and is the stored
// checksum, a wrong one of the right length is BadDigest. MD5 shares the
// ETag's hash, which must still be right.
func TestReaderEveryAlgorithm(t *testing.T) {
	body := strings.Repeat("objectgateway ", 700)
	for _, alg := range Algorithms() {
		t.Run(alg.String(), func(t *testing.T) {
			r, err := NewReader(strings.NewReader(body), Expect{Algorithm: alg, Value: b64(alg, body)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, r); err != nil {
				t.Fatalf("right value: %v", err)
			}
			if got, v := r.Checksum(); got != alg || v != b64(alg, body) {
				t.Errorf("Checksum() = %v %s, want %v %s", got, v, alg, b64(alg, body))
			}
			if want := md5.Sum([]byte(body)); !bytes.Equal(r.MD5(), want[:]) {
				t.Errorf("MD5() = %x, want %x", r.MD5(), want)
			}
			r, err = NewReader(strings.NewReader(body), Expect{Algorithm: alg, Value: b64(alg, body+"x")})
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(io.Discard, r)
			wantCode(t, err, s3err.BadDigest)
		})
	}
}
