package api_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"
)

// putMany stores keys concurrently with small bodies.
func putMany(t *testing.T, c *s3.Client, bucket string, keys []string) {
	t.Helper()
	var wg sync.WaitGroup
	work := make(chan string)
	errs := make(chan error, len(keys))
	for range 64 {
		wg.Go(func() {
			for k := range work {
				_, err := c.PutObject(t.Context(), &s3.PutObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(k), Body: strings.NewReader(k),
				})
				if err != nil {
					errs <- fmt.Errorf("PutObject(%q): %w", k, err)
				}
			}
		})
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// listAll returns every key of a bucket through the V2 paginator.
func listAll(t *testing.T, c *s3.Client, bucket, prefix string) []string {
	t.Helper()
	var keys []string
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		out, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatalf("ListObjectsV2(%s): %v", bucket, err)
		}
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

func TestConformanceDeleteObjectSDK(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			bucket := makeBucket(t, c.Client, "delete")
			putBytes(t, c.Client, bucket, "deep/dir/k", []byte("v"))
			for i := range 2 { // S3 answers 204 for a missing key too.
				if _, err := c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("deep/dir/k")}); err != nil {
					t.Errorf("DeleteObject #%d: %v", i+1, err)
				}
			}
			if _, err := c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("never-existed")}); err != nil {
				t.Errorf("DeleteObject(never existed): %v", err)
			}
			_, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("deep/dir/k")})
			var nsk *types.NoSuchKey
			if !errors.As(err, &nsk) {
				t.Errorf("GetObject(deleted): %v, want *types.NoSuchKey", err)
			}
			_, err = c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(bucket + "-missing"), Key: aws.String("k")})
			wantCode(t, "DeleteObject(missing bucket)", err, 404, "NoSuchBucket")
			// The emptied directories are gone, so the bucket can go.
			if _, err := c.DeleteBucket(t.Context(), &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Errorf("DeleteBucket after deleting its only object: %v", err)
			}
		})
	}
}

func TestConformanceDeleteObjectsSDK(t *testing.T) {
	g := startGateway(t)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("batch/%04d key+ü", i)
	}
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			bucket := makeBucket(t, c.Client, "multidelete")
			// 200 keys exist; the requests name up to 1000, and S3 reports
			// a key that does not exist as deleted too.
			putMany(t, c.Client, bucket, keys[:200])

			// Verbose: every key is reported as deleted, including a key
			// that does not exist.
			var ids []types.ObjectIdentifier
			for _, k := range keys[:100] {
				ids = append(ids, types.ObjectIdentifier{Key: aws.String(k)})
			}
			ids = append(ids, types.ObjectIdentifier{Key: aws.String("batch/missing")})
			out, err := c.DeleteObjects(t.Context(), &s3.DeleteObjectsInput{
				Bucket: aws.String(bucket), Delete: &types.Delete{Objects: ids},
			})
			if err != nil {
				t.Fatalf("DeleteObjects(verbose): %v", err)
			}
			if len(out.Errors) != 0 {
				t.Errorf("DeleteObjects(verbose): errors %v", out.Errors)
			}
			var deleted []string
			for _, d := range out.Deleted {
				deleted = append(deleted, aws.ToString(d.Key))
			}
			slices.Sort(deleted)
			want := append(slices.Clone(keys[:100]), "batch/missing")
			slices.Sort(want)
			if !slices.Equal(deleted, want) {
				t.Errorf("DeleteObjects(verbose): %d keys reported deleted, want %d", len(deleted), len(want))
			}

			// Quiet: nothing is reported on success. 100 keys remain; the
			// request names all 1000.
			ids = ids[:0]
			for _, k := range keys {
				ids = append(ids, types.ObjectIdentifier{Key: aws.String(k)})
			}
			out, err = c.DeleteObjects(t.Context(), &s3.DeleteObjectsInput{
				Bucket: aws.String(bucket), Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
			})
			if err != nil {
				t.Fatalf("DeleteObjects(quiet, 1000 keys): %v", err)
			}
			if len(out.Deleted) != 0 || len(out.Errors) != 0 {
				t.Errorf("DeleteObjects(quiet): %d deleted, %d errors reported; want none", len(out.Deleted), len(out.Errors))
			}
			if left := listAll(t, c.Client, bucket, ""); len(left) != 0 {
				t.Errorf("after DeleteObjects: %d keys left, first %q", len(left), left[0])
			}

			// More than 1000 keys is MalformedXML.
			ids = append(ids, types.ObjectIdentifier{Key: aws.String("one-too-many")})
			_, err = c.DeleteObjects(t.Context(), &s3.DeleteObjectsInput{
				Bucket: aws.String(bucket), Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
			})
			wantCode(t, "DeleteObjects(1001 keys)", err, 400, "MalformedXML")

			_, err = c.DeleteObjects(t.Context(), &s3.DeleteObjectsInput{
				Bucket: aws.String(bucket + "-missing"), Delete: &types.Delete{Objects: ids[:1]},
			})
			wantCode(t, "DeleteObjects(missing bucket)", err, 404, "NoSuchBucket")
		})
	}
}

// copySource is the x-amz-copy-source value for bucket/key: URL-encoded,
// slashes kept, as S3 requires.
func copySource(bucket, key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
		segs[i] = strings.ReplaceAll(segs[i], "+", "%2B")
	}
	return bucket + "/" + strings.Join(segs, "/")
}

func TestConformanceCopyObjectSDK(t *testing.T) {
	g := startGateway(t)
	srcKeys := []string{"src/plain.txt", "src/with space+plus ü 日本.txt", "src/per%cent&amp=eq?q#h"}
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := makeBucket(t, c.Client, "copy")
			other := makeBucket(t, c.Client, "copydst")
			for i, src := range srcKeys {
				body := payload(1000+i, uint64(i))
				_, err := c.PutObject(ctx, &s3.PutObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(src), Body: bytes.NewReader(body),
					ContentType: aws.String("text/x-src"), Metadata: map[string]string{"origin": "src"},
					CacheControl: aws.String("max-age=1"),
				})
				if err != nil {
					t.Fatalf("PutObject(%q): %v", src, err)
				}

				// COPY (the default directive) keeps metadata.
				dst := "dst/copy-" + strconv.Itoa(i)
				cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{
					Bucket: aws.String(other), Key: aws.String(dst), CopySource: aws.String(copySource(bucket, src)),
				})
				if err != nil {
					t.Errorf("CopyObject(%q, COPY): %v", src, err)
					continue
				}
				if cp.CopyObjectResult == nil || aws.ToString(cp.CopyObjectResult.ETag) != etagOf(body) || cp.CopyObjectResult.LastModified == nil {
					t.Errorf("CopyObject(%q): result %+v, want ETag %s", src, cp.CopyObjectResult, etagOf(body))
				}
				if got := getBytes(t, c.Client, other, dst); !bytes.Equal(got, body) {
					t.Errorf("CopyObject(%q): copied bytes differ", src)
				}
				h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(other), Key: aws.String(dst)})
				if err != nil {
					t.Fatalf("HeadObject(copy): %v", err)
				}
				if aws.ToString(h.ContentType) != "text/x-src" || h.Metadata["origin"] != "src" || aws.ToString(h.CacheControl) != "max-age=1" {
					t.Errorf("CopyObject(COPY) metadata: type %q cache %q meta %v", aws.ToString(h.ContentType), aws.ToString(h.CacheControl), h.Metadata)
				}

				// REPLACE takes the request's metadata instead.
				dst = "dst/replace-" + strconv.Itoa(i)
				_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(dst), CopySource: aws.String("/" + copySource(bucket, src)),
					MetadataDirective: types.MetadataDirectiveReplace,
					ContentType:       aws.String("text/x-dst"), Metadata: map[string]string{"origin": "dst"},
				})
				if err != nil {
					t.Errorf("CopyObject(%q, REPLACE, leading slash): %v", src, err)
					continue
				}
				h, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(dst)})
				if err != nil {
					t.Fatalf("HeadObject(replace): %v", err)
				}
				if aws.ToString(h.ContentType) != "text/x-dst" || h.Metadata["origin"] != "dst" || aws.ToString(h.CacheControl) != "" {
					t.Errorf("CopyObject(REPLACE) metadata: type %q cache %q meta %v", aws.ToString(h.ContentType), aws.ToString(h.CacheControl), h.Metadata)
				}
			}

			src := srcKeys[1]
			// Onto itself with COPY changes nothing: S3 refuses it.
			_, err := c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String(src), CopySource: aws.String(copySource(bucket, src)),
			})
			wantCode(t, "CopyObject(onto itself, COPY)", err, 400, "InvalidRequest")

			// Onto itself with REPLACE is how metadata is changed.
			_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String(src), CopySource: aws.String(copySource(bucket, src)),
				MetadataDirective: types.MetadataDirectiveReplace,
				ContentType:       aws.String("application/x-new"), Metadata: map[string]string{"rev": "2"},
			})
			if err != nil {
				t.Fatalf("CopyObject(onto itself, REPLACE): %v", err)
			}
			h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(src)})
			if err != nil {
				t.Fatalf("HeadObject: %v", err)
			}
			if aws.ToString(h.ContentType) != "application/x-new" || h.Metadata["rev"] != "2" || h.Metadata["origin"] != "" ||
				aws.ToString(h.ETag) != etagOf(payload(1001, 1)) {
				t.Errorf("after self-copy REPLACE: type %q meta %v etag %s", aws.ToString(h.ContentType), h.Metadata, aws.ToString(h.ETag))
			}
			if got := getBytes(t, c.Client, bucket, src); !bytes.Equal(got, payload(1001, 1)) {
				t.Errorf("after self-copy REPLACE: bytes changed")
			}

			// x-amz-copy-source-if-* preconditions.
			_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("dst/cond"), CopySource: aws.String(copySource(bucket, src)),
				CopySourceIfMatch: aws.String(`"00000000000000000000000000000000"`),
			})
			wantCode(t, "CopyObject(x-amz-copy-source-if-match mismatch)", err, 412, "PreconditionFailed")
			_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("dst/cond"), CopySource: aws.String(copySource(bucket, src)),
				CopySourceIfNoneMatch: h.ETag,
			})
			wantCode(t, "CopyObject(x-amz-copy-source-if-none-match match)", err, 412, "PreconditionFailed")
			_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("dst/cond"), CopySource: aws.String(copySource(bucket, src)),
				CopySourceIfMatch: h.ETag,
			})
			if err != nil {
				t.Errorf("CopyObject(x-amz-copy-source-if-match match): %v", err)
			}
			_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("dst/cond")})
			if err != nil {
				t.Errorf("HeadObject(dst/cond): %v", err)
			}

			_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("dst/x"), CopySource: aws.String(copySource(bucket, "src/missing")),
			})
			wantCode(t, "CopyObject(missing source key)", err, 404, "NoSuchKey")
			_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("dst/x"), CopySource: aws.String(copySource(bucket+"-missing", "k")),
			})
			wantCode(t, "CopyObject(missing source bucket)", err, 404, "NoSuchBucket")
		})
	}
}

func TestConformanceDeleteCopyMinio(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.minioClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("mcopy")
			if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
				t.Fatal(err)
			}
			src := "src/ü +space%.txt"
			body := payload(4096, 3)
			info, err := c.PutObject(ctx, bucket, src, bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{
				ContentType: "text/x-m", UserMetadata: map[string]string{"A": "1"},
			})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CopyObject(ctx,
				minio.CopyDestOptions{Bucket: bucket, Object: "dst/copied ü"},
				minio.CopySrcOptions{Bucket: bucket, Object: src})
			if err != nil {
				t.Fatalf("CopyObject: %v", err)
			}
			st, err := c.StatObject(ctx, bucket, "dst/copied ü", minio.StatObjectOptions{})
			if err != nil || st.Size != int64(len(body)) || st.ContentType != "text/x-m" || st.UserMetadata["A"] != "1" {
				t.Errorf("StatObject(copy) = %+v, %v", st, err)
			}
			_, err = c.CopyObject(ctx,
				minio.CopyDestOptions{Bucket: bucket, Object: "dst/replaced", ReplaceMetadata: true, UserMetadata: map[string]string{"B": "2"}},
				minio.CopySrcOptions{Bucket: bucket, Object: src, MatchETag: info.ETag})
			if err != nil {
				t.Fatalf("CopyObject(REPLACE, if-match): %v", err)
			}
			st, err = c.StatObject(ctx, bucket, "dst/replaced", minio.StatObjectOptions{})
			if err != nil || st.UserMetadata["B"] != "2" || st.UserMetadata["A"] != "" {
				t.Errorf("StatObject(replaced) metadata %v, %v", st.UserMetadata, err)
			}
			_, err = c.CopyObject(ctx,
				minio.CopyDestOptions{Bucket: bucket, Object: "dst/nope"},
				minio.CopySrcOptions{Bucket: bucket, Object: src, MatchETag: "00000000000000000000000000000000"})
			wantMinioCode(t, "CopyObject(if-match mismatch)", err, 412, "PreconditionFailed")

			// RemoveObjects (DeleteObjects, which minio-go sends with
			// Content-MD5) with 1000 keys.
			var keys []string
			for i := range 1000 {
				keys = append(keys, fmt.Sprintf("many/%04d", i))
			}
			putMany(t, g.sdk(sdkModes[2]), bucket, keys[:200])
			ch := make(chan minio.ObjectInfo, len(keys))
			for _, k := range keys {
				ch <- minio.ObjectInfo{Key: k}
			}
			close(ch)
			for e := range c.RemoveObjects(ctx, bucket, ch, minio.RemoveObjectsOptions{}) {
				t.Errorf("RemoveObjects: %q: %v", e.ObjectName, e.Err)
			}
			if left := listAll(t, g.sdk(sdkModes[2]), bucket, "many/"); len(left) != 0 {
				t.Errorf("after RemoveObjects: %d keys left", len(left))
			}
			if err := c.RemoveObject(ctx, bucket, "many/0000", minio.RemoveObjectOptions{}); err != nil {
				t.Errorf("RemoveObject(already removed): %v", err)
			}
		})
	}
}

// TestConformanceDeleteObjectsDigests sends DeleteObjects by hand with
// each integrity header S3 accepts (Content-MD5 or an x-amz-checksum-*),
// with a wrong Content-MD5, and with neither, which S3 refuses with 400
// InvalidRequest "Missing required header for this request: Content-MD5
// OR x-amz-checksum-*" (versity/versitygw#1040 records that answer after
// the 2025 SDKs moved to CRC32, which they send for DeleteObjects in
// every checksum mode) and deletes nothing.
func TestConformanceDeleteObjectsDigests(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[2])
	bucket := makeBucket(t, c, "rawdelete")
	for _, tc := range []struct {
		name, header string
		value        func(body []byte) string
		status       int
		code         string
	}{
		{"Content-MD5", "Content-Md5", md5Base64, 200, ""},
		{"x-amz-checksum-crc32", "X-Amz-Checksum-Crc32", func(b []byte) string { return checksumOf(types.ChecksumAlgorithmCrc32, b) }, 200, ""},
		{"x-amz-checksum-sha256", "X-Amz-Checksum-Sha256", func(b []byte) string { return checksumOf(types.ChecksumAlgorithmSha256, b) }, 200, ""},
		{"no digest", "", nil, 400, "InvalidRequest"},
		{"wrong Content-MD5", "Content-Md5", func([]byte) string { return md5Base64([]byte("other")) }, 400, "BadDigest"},
	} {
		key := "raw/" + strings.ReplaceAll(tc.name, " ", "-")
		putBytes(t, c, bucket, key, []byte("v"))
		body := []byte(`<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>` + key + `</Key></Object></Delete>`)
		req := g.rawRequest(http.MethodPost, "/"+bucket, "delete=", body)
		req.Header.Set("Content-Type", "application/xml")
		if tc.header != "" {
			req.Header.Set(tc.header, tc.value(body))
		}
		resp, b := g.do(req, body, true)
		_, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if tc.code != "" {
			wantXMLError(t, "DeleteObjects with "+tc.name, resp, b, tc.status, tc.code)
			if tc.header == "" && !strings.Contains(string(b), "<Message>Missing required header for this request: Content-MD5 OR x-amz-checksum-*</Message>") {
				t.Errorf("DeleteObjects with %s: message of %s", tc.name, b)
			}
			if err != nil {
				t.Errorf("DeleteObjects with %s deleted %q anyway", tc.name, key)
			}
			continue
		}
		if resp.StatusCode != tc.status || !strings.Contains(string(b), "<Deleted>") {
			t.Errorf("DeleteObjects with %s: %d %s", tc.name, resp.StatusCode, b)
		}
		wantCode(t, "HeadObject after DeleteObjects with "+tc.name, err, 404, "NotFound")
	}
}

// TestConformanceDeleteObjectsDeniedEntries checks that a DeleteObjects
// none of whose entries the caller may delete, here an anonymous one on a
// private bucket, is answered 200 with an AccessDenied Error for each
// entry (in quiet mode too) and deletes nothing, as S3 answers it
// (minio/mint#116, run against S3: "a response 200 and an 'Access Denied'
// error for each object ... rather than the generic 403"; boto/boto3#2884
// shows S3's 200 for a signed caller's one denied entry). It was a 403
// for the whole request.
func TestConformanceDeleteObjectsDeniedEntries(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := makeBucket(t, c, "denied")
	putBytes(t, c, bucket, "a", []byte("a"))
	putBytes(t, c, bucket, "b", []byte("b"))
	for _, quiet := range []string{"", "<Quiet>true</Quiet>"} {
		body := []byte(`<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + quiet + `<Object><Key>a</Key></Object><Object><Key>b</Key></Object></Delete>`)
		resp, b := g.anon(http.MethodPost, "/"+bucket, "delete=", map[string]string{"Content-MD5": md5Base64(body)}, body)
		var out struct {
			Deleted []struct{ Key string }
			Errors  []struct{ Key, Code string } `xml:"Error"`
		}
		if err := xml.Unmarshal(b, &out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("anonymous DeleteObjects %q: %d %s (%v)", quiet, resp.StatusCode, b, err)
		}
		if len(out.Deleted) != 0 || len(out.Errors) != 2 {
			t.Errorf("anonymous DeleteObjects %q: %s, want an Error for each entry", quiet, b)
		}
		for i, e := range out.Errors {
			if want := []string{"a", "b"}[i]; e.Key != want || e.Code != "AccessDenied" {
				t.Errorf("anonymous DeleteObjects %q: Error %d %+v, want AccessDenied for %s", quiet, i, e, want)
			}
		}
	}
	if got := listAll(t, c, bucket, ""); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("keys after the denied deletes: %q", got)
	}
}

// TestConformanceCopyObjectChecksum copies with x-amz-checksum-algorithm:
// the copy carries a full-object checksum of that algorithm, computed from
// the bytes when the source has none (also for a copy onto itself, the
// way S3 documents adding a checksum to an existing object), carried over
// when it has one; an unknown algorithm is InvalidRequest.
func TestConformanceCopyObjectChecksum(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[2]) // when-required: the source gets only the default CRC64NVME
	ctx := t.Context()
	bucket := makeBucket(t, c, "cpsum")
	body := bytes.Repeat([]byte("checksum on copy "), 5000)
	putBytes(t, c, bucket, "src", body)
	sha := sha256.Sum256(body)
	wantSHA := base64.StdEncoding.EncodeToString(sha[:])

	headSum := func(key string) *s3.HeadObjectOutput {
		t.Helper()
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatalf("HeadObject(%s): %v", key, err)
		}
		return h
	}
	src := headSum("src")

	out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("dst"),
		CopySource: aws.String(bucket + "/src"), ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
	if err != nil {
		t.Fatalf("CopyObject(SHA256): %v", err)
	}
	if got := aws.ToString(out.CopyObjectResult.ChecksumSHA256); got != wantSHA {
		t.Errorf("CopyObjectResult ChecksumSHA256 %q, want %q", got, wantSHA)
	}
	if h := headSum("dst"); aws.ToString(h.ChecksumSHA256) != wantSHA || aws.ToString(h.ETag) != aws.ToString(src.ETag) {
		t.Errorf("copy: SHA256 %q ETag %s; want %q and the source's ETag %s", aws.ToString(h.ChecksumSHA256), aws.ToString(h.ETag), wantSHA, aws.ToString(src.ETag))
	}
	if got := getBytes(t, c, bucket, "dst"); !bytes.Equal(got, body) {
		t.Error("copy with a new checksum changed the bytes")
	}

	// The source's own algorithm: carried over as it is.
	out, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("dst2"),
		CopySource: aws.String(bucket + "/src"), ChecksumAlgorithm: types.ChecksumAlgorithmCrc64nvme})
	if err != nil || aws.ToString(out.CopyObjectResult.ChecksumCRC64NVME) != aws.ToString(src.ChecksumCRC64NVME) || aws.ToString(src.ChecksumCRC64NVME) == "" {
		t.Errorf("CopyObject(CRC64NVME) = %v, %v; want the source's %q", out, err, aws.ToString(src.ChecksumCRC64NVME))
	}

	// Onto itself, adding a checksum.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("src"),
		CopySource: aws.String(bucket + "/src"), ChecksumAlgorithm: types.ChecksumAlgorithmSha256}); err != nil {
		t.Fatalf("CopyObject onto itself with SHA256: %v", err)
	}
	if h := headSum("src"); aws.ToString(h.ChecksumSHA256) != wantSHA {
		t.Errorf("after the copy onto itself: SHA256 %q, want %q", aws.ToString(h.ChecksumSHA256), wantSHA)
	}
	if got := getBytes(t, c, bucket, "src"); !bytes.Equal(got, body) {
		t.Error("copy onto itself changed the bytes")
	}

	req := g.rawRequest(http.MethodPut, "/"+bucket+"/bad", "", nil)
	req.Header.Set("X-Amz-Copy-Source", "/"+bucket+"/src")
	req.Header.Set("X-Amz-Checksum-Algorithm", "SHA384")
	resp, b := g.do(req, nil, true)
	wantXMLError(t, "CopyObject(checksum algorithm SHA384)", resp, b, 400, "InvalidRequest")
}
