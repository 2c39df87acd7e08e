package api_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

func tagSet(kv ...string) []types.Tag {
	var out []types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

func tagsOf(t *testing.T, c *s3.Client, bucket, key string) string {
	t.Helper()
	out, err := c.GetObjectTagging(t.Context(), &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("GetObjectTagging(%s): %v", key, err)
	}
	var parts []string
	for _, tg := range out.TagSet {
		parts = append(parts, aws.ToString(tg.Key)+"="+aws.ToString(tg.Value))
	}
	return strings.Join(parts, "&")
}

// TestConformanceObjectTagging covers Put/Get/DeleteObjectTagging,
// x-amz-tagging on PutObject, CopyObject (COPY and REPLACE directives) and
// CreateMultipartUpload, x-amz-tagging-count, and S3's tag limits.
func TestConformanceObjectTagging(t *testing.T) {
	g := startGateway(t)
	for _, m := range sdkModes {
		t.Run(m.name, func(t *testing.T) {
			c := g.sdk(m)
			ctx := t.Context()
			bucket := uniqueBucket("tagging")
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatal(err)
			}
			put := func(key, tagging string) {
				t.Helper()
				in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("body of " + key)}
				if tagging != "" {
					in.Tagging = aws.String(tagging)
				}
				if _, err := c.PutObject(ctx, in); err != nil {
					t.Fatalf("PutObject(%s): %v", key, err)
				}
			}
			put("plain", "")
			if got := tagsOf(t, c, bucket, "plain"); got != "" {
				t.Fatalf("new object has tags %q", got)
			}
			put("tagged", "b=2&a=1&space=x%20y")
			if got := tagsOf(t, c, bucket, "tagged"); got != "a=1&b=2&space=x y" {
				t.Fatalf("tags from x-amz-tagging: %q", got)
			}
			head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("tagged")})
			if err != nil {
				t.Fatal(err)
			}
			get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("tagged")})
			if err != nil {
				t.Fatal(err)
			}
			get.Body.Close()
			if aws.ToInt32(get.TagCount) != 3 {
				t.Errorf("GetObject TagCount %d, want 3", aws.ToInt32(get.TagCount))
			}
			_ = head

			if _, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{
				Bucket: aws.String(bucket), Key: aws.String("plain"),
				Tagging: &types.Tagging{TagSet: tagSet("project", "og", "tier", "hot")},
			}); err != nil {
				t.Fatal(err)
			}
			if got := tagsOf(t, c, bucket, "plain"); got != "project=og&tier=hot" {
				t.Fatalf("after PutObjectTagging: %q", got)
			}
			if string(getBytes(t, c, bucket, "plain")) != "body of plain" {
				t.Fatal("tagging must not change the object's bytes")
			}

			// CopyObject keeps the source's tags by default and replaces
			// them with the REPLACE directive.
			src := bucket + "/tagged"
			if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("copy-keep"), CopySource: aws.String(src)}); err != nil {
				t.Fatal(err)
			}
			if got := tagsOf(t, c, bucket, "copy-keep"); got != "a=1&b=2&space=x y" {
				t.Fatalf("COPY directive tags: %q", got)
			}
			if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("copy-replace"), CopySource: aws.String(src),
				TaggingDirective: types.TaggingDirectiveReplace, Tagging: aws.String("new=tag"),
			}); err != nil {
				t.Fatal(err)
			}
			if got := tagsOf(t, c, bucket, "copy-replace"); got != "new=tag" {
				t.Fatalf("REPLACE directive tags: %q", got)
			}

			// Tags given at CreateMultipartUpload land on the object.
			mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp"), Tagging: aws.String("from=mpu")})
			if err != nil {
				t.Fatal(err)
			}
			part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: mp.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("only part")})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
				Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: mp.UploadId,
				MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag, ChecksumCRC32: part.ChecksumCRC32}}},
			}); err != nil {
				t.Fatal(err)
			}
			if got := tagsOf(t, c, bucket, "mp"); got != "from=mpu" {
				t.Fatalf("multipart object tags: %q", got)
			}

			if _, err := c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("plain")}); err != nil {
				t.Fatal(err)
			}
			if got := tagsOf(t, c, bucket, "plain"); got != "" {
				t.Fatalf("after DeleteObjectTagging: %q", got)
			}

			// S3's limits answer InvalidTag, and nothing changes.
			var eleven []string
			for i := 0; i < 11; i++ {
				eleven = append(eleven, fmt.Sprintf("k%d", i), "v")
			}
			for name, tags := range map[string][]types.Tag{
				"11 tags":        tagSet(eleven...),
				"129-char key":   tagSet(strings.Repeat("k", 129), "v"),
				"257-char value": tagSet("k", strings.Repeat("v", 257)),
				"duplicate keys": tagSet("k", "1", "k", "2"),
				"empty key":      tagSet("", "v"),
				"aws: prefix":    tagSet("aws:reserved", "v"),
			} {
				_, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("tagged"), Tagging: &types.Tagging{TagSet: tags}})
				wantCode(t, "PutObjectTagging "+name, err, 400, "InvalidTag")
			}
			_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("bad-header"), Body: strings.NewReader("x"), Tagging: aws.String(elevenHeader(eleven))})
			wantCode(t, "PutObject with 11 tags in x-amz-tagging", err, 400, "InvalidTag")
			if got := tagsOf(t, c, bucket, "tagged"); got != "a=1&b=2&space=x y" {
				t.Fatalf("rejected taggings changed the tags: %q", got)
			}
			_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("missing")})
			wantCode(t, "GetObjectTagging of a missing key", err, 404, "NoSuchKey")
		})
	}
}

// TestConformanceGetObjectAttributes covers GetObjectAttributes for a
// single-part and a multipart object, with ObjectParts paging, and a
// multipart object uploaded without a checksum, whose parts S3 does not list.
func TestConformanceGetObjectAttributes(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("attributes")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("single"), Body: strings.NewReader("twelve bytes"), ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
	if err != nil {
		t.Fatal(err)
	}
	all := []types.ObjectAttributes{types.ObjectAttributesEtag, types.ObjectAttributesChecksum, types.ObjectAttributesObjectParts, types.ObjectAttributesStorageClass, types.ObjectAttributesObjectSize}
	attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String("single"), ObjectAttributes: all})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(attrs.ETag) != strings.Trim(aws.ToString(put.ETag), `"`) || aws.ToInt64(attrs.ObjectSize) != 12 || attrs.StorageClass != types.StorageClassStandard {
		t.Fatalf("attributes %+v", attrs)
	}
	if attrs.Checksum == nil || aws.ToString(attrs.Checksum.ChecksumSHA256) != aws.ToString(put.ChecksumSHA256) {
		t.Fatalf("checksum attribute %+v, want SHA256 %s", attrs.Checksum, aws.ToString(put.ChecksumSHA256))
	}
	if attrs.ObjectParts != nil {
		t.Fatalf("a single-part object has no ObjectParts, got %+v", attrs.ObjectParts)
	}

	// A three-part object, listed two parts at a time.
	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("multi"), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	sizes := []int{5 << 20, 5 << 20, 1234}
	for i, n := range sizes {
		data := make([]byte, n)
		rand.Read(data)
		p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("multi"), UploadId: mp.UploadId, PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(data), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: p.ETag, ChecksumCRC32: p.ChecksumCRC32})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("multi"), UploadId: mp.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}); err != nil {
		t.Fatal(err)
	}
	var seen []int64
	var marker *string
	for page := 0; page < 3; page++ {
		attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String("multi"), ObjectAttributes: all, MaxParts: aws.Int32(2), PartNumberMarker: marker})
		if err != nil {
			t.Fatal(err)
		}
		op := attrs.ObjectParts
		if op == nil || aws.ToInt32(op.TotalPartsCount) != 3 {
			t.Fatalf("ObjectParts %+v", op)
		}
		for i, p := range op.Parts {
			seen = append(seen, aws.ToInt64(p.Size))
			if aws.ToString(p.ChecksumCRC32) != aws.ToString(parts[aws.ToInt32(p.PartNumber)-1].ChecksumCRC32) {
				t.Errorf("part %d checksum %s", i, aws.ToString(p.ChecksumCRC32))
			}
		}
		if !aws.ToBool(op.IsTruncated) {
			break
		}
		marker = op.NextPartNumberMarker
	}
	if len(seen) != 3 || seen[0] != 5<<20 || seen[2] != 1234 {
		t.Fatalf("part sizes over the pages: %v", seen)
	}

	// A multipart object uploaded without a checksum: S3 answers its
	// PartsCount but lists no parts, and so no paging fields either.
	plain := g.sdk(sdkModes[2]) // when-required: the SDK adds no part checksums
	mp, err = plain.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("plain")})
	if err != nil {
		t.Fatal(err)
	}
	parts = nil
	for i, n := range sizes {
		p, err := plain.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("plain"), UploadId: mp.UploadId, PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(make([]byte, n))})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: p.ETag})
	}
	if _, err := plain.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("plain"), UploadId: mp.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}); err != nil {
		t.Fatal(err)
	}
	for _, mk := range []*int32{nil, aws.Int32(1)} {
		attrs, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String("plain"), ObjectAttributes: all, MaxParts: mk})
		if err != nil {
			t.Fatal(err)
		}
		op := attrs.ObjectParts
		if op == nil || aws.ToInt32(op.TotalPartsCount) != 3 || len(op.Parts) != 0 || op.MaxParts != nil || op.IsTruncated != nil || op.PartNumberMarker != nil || op.NextPartNumberMarker != nil {
			t.Fatalf("ObjectParts of a multipart object without checksums (max-parts %v): %+v, want PartsCount 3 alone", mk, op)
		}
	}

	_, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String("missing"), ObjectAttributes: all})
	wantCode(t, "GetObjectAttributes of a missing key", err, 404, "NoSuchKey")
}

// elevenHeader encodes key/value pairs as an x-amz-tagging header.
func elevenHeader(kv []string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+"="+kv[i+1])
	}
	return strings.Join(parts, "&")
}

// TestConformanceTaggingDocuments covers the Tagging documents S3 refuses,
// on PutObjectTagging and PutBucketTagging alike: one without a TagSet
// (no tags, or Tags outside one) is MalformedXML, as S3 answers it
// (versity/versitygw#1231); the tag rules are InvalidTag. An empty TagSet
// is a set of no tags, and neither changes what is stored.
func TestConformanceTaggingDocuments(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeBucket(t, c, "tagdoc")
	b := aws.String(bucket)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("k"), Body: strings.NewReader("x"), Tagging: aws.String("a=1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: tagSet("a", "1")}}); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{"PutObjectTagging": "/" + bucket + "/k", "PutBucketTagging": "/" + bucket}
	for name, doc := range map[string]string{
		"empty root":           `<Tagging/>`,
		"namespaced, no set":   `<Tagging xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></Tagging>`,
		"Tag outside a TagSet": `<Tagging><Tag><Key>b</Key><Value>2</Value></Tag></Tagging>`,
	} {
		for op, path := range targets {
			req := g.rawRequest("PUT", path, "tagging", []byte(doc))
			resp, body := g.do(req, []byte(doc), true)
			wantXMLError(t, op+" "+name, resp, body, 400, "MalformedXML")
		}
	}
	if got := tagsOf(t, c, bucket, "k"); got != "a=1" {
		t.Errorf("object tags after refused documents: %q", got)
	}
	if got, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b}); err != nil || len(got.TagSet) != 1 {
		t.Errorf("bucket tags after refused documents: %v, %v", got, err)
	}

	for name, tags := range map[string][]types.Tag{
		"129-char key":   tagSet(strings.Repeat("k", 129), "v"),
		"257-char value": tagSet("k", strings.Repeat("v", 257)),
		"duplicate keys": tagSet("k", "1", "k", "2"),
		"empty key":      tagSet("", "v"),
	} {
		_, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: tags}})
		wantCode(t, "PutBucketTagging "+name, err, 400, "InvalidTag")
	}

	const emptySet = `<Tagging><TagSet></TagSet></Tagging>`
	for op, path := range targets {
		req := g.rawRequest("PUT", path, "tagging", []byte(emptySet))
		resp, body := g.do(req, []byte(emptySet), true)
		if resp.StatusCode/100 != 2 {
			t.Errorf("%s with an empty TagSet: %d %s", op, resp.StatusCode, body)
		}
	}
	if got := tagsOf(t, c, bucket, "k"); got != "" {
		t.Errorf("object tags after an empty TagSet: %q", got)
	}
	_, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b})
	wantCode(t, "GetBucketTagging after an empty TagSet", err, 404, "NoSuchTagSet")
}
