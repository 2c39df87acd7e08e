package api_test

// Conformance of the checksum algorithms S3 added after the first five
// (SHA512, MD5, XXHASH64, XXHASH3, XXHASH128), in every place a checksum
// travels: PutObject headers and aws-chunked trailers (signed and
// unsigned), multipart uploads (COMPOSITE only), CopyObject,
// GetObjectAttributes and HEAD/GET with x-amz-checksum-mode, including
// the per-part checksums of a GET or HEAD with partNumber.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// newAlgorithms are the algorithms this file covers. aws-sdk-go-v2
// computes SHA512 itself; it sends the others only as values the caller
// precomputed, which is what the tests do.
var newAlgorithms = []types.ChecksumAlgorithm{
	types.ChecksumAlgorithmSha512, types.ChecksumAlgorithmMd5,
	types.ChecksumAlgorithmXxhash64, types.ChecksumAlgorithmXxhash3, types.ChecksumAlgorithmXxhash128,
}

// sdkSum returns the Checksum<ALG> field of an SDK input or output (a
// pointer to a struct): S3's model names every one of them so.
func sdkSum(v any, alg types.ChecksumAlgorithm) string {
	f := reflect.ValueOf(v).Elem().FieldByName("Checksum" + string(alg))
	if !f.IsValid() {
		panic(fmt.Sprintf("%T has no Checksum%s", v, alg))
	}
	return aws.ToString(f.Interface().(*string))
}

// setSDKSum sets the Checksum<ALG> field of an SDK input (a pointer to a
// struct), which the SDK sends as x-amz-checksum-<alg>.
func setSDKSum(v any, alg types.ChecksumAlgorithm, value string) {
	f := reflect.ValueOf(v).Elem().FieldByName("Checksum" + string(alg))
	if !f.IsValid() {
		panic(fmt.Sprintf("%T has no Checksum%s", v, alg))
	}
	f.Set(reflect.ValueOf(aws.String(value)))
}

// TestConformanceChecksumAlgorithmsPut stores an object with each new
// algorithm's value in its header through every SDK mode (and SHA512 also
// computed by the SDK, which over TLS sends it as a trailer), reads it
// back from HEAD and GET in checksum mode and from GetObjectAttributes,
// and refuses a wrong value with BadDigest.
func TestConformanceChecksumAlgorithmsPut(t *testing.T) {
	g := startGateway(t)
	body := payload(300<<10, 41)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := mpBucket(t, c.Client, "algput")
			for _, alg := range newAlgorithms {
				t.Run(string(alg), func(t *testing.T) {
					want := mpFull(alg, body)
					key := "obj-" + string(alg)
					in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}
					setSDKSum(in, alg, want)
					out, err := c.PutObject(ctx, in)
					if err != nil {
						t.Fatalf("PutObject(%s header): %v", alg, err)
					}
					if got := sdkSum(out, alg); got != want {
						t.Errorf("PutObject: %s %q, want %q", alg, got, want)
					}
					head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
					if err != nil {
						t.Fatalf("HeadObject: %v", err)
					}
					if got := sdkSum(head, alg); got != want || head.ChecksumType != types.ChecksumTypeFullObject {
						t.Errorf("HeadObject checksum mode: %s %q type %q, want %q FULL_OBJECT", alg, got, head.ChecksumType, want)
					}
					get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
					if err != nil {
						t.Fatalf("GetObject: %v", err)
					}
					b, err := io.ReadAll(get.Body) // the SDK verifies SHA512 here
					get.Body.Close()
					if err != nil || !bytes.Equal(b, body) || sdkSum(get, alg) != want {
						t.Errorf("GetObject checksum mode: %d bytes, %v, %s %q", len(b), err, alg, sdkSum(get, alg))
					}
					attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String(key),
						ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesChecksum}})
					if err != nil {
						t.Fatalf("GetObjectAttributes: %v", err)
					}
					if attrs.Checksum == nil || sdkSum(attrs.Checksum, alg) != want || attrs.Checksum.ChecksumType != types.ChecksumTypeFullObject {
						t.Errorf("GetObjectAttributes Checksum = %+v, want %s %q", attrs.Checksum, alg, want)
					}

					bad := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}
					setSDKSum(bad, alg, mpFull(alg, []byte("other")))
					_, err = c.PutObject(ctx, bad)
					wantCode(t, "PutObject with a wrong "+string(alg), err, 400, "BadDigest")
				})
			}
			// SHA512 computed by the SDK: a header over HTTP, a trailer of
			// STREAMING-UNSIGNED-PAYLOAD-TRAILER over TLS.
			out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("sdk-sha512"), Body: bytes.NewReader(body),
				ChecksumAlgorithm: types.ChecksumAlgorithmSha512})
			if err != nil {
				t.Fatalf("PutObject(ChecksumAlgorithm SHA512): %v", err)
			}
			if got, want := aws.ToString(out.ChecksumSHA512), mpFull(types.ChecksumAlgorithmSha512, body); got != want {
				t.Errorf("PutObject(ChecksumAlgorithm SHA512): %q, want %q", got, want)
			}
		})
	}
}

// TestConformanceChecksumAlgorithmsTrailers sends each new algorithm as
// the trailer of a signed aws-chunked body (minio-go, which computes all
// of them itself) and of an unsigned one (raw), and checks the refusals:
// a wrong trailer value is BadDigest, an algorithm announced in
// x-amz-sdk-checksum-algorithm without its value is InvalidRequest.
func TestConformanceChecksumAlgorithmsTrailers(t *testing.T) {
	g := startGateway(t)
	ctx := t.Context()
	body := payload(200<<10, 42)
	bucket := uniqueBucket("algtrailer")
	mc := g.minio(true)
	if err := mc.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("MakeBucket: %v", err)
	}
	for _, tc := range []struct {
		ct  minio.ChecksumType
		alg types.ChecksumAlgorithm
		get func(minio.ObjectInfo) string
	}{
		{minio.ChecksumSHA512, types.ChecksumAlgorithmSha512, func(o minio.ObjectInfo) string { return o.ChecksumSHA512 }},
		{minio.ChecksumMD5, types.ChecksumAlgorithmMd5, func(o minio.ObjectInfo) string { return o.ChecksumMD5 }},
		{minio.ChecksumXXHash64, types.ChecksumAlgorithmXxhash64, func(o minio.ObjectInfo) string { return o.ChecksumXXHash64 }},
		{minio.ChecksumXXHash3, types.ChecksumAlgorithmXxhash3, func(o minio.ObjectInfo) string { return o.ChecksumXXHash3 }},
		{minio.ChecksumXXHash128, types.ChecksumAlgorithmXxhash128, func(o minio.ObjectInfo) string { return o.ChecksumXXHash128 }},
	} {
		t.Run("minio-signed-"+string(tc.alg), func(t *testing.T) {
			key := "signed/" + string(tc.alg)
			if _, err := mc.PutObject(ctx, bucket, key, bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{Checksum: tc.ct}); err != nil {
				t.Fatalf("PutObject(%s trailer): %v", tc.alg, err)
			}
			st, err := mc.StatObject(ctx, bucket, key, minio.StatObjectOptions{Checksum: true})
			if err != nil {
				t.Fatalf("StatObject: %v", err)
			}
			if got, want := tc.get(st), mpFull(tc.alg, body); got != want {
				t.Errorf("StatObject: %s %q, want %q", tc.alg, got, want)
			}
		})
	}

	// unsignedPut sends body as STREAMING-UNSIGNED-PAYLOAD-TRAILER with
	// the given trailer lines, announcing announce in x-amz-trailer.
	unsignedPut := func(key, announce string, trailer ...string) (*http.Response, []byte) {
		var enc bytes.Buffer
		fmt.Fprintf(&enc, "%x\r\n%s\r\n0\r\n", len(body), body)
		for _, l := range trailer {
			enc.WriteString(l + "\r\n")
		}
		enc.WriteString("\r\n")
		req := g.rawRequest(http.MethodPut, "/"+bucket+"/"+key, "", enc.Bytes())
		req.Header.Set("Content-Encoding", "aws-chunked")
		req.Header.Set("X-Amz-Decoded-Content-Length", fmt.Sprint(len(body)))
		req.Header.Set("X-Amz-Trailer", announce)
		sigv4.SignRequest(req, g.AccessKey, g.SecretKey, g.Region, time.Now(), sigv4.StreamingUnsignedTrailer)
		return g.do(req, enc.Bytes(), false)
	}
	for _, alg := range newAlgorithms {
		t.Run("unsigned-"+string(alg), func(t *testing.T) {
			name := "x-amz-checksum-" + strings.ToLower(string(alg))
			key := "unsigned/" + string(alg)
			want := mpFull(alg, body)
			resp, b := unsignedPut(key, name, name+":"+want)
			if resp.StatusCode != 200 || resp.Header.Get(name) != want {
				t.Fatalf("PutObject(%s unsigned trailer): %d %s %q, want 200 %q", alg, resp.StatusCode, b, resp.Header.Get(name), want)
			}
			resp, b = unsignedPut(key, name, name+":"+mpFull(alg, []byte("other")))
			wantXMLError(t, "PutObject with a wrong "+name+" trailer", resp, b, 400, "BadDigest")

			req := g.rawRequest(http.MethodPut, "/"+bucket+"/announced", "", body)
			req.Header.Set("X-Amz-Sdk-Checksum-Algorithm", string(alg))
			resp, b = g.do(req, body, true)
			wantXMLError(t, "PutObject with x-amz-sdk-checksum-algorithm "+string(alg)+" and no value", resp, b, 400, "InvalidRequest")
			if !strings.Contains(string(b), "x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.") {
				t.Errorf("announced without a value: %s", b)
			}
		})
	}
}

// TestConformanceChecksumAnnouncedNotSent names an algorithm in
// x-amz-sdk-checksum-algorithm and sends no value for it: S3 refuses the
// upload (PutObject, UploadPart) instead of storing it unverified.
func TestConformanceChecksumAnnouncedNotSent(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := mpBucket(t, c, "announced")
	id := mpCreate(t, c, bucket, "mp")
	body := []byte("announced, never sent")
	for _, alg := range []string{"CRC32", "crc32c", "SHA256", "CRC64NVME"} {
		for _, target := range []struct{ path, query string }{{"/" + bucket + "/k", ""}, {"/" + bucket + "/mp", "partNumber=1&uploadId=" + id}} {
			req := g.rawRequest(http.MethodPut, target.path, target.query, body)
			req.Header.Set("X-Amz-Sdk-Checksum-Algorithm", alg)
			resp, b := g.do(req, body, true)
			what := fmt.Sprintf("PUT %s?%s with x-amz-sdk-checksum-algorithm %s and no value", target.path, target.query, alg)
			wantXMLError(t, what, resp, b, 400, "InvalidRequest")
			if !strings.Contains(string(b), "x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.") {
				t.Errorf("%s: %s", what, b)
			}
		}
	}
	if _, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); err == nil {
		t.Error("the refused PutObject stored the object")
	}
}

// TestConformanceMultipartChecksumAlgorithms runs a multipart upload with
// each new algorithm: COMPOSITE by default, FULL_OBJECT refused; parts
// verified (BadDigest), listed (ListParts) and named in the completion;
// the composite value in the completion's result, HEAD, GET and
// GetObjectAttributes (with each part's checksum in ObjectParts); and
// each part's own checksum on HEAD and GET with partNumber.
func TestConformanceMultipartChecksumAlgorithms(t *testing.T) {
	g := startGateway(t)
	p1, p2 := mpData(5*mib, 43), mpData(64<<10, 44)
	parts := [][]byte{p1, p2}
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := mpBucket(t, c.Client, "algmp")
			for _, alg := range newAlgorithms {
				t.Run(string(alg), func(t *testing.T) {
					key := "obj-" + string(alg)
					_, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
						ChecksumAlgorithm: alg, ChecksumType: types.ChecksumTypeFullObject})
					wantCode(t, "CreateMultipartUpload("+string(alg)+", FULL_OBJECT)", err, 400, "InvalidRequest")

					cm, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumAlgorithm: alg})
					if err != nil {
						t.Fatalf("CreateMultipartUpload(%s): %v", alg, err)
					}
					if cm.ChecksumAlgorithm != alg || cm.ChecksumType != types.ChecksumTypeComposite {
						t.Errorf("CreateMultipartUpload: algorithm %q type %q, want %q COMPOSITE", cm.ChecksumAlgorithm, cm.ChecksumType, alg)
					}
					id := aws.ToString(cm.UploadId)
					var done []types.CompletedPart
					for i, p := range parts {
						in := mpPartInput(bucket, key, id, int32(i+1), p)
						setSDKSum(in, alg, mpFull(alg, p))
						o, err := c.UploadPart(ctx, in)
						if err != nil {
							t.Fatalf("UploadPart %d: %v", i+1, err)
						}
						if got := sdkSum(o, alg); got != mpFull(alg, p) {
							t.Errorf("UploadPart %d: %s %q, want %q", i+1, alg, got, mpFull(alg, p))
						}
						cp := types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: o.ETag}
						setSDKSum(&cp, alg, sdkSum(o, alg))
						done = append(done, cp)
					}
					bad := mpPartInput(bucket, key, id, 3, p2)
					setSDKSum(bad, alg, mpFull(alg, p1))
					_, err = c.UploadPart(ctx, bad)
					wantCode(t, "UploadPart with a wrong "+string(alg), err, 400, "BadDigest")

					lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id)})
					if err != nil {
						t.Fatalf("ListParts: %v", err)
					}
					if len(lp.Parts) != 2 || lp.ChecksumAlgorithm != alg || lp.ChecksumType != types.ChecksumTypeComposite {
						t.Fatalf("ListParts: %d parts, algorithm %q type %q; want 2, %q COMPOSITE", len(lp.Parts), lp.ChecksumAlgorithm, lp.ChecksumType, alg)
					}
					for i := range lp.Parts {
						if got := sdkSum(&lp.Parts[i], alg); got != mpFull(alg, parts[i]) {
							t.Errorf("ListParts[%d]: %s %q, want %q", i, alg, got, mpFull(alg, parts[i]))
						}
					}

					// A part named with a checksum that is not its own is
					// InvalidPart, as a wrong ETag is.
					wrong := append([]types.CompletedPart(nil), done...)
					wrong[1] = types.CompletedPart{PartNumber: done[1].PartNumber, ETag: done[1].ETag}
					setSDKSum(&wrong[1], alg, mpFull(alg, p1))
					_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, wrong))
					wantCode(t, "CompleteMultipartUpload with a wrong part "+string(alg), err, 400, "InvalidPart")

					want := mpComposite(alg, p1, p2)
					res, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, done))
					if err != nil {
						t.Fatalf("CompleteMultipartUpload: %v", err)
					}
					if got := sdkSum(res, alg); got != want || res.ChecksumType != types.ChecksumTypeComposite {
						t.Errorf("CompleteMultipartUpload: %s %q type %q, want %q COMPOSITE", alg, got, res.ChecksumType, want)
					}
					head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
					if err != nil {
						t.Fatalf("HeadObject: %v", err)
					}
					if got := sdkSum(head, alg); got != want || head.ChecksumType != types.ChecksumTypeComposite {
						t.Errorf("HeadObject checksum mode: %s %q type %q, want %q COMPOSITE", alg, got, head.ChecksumType, want)
					}
					attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String(key),
						ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesChecksum, types.ObjectAttributesObjectParts}})
					if err != nil {
						t.Fatalf("GetObjectAttributes: %v", err)
					}
					// GetObjectAttributes answers the composite value without
					// its "-N" part count, as S3 does.
					if wantAttr := strings.TrimSuffix(want, "-2"); attrs.Checksum == nil || sdkSum(attrs.Checksum, alg) != wantAttr {
						t.Errorf("GetObjectAttributes Checksum = %+v, want %s %q", attrs.Checksum, alg, wantAttr)
					}
					if attrs.ObjectParts == nil || len(attrs.ObjectParts.Parts) != 2 {
						t.Fatalf("GetObjectAttributes ObjectParts = %+v, want 2 parts", attrs.ObjectParts)
					}
					for i := range attrs.ObjectParts.Parts {
						if got := sdkSum(&attrs.ObjectParts.Parts[i], alg); got != mpFull(alg, parts[i]) {
							t.Errorf("GetObjectAttributes part %d: %s %q, want %q", i+1, alg, got, mpFull(alg, parts[i]))
						}
					}
					checkPartChecksums(t, c.Client, bucket, key, alg, types.ChecksumTypeComposite, parts)
				})
			}
		})
	}
}

// checkPartChecksums reads each part of a composite object with HEAD and
// GET ?partNumber= in checksum mode: each answers the part's own checksum.
func checkPartChecksums(t *testing.T, c *s3.Client, bucket, key string, alg types.ChecksumAlgorithm, typ types.ChecksumType, parts [][]byte) {
	t.Helper()
	ctx := t.Context()
	for i, p := range parts {
		n := aws.Int32(int32(i + 1))
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), PartNumber: n, ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatalf("HeadObject(partNumber %d): %v", *n, err)
		}
		if got := sdkSum(head, alg); got != mpFull(alg, p) || head.ChecksumType != typ {
			t.Errorf("HeadObject(partNumber %d) checksum mode: %s %q type %q, want %q %s", *n, alg, got, head.ChecksumType, mpFull(alg, p), typ)
		}
		get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), PartNumber: n, ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatalf("GetObject(partNumber %d): %v", *n, err)
		}
		b, err := io.ReadAll(get.Body) // the SDK verifies the part's CRC or SHA here
		get.Body.Close()
		if err != nil || !bytes.Equal(b, p) || sdkSum(get, alg) != mpFull(alg, p) {
			t.Errorf("GetObject(partNumber %d) checksum mode: %d bytes, %v, %s %q, want %q", *n, len(b), err, alg, sdkSum(get, alg), mpFull(alg, p))
		}
	}
}

// TestConformancePartNumberChecksums checks the checksums HEAD and GET
// with partNumber answer for the older algorithms: a COMPOSITE object's
// part (CRC32C, SHA256) carries its own checksum, a FULL_OBJECT object's
// part of several carries none, and its only part the object's.
func TestConformancePartNumberChecksums(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := mpBucket(t, c, "partsum")
	p1, p2 := mpData(5*mib, 45), mpData(32<<10, 46)
	upload := func(key string, alg types.ChecksumAlgorithm, typ types.ChecksumType, parts ...[]byte) {
		t.Helper()
		id := mpCreate(t, c, bucket, key, func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm, in.ChecksumType = alg, typ })
		var outs []*s3.UploadPartOutput
		for i, p := range parts {
			outs = append(outs, mpPart(t, c, bucket, key, id, int32(i+1), p, func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = alg }))
		}
		if _, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, mpCompleted(outs...))); err != nil {
			t.Fatalf("CompleteMultipartUpload(%s): %v", key, err)
		}
	}
	upload("crc32c", types.ChecksumAlgorithmCrc32c, "", p1, p2)
	checkPartChecksums(t, c, bucket, "crc32c", types.ChecksumAlgorithmCrc32c, types.ChecksumTypeComposite, [][]byte{p1, p2})
	upload("sha256", types.ChecksumAlgorithmSha256, "", p1, p2)
	checkPartChecksums(t, c, bucket, "sha256", types.ChecksumAlgorithmSha256, types.ChecksumTypeComposite, [][]byte{p1, p2})

	upload("full", types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject, p1, p2)
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("full"), PartNumber: aws.Int32(2), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil || head.ChecksumCRC32 != nil {
		t.Errorf("HeadObject(FULL_OBJECT, partNumber 2): %v, CRC32 %q; want no checksum", err, aws.ToString(head.ChecksumCRC32))
	}
	upload("full-one", types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject, p2)
	checkPartChecksums(t, c, bucket, "full-one", types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject, [][]byte{p2})
}

// TestConformanceCompleteChecksumUnchecked states a full-object checksum
// on CompleteMultipartUpload for parts that carry no common checksum to
// compute it from: it is refused, not stored unchecked.
func TestConformanceCompleteChecksumUnchecked(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := mpBucket(t, c, "unchecked")
	p1, p2 := mpData(5*mib, 47), mpData(32<<10, 48)
	id := mpCreate(t, c, bucket, "k")
	o1 := mpPart(t, c, bucket, "k", id, 1, p1, func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmCrc32 })
	o2 := mpPart(t, c, bucket, "k", id, 2, p2, func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmSha1 })
	in := mpCompleteInput(bucket, "k", id, []types.CompletedPart{mpCP(1, aws.ToString(o1.ETag)), mpCP(2, aws.ToString(o2.ETag))})
	in.ChecksumCRC32 = aws.String(mpFull(types.ChecksumAlgorithmCrc32, slicesConcat(p1, p2)))
	_, err := c.CompleteMultipartUpload(ctx, in)
	wantCode(t, "CompleteMultipartUpload(x-amz-checksum-crc32, parts CRC32 and SHA1)", err, 400, "InvalidRequest")
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); err == nil {
		t.Error("the refused completion stored the object")
	}

	// An upload of CRC32 parts: a stated SHA256 cannot be checked and is
	// refused, a wrong CRC32 is BadDigest, the right one completes.
	id = mpCreate(t, c, bucket, "full", func(in *s3.CreateMultipartUploadInput) {
		in.ChecksumAlgorithm, in.ChecksumType = types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject
	})
	withCRC32 := func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmCrc32 }
	parts := mpCompleted(mpPart(t, c, bucket, "full", id, 1, p1, withCRC32), mpPart(t, c, bucket, "full", id, 2, p2, withCRC32))
	in = mpCompleteInput(bucket, "full", id, parts)
	in.ChecksumSHA256 = aws.String(mpFull(types.ChecksumAlgorithmSha256, slicesConcat(p1, p2)))
	_, err = c.CompleteMultipartUpload(ctx, in)
	wantCode(t, "CompleteMultipartUpload(x-amz-checksum-sha256, CRC32 upload)", err, 400, "InvalidRequest")
	in = mpCompleteInput(bucket, "full", id, parts)
	in.ChecksumCRC32 = aws.String(mpFull(types.ChecksumAlgorithmCrc32, p1))
	_, err = c.CompleteMultipartUpload(ctx, in)
	wantCode(t, "CompleteMultipartUpload(wrong x-amz-checksum-crc32)", err, 400, "BadDigest")
	in = mpCompleteInput(bucket, "full", id, parts)
	in.ChecksumCRC32 = aws.String(mpFull(types.ChecksumAlgorithmCrc32, slicesConcat(p1, p2)))
	if _, err := c.CompleteMultipartUpload(ctx, in); err != nil {
		t.Errorf("CompleteMultipartUpload(right x-amz-checksum-crc32): %v", err)
	}
}

func slicesConcat(a, b []byte) []byte { return append(append([]byte(nil), a...), b...) }

// TestConformanceCompleteChecksumType states x-amz-checksum-type on
// CompleteMultipartUpload. The API reference has the header check that
// the type is the one CreateMultipartUpload gave the upload; one that
// differs is refused (400 InvalidRequest "The upload was created using
// the COMPOSITE checksum mode. The complete request must use the same
// checksum mode.") and completes nothing, the same type completes, and
// a value that is no type is InvalidRequest. An upload created without
// an algorithm gets a FULL_OBJECT CRC64NVME, so COMPOSITE is refused.
func TestConformanceCompleteChecksumType(t *testing.T) {
	g := startGateway(t)
	// When-required: a part carries the checksum it is given, or none.
	c := g.sdk(sdkModes[2])
	ctx := t.Context()
	bucket := mpBucket(t, c, "completetype")
	p := mpData(32<<10, 49)
	for _, tc := range []struct {
		name      string
		alg       types.ChecksumAlgorithm
		typ       types.ChecksumType // of CreateMultipartUpload
		wrong     types.ChecksumType // stated on the refused completion
		wantAlg   types.ChecksumAlgorithm
		wantType  types.ChecksumType // the upload's, and the object's
		wantValue string
	}{
		{"crc32-composite", types.ChecksumAlgorithmCrc32, "", types.ChecksumTypeFullObject,
			types.ChecksumAlgorithmCrc32, types.ChecksumTypeComposite, mpComposite(types.ChecksumAlgorithmCrc32, p)},
		{"crc32-full-object", types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject, types.ChecksumTypeComposite,
			types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject, mpFull(types.ChecksumAlgorithmCrc32, p)},
		{"sha256", types.ChecksumAlgorithmSha256, "", types.ChecksumTypeFullObject,
			types.ChecksumAlgorithmSha256, types.ChecksumTypeComposite, mpComposite(types.ChecksumAlgorithmSha256, p)},
		{"crc64nvme", types.ChecksumAlgorithmCrc64nvme, "", types.ChecksumTypeComposite,
			types.ChecksumAlgorithmCrc64nvme, types.ChecksumTypeFullObject, mpFull(types.ChecksumAlgorithmCrc64nvme, p)},
		{"no-algorithm", "", "", types.ChecksumTypeComposite,
			types.ChecksumAlgorithmCrc64nvme, types.ChecksumTypeFullObject, mpFull(types.ChecksumAlgorithmCrc64nvme, p)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "k-" + tc.name
			id := mpCreate(t, c, bucket, key, func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm, in.ChecksumType = tc.alg, tc.typ })
			parts := mpCompleted(mpPart(t, c, bucket, key, id, 1, p, func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = tc.alg }))

			in := mpCompleteInput(bucket, key, id, parts)
			in.ChecksumType = tc.wrong
			_, err := c.CompleteMultipartUpload(ctx, in)
			wantCode(t, "CompleteMultipartUpload(x-amz-checksum-type "+string(tc.wrong)+")", err, 400, "InvalidRequest")
			want := "The upload was created using the " + string(tc.wantType) + " checksum mode. The complete request must use the same checksum mode."
			if apiMessage(err) != want {
				t.Errorf("CompleteMultipartUpload(x-amz-checksum-type %s): message %q, want %q", tc.wrong, apiMessage(err), want)
			}
			if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); httpStatus(err) != 404 {
				t.Errorf("HeadObject after the refused completion: %v, want 404", err)
			}

			body := []byte(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>` + aws.ToString(parts[0].ETag) + `</ETag></Part></CompleteMultipartUpload>`)
			req := g.rawRequest(http.MethodPost, "/"+bucket+"/"+key, "uploadId="+id, body)
			req.Header.Set("X-Amz-Checksum-Type", "composite")
			resp, b := g.do(req, body, true)
			wantXMLError(t, "CompleteMultipartUpload(x-amz-checksum-type composite)", resp, b, 400, "InvalidRequest")

			in = mpCompleteInput(bucket, key, id, parts)
			in.ChecksumType = tc.wantType
			res, err := c.CompleteMultipartUpload(ctx, in)
			if err != nil {
				t.Fatalf("CompleteMultipartUpload(x-amz-checksum-type %s): %v", tc.wantType, err)
			}
			if got := sdkSum(res, tc.wantAlg); got != tc.wantValue || res.ChecksumType != tc.wantType {
				t.Errorf("CompleteMultipartUpload: %s %q type %q, want %q %s", tc.wantAlg, got, res.ChecksumType, tc.wantValue, tc.wantType)
			}
		})
	}
}

// TestConformanceCopyObjectChecksumAlgorithms copies an object asking for
// each new algorithm: the copy's checksum is computed in it and reported
// by CopyObjectResult and HEAD.
func TestConformanceCopyObjectChecksumAlgorithms(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := mpBucket(t, c, "algcopy")
	body := payload(100<<10, 49)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("src"), Body: bytes.NewReader(body)}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	for _, alg := range newAlgorithms {
		key := "dst-" + string(alg)
		out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
			CopySource: aws.String(bucket + "/src"), ChecksumAlgorithm: alg})
		if err != nil {
			t.Fatalf("CopyObject(%s): %v", alg, err)
		}
		want := mpFull(alg, body)
		if got := sdkSum(out.CopyObjectResult, alg); got != want {
			t.Errorf("CopyObjectResult %s %q, want %q", alg, got, want)
		}
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil || sdkSum(head, alg) != want {
			t.Errorf("HeadObject(copy, %s): %v, %q, want %q", alg, err, sdkSum(head, alg), want)
		}
	}
}

// TestConformanceCompleteCompositeChecksumStated: CompleteMultipartUpload
// of a composite SHA-256 upload with the object's checksum in
// x-amz-checksum-sha256, as S3 gives it back ("-N" with the part count):
// the right value completes and is echoed, a wrong digest, a wrong count
// and a value that is no checksum at all are 400 BadDigest. The header
// was read as a checksum of the request's XML body, so the "-N" form was
// refused as a malformed value (InvalidRequest) before the object's
// checksum was computed.
func TestConformanceCompleteCompositeChecksumStated(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := mpBucket(t, c, "compstated")
	p1, p2 := mpData(5*mib, 61), mpData(1000, 62)
	withSHA := func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmSha256 }
	id := mpCreate(t, c, bucket, "k", func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmSha256 })
	parts := mpCompleted(mpPart(t, c, bucket, "k", id, 1, p1, withSHA), mpPart(t, c, bucket, "k", id, 2, p2, withSHA))
	right := mpComposite(types.ChecksumAlgorithmSha256, p1, p2)
	for _, bad := range []string{"bad", mpComposite(types.ChecksumAlgorithmSha256, p2, p1), strings.TrimSuffix(right, "-2") + "-3"} {
		in := mpCompleteInput(bucket, "k", id, parts)
		in.ChecksumSHA256 = aws.String(bad)
		_, err := c.CompleteMultipartUpload(ctx, in)
		wantCode(t, "CompleteMultipartUpload(x-amz-checksum-sha256 "+bad+")", err, 400, "BadDigest")
	}
	in := mpCompleteInput(bucket, "k", id, parts)
	in.ChecksumSHA256 = aws.String(right)
	out, err := c.CompleteMultipartUpload(ctx, in)
	if err != nil {
		t.Fatalf("CompleteMultipartUpload(x-amz-checksum-sha256 %s): %v", right, err)
	}
	if got := aws.ToString(out.ChecksumSHA256); got != right {
		t.Errorf("CompleteMultipartUpload's ChecksumSHA256 %q, want %q", got, right)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil || aws.ToString(head.ChecksumSHA256) != right {
		t.Errorf("HeadObject: %v, ChecksumSHA256 %q, want %q", err, aws.ToString(head.ChecksumSHA256), right)
	}
}
