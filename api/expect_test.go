package api_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// sendHeaders writes a request's head (no body) on a raw connection and
// returns a reader for the response.
func sendHeaders(t *testing.T, conn net.Conn, req *http.Request) *bufio.Reader {
	t.Helper()
	var b strings.Builder
	b.WriteString(req.Method + " " + req.URL.RequestURI() + " HTTP/1.1\r\nHost: " + req.Host + "\r\n")
	for k, vs := range req.Header {
		for _, v := range vs {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	return bufio.NewReader(conn)
}

// TestExpectContinue checks that a PUT with Expect: 100-continue is
// rejected before its body is sent when its signature is wrong, and gets
// 100 Continue, then 200, when it is right.
func TestExpectContinue(t *testing.T) {
	g := startGateway(t)
	if _, err := g.sdk(sdkModes[0]).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("expect")}); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(g.Endpoint, "http://")
	body := strings.Repeat("e", 1000)
	newReq := func(secret string) *http.Request {
		req, _ := http.NewRequest(http.MethodPut, g.Endpoint+"/expect/obj", strings.NewReader(body))
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Length", "1000")
		req.Header.Set("Expect", "100-continue")
		sigv4.SignRequest(req, g.AccessKey, secret, g.Region, time.Now(), "UNSIGNED-PAYLOAD")
		return req
	}

	for _, tc := range []struct {
		name   string
		secret string
	}{{"wrong signature", "not-the-secret"}, {"right signature", g.SecretKey}} {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		rd := sendHeaders(t, conn, newReq(tc.secret))
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.secret != g.SecretKey {
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("%s: %d before the body was sent, want 403", tc.name, resp.StatusCode)
			}
			conn.Close()
			continue
		}
		if resp.StatusCode != http.StatusContinue {
			t.Fatalf("%s: %d, want 100 Continue before the body", tc.name, resp.StatusCode)
		}
		if _, err := conn.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
		resp, err = http.ReadResponse(rd, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: after the body: %v %v", tc.name, resp, err)
		}
		conn.Close()
	}
	if got := getBytes(t, g.sdk(sdkModes[0]), "expect", "obj"); string(got) != body {
		t.Fatalf("stored %d bytes", len(got))
	}
}
