package api_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// blockingBody is a request body that blocks until released, holding its
// request in flight.
type blockingBody struct {
	started chan struct{}
	release chan struct{}
	sent    bool
}

func (b *blockingBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		close(b.started)
		<-b.release
		p[0] = ' '
		return 1, nil
	}
	return 0, io.EOF
}

// TestMaxInFlightAnswersSlowDown holds one request in flight on a gateway
// that serves one at a time and checks that the next one is refused with
// 503 SlowDown instead of queueing, and that the slot is freed afterwards.
func TestMaxInFlightAnswersSlowDown(t *testing.T) {
	g := startGateway(t, func(o *api.Options) { o.MaxInFlight = 1 })
	body := &blockingBody{started: make(chan struct{}), release: make(chan struct{})}
	// CreateBucket reads its (optional) body before anything else, so the
	// request stays in flight until the body is released.
	req, err := http.NewRequest(http.MethodPut, g.Endpoint+"/slow-bucket", io.NopCloser(body))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = 1
	// With Expect: 100-continue the client reads the body only once the
	// server's handler asks for it, so body.started means the request is
	// being served, not merely being sent.
	req.Header.Set("Expect", "100-continue")
	sigv4.SignRequest(req, g.AccessKey, g.SecretKey, g.Region, time.Now(), "UNSIGNED-PAYLOAD")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			done <- nil
			return
		}
		done <- resp
	}()
	<-body.started
	resp, b := g.do(g.rawRequest(http.MethodGet, "/", "", nil), nil, true)
	wantXMLError(t, "second request while one is in flight", resp, b, http.StatusServiceUnavailable, "SlowDown")
	close(body.release)
	if r := <-done; r != nil {
		r.Body.Close()
		if r.StatusCode != http.StatusOK {
			t.Errorf("the request in flight: %d", r.StatusCode)
		}
	}
	resp, b = g.do(g.rawRequest(http.MethodGet, "/", "", nil), nil, true)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "ListAllMyBucketsResult") {
		t.Fatalf("after the slot is free: %d %s", resp.StatusCode, b)
	}
}
