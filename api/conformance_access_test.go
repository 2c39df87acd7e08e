package api_test

// Conformance of access for clients without credentials: bucket policies,
// canned ACLs, CORS and browser POST uploads.

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// publicReadPolicy is the standard public-read policy for bucket, limited
// to keys under prefix ("" for all), plus s3:ListBucket when list is set.
func publicReadPolicy(bucket, prefix string, list bool) string {
	stmts := []string{fmt.Sprintf(`{"Sid":"PublicRead","Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/%s*"}`, bucket, prefix)}
	if list {
		stmts = append(stmts, fmt.Sprintf(`{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:ListBucket"],"Resource":"arn:aws:s3:::%s"}`, bucket))
	}
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(stmts, ",") + `]}`
}

// anon sends a request without credentials and returns the response and
// its body.
func (g *gateway) anon(method, path, rawQuery string, hdr map[string]string, body []byte) (*http.Response, []byte) {
	g.t.Helper()
	req := g.rawRequest(method, path, rawQuery, body)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return g.do(req, body, false)
}

func mustPut(t *testing.T, c *s3.Client, bucket, key, body string) {
	t.Helper()
	_, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)})
	if err != nil {
		t.Fatalf("PutObject(%s/%s): %v", bucket, key, err)
	}
}

// TestConformanceMissingKeyListBucket: whether a read of a key that does
// not exist is NoSuchKey or AccessDenied is decided by s3:ListBucket
// alone, as S3 decides it: a missing object has no ACL to grant its read.
// A public-read bucket (its ACL's READ to AllUsers lists it) answers
// anonymous reads of a missing key 404 (s3-tests' test_cors_origin_response
// expects it, with the CORS headers); an existing object nobody granted
// stays 403, and so does a key an explicit Deny covers.
func TestConformanceMissingKeyListBucket(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	acl, listOnly, denied, priv := uniqueBucket("aclread"), uniqueBucket("listonly"), uniqueBucket("denied"), uniqueBucket("private")
	for _, b := range []string{acl, listOnly, denied, priv} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
		mustPut(t, c, b, "private.txt", "p")
	}
	if _, err := c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(acl), ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(listOnly), Policy: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::` + listOnly + `"}]}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(denied), Policy: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::` + denied + `"},
		{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + denied + `/*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{acl, listOnly} {
		resp, body := g.anon("GET", "/"+b+"/missing", "", nil, nil)
		wantXMLError(t, "anonymous GET of a missing key in "+b, resp, body, 404, "NoSuchKey")
		if resp, _ := g.anon("HEAD", "/"+b+"/missing", "", nil, nil); resp.StatusCode != 404 {
			t.Errorf("anonymous HEAD of a missing key in %s: %d, want 404", b, resp.StatusCode)
		}
		resp, body = g.anon("GET", "/"+b+"/private.txt", "", nil, nil)
		wantXMLError(t, "anonymous GET of an existing private object in "+b, resp, body, 403, "AccessDenied")
	}
	resp, body := g.anon("GET", "/"+denied+"/missing", "", nil, nil)
	wantXMLError(t, "anonymous GET of a missing key under a Deny of s3:GetObject", resp, body, 403, "AccessDenied")
	resp, body = g.anon("GET", "/"+priv+"/missing", "", nil, nil)
	wantXMLError(t, "anonymous GET of a missing key in a private bucket", resp, body, 403, "AccessDenied")

	// The CORS headers of a matching rule go with the 404, as with any
	// answer to an actual request.
	if _, err := c.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(acl), CORSConfiguration: &types.CORSConfiguration{
		CORSRules: []types.CORSRule{{AllowedMethods: []string{"GET"}, AllowedOrigins: []string{"*suffix"}}}}}); err != nil {
		t.Fatal(err)
	}
	resp, body = g.anon("GET", "/"+acl+"/bar", "", map[string]string{"Origin": "foo.suffix"}, nil)
	wantXMLError(t, "anonymous GET of a missing key with an Origin", resp, body, 404, "NoSuchKey")
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "foo.suffix" {
		t.Errorf("Access-Control-Allow-Origin %q on the 404, want foo.suffix", got)
	}
}

func TestConformanceBucketPolicySDK(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("policy")
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatal(err)
			}
			_, err := c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(bucket)})
			wantCode(t, "GetBucketPolicy(none)", err, 404, "NoSuchBucketPolicy")
			_, err = c.GetBucketPolicyStatus(ctx, &s3.GetBucketPolicyStatusInput{Bucket: aws.String(bucket)})
			wantCode(t, "GetBucketPolicyStatus(none)", err, 404, "NoSuchBucketPolicy")

			doc := publicReadPolicy(bucket, "", true)
			if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
				t.Fatalf("PutBucketPolicy: %v", err)
			}
			got, err := c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(bucket)})
			if err != nil {
				t.Fatalf("GetBucketPolicy: %v", err)
			}
			if aws.ToString(got.Policy) != doc {
				t.Errorf("GetBucketPolicy = %q, want %q", aws.ToString(got.Policy), doc)
			}
			st, err := c.GetBucketPolicyStatus(ctx, &s3.GetBucketPolicyStatusInput{Bucket: aws.String(bucket)})
			if err != nil || st.PolicyStatus == nil || !aws.ToBool(st.PolicyStatus.IsPublic) {
				t.Errorf("GetBucketPolicyStatus = %+v, %v; want IsPublic", st, err)
			}

			for name, bad := range map[string]string{
				"bad effect":     strings.Replace(doc, `"Allow"`, `"Perhaps"`, 1),
				"bad condition":  `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + bucket + `/*","Condition":{"IpAddress":{"aws:SourceIp":"192.0.2.0/33"}}}]}`,
				"unknown action": strings.Replace(doc, "s3:GetObject", "s3:GetObjekt", 1),
				"other bucket":   publicReadPolicy("someone-else", "", false),
				"role principal": strings.Replace(doc, `"Principal":"*"`, `"Principal":{"AWS":"arn:aws:iam::111122223333:role/r"}`, 1),
				"not json":       `Version: 2012-10-17`,
			} {
				_, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(bad)})
				wantCode(t, "PutBucketPolicy("+name+")", err, 400, "MalformedPolicy")
			}
			// A rejected policy leaves the stored one alone.
			if got, err := c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(bucket)}); err != nil || aws.ToString(got.Policy) != doc {
				t.Errorf("policy after rejected puts: %v", err)
			}

			if _, err := c.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatalf("DeleteBucketPolicy: %v", err)
			}
			_, err = c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(bucket)})
			wantCode(t, "GetBucketPolicy(deleted)", err, 404, "NoSuchBucketPolicy")
			_, err = c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String("no-such-bucket-x"), Policy: aws.String(doc)})
			wantCode(t, "PutBucketPolicy(missing bucket)", err, 404, "NoSuchBucket")
		})
	}
}

func TestConformanceAnonymousAccess(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	pub, priv := uniqueBucket("public"), uniqueBucket("private")
	for _, b := range []string{pub, priv} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
		mustPut(t, c, b, "index.html", "<h1>hello</h1>")
		mustPut(t, c, b, "public/a.txt", "aaa")
	}
	setPolicy := func(doc string) {
		t.Helper()
		if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(pub), Policy: aws.String(doc)}); err != nil {
			t.Fatalf("PutBucketPolicy: %v", err)
		}
	}

	// Before any policy, both buckets are private.
	resp, body := g.anon("GET", "/"+pub+"/index.html", "", nil, nil)
	wantXMLError(t, "anonymous GET before policy", resp, body, 403, "AccessDenied")

	setPolicy(publicReadPolicy(pub, "", false))

	resp, body = g.anon("GET", "/"+pub+"/index.html", "", nil, nil)
	if resp.StatusCode != 200 || string(body) != "<h1>hello</h1>" {
		t.Fatalf("anonymous GET public object: %d %q", resp.StatusCode, body)
	}
	etag, lastMod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if etag == "" || lastMod == "" {
		t.Errorf("anonymous GET lacks validators: ETag %q Last-Modified %q", etag, lastMod)
	}
	resp, _ = g.anon("HEAD", "/"+pub+"/index.html", "", nil, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Length") != "14" {
		t.Errorf("anonymous HEAD: %d, Content-Length %q", resp.StatusCode, resp.Header.Get("Content-Length"))
	}
	// What an edge cache does: revalidate, and fetch ranges.
	resp, _ = g.anon("GET", "/"+pub+"/index.html", "", map[string]string{"If-None-Match": etag}, nil)
	if resp.StatusCode != 304 {
		t.Errorf("anonymous revalidation with If-None-Match: %d, want 304", resp.StatusCode)
	}
	resp, body = g.anon("GET", "/"+pub+"/index.html", "", map[string]string{"Range": "bytes=1-2"}, nil)
	if resp.StatusCode != 206 || string(body) != "h1" {
		t.Errorf("anonymous range: %d %q", resp.StatusCode, body)
	}
	resp, body = g.anon("GET", "/"+pub+"/index.html", "response-content-type=text/plain", nil, nil)
	wantXMLError(t, "anonymous GET with response override", resp, body, 400, "InvalidRequest")

	resp, body = g.anon("GET", "/"+priv+"/index.html", "", nil, nil)
	wantXMLError(t, "anonymous GET private object", resp, body, 403, "AccessDenied")
	resp, _ = g.anon("HEAD", "/"+priv+"/index.html", "", nil, nil)
	if resp.StatusCode != 403 {
		t.Errorf("anonymous HEAD private object: %d, want 403", resp.StatusCode)
	}
	resp, body = g.anon("GET", "/no-such-bucket-anon/index.html", "", nil, nil)
	wantXMLError(t, "anonymous GET in a missing bucket", resp, body, 403, "AccessDenied")

	resp, body = g.anon("PUT", "/"+pub+"/new.txt", "", nil, []byte("x"))
	wantXMLError(t, "anonymous PUT on public bucket", resp, body, 403, "AccessDenied")
	resp, body = g.anon("DELETE", "/"+pub+"/index.html", "", nil, nil)
	wantXMLError(t, "anonymous DELETE on public bucket", resp, body, 403, "AccessDenied")
	resp, body = g.anon("GET", "/"+pub, "policy", nil, nil)
	wantXMLError(t, "anonymous GetBucketPolicy", resp, body, 403, "AccessDenied")
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(pub), Key: aws.String("index.html")}); err != nil {
		t.Errorf("object gone after anonymous DELETE: %v", err)
	}

	// Without s3:ListBucket, a missing key is indistinguishable from a
	// forbidden one, and listing is denied.
	resp, body = g.anon("GET", "/"+pub+"/missing", "", nil, nil)
	wantXMLError(t, "anonymous GET missing key without ListBucket", resp, body, 403, "AccessDenied")
	resp, body = g.anon("GET", "/"+pub, "list-type=2", nil, nil)
	wantXMLError(t, "anonymous ListObjectsV2 without ListBucket", resp, body, 403, "AccessDenied")

	setPolicy(publicReadPolicy(pub, "", true))
	for _, q := range []string{"list-type=2", ""} {
		resp, body = g.anon("GET", "/"+pub, q, nil, nil)
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte("<Key>public/a.txt</Key>")) {
			t.Errorf("anonymous list ?%s with ListBucket: %d %q", q, resp.StatusCode, body)
		}
	}
	// s3:ListBucket does not cover listing versions (s3:ListBucketVersions,
	// which no accepted policy grants).
	resp, body = g.anon("GET", "/"+pub, "versions", nil, nil)
	wantXMLError(t, "anonymous ListObjectVersions with only ListBucket", resp, body, 403, "AccessDenied")
	resp, body = g.anon("GET", "/"+pub+"/missing", "", nil, nil)
	wantXMLError(t, "anonymous GET missing key with ListBucket", resp, body, 404, "NoSuchKey")
	resp, body = g.anon("GET", "/"+priv, "list-type=2", nil, nil)
	wantXMLError(t, "anonymous list of private bucket", resp, body, 403, "AccessDenied")

	// A prefix grant.
	setPolicy(publicReadPolicy(pub, "public/", false))
	resp, body = g.anon("GET", "/"+pub+"/public/a.txt", "", nil, nil)
	if resp.StatusCode != 200 || string(body) != "aaa" {
		t.Errorf("anonymous GET under granted prefix: %d %q", resp.StatusCode, body)
	}
	resp, body = g.anon("GET", "/"+pub+"/index.html", "", nil, nil)
	wantXMLError(t, "anonymous GET outside granted prefix", resp, body, 403, "AccessDenied")

	// Deleting the policy makes the bucket private again.
	if _, err := c.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String(pub)}); err != nil {
		t.Fatal(err)
	}
	resp, body = g.anon("GET", "/"+pub+"/public/a.txt", "", nil, nil)
	wantXMLError(t, "anonymous GET after DeleteBucketPolicy", resp, body, 403, "AccessDenied")

	// Signed requests are unaffected by all of this.
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(priv), Key: aws.String("index.html")})
	if err != nil {
		t.Fatalf("signed GET: %v", err)
	}
	out.Body.Close()
}

// TestConformanceCannedACL: the bucket ACL public-read, canned or as a
// body, lets everyone list the bucket (and its versions) and, as in S3,
// not read its objects; private takes it back.
func TestConformanceCannedACL(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("acl")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket), ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatalf("CreateBucket(public-read): %v", err)
	}
	mustPut(t, c, bucket, "k", "v")

	wantPublic := func(what string, public bool) {
		t.Helper()
		resp, body := g.anon("GET", "/"+bucket+"/k", "", nil, nil)
		listResp, _ := g.anon("GET", "/"+bucket, "list-type=2", nil, nil)
		versResp, versBody := g.anon("GET", "/"+bucket, "versions", nil, nil)
		wantXMLError(t, what+": anonymous GET of a private object", resp, body, 403, "AccessDenied")
		if public && (listResp.StatusCode != 200 || versResp.StatusCode != 200) {
			t.Errorf("%s: anonymous list %d, list versions %d; want 200, 200", what, listResp.StatusCode, versResp.StatusCode)
		}
		if !public {
			wantXMLError(t, what+": anonymous ListObjectVersions", versResp, versBody, 403, "AccessDenied")
		}
		acl, err := c.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: aws.String(bucket)})
		if err != nil {
			t.Fatalf("%s: GetBucketAcl: %v", what, err)
		}
		owner, everyone := classifyGrants(t, what, acl.Owner, acl.Grants)
		if !owner || everyone != public || len(acl.Grants) != map[bool]int{false: 1, true: 2}[public] {
			t.Errorf("%s: GetBucketAcl grants %+v (owner %v, everyone %v)", what, acl.Grants, owner, everyone)
		}
	}
	wantPublic("created public-read", true)

	if _, err := c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket), ACL: types.BucketCannedACLPrivate}); err != nil {
		t.Fatalf("PutBucketAcl(private): %v", err)
	}
	wantPublic("after private", false)
	if _, err := c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket), ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatalf("PutBucketAcl(public-read): %v", err)
	}
	wantPublic("after public-read", true)

	// An AccessControlPolicy body: GetBucketAcl's own output without the
	// AllUsers grant, then with it.
	acl, err := c.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	var ownerOnly []types.Grant
	for _, gr := range acl.Grants {
		if gr.Grantee.Type == types.TypeCanonicalUser {
			ownerOnly = append(ownerOnly, gr)
		}
	}
	_, err = c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket), AccessControlPolicy: &types.AccessControlPolicy{Owner: acl.Owner, Grants: ownerOnly}})
	if err != nil {
		t.Fatalf("PutBucketAcl(owner-only body): %v", err)
	}
	wantPublic("after owner-only body", false)
	_, err = c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket), AccessControlPolicy: &types.AccessControlPolicy{Owner: acl.Owner, Grants: acl.Grants}})
	if err != nil {
		t.Fatalf("PutBucketAcl(AllUsers READ body): %v", err)
	}
	wantPublic("after AllUsers READ body", true)

	// public-read-write: everyone may also write.
	if _, err := c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket), ACL: types.BucketCannedACLPublicReadWrite}); err != nil {
		t.Fatalf("PutBucketAcl(public-read-write): %v", err)
	}
	if resp, body := g.anon("PUT", "/"+bucket+"/by-anyone", "", nil, []byte("x")); resp.StatusCode != 200 {
		t.Errorf("anonymous PUT into a public-read-write bucket: %d %s", resp.StatusCode, body)
	}
	_, err = c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket), ACL: "public"})
	wantCode(t, "PutBucketAcl(unknown canned ACL)", err, 400, "InvalidArgument")
	_, err = c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket)})
	wantCode(t, "PutBucketAcl(nothing)", err, 400, "MissingSecurityHeader")
}

const corsConfigXML = `<CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
	`<CORSRule><ID>app</ID><AllowedHeader>content-type</AllowedHeader><AllowedHeader>x-amz-*</AllowedHeader>` +
	`<AllowedMethod>PUT</AllowedMethod><AllowedMethod>GET</AllowedMethod><AllowedOrigin>https://*.example.com</AllowedOrigin>` +
	`<ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>600</MaxAgeSeconds></CORSRule>` +
	`<CORSRule><AllowedMethod>GET</AllowedMethod><AllowedOrigin>*</AllowedOrigin></CORSRule></CORSConfiguration>`

// classifyGrants reports whether grants give the owner FULL_CONTROL and
// everyone READ, failing on any other grant.
func classifyGrants(t *testing.T, what string, o *types.Owner, grants []types.Grant) (owner, everyone bool) {
	t.Helper()
	for _, gr := range grants {
		switch {
		case gr.Grantee.Type == types.TypeCanonicalUser && o != nil && aws.ToString(gr.Grantee.ID) == aws.ToString(o.ID) && gr.Permission == types.PermissionFullControl:
			owner = true
		case gr.Grantee.Type == types.TypeGroup && aws.ToString(gr.Grantee.URI) == "http://acs.amazonaws.com/groups/global/AllUsers" && gr.Permission == types.PermissionRead:
			everyone = true
		default:
			t.Errorf("%s: unexpected grant %+v", what, gr)
		}
	}
	return owner, everyone
}

func TestConformanceCORS(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("cors")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket), ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	// The bucket ACL lists; the object's own ACL lets everyone read it.
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj"), Body: strings.NewReader("data"), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}

	_, err := c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(bucket)})
	wantCode(t, "GetBucketCors(none)", err, 404, "NoSuchCORSConfiguration")
	preflight := func(path, origin, method, headers string) (*http.Response, []byte) {
		h := map[string]string{"Origin": origin, "Access-Control-Request-Method": method}
		if headers != "" {
			h["Access-Control-Request-Headers"] = headers
		}
		return g.anon("OPTIONS", path, "", h, nil)
	}
	resp, body := preflight("/"+bucket+"/obj", "https://app.example.com", "PUT", "")
	wantXMLError(t, "preflight without configuration", resp, body, 403, "AccessForbidden")

	cfg := &types.CORSConfiguration{CORSRules: []types.CORSRule{
		{ID: aws.String("app"), AllowedHeaders: []string{"content-type", "x-amz-*"}, AllowedMethods: []string{"PUT", "GET"},
			AllowedOrigins: []string{"https://*.example.com"}, ExposeHeaders: []string{"ETag"}, MaxAgeSeconds: aws.Int32(600)},
		{AllowedMethods: []string{"GET"}, AllowedOrigins: []string{"*"}},
	}}
	if _, err := c.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(bucket), CORSConfiguration: cfg}); err != nil {
		t.Fatalf("PutBucketCors: %v", err)
	}
	got, err := c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("GetBucketCors: %v", err)
	}
	if len(got.CORSRules) != 2 || aws.ToString(got.CORSRules[0].ID) != "app" || aws.ToInt32(got.CORSRules[0].MaxAgeSeconds) != 600 ||
		strings.Join(got.CORSRules[0].AllowedHeaders, ",") != "content-type,x-amz-*" || got.CORSRules[1].AllowedOrigins[0] != "*" {
		t.Errorf("GetBucketCors = %+v", got.CORSRules)
	}
	// The raw document is the canonical XML.
	req := g.rawRequest("GET", "/"+bucket, "cors", nil)
	resp, body = g.do(req, nil, true)
	if resp.StatusCode != 200 || string(body) != corsConfigXML {
		t.Errorf("raw GetBucketCors: %d\n%s\nwant\n%s", resp.StatusCode, body, corsConfigXML)
	}

	for name, bad := range map[string]*types.CORSConfiguration{
		"PATCH":           {CORSRules: []types.CORSRule{{AllowedMethods: []string{"PATCH"}, AllowedOrigins: []string{"*"}}}},
		"two wildcards":   {CORSRules: []types.CORSRule{{AllowedMethods: []string{"GET"}, AllowedOrigins: []string{"*.*"}}}},
		"expose wildcard": {CORSRules: []types.CORSRule{{AllowedMethods: []string{"GET"}, AllowedOrigins: []string{"*"}, ExposeHeaders: []string{"*"}}}},
		"too many rules":  {CORSRules: make([]types.CORSRule, 101)},
	} {
		if name == "too many rules" {
			for i := range bad.CORSRules {
				bad.CORSRules[i] = types.CORSRule{AllowedMethods: []string{"GET"}, AllowedOrigins: []string{"*"}}
			}
		}
		_, err := c.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(bucket), CORSConfiguration: bad})
		code := "InvalidRequest"
		if name == "too many rules" {
			code = "MalformedXML"
		}
		wantCode(t, "PutBucketCors("+name+")", err, 400, code)
	}

	// Documents the SDK refuses to send: raw signed requests.
	for name, doc := range map[string]string{
		"no origin": `<CORSConfiguration><CORSRule><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`,
		"no rules":  `<CORSConfiguration></CORSConfiguration>`,
		"not xml":   `{"CORSRules":[]}`,
		"misspelt":  `<CORSConfiguration><CORSRule><AllowedOrigins>*</AllowedOrigins><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`,
	} {
		req := g.rawRequest("PUT", "/"+bucket, "cors", []byte(doc))
		resp, body := g.do(req, []byte(doc), true)
		wantXMLError(t, "raw PutBucketCors("+name+")", resp, body, 400, "MalformedXML")
	}

	// An allowed preflight, on an object and on the bucket.
	for _, path := range []string{"/" + bucket + "/obj", "/" + bucket} {
		resp, body = preflight(path, "https://app.example.com", "PUT", "Content-Type, X-Amz-Date")
		if resp.StatusCode != 200 {
			t.Fatalf("allowed preflight %s: %d %s", path, resp.StatusCode, body)
		}
		for k, want := range map[string]string{
			"Access-Control-Allow-Origin":      "https://app.example.com",
			"Access-Control-Allow-Methods":     "PUT, GET",
			"Access-Control-Allow-Headers":     "content-type, x-amz-date",
			"Access-Control-Expose-Headers":    "ETag",
			"Access-Control-Max-Age":           "600",
			"Access-Control-Allow-Credentials": "true",
		} {
			if got := resp.Header.Get(k); got != want {
				t.Errorf("preflight %s: %s = %q, want %q", path, k, got, want)
			}
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Origin") {
			t.Errorf("preflight: Vary %q lacks Origin", resp.Header.Get("Vary"))
		}
	}
	resp, _ = preflight("/"+bucket+"/obj", "https://anywhere.test", "GET", "")
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("wildcard preflight: %d, Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}

	// Refused preflights.
	for name, args := range map[string][3]string{
		"origin":  {"https://evil.test", "PUT", ""},
		"method":  {"https://app.example.com", "DELETE", ""},
		"headers": {"https://app.example.com", "PUT", "authorization"},
	} {
		resp, body := preflight("/"+bucket+"/obj", args[0], args[1], args[2])
		wantXMLError(t, "refused preflight ("+name+")", resp, body, 403, "AccessForbidden")
		if resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("refused preflight (%s) carries Access-Control-Allow-Origin", name)
		}
	}
	resp, body = preflight("/no-such-bucket-cors/obj", "https://app.example.com", "GET", "")
	wantXMLError(t, "preflight on missing bucket", resp, body, 403, "AccessForbidden")
	resp, body = g.anon("OPTIONS", "/"+bucket+"/obj", "", map[string]string{"Access-Control-Request-Method": "GET"}, nil)
	wantXMLError(t, "preflight without Origin", resp, body, 400, "BadRequest")

	// CORS headers on actual requests: anonymous and signed.
	resp, body = g.anon("GET", "/"+bucket+"/obj", "", map[string]string{"Origin": "https://app.example.com"}, nil)
	if resp.StatusCode != 200 || string(body) != "data" || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		resp.Header.Get("Access-Control-Expose-Headers") != "ETag" {
		t.Errorf("actual anonymous GET with Origin: %d, headers %v", resp.StatusCode, resp.Header)
	}
	req = g.rawRequest("GET", "/"+bucket+"/obj", "", nil)
	req.Header.Set("Origin", "https://other.test")
	resp, _ = g.do(req, nil, true)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("actual signed GET with Origin: %d, Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	resp, _ = g.anon("GET", "/"+bucket+"/obj", "", nil, nil)
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("a request without Origin got CORS headers")
	}
	// An actual request that carries a preflight's
	// Access-Control-Request-Method is matched, and answered, by that
	// method and its Access-Control-Request-Headers, as S3 answers it (a
	// GET from an origin only a PUT rule admits, naming PUT, gets that
	// rule's headers): a GET naming DELETE, which no rule allows, gets
	// none; a GET naming PUT with headers gets the first rule's, with the
	// headers it asked for; a signed PUT naming GET from an origin only
	// the GET rule admits gets the GET rule's.
	resp, body = g.anon("GET", "/"+bucket+"/obj", "", map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "DELETE"}, nil)
	if resp.StatusCode != 200 || string(body) != "data" || resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("actual GET with Access-Control-Request-Method DELETE: %d, headers %v", resp.StatusCode, resp.Header)
	}
	if v := resp.Header.Get("Vary"); v != "Origin, Access-Control-Request-Headers, Access-Control-Request-Method" {
		t.Errorf("actual GET with Origin: Vary %q", v)
	}
	resp, body = g.anon("GET", "/"+bucket+"/obj", "", map[string]string{"Origin": "https://app.example.com",
		"Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "X-Amz-Meta-A"}, nil)
	if resp.StatusCode != 200 || string(body) != "data" || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		resp.Header.Get("Access-Control-Allow-Methods") != "PUT, GET" || resp.Header.Get("Access-Control-Allow-Credentials") != "true" ||
		resp.Header.Get("Access-Control-Allow-Headers") != "x-amz-meta-a" || resp.Header.Get("Access-Control-Expose-Headers") != "ETag" {
		t.Errorf("actual GET with Access-Control-Request-Method PUT: %d, headers %v", resp.StatusCode, resp.Header)
	}
	resp, body = g.anon("GET", "/"+bucket+"/obj", "", map[string]string{"Origin": "https://app.example.com",
		"Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "authorization"}, nil)
	if resp.StatusCode != 200 || string(body) != "data" || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("actual GET with Access-Control-Request-Method PUT and a header no rule allows: %d, headers %v", resp.StatusCode, resp.Header)
	}
	put := []byte("new")
	req = g.rawRequest("PUT", "/"+bucket+"/put-from-other", "", put)
	req.Header.Set("Origin", "https://other.test")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, body = g.do(req, put, true)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Allow-Methods") != "GET" {
		t.Errorf("actual PUT naming GET from an origin allowed only GET: %d %s, headers %v", resp.StatusCode, body, resp.Header)
	}
	req = g.rawRequest("PUT", "/"+bucket+"/put-from-other-2", "", put)
	req.Header.Set("Origin", "https://other.test")
	resp, body = g.do(req, put, true)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("actual PUT from an origin allowed only GET: %d %s, headers %v", resp.StatusCode, body, resp.Header)
	}
	req = g.rawRequest("PUT", "/"+bucket+"/put-from-app", "", put)
	req.Header.Set("Origin", "https://app.example.com")
	resp, body = g.do(req, put, true)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Errorf("actual PUT from an origin allowed PUT: %d %s, headers %v", resp.StatusCode, body, resp.Header)
	}

	if _, err := c.DeleteBucketCors(ctx, &s3.DeleteBucketCorsInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("DeleteBucketCors: %v", err)
	}
	_, err = c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(bucket)})
	wantCode(t, "GetBucketCors(deleted)", err, 404, "NoSuchCORSConfiguration")
	resp, body = preflight("/"+bucket+"/obj", "https://app.example.com", "GET", "")
	wantXMLError(t, "preflight after DeleteBucketCors", resp, body, 403, "AccessForbidden")
}

// postField is one form field of a browser POST upload, in order.
type postField struct{ name, value string }

// postUpload builds and sends a browser-style POST upload: the fields in
// order, then the file. It does not follow redirects.
func (g *gateway) postUpload(bucket string, fields []postField, filename string, file []byte) (*http.Response, []byte) {
	g.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := mw.WriteField(f.name, f.value); err != nil {
			g.t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		g.t.Fatal(err)
	}
	fw.Write(file)
	mw.WriteField("x-ignore-after-file", "ignored")
	mw.Close()
	req := g.rawRequest("POST", "/"+bucket, "", buf.Bytes())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	client := g.httpClient()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		g.t.Fatalf("POST upload: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	return resp, body
}

// TestConformancePostObjectAnonymous: a browser upload without policy and
// signature is anonymous, and S3 takes it into a bucket everyone may
// write to, as it takes an anonymous PutObject (s3-tests'
// test_post_object_anonymous_request, test_post_object_set_success_code,
// test_post_object_set_invalid_success_code and
// test_post_object_tags_anonymous_request). Elsewhere it is AccessDenied.
func TestConformancePostObjectAnonymous(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	open, byPolicy, priv := uniqueBucket("postanon"), uniqueBucket("postpolicy"), uniqueBucket("postpriv")
	for _, b := range []string{open, byPolicy, priv} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(open), ACL: types.BucketCannedACLPublicReadWrite}); err != nil {
		t.Fatal(err)
	}
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::` + byPolicy + `/drop/*"}]}`
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(byPolicy), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	fields := func(key string, extra ...postField) []postField {
		return append([]postField{{"key", key}, {"acl", "public-read"}, {"Content-Type", "text/plain"}}, extra...)
	}

	resp, body := g.postUpload(open, fields("foo.txt"), "foo.txt", []byte("bar"))
	if resp.StatusCode != 204 || resp.Header.Get("ETag") == "" {
		t.Fatalf("anonymous POST into a public-read-write bucket: %d %s", resp.StatusCode, body)
	}
	resp, body = g.do(g.rawRequest("GET", "/"+open+"/foo.txt", "", nil), nil, false)
	if resp.StatusCode != 200 || string(body) != "bar" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("anonymous GET of the public-read upload: %d %q %q", resp.StatusCode, body, resp.Header.Get("Content-Type"))
	}
	resp, body = g.postUpload(open, fields("created.txt", postField{"success_action_status", "201"}), "x", []byte("bar"))
	var pr struct{ Bucket, Key string }
	if resp.StatusCode != 201 || xml.Unmarshal(body, &pr) != nil || pr.Bucket != open || pr.Key != "created.txt" {
		t.Errorf("anonymous POST with success_action_status 201: %d %s", resp.StatusCode, body)
	}
	resp, body = g.postUpload(open, fields("other.txt", postField{"success_action_status", "404"}), "x", []byte("bar"))
	if resp.StatusCode != 204 || len(body) != 0 {
		t.Errorf("anonymous POST with success_action_status 404: %d %s, want 204", resp.StatusCode, body)
	}
	tagging := `<Tagging><TagSet><Tag><Key>0</Key><Value>0</Value></Tag><Tag><Key>1</Key><Value>1</Value></Tag></TagSet></Tagging>`
	resp, body = g.postUpload(open, fields("tagged.txt", postField{"tagging", tagging}), "x", []byte("bar"))
	if resp.StatusCode != 204 {
		t.Fatalf("anonymous POST with tagging: %d %s", resp.StatusCode, body)
	}
	tags, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(open), Key: aws.String("tagged.txt")})
	if err != nil || len(tags.TagSet) != 2 {
		t.Errorf("tags of the anonymous upload: %+v, %v", tags, err)
	}

	resp, body = g.postUpload(byPolicy, fields("drop/a.txt"), "x", []byte("bar"))
	if resp.StatusCode != 204 {
		t.Errorf("anonymous POST a bucket policy allows: %d %s", resp.StatusCode, body)
	}
	resp, body = g.postUpload(byPolicy, fields("elsewhere.txt"), "x", []byte("bar"))
	wantXMLError(t, "anonymous POST outside the policy's grant", resp, body, 403, "AccessDenied")
	resp, body = g.postUpload(priv, fields("foo.txt"), "x", []byte("bar"))
	wantXMLError(t, "anonymous POST into a private bucket", resp, body, 403, "AccessDenied")
	resp, body = g.postUpload(uniqueBucket("missing"), fields("foo.txt"), "x", []byte("bar"))
	wantXMLError(t, "anonymous POST into a missing bucket", resp, body, 403, "AccessDenied")
	for _, b := range []string{byPolicy, priv} {
		list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(b)})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list.Contents {
			if k := aws.ToString(o.Key); k != "drop/a.txt" {
				t.Errorf("refused anonymous upload stored %s/%s", b, k)
			}
		}
	}
}

// postPolicy is a browser upload policy the test signs itself.
type postPolicy struct {
	expiration time.Time
	conditions []any
	// keys, if set, replaces the document's keys "expiration" and
	// "conditions".
	keys *[2]string
}

// sign returns the form fields of a SigV4-signed POST policy (policy,
// x-amz-algorithm, x-amz-credential, x-amz-date, x-amz-signature) and adds
// their conditions to p first.
func (g *gateway) signPost(p postPolicy, accessKey, secret string, now time.Time) []postField {
	g.t.Helper()
	date := now.UTC().Format("20060102")
	cred := accessKey + "/" + date + "/" + g.Region + "/s3/aws4_request"
	amzDate := now.UTC().Format("20060102T150405Z")
	conds := append([]any{
		map[string]string{"x-amz-algorithm": "AWS4-HMAC-SHA256"},
		map[string]string{"x-amz-credential": cred},
		map[string]string{"x-amz-date": amzDate},
	}, p.conditions...)
	keys := [2]string{"expiration", "conditions"}
	if p.keys != nil {
		keys = *p.keys
	}
	doc, err := json.Marshal(map[string]any{keys[0]: p.expiration.UTC().Format("2006-01-02T15:04:05.000Z"), keys[1]: conds})
	if err != nil {
		g.t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(doc)
	m := hmac.New(sha256.New, sigv4.SigningKey(secret, date, g.Region, "s3"))
	m.Write([]byte(b64))
	return []postField{
		{"Policy", b64},
		{"X-Amz-Algorithm", "AWS4-HMAC-SHA256"},
		{"X-Amz-Credential", cred},
		{"X-Amz-Date", amzDate},
		{"X-Amz-Signature", hex.EncodeToString(m.Sum(nil))},
	}
}

func TestConformancePostObject(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("post")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	base := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket},
		[]any{"starts-with", "$key", "uploads/"},
		[]any{"starts-with", "$Content-Type", "image/"},
		[]any{"content-length-range", 1, 1024},
		map[string]string{"x-amz-meta-owner": "eric"},
		[]any{"starts-with", "$success_action_status", ""},
		[]any{"starts-with", "$success_action_redirect", ""},
		[]any{"starts-with", "$tagging", ""},
	}}
	form := func(p postPolicy, extra ...postField) []postField {
		fields := []postField{{"key", "uploads/${filename}"}, {"Content-Type", "image/png"}, {"x-amz-meta-owner", "eric"}}
		fields = append(fields, extra...)
		return append(fields, g.signPost(p, g.AccessKey, g.SecretKey, now)...)
	}
	png := []byte("\x89PNG fake image bytes")

	t.Run("204", func(t *testing.T) {
		resp, body := g.postUpload(bucket, form(base), "a.png", png)
		if resp.StatusCode != 204 || resp.Header.Get("ETag") == "" {
			t.Fatalf("POST: %d %s", resp.StatusCode, body)
		}
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("uploads/a.png")})
		if err != nil {
			t.Fatalf("GetObject after POST: %v", err)
		}
		got, _ := io.ReadAll(out.Body)
		out.Body.Close()
		if !bytes.Equal(got, png) || aws.ToString(out.ContentType) != "image/png" || out.Metadata["owner"] != "eric" ||
			aws.ToString(out.ETag) != resp.Header.Get("ETag") {
			t.Errorf("stored object: %q, type %q, meta %v, ETag %q vs %q", got, aws.ToString(out.ContentType), out.Metadata, aws.ToString(out.ETag), resp.Header.Get("ETag"))
		}
	})
	t.Run("201", func(t *testing.T) {
		resp, body := g.postUpload(bucket, form(base, postField{"success_action_status", "201"}), "b.png", png)
		if resp.StatusCode != 201 {
			t.Fatalf("POST: %d %s", resp.StatusCode, body)
		}
		var pr struct {
			Location, Bucket, Key, ETag string
		}
		if err := xml.Unmarshal(body, &pr); err != nil {
			t.Fatalf("PostResponse %q: %v", body, err)
		}
		if pr.Bucket != bucket || pr.Key != "uploads/b.png" || pr.ETag != resp.Header.Get("ETag") || !strings.HasSuffix(pr.Location, "/"+bucket+"/uploads/b.png") {
			t.Errorf("PostResponse = %+v", pr)
		}
	})
	t.Run("tagging", func(t *testing.T) {
		tagging := `<Tagging><TagSet><Tag><Key>team</Key><Value>web</Value></Tag></TagSet></Tagging>`
		resp, body := g.postUpload(bucket, form(base, postField{"tagging", tagging}), "e.png", png)
		if resp.StatusCode != 204 {
			t.Fatalf("POST: %d %s", resp.StatusCode, body)
		}
		out, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("uploads/e.png")})
		if err != nil || len(out.TagSet) != 1 || aws.ToString(out.TagSet[0].Key) != "team" || aws.ToString(out.TagSet[0].Value) != "web" {
			t.Errorf("GetObjectTagging after POST with tagging: %+v, %v", out, err)
		}
		resp, body = g.postUpload(bucket, form(base, postField{"tagging", "team=web"}), "f.png", png)
		wantXMLError(t, "POST with a non-XML tagging field", resp, body, 400, "MalformedXML")
	})
	t.Run("200", func(t *testing.T) {
		resp, body := g.postUpload(bucket, form(base, postField{"success_action_status", "200"}), "c.png", png)
		if resp.StatusCode != 200 || len(body) != 0 {
			t.Fatalf("POST: %d %s", resp.StatusCode, body)
		}
	})
	t.Run("redirect", func(t *testing.T) {
		resp, body := g.postUpload(bucket, form(base, postField{"success_action_redirect", "https://app.example.com/done?x=1"}), "d.png", png)
		if resp.StatusCode != 303 {
			t.Fatalf("POST: %d %s", resp.StatusCode, body)
		}
		u, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || u.Host != "app.example.com" || u.Query().Get("bucket") != bucket || u.Query().Get("key") != "uploads/d.png" ||
			u.Query().Get("etag") != resp.Header.Get("ETag") || u.Query().Get("x") != "1" {
			t.Errorf("redirect Location %q", resp.Header.Get("Location"))
		}
		// As S3: bucket, key and etag are appended in that order to the
		// URL's own query (s3-tests' test_post_object_success_redirect_action
		// compares the whole URL).
		want := "https://app.example.com/done?x=1&bucket=" + bucket + "&key=uploads%2Fd.png&etag=" + url.QueryEscape(resp.Header.Get("ETag"))
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("redirect Location %q, want %q", got, want)
		}
	})

	failures := []struct {
		name   string
		fields []postField
		file   []byte
		status int
		code   string
		msg    string
	}{
		{"expired", form(postPolicy{expiration: now.Add(-time.Minute), conditions: base.conditions}), png, 403, "AccessDenied", "Policy expired."},
		{"key outside starts-with", append([]postField{{"key", "elsewhere/x.png"}, {"Content-Type", "image/png"}, {"x-amz-meta-owner", "eric"}}, g.signPost(base, g.AccessKey, g.SecretKey, now)...), png, 403, "AccessDenied", "$key"},
		{"over content-length-range", form(base), bytes.Repeat([]byte("x"), 1025), 400, "EntityTooLarge", ""},
		{"far over content-length-range", form(base), bytes.Repeat([]byte("x"), 8<<20), 400, "EntityTooLarge", ""},
		{"under content-length-range", form(base), nil, 400, "EntityTooSmall", ""},
		{"extra field", form(base, postField{"x-amz-meta-unlisted", "1"}), png, 403, "AccessDenied", "Extra input fields: x-amz-meta-unlisted"},
		{"content type", append([]postField{{"key", "uploads/x"}, {"Content-Type", "text/html"}, {"x-amz-meta-owner", "eric"}}, g.signPost(base, g.AccessKey, g.SecretKey, now)...), png, 403, "AccessDenied", "$Content-Type"},
		{"wrong signature", append(form(base)[:3], g.signPost(base, g.AccessKey, "not-the-secret", now)...), png, 403, "SignatureDoesNotMatch", ""},
		{"unknown access key", append(form(base)[:3], g.signPost(base, "AKIDUNKNOWN", g.SecretKey, now)...), png, 403, "InvalidAccessKeyId", ""},
		{"no signature", []postField{{"key", "uploads/x"}}, png, 403, "AccessDenied", ""},
		// The policy's keys are case-sensitive (s3-tests'
		// test_post_object_condition_is_case_sensitive and
		// test_post_object_expires_is_case_sensitive).
		{"CONDITIONS", form(postPolicy{expiration: now.Add(time.Hour), conditions: base.conditions, keys: &[2]string{"expiration", "CONDITIONS"}}), png, 400, "InvalidPolicyDocument", ""},
		{"EXPIRATION", form(postPolicy{expiration: now.Add(time.Hour), conditions: base.conditions, keys: &[2]string{"EXPIRATION", "conditions"}}), png, 400, "InvalidPolicyDocument", ""},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			resp, body := g.postUpload(bucket, f.fields, "fail.png", f.file)
			wantXMLError(t, f.name, resp, body, f.status, f.code)
			if f.msg != "" && !bytes.Contains(body, []byte(f.msg)) {
				t.Errorf("%s: body %s lacks %q", f.name, body, f.msg)
			}
		})
	}
	// Nothing of the failed uploads was stored.
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range list.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	if strings.Join(keys, ",") != "uploads/a.png,uploads/b.png,uploads/c.png,uploads/d.png,uploads/e.png" {
		t.Errorf("keys after POST uploads: %v", keys)
	}
}

// TestConformancePostObjectChecksum: a browser upload's
// x-amz-checksum-ALGORITHM field (with or without x-amz-checksum-algorithm
// naming it) is verified against the file and stored, as PostObject
// documents and PutObject does with the header; a mismatch is BadDigest
// and stores nothing, a named algorithm without its value or with
// another's is InvalidRequest, and the fields must be in the policy like
// any other. A part without a field name is MalformedPOSTRequest.
func TestConformancePostObjectChecksum(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("postsum")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	pol := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket},
		[]any{"starts-with", "$key", "sum/"},
		[]any{"starts-with", "$x-amz-checksum-algorithm", ""},
		[]any{"starts-with", "$x-amz-checksum-crc32c", ""},
		[]any{"starts-with", "$x-amz-checksum-sha256", ""},
	}}
	form := func(key string, extra ...postField) []postField {
		return append(append([]postField{{"key", key}}, extra...), g.signPost(pol, g.AccessKey, g.SecretKey, now)...)
	}
	file := []byte("bytes of a browser upload with a checksum")
	crc := checksumOf(types.ChecksumAlgorithmCrc32c, file)
	sha := checksumOf(types.ChecksumAlgorithmSha256, file)

	resp, body := g.postUpload(bucket, form("sum/crc", postField{"x-amz-checksum-algorithm", "CRC32C"}, postField{"x-amz-checksum-crc32c", crc}), "f", file)
	if resp.StatusCode != 204 || resp.Header.Get("X-Amz-Checksum-Crc32c") != crc {
		t.Fatalf("POST with CRC32C: %d %s, x-amz-checksum-crc32c %q, want %q", resp.StatusCode, body, resp.Header.Get("X-Amz-Checksum-Crc32c"), crc)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("sum/crc"), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(head.ChecksumCRC32C) != crc || head.ChecksumType != types.ChecksumTypeFullObject {
		t.Errorf("HeadObject after POST with CRC32C: %q %q, want %q FULL_OBJECT", aws.ToString(head.ChecksumCRC32C), head.ChecksumType, crc)
	}
	resp, body = g.postUpload(bucket, form("sum/sha", postField{"x-amz-checksum-sha256", sha}), "f", file)
	if resp.StatusCode != 204 {
		t.Fatalf("POST with SHA256 alone: %d %s", resp.StatusCode, body)
	}
	head, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("sum/sha"), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(head.ChecksumSHA256) != sha {
		t.Errorf("HeadObject after POST with SHA256: %q, want %q", aws.ToString(head.ChecksumSHA256), sha)
	}

	other := checksumOf(types.ChecksumAlgorithmCrc32c, []byte("other bytes"))
	for _, f := range []struct {
		name   string
		fields []postField
		status int
		code   string
	}{
		{"wrong value", form("sum/bad", postField{"x-amz-checksum-algorithm", "CRC32C"}, postField{"x-amz-checksum-crc32c", other}), 400, "BadDigest"},
		{"algorithm without value", form("sum/bad", postField{"x-amz-checksum-algorithm", "CRC32C"}), 400, "InvalidRequest"},
		{"another algorithm's value", form("sum/bad", postField{"x-amz-checksum-algorithm", "SHA256"}, postField{"x-amz-checksum-crc32c", crc}), 400, "InvalidRequest"},
		{"two values", form("sum/bad", postField{"x-amz-checksum-crc32c", crc}, postField{"x-amz-checksum-sha256", sha}), 400, "InvalidRequest"},
		{"malformed value", form("sum/bad", postField{"x-amz-checksum-crc32c", "not base64"}), 400, "InvalidRequest"},
		{"value outside the policy", form("sum/bad", postField{"x-amz-checksum-sha1", checksumOf(types.ChecksumAlgorithmSha1, file)}), 403, "AccessDenied"},
	} {
		resp, body := g.postUpload(bucket, f.fields, "f", file)
		wantXMLError(t, f.name, resp, body, f.status, f.code)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("sum/bad")}); err == nil {
		t.Error("a refused POST upload stored sum/bad")
	}

	// A file part whose field name is empty.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range form("sum/noname") {
		mw.WriteField(f.name, f.value)
	}
	fw, err := mw.CreateFormFile("", "f")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(file)
	mw.Close()
	req := g.rawRequest("POST", "/"+bucket, "", buf.Bytes())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, body = g.do(req, buf.Bytes(), false)
	wantXMLError(t, "file part without a field name", resp, body, 400, "MalformedPOSTRequest")
}
