package api_test

import (
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestCreateBucketObjectLockHeader checks that CreateBucket refuses Object
// Lock in every spelling of true that clients send (boto3 sends "True"),
// creates no bucket then, and accepts "false" in any case.
func TestCreateBucketObjectLockHeader(t *testing.T) {
	g := startHostile(t)
	for _, tc := range []struct {
		value  string
		status int
		code   string
	}{
		{"true", 501, "NotImplemented"},
		{"True", 501, "NotImplemented"},
		{"TRUE", 501, "NotImplemented"},
		{" tRuE ", 501, "NotImplemented"},
		{"yes", 400, "InvalidArgument"},
		{"1", 400, "InvalidArgument"},
	} {
		r := g.send(http.MethodPut, "/locked", "", nil, "X-Amz-Bucket-Object-Lock-Enabled", tc.value)
		g.want(r, tc.status, tc.code)
		g.want(g.send(http.MethodHead, "/locked", "", nil), 404)
	}
	for i, v := range []string{"false", "False", "FALSE"} {
		bucket := []string{"unlocked-a", "unlocked-b", "unlocked-c"}[i]
		g.want(g.send(http.MethodPut, "/"+bucket, "", nil, "X-Amz-Bucket-Object-Lock-Enabled", v), 200)
	}

	_, err := g.sdk(sdkModes[0]).CreateBucket(t.Context(), &s3.CreateBucketInput{
		Bucket: aws.String("locked-sdk"), ObjectLockEnabledForBucket: aws.Bool(true),
	})
	wantCode(t, "CreateBucket(ObjectLockEnabledForBucket)", err, 501, "NotImplemented")
}
