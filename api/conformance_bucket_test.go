package api_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"
)

// invalidBucketNames break S3's bucket naming rules
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html)
// in one way each. They are all addressable path-style.
var invalidBucketNames = []string{
	"ab",                    // shorter than 3
	strings.Repeat("a", 64), // longer than 63
	"Upper-case",            // upper-case letters
	"under_score",           // underscore
	"-leading-hyphen",       // must begin with a letter or digit
	"trailing-hyphen-",      // must end with a letter or digit
	"two..dots",             // adjacent periods
	"dash-.dot",             // a hyphen before a period
	"dot.-dash",             // a hyphen after a period
	".leading-dot",          // must begin with a letter or digit
	"192.168.5.4",           // formatted as an IP address
	"xn--punycode",          // reserved prefix xn--
	"bucket-s3alias",        // reserved suffix -s3alias
	"bucket--ol-s3",         // reserved suffix --ol-s3
}

func TestConformanceBucketsSDK(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("buckets")

			_, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
			var nf *types.NotFound
			if !errors.As(err, &nf) {
				t.Errorf("HeadBucket(missing): %v, want *types.NotFound", err)
			}
			wantCode(t, "HeadBucket(missing)", err, 404, "NotFound")

			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatalf("CreateBucket: %v", err)
			}
			_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
			var owned *types.BucketAlreadyOwnedByYou
			if !errors.As(err, &owned) {
				t.Errorf("CreateBucket(again): %v, want *types.BucketAlreadyOwnedByYou", err)
			}
			wantCode(t, "CreateBucket(again)", err, 409, "BucketAlreadyOwnedByYou")

			for _, name := range invalidBucketNames {
				_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
				wantCode(t, "CreateBucket("+name+")", err, 400, "InvalidBucketName")
			}

			if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Errorf("HeadBucket: %v", err)
			}

			lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
			if err != nil {
				t.Fatalf("ListBuckets: %v", err)
			}
			found := false
			for _, b := range lb.Buckets {
				if aws.ToString(b.Name) == bucket {
					found = true
					if b.CreationDate == nil || b.CreationDate.IsZero() {
						t.Errorf("ListBuckets: %s has no CreationDate", bucket)
					}
				}
				if slices.Contains(invalidBucketNames, aws.ToString(b.Name)) {
					t.Errorf("ListBuckets lists %q, whose creation failed", aws.ToString(b.Name))
				}
				if strings.HasPrefix(aws.ToString(b.Name), ".") {
					t.Errorf("ListBuckets lists %q: the state directory is not a bucket", aws.ToString(b.Name))
				}
			}
			if !found {
				t.Errorf("ListBuckets: %s not listed in %v", bucket, bucketNames(lb.Buckets))
			}
			if lb.Owner == nil || aws.ToString(lb.Owner.ID) == "" {
				t.Errorf("ListBuckets: no Owner")
			}

			// S3 reports buckets of us-east-1 with an empty LocationConstraint.
			loc, err := c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String(bucket)})
			if err != nil {
				t.Errorf("GetBucketLocation: %v", err)
			} else if loc.LocationConstraint != "" {
				t.Errorf("GetBucketLocation: %q, want \"\" for us-east-1", loc.LocationConstraint)
			}
			_, err = c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String(bucket + "-missing")})
			wantCode(t, "GetBucketLocation(missing)", err, 404, "NoSuchBucket")

			if _, err := c.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("dir/obj"), Body: bytes.NewReader([]byte("x")),
			}); err != nil {
				t.Fatalf("PutObject: %v", err)
			}
			_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
			wantCode(t, "DeleteBucket(non-empty)", err, 409, "BucketNotEmpty")

			if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("dir/obj")}); err != nil {
				t.Fatalf("DeleteObject: %v", err)
			}
			if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatalf("DeleteBucket: %v", err)
			}
			_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
			wantCode(t, "DeleteBucket(again)", err, 404, "NoSuchBucket")

			_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
			var nsb *types.NoSuchBucket
			if !errors.As(err, &nsb) {
				t.Errorf("ListObjectsV2(deleted bucket): %v, want *types.NoSuchBucket", err)
			}
			_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), Body: bytes.NewReader(nil)})
			wantCode(t, "PutObject(deleted bucket)", err, 404, "NoSuchBucket")
			_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
			wantCode(t, "HeadBucket(deleted)", err, 404, "NotFound")
		})
	}
}

func bucketNames(bs []types.Bucket) []string {
	var names []string
	for _, b := range bs {
		names = append(names, aws.ToString(b.Name))
	}
	return names
}

// TestConformanceBucketLocationConstraint creates a bucket with a
// CreateBucketConfiguration body on a gateway whose region is not
// us-east-1, as SDKs do for every region but us-east-1.
func TestConformanceBucketLocationConstraint(t *testing.T) {
	g := startGateway(t, withRegion("eu-west-1"))
	for _, m := range sdkModes {
		t.Run(m.name, func(t *testing.T) {
			c := g.sdk(m)
			ctx := t.Context()
			bucket := uniqueBucket("located")
			_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{
				Bucket: aws.String(bucket),
				CreateBucketConfiguration: &types.CreateBucketConfiguration{
					LocationConstraint: types.BucketLocationConstraintEuWest1,
				},
			})
			if err != nil {
				t.Fatalf("CreateBucket with LocationConstraint: %v", err)
			}
			loc, err := c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String(bucket)})
			if err != nil {
				t.Fatalf("GetBucketLocation: %v", err)
			}
			if loc.LocationConstraint != types.BucketLocationConstraintEuWest1 {
				t.Errorf("GetBucketLocation: %q, want eu-west-1", loc.LocationConstraint)
			}
		})
	}
	t.Run("minio", func(t *testing.T) {
		mc := g.minio(false)
		bucket := uniqueBucket("located")
		if err := mc.MakeBucket(t.Context(), bucket, minio.MakeBucketOptions{Region: "eu-west-1"}); err != nil {
			t.Fatalf("MakeBucket(eu-west-1): %v", err)
		}
	})
}

func TestConformanceBucketsMinio(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.minioClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("mbuckets")
			ok, err := c.BucketExists(ctx, bucket)
			if err != nil || ok {
				t.Errorf("BucketExists(missing) = %v, %v; want false, nil", ok, err)
			}
			if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
				t.Fatalf("MakeBucket: %v", err)
			}
			err = c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{})
			wantMinioCode(t, "MakeBucket(again)", err, 409, "BucketAlreadyOwnedByYou")
			ok, err = c.BucketExists(ctx, bucket)
			if err != nil || !ok {
				t.Errorf("BucketExists = %v, %v; want true, nil", ok, err)
			}
			bs, err := c.ListBuckets(ctx)
			if err != nil {
				t.Fatalf("ListBuckets: %v", err)
			}
			if !slices.ContainsFunc(bs, func(b minio.BucketInfo) bool { return b.Name == bucket }) {
				t.Errorf("ListBuckets: %s missing from %v", bucket, bs)
			}

			// A client without a configured region asks the gateway.
			noRegion := g.minio(false, func(o *minio.Options) { o.Region = "" })
			loc, err := noRegion.GetBucketLocation(ctx, bucket)
			if err != nil || loc != "us-east-1" {
				t.Errorf("GetBucketLocation = %q, %v; want us-east-1", loc, err)
			}

			if _, err := c.PutObject(ctx, bucket, "obj", bytes.NewReader([]byte("x")), 1, minio.PutObjectOptions{}); err != nil {
				t.Fatalf("PutObject: %v", err)
			}
			err = c.RemoveBucket(ctx, bucket)
			wantMinioCode(t, "RemoveBucket(non-empty)", err, 409, "BucketNotEmpty")
			if err := c.RemoveObject(ctx, bucket, "obj", minio.RemoveObjectOptions{}); err != nil {
				t.Fatalf("RemoveObject: %v", err)
			}
			if err := c.RemoveBucket(ctx, bucket); err != nil {
				t.Fatalf("RemoveBucket: %v", err)
			}
			err = c.RemoveBucket(ctx, bucket)
			wantMinioCode(t, "RemoveBucket(again)", err, 404, "NoSuchBucket")
		})
	}
}

// TestConformanceBucketTaggingAndUnsetConfigurations covers bucket tags
// (stored) and the bucket configurations the gateway cannot set: reading
// one answers what S3 answers for a bucket where it was never set,
// deleting it succeeds, setting it is NotImplemented.
func TestConformanceBucketTaggingAndUnsetConfigurations(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeBucket(t, c, "bcfg")
	b := aws.String(bucket)

	_, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b})
	wantCode(t, "GetBucketTagging(none)", err, 404, "NoSuchTagSet")
	tags := []types.Tag{{Key: aws.String("team"), Value: aws.String("storage")}, {Key: aws.String("env"), Value: aws.String("a b+c/d=e")}}
	if _, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: tags}}); err != nil {
		t.Fatalf("PutBucketTagging: %v", err)
	}
	got, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b})
	if err != nil {
		t.Fatalf("GetBucketTagging: %v", err)
	}
	var kvs []string
	for _, tg := range got.TagSet {
		kvs = append(kvs, aws.ToString(tg.Key)+"="+aws.ToString(tg.Value))
	}
	if want := []string{"env=a b+c/d=e", "team=storage"}; !slices.Equal(kvs, want) {
		t.Errorf("GetBucketTagging: %q, want %q", kvs, want)
	}
	many := make([]types.Tag, 51)
	for i := range many {
		many[i] = types.Tag{Key: aws.String(fmt.Sprintf("k%02d", i)), Value: aws.String("v")}
	}
	_, err = c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: many}})
	wantCode(t, "PutBucketTagging(51 tags)", err, 400, "InvalidTag")
	_, err = c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("aws:x"), Value: aws.String("v")}}}})
	wantCode(t, "PutBucketTagging(aws: prefix)", err, 400, "InvalidTag")
	if got, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b}); err != nil || len(got.TagSet) != 2 {
		t.Errorf("tags after refused PutBucketTagging: %v, %v", got, err)
	}
	if _, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: many[:50]}}); err != nil {
		t.Errorf("PutBucketTagging(50 tags): %v", err)
	}
	// 50 tags of the longest keys and values, in 4-byte letters: a body
	// of about 77 KB, which S3 takes.
	long := make([]types.Tag, 50)
	for i := range long {
		long[i] = types.Tag{Key: aws.String(fmt.Sprintf("%02d", i) + strings.Repeat("𝒜", 126)), Value: aws.String(strings.Repeat("𝒜", 256))}
	}
	if _, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b, Tagging: &types.Tagging{TagSet: long}}); err != nil {
		t.Errorf("PutBucketTagging(50 longest tags): %v", err)
	} else if got, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b}); err != nil {
		t.Errorf("GetBucketTagging after the longest tags: %v", err)
	} else if len(got.TagSet) != 50 || aws.ToString(got.TagSet[49].Value) != strings.Repeat("𝒜", 256) {
		t.Errorf("GetBucketTagging after the longest tags: %d tags", len(got.TagSet))
	}
	if _, err := c.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: b}); err != nil {
		t.Fatalf("DeleteBucketTagging: %v", err)
	}
	_, err = c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b})
	wantCode(t, "GetBucketTagging(after delete)", err, 404, "NoSuchTagSet")
	_, err = c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String("no-such-bucket-bcfg")})
	wantCode(t, "GetBucketTagging(no such bucket)", err, 404, "NoSuchBucket")

	_, err = c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
	wantCode(t, "GetBucketLifecycleConfiguration", err, 404, "NoSuchLifecycleConfiguration")
	_, err = c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: b})
	wantCode(t, "GetBucketEncryption", err, 404, "ServerSideEncryptionConfigurationNotFoundError")
	_, err = c.GetBucketWebsite(ctx, &s3.GetBucketWebsiteInput{Bucket: b})
	wantCode(t, "GetBucketWebsite", err, 404, "NoSuchWebsiteConfiguration")
	_, err = c.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: b})
	wantCode(t, "GetBucketReplication", err, 404, "ReplicationConfigurationNotFoundError")
	_, err = c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: b})
	wantCode(t, "GetObjectLockConfiguration", err, 404, "ObjectLockConfigurationNotFoundError")
	_, err = c.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: b})
	wantCode(t, "GetBucketOwnershipControls", err, 404, "OwnershipControlsNotFoundError")
	_, err = c.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: b})
	wantCode(t, "GetPublicAccessBlock", err, 404, "NoSuchPublicAccessBlockConfiguration")
	if out, err := c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: b}); err != nil || out.LoggingEnabled != nil {
		t.Errorf("GetBucketLogging = %+v, %v; want no logging", out, err)
	}
	if out, err := c.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: b}); err != nil ||
		len(out.TopicConfigurations)+len(out.QueueConfigurations)+len(out.LambdaFunctionConfigurations) != 0 {
		t.Errorf("GetBucketNotificationConfiguration = %+v, %v; want none", out, err)
	}
	if out, err := c.GetBucketAccelerateConfiguration(ctx, &s3.GetBucketAccelerateConfigurationInput{Bucket: b}); err != nil || out.Status != "" {
		t.Errorf("GetBucketAccelerateConfiguration = %+v, %v; want no status", out, err)
	}
	if out, err := c.GetBucketRequestPayment(ctx, &s3.GetBucketRequestPaymentInput{Bucket: b}); err != nil || out.Payer != types.PayerBucketOwner {
		t.Errorf("GetBucketRequestPayment = %+v, %v; want BucketOwner", out, err)
	}
	for name, del := range map[string]func() error{
		"DeleteBucketLifecycle": func() error {
			_, err := c.DeleteBucketLifecycle(ctx, &s3.DeleteBucketLifecycleInput{Bucket: b})
			return err
		},
		"DeleteBucketEncryption": func() error {
			_, err := c.DeleteBucketEncryption(ctx, &s3.DeleteBucketEncryptionInput{Bucket: b})
			return err
		},
		"DeleteBucketWebsite": func() error {
			_, err := c.DeleteBucketWebsite(ctx, &s3.DeleteBucketWebsiteInput{Bucket: b})
			return err
		},
		"DeletePublicAccessBlock": func() error {
			_, err := c.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: b})
			return err
		},
	} {
		if err := del(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err = c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: aws.String("no-such-bucket-bcfg")})
	wantCode(t, "GetBucketLifecycleConfiguration(no such bucket)", err, 404, "NoSuchBucket")
}
