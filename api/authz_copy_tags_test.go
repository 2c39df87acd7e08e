package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// This file tests what a CopyObject needs to copy its source's tags. With
// the tagging directive COPY (the default) and a source that has tags, the
// caller needs s3:GetObjectTagging on the source and s3:PutObjectTagging
// on the destination, as AWS's knowledge center states it for S3 ("If
// you're copying objects that have object tags, then your IAM identity
// must have s3:GetObjectTagging and s3:PutObjectTagging permissions");
// else 403 AccessDenied and no copy. A source without tags needs neither,
// nor does REPLACE, whose x-amz-tagging needs s3:PutObjectTagging as
// PutObject's does.

// copyTags copies bucket/src to bucket/dst as c, with the tagging
// directive and x-amz-tagging given ("" for none).
func copyTags(ctx context.Context, c *s3.Client, bucket, src, dst string, directive types.TaggingDirective, tagging string) error {
	in := &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(dst), CopySource: aws.String(bucket + "/" + src), TaggingDirective: directive}
	if tagging != "" {
		in.Tagging = aws.String(tagging)
	}
	_, err := c.CopyObject(ctx, in)
	return err
}

// TestAuthzCopyObjectTags: a user whose identity policy allows
// s3:GetObject and s3:PutObject only copies an object without tags, and
// one with tags under REPLACE without x-amz-tagging; a copy that would
// carry tags (the source's, or REPLACE's x-amz-tagging) is AccessDenied
// and leaves nothing behind. Each of s3:GetObjectTagging and
// s3:PutObjectTagging alone is not enough; both are. The source's
// s3:ExistingObjectTag keys are those of the record the copy reads.
func TestAuthzCopyObjectTags(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := g.sharedBucket(t, "plain")
	for key, tagging := range map[string]string{"tagged": "class=secret", "public": "class=public"} {
		if _, err := g.root.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(key), Tagging: aws.String(tagging)}); err != nil {
			t.Fatal(err)
		}
	}
	policy := func(actions string, extra string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":[` + actions + `],"Resource":"arn:aws:s3:::` + bucket + `/*"}` + extra + `]}`
	}
	const getPut = `"s3:GetObject","s3:PutObject"`
	copier := g.identityUser(t, "AKIDCOPIER", policy(getPut, ""))
	gone := func(key string) {
		t.Helper()
		if _, err := g.root.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); httpStatus(err) != 404 {
			t.Errorf("a denied copy left %s behind: %v", key, err)
		}
	}

	wantCode(t, "s3:GetObject+s3:PutObject CopyObject of a tagged source", copyTags(ctx, copier, bucket, "tagged", "c1", "", ""), 403, "AccessDenied")
	wantCode(t, "s3:GetObject+s3:PutObject CopyObject COPY of a tagged source", copyTags(ctx, copier, bucket, "tagged", "c1", types.TaggingDirectiveCopy, ""), 403, "AccessDenied")
	gone("c1")
	if err := copyTags(ctx, copier, bucket, "plain", "c2", "", ""); err != nil {
		t.Errorf("s3:GetObject+s3:PutObject CopyObject of a source without tags: %v", err)
	} else if tags := tagsOf(t, g.root, bucket, "c2"); tags != "" {
		t.Errorf("copy of a source without tags has tags %v", tags)
	}
	if err := copyTags(ctx, copier, bucket, "tagged", "c3", types.TaggingDirectiveReplace, ""); err != nil {
		t.Errorf("s3:GetObject+s3:PutObject CopyObject REPLACE of a tagged source without x-amz-tagging: %v", err)
	} else if tags := tagsOf(t, g.root, bucket, "c3"); tags != "" {
		t.Errorf("REPLACE copy without x-amz-tagging has tags %v", tags)
	}
	wantCode(t, "s3:GetObject+s3:PutObject CopyObject REPLACE with x-amz-tagging", copyTags(ctx, copier, bucket, "plain", "c4", types.TaggingDirectiveReplace, "a=b"), 403, "AccessDenied")
	gone("c4")

	reader := g.identityUser(t, "AKIDTAGREADER", policy(getPut+`,"s3:GetObjectTagging"`, ""))
	wantCode(t, "CopyObject of a tagged source without s3:PutObjectTagging", copyTags(ctx, reader, bucket, "tagged", "c6", "", ""), 403, "AccessDenied")
	writer := g.identityUser(t, "AKIDTAGWRITER", policy(getPut+`,"s3:PutObjectTagging"`, ""))
	wantCode(t, "CopyObject of a tagged source without s3:GetObjectTagging", copyTags(ctx, writer, bucket, "tagged", "c6", "", ""), 403, "AccessDenied")
	gone("c6")
	if err := copyTags(ctx, writer, bucket, "plain", "c7", types.TaggingDirectiveReplace, "a=b"); err != nil {
		t.Errorf("CopyObject REPLACE with x-amz-tagging and s3:PutObjectTagging: %v", err)
	}
	both := g.identityUser(t, "AKIDTAGBOTH", policy(getPut+`,"s3:GetObjectTagging","s3:PutObjectTagging"`, ""))
	if err := copyTags(ctx, both, bucket, "tagged", "c8", "", ""); err != nil {
		t.Errorf("CopyObject of a tagged source with both tagging actions: %v", err)
	} else if tags := tagsOf(t, g.root, bucket, "c8"); tags != "class=secret" {
		t.Errorf("copy of a tagged source has tags %v", tags)
	}

	// s3:GetObjectTagging only of objects tagged class=public: the
	// source's own tags decide.
	public := g.identityUser(t, "AKIDTAGPUBLIC", policy(getPut+`,"s3:PutObjectTagging"`,
		`,{"Effect":"Allow","Action":"s3:GetObjectTagging","Resource":"arn:aws:s3:::`+bucket+`/*","Condition":{"StringEquals":{"s3:ExistingObjectTag/class":"public"}}}`))
	if err := copyTags(ctx, public, bucket, "public", "c9", "", ""); err != nil {
		t.Errorf("CopyObject of a source whose tags the condition allows reading: %v", err)
	}
	wantCode(t, "CopyObject of a source whose tags the condition keeps", copyTags(ctx, public, bucket, "tagged", "c10", "", ""), 403, "AccessDenied")
	gone("c10")

	// UploadPartCopy copies no tags.
	up, err := copier.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := copier.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), CopySource: aws.String(bucket + "/tagged")}); err != nil {
		t.Errorf("s3:GetObject+s3:PutObject UploadPartCopy of a tagged source: %v", err)
	}
}

// TestAuthzCopyObjectTagsOtherBucket: a grant to read an object is not one
// to read its tags. bob, whom alice's bucket policy lets read her
// objects (s3:GetObject), copies her object without tags into his own
// bucket, but not her tagged one until the policy also grants
// s3:GetObjectTagging: the copy would show him its tags. A source
// version needs s3:GetObjectVersionTagging, as its read needs
// s3:GetObjectVersion. The owner of both buckets needs no grant.
func TestAuthzCopyObjectTagsOtherBucket(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("alicetags")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	setVersioning(t, g.alice, bucket, types.BucketVersioningStatusEnabled)
	mustPut(t, g.alice, bucket, "plain", "no tags")
	v, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("tagged"), Body: strings.NewReader("secret"), Tagging: aws.String("class=secret")})
	if err != nil {
		t.Fatal(err)
	}
	setPolicy := func(actions string) {
		t.Helper()
		doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/` + g.bobKey + `"},"Action":[` + actions + `],"Resource":"arn:aws:s3:::` + bucket + `/*"}]}`
		if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
			t.Fatal(err)
		}
	}
	setPolicy(`"s3:GetObject","s3:GetObjectVersion"`)
	own := uniqueBucket("bobtags")
	if _, err := g.bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(own)}); err != nil {
		t.Fatal(err)
	}
	copyFrom := func(src, dst string) error {
		_, err := g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String(dst), CopySource: aws.String(bucket + "/" + src)})
		return err
	}
	if err := copyFrom("plain", "plain"); err != nil {
		t.Errorf("bob copies alice's object without tags: %v", err)
	}
	wantCode(t, "bob copies alice's tagged object with s3:GetObject only", copyFrom("tagged", "tagged"), 403, "AccessDenied")
	if _, err := g.bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(own), Key: aws.String("tagged")}); httpStatus(err) != 404 {
		t.Errorf("a denied copy left an object behind: %v", err)
	}
	if _, err := g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("replaced"), CopySource: aws.String(bucket + "/tagged"),
		TaggingDirective: types.TaggingDirectiveReplace}); err != nil {
		t.Errorf("bob copies alice's tagged object with REPLACE: %v", err)
	}

	setPolicy(`"s3:GetObject","s3:GetObjectVersion","s3:GetObjectTagging"`)
	if err := copyFrom("tagged", "tagged"); err != nil {
		t.Errorf("bob copies alice's tagged object with s3:GetObjectTagging: %v", err)
	} else if tags := tagsOf(t, g.bob, own, "tagged"); tags != "class=secret" {
		t.Errorf("bob's copy has tags %v", tags)
	}
	version := "tagged?versionId=" + aws.ToString(v.VersionId)
	wantCode(t, "bob copies a version of alice's tagged object without s3:GetObjectVersionTagging", copyFrom(version, "version"), 403, "AccessDenied")
	setPolicy(`"s3:GetObject","s3:GetObjectVersion","s3:GetObjectTagging","s3:GetObjectVersionTagging"`)
	if err := copyFrom(version, "version"); err != nil {
		t.Errorf("bob copies a version of alice's tagged object with s3:GetObjectVersionTagging: %v", err)
	}

	// The tags asked about are those of the version the copy reads: once
	// the current version has none, copying it needs no tag permission,
	// and copying the tagged version before it still does.
	mustPut(t, g.alice, bucket, "tagged", "no tags now")
	setPolicy(`"s3:GetObject","s3:GetObjectVersion"`)
	if err := copyFrom("tagged", "current"); err != nil {
		t.Errorf("bob copies the untagged current version: %v", err)
	}
	wantCode(t, "bob copies the tagged version under an untagged current one", copyFrom(version, "older"), 403, "AccessDenied")

	// The owner copies her tagged object with no grant.
	if _, err := g.alice.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("mine"), CopySource: aws.String(bucket + "/" + version)}); err != nil {
		t.Errorf("alice copies her tagged object: %v", err)
	} else if tags := tagsOf(t, g.alice, bucket, "mine"); tags != "class=secret" {
		t.Errorf("alice's copy has tags %v", tags)
	}
}
