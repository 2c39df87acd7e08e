package api_test

import (
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestAuthzCopySourceVersion checks that a user copying from a bucket it
// does not own may name a version of the source only where everyone may
// read versions: a policy's s3:GetObject publishes the current objects,
// not what was overwritten or deleted (S3 asks s3:GetObjectVersion of a
// copy whose source names a version), so CopyObject and UploadPartCopy of
// an old version into the copier's own bucket are AccessDenied, as the
// GET of it by id is, while the old version's own ACL public-read
// (PutObjectAcl with versionId) lets both through.
func TestAuthzCopySourceVersion(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("alicev")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	setVersioning(t, g.alice, bucket, types.BucketVersioningStatusEnabled)
	old := aws.ToString(putBytes(t, g.alice, bucket, "k", []byte("overwritten secret")).VersionId)
	putBytes(t, g.alice, bucket, "k", []byte("published"))
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(publicReadPolicy(bucket, "", false))}); err != nil {
		t.Fatal(err)
	}
	own := uniqueBucket("bobv")
	if _, err := g.bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(own)}); err != nil {
		t.Fatal(err)
	}
	up, err := g.bob.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(own), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	src := aws.String(bucket + "/k?versionId=" + old)

	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(old)})
	wantCode(t, "bob GET of an old version under an s3:GetObject policy", err, 403, "AccessDenied")
	_, err = g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("stolen"), CopySource: src})
	wantCode(t, "bob CopyObject of an old version under an s3:GetObject policy", err, 403, "AccessDenied")
	_, err = g.bob.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(own), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), CopySource: src})
	wantCode(t, "bob UploadPartCopy of an old version under an s3:GetObject policy", err, 403, "AccessDenied")
	if _, err := g.root.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(own), Key: aws.String("stolen")}); httpStatus(err) != 404 {
		t.Errorf("a denied copy left an object behind: %v", err)
	}
	// The current version is what the policy publishes.
	if _, err := g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("current"), CopySource: aws.String(bucket + "/k")}); err != nil {
		t.Errorf("bob CopyObject of the current version under an s3:GetObject policy: %v", err)
	}

	if _, err := g.alice.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(old), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("old"), CopySource: src}); err != nil {
		t.Fatalf("bob CopyObject of an old version whose ACL is public-read: %v", err)
	}
	out, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(own), Key: aws.String("old")})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(body) != "overwritten secret" {
		t.Errorf("copy of the old version whose ACL is public-read: %q", body)
	}
}
