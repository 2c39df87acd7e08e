package api_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The harness of the tests of answers that start before the work ends
// (a slow CompleteMultipartUpload or CopyObject): a client that gives up
// when headers take longer than slowReadTimeout, and a hook that holds
// the layer's work for longer than that.

// slowReadTimeout is how long the client waits for response headers. Two
// seconds leave a loaded machine room to send the early 200, which goes
// out after 1 ms (the tests' CompleteKeepAlive).
const slowReadTimeout = 2 * time.Second

// heldWork holds a layer operation, through the layer's test hook
// (object.Options.OnAssemble, OnCopy), while hold is set.
type heldWork struct {
	mu      sync.Mutex
	hold    chan struct{}
	entered chan struct{}
}

func newHeldWork() *heldWork { return &heldWork{entered: make(chan struct{}, 1)} }

// wait is the layer's hook: it reports the work's arrival and blocks
// until the hold is released, when one is set.
func (hw *heldWork) wait() {
	hw.mu.Lock()
	h := hw.hold
	hw.mu.Unlock()
	if h != nil {
		hw.entered <- struct{}{}
		<-h
	}
}

// headerSignal is a RoundTripper that reports on headers the status of
// the responses to the requests match selects, when their headers arrive.
type headerSignal struct {
	next    http.RoundTripper
	match   func(*http.Request) bool
	headers chan int
}

func (h headerSignal) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if err == nil && h.match(r) {
		h.headers <- resp.StatusCode
	}
	return resp, err
}

// slowClient is an aws-sdk-go-v2 client of g without retries whose
// requests fail when headers take longer than slowReadTimeout; headers
// reports the status of each response match selects.
func slowClient(t *testing.T, g *gateway, match func(*http.Request) bool) (c *s3.Client, headers <-chan int) {
	tr := g.secure.Client().Transport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = slowReadTimeout
	t.Cleanup(tr.CloseIdleConnections)
	ch := make(chan int, 4)
	c = s3.NewFromConfig(aws.Config{
		Region:      g.Region,
		Credentials: awscreds.NewStaticCredentialsProvider(g.AccessKey, g.SecretKey, ""),
		HTTPClient:  &http.Client{Transport: headerSignal{next: tr, match: match, headers: ch}},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(g.TLS)
		o.UsePathStyle = true
	})
	return c, ch
}

// callHeld runs call, a request whose work the layer holds, until after
// the client's header timeout: the answer's headers must arrive first,
// with 200. Before the work is released, meanwhile (if set) runs. It
// returns call's error.
func (hw *heldWork) callHeld(t *testing.T, headers <-chan int, call func() error, meanwhile func()) error {
	t.Helper()
	h := make(chan struct{})
	hw.mu.Lock()
	hw.hold = h
	hw.mu.Unlock()
	defer func() {
		hw.mu.Lock()
		hw.hold = nil
		hw.mu.Unlock()
	}()
	answers := make(chan error, 1)
	go func() { answers <- call() }()
	<-hw.entered
	select {
	case status := <-headers:
		if status != http.StatusOK {
			t.Errorf("status %d while the work is held, want 200", status)
		}
	case err := <-answers:
		close(h)
		t.Fatalf("the request ended while its work was held: %v", err)
	}
	// Headers arrived; the client would have given up on them by now.
	<-time.After(2 * slowReadTimeout)
	if meanwhile != nil {
		meanwhile()
	}
	close(h)
	return <-answers
}
