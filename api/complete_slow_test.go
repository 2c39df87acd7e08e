package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// TestCompleteMultipartUploadSlowAnswersEarly holds a completion's
// assembly for longer than the client waits for response headers (its
// read timeout): the gateway answers 200 at once and keeps the
// connection alive with spaces, and aws-sdk-go-v2 gets the result, with
// the right ETag, once the assembly is released. A completion that fails
// after the 200 (its If-None-Match no longer holds) sends the Error
// document in the body, and the SDK reports that error.
func TestCompleteMultipartUploadSlowAnswersEarly(t *testing.T) {
	hw := newHeldWork()
	g := startGatewayLayer(t, func(o *object.Options) { o.OnAssemble = hw.wait },
		func(o *api.Options) { o.CompleteKeepAlive = time.Millisecond })
	c, headers := slowClient(t, g, func(r *http.Request) bool {
		return r.Method == http.MethodPost && r.URL.Query().Has("uploadId")
	})
	ctx := context.Background()
	bucket := mpBucket(t, c, "slow")

	// complete uploads two parts of key and completes them while the
	// assembly is held (callHeld), running meanwhile before releasing it.
	complete := func(t *testing.T, key string, mod func(*s3.CompleteMultipartUploadInput), meanwhile func(), create ...func(*s3.CreateMultipartUploadInput)) (*s3.CompleteMultipartUploadOutput, string, error) {
		id := mpCreate(t, c, bucket, key, create...)
		a, b := mpData(5<<20, 1), mpData(1000, 2)
		o1, o2 := mpPart(t, c, bucket, key, id, 1, a), mpPart(t, c, bucket, key, id, 2, b)
		in := mpCompleteInput(bucket, key, id, mpCompleted(o1, o2))
		if mod != nil {
			mod(in)
		}
		var out *s3.CompleteMultipartUploadOutput
		err := hw.callHeld(t, headers, func() (err error) {
			out, err = c.CompleteMultipartUpload(ctx, in)
			return err
		}, meanwhile)
		return out, mpETag(a, b), err
	}

	t.Run("result", func(t *testing.T) {
		out, etag, err := complete(t, "big", nil, nil)
		if err != nil {
			t.Fatalf("CompleteMultipartUpload: %v", err)
		}
		if aws.ToString(out.ETag) != etag {
			t.Errorf("ETag %s, want %s", aws.ToString(out.ETag), etag)
		}
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("big")})
		if err != nil || aws.ToString(head.ETag) != etag {
			t.Errorf("HeadObject: %v, ETag %s, want %s", err, aws.ToString(head.ETag), etag)
		}
	})

	t.Run("encrypted", func(t *testing.T) {
		// The headers go out before the object exists: they are the
		// upload's encryption, which the object then has.
		out, _, err := complete(t, "sealed", nil, nil, func(in *s3.CreateMultipartUploadInput) {
			in.ServerSideEncryption = types.ServerSideEncryptionAes256
		})
		if err != nil {
			t.Fatalf("CompleteMultipartUpload: %v", err)
		}
		if out.ServerSideEncryption != types.ServerSideEncryptionAes256 {
			t.Errorf("early answer's x-amz-server-side-encryption %q, want AES256", out.ServerSideEncryption)
		}
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("sealed")})
		if err != nil || head.ServerSideEncryption != types.ServerSideEncryptionAes256 {
			t.Errorf("HeadObject: %v, x-amz-server-side-encryption %q, want AES256", err, head.ServerSideEncryption)
		}
	})

	t.Run("error in the body", func(t *testing.T) {
		_, _, err := complete(t, "taken", func(in *s3.CompleteMultipartUploadInput) {
			in.IfNoneMatch = aws.String("*")
		}, func() {
			if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("taken")}); err != nil {
				t.Errorf("PutObject: %v", err)
			}
		})
		if code := apiCode(err); code != "PreconditionFailed" {
			t.Errorf("CompleteMultipartUpload: %v (code %q), want PreconditionFailed", err, code)
		}
	})
}
