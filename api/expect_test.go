package api_test

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strconv"
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

// signWithExpect signs req with SigV4 by hand, with Expect among its
// SignedHeaders (sigv4.SignRequest and the AWS SDKs leave it out, as some
// other clients do not), and UNSIGNED-PAYLOAD.
func signWithExpect(req *http.Request, g *gateway, now time.Time) {
	amzDate := now.UTC().Format("20060102T150405Z")
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	signed := []string{"content-length", "expect", "host", "x-amz-content-sha256", "x-amz-date"}
	var canon strings.Builder
	for _, h := range signed {
		v := req.Header.Get(h)
		if h == "host" {
			v = req.Host
		}
		canon.WriteString(h + ":" + strings.TrimSpace(v) + "\n")
	}
	creq := strings.Join([]string{req.Method, req.URL.EscapedPath(), req.URL.RawQuery, canon.String(), strings.Join(signed, ";"), "UNSIGNED-PAYLOAD"}, "\n")
	scope := amzDate[:8] + "/" + g.Region + "/s3/aws4_request"
	sum := sha256.Sum256([]byte(creq))
	mac := func(key []byte, data string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(data))
		return h.Sum(nil)
	}
	k := mac([]byte("AWS4"+g.SecretKey), amzDate[:8])
	for _, part := range []string{g.Region, "s3", "aws4_request"} {
		k = mac(k, part)
	}
	sig := hex.EncodeToString(mac(k, "AWS4-HMAC-SHA256\n"+amzDate+"\n"+scope+"\n"+hex.EncodeToString(sum[:])))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+g.AccessKey+"/"+scope+
		", SignedHeaders="+strings.Join(signed, ";")+", Signature="+sig)
}

// TestExpectOtherThanContinue checks that a PUT with Expect: 200, the
// header signed, is served as if there were no expectation,
// where net/http alone answers 417 before any handler runs; the value
// reaches signature verification intact, so a changed one is refused.
func TestExpectOtherThanContinue(t *testing.T) {
	g := startGateway(t)
	if _, err := g.sdk(sdkModes[0]).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("expect")}); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(g.Endpoint, "http://")
	body := "served without an expectation"
	for _, tc := range []struct {
		name, signed, sent string
		status             int
		code               string
	}{
		{"Expect: 200", "200", "200", http.StatusOK, ""},
		{"a list of values", "foo, bar", "foo, bar", http.StatusOK, ""},
		{"value changed after signing", "200", "201", http.StatusForbidden, "SignatureDoesNotMatch"},
	} {
		req, _ := http.NewRequest(http.MethodPut, g.Endpoint+"/expect/obj", strings.NewReader(body))
		req.Header.Set("Content-Length", strconv.Itoa(len(body)))
		req.Header.Set("Expect", tc.signed)
		signWithExpect(req, g, time.Now())
		req.Header.Set("Expect", tc.sent)
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		rd := sendHeaders(t, conn, req)
		if _, err := conn.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		text, _ := io.ReadAll(resp.Body)
		conn.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(text), tc.code) {
			t.Fatalf("%s: %d %s, want %d", tc.name, resp.StatusCode, text, tc.status)
		}
	}
	if got := getBytes(t, g.sdk(sdkModes[0]), "expect", "obj"); string(got) != body {
		t.Fatalf("stored %q", got)
	}
}
