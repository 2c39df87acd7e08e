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
	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// copySignal is a RoundTripper that reports on a channel when the
// response headers of a CopyObject have arrived.
type copySignal struct {
	next    http.RoundTripper
	headers chan int
}

func (h copySignal) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if err == nil && r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != "" {
		h.headers <- resp.StatusCode
	}
	return resp, err
}

// TestCopyObjectSlowAnswersEarly holds a CopyObject's copy for longer than
// the client waits for response headers (its read timeout): the gateway
// answers 200 at once and keeps the connection alive with spaces, as S3
// does, and aws-sdk-go-v2 gets the CopyObjectResult once the copy is
// released. A copy that fails after the 200 (its destination's
// If-None-Match no longer holds) sends the Error document in the body,
// and the SDK reports that error.
func TestCopyObjectSlowAnswersEarly(t *testing.T) {
	var mu sync.Mutex
	var hold chan struct{}
	copying := make(chan struct{}, 1)
	g := startGatewayLayer(t, func(o *object.Options) {
		o.OnCopy = func() {
			mu.Lock()
			h := hold
			mu.Unlock()
			if h != nil {
				copying <- struct{}{}
				<-h
			}
		}
	}, func(o *api.Options) { o.CompleteKeepAlive = time.Millisecond })
	// The client gives up when headers take longer than this: the copy is
	// held for longer. Two seconds leave a loaded machine room to send the
	// early 200, which goes out after 1 ms.
	const readTimeout = 2 * time.Second
	tr := g.secure.Client().Transport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = readTimeout
	t.Cleanup(tr.CloseIdleConnections)
	headers := make(chan int, 4)
	c := s3.NewFromConfig(aws.Config{
		Region:      g.Region,
		Credentials: awscreds.NewStaticCredentialsProvider(g.AccessKey, g.SecretKey, ""),
		HTTPClient:  &http.Client{Transport: copySignal{next: tr, headers: headers}},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(g.TLS)
		o.UsePathStyle = true
	})
	ctx := context.Background()
	bucket := mpBucket(t, c, "slowcopy")
	src := mpData(1<<20, 7)
	putBytes(t, c, bucket, "src", src)

	// copyHeld copies src to key while the copy is held, until after the
	// client's header timeout; before releasing it, it runs meanwhile.
	copyHeld := func(t *testing.T, key string, mod func(*s3.CopyObjectInput), meanwhile func()) (*s3.CopyObjectOutput, error) {
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
			out *s3.CopyObjectOutput
			err error
		}
		answers := make(chan answer, 1)
		in := &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), CopySource: aws.String(bucket + "/src")}
		if mod != nil {
			mod(in)
		}
		go func() {
			out, err := c.CopyObject(ctx, in)
			answers <- answer{out, err}
		}()
		<-copying
		select {
		case status := <-headers:
			if status != http.StatusOK {
				t.Errorf("status %d while the copy is held, want 200", status)
			}
		case a := <-answers:
			close(h)
			t.Fatalf("the copy ended while it was held: %v", a.err)
		}
		// Headers arrived; the client would have given up on them by now.
		<-time.After(2 * readTimeout)
		if meanwhile != nil {
			meanwhile()
		}
		close(h)
		a := <-answers
		return a.out, a.err
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
