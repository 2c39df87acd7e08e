package api_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestCreateBucketObjectLockHeader checks that CreateBucket makes a
// bucket with Object Lock (and versioning Enabled) for every spelling of
// true that clients send (boto3 sends "True"), one without for false in
// any case, and refuses any other value, creating no bucket then.
func TestCreateBucketObjectLockHeader(t *testing.T) {
	g := startHostile(t)
	for i, tc := range []struct {
		value string
		lock  bool
	}{
		{"true", true}, {"True", true}, {"TRUE", true}, {" tRuE ", true},
		{"false", false}, {"False", false}, {"FALSE", false},
	} {
		bucket := "lockhdr-" + strconv.Itoa(i)
		g.want(g.send(http.MethodPut, "/"+bucket, "", nil, "X-Amz-Bucket-Object-Lock-Enabled", tc.value), 200)
		r := g.send(http.MethodGet, "/"+bucket, "object-lock", nil)
		if tc.lock {
			g.want(r, 200)
		} else {
			g.want(r, 404, "ObjectLockConfigurationNotFoundError")
		}
		if v := strings.Contains(string(g.send(http.MethodGet, "/"+bucket, "versioning", nil).body), "<Status>Enabled</Status>"); v != tc.lock {
			t.Errorf("x-amz-bucket-object-lock-enabled %q: versioning Enabled %v, want %v", tc.value, v, tc.lock)
		}
	}
	for _, v := range []string{"yes", "1"} {
		g.want(g.send(http.MethodPut, "/locked", "", nil, "X-Amz-Bucket-Object-Lock-Enabled", v), 400, "InvalidArgument")
		g.want(g.send(http.MethodHead, "/locked", "", nil), 404)
	}

	_, err := g.sdk(sdkModes[0]).CreateBucket(t.Context(), &s3.CreateBucketInput{
		Bucket: aws.String("locked-sdk"), ObjectLockEnabledForBucket: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("CreateBucket(ObjectLockEnabledForBucket): %v", err)
	}
	out, err := g.sdk(sdkModes[0]).GetObjectLockConfiguration(t.Context(), &s3.GetObjectLockConfigurationInput{Bucket: aws.String("locked-sdk")})
	if err != nil || out.ObjectLockConfiguration.ObjectLockEnabled != "Enabled" {
		t.Errorf("GetObjectLockConfiguration of a bucket made with Object Lock: %+v, %v", out, err)
	}
}

// TestEncryptionHeadersRefused checks S3's answers to encryption headers
// the gateway cannot honour: an SSE-C key without its algorithm on a write
// or a read, x-amz-server-side-encryption on a read, and a complete set of
// SSE-C headers on a read of an object stored without a customer key.
func TestEncryptionHeadersRefused(t *testing.T) {
	h := startHostile(t)
	obj := "/" + h.bucket + "/" + victimKey
	const key = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	// keyMD5 is the key's real MD5: a wrong one is InvalidArgument before
	// anything else is checked.
	const keyMD5 = "hRasmdxgYDKV3nvbahU1MA=="
	for _, tc := range []struct {
		what, method, path string
		hdr                []string
		status             int
		code               string
	}{
		{"PUT with an SSE-C key alone", http.MethodPut, "/" + h.bucket + "/new", []string{"X-Amz-Server-Side-Encryption-Customer-Key", key}, 400, "InvalidArgument"},
		{"PUT with an SSE-C key MD5 alone", http.MethodPut, "/" + h.bucket + "/new", []string{"X-Amz-Server-Side-Encryption-Customer-Key-Md5", keyMD5}, 400, "InvalidArgument"},
		{"GET with an SSE-C key alone", http.MethodGet, obj, []string{"X-Amz-Server-Side-Encryption-Customer-Key", key, "X-Amz-Server-Side-Encryption-Customer-Key-Md5", keyMD5}, 400, "InvalidArgument"},
		{"GET with x-amz-server-side-encryption", http.MethodGet, obj, []string{"X-Amz-Server-Side-Encryption", "AES256"}, 400, "InvalidArgument"},
		{"GET with SSE-KMS", http.MethodGet, obj, []string{"X-Amz-Server-Side-Encryption", "aws:kms"}, 400, "InvalidArgument"},
		{"GET with full SSE-C", http.MethodGet, obj, []string{
			"X-Amz-Server-Side-Encryption-Customer-Algorithm", "AES256",
			"X-Amz-Server-Side-Encryption-Customer-Key", key, "X-Amz-Server-Side-Encryption-Customer-Key-Md5", keyMD5,
		}, 400, "InvalidRequest"},
	} {
		var body []byte
		if tc.method == http.MethodPut {
			body = []byte("data")
		}
		h.want(h.send(tc.method, tc.path, "", body, tc.hdr...), tc.status, tc.code)
	}
	// HEAD carries no body, so only its status can say no.
	h.want(h.send(http.MethodHead, obj, "", nil, "X-Amz-Server-Side-Encryption", "AES256"), 400)
	h.want(h.send(http.MethodHead, obj, "", nil, "X-Amz-Server-Side-Encryption-Customer-Key", key), 400)
	h.want(h.send(http.MethodHead, "/"+h.bucket+"/new", "", nil), 404)

	up := h.send(http.MethodPost, "/"+h.bucket+"/mp", "uploads", nil)
	h.want(up, 200)
	id := between(string(up.body), "<UploadId>", "</UploadId>")
	h.want(h.send(http.MethodPut, "/"+h.bucket+"/mp", "partNumber=1&uploadId="+id, []byte("part"),
		"X-Amz-Server-Side-Encryption-Customer-Key", key), 400, "InvalidArgument")
	h.want(h.send(http.MethodPut, "/"+h.bucket+"/mp", "partNumber=1&uploadId="+id, nil,
		"X-Amz-Copy-Source", h.bucket+"/"+victimKey, "X-Amz-Server-Side-Encryption-Customer-Key-Md5", keyMD5), 400, "InvalidArgument")

	_, err := h.sdk(sdkModes[0]).HeadObject(t.Context(), &s3.HeadObjectInput{
		Bucket: aws.String(h.bucket), Key: aws.String(victimKey),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(key), SSECustomerKeyMD5: aws.String(keyMD5),
	})
	if httpStatus(err) != 400 {
		t.Errorf("HeadObject(SSE-C) = %v, want 400", err)
	}
}

// TestCannedACLValues checks that a value of x-amz-acl that is no canned
// ACL is the client's error (400 InvalidArgument) and stores nothing,
// while every canned ACL is taken.
func TestCannedACLValues(t *testing.T) {
	h := startHostile(t)
	obj := "/" + h.bucket + "/acl-obj"
	h.want(h.send(http.MethodPut, obj, "", []byte("x"), "X-Amz-Acl", "bogus"), 400, "InvalidArgument")
	h.want(h.send(http.MethodPut, obj, "", []byte("x"), "X-Amz-Acl", "PRIVATE"), 400, "InvalidArgument")
	h.want(h.send(http.MethodPut, "/acl-bucket", "", nil, "X-Amz-Acl", "bogus"), 400, "InvalidArgument")
	h.want(h.send(http.MethodPut, "/"+h.bucket, "acl", nil, "X-Amz-Acl", "bogus"), 400, "InvalidArgument")
	h.want(h.send(http.MethodPost, obj, "uploads", nil, "X-Amz-Acl", "bogus"), 400, "InvalidArgument")
	h.want(h.send(http.MethodHead, obj, "", nil), 404)
	h.want(h.send(http.MethodHead, "/acl-bucket", "", nil), 404)
	h.want(h.send(http.MethodPut, obj, "", []byte("x"), "X-Amz-Acl", "bucket-owner-full-control"), 200)
	h.want(h.send(http.MethodPut, obj, "", []byte("x"), "X-Amz-Acl", "public-read-write"), 200)
}
