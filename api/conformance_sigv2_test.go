package api_test

// This file is the conformance suite of Signature Version 2: minio-go
// signing with SignatureV2, and raw requests signed by signV2 below, a
// signer written from AWS's "Signing and authenticating REST requests"
// independently of pkg/sigv2.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// v2Refusal is S3's message for Version 2 where only Version 4 is
// accepted.
const v2Refusal = "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256."

// emptySHA256 is the hex SHA-256 of an empty body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// withSigV2 accepts Signature Version 2, as objectgateway serve does by
// default.
func withSigV2() gatewayOption {
	return func(o *api.Options) { o.SigV2 = true }
}

// withCredentials replaces the gateway's credential store.
func withCredentials(c api.Options) gatewayOption {
	return func(o *api.Options) { o.Credentials = c.Credentials }
}

// v2Sum is the base64 HMAC-SHA1 of s under secret.
func v2Sum(secret, s string) string {
	m := hmac.New(sha1.New, []byte(secret))
	m.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// v2StringToSign is the Version 2 string to sign of req, whose signed
// resource (bucket, path and sub-resources) the caller spells out;
// dateLine is Date, or Expires for a presigned URL.
func v2StringToSign(req *http.Request, resource, dateLine string) string {
	var amz []string
	for name, vs := range req.Header {
		if l := strings.ToLower(name); strings.HasPrefix(l, "x-amz-") {
			amz = append(amz, l+":"+strings.Join(vs, ","))
		}
	}
	sort.Strings(amz)
	sts := req.Method + "\n" + req.Header.Get("Content-MD5") + "\n" + req.Header.Get("Content-Type") + "\n" + dateLine + "\n"
	for _, h := range amz {
		sts += h + "\n"
	}
	return sts + resource
}

// signV2 signs req in the Authorization header at time at.
func signV2(req *http.Request, accessKey, secret, resource string, at time.Time) {
	req.Header.Set("Date", at.UTC().Format(http.TimeFormat))
	req.Header.Set("Authorization", "AWS "+accessKey+":"+v2Sum(secret, v2StringToSign(req, resource, req.Header.Get("Date"))))
}

// presignV2 adds Version 2 query authentication to req, valid until
// expires.
func presignV2(req *http.Request, accessKey, secret, resource string, expires time.Time) {
	exp := strconv.FormatInt(expires.Unix(), 10)
	q := req.URL.RawQuery
	if q != "" {
		q += "&"
	}
	req.URL.RawQuery = q + "AWSAccessKeyId=" + url.QueryEscape(accessKey) + "&Expires=" + exp +
		"&Signature=" + url.QueryEscape(v2Sum(secret, v2StringToSign(req, resource, exp)))
}

// minioV2 is a path-style minio-go client signing with Signature
// Version 2.
func (g *gateway) minioV2() *minio.Client {
	return g.minio(false, func(o *minio.Options) {
		o.Creds = miniocreds.NewStatic(g.AccessKey, g.SecretKey, "", miniocreds.SignatureV2)
	})
}

// TestSigV2MinioOperations drives the gateway with minio-go signing
// every request with Signature Version 2: buckets, objects with
// metadata and awkward keys, listings, a multipart upload, an ACL
// sub-resource and a presigned GET fetched with plain net/http.
func TestSigV2MinioOperations(t *testing.T) {
	g := startGateway(t, withSigV2())
	c := g.minioV2()
	ctx := t.Context()
	bucket := uniqueBucket("sigv2")
	if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("MakeBucket: %v", err)
	}
	key := "dir/hello world+ü (1).txt"
	body := []byte("signed with version 2")
	if _, err := c.PutObject(ctx, bucket, key, bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{
		ContentType: "text/plain", UserMetadata: map[string]string{"Reviewed-By": "joe"},
	}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	st, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
	if err != nil || st.Size != int64(len(body)) || st.ContentType != "text/plain" || st.UserMetadata["Reviewed-By"] != "joe" {
		t.Fatalf("StatObject: %+v, %v", st, err)
	}
	obj, err := c.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatalf("GetObject: %v", err)
	}
	got, err := io.ReadAll(obj)
	obj.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("GetObject: %q, %v", got, err)
	}
	var listed []string
	for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: "dir/", Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("ListObjects: %v", o.Err)
		}
		listed = append(listed, o.Key)
	}
	if len(listed) != 1 || listed[0] != key {
		t.Fatalf("ListObjects = %q", listed)
	}
	if _, err := c.GetObjectACL(ctx, bucket, key); err != nil {
		t.Fatalf("GetObjectACL (the signed ?acl sub-resource): %v", err)
	}

	// Two 5 MiB parts: the smallest multipart upload minio-go makes.
	big := make([]byte, 10<<20)
	rand.Read(big)
	info, err := c.PutObject(ctx, bucket, "big", bytes.NewReader(big), int64(len(big)), minio.PutObjectOptions{PartSize: 5 << 20})
	if err != nil || !strings.HasSuffix(info.ETag, "-2") {
		t.Fatalf("multipart PutObject: %+v, %v", info, err)
	}
	obj, err = c.GetObject(ctx, bucket, "big", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(obj)
	obj.Close()
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("GetObject of the multipart object: %d bytes, %v", len(got), err)
	}

	u, err := c.PresignedGetObject(ctx, bucket, key, time.Hour, url.Values{"response-content-type": {"application/x-test"}})
	if err != nil {
		t.Fatalf("PresignedGetObject: %v", err)
	}
	if !u.Query().Has("AWSAccessKeyId") {
		t.Fatalf("minio-go presigned with another version: %s", u.RawQuery)
	}
	resp, err := g.httpClient().Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, body) || resp.Header.Get("Content-Type") != "application/x-test" {
		t.Fatalf("presigned GET: %d %q, Content-Type %q", resp.StatusCode, got, resp.Header.Get("Content-Type"))
	}

	for _, k := range []string{key, "big"} {
		if err := c.RemoveObject(ctx, bucket, k, minio.RemoveObjectOptions{}); err != nil {
			t.Fatalf("RemoveObject(%q): %v", k, err)
		}
	}
	if err := c.RemoveBucket(ctx, bucket); err != nil {
		t.Fatalf("RemoveBucket: %v", err)
	}
}

// v2Users is a credential store with a root user and others.
type v2Users struct {
	keys map[string]string
	root string
}

func (u v2Users) SecretKey(ak string) (string, bool) { s, ok := u.keys[ak]; return s, ok }
func (u v2Users) IsRoot(ak string) bool              { return ak == u.root }

// TestSigV2SamePrincipal checks that a Version 2 signature authenticates
// the same principal as a Version 4 one with the same access key, and
// that the access rules decide alike: a user's bucket is hers under
// either version, and another user is refused under either.
func TestSigV2SamePrincipal(t *testing.T) {
	users := v2Users{root: testAccessKey, keys: map[string]string{
		testAccessKey: testSecretKey, "AKIDALICE": "alice-secret", "AKIDBOB": "bob-secret",
	}}
	g := startGateway(t, withSigV2(), withCredentials(api.Options{Credentials: users}))
	bucket := uniqueBucket("principal")
	v2 := func(method, path, ak string, body []byte) (*http.Response, []byte) {
		req := g.rawRequest(method, path, "", body)
		signV2(req, ak, users.keys[ak], path, time.Now())
		return g.do(req, body, false)
	}
	v4 := func(method, path, ak string) (*http.Response, []byte) {
		req := g.rawRequest(method, path, "", nil)
		req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
		creds := aws.Credentials{AccessKeyID: ak, SecretAccessKey: users.keys[ak]}
		if err := signer.SignHTTP(context.Background(), creds, req, emptySHA256, "s3", g.Region, time.Now()); err != nil {
			t.Fatal(err)
		}
		return g.do(req, nil, false)
	}
	if resp, b := v2("PUT", "/"+bucket, "AKIDALICE", nil); resp.StatusCode != 200 {
		t.Fatalf("CreateBucket as alice with V2: %d %s", resp.StatusCode, b)
	}
	if resp, b := v2("PUT", "/"+bucket+"/k", "AKIDALICE", []byte("v")); resp.StatusCode != 200 {
		t.Fatalf("PutObject as alice with V2: %d %s", resp.StatusCode, b)
	}
	type owner struct {
		Owner struct{ ID string } `xml:"Owner"`
	}
	var o2, o4 owner
	resp, b := v2("GET", "/", "AKIDALICE", nil)
	if resp.StatusCode != 200 || xml.Unmarshal(b, &o2) != nil {
		t.Fatalf("ListBuckets as alice with V2: %d %s", resp.StatusCode, b)
	}
	resp, b = v4("GET", "/", "AKIDALICE")
	if resp.StatusCode != 200 || xml.Unmarshal(b, &o4) != nil {
		t.Fatalf("ListBuckets as alice with V4: %d %s", resp.StatusCode, b)
	}
	if o2.Owner.ID == "" || o2.Owner.ID != o4.Owner.ID {
		t.Fatalf("owner with V2 %q, with V4 %q", o2.Owner.ID, o4.Owner.ID)
	}
	if resp, b := v4("GET", "/"+bucket+"/k", "AKIDALICE"); resp.StatusCode != 200 || string(b) != "v" {
		t.Fatalf("alice's V2 upload read with V4: %d %q", resp.StatusCode, b)
	}
	resp, b = v2("GET", "/"+bucket+"/k", "AKIDBOB", nil)
	wantXMLError(t, "bob reads alice's object with V2", resp, b, 403, "AccessDenied")
	resp, b = v4("GET", "/"+bucket+"/k", "AKIDBOB")
	wantXMLError(t, "bob reads alice's object with V4", resp, b, 403, "AccessDenied")
}

// TestSigV2SignatureVersionCondition checks s3:signatureversion: "AWS"
// for a Version 2 signature, "AWS4-HMAC-SHA256" for Version 4, as in S3,
// so that the bucket policy AWS recommends to refuse Version 2 requests
// refuses them.
func TestSigV2SignatureVersionCondition(t *testing.T) {
	users := v2Users{root: testAccessKey, keys: map[string]string{
		testAccessKey: testSecretKey, "AKIDALICE": "alice-secret", "AKIDBOB": "bob-secret",
	}}
	g := startGateway(t, withSigV2(), withCredentials(api.Options{Credentials: users}))
	alice := g.sdkWith(sdkModes[0], "AKIDALICE", users.keys["AKIDALICE"])
	ctx := t.Context()
	bucket := uniqueBucket("sigversion")
	if _, err := alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, alice, bucket, "k", "v")
	v2 := func(ak string) (*http.Response, []byte) {
		path := "/" + bucket + "/k"
		req := g.rawRequest("GET", path, "", nil)
		signV2(req, ak, users.keys[ak], path, time.Now())
		return g.do(req, nil, false)
	}
	v4 := func(ak string) (*http.Response, []byte) {
		req := g.rawRequest("GET", "/"+bucket+"/k", "", nil)
		req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
		creds := aws.Credentials{AccessKeyID: ak, SecretAccessKey: users.keys[ak]}
		if err := signer.SignHTTP(context.Background(), creds, req, emptySHA256, "s3", g.Region, time.Now()); err != nil {
			t.Fatal(err)
		}
		return g.do(req, nil, false)
	}
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::` + bucket + `/*","Condition":{"StringEquals":{"s3:signatureversion":"AWS"}}},
		{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + bucket + `/*","Condition":{"StringNotEquals":{"s3:signatureversion":"AWS4-HMAC-SHA256"}}}]}`
	if _, err := alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	if resp, b := v4("AKIDALICE"); resp.StatusCode != 200 || string(b) != "v" {
		t.Errorf("alice GET with V4 under the Deny of other versions: %d %s", resp.StatusCode, b)
	}
	resp, b := v2("AKIDALICE")
	wantXMLError(t, "alice GET with V2 under the Deny of other versions", resp, b, 403, "AccessDenied")
	// bob's grant names Version 2, which the Deny refuses; with Version 4
	// nothing grants him the object.
	resp, b = v2("AKIDBOB")
	wantXMLError(t, "bob GET with V2", resp, b, 403, "AccessDenied")
	resp, b = v4("AKIDBOB")
	wantXMLError(t, "bob GET with V4", resp, b, 403, "AccessDenied")
	doc = `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::` + bucket + `/*","Condition":{"StringEquals":{"s3:signatureversion":"AWS"}}}]}`
	if _, err := alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	if resp, b := v2("AKIDBOB"); resp.StatusCode != 200 || string(b) != "v" {
		t.Errorf("bob GET with V2, granted for s3:signatureversion AWS: %d %s", resp.StatusCode, b)
	}
	resp, b = v4("AKIDBOB")
	wantXMLError(t, "bob GET with V4, granted only for V2", resp, b, 403, "AccessDenied")
}

// TestSigV2Errors checks the answers to Version 2 signatures that do not
// authenticate, against raw requests.
func TestSigV2Errors(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	g := startGateway(t, withSigV2(), withNow(func() time.Time { return now }))
	bucket := uniqueBucket("v2err")
	req := g.rawRequest("PUT", "/"+bucket, "", nil)
	signV2(req, g.AccessKey, g.SecretKey, "/"+bucket, now)
	if resp, b := g.do(req, nil, false); resp.StatusCode != 200 {
		t.Fatalf("CreateBucket: %d %s", resp.StatusCode, b)
	}
	path := "/" + bucket + "/obj"

	t.Run("bad signature", func(t *testing.T) {
		req := g.rawRequest("GET", path, "", nil)
		signV2(req, g.AccessKey, "not the secret", path, now)
		resp, b := g.do(req, nil, false)
		wantXMLError(t, "GET", resp, b, 403, "SignatureDoesNotMatch")
	})
	t.Run("unsigned x-amz header added", func(t *testing.T) {
		req := g.rawRequest("GET", path, "", nil)
		signV2(req, g.AccessKey, g.SecretKey, path, now)
		req.Header.Set("X-Amz-Acl", "public-read")
		resp, b := g.do(req, nil, false)
		wantXMLError(t, "GET", resp, b, 403, "SignatureDoesNotMatch")
	})
	t.Run("unknown access key", func(t *testing.T) {
		req := g.rawRequest("GET", path, "", nil)
		signV2(req, "AKIDNOBODY", g.SecretKey, path, now)
		resp, b := g.do(req, nil, false)
		wantXMLError(t, "GET", resp, b, 403, "InvalidAccessKeyId")
	})
	t.Run("clock skew", func(t *testing.T) {
		req := g.rawRequest("GET", path, "", nil)
		signV2(req, g.AccessKey, g.SecretKey, path, now.Add(-16*time.Minute))
		resp, b := g.do(req, nil, false)
		wantXMLError(t, "GET", resp, b, 403, "RequestTimeTooSkewed")
	})
	t.Run("malformed header", func(t *testing.T) {
		req := g.rawRequest("GET", path, "", nil)
		req.Header.Set("Date", now.UTC().Format(http.TimeFormat))
		req.Header.Set("Authorization", "AWS "+g.AccessKey)
		resp, b := g.do(req, nil, false)
		wantXMLError(t, "GET", resp, b, 400, "InvalidArgument")
	})
	t.Run("expired presigned URL", func(t *testing.T) {
		req := g.rawRequest("GET", path, "", nil)
		presignV2(req, g.AccessKey, g.SecretKey, path, now.Add(-time.Second))
		resp, b := g.do(req, nil, false)
		wantXMLError(t, "GET", resp, b, 403, "AccessDenied")
		var e s3Error
		if xml.Unmarshal(b, &e); e.Message != "Request has expired" {
			t.Errorf("message %q", e.Message)
		}
	})
	t.Run("presigned PUT, Content-MD5 checked", func(t *testing.T) {
		body := []byte("payload")
		sum := md5.Sum([]byte("other"))
		req := g.rawRequest("PUT", path, "", body)
		req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
		presignV2(req, g.AccessKey, g.SecretKey, path, now.Add(time.Minute))
		resp, b := g.do(req, body, false)
		wantXMLError(t, "PUT", resp, b, 400, "BadDigest")
		sum = md5.Sum(body)
		req = g.rawRequest("PUT", path, "", body)
		req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
		presignV2(req, g.AccessKey, g.SecretKey, path, now.Add(time.Minute))
		if resp, b := g.do(req, body, false); resp.StatusCode != 200 {
			t.Fatalf("presigned PUT: %d %s", resp.StatusCode, b)
		}
	})
	t.Run("virtual-hosted style", func(t *testing.T) {
		vg := startGateway(t, withSigV2(), withDomain("s3.test"), withNow(func() time.Time { return now }))
		vb := uniqueBucket("v2vhost")
		client := vg.httpClient()
		tr := vg.transport().(requestIDCheck).next.(*http.Transport)
		tr.DialContext = dialer(strings.TrimPrefix(vg.Endpoint, "http://"), "s3.test")
		client.Transport = tr
		for _, step := range []struct {
			method, path string
			body         []byte
		}{{"PUT", "/", nil}, {"PUT", "/k", []byte("v")}, {"GET", "/k", nil}} {
			req, err := http.NewRequest(step.method, "http://"+vb+".s3.test"+step.path, bytes.NewReader(step.body))
			if err != nil {
				t.Fatal(err)
			}
			signV2(req, vg.AccessKey, vg.SecretKey, "/"+vb+step.path, now)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", step.method, step.path, resp.StatusCode, b)
			}
		}
	})
}

// TestSigV2Disabled checks that a gateway without SigV2 (--sigv2=false)
// refuses Version 2 headers, presigned URLs and POST policies with S3's
// answer where only Version 4 is accepted.
func TestSigV2Disabled(t *testing.T) {
	g := startGateway(t)
	bucket := uniqueBucket("nov2")
	if resp, b := g.do(g.rawRequest("PUT", "/"+bucket, "", nil), nil, true); resp.StatusCode != 200 {
		t.Fatalf("CreateBucket: %d %s", resp.StatusCode, b)
	}
	path := "/" + bucket + "/obj"
	check := func(what string, resp *http.Response, b []byte) {
		t.Helper()
		wantXMLError(t, what, resp, b, 400, "InvalidRequest")
		var e s3Error
		if xml.Unmarshal(b, &e); e.Message != v2Refusal {
			t.Errorf("%s: message %q, want %q", what, e.Message, v2Refusal)
		}
	}
	req := g.rawRequest("GET", path, "", nil)
	signV2(req, g.AccessKey, g.SecretKey, path, time.Now())
	resp, b := g.do(req, nil, false)
	check("header", resp, b)
	req = g.rawRequest("GET", path, "", nil)
	presignV2(req, g.AccessKey, g.SecretKey, path, time.Now().Add(time.Hour))
	resp, b = g.do(req, nil, false)
	check("presigned", resp, b)
	resp, b = g.postUpload(bucket, g.signPostV2(bucket, time.Now().Add(time.Hour), g.SecretKey), "a.txt", []byte("x"))
	check("POST", resp, b)
}

// signPostV2 returns the fields of a Version 2 browser upload of the key
// "uploads/${filename}" to bucket.
func (g *gateway) signPostV2(bucket string, expiration time.Time, secret string) []postField {
	g.t.Helper()
	doc, err := json.Marshal(map[string]any{
		"expiration": expiration.UTC().Format("2006-01-02T15:04:05.000Z"),
		"conditions": []any{
			map[string]string{"bucket": bucket},
			[]any{"starts-with", "$key", "uploads/"},
			map[string]string{"x-amz-meta-owner": "eric"},
		},
	})
	if err != nil {
		g.t.Fatal(err)
	}
	policy := base64.StdEncoding.EncodeToString(doc)
	return []postField{
		{"key", "uploads/${filename}"},
		{"AWSAccessKeyId", g.AccessKey},
		{"policy", policy},
		{"signature", v2Sum(secret, policy)},
		{"x-amz-meta-owner", "eric"},
	}
}

// TestSigV2PostObject checks a Version 2 browser upload: its policy
// signature authenticates the upload, and the policy's conditions are
// checked as a Version 4 policy's are.
func TestSigV2PostObject(t *testing.T) {
	g := startGateway(t, withSigV2())
	bucket := uniqueBucket("v2post")
	if resp, b := g.do(g.rawRequest("PUT", "/"+bucket, "", nil), nil, true); resp.StatusCode != 200 {
		t.Fatalf("CreateBucket: %d %s", resp.StatusCode, b)
	}
	exp := time.Now().Add(time.Hour)
	resp, b := g.postUpload(bucket, g.signPostV2(bucket, exp, g.SecretKey), "a.txt", []byte("posted"))
	if resp.StatusCode != 204 {
		t.Fatalf("POST: %d %s", resp.StatusCode, b)
	}
	resp, b = g.do(g.rawRequest("GET", "/"+bucket+"/uploads/a.txt", "", nil), nil, true)
	if resp.StatusCode != 200 || string(b) != "posted" || resp.Header.Get("X-Amz-Meta-Owner") != "eric" {
		t.Fatalf("GET after POST: %d %q %v", resp.StatusCode, b, resp.Header)
	}

	resp, b = g.postUpload(bucket, g.signPostV2(bucket, exp, "not the secret"), "b.txt", []byte("x"))
	wantXMLError(t, "wrong signature", resp, b, 403, "SignatureDoesNotMatch")

	fields := g.signPostV2(bucket, exp, g.SecretKey)
	fields[len(fields)-1].value = "mallory"
	resp, b = g.postUpload(bucket, fields, "c.txt", []byte("x"))
	wantXMLError(t, "field against the policy", resp, b, 403, "AccessDenied")

	resp, b = g.postUpload(bucket, g.signPostV2(bucket, time.Now().Add(-time.Minute), g.SecretKey), "d.txt", []byte("x"))
	wantXMLError(t, "expired policy", resp, b, 403, "AccessDenied")

	fields = g.signPostV2(bucket, exp, g.SecretKey)
	fields[1].value = "AKIDNOBODY"
	resp, b = g.postUpload(bucket, fields, "e.txt", []byte("x"))
	wantXMLError(t, "unknown access key", resp, b, 403, "InvalidAccessKeyId")
}

// TestSigV2SignatureVersionDenyAWS checks s3:signatureversion "AWS" on
// the other forms of a Version 2 request TestSigV2SignatureVersionCondition
// does not send: under a Deny on StringEquals s3:signatureversion "AWS"
// (the form of S3's policy refusing Version 2), a GET signed in the
// Authorization header, a presigned GET and a POST upload with a Version 2
// policy signature are all refused, and a Version 4 GET is not.
func TestSigV2SignatureVersionDenyAWS(t *testing.T) {
	users := v2Users{root: testAccessKey, keys: map[string]string{
		testAccessKey: testSecretKey, "AKIDALICE": "alice-secret",
	}}
	g := startGateway(t, withSigV2(), withCredentials(api.Options{Credentials: users}))
	ctx := t.Context()
	alice := g.sdkWith(sdkModes[0], "AKIDALICE", "alice-secret")
	bucket := uniqueBucket("v2deny")
	if _, err := alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, alice, bucket, "k", "v")
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*",
		"Resource":["arn:aws:s3:::` + bucket + `","arn:aws:s3:::` + bucket + `/*"],
		"Condition":{"StringEquals":{"s3:signatureversion":"AWS"}}}]}`
	if _, err := alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	path := "/" + bucket + "/k"
	req := g.rawRequest("GET", path, "", nil)
	signV2(req, "AKIDALICE", "alice-secret", path, time.Now())
	resp, b := g.do(req, nil, false)
	wantXMLError(t, "V2 GET under a policy denying V2", resp, b, 403, "AccessDenied")
	req = g.rawRequest("GET", path, "", nil)
	presignV2(req, "AKIDALICE", "alice-secret", path, time.Now().Add(time.Minute))
	resp, b = g.do(req, nil, false)
	wantXMLError(t, "V2 presigned GET under a policy denying V2", resp, b, 403, "AccessDenied")
	fields := g.signPostV2(bucket, time.Now().Add(time.Hour), "alice-secret")
	fields[1].value = "AKIDALICE"
	resp, b = g.postUpload(bucket, fields, "a.txt", []byte("posted"))
	wantXMLError(t, "V2 POST upload under a policy denying V2", resp, b, 403, "AccessDenied")
	if _, err := alice.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); err != nil {
		t.Errorf("V4 GetObject under a policy denying V2: %v", err)
	}
}

// TestBucketPolicyUnsignedPayload checks s3:x-amz-content-sha256 with the
// policy AWS gives to refuse uploads whose payload is not signed (a Deny
// of s3:PutObject where the key equals UNSIGNED-PAYLOAD). The key is the
// payload mode the request was verified with: the header of a Version 4
// signature; UNSIGNED-PAYLOAD for a presigned URL, whose canonical request
// signs that constant, and for a Version 2 signature, which signs no body,
// when they carry no digest. Before, presigned and Version 2 uploads had no
// key and passed the Deny.
func TestBucketPolicyUnsignedPayload(t *testing.T) {
	users := v2Users{root: testAccessKey, keys: map[string]string{
		testAccessKey: testSecretKey, "AKIDALICE": "alice-secret", "AKIDBOB": "bob-secret",
	}}
	g := startGateway(t, withSigV2(), withCredentials(api.Options{Credentials: users}))
	alice := g.sdkWith(sdkModes[0], "AKIDALICE", users.keys["AKIDALICE"])
	ctx := t.Context()
	bucket := uniqueBucket("unsigned")
	if _, err := alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	res := `"arn:aws:s3:::` + bucket + `/*"`
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:PutObject","Resource":` + res + `},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":` + res + `,"Condition":{"StringEquals":{"s3:x-amz-content-sha256":"UNSIGNED-PAYLOAD"}}}]}`
	if _, err := alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	body := []byte("payload")
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	bob := aws.Credentials{AccessKeyID: "AKIDBOB", SecretAccessKey: users.keys["AKIDBOB"]}
	v4 := func(key, payload string) (*http.Response, []byte) {
		req := g.rawRequest("PUT", "/"+bucket+"/"+key, "", body)
		req.Header.Set("X-Amz-Content-Sha256", payload)
		if err := signer.SignHTTP(ctx, bob, req, payload, "s3", g.Region, time.Now()); err != nil {
			t.Fatal(err)
		}
		return g.do(req, body, false)
	}
	if resp, b := v4("signed", digest); resp.StatusCode != 200 {
		t.Errorf("bob PUT with a signed payload: %d %s", resp.StatusCode, b)
	}
	resp, b := v4("unsigned-header", "UNSIGNED-PAYLOAD")
	wantXMLError(t, "bob PUT with x-amz-content-sha256: UNSIGNED-PAYLOAD", resp, b, 403, "AccessDenied")

	req := g.rawRequest("PUT", "/"+bucket+"/presigned", "", body)
	sigv4.Presign(req, "AKIDBOB", users.keys["AKIDBOB"], g.Region, time.Now(), time.Hour)
	resp, b = g.do(req, body, false)
	wantXMLError(t, "bob presigned PUT (UNSIGNED-PAYLOAD)", resp, b, 403, "AccessDenied")

	path := "/" + bucket + "/v2"
	req = g.rawRequest("PUT", path, "", body)
	signV2(req, "AKIDBOB", users.keys["AKIDBOB"], path, time.Now())
	resp, b = g.do(req, body, false)
	wantXMLError(t, "bob PUT signed with Version 2", resp, b, 403, "AccessDenied")

	path = "/" + bucket + "/v2-presigned"
	req = g.rawRequest("PUT", path, "", body)
	presignV2(req, "AKIDBOB", users.keys["AKIDBOB"], path, time.Now().Add(time.Hour))
	resp, b = g.do(req, body, false)
	wantXMLError(t, "bob PUT presigned with Version 2", resp, b, 403, "AccessDenied")

	if _, err := alice.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("presigned")}); err == nil {
		t.Error("the refused presigned PUT stored its object")
	}
}
