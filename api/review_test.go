package api_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// A multipart object rewritten behind the gateway's back is refreshed on
// read (new size, "-1" ETag, PartsCount 0) but keeps its old part layout,
// so GET ?partNumber=1 answers with the old part's length: a 200 whose
// Content-Length is 5 MiB for a 10-byte file, and a body cut short.
func TestReviewPartNumberAfterOutOfBandRewrite(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "sdk-default"})
	bucket := makeBucket(t, c, "review-parts")
	key := "big"
	up, err := c.CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	for i, body := range [][]byte{bytes.Repeat([]byte("a"), 5<<20), []byte("tail")} {
		n := int32(i + 1)
		out, err := c.UploadPart(t.Context(), &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key),
			UploadId: up.UploadId, PartNumber: aws.Int32(n), Body: bytes.NewReader(body)})
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, types.CompletedPart{PartNumber: aws.Int32(n), ETag: out.ETag})
	}
	if _, err := c.CompleteMultipartUpload(t.Context(), &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.Root, bucket, key), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Refresh the record with a plain HEAD first.
	resp, _ := g.do(g.rawRequest("HEAD", "/"+bucket+"/"+key, "", nil), nil, true)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Length") != "10" {
		t.Fatalf("HEAD after rewrite: %d, Content-Length %s", resp.StatusCode, resp.Header.Get("Content-Length"))
	}
	req := g.rawRequest("GET", "/"+bucket+"/"+key, "partNumber=1", nil)
	g.signAt(req, nil, g.SecretKey, time.Now())
	r, err := g.httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	cl, _ := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64)
	var buf bytes.Buffer
	_, rerr := buf.ReadFrom(r.Body)
	if cl != 10 || rerr != nil || buf.Len() != 10 {
		t.Errorf("GET ?partNumber=1 of a refreshed 10-byte object: status %d, Content-Length %d, read %d bytes (err %v); want 10 bytes",
			r.StatusCode, cl, buf.Len(), rerr)
	}
	req = g.rawRequest("GET", "/"+bucket+"/"+key, "partNumber=2", nil)
	resp, body := g.do(req, nil, true)
	if resp.StatusCode != 416 {
		t.Errorf("GET ?partNumber=2 of a refreshed single-file object: status %d (body %q), want 416 InvalidPartNumber", resp.StatusCode, body)
	}
}

// S3 refuses a GET that names both a Range and a partNumber
// (400 InvalidRequest, "Cannot specify both Range header and partNumber
// query parameter"); the gateway silently ignores the Range and serves
// the whole part.
func TestReviewRangeWithPartNumber(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "sdk-default"})
	bucket := makeBucket(t, c, "review-rangepart")
	putBytes(t, c, bucket, "k", []byte("0123456789"))
	req := g.rawRequest("GET", "/"+bucket+"/k", "partNumber=1", nil)
	req.Header.Set("Range", "bytes=0-1")
	resp, body := g.do(req, nil, true)
	wantXMLError(t, "GET ?partNumber=1 with Range", resp, body, 400, "InvalidRequest")
}
