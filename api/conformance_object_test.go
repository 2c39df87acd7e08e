package api_test

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/crc64nvme"
	"github.com/minio/minio-go/v7"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// payload returns n deterministic pseudo-random bytes.
func payload(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// etagOf is S3's ETag of a single-part object: the quoted hex MD5.
func etagOf(b []byte) string {
	sum := md5.Sum(b)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

func md5Base64(b []byte) string {
	sum := md5.Sum(b)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// checksumOf is the base64 x-amz-checksum-* value of b for an algorithm.
func checksumOf(alg types.ChecksumAlgorithm, b []byte) string {
	var sum []byte
	switch alg {
	case types.ChecksumAlgorithmCrc32:
		sum = binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b))
	case types.ChecksumAlgorithmCrc32c:
		sum = binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	case types.ChecksumAlgorithmCrc64nvme:
		sum = binary.BigEndian.AppendUint64(nil, crc64nvme.Checksum(b))
	case types.ChecksumAlgorithmSha1:
		s := sha1.Sum(b)
		sum = s[:]
	case types.ChecksumAlgorithmSha256:
		s := sha256.Sum256(b)
		sum = s[:]
	default:
		panic("unknown algorithm " + string(alg))
	}
	return base64.StdEncoding.EncodeToString(sum)
}

// makeBucket creates a fresh bucket with the client and returns its name.
func makeBucket(t *testing.T, c *s3.Client, prefix string) string {
	t.Helper()
	b := uniqueBucket(prefix)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
		t.Fatalf("CreateBucket(%s): %v", b, err)
	}
	return b
}

// putBytes stores body at bucket/key with default settings.
func putBytes(t *testing.T, c *s3.Client, bucket, key string, body []byte) *s3.PutObjectOutput {
	t.Helper()
	out, err := c.PutObject(t.Context(), &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body),
	})
	if err != nil {
		t.Fatalf("PutObject(%s/%q): %v", bucket, key, err)
	}
	return out
}

// getBytes reads bucket/key whole.
func getBytes(t *testing.T, c *s3.Client, bucket, key string) []byte {
	t.Helper()
	out, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("GetObject(%s/%q): %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("GetObject(%s/%q): reading body: %v", bucket, key, err)
	}
	return b
}

func TestConformanceObjectRoundTripSDK(t *testing.T) {
	g := startGateway(t)
	expires := time.Date(2031, 4, 5, 6, 7, 8, 0, time.UTC)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			bucket := makeBucket(t, c.Client, "roundtrip")
			for _, size := range []int{0, 1 << 10, 5 << 20} {
				ctx := t.Context()
				body := payload(size, uint64(size))
				key := "obj/size-" + strconv.Itoa(size)
				meta := map[string]string{"color": "blue", "multi-word": "Hello, World"}
				put, err := c.PutObject(ctx, &s3.PutObjectInput{
					Bucket:             aws.String(bucket),
					Key:                aws.String(key),
					Body:               bytes.NewReader(body),
					ContentType:        aws.String("text/x-conformance; charset=utf-8"),
					CacheControl:       aws.String("max-age=60, public"),
					ContentDisposition: aws.String(`attachment; filename="f.txt"`),
					ContentEncoding:    aws.String("identity"),
					ContentLanguage:    aws.String("en-GB"),
					Expires:            aws.Time(expires),
					Metadata:           meta,
				})
				if err != nil {
					t.Fatalf("PutObject(%d bytes): %v", size, err)
				}
				if got := aws.ToString(put.ETag); got != etagOf(body) {
					t.Errorf("PutObject(%d bytes): ETag %s, want %s", size, got, etagOf(body))
				}

				check := func(op, etag, ctype, cc, cd, ce, cl, exp string, length *int64, lm *time.Time, md map[string]string) {
					t.Helper()
					if etag != etagOf(body) {
						t.Errorf("%s(%d bytes): ETag %s, want %s", op, size, etag, etagOf(body))
					}
					for _, f := range []struct{ name, got, want string }{
						{"Content-Type", ctype, "text/x-conformance; charset=utf-8"},
						{"Cache-Control", cc, "max-age=60, public"},
						{"Content-Disposition", cd, `attachment; filename="f.txt"`},
						{"Content-Encoding", ce, "identity"},
						{"Content-Language", cl, "en-GB"},
						{"Expires", exp, expires.Format(http.TimeFormat)},
					} {
						if f.got != f.want {
							t.Errorf("%s(%d bytes): %s %q, want %q", op, size, f.name, f.got, f.want)
						}
					}
					if aws.ToInt64(length) != int64(size) {
						t.Errorf("%s(%d bytes): ContentLength %d", op, size, aws.ToInt64(length))
					}
					if lm == nil || time.Since(*lm) > time.Hour || time.Until(*lm) > time.Hour {
						t.Errorf("%s(%d bytes): LastModified %v", op, size, lm)
					}
					for k, v := range meta {
						if md[k] != v {
							t.Errorf("%s(%d bytes): metadata %s=%q, want %q (all: %v)", op, size, k, md[k], v, md)
						}
					}
					if len(md) != len(meta) {
						t.Errorf("%s(%d bytes): metadata %v, want %v", op, size, md, meta)
					}
				}

				head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
				if err != nil {
					t.Fatalf("HeadObject(%d bytes): %v", size, err)
				}
				check("HeadObject", aws.ToString(head.ETag), aws.ToString(head.ContentType), aws.ToString(head.CacheControl),
					aws.ToString(head.ContentDisposition), aws.ToString(head.ContentEncoding), aws.ToString(head.ContentLanguage),
					aws.ToString(head.ExpiresString), head.ContentLength, head.LastModified, head.Metadata)
				if aws.ToString(head.AcceptRanges) != "bytes" {
					t.Errorf("HeadObject: Accept-Ranges %q, want bytes", aws.ToString(head.AcceptRanges))
				}

				get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
				if err != nil {
					t.Fatalf("GetObject(%d bytes): %v", size, err)
				}
				got, err := io.ReadAll(get.Body)
				get.Body.Close()
				if err != nil {
					t.Fatalf("GetObject(%d bytes): body: %v", size, err)
				}
				if !bytes.Equal(got, body) {
					t.Errorf("GetObject(%d bytes): body differs (%d bytes read)", size, len(got))
				}
				check("GetObject", aws.ToString(get.ETag), aws.ToString(get.ContentType), aws.ToString(get.CacheControl),
					aws.ToString(get.ContentDisposition), aws.ToString(get.ContentEncoding), aws.ToString(get.ContentLanguage),
					aws.ToString(get.ExpiresString), get.ContentLength, get.LastModified, get.Metadata)
			}

			// A PUT without optional headers round-trips too.
			putBytes(t, c.Client, bucket, "plain", []byte("plain"))
			if b := getBytes(t, c.Client, bucket, "plain"); string(b) != "plain" {
				t.Errorf("GetObject(plain) = %q", b)
			}

			// Overwrite replaces bytes and metadata.
			_, err := c.PutObject(t.Context(), &s3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("plain"), Body: strings.NewReader("second"),
				Metadata: map[string]string{"v": "2"},
			})
			if err != nil {
				t.Fatalf("PutObject(overwrite): %v", err)
			}
			head, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("plain")})
			if err != nil {
				t.Fatalf("HeadObject(overwritten): %v", err)
			}
			if aws.ToInt64(head.ContentLength) != 6 || head.Metadata["v"] != "2" || aws.ToString(head.ETag) != etagOf([]byte("second")) {
				t.Errorf("HeadObject(overwritten): length %d metadata %v etag %s", aws.ToInt64(head.ContentLength), head.Metadata, aws.ToString(head.ETag))
			}

			// Missing keys.
			_, err = c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("missing")})
			var nsk *types.NoSuchKey
			if !errors.As(err, &nsk) {
				t.Errorf("GetObject(missing): %v, want *types.NoSuchKey", err)
			}
			wantCode(t, "GetObject(missing)", err, 404, "NoSuchKey")
			_, err = c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("missing")})
			var nf *types.NotFound
			if !errors.As(err, &nf) {
				t.Errorf("HeadObject(missing): %v, want *types.NotFound", err)
			}
			_, err = c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket + "-nope"), Key: aws.String("k")})
			wantCode(t, "GetObject(missing bucket)", err, 404, "NoSuchBucket")
			// "obj" is a directory on disk (obj/size-0 exists) but no object.
			_, err = c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj")})
			wantCode(t, "GetObject(directory)", err, 404, "NoSuchKey")
			_, err = c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj/")})
			wantCode(t, "GetObject(directory/)", err, 404, "NoSuchKey")
		})
	}
}

func TestConformanceMetadataTooLarge(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			bucket := makeBucket(t, c.Client, "meta")
			// S3 limits user-defined metadata to 2 KB (keys and values, as
			// UTF-8).
			_, err := c.PutObject(t.Context(), &s3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("big"), Body: strings.NewReader("x"),
				Metadata: map[string]string{"big": strings.Repeat("v", 2100)},
			})
			wantCode(t, "PutObject(2100-byte metadata)", err, 400, "MetadataTooLarge")
			_, err = c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("big")})
			wantCode(t, "HeadObject after MetadataTooLarge", err, 404, "NotFound")

			_, err = c.PutObject(t.Context(), &s3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("fits"), Body: strings.NewReader("x"),
				Metadata: map[string]string{"small": strings.Repeat("v", 1500)},
			})
			if err != nil {
				t.Errorf("PutObject(1.5 KB metadata): %v", err)
			}
		})
	}
}

// TestConformanceMetadataNonASCII: S3 decodes the RFC 2047 encoded words
// of an x-amz-meta-* value before storing it and answers a value with
// characters outside US-ASCII as an RFC 2047 encoded word, US-ASCII ones
// as they are (AWS's user guide, "Working with object metadata"; ceph
// s3-tests' test_object_set_get_unicode_metadata sends one). The octets
// of a header that are not UTF-8 are ISO-8859-1, as HTTP reads them.
func TestConformanceMetadataNonASCII(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			bucket := makeBucket(t, c.Client, "meta")
			cases := []struct{ name, sent, answered, text string }{
				{"ascii", "plain text", "plain text", "plain text"},
				{"utf8", "Grüße", "=?UTF-8?B?R3LDvMOfZQ==?=", "Grüße"},
				{"latin1", "caf\xe9", "=?UTF-8?B?Y2Fmw6k=?=", "café"},
				{"encoded", "=?UTF-8?B?R3LDvMOfZQ==?=", "=?UTF-8?B?R3LDvMOfZQ==?=", "Grüße"},
				{"encoded-ascii", "=?UTF-8?Q?hello?=", "hello", "hello"},
			}
			for _, tc := range cases {
				_, err := c.PutObject(t.Context(), &s3.PutObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(tc.name), Body: strings.NewReader("x"),
					Metadata: map[string]string{"v": tc.sent},
				})
				if err != nil {
					t.Fatalf("PutObject(%s): %v", tc.name, err)
				}
				head, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(tc.name)})
				if err != nil {
					t.Fatalf("HeadObject(%s): %v", tc.name, err)
				}
				get, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(tc.name)})
				if err != nil {
					t.Fatalf("GetObject(%s): %v", tc.name, err)
				}
				get.Body.Close()
				for op, got := range map[string]string{"HeadObject": head.Metadata["v"], "GetObject": get.Metadata["v"]} {
					if got != tc.answered {
						t.Errorf("%s(%s): x-amz-meta-v %q, want %q", op, tc.name, got, tc.answered)
					}
					if text, err := new(mime.WordDecoder).DecodeHeader(got); err != nil || text != tc.text {
						t.Errorf("%s(%s): %q decodes to %q (%v), want %q", op, tc.name, got, text, err, tc.text)
					}
				}
			}
		})
	}
}

// TestConformanceMissingContentLength: a PutObject or UploadPart that
// states no length, neither Content-Length nor Transfer-Encoding, is
// 411 MissingContentLength in S3 (s3-tests'
// test_object_create_bad_contentlength_none), where net/http reads it as
// an empty body; an explicit Content-Length: 0 stores an empty object,
// and CreateBucket needs no length.
func TestConformanceMissingContentLength(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	host := strings.TrimPrefix(g.Endpoint, "http://")
	send := func(what, method, target, contentLength string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, g.Endpoint+target, http.NoBody)
		if contentLength != "" {
			req.Header.Set("Content-Length", contentLength)
		}
		sigv4.SignRequest(req, g.AccessKey, g.SecretKey, g.Region, time.Now(), "UNSIGNED-PAYLOAD")
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(sendHeaders(t, conn, req), req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}

	bucket := uniqueBucket("nolength")
	if st, body := send("CreateBucket without Content-Length", "PUT", "/"+bucket, ""); st != 200 {
		t.Fatalf("CreateBucket without Content-Length: %d %s", st, body)
	}
	if st, body := send("PutObject without Content-Length", "PUT", "/"+bucket+"/k", ""); st != 411 || !strings.Contains(body, "<Code>MissingContentLength</Code>") {
		t.Errorf("PutObject without Content-Length: %d %s, want 411 MissingContentLength", st, body)
	}
	if _, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); httpStatus(err) != 404 {
		t.Errorf("HeadObject after the refused PutObject: %v, want 404", err)
	}
	if st, body := send("PutObject with Content-Length: 0", "PUT", "/"+bucket+"/k", "0"); st != 200 {
		t.Errorf("PutObject with Content-Length: 0: %d %s", st, body)
	}
	if got := getBytes(t, c, bucket, "k"); len(got) != 0 {
		t.Errorf("empty object reads %q", got)
	}
	up, err := c.CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("m")})
	if err != nil {
		t.Fatal(err)
	}
	if st, body := send("UploadPart without Content-Length", "PUT", "/"+bucket+"/m?partNumber=1&uploadId="+aws.ToString(up.UploadId), ""); st != 411 || !strings.Contains(body, "<Code>MissingContentLength</Code>") {
		t.Errorf("UploadPart without Content-Length: %d %s, want 411 MissingContentLength", st, body)
	}
}

var checksumAlgorithms = []types.ChecksumAlgorithm{
	types.ChecksumAlgorithmCrc32,
	types.ChecksumAlgorithmCrc32c,
	types.ChecksumAlgorithmCrc64nvme,
	types.ChecksumAlgorithmSha1,
	types.ChecksumAlgorithmSha256,
}

// checksumField picks an algorithm's value out of the SDK's output fields.
func checksumField(alg types.ChecksumAlgorithm, crc32, crc32c, crc64, sha1, sha256 *string) string {
	switch alg {
	case types.ChecksumAlgorithmCrc32:
		return aws.ToString(crc32)
	case types.ChecksumAlgorithmCrc32c:
		return aws.ToString(crc32c)
	case types.ChecksumAlgorithmCrc64nvme:
		return aws.ToString(crc64)
	case types.ChecksumAlgorithmSha1:
		return aws.ToString(sha1)
	case types.ChecksumAlgorithmSha256:
		return aws.ToString(sha256)
	}
	return ""
}

// TestConformanceChecksums puts objects with every x-amz-checksum-*
// algorithm. Over HTTPS the SDK's default sends them as aws-chunked
// trailers; over HTTP as headers on a signed payload. GET and HEAD with
// x-amz-checksum-mode: ENABLED must return the stored value.
func TestConformanceChecksums(t *testing.T) {
	g := startGateway(t)
	// 200 KiB spans several aws-chunked chunks.
	body := payload(200<<10, 42)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			bucket := makeBucket(t, c.Client, "checksums")
			for _, alg := range checksumAlgorithms {
				ctx := t.Context()
				key := "sum/" + string(alg)
				want := checksumOf(alg, body)
				put, err := c.PutObject(ctx, &s3.PutObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body),
					ChecksumAlgorithm: alg,
				})
				if err != nil {
					t.Errorf("PutObject(%s): %v", alg, err)
					continue
				}
				if got := checksumField(alg, put.ChecksumCRC32, put.ChecksumCRC32C, put.ChecksumCRC64NVME, put.ChecksumSHA1, put.ChecksumSHA256); got != want {
					t.Errorf("PutObject(%s): response checksum %q, want %q", alg, got, want)
				}
				head, err := c.HeadObject(ctx, &s3.HeadObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled,
				})
				if err != nil {
					t.Errorf("HeadObject(%s): %v", alg, err)
				} else if got := checksumField(alg, head.ChecksumCRC32, head.ChecksumCRC32C, head.ChecksumCRC64NVME, head.ChecksumSHA1, head.ChecksumSHA256); got != want {
					t.Errorf("HeadObject(%s): checksum %q, want %q", alg, got, want)
				}
				get, err := c.GetObject(ctx, &s3.GetObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled,
				})
				if err != nil {
					t.Errorf("GetObject(%s): %v", alg, err)
					continue
				}
				// Reading to EOF makes the SDK validate the checksum.
				got, err := io.ReadAll(get.Body)
				get.Body.Close()
				if err != nil {
					t.Errorf("GetObject(%s): body: %v", alg, err)
				} else if !bytes.Equal(got, body) {
					t.Errorf("GetObject(%s): body differs", alg)
				}
				if sum := checksumField(alg, get.ChecksumCRC32, get.ChecksumCRC32C, get.ChecksumCRC64NVME, get.ChecksumSHA1, get.ChecksumSHA256); sum != want {
					t.Errorf("GetObject(%s): checksum %q, want %q", alg, sum, want)
				}
				if etag := aws.ToString(get.ETag); etag != etagOf(body) {
					t.Errorf("GetObject(%s): ETag %s, want %s", alg, etag, etagOf(body))
				}
			}

			// Without x-amz-checksum-mode the checksum headers are not sent.
			head, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("sum/SHA256")})
			if err == nil && aws.ToString(head.ChecksumSHA256) != "" {
				t.Errorf("HeadObject without checksum mode returned x-amz-checksum-sha256")
			}
		})
	}
}

// TestConformanceBadDigest sends wrong checksums and Content-MD5 values:
// S3 answers BadDigest (the value does not match the body) or
// InvalidDigest (the value is malformed) and stores nothing.
func TestConformanceBadDigest(t *testing.T) {
	g := startGateway(t)
	body := []byte("the body whose digest is wrong")
	other := []byte("some other body")
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := makeBucket(t, c.Client, "digest")
			cases := []struct {
				name string
				in   s3.PutObjectInput
				code string
			}{
				{"wrong crc32", s3.PutObjectInput{ChecksumCRC32: aws.String(checksumOf(types.ChecksumAlgorithmCrc32, other))}, "BadDigest"},
				{"wrong crc32c", s3.PutObjectInput{ChecksumCRC32C: aws.String(checksumOf(types.ChecksumAlgorithmCrc32c, other))}, "BadDigest"},
				{"wrong crc64nvme", s3.PutObjectInput{ChecksumCRC64NVME: aws.String(checksumOf(types.ChecksumAlgorithmCrc64nvme, other))}, "BadDigest"},
				{"wrong sha1", s3.PutObjectInput{ChecksumSHA1: aws.String(checksumOf(types.ChecksumAlgorithmSha1, other))}, "BadDigest"},
				{"wrong sha256", s3.PutObjectInput{ChecksumSHA256: aws.String(checksumOf(types.ChecksumAlgorithmSha256, other))}, "BadDigest"},
				{"wrong Content-MD5", s3.PutObjectInput{ContentMD5: aws.String(md5Base64(other))}, "BadDigest"},
				{"malformed Content-MD5", s3.PutObjectInput{ContentMD5: aws.String("not-base64!")}, "InvalidDigest"},
			}
			for _, tc := range cases {
				in := tc.in
				in.Bucket = aws.String(bucket)
				in.Key = aws.String("bad/" + strings.ReplaceAll(tc.name, " ", "-"))
				in.Body = bytes.NewReader(body)
				_, err := c.PutObject(ctx, &in)
				wantCode(t, "PutObject("+tc.name+")", err, 400, tc.code)
				_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: in.Bucket, Key: in.Key})
				wantCode(t, "HeadObject after PutObject("+tc.name+")", err, 404, "NotFound")
			}
			// The right values are accepted.
			_, err := c.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("good"), Body: bytes.NewReader(body),
				ContentMD5:    aws.String(md5Base64(body)),
				ChecksumCRC32: aws.String(checksumOf(types.ChecksumAlgorithmCrc32, body)),
			})
			if err != nil {
				t.Errorf("PutObject(right Content-MD5 and crc32): %v", err)
			}
		})
	}

	t.Run("raw", func(t *testing.T) {
		c := g.sdk(sdkModes[0])
		bucket := makeBucket(t, c, "rawdigest")
		for _, tc := range []struct {
			header, value, code string
		}{
			{"X-Amz-Checksum-Crc32", checksumOf(types.ChecksumAlgorithmCrc32, other), "BadDigest"},
			{"X-Amz-Checksum-Sha256", checksumOf(types.ChecksumAlgorithmSha256, other), "BadDigest"},
			{"Content-Md5", md5Base64(other), "BadDigest"},
			{"Content-Md5", "AAAA", "InvalidDigest"},
		} {
			req := g.rawRequest(http.MethodPut, "/"+bucket+"/raw", "", body)
			req.Header.Set(tc.header, tc.value)
			resp, b := g.do(req, body, true)
			wantXMLError(t, "PUT with "+tc.header+": "+tc.value, resp, b, 400, tc.code)
		}
		// A payload that does not match the signed x-amz-content-sha256.
		req := g.rawRequest(http.MethodPut, "/"+bucket+"/raw", "", body)
		g.signAt(req, other, g.SecretKey, time.Now())
		resp, err := g.httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		wantXMLError(t, "PUT with mismatched x-amz-content-sha256", resp, b, 400, "XAmzContentSHA256Mismatch")
		_, err = c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("raw")})
		wantCode(t, "HeadObject after rejected raw PUTs", err, 404, "NotFound")
	})
}

func TestConformanceObjectsMinio(t *testing.T) {
	g := startGateway(t)
	expires := time.Date(2031, 4, 5, 6, 7, 8, 0, time.UTC)
	for _, c := range g.minioClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("mobjects")
			if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
				t.Fatalf("MakeBucket: %v", err)
			}
			for _, size := range []int{0, 1 << 10, 5 << 20} {
				body := payload(size, uint64(size)+7)
				key := "m/size " + strconv.Itoa(size)
				info, err := c.PutObject(ctx, bucket, key, bytes.NewReader(body), int64(size), minio.PutObjectOptions{
					ContentType:        "text/x-minio",
					CacheControl:       "no-cache",
					ContentDisposition: "inline",
					ContentEncoding:    "identity",
					ContentLanguage:    "fr",
					Expires:            expires,
					UserMetadata:       map[string]string{"Color": "red"},
				})
				if err != nil {
					t.Fatalf("PutObject(%d bytes): %v", size, err)
				}
				if `"`+info.ETag+`"` != etagOf(body) {
					t.Errorf("PutObject(%d bytes): ETag %s, want %s", size, info.ETag, etagOf(body))
				}
				st, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
				if err != nil {
					t.Fatalf("StatObject(%d bytes): %v", size, err)
				}
				if st.Size != int64(size) || st.ContentType != "text/x-minio" || st.UserMetadata["Color"] != "red" ||
					!st.Expires.Equal(expires) || st.Metadata.Get("Cache-Control") != "no-cache" ||
					st.Metadata.Get("Content-Language") != "fr" || st.Metadata.Get("Content-Disposition") != "inline" {
					t.Errorf("StatObject(%d bytes) = size %d type %q meta %v expires %v headers %v", size, st.Size, st.ContentType, st.UserMetadata, st.Expires, st.Metadata)
				}
				obj, err := c.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
				if err != nil {
					t.Fatalf("GetObject(%d bytes): %v", size, err)
				}
				got, err := io.ReadAll(obj)
				obj.Close()
				if err != nil || !bytes.Equal(got, body) {
					t.Errorf("GetObject(%d bytes): %d bytes, %v", size, len(got), err)
				}
			}
			_, err := c.StatObject(ctx, bucket, "missing", minio.StatObjectOptions{})
			wantMinioCode(t, "StatObject(missing)", err, 404, "NoSuchKey")
			obj, err := c.GetObject(ctx, bucket, "missing", minio.GetObjectOptions{})
			if err == nil {
				_, err = io.ReadAll(obj)
			}
			wantMinioCode(t, "GetObject(missing)", err, 404, "NoSuchKey")
			_, err = c.PutObject(ctx, bucket, "big-meta", strings.NewReader("x"), 1, minio.PutObjectOptions{
				UserMetadata: map[string]string{"big": strings.Repeat("v", 2100)},
			})
			wantMinioCode(t, "PutObject(2100-byte metadata)", err, 400, "MetadataTooLarge")
		})
	}

	// minio-go with trailing headers sends x-amz-checksum-* as trailers of
	// a signed aws-chunked body (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER).
	t.Run("minio-trailers-checksums", func(t *testing.T) {
		c := g.minio(true)
		ctx := t.Context()
		bucket := uniqueBucket("mchecksums")
		if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
			t.Fatalf("MakeBucket: %v", err)
		}
		body := payload(300<<10, 9)
		for _, tc := range []struct {
			ct  minio.ChecksumType
			alg types.ChecksumAlgorithm
			get func(minio.ObjectInfo) string
		}{
			{minio.ChecksumCRC32, types.ChecksumAlgorithmCrc32, func(o minio.ObjectInfo) string { return o.ChecksumCRC32 }},
			{minio.ChecksumCRC32C, types.ChecksumAlgorithmCrc32c, func(o minio.ObjectInfo) string { return o.ChecksumCRC32C }},
			{minio.ChecksumCRC64NVME, types.ChecksumAlgorithmCrc64nvme, func(o minio.ObjectInfo) string { return o.ChecksumCRC64NVME }},
			{minio.ChecksumSHA1, types.ChecksumAlgorithmSha1, func(o minio.ObjectInfo) string { return o.ChecksumSHA1 }},
			{minio.ChecksumSHA256, types.ChecksumAlgorithmSha256, func(o minio.ObjectInfo) string { return o.ChecksumSHA256 }},
		} {
			key := "sum/" + tc.ct.String()
			if _, err := c.PutObject(ctx, bucket, key, bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{Checksum: tc.ct}); err != nil {
				t.Errorf("PutObject(%s): %v", tc.ct, err)
				continue
			}
			st, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{Checksum: true})
			if err != nil {
				t.Errorf("StatObject(%s): %v", tc.ct, err)
				continue
			}
			if got, want := tc.get(st), checksumOf(tc.alg, body); got != want {
				t.Errorf("StatObject(%s): checksum %q, want %q", tc.ct, got, want)
			}
		}
	})
}
