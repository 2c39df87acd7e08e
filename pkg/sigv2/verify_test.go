package sigv2

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The example credentials of AWS's "Signing and authenticating REST
// requests" page.
const (
	exampleKey    = "AKIAIOSFODNN7EXAMPLE"
	exampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

type creds map[string]string

func (c creds) SecretKey(ak string) (string, bool) { s, ok := c[ak]; return s, ok }

// exampleCase is one worked example: a request as it arrives, the
// bucket its Host names, the string to sign and the signature the page
// publishes for it.
type exampleCase struct {
	name    string
	method  string
	target  string
	bucket  string
	headers [][2]string
	sts     string
	sig     string
	now     time.Time
}

func exampleRequest(c exampleCase) *http.Request {
	r := httptest.NewRequest(c.method, c.target, nil)
	for _, h := range c.headers {
		r.Header.Add(h[0], h[1])
	}
	return r
}

func at(s string) time.Time {
	t, err := parseDate(s)
	if err != nil {
		panic(err)
	}
	return t
}

// examples are the worked examples of AWS's "Signing and authenticating
// REST requests" (Signature Version 2), with the signatures it publishes.
var examples = []exampleCase{
	{
		name: "GetObject virtual-hosted", method: "GET", target: "/photos/puppy.jpg", bucket: "johnsmith",
		headers: [][2]string{{"Date", "Tue, 27 Mar 2007 19:36:42 +0000"}},
		sts:     "GET\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n/johnsmith/photos/puppy.jpg",
		sig:     "bWq2s1WEIj+Ydj0vQ697zp+IXMU=", now: at("Tue, 27 Mar 2007 19:36:42 +0000"),
	},
	{
		name: "GetObject awsexamplebucket1", method: "GET", target: "/photos/puppy.jpg", bucket: "awsexamplebucket1",
		headers: [][2]string{{"Date", "Tue, 27 Mar 2007 19:36:42 +0000"}},
		sts:     "GET\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n/awsexamplebucket1/photos/puppy.jpg",
		sig:     "qgk2+6Sv9/oM7G3qLEjTH1a1l1g=", now: at("Tue, 27 Mar 2007 19:36:42 +0000"),
	},
	{
		name: "PutObject", method: "PUT", target: "/photos/puppy.jpg", bucket: "johnsmith",
		headers: [][2]string{{"Content-Type", "image/jpeg"}, {"Content-Length", "94328"}, {"Date", "Tue, 27 Mar 2007 21:15:45 +0000"}},
		sts:     "PUT\n\nimage/jpeg\nTue, 27 Mar 2007 21:15:45 +0000\n/johnsmith/photos/puppy.jpg",
		sig:     "MyyxeRY7whkBe+bq8fHCL/2kKUg=", now: at("Tue, 27 Mar 2007 21:15:45 +0000"),
	},
	{
		name: "ListObjects ignores list parameters", method: "GET", target: "/?prefix=photos&max-keys=50&marker=puppy", bucket: "johnsmith",
		headers: [][2]string{{"User-Agent", "Mozilla/5.0"}, {"Date", "Tue, 27 Mar 2007 19:42:41 +0000"}},
		sts:     "GET\n\n\nTue, 27 Mar 2007 19:42:41 +0000\n/johnsmith/",
		sig:     "htDYFYduRNen8P9ZfE/s9SuKy0U=", now: at("Tue, 27 Mar 2007 19:42:41 +0000"),
	},
	{
		name: "GetBucketAcl signs the sub-resource", method: "GET", target: "/?acl", bucket: "johnsmith",
		headers: [][2]string{{"Date", "Tue, 27 Mar 2007 19:44:46 +0000"}},
		sts:     "GET\n\n\nTue, 27 Mar 2007 19:44:46 +0000\n/johnsmith/?acl",
		sig:     "c2WLPFtWHVgbEmeEG93a4cG37dM=", now: at("Tue, 27 Mar 2007 19:44:46 +0000"),
	},
	{
		name: "upload with x-amz headers folded and sorted", method: "PUT", target: "/db-backup.dat.gz", bucket: "static.johnsmith.net",
		headers: [][2]string{
			{"User-Agent", "curl/7.15.5"}, {"Date", "Tue, 27 Mar 2007 21:06:08 +0000"},
			{"x-amz-acl", "public-read"}, {"content-type", "application/x-download"},
			{"Content-MD5", "4gJE4saaMU4BqNR0kLY+lw=="},
			{"X-Amz-Meta-ReviewedBy", "joe@johnsmith.net"}, {"X-Amz-Meta-ReviewedBy", "jane@johnsmith.net"},
			{"X-Amz-Meta-FileChecksum", "0x02661779"}, {"X-Amz-Meta-ChecksumAlgorithm", " crc32 "},
			{"Content-Disposition", "attachment; filename=database.dat"}, {"Content-Encoding", "gzip"},
		},
		sts: "PUT\n4gJE4saaMU4BqNR0kLY+lw==\napplication/x-download\nTue, 27 Mar 2007 21:06:08 +0000\n" +
			"x-amz-acl:public-read\nx-amz-meta-checksumalgorithm:crc32\nx-amz-meta-filechecksum:0x02661779\n" +
			"x-amz-meta-reviewedby:joe@johnsmith.net,jane@johnsmith.net\n/static.johnsmith.net/db-backup.dat.gz",
		sig: "ilyl83RwaSoYIEdixDQcA4OnAnc=", now: at("Tue, 27 Mar 2007 21:06:08 +0000"),
	},
	{
		name: "ListBuckets", method: "GET", target: "/",
		headers: [][2]string{{"Date", "Wed, 28 Mar 2007 01:29:59 +0000"}},
		sts:     "GET\n\n\nWed, 28 Mar 2007 01:29:59 +0000\n/",
		sig:     "qGdzdERIC03wnaRNKh6OqZehG9s=", now: at("Wed, 28 Mar 2007 01:29:59 +0000"),
	},
	{
		name: "path-style key signed as sent, escapes untouched", method: "GET", target: "/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re",
		headers: [][2]string{{"Date", "Wed, 28 Mar 2007 01:49:49 +0000"}},
		sts:     "GET\n\n\nWed, 28 Mar 2007 01:49:49 +0000\n/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re",
		sig:     "DNEZGsoieTZ92F3bUfSPQcbGmlM=", now: at("Wed, 28 Mar 2007 01:49:49 +0000"),
	},
	{
		// The page's DeleteObject example publishes a signature of a
		// string to sign that puts x-amz-date on the Date line, against
		// its own rule (and botocore's, boto's and s3cmd's): the Date
		// line is empty and x-amz-date is signed among the x-amz-*
		// headers. The signature here is the rule's, computed
		// independently with Python's hmac module.
		name: "DeleteObject with x-amz-date", method: "DELETE", target: "/johnsmith/photos/puppy.jpg",
		headers: [][2]string{{"User-Agent", "dotnet"}, {"Date", "Tue, 27 Mar 2007 21:20:27 +0000"}, {"x-amz-date", "Tue, 27 Mar 2007 21:20:26 +0000"}},
		sts:     "DELETE\n\n\n\nx-amz-date:Tue, 27 Mar 2007 21:20:26 +0000\n/johnsmith/photos/puppy.jpg",
		sig:     "R4dJ53KECjStyBO5iTBJZ4XVOaI=", now: at("Tue, 27 Mar 2007 21:20:26 +0000"),
	},
}

func TestStringToSignExamples(t *testing.T) {
	for _, c := range examples {
		t.Run(c.name, func(t *testing.T) {
			r := exampleRequest(c)
			q, err := url.ParseQuery(r.URL.RawQuery)
			if err != nil {
				t.Fatal(err)
			}
			if got := StringToSign(r.Method, r.Header, q, resourcePath(r, c.bucket), ""); got != c.sts {
				t.Fatalf("string to sign\n got %q\nwant %q", got, c.sts)
			}
			if got := Sign(exampleSecret, c.sts); got != c.sig {
				t.Fatalf("signature %q, want %q", got, c.sig)
			}
		})
	}
}

func TestVerifyHeaderExamples(t *testing.T) {
	for _, c := range examples {
		t.Run(c.name, func(t *testing.T) {
			r := exampleRequest(c)
			r.Header.Set("Authorization", "AWS "+exampleKey+":"+c.sig)
			if !Claims(r) {
				t.Fatal("Claims = false for a Version 2 Authorization header")
			}
			v := NewVerifier(Options{Credentials: creds{exampleKey: exampleSecret}, Now: func() time.Time { return c.now }})
			a, err := v.Verify(r, c.bucket)
			if err != nil {
				t.Fatal(err)
			}
			if a != (Auth{AccessKeyID: exampleKey}) {
				t.Fatalf("Auth = %+v", a)
			}
		})
	}
}

// TestVerifyQueryExample is the page's query-string example: Expires
// takes the Date line's place and the request is valid until then.
func TestVerifyQueryExample(t *testing.T) {
	target := "/photos/puppy.jpg?AWSAccessKeyId=" + exampleKey + "&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D&Expires=1175139620"
	exp := time.Unix(1175139620, 0)
	for _, tc := range []struct {
		name      string
		target    string
		now       time.Time
		code      s3err.Code
		msg       string
		presigned bool
	}{
		{name: "valid", target: target, now: exp, presigned: true},
		{name: "plus sent unescaped", target: strings.Replace(target, "%2B", "+", 1), now: exp, presigned: true},
		{name: "expired", target: target, now: exp.Add(time.Second), code: s3err.AccessDenied, msg: "Request has expired"},
		{name: "tampered expiry", target: strings.Replace(target, "1175139620", "1175139621", 1), now: exp, code: s3err.SignatureDoesNotMatch},
		{name: "missing Expires", target: strings.Replace(target, "&Expires=1175139620", "", 1), now: exp, code: s3err.AccessDenied,
			msg: "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters"},
		{name: "Expires not a number", target: strings.Replace(target, "1175139620", "soon", 1), now: exp, code: s3err.AccessDenied,
			msg: "Invalid date (should be seconds since epoch): soon"},
		{name: "unknown key", target: strings.Replace(target, exampleKey, "AKIDUNKNOWN", 1), now: exp, code: s3err.InvalidAccessKeyID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", tc.target, nil)
			if !Claims(r) {
				t.Fatal("Claims = false for Version 2 query authentication")
			}
			v := NewVerifier(Options{Credentials: creds{exampleKey: exampleSecret}, Now: func() time.Time { return tc.now }})
			a, err := v.Verify(r, "johnsmith")
			if tc.code == 0 {
				if err != nil || a != (Auth{AccessKeyID: exampleKey, Presigned: true}) {
					t.Fatalf("Verify = %+v, %v", a, err)
				}
				return
			}
			wantErr(t, err, tc.code, tc.msg)
		})
	}
}

// TestVerifyHeaderErrors covers the header form's refusals.
func TestVerifyHeaderErrors(t *testing.T) {
	base := examples[0]
	for _, tc := range []struct {
		name  string
		authz string
		now   time.Time
		date  string
		code  s3err.Code
		msg   string
	}{
		{name: "wrong signature", authz: "AWS " + exampleKey + ":bWq2s1WEIj+Ydj0vQ697zp+IXMV=", code: s3err.SignatureDoesNotMatch},
		{name: "unknown key", authz: "AWS AKIDUNKNOWN:" + base.sig, code: s3err.InvalidAccessKeyID},
		{name: "no colon", authz: "AWS " + exampleKey, code: s3err.InvalidArgument, msg: "AWS authorization header is invalid.  Expected AwsAccessKeyId:signature"},
		{name: "empty signature", authz: "AWS " + exampleKey + ":", code: s3err.InvalidArgument, msg: "AWS authorization header is invalid.  Expected AwsAccessKeyId:signature"},
		{name: "skew over 15 minutes", authz: "AWS " + exampleKey + ":" + base.sig, now: base.now.Add(15*time.Minute + time.Second), code: s3err.RequestTimeTooSkewed},
		{name: "skew under 15 minutes", authz: "AWS " + exampleKey + ":" + base.sig, now: base.now.Add(-15 * time.Minute)},
		{name: "no date", authz: "AWS " + exampleKey + ":" + base.sig, date: "-", code: s3err.AccessDenied, msg: "AWS authentication requires a valid Date or x-amz-date header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := exampleRequest(base)
			if tc.date == "-" {
				r.Header.Del("Date")
			}
			r.Header.Set("Authorization", tc.authz)
			now := tc.now
			if now.IsZero() {
				now = base.now
			}
			v := NewVerifier(Options{Credentials: creds{exampleKey: exampleSecret}, Now: func() time.Time { return now }})
			_, err := v.Verify(r, base.bucket)
			if tc.code == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantErr(t, err, tc.code, tc.msg)
		})
	}
}

func TestClaims(t *testing.T) {
	for _, tc := range []struct {
		target, authz string
		want          bool
	}{
		{target: "/b/k", authz: "AWS a:b", want: true},
		{target: "/b/k?AWSAccessKeyId=a&Signature=s&Expires=1", want: true},
		{target: "/b/k?Signature=s", want: true},
		{target: "/b/k", authz: "AWS4-HMAC-SHA256 Credential=a/b, SignedHeaders=host, Signature=c"},
		{target: "/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=s"},
		{target: "/b/k?AWSAccessKeyId=a&Signature=s", authz: "AWS a:b"},
		{target: "/b/k?AWSAccessKeyId=a&X-Amz-Algorithm=AWS4-HMAC-SHA256"},
		{target: "/b/k"},
	} {
		r := httptest.NewRequest("GET", tc.target, nil)
		if tc.authz != "" {
			r.Header.Set("Authorization", tc.authz)
		}
		if got := Claims(r); got != tc.want {
			t.Errorf("Claims(%s, %q) = %v, want %v", tc.target, tc.authz, got, tc.want)
		}
	}
}

func TestSubresourcesSigned(t *testing.T) {
	h := http.Header{"Date": {"d"}}
	q := url.Values{"versionId": {"v1"}, "acl": {""}, "prefix": {"p"}, "response-content-type": {"text/plain"}, "X-Amz-Foo": {"x"}}
	want := "GET\n\n\nd\n/b/k?acl&response-content-type=text/plain&versionId=v1"
	if got := StringToSign("GET", h, q, "/b/k", ""); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestVerifyPolicy(t *testing.T) {
	// The policy and signature are the example of AWS's "Browser-based
	// uploads using POST (AWS signature version 2)" form, recomputed
	// under the example secret.
	policy := "eyJleHBpcmF0aW9uIjogIjIwMDctMTItMDFUMTI6MDA6MDAuMDAwWiJ9"
	sig := Sign(exampleSecret, policy)
	v := NewVerifier(Options{Credentials: creds{exampleKey: exampleSecret}})
	if err := v.VerifyPolicy(exampleKey, policy, sig); err != nil {
		t.Fatal(err)
	}
	wantErr(t, v.VerifyPolicy(exampleKey, policy+"x", sig), s3err.SignatureDoesNotMatch, "")
	wantErr(t, v.VerifyPolicy("AKIDUNKNOWN", policy, sig), s3err.InvalidAccessKeyID, "")
}

func wantErr(t *testing.T, err error, code s3err.Code, msg string) {
	t.Helper()
	var e *s3err.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *s3err.Error", err)
	}
	if e.Code != code {
		t.Fatalf("code %v, want %v (%v)", e.Code, code, err)
	}
	if msg != "" && e.Message != msg {
		t.Fatalf("message %q, want %q", e.Message, msg)
	}
}

// TestVerifyBucketSlash checks that a path-style request to a bucket is
// taken signed with or without the slash after the bucket's name, as
// botocore signs "/bucket/" for "PUT /bucket", and that no other path
// gains one.
func TestVerifyBucketSlash(t *testing.T) {
	now := at("Tue, 27 Mar 2007 19:36:42 +0000")
	v := NewVerifier(Options{Credentials: creds{exampleKey: exampleSecret}, Now: func() time.Time { return now }})
	for _, tc := range []struct {
		target, signed string
		ok             bool
	}{
		{target: "/johnsmith", signed: "/johnsmith/", ok: true},
		{target: "/johnsmith", signed: "/johnsmith", ok: true},
		{target: "/johnsmith/", signed: "/johnsmith/", ok: true},
		{target: "/johnsmith/photos", signed: "/johnsmith/photos/"},
		{target: "/johnsmith?acl", signed: "/johnsmith/?acl", ok: true},
	} {
		r := httptest.NewRequest("PUT", tc.target, nil)
		r.Header.Set("Date", "Tue, 27 Mar 2007 19:36:42 +0000")
		r.Header.Set("Authorization", "AWS "+exampleKey+":"+Sign(exampleSecret, "PUT\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n"+tc.signed))
		_, err := v.Verify(r, "")
		if tc.ok && err != nil {
			t.Errorf("%s signed as %s: %v", tc.target, tc.signed, err)
		}
		if !tc.ok {
			wantErr(t, err, s3err.SignatureDoesNotMatch, "")
		}
	}
}

// TestVerifyOptionalSubresource checks that ListObjectsV2's list-type is
// taken signed (botocore) or not (minio-go, s3cmd), and that the list
// parameters never are.
func TestVerifyOptionalSubresource(t *testing.T) {
	now := at("Tue, 27 Mar 2007 19:36:42 +0000")
	v := NewVerifier(Options{Credentials: creds{exampleKey: exampleSecret}, Now: func() time.Time { return now }})
	for _, tc := range []struct {
		signed string
		ok     bool
	}{
		{signed: "/johnsmith?list-type=2", ok: true},
		{signed: "/johnsmith/?list-type=2", ok: true},
		{signed: "/johnsmith/", ok: true},
		{signed: "/johnsmith?list-type=2&prefix=v2/"},
	} {
		r := httptest.NewRequest("GET", "/johnsmith?list-type=2&prefix=v2%2F", nil)
		r.Header.Set("Date", "Tue, 27 Mar 2007 19:36:42 +0000")
		r.Header.Set("Authorization", "AWS "+exampleKey+":"+Sign(exampleSecret, "GET\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n"+tc.signed))
		_, err := v.Verify(r, "")
		if tc.ok && err != nil {
			t.Errorf("signed as %s: %v", tc.signed, err)
		}
		if !tc.ok {
			wantErr(t, err, s3err.SignatureDoesNotMatch, "")
		}
	}
}
