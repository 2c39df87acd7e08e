package api_test

// This file attacks the budgets of requests in flight (api/admit.go) and
// the limits on a browser POST upload's fields, which are read before the
// upload is authenticated: unauthenticated clients that hold their
// requests open must never take a slot from an authenticated one.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// postBoundary is the multipart boundary of the attackers' forms.
const postBoundary = "attackboundary"

// postPreamble opens a form with a key field whose value is never
// finished: the gateway is left reading the fields.
const postPreamble = "--" + postBoundary + "\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nattack-"

// postRest finishes a form opened by postPreamble with an unsigned file
// part, which the gateway refuses with AccessDenied.
const postRest = "\r\n--" + postBoundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\nattack bytes\r\n--" + postBoundary + "--\r\n"

// slowPost is a browser POST upload whose body the test writes through
// a pipe.
type slowPost struct {
	body *io.PipeWriter
	// admitted is closed once the gateway read the preamble: with
	// Expect: 100-continue the client sends the body only after the
	// gateway's handler asks for it, so the request then holds a slot.
	admitted chan struct{}
	// done receives the answer (or nil if the request failed).
	done chan *reply
}

// startSlowPost sends a POST upload to bucket whose body is postPreamble
// and then whatever the test writes to p.body.
func startSlowPost(t *testing.T, g *gateway, client *http.Client, bucket string) *slowPost {
	t.Helper()
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, g.Endpoint+"/"+bucket, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+postBoundary)
	req.Header.Set("Expect", "100-continue")
	p := &slowPost{body: pw, admitted: make(chan struct{}), done: make(chan *reply, 1)}
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			p.done <- nil
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		p.done <- &reply{resp, b}
	}()
	go func() {
		// The write returns once the client has read the preamble from
		// the pipe, which it does only after 100 Continue; a refused
		// request's body is closed unread and the write fails.
		if _, err := io.WriteString(pw, postPreamble); err == nil {
			close(p.admitted)
		}
	}()
	return p
}

// slowPostClient is a client for slow POSTs: one connection each, and a
// wait for 100 Continue far beyond the test's run.
func slowPostClient(t *testing.T) *http.Client {
	tr := &http.Transport{ExpectContinueTimeout: 10 * time.Minute, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: requestIDCheck{t: t, next: tr}}
}

// TestSlotsAnonymousCannotStarveAuthenticated is the slot-exhaustion
// attack: more unauthenticated browser POSTs than both budgets together
// hold their fields open. Exactly MaxAnonymousInFlight of them are
// served, the others are refused with 503 SlowDown, as are other
// requests without valid credentials; meanwhile MaxInFlight concurrent
// authenticated clients PUT, GET, LIST and DELETE without a single 503.
// Once the attackers finish their forms, unsigned, they are refused and
// nothing stored has changed.
func TestSlotsAnonymousCannotStarveAuthenticated(t *testing.T) {
	const maxInFlight, maxAnonymous = 8, 4
	h := startHostile(t, func(o *api.Options) {
		o.MaxInFlight = maxInFlight
		o.MaxAnonymousInFlight = maxAnonymous
	})
	h.want(h.send(http.MethodPut, "/work", "", nil), 200)
	before := h.snapshot()

	client := slowPostClient(t)
	var held []*slowPost
	refused := 0
	for range maxInFlight + maxAnonymous + 4 {
		p := startSlowPost(t, h.gateway, client, h.bucket)
		select {
		case <-p.admitted:
			held = append(held, p)
		case r := <-p.done:
			if r == nil {
				t.Fatal("a refused POST got no answer")
			}
			wantXMLError(t, "POST beyond the anonymous budget", r.Response, r.body, http.StatusServiceUnavailable, "SlowDown")
			refused++
		}
	}
	defer func() {
		for _, p := range held {
			p.body.CloseWithError(errors.New("test over"))
		}
	}()
	if len(held) != maxAnonymous || refused != maxInFlight+4 {
		t.Fatalf("%d POSTs held, %d refused; want %d held (MaxAnonymousInFlight) and %d refused", len(held), refused, maxAnonymous, maxInFlight+4)
	}

	// Requests without valid credentials share the full budget.
	resp, b := h.anon(http.MethodGet, "/"+h.bucket+"/"+victimKey, "", nil, nil)
	wantXMLError(t, "anonymous GET while the budget is full", resp, b, http.StatusServiceUnavailable, "SlowDown")
	resp, b = h.anon(http.MethodOptions, "/"+h.bucket+"/"+victimKey, "", map[string]string{"Origin": "https://app.test", "Access-Control-Request-Method": "GET"}, nil)
	wantXMLError(t, "CORS preflight while the budget is full", resp, b, http.StatusServiceUnavailable, "SlowDown")
	req := h.rawRequest(http.MethodGet, "/"+h.bucket, "", nil)
	// pkg/sigv4 signs without the SDK signer's cache of signing keys,
	// which is keyed by access key id and would keep the wrong key.
	sigv4.SignRequest(req, h.AccessKey, "not the secret", h.Region, time.Now(), "UNSIGNED-PAYLOAD")
	resp, b = h.do(req, nil, false)
	wantXMLError(t, "wrong signature while the budget is full", resp, b, http.StatusServiceUnavailable, "SlowDown")

	// MaxInFlight authenticated workers at once, each with its own keys:
	// every request must be served.
	c := h.sdk(sdkModes[0])
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, maxInFlight)
	for w := range maxInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				key := fmt.Sprintf("w%d-r%d", w, round)
				body := "bytes of " + key
				if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("work"), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
					errs <- fmt.Errorf("PutObject %s: %w", key, err)
					return
				}
				out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("work"), Key: aws.String(key)})
				if err != nil {
					errs <- fmt.Errorf("GetObject %s: %w", key, err)
					return
				}
				got, err := io.ReadAll(out.Body)
				out.Body.Close()
				if err != nil || string(got) != body {
					errs <- fmt.Errorf("GetObject %s: %q, %v", key, got, err)
					return
				}
				if _, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(h.bucket)}); err != nil {
					errs <- fmt.Errorf("ListObjectsV2: %w", err)
					return
				}
				if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("work"), Key: aws.String(key)}); err != nil {
					errs <- fmt.Errorf("DeleteObject %s: %w", key, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// The attackers finish their forms, unsigned, and are refused. Each
	// answer is flushed only after the handler has returned its slot, so
	// the budget is free once all are in.
	for _, p := range held {
		go io.WriteString(p.body, postRest) //nolint:errcheck // a failed write shows as the answer.
	}
	for _, p := range held {
		r := <-p.done
		if r == nil {
			t.Fatal("a held POST got no answer")
		}
		wantXMLError(t, "unsigned POST once finished", r.Response, r.body, http.StatusForbidden, "AccessDenied")
	}
	resp, b = h.anon(http.MethodGet, "/"+h.bucket+"/"+victimKey, "", nil, nil)
	wantXMLError(t, "anonymous GET once the attackers are gone", resp, b, http.StatusForbidden, "AccessDenied")
	h.untouched(before)
}

// TestSlotsAuthenticatedDoNotStarveAnonymous checks the other side: with
// every authenticated slot held, requests without credentials are still
// answered from their own budget.
func TestSlotsAuthenticatedDoNotStarveAnonymous(t *testing.T) {
	g := startGateway(t, func(o *api.Options) { o.MaxInFlight = 1; o.MaxAnonymousInFlight = 1 })
	body := &blockingBody{started: make(chan struct{}), release: make(chan struct{})}
	req, err := http.NewRequest(http.MethodPut, g.Endpoint+"/slow-bucket", io.NopCloser(body))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = 1
	req.Header.Set("Expect", "100-continue")
	sigv4.SignRequest(req, g.AccessKey, g.SecretKey, g.Region, time.Now(), "UNSIGNED-PAYLOAD")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 10 * time.Minute}}
	done := make(chan int, 1)
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-body.started
	resp, b := g.do(g.rawRequest(http.MethodGet, "/", "", nil), nil, true)
	wantXMLError(t, "signed request while the authenticated slot is held", resp, b, http.StatusServiceUnavailable, "SlowDown")
	resp, b = g.anon(http.MethodGet, "/slow-bucket/k", "", nil, nil)
	wantXMLError(t, "anonymous request while the authenticated slot is held", resp, b, http.StatusForbidden, "AccessDenied")
	close(body.release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("the request in flight: %d", code)
	}
}

// TestPostFieldTimeout trickles a browser POST upload's key field, one
// byte at a time, well within the body timeout between bytes: the field
// deadline, which counts from the request's arrival, still ends it with
// 400 RequestTimeout, and nothing is stored.
func TestPostFieldTimeout(t *testing.T) {
	h := startHostile(t, func(o *api.Options) {
		o.BodyTimeout = 10 * time.Minute
		o.PostFieldTimeout = 200 * time.Millisecond
	})
	before := h.snapshot()
	p := startSlowPost(t, h.gateway, slowPostClient(t), h.bucket)
	// On a loaded machine the deadline may pass before the form's first
	// bytes are even read: the answer is then the same, and there is
	// nothing to trickle.
	select {
	case <-p.admitted:
	case r := <-p.done:
		p.body.CloseWithError(errors.New("test over"))
		if r == nil {
			t.Fatal("the POST got no answer")
		}
		wantXMLError(t, "POST whose fields did not arrive in time", r.Response, r.body, http.StatusBadRequest, "RequestTimeout")
		h.untouched(before)
		return
	}
	// One byte every 10 ms, for at most a minute: the gateway must end the
	// request long before. The trickle is the attack, not a wait: the
	// answer ends it.
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for range 6000 {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := p.body.Write([]byte("a")); err != nil {
				return
			}
		}
		p.body.CloseWithError(errors.New("the trickle was never cut off"))
	}()
	r := <-p.done
	close(stop)
	p.body.CloseWithError(errors.New("test over"))
	if r == nil {
		t.Fatal("the trickling POST got no answer")
	}
	wantXMLError(t, "trickling POST fields", r.Response, r.body, http.StatusBadRequest, "RequestTimeout")
	h.untouched(before)
}

// TestPostFieldLimit sends POST uploads whose fields before the file are
// larger than the gateway reads before authentication: one large field,
// and many small ones. Both are refused with MaxPostPreDataLengthExceeded
// as S3 does, and nothing is stored. A signed form with a 20 KiB policy,
// S3's own limit, is still taken.
func TestPostFieldLimit(t *testing.T) {
	h := startHostile(t)
	before := h.snapshot()
	form := func(fields ...postField) []byte {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.SetBoundary(postBoundary)
		for _, f := range fields {
			mw.WriteField(f.name, f.value)
		}
		fw, _ := mw.CreateFormFile("file", "x")
		fw.Write([]byte("attack bytes"))
		mw.Close()
		return buf.Bytes()
	}
	var many []postField
	for i := range 2000 {
		many = append(many, postField{fmt.Sprintf("x-amz-meta-f%d", i), "v"})
	}
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"one 40 KiB field", form(postField{"key", "attack"}, postField{"policy", strings.Repeat("A", 40<<10)})},
		{"2000 small fields", form(append([]postField{{"key", "attack"}}, many...)...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := h.rawRequest(http.MethodPost, "/"+h.bucket, "", c.body)
			req.Header.Set("Content-Type", "multipart/form-data; boundary="+postBoundary)
			resp, b := h.do(req, c.body, false)
			wantXMLError(t, c.name, resp, b, http.StatusBadRequest, "MaxPostPreDataLengthExceeded")
			if !strings.Contains(string(b), "<MaxPostPreDataLengthBytes>") {
				t.Errorf("%s: the error does not name the limit: %s", c.name, b)
			}
		})
	}
	h.untouched(before)

	now := time.Now()
	conds := []any{map[string]string{"bucket": h.bucket}, []any{"starts-with", "$key", "big-policy/"}}
	for len(conds) < 720 {
		conds = append(conds, map[string]string{"bucket": h.bucket})
	}
	fields := append([]postField{{"key", "big-policy/obj"}}, h.signPost(postPolicy{expiration: now.Add(time.Hour), conditions: conds}, h.AccessKey, h.SecretKey, now)...)
	if n := len(fields[1].value); n < 18<<10 || n > 20<<10 {
		t.Fatalf("the policy is %d bytes, want just under 20 KiB", n)
	}
	resp, b := h.postUpload(h.bucket, fields, "obj", []byte("policy at S3's limit"))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST with a 20 KiB policy: %d %s", resp.StatusCode, b)
	}
}
