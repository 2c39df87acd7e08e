package api_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// headerSignal is a RoundTripper that reports on a channel when the
// response headers of a CompleteMultipartUpload have arrived.
type headerSignal struct {
	next    http.RoundTripper
	headers chan int
}

func (h headerSignal) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost && r.URL.Query().Has("uploadId") {
		h.headers <- resp.StatusCode
	}
	return resp, err
}

// TestCompleteMultipartUploadSlowAnswersEarly holds a completion's
// assembly for longer than the client waits for response headers (its
// read timeout): the gateway answers 200 at once and keeps the
// connection alive with spaces, and aws-sdk-go-v2 gets the result, with
// the right ETag, once the assembly is released. A completion that fails
// after the 200 (its If-None-Match no longer holds) sends the Error
// document in the body, and the SDK reports that error.
func TestCompleteMultipartUploadSlowAnswersEarly(t *testing.T) {
	var mu sync.Mutex
	var hold chan struct{}
	assembling := make(chan struct{}, 1)
	g := startGatewayLayer(t, func(o *object.Options) {
		o.OnAssemble = func() {
			mu.Lock()
			h := hold
			mu.Unlock()
			if h != nil {
				assembling <- struct{}{}
				<-h
			}
		}
	}, func(o *api.Options) { o.CompleteKeepAlive = time.Millisecond })
	// The client gives up when headers take longer than this: the
	// assembly is held for longer. Two seconds leave a loaded machine
	// room to send the early 200, which goes out after 1 ms.
	const readTimeout = 2 * time.Second
	tr := g.secure.Client().Transport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = readTimeout
	t.Cleanup(tr.CloseIdleConnections)
	headers := make(chan int, 4)
	c := s3.NewFromConfig(aws.Config{
		Region:      g.Region,
		Credentials: awscreds.NewStaticCredentialsProvider(g.AccessKey, g.SecretKey, ""),
		HTTPClient:  &http.Client{Transport: headerSignal{next: tr, headers: headers}},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(g.TLS)
		o.UsePathStyle = true
	})
	ctx := context.Background()
	bucket := mpBucket(t, c, "slow")

	// complete uploads two parts of key and completes them while the
	// assembly is held, until after the client's header timeout; before
	// releasing it, it runs meanwhile.
	complete := func(t *testing.T, key string, mod func(*s3.CompleteMultipartUploadInput), meanwhile func(), create ...func(*s3.CreateMultipartUploadInput)) (*s3.CompleteMultipartUploadOutput, string, error) {
		id := mpCreate(t, c, bucket, key, create...)
		a, b := mpData(5<<20, 1), mpData(1000, 2)
		o1, o2 := mpPart(t, c, bucket, key, id, 1, a), mpPart(t, c, bucket, key, id, 2, b)
		h := make(chan struct{})
		mu.Lock()
		hold = h
		mu.Unlock()
		defer func() {
			mu.Lock()
			hold = nil
			mu.Unlock()
		}()
		type answer struct {
			out *s3.CompleteMultipartUploadOutput
			err error
		}
		answers := make(chan answer, 1)
		in := mpCompleteInput(bucket, key, id, mpCompleted(o1, o2))
		if mod != nil {
			mod(in)
		}
		go func() {
			out, err := c.CompleteMultipartUpload(ctx, in)
			answers <- answer{out, err}
		}()
		<-assembling
		select {
		case status := <-headers:
			if status != http.StatusOK {
				t.Errorf("status %d while the assembly is held, want 200", status)
			}
		case a := <-answers:
			close(h)
			t.Fatalf("the completion ended while its assembly was held: %v", a.err)
		}
		// Headers arrived; the client would have given up on them by now.
		<-time.After(2 * readTimeout)
		if meanwhile != nil {
			meanwhile()
		}
		close(h)
		a2 := <-answers
		return a2.out, mpETag(a, b), a2.err
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
