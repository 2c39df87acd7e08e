package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// heldBody is a request body that tells the test, once the server has read
// want bytes of it, that the request is in the middle of its body.
type heldBody struct {
	io.ReadCloser
	n, want int
	read    func()
}

func (b *heldBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.n < b.want && b.n+n >= b.want {
		b.read()
	}
	b.n += n
	return n, err
}

// TestShutdownCutsHeldRequest holds a PUT open across a shutdown (its body
// is a pipe the test never closes) with a drain limit of 100ms: the
// request is logged as cut with its access-log fields, its staging file is
// gone once serve returns, and the last log line says the gateway stopped
// with one request cut.
func TestShutdownCutsHeldRequest(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "AKIDDRAIN", "OBJECTGATEWAY_SECRET_KEY": "drain-secret"}
	const sent = 1000
	arrived := make(chan struct{})
	var once sync.Once
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && r.URL.Path == "/drain/held" {
				r.Body = &heldBody{ReadCloser: r.Body, want: sent, read: func() { once.Do(func() { close(arrived) }) }}
			}
			h.ServeHTTP(w, r)
		})
	}
	var logs syncBuffer
	s := startServeEnv(t, []string{"--root", root, "--listen", "127.0.0.1:0", "--shutdown-timeout", "100ms"}, vars, &logs, env{wrap: wrap})
	if _, err := s3Client(s.addr, "AKIDDRAIN", "drain-secret").CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String("drain")}); err != nil {
		t.Fatal(err)
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	req, err := http.NewRequest(http.MethodPut, "http://"+s.addr+"/drain/held", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = 1 << 20
	sigv4.SignRequest(req, "AKIDDRAIN", "drain-secret", "us-east-1", time.Now(), "UNSIGNED-PAYLOAD")
	clientDone := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		clientDone <- err
	}()
	if _, err := pw.Write(bytes.Repeat([]byte("x"), sent)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(cdnWait):
		t.Fatalf("the server did not read the first %d bytes within %v", sent, cdnWait)
	}

	s.stop()
	// The client's transport waits for its body to end before it gives
	// up on the closed connection.
	pw.CloseWithError(errors.New("the test ends the body"))
	if err := <-clientDone; err == nil {
		t.Error("the held PUT got an answer; it should have been cut off")
	}

	staging, err := os.ReadDir(filepath.Join(root, ".objectgateway", "staging"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range staging {
		t.Errorf("staging file %s survived the shutdown", e.Name())
	}

	var cutLine, last map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["message"] == "request cut at shutdown" {
			cutLine = m
		}
		last = m
	}
	if cutLine == nil {
		t.Fatalf("no line names the cut request; log:\n%s", logs.String())
	}
	for field, want := range map[string]any{
		"op": "PutObject", "method": "PUT", "bucket": "drain", "key": "held", "status": "cut",
		"access_key": "AKIDDRAIN", "bytes_in": float64(sent), "level": "warn",
	} {
		if cutLine[field] != want {
			t.Errorf("cut line %s = %v, want %v", field, cutLine[field], want)
		}
	}
	if id, _ := cutLine["request_id"].(string); id == "" {
		t.Error("the cut line has no request id")
	}
	if remote, _ := cutLine["remote"].(string); !strings.HasPrefix(remote, "127.0.0.1:") {
		t.Errorf("cut line remote = %q", remote)
	}
	if last["message"] != "ObjectGateway stopped" || last["cut"] != float64(1) {
		t.Errorf("last log line %v; want ObjectGateway stopped with cut 1", last)
	}
}
