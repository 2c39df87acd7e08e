package api_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// sseKey is an SSE-C key and the headers' encodings of it.
type sseKey struct{ key, md5 string }

func newSSEKey(b byte) sseKey {
	k := bytes.Repeat([]byte{b}, 32)
	sum := md5.Sum(k)
	return sseKey{base64.StdEncoding.EncodeToString(k), base64.StdEncoding.EncodeToString(sum[:])}
}

// ssePlain is an object body with a marker that must never reach the disk.
func ssePlain() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 3*64<<10+1000; i++ {
		b.WriteString("PLAINTEXT-MARKER-")
		b.WriteByte(byte('a' + i%26))
	}
	return b.Bytes()
}

// noMarkerUnderRoot fails when marker appears in any file under root.
func noMarkerUnderRoot(t *testing.T, root string, marker []byte) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, marker) {
			t.Errorf("plaintext marker found in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSSEPutGetHead stores an object with SSE-S3, SSE-KMS and SSE-C and
// reads it back whole, by range, by HEAD and after a restart; checks the
// response headers and ETags; and checks that no plaintext is on disk.
func TestSSEPutGetHead(t *testing.T) {
	g := startGateway(t)
	ring, err := g.layer.KeyRing()
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.Create("app-key"); err != nil {
		t.Fatal(err)
	}
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("sse")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	plain := ssePlain()
	sum := md5.Sum(plain)
	ck := newSSEKey(7)
	cases := []struct {
		name   string
		put    func(*s3.PutObjectInput)
		get    func(*s3.GetObjectInput)
		head   func(*s3.HeadObjectInput)
		sse    types.ServerSideEncryption
		md5tag bool
	}{
		{name: "sse-s3", put: func(in *s3.PutObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 },
			get: func(*s3.GetObjectInput) {}, head: func(*s3.HeadObjectInput) {}, sse: types.ServerSideEncryptionAes256, md5tag: true},
		{name: "sse-kms", put: func(in *s3.PutObjectInput) {
			in.ServerSideEncryption = types.ServerSideEncryptionAwsKms
			in.SSEKMSKeyId = aws.String("app-key")
		}, get: func(*s3.GetObjectInput) {}, head: func(*s3.HeadObjectInput) {}, sse: types.ServerSideEncryptionAwsKms},
		{name: "sse-c", put: func(in *s3.PutObjectInput) {
			in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), &ck.key, &ck.md5
		}, get: func(in *s3.GetObjectInput) {
			in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), &ck.key, &ck.md5
		}, head: func(in *s3.HeadObjectInput) {
			in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), &ck.key, &ck.md5
		}},
	}
	for _, tc := range cases {
		key := "obj-" + tc.name
		in := &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(plain)}
		tc.put(in)
		out, err := c.PutObject(ctx, in)
		if err != nil {
			t.Fatalf("%s: PutObject: %v", tc.name, err)
		}
		if out.ServerSideEncryption != tc.sse {
			t.Errorf("%s: PutObject x-amz-server-side-encryption %q, want %q", tc.name, out.ServerSideEncryption, tc.sse)
		}
		isMD5 := strings.Trim(aws.ToString(out.ETag), `"`) == base16(sum[:])
		if isMD5 != tc.md5tag {
			t.Errorf("%s: ETag %s is the plaintext MD5: %v, want %v", tc.name, aws.ToString(out.ETag), isMD5, tc.md5tag)
		}
		if tc.name == "sse-kms" && aws.ToString(out.SSEKMSKeyId) != "app-key" {
			t.Errorf("sse-kms: key id %q", aws.ToString(out.SSEKMSKeyId))
		}
		if tc.name == "sse-c" && aws.ToString(out.SSECustomerKeyMD5) != ck.md5 {
			t.Errorf("sse-c: key MD5 %q, want %q", aws.ToString(out.SSECustomerKeyMD5), ck.md5)
		}
	}
	noMarkerUnderRoot(t, g.Root, []byte("PLAINTEXT-MARKER-"))
	for round := range 2 {
		for _, tc := range cases {
			key := "obj-" + tc.name
			for _, rng := range []string{"", "bytes=70000-70009", "bytes=-5", "bytes=65530-131080"} {
				gin := &s3.GetObjectInput{Bucket: &bucket, Key: &key}
				want := plain
				if rng != "" {
					gin.Range = aws.String(rng)
					switch rng {
					case "bytes=70000-70009":
						want = plain[70000:70010]
					case "bytes=-5":
						want = plain[len(plain)-5:]
					default:
						want = plain[65530:131081]
					}
				}
				tc.get(gin)
				out, err := c.GetObject(ctx, gin)
				if err != nil {
					t.Fatalf("round %d %s %q: GetObject: %v", round, tc.name, rng, err)
				}
				got, err := io.ReadAll(out.Body)
				out.Body.Close()
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("round %d %s %q: GetObject body differs (%d bytes, %v)", round, tc.name, rng, len(got), err)
				}
				if out.ServerSideEncryption != tc.sse {
					t.Errorf("%s: GetObject x-amz-server-side-encryption %q", tc.name, out.ServerSideEncryption)
				}
			}
			hin := &s3.HeadObjectInput{Bucket: &bucket, Key: &key}
			tc.head(hin)
			h, err := c.HeadObject(ctx, hin)
			if err != nil {
				t.Fatalf("%s: HeadObject: %v", tc.name, err)
			}
			if aws.ToInt64(h.ContentLength) != int64(len(plain)) || h.ServerSideEncryption != tc.sse {
				t.Errorf("%s: HeadObject length %d sse %q", tc.name, aws.ToInt64(h.ContentLength), h.ServerSideEncryption)
			}
		}
		// The key ring outlives the process: a restart reads everything back.
		g.restart()
	}
}

func base16(b []byte) string {
	const hexd = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, x := range b {
		out = append(out, hexd[x>>4], hexd[x&15])
	}
	return string(out)
}

// TestSSECustomerKeyErrors checks S3's answers to SSE-C mistakes: a wrong
// key is 403 AccessDenied, a missing key 400 InvalidRequest, a key for an
// object stored without one 400 InvalidRequest, a bad MD5 400
// InvalidArgument, and an SSE-C key over plain HTTP 400 InvalidRequest.
func TestSSECustomerKeyErrors(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssec")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	ck, wrong := newSSEKey(1), newSSEKey(2)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("c"), Body: strings.NewReader("secret"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &ck.key, SSECustomerKeyMD5: &ck.md5}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("plain"), Body: strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("c"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &wrong.key, SSECustomerKeyMD5: &wrong.md5})
	wantCode(t, "GetObject with the wrong key", err, 403, "AccessDenied")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("c")})
	wantCode(t, "GetObject without the key", err, 400, "InvalidRequest")
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("plain"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &ck.key, SSECustomerKeyMD5: &ck.md5})
	wantCode(t, "GetObject of a plain object with a key", err, 400, "InvalidRequest")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("bad"), Body: strings.NewReader("x"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &ck.key, SSECustomerKeyMD5: &wrong.md5})
	wantCode(t, "PutObject with a key MD5 of another key", err, 400, "InvalidArgument")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("kms"), Body: strings.NewReader("x"),
		ServerSideEncryption: types.ServerSideEncryptionAwsKms, SSEKMSKeyId: aws.String("no-such-key")})
	wantCode(t, "PutObject with an unknown KMS key", err, 400, "KMS.NotFoundException")
	plainHTTP := g.sdk(sdkMode{name: "http"})
	_, err = plainHTTP.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("insecure"), Body: strings.NewReader("x"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &ck.key, SSECustomerKeyMD5: &ck.md5})
	wantCode(t, "PutObject with SSE-C over plain HTTP", err, 400, "InvalidRequest")
}

// TestSSETamperedFileIsAnError changes one byte of an encrypted object's
// file (size and mtime kept, as a disk or another program might) and
// checks GetObject answers an error instead of wrong bytes.
func TestSSETamperedFileIsAnError(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssetamper")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	plain := ssePlain()
	for _, at := range []int{30, 64<<10 + 60} {
		key := "t" + string(rune('a'+at%26))
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(plain),
			ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
			t.Fatal(err)
		}
		flipFileByte(t, filepath.Join(g.Root, bucket, key), int64(at), 1)
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
		if err == nil {
			got, rerr := io.ReadAll(out.Body)
			out.Body.Close()
			if rerr == nil {
				t.Fatalf("byte %d flipped: GetObject answered %d bytes without error (equal to the plaintext: %v)", at, len(got), bytes.Equal(got, plain))
			}
			continue
		}
		var oe interface{ ErrorCode() string }
		if !errors.As(err, &oe) || oe.ErrorCode() != "InternalError" {
			t.Fatalf("byte %d flipped: GetObject error %v, want InternalError", at, err)
		}
	}
}

// TestSSECopyObject copies an SSE-C object to another key (the key
// changes), to SSE-S3 and to a plain object, whose file is then the
// plaintext; without the source's key the copy is InvalidRequest, and
// UploadPartCopy of an encrypted source into a plain upload copies the
// plaintext.
func TestSSECopyObject(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssecopy")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	plain := ssePlain()
	k1, k2 := newSSEKey(1), newSSEKey(2)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("src"), Body: bytes.NewReader(plain),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &k1.key, SSECustomerKeyMD5: &k1.md5}); err != nil {
		t.Fatal(err)
	}
	source := bucket + "/src"
	withSrcKey := func(in *s3.CopyObjectInput) *s3.CopyObjectInput {
		in.CopySourceSSECustomerAlgorithm, in.CopySourceSSECustomerKey, in.CopySourceSSECustomerKeyMD5 = aws.String("AES256"), &k1.key, &k1.md5
		return in
	}
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("nokey"), CopySource: &source})
	wantCode(t, "CopyObject of an SSE-C source without its key", err, 400, "InvalidRequest")

	out, err := c.CopyObject(ctx, withSrcKey(&s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("rekeyed"), CopySource: &source,
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &k2.key, SSECustomerKeyMD5: &k2.md5}))
	if err != nil {
		t.Fatalf("CopyObject to a new SSE-C key: %v", err)
	}
	if aws.ToString(out.SSECustomerKeyMD5) != k2.md5 {
		t.Errorf("CopyObject answered key MD5 %q, want the new key's", aws.ToString(out.SSECustomerKeyMD5))
	}
	get := func(key string, k *sseKey) ([]byte, error) {
		in := &s3.GetObjectInput{Bucket: &bucket, Key: &key}
		if k != nil {
			in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = aws.String("AES256"), &k.key, &k.md5
		}
		o, err := c.GetObject(ctx, in)
		if err != nil {
			return nil, err
		}
		defer o.Body.Close()
		return io.ReadAll(o.Body)
	}
	if b, err := get("rekeyed", &k2); err != nil || !bytes.Equal(b, plain) {
		t.Fatalf("GetObject of the re-keyed copy: %v", err)
	}
	_, err = get("rekeyed", &k1)
	wantCode(t, "GetObject of the re-keyed copy with the old key", err, 403, "AccessDenied")

	out, err = c.CopyObject(ctx, withSrcKey(&s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("s3"), CopySource: &source,
		ServerSideEncryption: types.ServerSideEncryptionAes256}))
	if err != nil || out.ServerSideEncryption != types.ServerSideEncryptionAes256 {
		t.Fatalf("CopyObject to SSE-S3: %v, %q", err, out.ServerSideEncryption)
	}
	sum := md5.Sum(plain)
	if strings.Trim(aws.ToString(out.CopyObjectResult.ETag), `"`) != base16(sum[:]) {
		t.Errorf("SSE-S3 copy ETag %s, want the plaintext MD5", aws.ToString(out.CopyObjectResult.ETag))
	}
	if b, err := get("s3", nil); err != nil || !bytes.Equal(b, plain) {
		t.Fatalf("GetObject of the SSE-S3 copy: %v", err)
	}

	if _, err := c.CopyObject(ctx, withSrcKey(&s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("plain"), CopySource: &source})); err != nil {
		t.Fatalf("CopyObject to a plain object: %v", err)
	}
	onDisk, err := os.ReadFile(filepath.Join(g.Root, bucket, "plain"))
	if err != nil || !bytes.Equal(onDisk, plain) {
		t.Fatalf("the plain copy's file is not the plaintext (%d bytes, %v)", len(onDisk), err)
	}
	if b, err := get("plain", nil); err != nil || !bytes.Equal(b, plain) {
		t.Fatalf("GetObject of the plain copy: %v", err)
	}

	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	// UploadPartCopy of an encrypted source into a plain upload decrypts
	// it: the part is the plaintext, never the source's ciphertext.
	pc, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: &bucket, Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), CopySource: aws.String(bucket + "/s3")})
	if err != nil {
		t.Fatalf("UploadPartCopy of an encrypted source: %v", err)
	}
	if strings.Trim(aws.ToString(pc.CopyPartResult.ETag), `"`) != base16(sum[:]) {
		t.Errorf("UploadPartCopy of an SSE-S3 source into a plain upload: ETag %s, want the plaintext MD5", aws.ToString(pc.CopyPartResult.ETag))
	}
}

// TestSSEBucketDefaultEncryption sets, reads and deletes a bucket's
// default encryption and checks that PutObject and CopyObject without
// headers of their own are encrypted with it (nothing in clear on disk),
// while a write's own headers win; an unknown KMS key and aws:kms:dsse
// are refused; CreateMultipartUpload takes it too.
func TestSSEBucketDefaultEncryption(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssedefault")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	put := func(alg types.ServerSideEncryption, key string) error {
		_, err := c.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{Bucket: &bucket,
			ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{{
				ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: alg, KMSMasterKeyID: aws.String(key)},
				BucketKeyEnabled:                   aws.Bool(true),
			}}}})
		return err
	}
	wantCode(t, "PutBucketEncryption with an unknown KMS key", put(types.ServerSideEncryptionAwsKms, "nope"), 400, "InvalidArgument")
	wantCode(t, "PutBucketEncryption with aws:kms:dsse", put(types.ServerSideEncryptionAwsKmsDsse, ""), 501, "NotImplemented")
	if err := put(types.ServerSideEncryptionAwsKms, ""); err != nil {
		t.Fatalf("PutBucketEncryption aws:kms: %v", err)
	}
	got, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: &bucket})
	if err != nil {
		t.Fatal(err)
	}
	r := got.ServerSideEncryptionConfiguration.Rules[0]
	if r.ApplyServerSideEncryptionByDefault.SSEAlgorithm != types.ServerSideEncryptionAwsKms || !aws.ToBool(r.BucketKeyEnabled) {
		t.Errorf("GetBucketEncryption = %+v", r.ApplyServerSideEncryptionByDefault)
	}
	plain := ssePlain()
	out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("a"), Body: bytes.NewReader(plain)})
	if err != nil || out.ServerSideEncryption != types.ServerSideEncryptionAwsKms {
		t.Fatalf("PutObject under default aws:kms: %v, %q", err, out.ServerSideEncryption)
	}
	own, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("b"), Body: bytes.NewReader(plain),
		ServerSideEncryption: types.ServerSideEncryptionAes256})
	if err != nil || own.ServerSideEncryption != types.ServerSideEncryptionAes256 {
		t.Fatalf("PutObject with its own SSE-S3: %v, %q", err, own.ServerSideEncryption)
	}
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("c"), CopySource: aws.String(bucket + "/a")})
	if err != nil || cp.ServerSideEncryption != types.ServerSideEncryptionAwsKms {
		t.Fatalf("CopyObject under default aws:kms: %v, %q", err, cp.ServerSideEncryption)
	}
	noMarkerUnderRoot(t, g.Root, []byte("PLAINTEXT-MARKER-"))
	o, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("c")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(o.Body)
	o.Body.Close()
	if err != nil || !bytes.Equal(b, plain) {
		t.Fatalf("GetObject of the copy: %v", err)
	}
	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp")})
	if err != nil || mp.ServerSideEncryption != types.ServerSideEncryptionAwsKms || !aws.ToBool(mp.BucketKeyEnabled) {
		t.Fatalf("CreateMultipartUpload under default aws:kms: %v", err)
	}

	if _, err := c.DeleteBucketEncryption(ctx, &s3.DeleteBucketEncryptionInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: &bucket})
	wantCode(t, "GetBucketEncryption after delete", err, 404, "ServerSideEncryptionConfigurationNotFoundError")
	plainOut, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("d"), Body: strings.NewReader("clear")})
	if err != nil || plainOut.ServerSideEncryption != "" {
		t.Fatalf("PutObject after DeleteBucketEncryption: %v, %q", err, plainOut.ServerSideEncryption)
	}
}

// TestSSEPostAndAttributes stores browser POST uploads with SSE-S3 (a
// form field) and under a bucket default, both encrypted on disk and read
// back; an SSE-C field over plain HTTP is refused; GetObjectAttributes of
// an SSE-C object needs its key.
func TestSSEPostAndAttributes(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssepost")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	pol := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket},
		[]any{"starts-with", "$key", ""},
		[]any{"starts-with", "$x-amz-server-side-encryption", ""},
	}}
	body := []byte("PLAINTEXT-MARKER-post-upload")
	fields := append([]postField{{"key", "s3.txt"}, {"x-amz-server-side-encryption", "AES256"}}, g.signPost(pol, g.AccessKey, g.SecretKey, now)...)
	resp, rb := g.postUpload(bucket, fields, "f.txt", body)
	if resp.StatusCode != 204 || resp.Header.Get("X-Amz-Server-Side-Encryption") != "AES256" {
		t.Fatalf("POST with SSE-S3: %d %q %s", resp.StatusCode, resp.Header.Get("X-Amz-Server-Side-Encryption"), rb)
	}
	ck := newSSEKey(3)
	polC := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket},
		[]any{"starts-with", "$key", ""},
		[]any{"starts-with", "$x-amz-server-side-encryption-customer-algorithm", ""},
		[]any{"starts-with", "$x-amz-server-side-encryption-customer-key", ""},
		[]any{"starts-with", "$x-amz-server-side-encryption-customer-key-MD5", ""},
	}}
	fields = append([]postField{{"key", "c.txt"}, {"x-amz-server-side-encryption-customer-algorithm", "AES256"},
		{"x-amz-server-side-encryption-customer-key", ck.key}, {"x-amz-server-side-encryption-customer-key-MD5", ck.md5}},
		g.signPost(polC, g.AccessKey, g.SecretKey, now)...)
	resp, rb = g.postUpload(bucket, fields, "f.txt", body)
	wantXMLError(t, "POST with SSE-C over plain HTTP", resp, rb, 400, "InvalidRequest")

	if _, err := c.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{Bucket: &bucket,
		ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{{
			ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: types.ServerSideEncryptionAes256}}}}}); err != nil {
		t.Fatal(err)
	}
	fields = append([]postField{{"key", "default.txt"}}, g.signPost(pol, g.AccessKey, g.SecretKey, now)...)
	resp, rb = g.postUpload(bucket, fields, "f.txt", body)
	if resp.StatusCode != 204 || resp.Header.Get("X-Amz-Server-Side-Encryption") != "AES256" {
		t.Fatalf("POST under a default encryption: %d %q %s", resp.StatusCode, resp.Header.Get("X-Amz-Server-Side-Encryption"), rb)
	}
	noMarkerUnderRoot(t, g.Root, []byte("PLAINTEXT-MARKER-"))
	for _, key := range []string{"s3.txt", "default.txt"} {
		o, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(o.Body)
		o.Body.Close()
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("GetObject %s: %v", key, err)
		}
	}

	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("c"), Body: strings.NewReader("secret"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &ck.key, SSECustomerKeyMD5: &ck.md5}); err != nil {
		t.Fatal(err)
	}
	attrs := []types.ObjectAttributes{types.ObjectAttributesObjectSize, types.ObjectAttributesEtag}
	_, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("c"), ObjectAttributes: attrs})
	wantCode(t, "GetObjectAttributes of an SSE-C object without its key", err, 400, "InvalidRequest")
	out, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: &bucket, Key: aws.String("c"), ObjectAttributes: attrs,
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: &ck.key, SSECustomerKeyMD5: &ck.md5})
	if err != nil || aws.ToInt64(out.ObjectSize) != 6 {
		t.Fatalf("GetObjectAttributes with the key: %v", err)
	}
}
