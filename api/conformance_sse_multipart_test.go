package api_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/encrypt"
)

// mpMarker is the plaintext marker of the multipart tests' parts: it must
// never reach the disk.
const mpMarker = "MULTIPART-PLAINTEXT-MARKER-"

// markerPart is n bytes of part number part: the marker, the part number
// and a counter, so parts differ and a misplaced byte is seen.
func markerPart(part, n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		b.WriteString(mpMarker)
		b.WriteString(strconv.Itoa(part))
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(';')
	}
	return b.Bytes()[:n]
}

// mpSSE is one way of encrypting a multipart upload through aws-sdk-go-v2.
type mpSSE struct {
	name   string
	create func(*s3.CreateMultipartUploadInput)
	part   func(*s3.UploadPartInput)
	get    func(*s3.GetObjectInput)
	head   func(*s3.HeadObjectInput)
	attrs  func(*s3.GetObjectAttributesInput)
	sse    types.ServerSideEncryption
}

func mpModes(ck sseKey, kmsKey, kmsContext string) []mpSSE {
	none := func() (func(*s3.UploadPartInput), func(*s3.GetObjectInput), func(*s3.HeadObjectInput), func(*s3.GetObjectAttributesInput)) {
		return func(*s3.UploadPartInput) {}, func(*s3.GetObjectInput) {}, func(*s3.HeadObjectInput) {}, func(*s3.GetObjectAttributesInput) {}
	}
	s3p, s3g, s3h, s3a := none()
	kp, kg, kh, ka := none()
	alg := aws.String("AES256")
	return []mpSSE{
		{name: "sse-s3", create: func(in *s3.CreateMultipartUploadInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 },
			part: s3p, get: s3g, head: s3h, attrs: s3a, sse: types.ServerSideEncryptionAes256},
		{name: "sse-kms", create: func(in *s3.CreateMultipartUploadInput) {
			in.ServerSideEncryption, in.SSEKMSKeyId, in.SSEKMSEncryptionContext = types.ServerSideEncryptionAwsKms, &kmsKey, &kmsContext
		}, part: kp, get: kg, head: kh, attrs: ka, sse: types.ServerSideEncryptionAwsKms},
		{name: "sse-c",
			create: func(in *s3.CreateMultipartUploadInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, &ck.key, &ck.md5
			},
			part: func(in *s3.UploadPartInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, &ck.key, &ck.md5
			},
			get: func(in *s3.GetObjectInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, &ck.key, &ck.md5
			},
			head: func(in *s3.HeadObjectInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, &ck.key, &ck.md5
			},
			attrs: func(in *s3.GetObjectAttributesInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, &ck.key, &ck.md5
			}},
	}
}

// mpPartSizes are the parts of the multipart tests: two of S3's minimum
// size, which are not whole packages, and a short last one.
var mpPartSizes = []int{5 << 20, 5<<20 + 1, 100<<10 + 7}

// uploadEncrypted makes a multipart upload of mpPartSizes with m's
// encryption and a CRC32 checksum, and completes it.
func uploadEncrypted(t *testing.T, c *s3.Client, bucket, key string, m mpSSE) ([]byte, *s3.CompleteMultipartUploadOutput) {
	t.Helper()
	ctx := context.Background()
	cin := &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key, ChecksumAlgorithm: types.ChecksumAlgorithmCrc32}
	m.create(cin)
	up, err := c.CreateMultipartUpload(ctx, cin)
	if err != nil {
		t.Fatalf("%s: CreateMultipartUpload: %v", m.name, err)
	}
	if up.ServerSideEncryption != m.sse {
		t.Errorf("%s: CreateMultipartUpload answered x-amz-server-side-encryption %q", m.name, up.ServerSideEncryption)
	}
	var plain []byte
	var done []types.CompletedPart
	for i, n := range mpPartSizes {
		body := markerPart(i+1, n)
		plain = append(plain, body...)
		pin := &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId, PartNumber: aws.Int32(int32(i + 1)),
			Body: bytes.NewReader(body), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32}
		m.part(pin)
		p, err := c.UploadPart(ctx, pin)
		if err != nil {
			t.Fatalf("%s: UploadPart %d: %v", m.name, i+1, err)
		}
		if p.ServerSideEncryption != m.sse {
			t.Errorf("%s: UploadPart %d answered x-amz-server-side-encryption %q", m.name, i+1, p.ServerSideEncryption)
		}
		sum := md5.Sum(body)
		isMD5 := strings.Trim(aws.ToString(p.ETag), `"`) == hex.EncodeToString(sum[:])
		if isMD5 != (m.sse == types.ServerSideEncryptionAes256) {
			t.Errorf("%s: part %d ETag %s is the plaintext MD5: %v", m.name, i+1, aws.ToString(p.ETag), isMD5)
		}
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: p.ETag, ChecksumCRC32: p.ChecksumCRC32})
	}
	lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId})
	if err != nil || len(lp.Parts) != len(mpPartSizes) {
		t.Fatalf("%s: ListParts: %v", m.name, err)
	}
	for i, p := range lp.Parts {
		if aws.ToInt64(p.Size) != int64(mpPartSizes[i]) {
			t.Errorf("%s: ListParts part %d size %d, want the plaintext's %d", m.name, i+1, aws.ToInt64(p.Size), mpPartSizes[i])
		}
	}
	out, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	if err != nil {
		t.Fatalf("%s: CompleteMultipartUpload: %v", m.name, err)
	}
	return plain, out
}

// TestSSEMultipartSDK uploads multipart objects with SSE-S3, SSE-KMS
// (key and encryption context) and SSE-C through aws-sdk-go-v2 and reads
// them back whole, by ranges across part boundaries, by partNumber, by
// HEAD and GetObjectAttributes, before and after a restart; checks the
// response headers, the ETags (not MD5s of the plaintext for SSE-KMS and
// SSE-C), that the checksums are the plaintext's and that no plaintext is
// anywhere under the root.
func TestSSEMultipartSDK(t *testing.T) {
	g := startGateway(t)
	ring, err := g.layer.KeyRing()
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.Create("mp-key"); err != nil {
		t.Fatal(err)
	}
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssemp")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	ck := newSSEKey(9)
	kmsCtx := base64.StdEncoding.EncodeToString([]byte(`{"app":"mp"}`))
	modes := mpModes(ck, "mp-key", kmsCtx)
	plains := map[string][]byte{}
	for _, m := range modes {
		plain, out := uploadEncrypted(t, c, bucket, "mp-"+m.name, m)
		plains[m.name] = plain
		if out.ServerSideEncryption != m.sse {
			t.Errorf("%s: CompleteMultipartUpload x-amz-server-side-encryption %q, want %q", m.name, out.ServerSideEncryption, m.sse)
		}
		etag := strings.Trim(aws.ToString(out.ETag), `"`)
		if !strings.HasSuffix(etag, "-3") {
			t.Errorf("%s: multipart ETag %s, want …-3", m.name, etag)
		}
		switch m.name {
		case "sse-kms":
			if aws.ToString(out.SSEKMSKeyId) != "mp-key" {
				t.Errorf("sse-kms: CompleteMultipartUpload key id %q", aws.ToString(out.SSEKMSKeyId))
			}
		case "sse-s3":
			// SSE-S3 multipart ETags are S3's usual MD5 of the part MD5s.
			var md5s []byte
			off := 0
			for _, n := range mpPartSizes {
				s := md5.Sum(plain[off : off+n])
				md5s = append(md5s, s[:]...)
				off += n
			}
			s := md5.Sum(md5s)
			if etag != hex.EncodeToString(s[:])+"-3" {
				t.Errorf("sse-s3: ETag %s, want the MD5 of the part MD5s", etag)
			}
		}
		// The composite CRC32 is of the plaintext parts: the CRC32 of
		// their CRC32s.
		var crcs []byte
		off := 0
		for _, n := range mpPartSizes {
			crcs = binary.BigEndian.AppendUint32(crcs, crc32.ChecksumIEEE(plain[off:off+n]))
			off += n
		}
		want := base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(crcs))) + "-3"
		if got := aws.ToString(out.ChecksumCRC32); got != want {
			t.Errorf("%s: composite CRC32 %q, want %q (of the plaintext parts)", m.name, got, want)
		}
	}
	noMarkerUnderRoot(t, g.Root, []byte(mpMarker))
	total := int64(0)
	for _, n := range mpPartSizes {
		total += int64(n)
	}
	p1, p2 := int64(mpPartSizes[0]), int64(mpPartSizes[0]+mpPartSizes[1])
	ranges := []struct{ first, last int64 }{
		{0, 9}, {p1 - 5, p1 + 4}, {p1, p1}, {p1 - 1, p2 + 10}, {70000, 70009}, {p2, total - 1}, {total - 5, total - 1}, {0, total - 1},
	}
	for round := range 2 {
		for _, m := range modes {
			key := "mp-" + m.name
			plain := plains[m.name]
			for _, r := range ranges {
				gin := &s3.GetObjectInput{Bucket: &bucket, Key: &key, Range: aws.String("bytes=" + strconv.FormatInt(r.first, 10) + "-" + strconv.FormatInt(r.last, 10))}
				m.get(gin)
				out, err := c.GetObject(ctx, gin)
				if err != nil {
					t.Fatalf("round %d %s %v: GetObject: %v", round, m.name, r, err)
				}
				got, err := io.ReadAll(out.Body)
				out.Body.Close()
				if err != nil || !bytes.Equal(got, plain[r.first:r.last+1]) {
					t.Fatalf("round %d %s %v: GetObject body differs (%d bytes, %v)", round, m.name, r, len(got), err)
				}
				if out.ServerSideEncryption != m.sse {
					t.Errorf("%s: GetObject x-amz-server-side-encryption %q", m.name, out.ServerSideEncryption)
				}
			}
			gin := &s3.GetObjectInput{Bucket: &bucket, Key: &key}
			m.get(gin)
			out, err := c.GetObject(ctx, gin)
			if err != nil {
				t.Fatalf("%s: GetObject: %v", m.name, err)
			}
			got, err := io.ReadAll(out.Body)
			out.Body.Close()
			if err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("%s: whole GetObject differs (%d bytes, %v)", m.name, len(got), err)
			}
			off := 0
			for i, n := range mpPartSizes {
				gin := &s3.GetObjectInput{Bucket: &bucket, Key: &key, PartNumber: aws.Int32(int32(i + 1))}
				m.get(gin)
				out, err := c.GetObject(ctx, gin)
				if err != nil {
					t.Fatalf("%s: GetObject partNumber %d: %v", m.name, i+1, err)
				}
				got, err := io.ReadAll(out.Body)
				out.Body.Close()
				if err != nil || !bytes.Equal(got, plain[off:off+n]) || aws.ToInt32(out.PartsCount) != 3 {
					t.Fatalf("%s: GetObject partNumber %d differs (%d bytes, parts %d, %v)", m.name, i+1, len(got), aws.ToInt32(out.PartsCount), err)
				}
				off += n
			}
			hin := &s3.HeadObjectInput{Bucket: &bucket, Key: &key}
			m.head(hin)
			h, err := c.HeadObject(ctx, hin)
			if err != nil || aws.ToInt64(h.ContentLength) != total || h.ServerSideEncryption != m.sse {
				t.Fatalf("%s: HeadObject: %v", m.name, err)
			}
			ain := &s3.GetObjectAttributesInput{Bucket: &bucket, Key: &key,
				ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesObjectParts, types.ObjectAttributesObjectSize}}
			m.attrs(ain)
			a, err := c.GetObjectAttributes(ctx, ain)
			if err != nil {
				t.Fatalf("%s: GetObjectAttributes: %v", m.name, err)
			}
			if aws.ToInt64(a.ObjectSize) != total || a.ObjectParts == nil || aws.ToInt32(a.ObjectParts.TotalPartsCount) != 3 {
				t.Fatalf("%s: GetObjectAttributes = size %d parts %+v", m.name, aws.ToInt64(a.ObjectSize), a.ObjectParts)
			}
			for i, p := range a.ObjectParts.Parts {
				if aws.ToInt64(p.Size) != int64(mpPartSizes[i]) {
					t.Errorf("%s: GetObjectAttributes part %d size %d", m.name, i+1, aws.ToInt64(p.Size))
				}
			}
		}
		g.restart()
	}
}

// TestSSEMultipartCustomerKeyErrors checks S3's answers to SSE-C mistakes
// in a multipart upload: a part without the key is 400 InvalidRequest,
// with another key 403 AccessDenied, a key for an upload created without
// one 400 InvalidRequest, a key over plain HTTP 400 InvalidRequest; a
// completion with another key is 403 AccessDenied. The object then reads
// only with the upload's key.
func TestSSEMultipartCustomerKeyErrors(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssempc")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	ck, wrong := newSSEKey(4), newSSEKey(5)
	alg := aws.String("AES256")
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("c"),
		SSECustomerAlgorithm: alg, SSECustomerKey: &ck.key, SSECustomerKeyMD5: &ck.md5})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(up.SSECustomerKeyMD5) != ck.md5 {
		t.Errorf("CreateMultipartUpload answered key MD5 %q", aws.ToString(up.SSECustomerKeyMD5))
	}
	part := func(c *s3.Client, k *sseKey, body string) (*s3.UploadPartOutput, error) {
		in := &s3.UploadPartInput{Bucket: &bucket, Key: aws.String("c"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader(body)}
		if k != nil {
			in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, &k.key, &k.md5
		}
		return c.UploadPart(ctx, in)
	}
	_, err = part(c, nil, "x")
	wantCode(t, "UploadPart of an SSE-C upload without the key", err, 400, "InvalidRequest")
	_, err = part(c, &wrong, "x")
	wantCode(t, "UploadPart of an SSE-C upload with another key", err, 403, "AccessDenied")
	_, err = part(g.sdk(sdkMode{name: "http"}), &ck, "x")
	wantCode(t, "UploadPart with SSE-C over plain HTTP", err, 400, "InvalidRequest")
	p, err := part(c, &ck, "PLAINTEXT-MARKER-single-part")
	if err != nil {
		t.Fatalf("UploadPart with the key: %v", err)
	}
	if aws.ToString(p.SSECustomerKeyMD5) != ck.md5 {
		t.Errorf("UploadPart answered key MD5 %q", aws.ToString(p.SSECustomerKeyMD5))
	}
	plainUp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("p")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: aws.String("p"), UploadId: plainUp.UploadId, PartNumber: aws.Int32(1),
		Body: strings.NewReader("x"), SSECustomerAlgorithm: alg, SSECustomerKey: &ck.key, SSECustomerKeyMD5: &ck.md5})
	wantCode(t, "UploadPart with a key to an upload without one", err, 400, "InvalidRequest")

	parts := &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: p.ETag}}}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("c"), UploadId: up.UploadId,
		MultipartUpload: parts, SSECustomerAlgorithm: alg, SSECustomerKey: &wrong.key, SSECustomerKeyMD5: &wrong.md5})
	wantCode(t, "CompleteMultipartUpload with another key", err, 403, "AccessDenied")
	// S3 does not need the key to complete an SSE-C upload.
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("c"), UploadId: up.UploadId,
		MultipartUpload: parts}); err != nil {
		t.Fatalf("CompleteMultipartUpload without the key: %v", err)
	}
	noMarkerUnderRoot(t, g.Root, []byte("PLAINTEXT-MARKER-"))
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("c")})
	wantCode(t, "GetObject of the multipart SSE-C object without its key", err, 400, "InvalidRequest")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("c"), SSECustomerAlgorithm: alg, SSECustomerKey: &wrong.key, SSECustomerKeyMD5: &wrong.md5})
	wantCode(t, "GetObject of the multipart SSE-C object with another key", err, 403, "AccessDenied")
	o, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("c"), SSECustomerAlgorithm: alg, SSECustomerKey: &ck.key, SSECustomerKeyMD5: &ck.md5})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(o.Body)
	o.Body.Close()
	if err != nil || string(b) != "PLAINTEXT-MARKER-single-part" {
		t.Fatalf("GetObject with the key = %q, %v", b, err)
	}
}

// TestSSEMultipartUploadPartCopy copies ranges of an SSE-C object (with
// its key) and of an SSE-S3 object into an SSE-C upload with another key
// and into a plain upload; the source's key is needed; the parts are
// decrypted from the source and written with the upload's encryption.
func TestSSEMultipartUploadPartCopy(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssempcopy")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	k1, k2 := newSSEKey(1), newSSEKey(2)
	alg := aws.String("AES256")
	src := markerPart(1, 6<<20+3)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("src-c"), Body: bytes.NewReader(src),
		SSECustomerAlgorithm: alg, SSECustomerKey: &k1.key, SSECustomerKeyMD5: &k1.md5}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("src-s3"), Body: bytes.NewReader(src),
		ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []struct {
		name string
		key  *sseKey
	}{{"to-sse-c", &k2}, {"to-plain", nil}} {
		cin := &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &dest.name}
		if dest.key != nil {
			cin.SSECustomerAlgorithm, cin.SSECustomerKey, cin.SSECustomerKeyMD5 = alg, &dest.key.key, &dest.key.md5
		}
		up, err := c.CreateMultipartUpload(ctx, cin)
		if err != nil {
			t.Fatal(err)
		}
		copyPart := func(n int32, source, rng string, srcKey *sseKey) (*s3.UploadPartCopyOutput, error) {
			in := &s3.UploadPartCopyInput{Bucket: &bucket, Key: &dest.name, UploadId: up.UploadId, PartNumber: aws.Int32(n),
				CopySource: aws.String(bucket + "/" + source), CopySourceRange: aws.String(rng)}
			if srcKey != nil {
				in.CopySourceSSECustomerAlgorithm, in.CopySourceSSECustomerKey, in.CopySourceSSECustomerKeyMD5 = alg, &srcKey.key, &srcKey.md5
			}
			if dest.key != nil {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, &dest.key.key, &dest.key.md5
			}
			return c.UploadPartCopy(ctx, in)
		}
		_, err = copyPart(1, "src-c", "bytes=0-5242879", nil)
		wantCode(t, dest.name+": UploadPartCopy of an SSE-C source without its key", err, 400, "InvalidRequest")
		_, err = copyPart(1, "src-c", "bytes=0-5242879", &k2)
		wantCode(t, dest.name+": UploadPartCopy of an SSE-C source with another key", err, 403, "AccessDenied")
		p1, err := copyPart(1, "src-c", "bytes=0-5242879", &k1)
		if err != nil {
			t.Fatalf("%s: UploadPartCopy from SSE-C: %v", dest.name, err)
		}
		p2, err := copyPart(2, "src-s3", "bytes=100-70099", nil)
		if err != nil {
			t.Fatalf("%s: UploadPartCopy from SSE-S3: %v", dest.name, err)
		}
		_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &dest.name, UploadId: up.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{
				{PartNumber: aws.Int32(1), ETag: p1.CopyPartResult.ETag}, {PartNumber: aws.Int32(2), ETag: p2.CopyPartResult.ETag}}}})
		if err != nil {
			t.Fatalf("%s: CompleteMultipartUpload: %v", dest.name, err)
		}
		want := append(append([]byte(nil), src[:5<<20]...), src[100:70100]...)
		gin := &s3.GetObjectInput{Bucket: &bucket, Key: &dest.name}
		if dest.key != nil {
			gin.SSECustomerAlgorithm, gin.SSECustomerKey, gin.SSECustomerKeyMD5 = alg, &dest.key.key, &dest.key.md5
		}
		o, err := c.GetObject(ctx, gin)
		if err != nil {
			t.Fatalf("%s: GetObject: %v", dest.name, err)
		}
		got, err := io.ReadAll(o.Body)
		o.Body.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: GetObject differs (%d bytes, %v)", dest.name, len(got), err)
		}
		if dest.key == nil {
			onDisk, err := os.ReadFile(filepath.Join(g.Root, bucket, dest.name))
			if err != nil || !bytes.Equal(onDisk, want) {
				t.Fatalf("the plain upload's file is not the plaintext (%d bytes, %v)", len(onDisk), err)
			}
		}
	}
}

// TestSSEMultipartTamperIsAnError damages a multipart encrypted object's
// file behind the gateway's back — a flipped byte in the second part, the
// first two parts' streams swapped (size and mtime kept), the last
// package cut off — and checks every read answers an error, never other
// bytes with 200.
func TestSSEMultipartTamperIsAnError(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssemptamper")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	m := mpModes(sseKey{}, "", "")[0]
	// Two equal parts, so their streams can be swapped in place.
	sizes := mpPartSizes
	mpPartSizes = []int{5 << 20, 5 << 20, 1000}
	t.Cleanup(func() { mpPartSizes = sizes })
	streamSize := int64(5<<20) / (64 << 10) * (64<<10 + 32)
	damage := map[string]func(path string, b []byte) []byte{
		"flip": func(_ string, b []byte) []byte { b[streamSize+100] ^= 1; return b },
		"swap": func(_ string, b []byte) []byte {
			out := append(append(append([]byte(nil), b[streamSize:2*streamSize]...), b[:streamSize]...), b[2*streamSize:]...)
			return out
		},
		"cut": func(_ string, b []byte) []byte { return b[:len(b)-10] },
	}
	// mustFail are the ranges each damage reaches; a read of another range
	// may succeed, with the right bytes.
	mustFail := map[string][]string{
		"flip": {"", "bytes=5242870-5242889"},
		"swap": {"", "bytes=5242870-5242889", "bytes=0-9"},
		"cut":  {"", "bytes=5242870-5242889", "bytes=0-9", "bytes=-5"},
	}
	for name, fn := range damage {
		key := "t-" + name
		plain, _ := uploadEncrypted(t, c, bucket, key, m)
		path := filepath.Join(g.Root, bucket, key)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b = fn(path, b)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(b); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		for _, rng := range []string{"", "bytes=5242870-5242889", "bytes=0-9", "bytes=-5"} {
			fail := false
			for _, r := range mustFail[name] {
				fail = fail || r == rng
			}
			in := &s3.GetObjectInput{Bucket: &bucket, Key: &key}
			want := plain
			switch rng {
			case "bytes=5242870-5242889":
				want = plain[5242870:5242890]
			case "bytes=0-9":
				want = plain[:10]
			case "bytes=-5":
				want = plain[len(plain)-5:]
			}
			if rng != "" {
				in.Range = &rng
			}
			out, err := c.GetObject(ctx, in)
			if err == nil {
				got, rerr := io.ReadAll(out.Body)
				out.Body.Close()
				switch {
				case rerr == nil && fail:
					t.Errorf("%s %q: GetObject answered 200 without error (the plaintext: %v)", name, rng, bytes.Equal(got, want))
				case rerr == nil && !bytes.Equal(got, want):
					t.Errorf("%s %q: GetObject answered other bytes", name, rng)
				}
				continue
			}
			var oe interface{ ErrorCode() string }
			if !errors.As(err, &oe) || oe.ErrorCode() != "InternalError" {
				t.Errorf("%s %q: GetObject error %v, want InternalError", name, rng, err)
			}
		}
	}
}

// TestSSEMultipartBucketDefault completes a multipart upload without
// encryption headers in a bucket whose default is SSE-KMS with
// BucketKeyEnabled: the object is encrypted (nothing in clear on disk)
// and every answer carries x-amz-server-side-encryption-bucket-key-enabled,
// as S3 sends it for SSE-KMS with an S3 Bucket Key; an upload's own
// SSE-S3 wins over the default.
func TestSSEMultipartBucketDefault(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssempdefault")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{Bucket: &bucket,
		ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{{
			ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: types.ServerSideEncryptionAwsKms},
			BucketKeyEnabled:                   aws.Bool(true),
		}}}}); err != nil {
		t.Fatal(err)
	}
	none := mpSSE{name: "default", create: func(*s3.CreateMultipartUploadInput) {}, part: func(*s3.UploadPartInput) {}, sse: types.ServerSideEncryptionAwsKms}
	plain, out := uploadEncrypted(t, c, bucket, "d", none)
	if out.ServerSideEncryption != types.ServerSideEncryptionAwsKms || !aws.ToBool(out.BucketKeyEnabled) {
		t.Errorf("CompleteMultipartUpload under the default: sse %q bucket key %v", out.ServerSideEncryption, aws.ToBool(out.BucketKeyEnabled))
	}
	noMarkerUnderRoot(t, g.Root, []byte(mpMarker))
	o, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("d")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(o.Body)
	o.Body.Close()
	if err != nil || !bytes.Equal(got, plain) || !aws.ToBool(o.BucketKeyEnabled) {
		t.Fatalf("GetObject: %d bytes, bucket key %v, %v", len(got), aws.ToBool(o.BucketKeyEnabled), err)
	}
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("single"), Body: strings.NewReader("x")})
	if err != nil || !aws.ToBool(put.BucketKeyEnabled) {
		t.Fatalf("PutObject under the default: bucket key %v, %v", put != nil && aws.ToBool(put.BucketKeyEnabled), err)
	}
	off, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("nokey"), Body: strings.NewReader("x"),
		BucketKeyEnabled: aws.Bool(false)})
	if err != nil || aws.ToBool(off.BucketKeyEnabled) {
		t.Fatalf("PutObject with bucket-key-enabled false: %v", err)
	}
	own := mpModes(sseKey{}, "", "")[0]
	_, out = uploadEncrypted(t, c, bucket, "own", own)
	if out.ServerSideEncryption != types.ServerSideEncryptionAes256 || aws.ToBool(out.BucketKeyEnabled) {
		t.Errorf("an upload's own SSE-S3: sse %q bucket key %v", out.ServerSideEncryption, aws.ToBool(out.BucketKeyEnabled))
	}
}

// TestSSEMultipartAbortRemovesParts aborts an encrypted upload and checks
// its parts are gone from disk and ListParts answers NoSuchUpload.
func TestSSEMultipartAbortRemovesParts(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssempabort")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("a"),
		ServerSideEncryption: types.ServerSideEncryptionAes256})
	if err != nil {
		t.Fatal(err)
	}
	body := markerPart(1, 200<<10)
	if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: aws.String("a"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
	noMarkerUnderRoot(t, g.Root, []byte(mpMarker))
	sized := func() int {
		n := 0
		_ = filepath.Walk(g.Root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && fi.Size() >= int64(len(body)) {
				n++
			}
			return nil
		})
		return n
	}
	if sized() != 1 {
		t.Fatalf("%d files of the part's size under the root before the abort, want 1", sized())
	}
	if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &bucket, Key: aws.String("a"), UploadId: up.UploadId}); err != nil {
		t.Fatal(err)
	}
	if n := sized(); n != 0 {
		t.Errorf("%d part files left after the abort", n)
	}
	_, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: aws.String("a"), UploadId: up.UploadId})
	wantCode(t, "ListParts after the abort", err, 404, "NoSuchUpload")
}

// minioTLS is minio-go over the TLS listener: minio-go sends SSE-C keys
// only over TLS.
func minioTLS(t *testing.T, g *gateway) *minio.Client {
	t.Helper()
	u, err := url.Parse(g.TLS)
	if err != nil {
		t.Fatal(err)
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds: miniocreds.NewStaticV4(g.AccessKey, g.SecretKey, ""), Secure: true, Region: g.Region,
		BucketLookup: minio.BucketLookupPath, Transport: g.transport(), MaxRetries: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSSEMinioMultipart drives the encrypted operations through minio-go's
// own helpers: PutObject large enough to go multipart with encrypt.NewSSEC,
// encrypt.NewSSE and encrypt.NewSSEKMS (with a context), GetObject (whole
// and a range) with the SSE-C key, StatObject, CopyObject changing the
// SSE-C key, ComposeObject (UploadPartCopy) of two SSE-C sources into an
// SSE-S3 object; and the errors: a wrong key, a missing key.
func TestSSEMinioMultipart(t *testing.T) {
	g := startGateway(t)
	ring, err := g.layer.KeyRing()
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.Create("minio-key"); err != nil {
		t.Fatal(err)
	}
	mc := minioTLS(t, g)
	ctx := context.Background()
	bucket := uniqueBucket("sseminio")
	if err := mc.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	ssec, err := encrypt.NewSSEC(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	other, err := encrypt.NewSSEC(bytes.Repeat([]byte{8}, 32))
	if err != nil {
		t.Fatal(err)
	}
	kms, err := encrypt.NewSSEKMS("minio-key", map[string]string{"team": "storage"})
	if err != nil {
		t.Fatal(err)
	}
	plain := append(markerPart(1, 5<<20), markerPart(2, 3<<20+11)...)
	for name, sse := range map[string]encrypt.ServerSide{"ssec": ssec, "sse-s3": encrypt.NewSSE(), "kms": kms} {
		info, err := mc.PutObject(ctx, bucket, name, bytes.NewReader(plain), int64(len(plain)),
			minio.PutObjectOptions{ServerSideEncryption: sse, PartSize: 5 << 20, DisableContentSha256: true})
		if err != nil {
			t.Fatalf("%s: PutObject: %v", name, err)
		}
		if !strings.HasSuffix(info.ETag, "-2") {
			t.Errorf("%s: PutObject went single-part (ETag %s)", name, info.ETag)
		}
		var get encrypt.ServerSide
		if name == "ssec" {
			get = ssec
		}
		o, err := mc.GetObject(ctx, bucket, name, minio.GetObjectOptions{ServerSideEncryption: get})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(o)
		o.Close()
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%s: GetObject differs (%d bytes, %v)", name, len(got), err)
		}
		ropts := minio.GetObjectOptions{ServerSideEncryption: get}
		if err := ropts.SetRange(5<<20-3, 5<<20+3); err != nil {
			t.Fatal(err)
		}
		o, err = mc.GetObject(ctx, bucket, name, ropts)
		if err != nil {
			t.Fatal(err)
		}
		got, err = io.ReadAll(o)
		o.Close()
		if err != nil || !bytes.Equal(got, plain[5<<20-3:5<<20+4]) {
			t.Fatalf("%s: ranged GetObject differs (%q, %v)", name, got, err)
		}
		st, err := mc.StatObject(ctx, bucket, name, minio.StatObjectOptions{ServerSideEncryption: get})
		if err != nil || st.Size != int64(len(plain)) {
			t.Fatalf("%s: StatObject: %v", name, err)
		}
	}
	noMarkerUnderRoot(t, g.Root, []byte(mpMarker))

	wantMinio := func(what string, err error, status int, code string) {
		t.Helper()
		r := minio.ToErrorResponse(err)
		if err == nil || r.StatusCode != status || r.Code != code {
			t.Errorf("%s: %v (%d %s), want %d %s", what, err, r.StatusCode, r.Code, status, code)
		}
	}
	_, err = mc.StatObject(ctx, bucket, "ssec", minio.StatObjectOptions{ServerSideEncryption: other})
	wantMinio("StatObject with another SSE-C key", err, 403, "AccessDenied")
	o, err := mc.GetObject(ctx, bucket, "ssec", minio.GetObjectOptions{})
	if err == nil {
		_, err = io.ReadAll(o)
		o.Close()
	}
	wantMinio("GetObject of the SSE-C object without its key", err, 400, "InvalidRequest")

	if _, err := mc.CopyObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "rekeyed", Encryption: other},
		minio.CopySrcOptions{Bucket: bucket, Object: "ssec", Encryption: ssec}); err != nil {
		t.Fatalf("CopyObject changing the SSE-C key: %v", err)
	}
	o, err = mc.GetObject(ctx, bucket, "rekeyed", minio.GetObjectOptions{ServerSideEncryption: other})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(o)
	o.Close()
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("GetObject of the re-keyed copy differs (%d bytes, %v)", len(got), err)
	}

	// ComposeObject copies each source with UploadPartCopy.
	if _, err := mc.ComposeObject(ctx, minio.CopyDestOptions{Bucket: bucket, Object: "composed", Encryption: encrypt.NewSSE()},
		minio.CopySrcOptions{Bucket: bucket, Object: "ssec", Encryption: ssec},
		minio.CopySrcOptions{Bucket: bucket, Object: "rekeyed", Encryption: other}); err != nil {
		t.Fatalf("ComposeObject of SSE-C sources: %v", err)
	}
	o, err = mc.GetObject(ctx, bucket, "composed", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(o)
	o.Close()
	if err != nil || !bytes.Equal(got, append(append([]byte(nil), plain...), plain...)) {
		t.Fatalf("GetObject of the composed object differs (%d bytes, %v)", len(got), err)
	}
	noMarkerUnderRoot(t, g.Root, []byte(mpMarker))
}

// TestSSEKeyRingRotationAndDisable writes single-part and multipart
// SSE-KMS objects, rotates their key: the old objects still read (their
// records name the version that sealed them), before and after a restart,
// and new writes use the new version; no data is re-encrypted. A disabled
// key refuses new writes (PutObject, CreateMultipartUpload) and the reads
// of its objects with 400 KMS.DisabledException, as S3 answers when KMS
// refuses; enabled again, everything reads.
func TestSSEKeyRingRotationAndDisable(t *testing.T) {
	g := startGateway(t)
	ring, err := g.layer.KeyRing()
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.Create("rot"); err != nil {
		t.Fatal(err)
	}
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("sserot")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	kmsMode := mpModes(sseKey{}, "rot", base64.StdEncoding.EncodeToString([]byte(`{"k":"v"}`)))[1]
	single := func(key string) ([]byte, error) {
		body := markerPart(9, 70000)
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(body),
			ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("rot")})
		return body, err
	}
	version := func(key string) uint64 {
		t.Helper()
		o, err := g.layer.StatObject(bucket, key)
		if err != nil {
			t.Fatal(err)
		}
		return o.SSE.KeyVersion
	}
	read := func(key string, want []byte) error {
		o, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
		if err != nil {
			return err
		}
		defer o.Body.Close()
		got, err := io.ReadAll(o.Body)
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("%s read back other bytes", key)
		}
		return err
	}
	want := map[string][]byte{}
	if want["old"], err = single("old"); err != nil {
		t.Fatal(err)
	}
	want["old-mp"], _ = uploadEncrypted(t, c, bucket, "old-mp", kmsMode)
	v1 := version("old")
	if version("old-mp") != v1 {
		t.Fatalf("the multipart object's key version %d, the single one's %d", version("old-mp"), v1)
	}
	oldFile, err := os.ReadFile(filepath.Join(g.Root, bucket, "old-mp"))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := ring.Rotate("rot")
	if err != nil || v2 == v1 {
		t.Fatalf("Rotate: %d, %v", v2, err)
	}
	if want["new"], err = single("new"); err != nil {
		t.Fatal(err)
	}
	want["new-mp"], _ = uploadEncrypted(t, c, bucket, "new-mp", kmsMode)
	if version("new") != v2 || version("new-mp") != v2 || version("old") != v1 {
		t.Fatalf("key versions after the rotation: old %d new %d new-mp %d, want %d %d %d", version("old"), version("new"), version("new-mp"), v1, v2, v2)
	}
	if now, err := os.ReadFile(filepath.Join(g.Root, bucket, "old-mp")); err != nil || !bytes.Equal(now, oldFile) {
		t.Fatal("the rotation changed an old object's file")
	}
	for round := range 2 {
		for key, b := range want {
			if err := read(key, b); err != nil {
				t.Fatalf("round %d: GetObject %s: %v", round, key, err)
			}
		}
		g.restart()
	}
	ring, err = g.layer.KeyRing()
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.SetDisabled("rot", true); err != nil {
		t.Fatal(err)
	}
	_, err = single("refused")
	wantCode(t, "PutObject with a disabled KMS key", err, 400, "KMS.DisabledException")
	_, err = c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("refused-mp"),
		ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("rot")})
	wantCode(t, "CreateMultipartUpload with a disabled KMS key", err, 400, "KMS.DisabledException")
	for _, key := range []string{"old", "new-mp"} {
		wantCode(t, "GetObject under a disabled KMS key", read(key, want[key]), 400, "KMS.DisabledException")
	}
	if err := ring.SetDisabled("rot", false); err != nil {
		t.Fatal(err)
	}
	for key, b := range want {
		if err := read(key, b); err != nil {
			t.Fatalf("GetObject %s once the key is enabled again: %v", key, err)
		}
	}
}

// TestSSEMultipartVersions writes an SSE-C multipart object twice in a
// versioned bucket: the first version, moved to the versions area, still
// reads by its id with its key, and the second is the current one.
func TestSSEMultipartVersions(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssempver")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: &bucket,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	ck := newSSEKey(6)
	m := mpModes(ck, "", "")[2]
	sizes := mpPartSizes
	mpPartSizes = []int{5 << 20, 1000}
	t.Cleanup(func() { mpPartSizes = sizes })
	first, out1 := uploadEncrypted(t, c, bucket, "v", m)
	mpPartSizes = []int{5 << 20, 2000}
	second, _ := uploadEncrypted(t, c, bucket, "v", m)
	noMarkerUnderRoot(t, g.Root, []byte(mpMarker))
	for _, tc := range []struct {
		id   *string
		want []byte
	}{{out1.VersionId, first}, {nil, second}} {
		in := &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("v"), VersionId: tc.id, Range: aws.String("bytes=5242870-")}
		m.get(in)
		o, err := c.GetObject(ctx, in)
		if err != nil {
			t.Fatalf("GetObject version %v: %v", aws.ToString(tc.id), err)
		}
		got, err := io.ReadAll(o.Body)
		o.Body.Close()
		if err != nil || !bytes.Equal(got, tc.want[5242870:]) {
			t.Fatalf("GetObject version %v: %d bytes, %v", aws.ToString(tc.id), len(got), err)
		}
	}
}
