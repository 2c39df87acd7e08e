package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// unreadBody fails the test when a handler reads it.
type unreadBody struct{ t *testing.T }

func (b unreadBody) Read([]byte) (int, error) {
	b.t.Error("the body was read")
	return 0, io.ErrUnexpectedEOF
}

// TestCompleteChecksUploadBeforeBody checks that CompleteMultipartUpload
// answers NoSuchUpload for an upload that does not exist without reading
// the (here 4 MiB) list of parts.
func TestCompleteChecksUploadBeforeBody(t *testing.T) {
	g := startGateway(t)
	if err := g.layer.CreateBucket(object.Bucket{Name: "early"}); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, g.Endpoint+"/early/key?uploadId=0000000000000000nosuchupload", unreadBody{t})
	req.ContentLength = 4 << 20
	sigv4.SignRequest(req, g.AccessKey, g.SecretKey, g.Region, time.Now(), "UNSIGNED-PAYLOAD")
	rec := httptest.NewRecorder()
	(*g.handler.Load()).ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "<Code>NoSuchUpload</Code>") {
		t.Errorf("answer %d %s, want 404 NoSuchUpload", rec.Code, rec.Body)
	}
}
