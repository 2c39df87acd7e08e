package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestResponseFieldsSDK checks the response members current SDKs read
// that the gateway can fill truthfully: the stored size of PutObject, and
// the ARN and region of a bucket.
func TestResponseFieldsSDK(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("fields")
	created, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	wantARN := "arn:aws:s3:::" + bucket
	if got := aws.ToString(created.BucketArn); got != wantARN {
		t.Errorf("CreateBucket BucketArn %q, want %q", got, wantARN)
	}
	head, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("HeadBucket: %v", err)
	}
	if got := aws.ToString(head.BucketArn); got != wantARN {
		t.Errorf("HeadBucket BucketArn %q, want %q", got, wantARN)
	}
	if got := aws.ToString(head.BucketRegion); got != g.Region {
		t.Errorf("HeadBucket BucketRegion %q, want %q", got, g.Region)
	}
	list, err := c.ListBuckets(ctx, &s3.ListBucketsInput{Prefix: aws.String(bucket)})
	if err != nil {
		t.Fatalf("ListBuckets: %v", err)
	}
	if len(list.Buckets) != 1 || aws.ToString(list.Buckets[0].BucketArn) != wantARN {
		t.Errorf("ListBuckets: %+v, want one bucket with BucketArn %q", list.Buckets, wantARN)
	}
	for _, size := range []int{0, 1, 4096} {
		put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), Body: strings.NewReader(strings.Repeat("x", size))})
		if err != nil {
			t.Fatalf("PutObject(%d bytes): %v", size, err)
		}
		if put.Size == nil || *put.Size != int64(size) {
			t.Errorf("PutObject(%d bytes): Size %v, want %d", size, put.Size, size)
		}
	}
}

// TestExpectedBucketOwner checks that x-amz-expected-bucket-owner and
// x-amz-source-expected-bucket-owner are compared with the owner id
// GetBucketAcl reports, and that a mismatch is 403 AccessDenied.
func TestExpectedBucketOwner(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	f := g.fixture(t, false)
	acl, err := g.alice.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: aws.String(f.bucket)})
	if err != nil {
		t.Fatalf("GetBucketAcl: %v", err)
	}
	alice := aws.ToString(acl.Owner.ID)
	bobACL, err := g.bob.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatalf("bob ListBuckets: %v", err)
	}
	bob := aws.ToString(bobACL.Owner.ID)
	if alice == "" || bob == "" || alice == bob {
		t.Fatalf("owner ids alice %q, bob %q: want two different ids", alice, bob)
	}

	// A bucket imported from the tree has no owner: it is root's, with
	// the id root sees in its ACL.
	rootBucket := uniqueBucket("rootowned")
	if _, err := g.root.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(rootBucket)}); err != nil {
		t.Fatalf("root CreateBucket: %v", err)
	}
	rootACL, err := g.root.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: aws.String(rootBucket)})
	if err != nil {
		t.Fatalf("root GetBucketAcl: %v", err)
	}
	root := aws.ToString(rootACL.Owner.ID)

	for _, tc := range []struct {
		name   string
		c      *s3.Client
		bucket string
		owner  string
		ok     bool
	}{
		{"alice, her id", g.alice, f.bucket, alice, true},
		{"alice, bob's id", g.alice, f.bucket, bob, false},
		{"root on alice's bucket, alice's id", g.root, f.bucket, alice, true},
		{"root on alice's bucket, root's id", g.root, f.bucket, root, false},
		{"root on its bucket, its id", g.root, rootBucket, root, true},
		{"root on its bucket, alice's id", g.root, rootBucket, alice, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(op string, err error) {
				t.Helper()
				if tc.ok {
					if err != nil {
						t.Errorf("%s: %v", op, err)
					}
					return
				}
				wantCode(t, op, err, http.StatusForbidden, "AccessDenied")
			}
			b, o := aws.String(tc.bucket), aws.String(tc.owner)
			// A HEAD answer has no body to carry the code: its status is
			// all there is.
			_, err := tc.c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: b, ExpectedBucketOwner: o})
			if want := map[bool]int{true: 0, false: http.StatusForbidden}[tc.ok]; httpStatus(err) != want {
				t.Errorf("HeadBucket: status %d (%v), want %d", httpStatus(err), err, want)
			}
			_, err = tc.c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b, ExpectedBucketOwner: o})
			check("ListObjectsV2", err)
			_, err = tc.c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("expected"), Body: strings.NewReader("x"), ExpectedBucketOwner: o})
			check("PutObject", err)
			if tc.ok {
				_, err = tc.c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("expected"), ExpectedBucketOwner: o})
				check("GetObject", err)
			}
			_, err = tc.c.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b, ExpectedBucketOwner: o})
			check("GetBucketAcl", err)
			// The source owner is checked on its own: the destination
			// expectation is absent.
			_, err = g.root.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(rootBucket), Key: aws.String("copy"),
				CopySource: aws.String(f.bucket + "/obj"), ExpectedSourceBucketOwner: aws.String(tc.owner)})
			if tc.owner == alice {
				if err != nil {
					t.Errorf("CopyObject with alice's source id: %v", err)
				}
			} else {
				wantCode(t, "CopyObject", err, http.StatusForbidden, "AccessDenied")
			}
		})
	}
}

// completeLocation uploads key in one part and returns the Location of
// its CompleteMultipartUpload.
func completeLocation(t *testing.T, c *s3.Client, bucket, key string) string {
	t.Helper()
	ctx := t.Context()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("CreateMultipartUpload: %v", err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("one part")})
	if err != nil {
		t.Fatalf("UploadPart: %v", err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}
	return aws.ToString(done.Location)
}

// TestCompleteMultipartUploadLocation checks that the Location of a
// completed upload is an absolute URL, as S3's: the request's scheme and
// host, path-style or virtual-hosted as the request was.
func TestCompleteMultipartUploadLocation(t *testing.T) {
	const domain = "s3.test"
	g := startGateway(t, withDomain(domain))
	const key = "dir/a key+ü"
	const escaped = "dir/a%20key%2B%C3%BC"
	for _, m := range []sdkMode{sdkModes[0], sdkModes[1]} {
		t.Run(m.name, func(t *testing.T) {
			c := g.sdk(m)
			bucket := makeBucket(t, c, "location")
			endpoint := g.Endpoint
			if m.tls {
				endpoint = g.TLS
			}
			want := endpoint + "/" + bucket + "/" + escaped
			if got := completeLocation(t, c, bucket, key); got != want {
				t.Errorf("Location %q, want %q", got, want)
			}
		})
	}
	t.Run("virtual-hosted", func(t *testing.T) {
		addr := g.plain.Listener.Addr().String()
		_, port, _ := strings.Cut(addr, ":")
		tr := &http.Transport{DialContext: dialer(addr, domain)}
		t.Cleanup(tr.CloseIdleConnections)
		c := g.sdk(sdkModes[0], func(o *s3.Options) {
			o.BaseEndpoint = aws.String("http://" + domain + ":" + port)
			o.UsePathStyle = false
			o.HTTPClient = &http.Client{Transport: tr}
		})
		// The bucket's name is the key's first segment, which a
		// path-style URL would also begin with.
		bucket := uniqueBucket("vhloc")
		if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			t.Fatalf("CreateBucket: %v", err)
		}
		want := "http://" + bucket + "." + domain + ":" + port + "/" + bucket + "/k"
		if got := completeLocation(t, c, bucket, bucket+"/k"); got != want {
			t.Errorf("Location %q, want %q", got, want)
		}
	})
}

// TestWebsiteRedirectLocation checks that x-amz-website-redirect-location
// is stored by PutObject, CopyObject and CreateMultipartUpload, returned
// by GET and HEAD, validated as S3 validates it, and not copied from a
// copy's source.
func TestWebsiteRedirectLocation(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeBucket(t, c, "redirect")
	b := aws.String(bucket)
	wantRedirect := func(key, want string) {
		t.Helper()
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String(key)})
		if err != nil {
			t.Fatalf("HeadObject(%s): %v", key, err)
		}
		if got := aws.ToString(head.WebsiteRedirectLocation); got != want {
			t.Errorf("HeadObject(%s): WebsiteRedirectLocation %q, want %q", key, got, want)
		}
		get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String(key)})
		if err != nil {
			t.Fatalf("GetObject(%s): %v", key, err)
		}
		get.Body.Close()
		if got := aws.ToString(get.WebsiteRedirectLocation); got != want {
			t.Errorf("GetObject(%s): WebsiteRedirectLocation %q, want %q", key, got, want)
		}
	}

	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("put"), Body: strings.NewReader("x"), WebsiteRedirectLocation: aws.String("/elsewhere.html")}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	wantRedirect("put", "/elsewhere.html")

	// S3 does not copy the source's redirect: the copy has the one its
	// request names, or none.
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy-plain"), CopySource: aws.String(bucket + "/put")}); err != nil {
		t.Fatalf("CopyObject: %v", err)
	}
	wantRedirect("copy-plain", "")
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy"), CopySource: aws.String(bucket + "/put"), WebsiteRedirectLocation: aws.String("https://example.com/a")}); err != nil {
		t.Fatalf("CopyObject with a redirect: %v", err)
	}
	wantRedirect("copy", "https://example.com/a")
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("copy"), CopySource: aws.String(bucket + "/copy"), WebsiteRedirectLocation: aws.String("/self")}); err != nil {
		t.Fatalf("CopyObject onto itself with a new redirect: %v", err)
	}
	wantRedirect("copy", "/self")

	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("mp"), WebsiteRedirectLocation: aws.String("http://example.com/mp")})
	if err != nil {
		t.Fatalf("CreateMultipartUpload: %v", err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: b, Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("p")})
	if err != nil {
		t.Fatalf("UploadPart: %v", err)
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: b, Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}}); err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}
	wantRedirect("mp", "http://example.com/mp")

	for _, bad := range []string{"elsewhere.html", "ftp://example.com/", "/" + strings.Repeat("a", 2048)} {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("bad"), Body: strings.NewReader("x"), WebsiteRedirectLocation: aws.String(bad)})
		wantCode(t, "PutObject with redirect "+bad[:min(len(bad), 20)], err, http.StatusBadRequest, "InvalidArgument")
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("bad"), CopySource: aws.String(bucket + "/put"), WebsiteRedirectLocation: aws.String("nowhere")})
	wantCode(t, "CopyObject with redirect nowhere", err, http.StatusBadRequest, "InvalidArgument")
	// The longest redirect S3 takes is 2 KiB.
	long := "/" + strings.Repeat("a", 2047)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("long"), Body: strings.NewReader("x"), WebsiteRedirectLocation: aws.String(long)}); err != nil {
		t.Fatalf("PutObject with a 2048-byte redirect: %v", err)
	}
	wantRedirect("long", long)
}

// TestRefusalsAlikeForEveryCaller checks that a method S3 has no
// operation for on the resource is 405 MethodNotAllowed, with the Method
// and ResourceType S3 names, and that a request no operation takes gets
// the same answer from root, from a user who does not own the bucket and
// from an anonymous caller, rather than an AccessDenied that hides it.
func TestRefusalsAlikeForEveryCaller(t *testing.T) {
	g := startUsersGateway(t)
	f := g.fixture(t, false)
	for _, tc := range []struct {
		method, path, query string
		status              int
		code, resource      string
	}{
		{"POST", "/" + f.bucket + "/obj", "", http.StatusMethodNotAllowed, "MethodNotAllowed", "OBJECT"},
		{"PATCH", "/" + f.bucket + "/obj", "", http.StatusMethodNotAllowed, "MethodNotAllowed", "OBJECT"},
		{"PATCH", "/" + f.bucket, "", http.StatusMethodNotAllowed, "MethodNotAllowed", "BUCKET"},
		{"DELETE", "/", "", http.StatusMethodNotAllowed, "MethodNotAllowed", "SERVICE"},
		{"PUT", "/" + f.bucket, "replication", http.StatusNotImplemented, "NotImplemented", ""},
	} {
		for _, caller := range []string{"root", "bob", "anonymous"} {
			req := g.rawRequest(tc.method, tc.path, tc.query, nil)
			if caller == "bob" {
				sum := sha256.Sum256(nil)
				hash := hex.EncodeToString(sum[:])
				req.Header.Set("X-Amz-Content-Sha256", hash)
				creds := aws.Credentials{AccessKeyID: g.bobKey, SecretAccessKey: g.bobSecret}
				if err := signer.SignHTTP(t.Context(), creds, req, hash, "s3", g.Region, time.Now()); err != nil {
					t.Fatalf("SignHTTP: %v", err)
				}
			}
			resp, body := g.do(req, nil, caller == "root")
			what := caller + " " + tc.method + " " + tc.path + "?" + tc.query
			wantXMLError(t, what, resp, body, tc.status, tc.code)
			if tc.resource != "" && !strings.Contains(string(body), "<Method>"+tc.method+"</Method><ResourceType>"+tc.resource+"</ResourceType>") {
				t.Errorf("%s: body %s lacks Method and ResourceType %s", what, body, tc.resource)
			}
		}
	}
}
