package api_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestConditionalHeaderOnSeveralLines: If-None-Match and If-Match sent as
// several header lines are one list (RFC 9110 §5.3): GET and HEAD with the
// object's ETag on the second line of If-None-Match answer 304, with it on
// the second line of If-Match 200, and CopyObject reads its source's
// conditions the same way. Only the first line counted before.
func TestConditionalHeaderOnSeveralLines(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("condlines")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, c, bucket, "k", "data")
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	etag := aws.ToString(head.ETag)
	send := func(method, path string, lines map[string][]string) int {
		t.Helper()
		req := g.rawRequest(method, path, "", nil)
		for k, vs := range lines {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		resp, _ := g.do(req, nil, true)
		return resp.StatusCode
	}
	for _, m := range []string{"GET", "HEAD"} {
		if got := send(m, "/"+bucket+"/k", map[string][]string{"If-None-Match": {`"0123"`, etag}}); got != 304 {
			t.Errorf("%s with the ETag on If-None-Match's second line: %d, want 304", m, got)
		}
		if got := send(m, "/"+bucket+"/k", map[string][]string{"If-Match": {`"0123"`, etag}}); got != 200 {
			t.Errorf("%s with the ETag on If-Match's second line: %d, want 200", m, got)
		}
		if got := send(m, "/"+bucket+"/k", map[string][]string{"If-Match": {`"0123"`, `"4567"`}}); got != 412 {
			t.Errorf("%s with If-Match matching no line: %d, want 412", m, got)
		}
	}
	req := g.rawRequest("PUT", "/"+bucket+"/copy", "", nil)
	req.Header.Set("X-Amz-Copy-Source", bucket+"/k")
	req.Header.Add("X-Amz-Copy-Source-If-Match", `"0123"`)
	req.Header.Add("X-Amz-Copy-Source-If-Match", etag)
	if resp, body := g.do(req, nil, true); resp.StatusCode != 200 {
		t.Errorf("CopyObject with the source's ETag on the second line of x-amz-copy-source-if-match: %d %s, want 200", resp.StatusCode, body)
	}
}
