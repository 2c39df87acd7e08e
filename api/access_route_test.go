package api

import (
	"net/http"
	"net/url"
	"testing"
)

func TestRouteAccess(t *testing.T) {
	s := &Server{}
	cases := []struct {
		method string
		lv     level
		query  string
		ctype  string
		want   string
	}{
		{"GET", levelBucket, "policy", "", "GetBucketPolicy"},
		{"PUT", levelBucket, "policy", "", "PutBucketPolicy"},
		{"DELETE", levelBucket, "policy", "", "DeleteBucketPolicy"},
		{"GET", levelBucket, "policyStatus", "", "GetBucketPolicyStatus"},
		{"PUT", levelBucket, "policyStatus", "", "NotImplemented"},
		{"GET", levelBucket, "acl", "", "GetBucketAcl"},
		{"PUT", levelBucket, "acl", "", "PutBucketAcl"},
		{"DELETE", levelBucket, "acl", "", "NotImplemented"},
		{"GET", levelObject, "acl", "", "GetObjectAcl"},
		{"PUT", levelObject, "acl", "", "PutObjectAcl"},
		{"GET", levelBucket, "cors", "", "GetBucketCors"},
		{"PUT", levelBucket, "cors", "", "PutBucketCors"},
		{"DELETE", levelBucket, "cors", "", "DeleteBucketCors"},
		{"OPTIONS", levelBucket, "", "", "CORSPreflight"},
		{"OPTIONS", levelObject, "", "", "CORSPreflight"},
		{"OPTIONS", levelService, "", "", "MethodNotAllowed"},
		{"POST", levelBucket, "", "multipart/form-data; boundary=x", "PostObject"},
		{"POST", levelBucket, "", "Multipart/Form-Data", "PostObject"},
		{"POST", levelBucket, "", "application/x-www-form-urlencoded", "NotImplemented"},
		{"POST", levelBucket, "", "", "NotImplemented"},
		{"POST", levelBucket, "delete", "multipart/form-data", "DeleteObjects"},
		{"POST", levelObject, "", "multipart/form-data", "MethodNotAllowed"},
		{"GET", levelBucket, "", "", "ListObjects"},
	}
	for _, c := range cases {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		if c.ctype != "" {
			h.Set("Content-Type", c.ctype)
		}
		if got := s.route(c.method, c.lv, q, h).name; got != c.want {
			t.Errorf("route(%s level=%d ?%s %s) = %s, want %s", c.method, c.lv, c.query, c.ctype, got, c.want)
		}
	}
	for _, op := range []string{"PostObject", "CORSPreflight"} {
		if !selfAuthenticated(op) {
			t.Errorf("%s must bypass SigV4", op)
		}
	}
	for _, op := range []string{"GetObject", "PutBucketPolicy", "NotImplemented"} {
		if selfAuthenticated(op) {
			t.Errorf("%s must be authenticated", op)
		}
	}
}
