package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// TestCopyObjectSlowAnswersEarly holds a CopyObject's copy for longer than
// the client waits for response headers (its read timeout): the gateway
// answers 200 at once and keeps the connection alive with spaces, as S3
// does, and aws-sdk-go-v2 gets the CopyObjectResult once the copy is
// released. A copy that fails after the 200 (its destination's
// If-None-Match no longer holds) sends the Error document in the body,
// and the SDK reports that error.
func TestCopyObjectSlowAnswersEarly(t *testing.T) {
	hw := newHeldWork()
	g := startGatewayLayer(t, func(o *object.Options) { o.OnCopy = hw.wait },
		func(o *api.Options) { o.CompleteKeepAlive = time.Millisecond })
	c, headers := slowClient(t, g, func(r *http.Request) bool {
		return r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != ""
	})
	ctx := context.Background()
	bucket := mpBucket(t, c, "slowcopy")
	src := mpData(1<<20, 7)
	putBytes(t, c, bucket, "src", src)

	// copyHeld copies src to key while the copy is held (callHeld),
	// running meanwhile before releasing it.
	copyHeld := func(t *testing.T, key string, mod func(*s3.CopyObjectInput), meanwhile func()) (*s3.CopyObjectOutput, error) {
		in := &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), CopySource: aws.String(bucket + "/src")}
		if mod != nil {
			mod(in)
		}
		var out *s3.CopyObjectOutput
		err := hw.callHeld(t, headers, func() (err error) {
			out, err = c.CopyObject(ctx, in)
			return err
		}, meanwhile)
		return out, err
	}

	t.Run("result", func(t *testing.T) {
		out, err := copyHeld(t, "copy", nil, nil)
		if err != nil {
			t.Fatalf("CopyObject: %v", err)
		}
		if got, want := aws.ToString(out.CopyObjectResult.ETag), mpMD5(src); got != want {
			t.Errorf("CopyObjectResult ETag %s, want %s", got, want)
		}
		if got := mpGet(t, c, bucket, "copy"); string(got) != string(src) {
			t.Errorf("copy: %d bytes differ from the source's %d", len(got), len(src))
		}
	})

	t.Run("error in the body", func(t *testing.T) {
		_, err := copyHeld(t, "taken", func(in *s3.CopyObjectInput) {
			in.IfNoneMatch = aws.String("*")
		}, func() {
			putBytes(t, c, bucket, "taken", []byte("first"))
		})
		if code := apiCode(err); code != "PreconditionFailed" {
			t.Errorf("CopyObject: %v (code %q), want PreconditionFailed", err, code)
		}
		if got := mpGet(t, c, bucket, "taken"); string(got) != "first" {
			t.Errorf("taken holds %q after the refused copy, want first", got)
		}
	})
}
