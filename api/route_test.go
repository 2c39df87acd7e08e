package api

import (
	"net/http"
	"net/url"
	"testing"
)

func TestRoute(t *testing.T) {
	s := &Server{}
	cases := []struct {
		method string
		lv     level
		query  string
		copy   bool
		want   string
	}{
		{"GET", levelService, "", false, "ListBuckets"},
		{"GET", levelService, "max-buckets=5", false, "ListBuckets"},
		{"PUT", levelService, "", false, "MethodNotAllowed"},
		{"DELETE", levelService, "", false, "MethodNotAllowed"},
		{"POST", levelService, "", false, "MethodNotAllowed"},
		{"PUT", levelService, "tagging", false, "NotImplemented"},
		{"PATCH", levelBucket, "", false, "MethodNotAllowed"},
		{"PUT", levelBucket, "unknown-parameter", false, "CreateBucket"},
		{"GET", levelBucket, "", false, "ListObjects"},
		{"GET", levelBucket, "list-type=2&prefix=a", false, "ListObjectsV2"},
		{"GET", levelBucket, "location", false, "GetBucketLocation"},
		{"GET", levelBucket, "versioning", false, "GetBucketVersioning"},
		{"GET", levelBucket, "lifecycle", false, "GetBucketLifecycleConfiguration"},
		{"PUT", levelBucket, "lifecycle", false, "PutBucketLifecycleConfiguration"},
		{"DELETE", levelBucket, "lifecycle", false, "DeleteBucketLifecycle"},
		{"DELETE", levelBucket, "object-lock", false, "NotImplemented"},
		{"GET", levelBucket, "requestPayment", false, "GetBucketRequestPayment"},
		{"GET", levelObject, "lifecycle", false, "NotImplemented"},
		{"GET", levelBucket, "uploads", false, "ListMultipartUploads"},
		{"GET", levelBucket, "versions", false, "ListObjectVersions"},
		{"GET", levelBucket, "policy", false, "GetBucketPolicy"},
		{"HEAD", levelBucket, "", false, "HeadBucket"},
		{"PUT", levelBucket, "", false, "CreateBucket"},
		{"PUT", levelBucket, "tagging", false, "PutBucketTagging"},
		{"GET", levelBucket, "tagging", false, "GetBucketTagging"},
		{"DELETE", levelBucket, "tagging", false, "DeleteBucketTagging"},
		{"PUT", levelBucket, "versioning", false, "PutBucketVersioning"},
		{"GET", levelBucket, "object-lock", false, "GetObjectLockConfiguration"},
		{"PUT", levelBucket, "object-lock", false, "PutObjectLockConfiguration"},
		{"DELETE", levelBucket, "", false, "DeleteBucket"},
		{"DELETE", levelBucket, "cors", false, "DeleteBucketCors"},
		{"POST", levelBucket, "delete", false, "DeleteObjects"},
		{"POST", levelBucket, "", false, "NotImplemented"},
		{"GET", levelObject, "", false, "GetObject"},
		{"GET", levelObject, "partNumber=1", false, "GetObject"},
		{"GET", levelObject, "versionId=null", false, "GetObject"},
		{"GET", levelObject, "response-content-type=text/plain", false, "GetObject"},
		{"GET", levelObject, "tagging", false, "GetObjectTagging"},
		{"DELETE", levelObject, "tagging", false, "DeleteObjectTagging"},
		{"GET", levelObject, "acl", false, "GetObjectAcl"},
		{"PUT", levelObject, "acl", false, "PutObjectAcl"},
		{"DELETE", levelObject, "acl", false, "NotImplemented"},
		{"GET", levelObject, "attributes", false, "GetObjectAttributes"},
		{"GET", levelObject, "retention", false, "GetObjectRetention"},
		{"PUT", levelObject, "retention", false, "PutObjectRetention"},
		{"GET", levelObject, "legal-hold", false, "GetObjectLegalHold"},
		{"DELETE", levelObject, "retention", false, "NotImplemented"},
		{"HEAD", levelObject, "", false, "HeadObject"},
		{"PUT", levelObject, "", false, "PutObject"},
		{"PUT", levelObject, "", true, "CopyObject"},
		{"PUT", levelObject, "partNumber=1&uploadId=x", false, "UploadPart"},
		{"PUT", levelObject, "partNumber=1&uploadId=x", true, "UploadPartCopy"},
		{"GET", levelObject, "uploadId=x", false, "ListParts"},
		{"GET", levelObject, "uploadId=x&max-parts=2&part-number-marker=1", false, "ListParts"},
		{"POST", levelObject, "uploadId=x", false, "CompleteMultipartUpload"},
		{"PUT", levelObject, "partNumber=1", false, "NotImplemented"},
		{"PUT", levelObject, "tagging", false, "PutObjectTagging"},
		{"PUT", levelObject, "legal-hold", false, "PutObjectLegalHold"},
		{"GET", levelBucket, "retention", false, "NotImplemented"},
		{"DELETE", levelObject, "", false, "DeleteObject"},
		{"DELETE", levelObject, "uploadId=x", false, "AbortMultipartUpload"},
		{"POST", levelObject, "uploads", false, "CreateMultipartUpload"},
		{"POST", levelObject, "restore", false, "NotImplemented"},
		{"PATCH", levelObject, "", false, "MethodNotAllowed"},
		{"POST", levelObject, "", false, "MethodNotAllowed"},
		{"POST", levelObject, "unknown-parameter", false, "MethodNotAllowed"},
	}
	for _, c := range cases {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		if c.copy {
			h.Set("X-Amz-Copy-Source", "b/k")
		}
		if got := s.route(c.method, c.lv, q, h).name; got != c.want {
			t.Errorf("route(%s level=%d ?%s copy=%v) = %s, want %s", c.method, c.lv, c.query, c.copy, got, c.want)
		}
	}
}

// TestSubresource checks subresource against the lookup of every
// subresource in order that it replaced, for each subresource alone, each
// pair, and with presigned-URL and other parameters beside them.
func TestSubresource(t *testing.T) {
	ref := func(q url.Values) string {
		for _, s := range subresources {
			if _, ok := q[s]; ok {
				return s
			}
		}
		return ""
	}
	for _, s := range subresources {
		if s[0] < 'a' || s[0] > 'z' {
			t.Fatalf("subresource %q does not start with a lower-case letter, which subresource relies on", s)
		}
	}
	extra := []string{"", "X-Amz-Signature", "prefix", "list-type", "Acl", "response-content-type"}
	for _, a := range append([]string{""}, subresources...) {
		for _, b := range subresources {
			for _, e := range extra {
				q := url.Values{}
				for _, k := range []string{a, b, e} {
					if k != "" {
						q[k] = []string{""}
					}
				}
				if got, want := subresource(q), ref(q); got != want {
					t.Fatalf("subresource(%v) = %q, want %q", q, got, want)
				}
			}
		}
	}
}
