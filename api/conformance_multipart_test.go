package api_test

// Conformance of multipart uploads and conditional writes: aws-sdk-go-v2
// in every checksum mode (including its upload manager), minio-go, and raw
// requests where the status line matters. Every failure rule asserts the
// typed S3 error.

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/cespare/xxhash/v2"
	"github.com/minio/crc64nvme"
	"github.com/minio/minio-go/v7"
	"github.com/zeebo/xxh3"
)

const mib = 1 << 20

// mpData returns n deterministic pseudo-random bytes.
func mpData(n int, seed byte) []byte {
	var s [32]byte
	s[0], s[31] = seed, 0x4d
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(s).Read(b)
	return b
}

// mpSplit cuts b into parts of size bytes (the last may be shorter).
func mpSplit(b []byte, size int) [][]byte {
	var out [][]byte
	for len(b) > size {
		out = append(out, b[:size])
		b = b[size:]
	}
	return append(out, b)
}

// mpETag is S3's ETag of a multipart object: the MD5 of the concatenated
// binary part MD5s, "-" and the part count, quoted.
func mpETag(parts ...[]byte) string {
	var cat []byte
	for _, p := range parts {
		s := md5.Sum(p)
		cat = append(cat, s[:]...)
	}
	s := md5.Sum(cat)
	return `"` + hex.EncodeToString(s[:]) + "-" + strconv.Itoa(len(parts)) + `"`
}

// mpDigest is the raw digest of b for an algorithm.
func mpDigest(alg types.ChecksumAlgorithm, b []byte) []byte {
	switch alg {
	case types.ChecksumAlgorithmCrc32:
		return binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b))
	case types.ChecksumAlgorithmCrc32c:
		return binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	case types.ChecksumAlgorithmCrc64nvme:
		return binary.BigEndian.AppendUint64(nil, crc64nvme.Checksum(b))
	case types.ChecksumAlgorithmSha1:
		s := sha1.Sum(b)
		return s[:]
	case types.ChecksumAlgorithmSha256:
		s := sha256.Sum256(b)
		return s[:]
	case types.ChecksumAlgorithmSha512:
		s := sha512.Sum512(b)
		return s[:]
	case types.ChecksumAlgorithmMd5:
		s := md5.Sum(b)
		return s[:]
	case types.ChecksumAlgorithmXxhash64:
		return binary.BigEndian.AppendUint64(nil, xxhash.Sum64(b))
	case types.ChecksumAlgorithmXxhash3:
		return binary.BigEndian.AppendUint64(nil, xxh3.Hash(b))
	case types.ChecksumAlgorithmXxhash128:
		s := xxh3.Hash128(b).Bytes()
		return s[:]
	}
	panic("unknown algorithm " + string(alg))
}

// mpFull is the base64 full-object checksum of b: what a single PUT, a
// part, or a FULL_OBJECT multipart object carries.
func mpFull(alg types.ChecksumAlgorithm, b []byte) string {
	return base64.StdEncoding.EncodeToString(mpDigest(alg, b))
}

// mpComposite is S3's composite checksum of a multipart object: the
// checksum of the concatenated binary part checksums, "-" and the count.
func mpComposite(alg types.ChecksumAlgorithm, parts ...[]byte) string {
	var cat []byte
	for _, p := range parts {
		cat = append(cat, mpDigest(alg, p)...)
	}
	return mpFull(alg, cat) + "-" + strconv.Itoa(len(parts))
}

// mpSum picks an algorithm's value out of an SDK output's fields.
func mpSum(alg types.ChecksumAlgorithm, crc32, crc32c, crc64, sha1, sha256 *string) string {
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

// mpBucket creates a fresh bucket.
func mpBucket(t *testing.T, c *s3.Client, prefix string) string {
	t.Helper()
	b := uniqueBucket(prefix)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
		t.Fatalf("CreateBucket(%s): %v", b, err)
	}
	return b
}

// mpCreate starts an upload and returns its id.
func mpCreate(t *testing.T, c *s3.Client, bucket, key string, mods ...func(*s3.CreateMultipartUploadInput)) string {
	t.Helper()
	in := &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	for _, m := range mods {
		m(in)
	}
	out, err := c.CreateMultipartUpload(t.Context(), in)
	if err != nil {
		t.Fatalf("CreateMultipartUpload(%s/%s): %v", bucket, key, err)
	}
	if aws.ToString(out.UploadId) == "" || aws.ToString(out.Bucket) != bucket || aws.ToString(out.Key) != key {
		t.Fatalf("CreateMultipartUpload(%s/%s): bucket %q key %q upload id %q", bucket, key,
			aws.ToString(out.Bucket), aws.ToString(out.Key), aws.ToString(out.UploadId))
	}
	return aws.ToString(out.UploadId)
}

// mpPartInput is an UploadPart request.
func mpPartInput(bucket, key, id string, n int32, body []byte, mods ...func(*s3.UploadPartInput)) *s3.UploadPartInput {
	in := &s3.UploadPartInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id),
		PartNumber: aws.Int32(n), Body: bytes.NewReader(body),
	}
	for _, m := range mods {
		m(in)
	}
	return in
}

// mpPart uploads one part and checks its ETag is the part's MD5.
func mpPart(t *testing.T, c *s3.Client, bucket, key, id string, n int32, body []byte, mods ...func(*s3.UploadPartInput)) *s3.UploadPartOutput {
	t.Helper()
	out, err := c.UploadPart(t.Context(), mpPartInput(bucket, key, id, n, body, mods...))
	if err != nil {
		t.Fatalf("UploadPart(%s/%s #%d): %v", bucket, key, n, err)
	}
	if got, want := aws.ToString(out.ETag), mpMD5(body); got != want {
		t.Fatalf("UploadPart #%d: ETag %s, want %s", n, got, want)
	}
	return out
}

// mpMD5 is the quoted hex MD5 of b: a part's ETag.
func mpMD5(b []byte) string {
	s := md5.Sum(b)
	return `"` + hex.EncodeToString(s[:]) + `"`
}

// mpCompleted turns UploadPart outputs (in order, numbered from 1) into
// a CompleteMultipartUpload part list, with their checksums.
func mpCompleted(outs ...*s3.UploadPartOutput) []types.CompletedPart {
	var ps []types.CompletedPart
	for i, o := range outs {
		ps = append(ps, types.CompletedPart{
			PartNumber: aws.Int32(int32(i + 1)), ETag: o.ETag,
			ChecksumCRC32: o.ChecksumCRC32, ChecksumCRC32C: o.ChecksumCRC32C, ChecksumCRC64NVME: o.ChecksumCRC64NVME,
			ChecksumSHA1: o.ChecksumSHA1, ChecksumSHA256: o.ChecksumSHA256,
		})
	}
	return ps
}

func mpCompleteInput(bucket, key, id string, parts []types.CompletedPart) *s3.CompleteMultipartUploadInput {
	return &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id),
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	}
}

// mpCP is a CompletedPart with a number and an ETag.
func mpCP(n int32, etag string) types.CompletedPart {
	return types.CompletedPart{PartNumber: aws.Int32(n), ETag: aws.String(etag)}
}

// mpGet reads a whole object.
func mpGet(t *testing.T, c *s3.Client, bucket, key string) []byte {
	t.Helper()
	out, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("GetObject(%s/%s): %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("GetObject(%s/%s): reading body: %v", bucket, key, err)
	}
	return b
}

// mpUploads lists every upload of a bucket as "key upload-id" strings.
func mpUploads(t *testing.T, c *s3.Client, in *s3.ListMultipartUploadsInput) (uploads []string, prefixes []string, out *s3.ListMultipartUploadsOutput) {
	t.Helper()
	out, err := c.ListMultipartUploads(t.Context(), in)
	if err != nil {
		t.Fatalf("ListMultipartUploads(%s): %v", aws.ToString(in.Bucket), err)
	}
	for _, u := range out.Uploads {
		uploads = append(uploads, aws.ToString(u.Key)+" "+aws.ToString(u.UploadId))
	}
	for _, p := range out.CommonPrefixes {
		prefixes = append(prefixes, aws.ToString(p.Prefix))
	}
	return uploads, prefixes, out
}

// partFiles returns the regular files under the gateway's multipart state
// directory (relative paths), and under its staging directory.
func partFiles(t *testing.T, root string) (parts, staging []string) {
	t.Helper()
	walk := func(dir string) []string {
		var out []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && p == dir {
					return filepath.SkipDir
				}
				return err
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walking %s: %v", dir, err)
		}
		return out
	}
	state := filepath.Join(root, ".objectgateway")
	return walk(filepath.Join(state, "multipart")), walk(filepath.Join(state, "staging"))
}

// TestConformanceMultipartSDK walks the whole life of an upload with
// every SDK mode: create, parts, ListParts paging, replacing a part,
// completion, reads by part number, and a retried completion.
func TestConformanceMultipartSDK(t *testing.T) {
	g := startGateway(t)
	p1, p2, p2b, p3 := mpData(5*mib, 1), mpData(5*mib, 2), mpData(5*mib, 3), mpData(1000, 4)
	whole := slices.Concat(p1, p2b, p3)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := mpBucket(t, c.Client, "mp")
			key := "dir/big object+é"
			id := mpCreate(t, c.Client, bucket, key, func(in *s3.CreateMultipartUploadInput) {
				in.ContentType = aws.String("application/x-test")
				in.Metadata = map[string]string{"origin": "multipart"}
			})
			o1 := mpPart(t, c.Client, bucket, key, id, 1, p1)
			o2 := mpPart(t, c.Client, bucket, key, id, 2, p2)
			o3 := mpPart(t, c.Client, bucket, key, id, 3, p3)

			lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id)})
			if err != nil {
				t.Fatalf("ListParts: %v", err)
			}
			if len(lp.Parts) != 3 || aws.ToBool(lp.IsTruncated) {
				t.Fatalf("ListParts: %d parts, truncated %v; want 3, false", len(lp.Parts), aws.ToBool(lp.IsTruncated))
			}
			for i, want := range []struct {
				etag string
				size int
			}{{aws.ToString(o1.ETag), len(p1)}, {aws.ToString(o2.ETag), len(p2)}, {aws.ToString(o3.ETag), len(p3)}} {
				p := lp.Parts[i]
				if aws.ToInt32(p.PartNumber) != int32(i+1) || aws.ToString(p.ETag) != want.etag || aws.ToInt64(p.Size) != int64(want.size) || p.LastModified == nil {
					t.Errorf("ListParts[%d] = #%d %s %d %v, want #%d %s %d", i, aws.ToInt32(p.PartNumber), aws.ToString(p.ETag),
						aws.ToInt64(p.Size), p.LastModified, i+1, want.etag, want.size)
				}
			}
			if aws.ToString(lp.UploadId) != id || aws.ToString(lp.Key) != key || aws.ToString(lp.Bucket) != bucket {
				t.Errorf("ListParts: bucket %q key %q upload %q", aws.ToString(lp.Bucket), aws.ToString(lp.Key), aws.ToString(lp.UploadId))
			}

			// Paging: max-parts 1, following NextPartNumberMarker.
			var seen []int32
			marker := ""
			for page := 0; ; page++ {
				in := &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id), MaxParts: aws.Int32(1)}
				if marker != "" {
					in.PartNumberMarker = aws.String(marker)
				}
				out, err := c.ListParts(ctx, in)
				if err != nil {
					t.Fatalf("ListParts page %d: %v", page, err)
				}
				if len(out.Parts) != 1 {
					t.Fatalf("ListParts page %d: %d parts, want 1", page, len(out.Parts))
				}
				n := aws.ToInt32(out.Parts[0].PartNumber)
				seen = append(seen, n)
				if aws.ToInt32(out.MaxParts) != 1 {
					t.Errorf("ListParts page %d: MaxParts %d", page, aws.ToInt32(out.MaxParts))
				}
				if got := aws.ToString(out.NextPartNumberMarker); got != strconv.Itoa(int(n)) {
					t.Errorf("ListParts page %d: NextPartNumberMarker %q, want %d", page, got, n)
				}
				if want := n < 3; aws.ToBool(out.IsTruncated) != want {
					t.Errorf("ListParts page %d: IsTruncated %v, want %v", page, aws.ToBool(out.IsTruncated), want)
				}
				if !aws.ToBool(out.IsTruncated) || page > 5 {
					break
				}
				marker = aws.ToString(out.NextPartNumberMarker)
			}
			if !slices.Equal(seen, []int32{1, 2, 3}) {
				t.Errorf("ListParts paging saw parts %v, want [1 2 3]", seen)
			}
			out, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id),
				MaxParts: aws.Int32(2), PartNumberMarker: aws.String("1")})
			if err != nil {
				t.Fatalf("ListParts marker 1: %v", err)
			}
			if len(out.Parts) != 2 || aws.ToInt32(out.Parts[0].PartNumber) != 2 || aws.ToBool(out.IsTruncated) {
				t.Errorf("ListParts after marker 1, max 2: %d parts, truncated %v; want parts 2 and 3", len(out.Parts), aws.ToBool(out.IsTruncated))
			}

			// Re-uploading part 2 replaces it.
			o2b := mpPart(t, c.Client, bucket, key, id, 2, p2b)
			lp, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id)})
			if err != nil {
				t.Fatalf("ListParts after replacing part 2: %v", err)
			}
			if len(lp.Parts) != 3 || aws.ToString(lp.Parts[1].ETag) != aws.ToString(o2b.ETag) {
				t.Errorf("after replacing part 2, ListParts has %d parts, part 2 ETag %v; want 3, %s", len(lp.Parts),
					func() string {
						if len(lp.Parts) > 1 {
							return aws.ToString(lp.Parts[1].ETag)
						}
						return ""
					}(), aws.ToString(o2b.ETag))
			}
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, mpCompleted(o1, o2, o3)))
			wantCode(t, "Complete with the replaced part's ETag", err, 400, "InvalidPart")

			ups, _, _ := mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String("dir/")})
			if !slices.Equal(ups, []string{key + " " + id}) {
				t.Errorf("ListMultipartUploads before completion: %q, want the upload", ups)
			}

			done, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, mpCompleted(o1, o2b, o3)))
			if err != nil {
				t.Fatalf("CompleteMultipartUpload: %v", err)
			}
			etag := mpETag(p1, p2b, p3)
			if aws.ToString(done.ETag) != etag || aws.ToString(done.Bucket) != bucket || aws.ToString(done.Key) != key {
				t.Errorf("Complete: ETag %s bucket %q key %q, want %s", aws.ToString(done.ETag), aws.ToString(done.Bucket), aws.ToString(done.Key), etag)
			}
			if got := mpGet(t, c.Client, bucket, key); !bytes.Equal(got, whole) {
				t.Errorf("GetObject: %d bytes differ from the %d uploaded", len(got), len(whole))
			}
			head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
			if err != nil {
				t.Fatalf("HeadObject: %v", err)
			}
			if aws.ToString(head.ETag) != etag || aws.ToInt64(head.ContentLength) != int64(len(whole)) ||
				head.PartsCount != nil || aws.ToString(head.ContentType) != "application/x-test" || head.Metadata["origin"] != "multipart" {
				// S3 sends x-amz-mp-parts-count only when partNumber is given.
				t.Errorf("HeadObject: ETag %s size %d parts count sent %v type %q meta %v, want none", aws.ToString(head.ETag), aws.ToInt64(head.ContentLength),
					head.PartsCount != nil, aws.ToString(head.ContentType), head.Metadata)
			}

			// Reads by part number.
			gp, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), PartNumber: aws.Int32(2)})
			if err != nil {
				t.Fatalf("GetObject partNumber 2: %v", err)
			}
			b, err := io.ReadAll(gp.Body)
			gp.Body.Close()
			if err != nil || !bytes.Equal(b, p2b) {
				t.Errorf("GetObject partNumber 2: %d bytes (%v), want part 2's %d", len(b), err, len(p2b))
			}
			wantRange := fmt.Sprintf("bytes %d-%d/%d", len(p1), len(p1)+len(p2b)-1, len(whole))
			if aws.ToString(gp.ContentRange) != wantRange || aws.ToInt32(gp.PartsCount) != 3 || aws.ToString(gp.ETag) != etag {
				t.Errorf("GetObject partNumber 2: Content-Range %q parts %d ETag %s, want %q 3 %s",
					aws.ToString(gp.ContentRange), aws.ToInt32(gp.PartsCount), aws.ToString(gp.ETag), wantRange, etag)
			}
			hp, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), PartNumber: aws.Int32(3)})
			if err != nil {
				t.Fatalf("HeadObject partNumber 3: %v", err)
			}
			wantRange = fmt.Sprintf("bytes %d-%d/%d", len(whole)-len(p3), len(whole)-1, len(whole))
			if aws.ToInt64(hp.ContentLength) != int64(len(p3)) || aws.ToString(hp.ContentRange) != wantRange || aws.ToInt32(hp.PartsCount) != 3 {
				t.Errorf("HeadObject partNumber 3: length %d range %q parts %d, want %d %q 3",
					aws.ToInt64(hp.ContentLength), aws.ToString(hp.ContentRange), aws.ToInt32(hp.PartsCount), len(p3), wantRange)
			}
			_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), PartNumber: aws.Int32(4)})
			wantCode(t, "GetObject partNumber 4 of 3", err, 416, "InvalidPartNumber")
			_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), PartNumber: aws.Int32(4)})
			if httpStatus(err) != 416 {
				t.Errorf("HeadObject partNumber 4 of 3: %v, want 416", err)
			}

			// Completing again while the object is unchanged answers as
			// the first completion did (AWS: a retried completion of a
			// completed upload succeeds for a while).
			again, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, mpCompleted(o1, o2b, o3)))
			if err != nil {
				t.Errorf("second CompleteMultipartUpload: %v, want 200 with the same ETag", err)
			} else if aws.ToString(again.ETag) != etag {
				t.Errorf("second CompleteMultipartUpload: ETag %s, want %s", aws.ToString(again.ETag), etag)
			}
			_, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id)})
			wantCode(t, "ListParts of a completed upload", err, 404, "NoSuchUpload")
			_, err = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id)})
			wantCode(t, "AbortMultipartUpload of a completed upload", err, 404, "NoSuchUpload")
			_, err = c.UploadPart(ctx, mpPartInput(bucket, key, id, 4, p3))
			wantCode(t, "UploadPart to a completed upload", err, 404, "NoSuchUpload")
			if ups, _, _ := mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)}); len(ups) != 0 {
				t.Errorf("ListMultipartUploads after completion: %q, want none", ups)
			}
			// Once the key holds something else, the completion is no
			// longer what a retry would repeat.
			if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(p3)}); err != nil {
				t.Fatalf("PutObject over the completed object: %v", err)
			}
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, mpCompleted(o1, o2b, o3)))
			wantCode(t, "Complete again after the key was overwritten", err, 404, "NoSuchUpload")
			if got := mpGet(t, c.Client, bucket, key); !bytes.Equal(got, p3) {
				t.Errorf("a retried completion must not resurrect the old object: got %d bytes", len(got))
			}
		})
	}

	t.Run("raw-part-read", func(t *testing.T) {
		c := g.sdk(sdkModes[0])
		bucket := mpBucket(t, c, "mpraw")
		id := mpCreate(t, c, bucket, "k")
		o1 := mpPart(t, c, bucket, "k", id, 1, p1)
		o2 := mpPart(t, c, bucket, "k", id, 2, p3)
		if _, err := c.CompleteMultipartUpload(t.Context(), mpCompleteInput(bucket, "k", id, mpCompleted(o1, o2))); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		resp, b := g.do(g.rawRequest(http.MethodGet, "/"+bucket+"/k", "partNumber=2", nil), nil, true)
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(b, p3) {
			t.Errorf("GET ?partNumber=2: %d with %d bytes, want 206 with part 2", resp.StatusCode, len(b))
		}
		total := len(p1) + len(p3)
		if got, want := resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-%d/%d", len(p1), total-1, total); got != want {
			t.Errorf("GET ?partNumber=2: Content-Range %q, want %q", got, want)
		}
		if got := resp.Header.Get("X-Amz-Mp-Parts-Count"); got != "2" {
			t.Errorf("GET ?partNumber=2: x-amz-mp-parts-count %q, want 2", got)
		}
		resp, _ = g.do(g.rawRequest(http.MethodHead, "/"+bucket+"/k", "partNumber=1", nil), nil, true)
		if got := resp.Header.Get("X-Amz-Mp-Parts-Count"); resp.StatusCode != http.StatusPartialContent || got != "2" {
			t.Errorf("HEAD ?partNumber=1: %d with x-amz-mp-parts-count %q, want 206 with 2", resp.StatusCode, got)
		}
		// Without partNumber S3 does not send the parts count, GET or HEAD.
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			resp, _ = g.do(g.rawRequest(method, "/"+bucket+"/k", "", nil), nil, true)
			if got, ok := resp.Header["X-Amz-Mp-Parts-Count"]; resp.StatusCode != http.StatusOK || ok {
				t.Errorf("%s without partNumber: %d with x-amz-mp-parts-count %q, want 200 without it", method, resp.StatusCode, got)
			}
		}
		resp, b = g.do(g.rawRequest(http.MethodGet, "/"+bucket+"/k", "partNumber=3", nil), nil, true)
		wantXMLError(t, "GET ?partNumber=3 of 2", resp, b, 416, "InvalidPartNumber")
		resp, b = g.do(g.rawRequest(http.MethodGet, "/"+bucket+"/k", "partNumber=0", nil), nil, true)
		wantXMLError(t, "GET ?partNumber=0", resp, b, 400, "InvalidArgument")
	})
}

// TestConformanceMultipartRules asserts S3's errors for every rule of
// multipart uploads.
func TestConformanceMultipartRules(t *testing.T) {
	g := startGateway(t)
	small1, small2 := mpData(1024, 11), mpData(2048, 12)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := mpBucket(t, c.Client, "mprules")
			key := "rules"
			id := mpCreate(t, c.Client, bucket, key)

			_, err := c.UploadPart(ctx, mpPartInput(bucket, key, id, 0, small1))
			wantCode(t, "UploadPart part number 0", err, 400, "InvalidArgument")
			_, err = c.UploadPart(ctx, mpPartInput(bucket, key, id, 10001, small1))
			wantCode(t, "UploadPart part number 10001", err, 400, "InvalidArgument")
			mpPart(t, c.Client, bucket, key, id, 10000, small1) // the highest valid number

			const bogus = "bm9zdWNodXBsb2FkaWRhdGFsbA"
			_, err = c.UploadPart(ctx, mpPartInput(bucket, key, bogus, 1, small1))
			wantCode(t, "UploadPart unknown upload", err, 404, "NoSuchUpload")
			_, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(bogus)})
			wantCode(t, "ListParts unknown upload", err, 404, "NoSuchUpload")
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, bogus, []types.CompletedPart{mpCP(1, mpMD5(small1))}))
			wantCode(t, "Complete unknown upload", err, 404, "NoSuchUpload")
			_, err = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(bogus)})
			wantCode(t, "Abort unknown upload", err, 404, "NoSuchUpload")
			// An upload id is bound to its key.
			_, err = c.UploadPart(ctx, mpPartInput(bucket, "other-key", id, 1, small1))
			wantCode(t, "UploadPart with another key's upload id", err, 404, "NoSuchUpload")

			o1 := mpPart(t, c.Client, bucket, key, id, 1, small1)
			o2 := mpPart(t, c.Client, bucket, key, id, 2, small2)
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, mpCompleted(o1, o2)))
			wantCode(t, "Complete with a 1 KiB non-last part", err, 400, "EntityTooSmall")
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, []types.CompletedPart{mpCP(1, mpMD5(small2))}))
			wantCode(t, "Complete with a wrong ETag", err, 400, "InvalidPart")
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, []types.CompletedPart{mpCP(1, aws.ToString(o1.ETag)), mpCP(5, aws.ToString(o2.ETag))}))
			wantCode(t, "Complete with a part never uploaded", err, 400, "InvalidPart")
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, []types.CompletedPart{mpCP(2, aws.ToString(o2.ETag)), mpCP(1, aws.ToString(o1.ETag))}))
			wantCode(t, "Complete with descending part numbers", err, 400, "InvalidPartOrder")
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, nil))
			wantCode(t, "Complete with no parts", err, 400, "MalformedXML")

			// None of the refused completions touched the upload: a
			// single-part completion (the last part may be tiny) works
			// and leaves out the parts it does not list.
			done, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, []types.CompletedPart{mpCP(2, aws.ToString(o2.ETag))}))
			if err != nil {
				t.Fatalf("Complete with part 2 only: %v", err)
			}
			if aws.ToString(done.ETag) != mpETag(small2) {
				t.Errorf("Complete with part 2 only: ETag %s, want %s", aws.ToString(done.ETag), mpETag(small2))
			}
			if got := mpGet(t, c.Client, bucket, key); !bytes.Equal(got, small2) {
				t.Errorf("object of part 2 only: %d bytes, want %d", len(got), len(small2))
			}

			// Abort: the upload is gone for every operation.
			id2 := mpCreate(t, c.Client, bucket, key)
			o := mpPart(t, c.Client, bucket, key, id2, 1, small1)
			if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id2)}); err != nil {
				t.Fatalf("AbortMultipartUpload: %v", err)
			}
			_, err = c.UploadPart(ctx, mpPartInput(bucket, key, id2, 2, small1))
			wantCode(t, "UploadPart after abort", err, 404, "NoSuchUpload")
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id2, mpCompleted(o)))
			wantCode(t, "Complete after abort", err, 404, "NoSuchUpload")
			_, err = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id2)})
			wantCode(t, "Abort twice", err, 404, "NoSuchUpload")
			if got := mpGet(t, c.Client, bucket, key); !bytes.Equal(got, small2) {
				t.Errorf("an aborted upload must not change the object")
			}

			_, err = c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("no-such-bucket-mp"), Key: aws.String(key)})
			wantCode(t, "CreateMultipartUpload in a missing bucket", err, 404, "NoSuchBucket")
			_, err = c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String("no-such-bucket-mp")})
			wantCode(t, "ListMultipartUploads of a missing bucket", err, 404, "NoSuchBucket")
		})
	}
}

// TestConformanceCompleteRequestValues sends CompleteMultipartUpload
// values S3 refuses before it looks at the parts, with the answers
// recorded from S3: a part number below 1 is 400 InvalidArgument
// "PartNumber must be >= 1" (versity/versitygw#1072), an
// x-amz-mp-object-size that is no integer 400 InvalidRequest "Value for
// x-amz-mp-object-size header is invalid: 'size'" (versitygw#1398), a
// negative one "... is less than zero: '-1'" (versitygw#1400), one that is
// not the object's size InvalidRequest (the API reference: "If there's a
// mismatch ..., it results in an HTTP 400 InvalidRequest error"). None of
// them touches the upload, which then completes with its right size.
func TestConformanceCompleteRequestValues(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := mpBucket(t, c, "completevalues")
	key := "k"
	p := mpData(2048, 13)
	id := mpCreate(t, c, bucket, key)
	o := mpPart(t, c, bucket, key, id, 1, p)

	for _, n := range []int32{0, -1} {
		parts := []types.CompletedPart{mpCP(n, aws.ToString(o.ETag))}
		_, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, parts))
		what := fmt.Sprintf("Complete with part number %d", n)
		wantCode(t, what, err, 400, "InvalidArgument")
		if apiMessage(err) != "PartNumber must be >= 1" {
			t.Errorf("%s: message %q, want %q", what, apiMessage(err), "PartNumber must be >= 1")
		}
	}

	for _, tc := range []struct{ value, message string }{
		{"size", "Value for x-amz-mp-object-size header is invalid: 'size'"},
		{"-1", "Value for x-amz-mp-object-size header is less than zero: '-1'"},
		{"2047", "The provided 'x-amz-mp-object-size' header value 2047 does not match what was computed: 2048"},
	} {
		body := []byte(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>` + aws.ToString(o.ETag) + `</ETag></Part></CompleteMultipartUpload>`)
		req := g.rawRequest(http.MethodPost, "/"+bucket+"/"+key, "uploadId="+id, body)
		req.Header.Set("X-Amz-Mp-Object-Size", tc.value)
		resp, b := g.do(req, body, true)
		what := "Complete with x-amz-mp-object-size " + tc.value
		wantXMLError(t, what, resp, b, 400, "InvalidRequest")
		var e s3Error
		if err := xml.Unmarshal(b, &e); err != nil || e.Message != tc.message {
			t.Errorf("%s: message %q (%v), want %q", what, e.Message, err, tc.message)
		}
	}
	in := mpCompleteInput(bucket, key, id, mpCompleted(o))
	in.MpuObjectSize = aws.Int64(int64(len(p)))
	if _, err := c.CompleteMultipartUpload(ctx, in); err != nil {
		t.Fatalf("Complete with the right x-amz-mp-object-size: %v", err)
	}
	if got := mpGet(t, c, bucket, key); !bytes.Equal(got, p) {
		t.Errorf("completed object: %d bytes, want %d", len(got), len(p))
	}
}

// TestConformanceMultipartMinioCore drives the low-level multipart calls
// of minio-go and checks its typed errors.
func TestConformanceMultipartMinioCore(t *testing.T) {
	g := startGateway(t)
	p1, p2 := mpData(5*mib, 21), mpData(4096, 22)
	for _, mc := range g.minioClients() {
		t.Run(mc.name, func(t *testing.T) {
			ctx := t.Context()
			core := minio.Core{Client: mc.Client}
			bucket := uniqueBucket("mpminio")
			if err := mc.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
				t.Fatalf("MakeBucket: %v", err)
			}
			id, err := core.NewMultipartUpload(ctx, bucket, "obj", minio.PutObjectOptions{})
			if err != nil {
				t.Fatalf("NewMultipartUpload: %v", err)
			}
			var parts []minio.CompletePart
			for i, b := range [][]byte{p1, p2} {
				p, err := core.PutObjectPart(ctx, bucket, "obj", id, i+1, bytes.NewReader(b), int64(len(b)), minio.PutObjectPartOptions{})
				if err != nil {
					t.Fatalf("PutObjectPart %d: %v", i+1, err)
				}
				if `"`+strings.Trim(p.ETag, `"`)+`"` != mpMD5(b) {
					t.Errorf("PutObjectPart %d: ETag %s, want %s", i+1, p.ETag, mpMD5(b))
				}
				parts = append(parts, minio.CompletePart{PartNumber: i + 1, ETag: p.ETag,
					ChecksumCRC32: p.ChecksumCRC32, ChecksumCRC32C: p.ChecksumCRC32C, ChecksumSHA1: p.ChecksumSHA1,
					ChecksumSHA256: p.ChecksumSHA256, ChecksumCRC64NVME: p.ChecksumCRC64NVME})
			}
			_, err = core.PutObjectPart(ctx, bucket, "obj", "bm9zdWNodXBsb2Fk", 1, bytes.NewReader(p2), int64(len(p2)), minio.PutObjectPartOptions{})
			wantMinioCode(t, "PutObjectPart unknown upload", err, 404, "NoSuchUpload")
			lp, err := core.ListObjectParts(ctx, bucket, "obj", id, 0, 1)
			if err != nil {
				t.Fatalf("ListObjectParts: %v", err)
			}
			if len(lp.ObjectParts) != 1 || !lp.IsTruncated || lp.NextPartNumberMarker != 1 {
				t.Errorf("ListObjectParts max 1: %d parts truncated %v next %d", len(lp.ObjectParts), lp.IsTruncated, lp.NextPartNumberMarker)
			}
			lu, err := core.ListMultipartUploads(ctx, bucket, "", "", "", "", 1000)
			if err != nil {
				t.Fatalf("ListMultipartUploads: %v", err)
			}
			if len(lu.Uploads) != 1 || lu.Uploads[0].UploadID != id || lu.Uploads[0].Key != "obj" {
				t.Errorf("ListMultipartUploads: %+v", lu.Uploads)
			}
			bad := slices.Clone(parts)
			bad[0].ETag = mpMD5(p2)
			_, err = core.CompleteMultipartUpload(ctx, bucket, "obj", id, bad, minio.PutObjectOptions{})
			wantMinioCode(t, "CompleteMultipartUpload wrong ETag", err, 400, "InvalidPart")
			slices.Reverse(bad)
			_, err = core.CompleteMultipartUpload(ctx, bucket, "obj", id, bad, minio.PutObjectOptions{})
			wantMinioCode(t, "CompleteMultipartUpload descending", err, 400, "InvalidPartOrder")
			info, err := core.CompleteMultipartUpload(ctx, bucket, "obj", id, parts, minio.PutObjectOptions{})
			if err != nil {
				t.Fatalf("CompleteMultipartUpload: %v", err)
			}
			if `"`+info.ETag+`"` != mpETag(p1, p2) {
				t.Errorf("CompleteMultipartUpload: ETag %s, want %s", info.ETag, mpETag(p1, p2))
			}
			err = core.AbortMultipartUpload(ctx, bucket, "obj", "bm9zdWNodXBsb2Fk")
			wantMinioCode(t, "AbortMultipartUpload unknown upload", err, 404, "NoSuchUpload")
			st, err := mc.StatObject(ctx, bucket, "obj", minio.StatObjectOptions{})
			if err != nil || st.Size != int64(len(p1)+len(p2)) {
				t.Errorf("StatObject: %v size %d", err, st.Size)
			}
		})
	}
}

// TestConformanceListMultipartUploads checks prefix, delimiter, ordering
// and key-marker / upload-id-marker paging.
func TestConformanceListMultipartUploads(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			bucket := mpBucket(t, c.Client, "mplist")
			ids := map[string][]string{}
			create := func(key string) {
				ids[key] = append(ids[key], mpCreate(t, c.Client, bucket, key))
			}
			for _, k := range []string{"e", "a/2", "d/x/y", "a/1", "b"} {
				create(k)
			}
			// Five uploads of one key, one after the other.
			for range 5 {
				create("c")
			}
			// S3 lists by key, and the uploads of one key by initiation
			// time (ListMultipartUploads, "Sorting of multipart uploads
			// in response").
			var all []string
			for _, k := range []string{"a/1", "a/2", "b", "c", "d/x/y", "e"} {
				for _, id := range ids[k] {
					all = append(all, k+" "+id)
				}
			}
			got, _, out := mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
			if len(got) != len(all) {
				t.Fatalf("ListMultipartUploads: %d uploads, want %d: %q", len(got), len(all), got)
			}
			if aws.ToBool(out.IsTruncated) || aws.ToString(out.Bucket) != bucket {
				t.Errorf("ListMultipartUploads: truncated %v bucket %q", aws.ToBool(out.IsTruncated), aws.ToString(out.Bucket))
			}
			var keys []string
			for _, u := range got {
				keys = append(keys, strings.Fields(u)[0])
			}
			if want := []string{"a/1", "a/2", "b", "c", "c", "c", "c", "c", "d/x/y", "e"}; !slices.Equal(keys, want) {
				t.Errorf("ListMultipartUploads keys %q, want %q", keys, want)
			}
			t.Run("same-key-by-initiation-time", func(t *testing.T) {
				var cs []string
				for _, u := range got {
					if strings.HasPrefix(u, "c ") {
						cs = append(cs, strings.TrimPrefix(u, "c "))
					}
				}
				if !slices.Equal(cs, ids["c"]) {
					t.Errorf("uploads of key c listed as %q, want initiation order %q", cs, ids["c"])
				}
			})
			// The order the gateway uses, for the paging checks below.
			all = got

			ups, cps, _ := mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String("a/")})
			if want := all[:2]; !slices.Equal(ups, want) || len(cps) != 0 {
				t.Errorf("prefix a/: %q %q, want %q", ups, cps, want)
			}
			ups, cps, out = mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Delimiter: aws.String("/")})
			if want := slices.Concat(all[2:8], all[9:]); !slices.Equal(ups, want) || !slices.Equal(cps, []string{"a/", "d/"}) {
				t.Errorf("delimiter /: uploads %q prefixes %q", ups, cps)
			}
			if aws.ToString(out.Delimiter) != "/" {
				t.Errorf("delimiter /: Delimiter %q", aws.ToString(out.Delimiter))
			}
			ups, cps, _ = mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String("d/"), Delimiter: aws.String("/")})
			if len(ups) != 0 || !slices.Equal(cps, []string{"d/x/"}) {
				t.Errorf("prefix d/ delimiter /: %q %q, want prefix d/x/", ups, cps)
			}

			// Page one upload at a time.
			var paged []string
			km, um := "", ""
			for page := 0; page <= len(all); page++ {
				in := &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), MaxUploads: aws.Int32(1)}
				if km != "" {
					in.KeyMarker, in.UploadIdMarker = aws.String(km), aws.String(um)
				}
				ups, _, out := mpUploads(t, c.Client, in)
				paged = append(paged, ups...)
				if len(ups) != 1 {
					t.Fatalf("page %d: %d uploads", page, len(ups))
				}
				if !aws.ToBool(out.IsTruncated) {
					break
				}
				km, um = aws.ToString(out.NextKeyMarker), aws.ToString(out.NextUploadIdMarker)
				if km+" "+um != ups[0] {
					t.Errorf("page %d: next markers %q %q, want the last upload %q", page, km, um, ups[0])
				}
			}
			if !slices.Equal(paged, all) {
				t.Errorf("paging by one: %q, want %q", paged, all)
			}
			// Two pages of four, the boundary among the c uploads.
			ups, _, out = mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), MaxUploads: aws.Int32(4)})
			if !slices.Equal(ups, all[:4]) || !aws.ToBool(out.IsTruncated) {
				t.Errorf("max 4: %q truncated %v", ups, aws.ToBool(out.IsTruncated))
			}
			ups, _, _ = mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), MaxUploads: aws.Int32(4),
				KeyMarker: out.NextKeyMarker, UploadIdMarker: out.NextUploadIdMarker})
			if !slices.Equal(ups, all[4:8]) {
				t.Errorf("max 4 from %s/%s: %q, want %q", aws.ToString(out.NextKeyMarker), aws.ToString(out.NextUploadIdMarker), ups, all[4:8])
			}
			// key-marker alone starts after every upload of that key.
			ups, _, _ = mpUploads(t, c.Client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), KeyMarker: aws.String("c")})
			if !slices.Equal(ups, all[8:]) {
				t.Errorf("key-marker c: %q, want %q", ups, all[8:])
			}
			// Paging with a delimiter counts each common prefix once.
			var entries []string
			km, um = "", ""
			for page := 0; page <= len(all); page++ {
				in := &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), MaxUploads: aws.Int32(1), Delimiter: aws.String("/")}
				if km != "" {
					in.KeyMarker = aws.String(km)
					if um != "" {
						in.UploadIdMarker = aws.String(um)
					}
				}
				ups, cps, out := mpUploads(t, c.Client, in)
				entries = append(entries, append(cps, ups...)...)
				if !aws.ToBool(out.IsTruncated) {
					break
				}
				km, um = aws.ToString(out.NextKeyMarker), aws.ToString(out.NextUploadIdMarker)
			}
			if want := slices.Concat([]string{"a/"}, all[2:8], []string{"d/", all[9]}); !slices.Equal(entries, want) {
				t.Errorf("paging by one with delimiter /: %q, want %q", entries, want)
			}
		})
	}
}

// TestConformanceMultipartChecksums covers composite and full-object
// checksums, per-part verification and their reporting on GET and HEAD.
func TestConformanceMultipartChecksums(t *testing.T) {
	g := startGateway(t)
	p1, p2, other := mpData(5*mib, 31), mpData(64<<10, 32), mpData(64<<10, 33)
	whole := slices.Concat(p1, p2)
	cases := []struct {
		name     string
		create   types.ChecksumAlgorithm // "" creates the upload without one
		typ      types.ChecksumType
		part     types.ChecksumAlgorithm
		wantType types.ChecksumType
		want     string
	}{
		{"crc32-composite", types.ChecksumAlgorithmCrc32, "", types.ChecksumAlgorithmCrc32, types.ChecksumTypeComposite,
			mpComposite(types.ChecksumAlgorithmCrc32, p1, p2)},
		{"crc32-full-object", types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject, types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject,
			mpFull(types.ChecksumAlgorithmCrc32, whole)},
		{"crc32c-full-object", types.ChecksumAlgorithmCrc32c, types.ChecksumTypeFullObject, types.ChecksumAlgorithmCrc32c, types.ChecksumTypeFullObject,
			mpFull(types.ChecksumAlgorithmCrc32c, whole)},
		{"crc64nvme", types.ChecksumAlgorithmCrc64nvme, "", types.ChecksumAlgorithmCrc64nvme, types.ChecksumTypeFullObject,
			mpFull(types.ChecksumAlgorithmCrc64nvme, whole)},
		{"sha256-composite", types.ChecksumAlgorithmSha256, "", types.ChecksumAlgorithmSha256, types.ChecksumTypeComposite,
			mpComposite(types.ChecksumAlgorithmSha256, p1, p2)},
		{"none-parts-crc64nvme", "", "", types.ChecksumAlgorithmCrc64nvme, types.ChecksumTypeFullObject,
			mpFull(types.ChecksumAlgorithmCrc64nvme, whole)},
	}
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := mpBucket(t, c.Client, "mpsum")
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					key := "obj-" + tc.name
					cm, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
						ChecksumAlgorithm: tc.create, ChecksumType: tc.typ})
					if err != nil {
						t.Fatalf("CreateMultipartUpload: %v", err)
					}
					id := aws.ToString(cm.UploadId)
					if tc.create != "" && (cm.ChecksumAlgorithm != tc.create || cm.ChecksumType != tc.wantType) {
						t.Errorf("CreateMultipartUpload: algorithm %q type %q, want %q %q", cm.ChecksumAlgorithm, cm.ChecksumType, tc.create, tc.wantType)
					}
					withAlg := func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = tc.part }
					o1 := mpPart(t, c.Client, bucket, key, id, 1, p1, withAlg)
					o2 := mpPart(t, c.Client, bucket, key, id, 2, p2, withAlg)
					for i, o := range []*s3.UploadPartOutput{o1, o2} {
						got := mpSum(tc.part, o.ChecksumCRC32, o.ChecksumCRC32C, o.ChecksumCRC64NVME, o.ChecksumSHA1, o.ChecksumSHA256)
						if want := mpFull(tc.part, [][]byte{p1, p2}[i]); got != want {
							t.Errorf("UploadPart %d: %s %q, want %q", i+1, tc.part, got, want)
						}
					}
					// A part whose stated checksum is not its bytes' is
					// refused and not stored.
					_, err = c.UploadPart(ctx, mpPartInput(bucket, key, id, 3, p2, func(in *s3.UploadPartInput) {
						switch tc.part {
						case types.ChecksumAlgorithmCrc32:
							in.ChecksumCRC32 = aws.String(mpFull(tc.part, other))
						case types.ChecksumAlgorithmCrc32c:
							in.ChecksumCRC32C = aws.String(mpFull(tc.part, other))
						case types.ChecksumAlgorithmCrc64nvme:
							in.ChecksumCRC64NVME = aws.String(mpFull(tc.part, other))
						case types.ChecksumAlgorithmSha256:
							in.ChecksumSHA256 = aws.String(mpFull(tc.part, other))
						}
					}))
					wantCode(t, "UploadPart with a wrong "+string(tc.part), err, 400, "BadDigest")

					lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id)})
					if err != nil {
						t.Fatalf("ListParts: %v", err)
					}
					if len(lp.Parts) != 2 {
						t.Errorf("ListParts: %d parts, want 2 (the bad part must not be stored)", len(lp.Parts))
					}
					if tc.create != "" {
						if lp.ChecksumAlgorithm != tc.create || lp.ChecksumType != tc.wantType {
							t.Errorf("ListParts: algorithm %q type %q, want %q %q", lp.ChecksumAlgorithm, lp.ChecksumType, tc.create, tc.wantType)
						}
						for i, p := range lp.Parts {
							got := mpSum(tc.part, p.ChecksumCRC32, p.ChecksumCRC32C, p.ChecksumCRC64NVME, p.ChecksumSHA1, p.ChecksumSHA256)
							if want := mpFull(tc.part, [][]byte{p1, p2}[min(i, 1)]); got != want {
								t.Errorf("ListParts[%d]: %s %q, want %q", i, tc.part, got, want)
							}
						}
					}

					done, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, mpCompleted(o1, o2)))
					if err != nil {
						t.Fatalf("CompleteMultipartUpload: %v", err)
					}
					alg := tc.part
					if got := mpSum(alg, done.ChecksumCRC32, done.ChecksumCRC32C, done.ChecksumCRC64NVME, done.ChecksumSHA1, done.ChecksumSHA256); got != tc.want || done.ChecksumType != tc.wantType {
						t.Errorf("CompleteMultipartUpload: %s %q type %q, want %q %q", alg, got, done.ChecksumType, tc.want, tc.wantType)
					}
					if aws.ToString(done.ETag) != mpETag(p1, p2) {
						t.Errorf("CompleteMultipartUpload: ETag %s, want %s", aws.ToString(done.ETag), mpETag(p1, p2))
					}
					head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
					if err != nil {
						t.Fatalf("HeadObject: %v", err)
					}
					if got := mpSum(alg, head.ChecksumCRC32, head.ChecksumCRC32C, head.ChecksumCRC64NVME, head.ChecksumSHA1, head.ChecksumSHA256); got != tc.want || head.ChecksumType != tc.wantType {
						t.Errorf("HeadObject checksum mode: %s %q type %q, want %q %q", alg, got, head.ChecksumType, tc.want, tc.wantType)
					}
					get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
					if err != nil {
						t.Fatalf("GetObject: %v", err)
					}
					b, err := io.ReadAll(get.Body) // the SDK verifies full-object checksums here
					get.Body.Close()
					if err != nil || !bytes.Equal(b, whole) {
						t.Errorf("GetObject checksum mode: %d bytes, %v", len(b), err)
					}
					if got := mpSum(alg, get.ChecksumCRC32, get.ChecksumCRC32C, get.ChecksumCRC64NVME, get.ChecksumSHA1, get.ChecksumSHA256); got != tc.want || get.ChecksumType != tc.wantType {
						t.Errorf("GetObject checksum mode: %s %q type %q, want %q %q", alg, got, get.ChecksumType, tc.want, tc.wantType)
					}
				})
			}

			t.Run("refusals", func(t *testing.T) {
				_, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("x"),
					ChecksumAlgorithm: types.ChecksumAlgorithmCrc64nvme, ChecksumType: types.ChecksumTypeComposite})
				wantCode(t, "CRC64NVME COMPOSITE", err, 400, "InvalidRequest")
				_, err = c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("x"),
					ChecksumAlgorithm: types.ChecksumAlgorithmSha256, ChecksumType: types.ChecksumTypeFullObject})
				wantCode(t, "SHA256 FULL_OBJECT", err, 400, "InvalidRequest")
				id := mpCreate(t, c.Client, bucket, "x", func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmCrc32 })
				_, err = c.UploadPart(ctx, mpPartInput(bucket, "x", id, 1, p2, func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmSha256 }))
				wantCode(t, "SHA256 part of a CRC32 upload", err, 400, "InvalidRequest")
			})
		})
	}
}

// TestConformanceCompositePartChecksumsRequired checks S3's rules for the
// part checksums of an upload created with a COMPOSITE checksum (the
// object's checksum is made of them): UploadPart without a checksum is
// InvalidRequest "Checksum Type mismatch occurred, expected checksum Type:
// sha256, actual checksum Type: null", and CompleteMultipartUpload must
// name each part's checksum of the upload's algorithm, else InvalidRequest
// "The upload was created using a crc32 checksum. The complete request
// must include the checksum for each part. It was missing for part 1 in
// the request." (both captured from S3: floci-io/floci#3093,
// apache/opendal#4580). A refused request leaves the upload as it was.
// FULL_OBJECT uploads (CRC32 asked so, CRC64NVME) need neither: their
// checksum is combined from the parts' computed ones.
func TestConformanceCompositePartChecksumsRequired(t *testing.T) {
	g := startGateway(t)
	// When-required: the SDK sends a part checksum only when asked to.
	c := g.sdk(sdkModes[2])
	ctx := t.Context()
	bucket := mpBucket(t, c, "partsums")
	p1, p2 := mpData(5*mib, 91), mpData(32<<10, 92)

	for _, alg := range []types.ChecksumAlgorithm{types.ChecksumAlgorithmCrc32, types.ChecksumAlgorithmSha256, types.ChecksumAlgorithmXxhash64} {
		t.Run(string(alg), func(t *testing.T) {
			key := "composite-" + string(alg)
			id := mpCreate(t, c, bucket, key, func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm = alg })
			lower := strings.ToLower(string(alg))

			// A small body: the refusal comes before the body is read.
			_, err := c.UploadPart(ctx, mpPartInput(bucket, key, id, 1, p2))
			wantCode(t, "UploadPart without a checksum", err, 400, "InvalidRequest")
			if want := "Checksum Type mismatch occurred, expected checksum Type: " + lower + ", actual checksum Type: null"; apiMessage(err) != want {
				t.Errorf("UploadPart without a checksum: message %q, want %q", apiMessage(err), want)
			}
			// The same as a raw request with no x-amz-checksum-* at all.
			req := g.rawRequest(http.MethodPut, "/"+bucket+"/"+key, "partNumber=1&uploadId="+id, p2)
			resp, b := g.do(req, p2, true)
			wantXMLError(t, "raw UploadPart without a checksum", resp, b, 400, "InvalidRequest")

			var done []types.CompletedPart
			for i, p := range [][]byte{p1, p2} {
				in := mpPartInput(bucket, key, id, int32(i+1), p)
				setSDKSum(in, alg, mpFull(alg, p))
				o := mpPartOut(t, c, in)
				cp := types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: o.ETag}
				setSDKSum(&cp, alg, mpFull(alg, p))
				done = append(done, cp)
			}
			lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id)})
			if err != nil || len(lp.Parts) != 2 {
				t.Fatalf("ListParts: %v, %d parts; want the 2 with checksums (the refused ones stored nothing)", err, len(lp.Parts))
			}

			missing := func(n int) string {
				return fmt.Sprintf("The upload was created using a %s checksum. The complete request must include the checksum for each part. It was missing for part %d in the request.", lower, n)
			}
			for n := range 2 {
				parts := slices.Clone(done)
				parts[n] = types.CompletedPart{PartNumber: done[n].PartNumber, ETag: done[n].ETag}
				_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, parts))
				what := fmt.Sprintf("CompleteMultipartUpload without part %d's checksum", n+1)
				wantCode(t, what, err, 400, "InvalidRequest")
				if apiMessage(err) != missing(n+1) {
					t.Errorf("%s: message %q, want %q", what, apiMessage(err), missing(n+1))
				}
			}
			// Another algorithm's value is no checksum of the upload's.
			other := types.ChecksumAlgorithmSha1
			parts := slices.Clone(done)
			parts[0] = types.CompletedPart{PartNumber: done[0].PartNumber, ETag: done[0].ETag}
			setSDKSum(&parts[0], other, mpFull(other, p1))
			_, err = c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, parts))
			wantCode(t, "CompleteMultipartUpload with part 1's SHA1 instead", err, 400, "InvalidRequest")
			if apiMessage(err) != missing(1) {
				t.Errorf("part 1's SHA1 instead: message %q, want %q", apiMessage(err), missing(1))
			}
			if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); httpStatus(err) != 404 {
				t.Errorf("HeadObject after refused completions: %v, want 404", err)
			}

			res, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id, done))
			if err != nil {
				t.Fatalf("CompleteMultipartUpload with every part's checksum: %v", err)
			}
			if got, want := sdkSum(res, alg), mpComposite(alg, p1, p2); got != want || res.ChecksumType != types.ChecksumTypeComposite {
				t.Errorf("CompleteMultipartUpload: %s %q type %q, want %q COMPOSITE", alg, got, res.ChecksumType, want)
			}
		})
	}

	for _, tc := range []struct {
		alg types.ChecksumAlgorithm
		typ types.ChecksumType
	}{
		{types.ChecksumAlgorithmCrc32, types.ChecksumTypeFullObject},
		{types.ChecksumAlgorithmCrc64nvme, ""},
	} {
		t.Run("full-object-"+string(tc.alg), func(t *testing.T) {
			key := "full-" + string(tc.alg)
			id := mpCreate(t, c, bucket, key, func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm, in.ChecksumType = tc.alg, tc.typ })
			o1 := mpPart(t, c, bucket, key, id, 1, p1)
			o2 := mpPart(t, c, bucket, key, id, 2, p2)
			res, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, key, id,
				[]types.CompletedPart{mpCP(1, aws.ToString(o1.ETag)), mpCP(2, aws.ToString(o2.ETag))}))
			if err != nil {
				t.Fatalf("CompleteMultipartUpload without part checksums: %v", err)
			}
			if got, want := sdkSum(res, tc.alg), mpFull(tc.alg, slicesConcat(p1, p2)); got != want || res.ChecksumType != types.ChecksumTypeFullObject {
				t.Errorf("CompleteMultipartUpload: %s %q type %q, want %q FULL_OBJECT", tc.alg, got, res.ChecksumType, want)
			}
		})
	}
}

// mpPartOut uploads one part from a prepared input.
func mpPartOut(t *testing.T, c *s3.Client, in *s3.UploadPartInput) *s3.UploadPartOutput {
	t.Helper()
	out, err := c.UploadPart(t.Context(), in)
	if err != nil {
		t.Fatalf("UploadPart #%d: %v", aws.ToInt32(in.PartNumber), err)
	}
	return out
}

// TestConformanceUploadPartCopy makes parts from ranges of an object.
func TestConformanceUploadPartCopy(t *testing.T) {
	g := startGateway(t)
	src := mpData(6*mib+123, 41)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := mpBucket(t, c.Client, "mpcopy")
			put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("src obj"), Body: bytes.NewReader(src)})
			if err != nil {
				t.Fatalf("PutObject: %v", err)
			}
			source := bucket + "/src%20obj"
			id := mpCreate(t, c.Client, bucket, "dst")
			var outs []*s3.UploadPartCopyOutput
			for i, r := range [][2]int{{0, 5*mib - 1}, {5 * mib, len(src) - 1}} {
				out, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{
					Bucket: aws.String(bucket), Key: aws.String("dst"), UploadId: aws.String(id), PartNumber: aws.Int32(int32(i + 1)),
					CopySource: aws.String(source), CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", r[0], r[1])),
					CopySourceIfMatch: put.ETag,
				})
				if err != nil {
					t.Fatalf("UploadPartCopy %d: %v", i+1, err)
				}
				if got, want := aws.ToString(out.CopyPartResult.ETag), mpMD5(src[r[0]:r[1]+1]); got != want {
					t.Errorf("UploadPartCopy %d: ETag %s, want %s", i+1, got, want)
				}
				outs = append(outs, out)
			}
			_, err = c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{
				Bucket: aws.String(bucket), Key: aws.String("dst"), UploadId: aws.String(id), PartNumber: aws.Int32(3),
				CopySource: aws.String(source), CopySourceIfMatch: aws.String(`"0123456789abcdef0123456789abcdef"`),
			})
			wantCode(t, "UploadPartCopy x-amz-copy-source-if-match mismatch", err, 412, "PreconditionFailed")
			_, err = c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{
				Bucket: aws.String(bucket), Key: aws.String("dst"), UploadId: aws.String(id), PartNumber: aws.Int32(3),
				CopySource: aws.String(source), CopySourceIfNoneMatch: put.ETag,
			})
			wantCode(t, "UploadPartCopy x-amz-copy-source-if-none-match match", err, 412, "PreconditionFailed")
			_, err = c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{
				Bucket: aws.String(bucket), Key: aws.String("dst"), UploadId: aws.String(id), PartNumber: aws.Int32(3),
				CopySource: aws.String(bucket + "/missing"),
			})
			wantCode(t, "UploadPartCopy of a missing source", err, 404, "NoSuchKey")
			_, err = c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{
				Bucket: aws.String(bucket), Key: aws.String("dst"), UploadId: aws.String("bm9zdWNodXBsb2Fk"), PartNumber: aws.Int32(1),
				CopySource: aws.String(source),
			})
			wantCode(t, "UploadPartCopy unknown upload", err, 404, "NoSuchUpload")

			parts := []types.CompletedPart{mpCP(1, aws.ToString(outs[0].CopyPartResult.ETag)), mpCP(2, aws.ToString(outs[1].CopyPartResult.ETag))}
			done, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, "dst", id, parts))
			if err != nil {
				t.Fatalf("CompleteMultipartUpload: %v", err)
			}
			if want := mpETag(src[:5*mib], src[5*mib:]); aws.ToString(done.ETag) != want {
				t.Errorf("CompleteMultipartUpload: ETag %s, want %s", aws.ToString(done.ETag), want)
			}
			if got := mpGet(t, c.Client, bucket, "dst"); !bytes.Equal(got, src) {
				t.Errorf("object made of copied ranges: %d bytes differ from the source's %d", len(got), len(src))
			}
		})
	}
}

// TestConformanceConditionalWrites covers If-None-Match and If-Match on
// PutObject, CompleteMultipartUpload and DeleteObject.
func TestConformanceConditionalWrites(t *testing.T) {
	g := startGateway(t)
	v1, v2, v3 := []byte("version one"), []byte("version two"), []byte("version three")
	part := mpData(2048, 51)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := mpBucket(t, c.Client, "cond")
			putIn := func(key string, body []byte) *s3.PutObjectInput {
				return &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}
			}
			first, err := c.PutObject(ctx, putIn("k", v1))
			if err != nil {
				t.Fatalf("PutObject: %v", err)
			}
			in := putIn("k", v2)
			in.IfNoneMatch = aws.String("*")
			_, err = c.PutObject(ctx, in)
			wantCode(t, "PutObject If-None-Match * on an existing key", err, 412, "PreconditionFailed")
			if got := mpGet(t, c.Client, bucket, "k"); !bytes.Equal(got, v1) {
				t.Errorf("a refused conditional PUT changed the object to %q", got)
			}
			in = putIn("fresh", v1)
			in.IfNoneMatch = aws.String("*")
			if _, err := c.PutObject(ctx, in); err != nil {
				t.Errorf("PutObject If-None-Match * on a new key: %v", err)
			}

			in = putIn("k", v2)
			in.IfMatch = first.ETag
			second, err := c.PutObject(ctx, in)
			if err != nil {
				t.Fatalf("PutObject If-Match with the current ETag: %v", err)
			}
			if aws.ToString(second.ETag) != mpMD5(v2) {
				t.Errorf("PutObject If-Match: ETag %s", aws.ToString(second.ETag))
			}
			in = putIn("k", v3)
			in.IfMatch = first.ETag
			_, err = c.PutObject(ctx, in)
			wantCode(t, "PutObject If-Match with a stale ETag", err, 412, "PreconditionFailed")
			in = putIn("missing", v3)
			in.IfMatch = first.ETag
			_, err = c.PutObject(ctx, in)
			wantCode(t, "PutObject If-Match on a missing key", err, 404, "NoSuchKey")
			if got := mpGet(t, c.Client, bucket, "k"); !bytes.Equal(got, v2) {
				t.Errorf("object after conditional PUTs: %q, want %q", got, v2)
			}

			// CompleteMultipartUpload.
			id := mpCreate(t, c.Client, bucket, "k")
			o := mpPart(t, c.Client, bucket, "k", id, 1, part)
			cin := mpCompleteInput(bucket, "k", id, mpCompleted(o))
			cin.IfNoneMatch = aws.String("*")
			_, err = c.CompleteMultipartUpload(ctx, cin)
			wantCode(t, "Complete If-None-Match * on an existing key", err, 412, "PreconditionFailed")
			id = mpCreate(t, c.Client, bucket, "k")
			o = mpPart(t, c.Client, bucket, "k", id, 1, part)
			cin = mpCompleteInput(bucket, "k", id, mpCompleted(o))
			cin.IfMatch = first.ETag
			_, err = c.CompleteMultipartUpload(ctx, cin)
			wantCode(t, "Complete If-Match with a stale ETag", err, 412, "PreconditionFailed")
			if got := mpGet(t, c.Client, bucket, "k"); !bytes.Equal(got, v2) {
				t.Errorf("a refused conditional completion changed the object")
			}
			cin.IfMatch = second.ETag
			done, err := c.CompleteMultipartUpload(ctx, cin)
			if err != nil {
				t.Fatalf("Complete If-Match with the current ETag: %v", err)
			}
			id = mpCreate(t, c.Client, bucket, "new-mp")
			o = mpPart(t, c.Client, bucket, "new-mp", id, 1, part)
			cin = mpCompleteInput(bucket, "new-mp", id, mpCompleted(o))
			cin.IfNoneMatch = aws.String("*")
			if _, err := c.CompleteMultipartUpload(ctx, cin); err != nil {
				t.Errorf("Complete If-None-Match * on a new key: %v", err)
			}

			// DeleteObject If-Match.
			_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), IfMatch: second.ETag})
			wantCode(t, "DeleteObject If-Match with a stale ETag", err, 412, "PreconditionFailed")
			if got := mpGet(t, c.Client, bucket, "k"); !bytes.Equal(got, part) {
				t.Errorf("a refused conditional delete removed the object")
			}
			if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), IfMatch: done.ETag}); err != nil {
				t.Fatalf("DeleteObject If-Match with the current ETag: %v", err)
			}
			_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
			if httpStatus(err) != 404 {
				t.Errorf("HeadObject after a conditional delete: %v, want 404", err)
			}
		})
	}

	t.Run("raw-if-none-match-etag", func(t *testing.T) {
		// S3 accepts only "*" in If-None-Match on writes.
		c := g.sdk(sdkModes[0])
		bucket := mpBucket(t, c, "condraw")
		req := g.rawRequest(http.MethodPut, "/"+bucket+"/k", "", v1)
		req.Header.Set("If-None-Match", "*")
		if resp, b := g.do(req, v1, true); resp.StatusCode != 200 {
			t.Fatalf("PUT If-None-Match *: %d %s", resp.StatusCode, b)
		}
		req = g.rawRequest(http.MethodPut, "/"+bucket+"/k", "", v2)
		req.Header.Set("If-None-Match", "*")
		resp, b := g.do(req, v2, true)
		wantXMLError(t, "PUT If-None-Match * again", resp, b, 412, "PreconditionFailed")
	})
}

// TestConformanceConditionalRace races 32 creators of one key with
// If-None-Match: * (acceptance 4): exactly one wins, every other one gets
// 412 (or 409), and the object holds the winner's bytes.
func TestConformanceConditionalRace(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := mpBucket(t, c, "race")
	const n = 32
	// bodies are the first round's, next the If-Match round's: all
	// distinct, so every successful write changes the ETag.
	bodies, next := make([][]byte, n), make([][]byte, n)
	for i := range n {
		bodies[i] = mpData(64<<10, byte(100+i))
		next[i] = mpData(64<<10, byte(200+i))
	}

	// race runs one write per body concurrently and returns the index of
	// the single winner.
	race := func(t *testing.T, what string, write func(i int) (etag string, err error)) (int, string) {
		t.Helper()
		var wg sync.WaitGroup
		etags := make([]string, n)
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				etags[i], errs[i] = write(i)
			})
		}
		close(start)
		wg.Wait()
		winner, winners := -1, 0
		for i, err := range errs {
			switch {
			case err == nil:
				winner = i
				winners++
			case apiCode(err) == "PreconditionFailed" && httpStatus(err) == 412,
				apiCode(err) == "ConditionalRequestConflict" && httpStatus(err) == 409:
			default:
				t.Errorf("%s #%d: %v, want success, 412 PreconditionFailed or 409 ConditionalRequestConflict", what, i, err)
			}
		}
		if winners != 1 {
			t.Fatalf("%s: %d writers succeeded, want exactly 1", what, winners)
		}
		return winner, etags[winner]
	}
	check := func(t *testing.T, key string, want []byte, etag string) {
		t.Helper()
		out, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("GetObject: %v", err)
		}
		b, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("stored object is not the winner's bytes (%d bytes, %v)", len(b), err)
		}
		if aws.ToString(out.ETag) != etag {
			t.Errorf("stored ETag %s, winner's %s", aws.ToString(out.ETag), etag)
		}
	}

	t.Run("put-if-none-match", func(t *testing.T) {
		w, etag := race(t, "PutObject If-None-Match *", func(i int) (string, error) {
			out, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("contended"),
				Body: bytes.NewReader(bodies[i]), IfNoneMatch: aws.String("*")})
			if err != nil {
				return "", err
			}
			return aws.ToString(out.ETag), nil
		})
		if etag != mpMD5(bodies[w]) {
			t.Errorf("winner's ETag %s, want %s", etag, mpMD5(bodies[w]))
		}
		check(t, "contended", bodies[w], etag)

		// Then everybody replaces exactly that version with If-Match.
		w, etag = race(t, "PutObject If-Match", func(i int) (string, error) {
			out, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("contended"),
				Body: bytes.NewReader(next[i]), IfMatch: aws.String(etag)})
			if err != nil {
				return "", err
			}
			return aws.ToString(out.ETag), nil
		})
		check(t, "contended", next[w], etag)
	})

	t.Run("complete-if-none-match", func(t *testing.T) {
		ids := make([]string, n)
		parts := make([]*s3.UploadPartOutput, n)
		for i := range n {
			ids[i] = mpCreate(t, c, bucket, "contended-mp")
			parts[i] = mpPart(t, c, bucket, "contended-mp", ids[i], 1, bodies[i])
		}
		w, etag := race(t, "CompleteMultipartUpload If-None-Match *", func(i int) (string, error) {
			in := mpCompleteInput(bucket, "contended-mp", ids[i], mpCompleted(parts[i]))
			in.IfNoneMatch = aws.String("*")
			out, err := c.CompleteMultipartUpload(t.Context(), in)
			if err != nil {
				return "", err
			}
			return aws.ToString(out.ETag), nil
		})
		if etag != mpETag(bodies[w]) {
			t.Errorf("winner's ETag %s, want %s", etag, mpETag(bodies[w]))
		}
		check(t, "contended-mp", bodies[w], etag)
	})

	if _, staging := partFiles(t, g.Root); len(staging) != 0 {
		t.Errorf("refused writes left staging files: %q", staging)
	}
}

// TestConformanceUploadManager uploads 64 MiB with the SDK's upload
// manager (concurrent parts, default CRC32 composite checksums) and
// downloads it back with the download manager.
func TestConformanceUploadManager(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := mpBucket(t, c, "manager")
	data := mpData(64*mib, 61)
	const partSize = 8 * mib
	up := manager.NewUploader(c, func(u *manager.Uploader) {
		u.PartSize = partSize
		u.Concurrency = 4
		u.LeavePartsOnError = false
	})
	out, err := up.Upload(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("big/object.bin"), Body: bytes.NewReader(data)})
	if err != nil {
		t.Fatalf("Upload: %v", err)
	}
	parts := mpSplit(data, partSize)
	if want := mpETag(parts...); aws.ToString(out.ETag) != want {
		t.Errorf("Upload: ETag %s, want %s", aws.ToString(out.ETag), want)
	}
	if out.UploadID == "" || len(out.CompletedParts) != len(parts) {
		t.Errorf("Upload: upload id %q, %d completed parts, want %d", out.UploadID, len(out.CompletedParts), len(parts))
	}
	if want := mpComposite(types.ChecksumAlgorithmCrc32, parts...); aws.ToString(out.ChecksumCRC32) != want {
		t.Errorf("Upload: CRC32 %q, want composite %q", aws.ToString(out.ChecksumCRC32), want)
	}
	head, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("big/object.bin")})
	if err != nil {
		t.Fatalf("HeadObject: %v", err)
	}
	if head.PartsCount != nil || aws.ToInt64(head.ContentLength) != int64(len(data)) {
		t.Errorf("HeadObject: parts count sent %v, %d bytes; want none and %d", head.PartsCount != nil, aws.ToInt64(head.ContentLength), len(data))
	}
	head, err = c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("big/object.bin"), PartNumber: aws.Int32(1)})
	if err != nil {
		t.Fatalf("HeadObject partNumber 1: %v", err)
	}
	if aws.ToInt32(head.PartsCount) != int32(len(parts)) || aws.ToInt64(head.ContentLength) != partSize {
		t.Errorf("HeadObject partNumber 1: %d parts, %d bytes", aws.ToInt32(head.PartsCount), aws.ToInt64(head.ContentLength))
	}

	buf := manager.NewWriteAtBuffer(make([]byte, 0, len(data)))
	down := manager.NewDownloader(c, func(d *manager.Downloader) {
		d.PartSize = partSize
		d.Concurrency = 4
	})
	n, err := down.Download(t.Context(), buf, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("big/object.bin")})
	if err != nil {
		t.Fatalf("Download: %v", err)
	}
	if n != int64(len(data)) || !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("Download: %d bytes, not byte-for-byte the %d uploaded", n, len(data))
	}
	if ups, _, _ := mpUploads(t, c, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)}); len(ups) != 0 {
		t.Errorf("uploads left after the manager finished: %q", ups)
	}
	if parts, _ := partFiles(t, g.Root); len(parts) != 0 {
		t.Errorf("part files left after completion: %q", parts)
	}
}

// TestConformanceMinioLargePut stores a 64 MiB stream with minio-go, of
// unknown size (multipart from a plain reader) and of known size
// (parallel multipart from a ReaderAt), and reads both back.
func TestConformanceMinioLargePut(t *testing.T) {
	g := startGateway(t)
	data := mpData(64*mib, 71)
	const partSize = 16 * mib
	for _, tc := range []struct {
		name     string
		trailers bool
		size     int64
		body     func() io.Reader
	}{
		{"unknown-size-trailers", true, -1, func() io.Reader { return struct{ io.Reader }{bytes.NewReader(data)} }},
		{"known-size", false, int64(len(data)), func() io.Reader { return bytes.NewReader(data) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			mc := g.minio(tc.trailers)
			bucket := uniqueBucket("minio-large")
			if err := mc.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
				t.Fatalf("MakeBucket: %v", err)
			}
			info, err := mc.PutObject(ctx, bucket, "stream.bin", tc.body(), tc.size, minio.PutObjectOptions{PartSize: partSize, ContentType: "application/x-stream"})
			if err != nil {
				t.Fatalf("PutObject: %v", err)
			}
			want := mpETag(mpSplit(data, partSize)...)
			if info.Size != int64(len(data)) || `"`+info.ETag+`"` != want {
				t.Errorf("PutObject: size %d ETag %s, want %d %s", info.Size, info.ETag, len(data), want)
			}
			obj, err := mc.GetObject(ctx, bucket, "stream.bin", minio.GetObjectOptions{})
			if err != nil {
				t.Fatalf("GetObject: %v", err)
			}
			defer obj.Close()
			b, err := io.ReadAll(obj)
			if err != nil || !bytes.Equal(b, data) {
				t.Errorf("GetObject: %d bytes (%v), not byte-for-byte the %d uploaded", len(b), err, len(data))
			}
			st, err := mc.StatObject(ctx, bucket, "stream.bin", minio.StatObjectOptions{})
			if err != nil || st.ContentType != "application/x-stream" || `"`+st.ETag+`"` != want {
				t.Errorf("StatObject: %v type %q ETag %s", err, st.ContentType, st.ETag)
			}
		})
	}
}

// TestConformanceMultipartCleanup checks that aborted and completed
// uploads leave no part files in the state directory (acceptance 5; the
// expiry sweep is covered in pkg/object).
func TestConformanceMultipartCleanup(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := mpBucket(t, c, "cleanup")
	p1, p2 := mpData(5*mib, 81), mpData(1000, 82)

	aborted := mpCreate(t, c, bucket, "a")
	mpPart(t, c, bucket, "a", aborted, 1, p1)
	mpPart(t, c, bucket, "a", aborted, 2, p2)
	kept := mpCreate(t, c, bucket, "b")
	mpPart(t, c, bucket, "b", kept, 7, p2)
	parts, _ := partFiles(t, g.Root)
	slices.Sort(parts)
	// Parts 1 and 2 of "a" are of a regular size: they share the upload's
	// region file. The lone small part of "b" fixes no part size and has a
	// file of its own.
	want := []string{filepath.Join(aborted, "region"), filepath.Join(kept, "7")}
	slices.Sort(want)
	if !slices.Equal(parts, want) {
		t.Fatalf("part files while uploading: %q, want %q", parts, want)
	}

	if _, err := c.AbortMultipartUpload(t.Context(), &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("a"), UploadId: aws.String(aborted)}); err != nil {
		t.Fatalf("AbortMultipartUpload: %v", err)
	}
	parts, staging := partFiles(t, g.Root)
	if !slices.Equal(parts, []string{filepath.Join(kept, "7")}) || len(staging) != 0 {
		t.Errorf("after abort: part files %q staging %q, want only %s/7", parts, staging, kept)
	}
	if _, err := os.Stat(filepath.Join(g.Root, ".objectgateway", "multipart", aborted)); !os.IsNotExist(err) {
		t.Errorf("aborted upload's directory still exists (%v)", err)
	}
	ups, _, _ := mpUploads(t, c, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	if !slices.Equal(ups, []string{"b " + kept}) {
		t.Errorf("ListMultipartUploads after abort: %q", ups)
	}

	// Completion removes the parts, including those it did not use.
	o := mpPart(t, c, bucket, "b", kept, 8, p2)
	if _, err := c.CompleteMultipartUpload(t.Context(), mpCompleteInput(bucket, "b", kept, []types.CompletedPart{mpCP(8, aws.ToString(o.ETag))})); err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}
	parts, staging = partFiles(t, g.Root)
	if len(parts) != 0 || len(staging) != 0 {
		t.Errorf("after completion: part files %q staging %q, want none", parts, staging)
	}
	if ups, _, _ := mpUploads(t, c, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)}); len(ups) != 0 {
		t.Errorf("ListMultipartUploads after completion: %q", ups)
	}

	// A refused part leaves nothing either.
	id := mpCreate(t, c, bucket, "c")
	_, err := c.UploadPart(t.Context(), mpPartInput(bucket, "c", id, 1, p2, func(in *s3.UploadPartInput) {
		in.ChecksumCRC32 = aws.String(mpFull(types.ChecksumAlgorithmCrc32, p1))
	}))
	wantCode(t, "UploadPart with a wrong CRC32", err, 400, "BadDigest")
	if parts, staging := partFiles(t, g.Root); len(parts) != 0 || len(staging) != 0 {
		t.Errorf("after a refused part: part files %q staging %q, want none", parts, staging)
	}
}

// TestConformanceCopyMultipartSource pins what CopyObject makes of an
// object uploaded in parts (docs/compatibility.md): as S3, a new
// single-part object with the content's MD5 as ETag, whose checksum is the
// full-object checksum of the source's COMPOSITE one's algorithm, or of
// the algorithm the copy asks for; encrypted or not, and onto itself.
func TestConformanceCopyMultipartSource(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := mpBucket(t, c, "mpcopysrc")
	p1, p2 := mpData(5*mib, 95), mpData(10, 96)
	whole := slicesConcat(p1, p2)
	alg := types.ChecksumAlgorithmSha256
	id := mpCreate(t, c, bucket, "src", func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm = alg })
	withAlg := func(in *s3.UploadPartInput) { in.ChecksumAlgorithm = alg }
	parts := mpCompleted(mpPart(t, c, bucket, "src", id, 1, p1, withAlg), mpPart(t, c, bucket, "src", id, 2, p2, withAlg))
	if _, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, "src", id, parts)); err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}

	// copied copies src to key and returns its ETag, its parts count
	// (HEAD ?partNumber=1) and its checksums in checksum mode.
	copied := func(key string, mod func(*s3.CopyObjectInput)) (etag string, parts int32, head *s3.HeadObjectOutput) {
		t.Helper()
		in := &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), CopySource: aws.String(bucket + "/src")}
		if mod != nil {
			mod(in)
		}
		out, err := c.CopyObject(ctx, in)
		if err != nil {
			t.Fatalf("CopyObject(%s): %v", key, err)
		}
		if got := mpGet(t, c, bucket, key); !bytes.Equal(got, whole) {
			t.Fatalf("copy %s: %d bytes differ from the source's %d", key, len(got), len(whole))
		}
		hp, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), PartNumber: aws.Int32(1)})
		if err != nil {
			t.Fatalf("HeadObject(%s, partNumber 1): %v", key, err)
		}
		head, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatalf("HeadObject(%s): %v", key, err)
		}
		return aws.ToString(out.CopyObjectResult.ETag), aws.ToInt32(hp.PartsCount), head
	}

	sha := mpFull(alg, whole)
	for _, tc := range []struct {
		key string
		mod func(*s3.CopyObjectInput)
	}{
		{"plain", nil},
		{"sse", func(in *s3.CopyObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 }},
	} {
		etag, n, head := copied(tc.key, tc.mod)
		if etag != mpMD5(whole) || n != 0 || aws.ToString(head.ChecksumSHA256) != sha || head.ChecksumType != types.ChecksumTypeFullObject {
			t.Errorf("copy %s: ETag %s, %d parts, SHA256 %q %s; want %s, none, %q FULL_OBJECT",
				tc.key, etag, n, aws.ToString(head.ChecksumSHA256), head.ChecksumType, mpMD5(whole), sha)
		}
	}
	// A copy that asks for another algorithm carries that checksum alone.
	crc := types.ChecksumAlgorithmCrc64nvme
	etag, n, head := copied("rehash", func(in *s3.CopyObjectInput) { in.ChecksumAlgorithm = crc })
	if etag != mpMD5(whole) || n != 0 || aws.ToString(head.ChecksumCRC64NVME) != mpFull(crc, whole) || head.ChecksumSHA256 != nil || head.ChecksumType != types.ChecksumTypeFullObject {
		t.Errorf("copy asking for CRC64NVME: ETag %s, %d parts, CRC64NVME %q SHA256 %q %s; want %s, none, %q alone FULL_OBJECT",
			etag, n, aws.ToString(head.ChecksumCRC64NVME), aws.ToString(head.ChecksumSHA256), head.ChecksumType, mpMD5(whole), mpFull(crc, whole))
	}
	// Copied onto itself with new metadata (the way to give an object
	// uploaded in parts an MD5 ETag), in a bucket without versioning.
	src2 := mpCreate(t, c, bucket, "self", func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm = alg })
	parts2 := mpCompleted(mpPart(t, c, bucket, "self", src2, 1, p1, withAlg), mpPart(t, c, bucket, "self", src2, 2, p2, withAlg))
	if _, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(bucket, "self", src2, parts2)); err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}
	// Onto itself changing nothing it is S3's InvalidRequest, whatever
	// the object's parts and checksum: the copy would only rewrite it.
	unchanged := func(bucket string) {
		t.Helper()
		_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("self"), CopySource: aws.String(bucket + "/self")})
		if apiCode(err) != "InvalidRequest" {
			t.Errorf("CopyObject onto itself changing nothing, in %s: %v, want InvalidRequest", bucket, err)
		}
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("self")})
		if err != nil {
			t.Fatalf("HeadObject(%s/self): %v", bucket, err)
		}
		if aws.ToString(h.ETag) != mpETag(p1, p2) {
			t.Errorf("refused copy onto itself in %s: ETag %s, want the source's %s", bucket, aws.ToString(h.ETag), mpETag(p1, p2))
		}
	}
	unchanged(bucket)
	vbucket := mpBucket(t, c, "mpcopyself")
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(vbucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatalf("PutBucketVersioning: %v", err)
	}
	vid := mpCreate(t, c, vbucket, "self", func(in *s3.CreateMultipartUploadInput) { in.ChecksumAlgorithm = alg })
	vparts := mpCompleted(mpPart(t, c, vbucket, "self", vid, 1, p1, withAlg), mpPart(t, c, vbucket, "self", vid, 2, p2, withAlg))
	if _, err := c.CompleteMultipartUpload(ctx, mpCompleteInput(vbucket, "self", vid, vparts)); err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}
	unchanged(vbucket)
	vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(vbucket)})
	if err != nil {
		t.Fatalf("ListObjectVersions: %v", err)
	}
	if len(vs.Versions) != 1 {
		t.Errorf("refused copy onto itself in a versioned bucket: %d versions, want 1", len(vs.Versions))
	}

	out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("self"), CopySource: aws.String(bucket + "/self"),
		MetadataDirective: types.MetadataDirectiveReplace, Metadata: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatalf("CopyObject onto itself: %v", err)
	}
	if got := aws.ToString(out.CopyObjectResult.ETag); got != mpMD5(whole) {
		t.Errorf("copy onto itself: ETag %s, want %s", got, mpMD5(whole))
	}
	if got := mpGet(t, c, bucket, "self"); !bytes.Equal(got, whole) {
		t.Errorf("copy onto itself: %d bytes differ from the source's %d", len(got), len(whole))
	}
}
