package api_test

import (
	"bytes"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestConformanceMaxPartsZero: ListParts with max-parts=0 and
// GetObjectAttributes with x-amz-max-parts: 0 answer an empty page that
// says it is complete, as ListObjects answers max-keys=0 and
// ListMultipartUploads max-uploads=0. They answered IsTruncated true with
// NextPartNumberMarker 0: the next page was the same, and a paginator
// asking 0 parts at a time looped for ever.
func TestConformanceMaxPartsZero(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("maxparts0")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp"),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for i, size := range []int{5 << 20, 10} {
		n := int32(i + 1)
		p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
			PartNumber: aws.Int32(n), Body: bytes.NewReader(make([]byte, size)), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(n), ETag: p.ETag, ChecksumCRC32: p.ChecksumCRC32})
	}
	lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId, MaxParts: aws.Int32(0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(lp.Parts) != 0 || aws.ToBool(lp.IsTruncated) || aws.ToInt32(lp.MaxParts) != 0 {
		t.Errorf("ListParts max-parts=0: %d parts, IsTruncated %v, MaxParts %d; want an empty complete page", len(lp.Parts), aws.ToBool(lp.IsTruncated), aws.ToInt32(lp.MaxParts))
	}
	if lp, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId, MaxParts: aws.Int32(1)}); err != nil {
		t.Fatal(err)
	} else if len(lp.Parts) != 1 || !aws.ToBool(lp.IsTruncated) || aws.ToString(lp.NextPartNumberMarker) != "1" {
		t.Errorf("ListParts max-parts=1: %d parts, IsTruncated %v, next %q; want 1, true, 1", len(lp.Parts), aws.ToBool(lp.IsTruncated), aws.ToString(lp.NextPartNumberMarker))
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}); err != nil {
		t.Fatal(err)
	}
	at, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String("mp"), MaxParts: aws.Int32(0),
		ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesObjectParts}})
	if err != nil {
		t.Fatal(err)
	}
	if op := at.ObjectParts; op == nil || len(op.Parts) != 0 || aws.ToBool(op.IsTruncated) || aws.ToInt32(op.TotalPartsCount) != 2 {
		t.Errorf("GetObjectAttributes max-parts 0: %+v; want no parts, not truncated, 2 in all", op)
	}
	at, err = c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String("mp"), MaxParts: aws.Int32(1),
		ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesObjectParts}})
	if err != nil {
		t.Fatal(err)
	}
	if op := at.ObjectParts; op == nil || len(op.Parts) != 1 || !aws.ToBool(op.IsTruncated) || aws.ToString(op.NextPartNumberMarker) != "1" {
		t.Errorf("GetObjectAttributes max-parts 1: %+v; want one part, truncated, next 1", op)
	}
}
