package api_test

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// signalBody is a request body that closes started on its first Read and
// then serves what the test writes to it.
type signalBody struct {
	started chan struct{}
	once    sync.Once
	r       *io.PipeReader
	w       *io.PipeWriter
}

func newSignalBody() *signalBody {
	r, w := io.Pipe()
	return &signalBody{started: make(chan struct{}), r: r, w: w}
}

func (b *signalBody) Read(p []byte) (int, error) {
	b.once.Do(func() { close(b.started) })
	return b.r.Read(p)
}

// send writes doc as the rest of the body and ends it; the handler reads it
// in its own goroutine.
func (b *signalBody) send(doc string) {
	go func() {
		_, _ = b.w.Write([]byte(doc))
		b.w.Close()
	}()
}

// startDirect serves a request of unknown length (no Content-Length), with
// header's fields besides its signature, in a goroutine; the recorder is
// complete once done is closed.
func (g *gateway) startDirect(ctx context.Context, method, path, query string, body io.Reader, header http.Header) (rec *httptest.ResponseRecorder, done chan struct{}) {
	target := path + "?" + query
	req := httptest.NewRequest(method, g.Endpoint+target, body).WithContext(ctx)
	req.ContentLength = -1
	for k, v := range header {
		req.Header[k] = v
	}
	sigv4.SignRequest(req, g.AccessKey, g.SecretKey, g.Region, time.Now(), "UNSIGNED-PAYLOAD")
	rec, done = httptest.NewRecorder(), make(chan struct{})
	h := *g.handler.Load()
	go func() {
		defer close(done)
		h.ServeHTTP(rec, req)
	}()
	return rec, done
}

// TestDocumentBudget checks Options.DocumentMemory on a gateway whose
// budget holds one 4 MiB document: a DeleteObjects body of unknown length
// takes 2 MiB + 1 byte of it, so a second one waits, without reading its
// body, until the first request ends; a waiting request whose client goes
// away is answered SlowDown; and once both requests are done the whole
// budget is free again.
func TestDocumentBudget(t *testing.T) {
	g := startGateway(t, func(o *api.Options) { o.DocumentMemory = 1 })
	waiting := make(chan struct{}, 1)
	api.SetDocumentWaiting(*g.handler.Load(), func() { waiting <- struct{}{} })
	if rec := g.serveDirect(http.MethodPut, "/budget", "", nil); rec.Code != http.StatusOK {
		t.Fatalf("CreateBucket: %d %s", rec.Code, rec.Body)
	}
	doc := "<Delete><Object><Key>k</Key></Object></Delete>"
	digest := http.Header{"Content-Md5": {md5Base64([]byte(doc))}}

	first := newSignalBody()
	firstRec, firstDone := g.startDirect(context.Background(), http.MethodPost, "/budget", "delete", first, digest)
	// A request answered before its body is read fails the test rather
	// than leaving it waiting for a read that never comes.
	select {
	case <-first.started:
	case <-firstDone:
		t.Fatalf("DeleteObjects answered before its body was read: %d %s", firstRec.Code, firstRec.Body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	gone := newSignalBody()
	goneRec, goneDone := g.startDirect(ctx, http.MethodPost, "/budget", "delete", gone, digest)
	select {
	case <-waiting:
	case <-gone.started:
		t.Fatal("a second 2 MiB document was read while the first held the budget")
	case <-goneDone:
		t.Fatalf("a second 2 MiB document was answered while the first held the budget: %d %s", goneRec.Code, goneRec.Body)
	}
	cancel()
	<-goneDone
	if goneRec.Code != http.StatusServiceUnavailable || !strings.Contains(goneRec.Body.String(), "<Code>SlowDown</Code>") {
		t.Errorf("request cancelled while waiting: %d %s", goneRec.Code, goneRec.Body)
	}

	second := newSignalBody()
	secondRec, secondDone := g.startDirect(context.Background(), http.MethodPost, "/budget", "delete", second, digest)
	select {
	case <-waiting:
	case <-second.started:
		t.Fatal("a second 2 MiB document was read while the first held the budget")
	case <-secondDone:
		t.Fatalf("a second 2 MiB document was answered while the first held the budget: %d %s", secondRec.Code, secondRec.Body)
	}
	first.send(doc)
	<-firstDone
	select {
	case <-second.started:
	case <-secondDone:
		t.Fatalf("the waiting DeleteObjects was answered before its body was read: %d %s", secondRec.Code, secondRec.Body)
	}
	second.send(doc)
	<-secondDone
	for i, rec := range []*httptest.ResponseRecorder{firstRec, secondRec} {
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "<DeleteResult") {
			t.Errorf("DeleteObjects %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}

	// A CompleteMultipartUpload body of unknown length takes the whole
	// budget: it must not wait now.
	rec := g.serveDirect(http.MethodPost, "/budget/mp", "uploads", nil)
	var created struct {
		UploadID string `xml:"UploadId"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &created); err != nil {
		t.Fatalf("CreateMultipartUpload: %d %s", rec.Code, rec.Body)
	}
	whole := newSignalBody()
	whole.send("<CompleteMultipartUpload/>")
	wholeRec, wholeDone := g.startDirect(context.Background(), http.MethodPost, "/budget/mp", "uploadId="+created.UploadID, whole, nil)
	select {
	case <-wholeDone:
	case <-waiting:
		t.Fatal("the budget was not whole again after both requests ended")
	}
	if wholeRec.Code != http.StatusBadRequest || !strings.Contains(wholeRec.Body.String(), "<Code>MalformedXML</Code>") {
		t.Errorf("CompleteMultipartUpload without parts: %d %s", wholeRec.Code, wholeRec.Body)
	}
}
