package api

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/kms"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

func ssecHeaders(alg, key, sum string) http.Header {
	h := http.Header{}
	for name, v := range map[string]string{"Algorithm": alg, "Key": key, "Key-Md5": sum} {
		if v != "" {
			h.Set(customerPrefix+name, v)
		}
	}
	return h
}

// TestParseWriteEncryption is the table of the write encryption headers.
func TestParseWriteEncryption(t *testing.T) {
	k := bytes.Repeat([]byte{5}, 32)
	sum := md5.Sum(k)
	key, keyMD5 := base64.StdEncoding.EncodeToString(k), base64.StdEncoding.EncodeToString(sum[:])
	ctx := base64.StdEncoding.EncodeToString([]byte(`{"a":"b"}`))
	with := func(h http.Header, kv ...string) http.Header {
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		what string
		h    http.Header
		alg  string
		kid  string
		code s3err.Code
	}{
		{"none", http.Header{}, "", "", 0},
		{"sse-s3", with(http.Header{}, "X-Amz-Server-Side-Encryption", "AES256"), sse.AES256, "", 0},
		{"kms default key", with(http.Header{}, "X-Amz-Server-Side-Encryption", "aws:kms"), sse.KMS, kms.DefaultKey, 0},
		{"kms key arn", with(http.Header{}, "X-Amz-Server-Side-Encryption", "aws:kms",
			"X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", "arn:aws:kms:us-east-1:123:key/app"), sse.KMS, "app", 0},
		{"kms context", with(http.Header{}, "X-Amz-Server-Side-Encryption", "aws:kms", "X-Amz-Server-Side-Encryption-Context", ctx), sse.KMS, kms.DefaultKey, 0},
		{"kms bad context", with(http.Header{}, "X-Amz-Server-Side-Encryption", "aws:kms", "X-Amz-Server-Side-Encryption-Context", "e30"), "", "", s3err.InvalidArgument},
		{"dsse", with(http.Header{}, "X-Amz-Server-Side-Encryption", "aws:kms:dsse"), "", "", s3err.NotImplemented},
		{"unknown algorithm", with(http.Header{}, "X-Amz-Server-Side-Encryption", "DES"), "", "", s3err.InvalidArgument},
		{"key id without kms", with(http.Header{}, "X-Amz-Server-Side-Encryption", "AES256", "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", "app"), "", "", s3err.InvalidArgument},
		{"sse-c", ssecHeaders("AES256", key, keyMD5), sse.Customer, "", 0},
		{"sse-c and sse-s3", with(ssecHeaders("AES256", key, keyMD5), "X-Amz-Server-Side-Encryption", "AES256"), "", "", s3err.InvalidArgument},
		{"sse-c other algorithm", ssecHeaders("AES128", key, keyMD5), "", "", s3err.InvalidArgument},
		{"sse-c short key", ssecHeaders("AES256", base64.StdEncoding.EncodeToString(k[:16]), keyMD5), "", "", s3err.InvalidArgument},
		{"sse-c no md5", ssecHeaders("AES256", key, ""), "", "", s3err.InvalidArgument},
		{"sse-c wrong md5", ssecHeaders("AES256", key, base64.StdEncoding.EncodeToString(make([]byte, 16))), "", "", s3err.InvalidArgument},
		{"sse-c key alone", ssecHeaders("", key, ""), "", "", s3err.InvalidArgument},
	} {
		req, ck, err := parseWriteEncryption(tc.h)
		if tc.code != 0 {
			if err == nil || s3err.As(err).Code != tc.code {
				t.Errorf("%s: err %v, want %v", tc.what, err, tc.code)
			}
			continue
		}
		if err != nil || req.Algorithm != tc.alg || req.KeyID != tc.kid {
			t.Errorf("%s: %+v, %v; want %s %q", tc.what, req, err, tc.alg, tc.kid)
		}
		if tc.alg == sse.Customer && (ck == nil || !bytes.Equal(ck.key, k) || ck.md5 != keyMD5) {
			t.Errorf("%s: customer key not returned", tc.what)
		}
	}
}

// FuzzParseEncryptionHeaders feeds arbitrary values to the SSE headers:
// the parsers never panic, an accepted SSE-C key is 32 bytes whose MD5 is
// the one sent, and an accepted request names a known algorithm.
func FuzzParseEncryptionHeaders(f *testing.F) {
	k := bytes.Repeat([]byte{5}, 32)
	sum := md5.Sum(k)
	// A valid SSE-C set, SSE-S3, SSE-KMS with an ARN and a context, and
	// broken base64.
	f.Add("", "AES256", base64.StdEncoding.EncodeToString(k), base64.StdEncoding.EncodeToString(sum[:]), "", "")
	f.Add("AES256", "", "", "", "", "")
	f.Add("aws:kms", "", "", "", "arn:aws:kms:r:1:key/x", "eyJhIjoiYiJ9")
	f.Add("aws:kms", "", "", "", "", "%%%")
	f.Add("", "AES256", "====", "", "", "")
	f.Fuzz(func(t *testing.T, alg, calg, key, keyMD5, kid, ctx string) {
		h := ssecHeaders(calg, key, keyMD5)
		h.Set("X-Amz-Server-Side-Encryption", alg)
		h.Set("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", kid)
		h.Set("X-Amz-Server-Side-Encryption-Context", ctx)
		req, ck, err := parseWriteEncryption(h)
		if err != nil {
			if s3err.As(err).Code == s3err.InternalError {
				t.Fatalf("InternalError for client input: %v", err)
			}
			return
		}
		switch req.Algorithm {
		case "", sse.AES256, sse.KMS:
		case sse.Customer:
			s := md5.Sum(ck.key)
			if len(ck.key) != 32 || base64.StdEncoding.EncodeToString(s[:]) != ck.md5 {
				t.Fatalf("accepted key of %d bytes with MD5 %q", len(ck.key), ck.md5)
			}
		default:
			t.Fatalf("unknown algorithm %q accepted", req.Algorithm)
		}
		_, _ = parseCustomerKey(h, copyPrefix)
		h.Set(bucketKeyHeader, kid)
		if on, set, err := parseBucketKey(h); err == nil && (set != (kid != "") || on && !set) {
			t.Fatalf("bucket key %q parsed as on %v set %v", kid, on, set)
		}
	})
}

// TestParseBucketKey is the table of x-amz-server-side-encryption-bucket-key-enabled.
func TestParseBucketKey(t *testing.T) {
	for _, tc := range []struct {
		v       string
		on, set bool
		bad     bool
	}{
		{"", false, false, false},
		{"true", true, true, false},
		{"TRUE", true, true, false},
		{"false", false, true, false},
		{"yes", false, false, true},
		{"1", false, false, true},
	} {
		h := http.Header{}
		if tc.v != "" {
			h.Set(bucketKeyHeader, tc.v)
		}
		on, set, err := parseBucketKey(h)
		if tc.bad {
			if err == nil || s3err.As(err).Code != s3err.InvalidArgument {
				t.Errorf("%q: %v, want InvalidArgument", tc.v, err)
			}
			continue
		}
		if err != nil || on != tc.on || set != tc.set {
			t.Errorf("%q: on %v set %v %v, want %v %v", tc.v, on, set, err, tc.on, tc.set)
		}
	}
}
