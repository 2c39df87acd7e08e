package api_test

import (
	"bytes"
	"errors"
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
