package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// These tests check that a stored bucket policy is enforced for every
// caller, signed or not: its Deny binds the bucket's owner, its Allow
// grants to the users it names, and its Conditions see the request.

func putPolicy(t *testing.T, c *s3.Client, bucket, doc string) {
	t.Helper()
	if _, err := c.PutBucketPolicy(t.Context(), &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatalf("PutBucketPolicy: %v\n%s", err, doc)
	}
}

// TestBucketPolicyDenyBindsOwner checks that an explicit Deny refuses the
// bucket's owner (AccessDenied, the object kept), that the owner can
// still read and delete the policy that denies it, and that root is not
// bound.
func TestBucketPolicyDenyBindsOwner(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("locked")}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, "locked", "keep", "data")
	putPolicy(t, g.alice, "locked", `{"Version":"2012-10-17","Statement":[
		{"Sid":"NoDeletes","Effect":"Deny","Principal":"*","Action":["s3:DeleteObject","s3:DeleteObjectVersion"],"Resource":"arn:aws:s3:::locked/*"}]}`)

	_, err := g.alice.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("locked"), Key: aws.String("keep")})
	wantCode(t, "owner DeleteObject under a Deny", err, 403, "AccessDenied")
	err = entryError(g.alice.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("locked"), Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("keep")}}}}))
	if apiCode(err) != "AccessDenied" {
		t.Errorf("owner DeleteObjects under a Deny: %v, want the entry's AccessDenied", err)
	}
	if _, err := g.alice.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("locked"), Key: aws.String("keep")}); err != nil {
		t.Fatalf("the denied delete removed the object: %v", err)
	}
	if _, err := g.alice.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("locked")}); err != nil {
		t.Errorf("owner GetBucketPolicy under a Deny: %v", err)
	}
	if _, err := g.root.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("locked"), Key: aws.String("keep")}); err != nil {
		t.Errorf("root DeleteObject under a Deny: %v", err)
	}
	mustPut(t, g.alice, "locked", "keep", "data")
	if _, err := g.alice.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String("locked")}); err != nil {
		t.Fatalf("owner DeleteBucketPolicy under a Deny: %v", err)
	}
	if _, err := g.alice.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("locked"), Key: aws.String("keep")}); err != nil {
		t.Errorf("owner DeleteObject once the Deny is gone: %v", err)
	}
}

// TestBucketPolicyGrantsUser checks a policy that lets another user write
// and list under a prefix of a shared bucket: the writes and listings it
// names succeed, anything outside them is AccessDenied, and DeleteObjects
// answers each key as its own DeleteObject.
func TestBucketPolicyGrantsUser(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("shared")}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, "shared", "private/x", "secret")
	mustPut(t, g.alice, "shared", "drop/old", "old")
	putPolicy(t, g.alice, "shared", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":["s3:PutObject","s3:GetObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::shared/drop/*"},
		{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/AKIDBOB"]},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::shared","Condition":{"StringLike":{"s3:prefix":"drop/*"}}}]}`)

	mustPut(t, g.bob, "shared", "drop/new", "from bob")
	if _, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("shared"), Key: aws.String("drop/new")}); err != nil {
		t.Errorf("bob GetObject drop/new: %v", err)
	}
	_, err := g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("shared"), Key: aws.String("private/y"), Body: strings.NewReader("x")})
	wantCode(t, "bob PutObject outside the prefix", err, 403, "AccessDenied")
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("shared"), Key: aws.String("private/x")})
	wantCode(t, "bob GetObject outside the prefix", err, 403, "AccessDenied")
	out, err := g.bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("shared"), Prefix: aws.String("drop/")})
	if err != nil {
		t.Fatalf("bob ListObjectsV2 drop/: %v", err)
	}
	if len(out.Contents) != 2 {
		t.Errorf("bob lists %d objects under drop/, want 2", len(out.Contents))
	}
	_, err = g.bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("shared")})
	wantCode(t, "bob ListObjectsV2 without the prefix the Condition asks for", err, 403, "AccessDenied")
	// Another user is named by no statement.
	carol := g.addUser(t, "AKIDCAROL")
	_, err = carol.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("shared"), Key: aws.String("drop/c"), Body: strings.NewReader("x")})
	wantCode(t, "carol PutObject", err, 403, "AccessDenied")

	del, err := g.bob.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("shared"), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("drop/old")}, {Key: aws.String("private/x")},
	}}})
	if err != nil {
		t.Fatalf("bob DeleteObjects: %v", err)
	}
	if len(del.Deleted) != 1 || aws.ToString(del.Deleted[0].Key) != "drop/old" {
		t.Errorf("bob DeleteObjects deleted %+v, want drop/old alone", del.Deleted)
	}
	if len(del.Errors) != 1 || aws.ToString(del.Errors[0].Key) != "private/x" || aws.ToString(del.Errors[0].Code) != "AccessDenied" {
		t.Errorf("bob DeleteObjects errors %+v, want AccessDenied for private/x", del.Errors)
	}
	if _, err := g.alice.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("shared"), Key: aws.String("private/x")}); err != nil {
		t.Errorf("private/x was deleted: %v", err)
	}
}

// TestBucketPolicyExistingObjectTag checks the s3:ExistingObjectTag/KEY
// condition keys: the tags of the object a request addresses, for the
// actions AWS gives them to (s3-tests' test_bucket_policy_get_obj_existing_tag,
// test_bucket_policy_get_obj_tagging_existing_tag and
// test_bucket_policy_put_obj_tagging_existing_tag). A Deny on them binds
// too; an object without the tag does not match.
func TestBucketPolicyExistingObjectTag(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("tagged")}); err != nil {
		t.Fatal(err)
	}
	for key, tagging := range map[string]string{"publictag": "security=public", "privatetag": "security=private", "invalidtag": "security1=public"} {
		if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("tagged"), Key: aws.String(key), Body: strings.NewReader("x"), Tagging: aws.String(tagging)}); err != nil {
			t.Fatal(err)
		}
	}
	putPolicy(t, g.alice, "tagged", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":["s3:GetObject","s3:GetObjectTagging","s3:PutObjectTagging"],"Resource":"arn:aws:s3:::tagged/*",
		 "Condition":{"StringEquals":{"s3:ExistingObjectTag/security":"public"}}}]}`)
	if _, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("tagged"), Key: aws.String("publictag")}); err != nil {
		t.Errorf("bob GetObject of an object tagged security=public: %v", err)
	}
	if _, err := g.bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("tagged"), Key: aws.String("publictag")}); err != nil {
		t.Errorf("bob HeadObject of an object tagged security=public: %v", err)
	}
	for _, key := range []string{"privatetag", "invalidtag", "missing"} {
		_, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("tagged"), Key: aws.String(key)})
		wantCode(t, "bob GetObject "+key, err, 403, "AccessDenied")
	}
	if _, err := g.bob.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String("tagged"), Key: aws.String("publictag")}); err != nil {
		t.Errorf("bob GetObjectTagging publictag: %v", err)
	}
	_, err := g.bob.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String("tagged"), Key: aws.String("privatetag")})
	wantCode(t, "bob GetObjectTagging privatetag", err, 403, "AccessDenied")
	// The keys are the tags before the change: bob may make publictag
	// private, and then not public again.
	tagging := func(v string) *types.Tagging {
		return &types.Tagging{TagSet: []types.Tag{{Key: aws.String("security"), Value: aws.String(v)}}}
	}
	if _, err := g.bob.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String("tagged"), Key: aws.String("publictag"), Tagging: tagging("private")}); err != nil {
		t.Errorf("bob PutObjectTagging publictag: %v", err)
	}
	_, err = g.bob.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String("tagged"), Key: aws.String("publictag"), Tagging: tagging("public")})
	wantCode(t, "bob PutObjectTagging of the object now private", err, 403, "AccessDenied")

	// A Deny on a tag binds even where another statement allows.
	putPolicy(t, g.alice, "tagged", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::tagged/*"},
		{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::tagged/*","Condition":{"StringEquals":{"s3:ExistingObjectTag/security":"private"}}}]}`)
	if _, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("tagged"), Key: aws.String("invalidtag")}); err != nil {
		t.Errorf("bob GetObject invalidtag under the Deny of private: %v", err)
	}
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("tagged"), Key: aws.String("privatetag")})
	wantCode(t, "bob GetObject privatetag under the Deny of private", err, 403, "AccessDenied")
}

// TestBucketPolicyRequestKeys checks condition keys taken from a
// request that policies commonly enforce writes with:
// s3:x-amz-server-side-encryption-aws-kms-key-id (a specific KMS key, as
// s3-tests' test_bucket_policy_put_obj_kms_noenc asks),
// s3:x-amz-website-redirect-location, s3:if-none-match (AWS's "Enforce
// conditional writes") and s3:versionid.
func TestBucketPolicyRequestKeys(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	ring, err := g.layer.KeyRing()
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.Create("app-key"); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"kms", "cond"} {
		if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	put := func(bucket, key string, edit func(*s3.PutObjectInput)) error {
		in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("x")}
		if edit != nil {
			edit(in)
		}
		_, err := g.bob.PutObject(ctx, in)
		return err
	}
	withKey := func(id string) func(*s3.PutObjectInput) {
		return func(in *s3.PutObjectInput) {
			in.ServerSideEncryption, in.SSEKMSKeyId = types.ServerSideEncryptionAwsKms, aws.String(id)
		}
	}

	putPolicy(t, g.alice, "kms", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::kms/*"},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::kms/*","Condition":{"StringNotEquals":{"s3:x-amz-server-side-encryption-aws-kms-key-id":"app-key"}}},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::kms/*","Condition":{"Null":{"s3:x-amz-website-redirect-location":"false"}}}]}`)
	if err := put("kms", "right-key", withKey("app-key")); err != nil {
		t.Errorf("bob PutObject with the KMS key the policy asks for: %v", err)
	}
	wantCode(t, "bob PutObject with another KMS key", put("kms", "wrong-key", withKey("other-key")), 403, "AccessDenied")
	wantCode(t, "bob PutObject without a KMS key", put("kms", "no-key", nil), 403, "AccessDenied")
	wantCode(t, "bob PutObject with a website redirect", put("kms", "redirect", func(in *s3.PutObjectInput) {
		withKey("app-key")(in)
		in.WebsiteRedirectLocation = aws.String("/elsewhere")
	}), 403, "AccessDenied")

	if _, err := g.alice.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("cond"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	v1, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("cond"), Key: aws.String("doc"), Body: strings.NewReader("v1")})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, "cond", "doc", "v2")
	putPolicy(t, g.alice, "cond", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::cond/*","Condition":{"Null":{"s3:if-none-match":"false"}}},
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObjectVersion","Resource":"arn:aws:s3:::cond/*","Condition":{"StringEquals":{"s3:versionid":"`+aws.ToString(v1.VersionId)+`"}}}]}`)
	if err := put("cond", "new", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") }); err != nil {
		t.Errorf("bob PutObject with If-None-Match: *: %v", err)
	}
	wantCode(t, "bob PutObject without If-None-Match", put("cond", "unconditional", nil), 403, "AccessDenied")
	if _, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("doc"), VersionId: v1.VersionId}); err != nil {
		t.Errorf("bob GetObject of the version the policy names: %v", err)
	}
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cond"), Key: aws.String("doc")})
	wantCode(t, "bob GetObject of the current version", err, 403, "AccessDenied")
}

// TestBucketPolicyObjectCreationOperation checks the policy AWS gives to
// enforce conditional writes ("Enforce conditional writes on Amazon S3
// buckets"): a Deny of s3:PutObject without s3:if-none-match where
// s3:ObjectCreationOperation is true. PutObject, CopyObject and
// CompleteMultipartUpload without If-None-Match are refused, with it
// allowed; CreateMultipartUpload and UploadPart, which cannot carry it,
// are not refused. Without the key the Deny never applied.
func TestBucketPolicyObjectCreationOperation(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("once")}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, "once", "src", "source")
	putPolicy(t, g.alice, "once", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::once/*","Condition":{"Null":{"s3:if-none-match":"true"},"Bool":{"s3:ObjectCreationOperation":"true"}}}]}`)
	c := g.alice
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("once"), Key: aws.String("plain"), Body: strings.NewReader("x")})
	wantCode(t, "PutObject without If-None-Match", err, 403, "AccessDenied")
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("once"), Key: aws.String("cond"), Body: strings.NewReader("x"), IfNoneMatch: aws.String("*")}); err != nil {
		t.Errorf("PutObject with If-None-Match: *: %v", err)
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("once"), Key: aws.String("copy"), CopySource: aws.String("once/src")})
	wantCode(t, "CopyObject without If-None-Match", err, 403, "AccessDenied")

	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("once"), Key: aws.String("mp")})
	if err != nil {
		t.Fatalf("CreateMultipartUpload (the key is false): %v", err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("once"), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("part")})
	if err != nil {
		t.Fatalf("UploadPart (the key is false): %v", err)
	}
	complete := func(ifNoneMatch *string) error {
		_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("once"), Key: aws.String("mp"), UploadId: up.UploadId, IfNoneMatch: ifNoneMatch,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
		return err
	}
	wantCode(t, "CompleteMultipartUpload without If-None-Match", complete(nil), 403, "AccessDenied")
	if err := complete(aws.String("*")); err != nil {
		t.Errorf("CompleteMultipartUpload with If-None-Match: *: %v", err)
	}
}

// TestBucketPolicyConditionsAnonymous checks that a Condition sees the
// request: an anonymous read allowed only with a Referer, and a Deny of
// reads from a network that covers the client.
func TestBucketPolicyConditionsAnonymous(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("site")}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, "site", "a.png", "png")
	putPolicy(t, g.alice, "site", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{"StringLike":{"aws:Referer":"https://example.com/*"}}}]}`)
	resp, _ := g.anon(http.MethodGet, "/site/a.png", "", map[string]string{"Referer": "https://example.com/page"}, nil)
	if resp.StatusCode != 200 {
		t.Errorf("anonymous GET with the Referer: %d, want 200", resp.StatusCode)
	}
	resp, _ = g.anon(http.MethodGet, "/site/a.png", "", nil, nil)
	if resp.StatusCode != 403 {
		t.Errorf("anonymous GET without the Referer: %d, want 403", resp.StatusCode)
	}

	putPolicy(t, g.alice, "site", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"},
		{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*","Condition":{"IpAddress":{"aws:SourceIp":["127.0.0.0/8","::1/128"]}}}]}`)
	resp, _ = g.anon(http.MethodGet, "/site/a.png", "", nil, nil)
	if resp.StatusCode != 403 {
		t.Errorf("anonymous GET from a denied network: %d, want 403", resp.StatusCode)
	}
	_, err := g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("site"), Key: aws.String("a.png")})
	wantCode(t, "owner GetObject from a denied network", err, 403, "AccessDenied")
}

// addUser adds a user and returns its client.
func (g *usersGateway) addUser(t *testing.T, accessKey string) *s3.Client {
	t.Helper()
	_, secret, err := g.users.AddUser(object.AddUserInput{Name: strings.ToLower(accessKey), AccessKey: accessKey})
	if err != nil {
		t.Fatal(err)
	}
	return g.sdkWith(sdkModes[0], accessKey, secret)
}

// TestEveryOperationHasAnAction checks that pkg/access knows the IAM
// action of every operation the router dispatches to, so that a bucket
// policy can allow or deny each.
func TestEveryOperationHasAnAction(t *testing.T) {
	for _, op := range api.ImplementedOperations() {
		switch op {
		case "CORSPreflight", "NotImplemented", "MethodNotAllowed":
			continue // never authorized: see TestAuthzEveryOperation
		}
		if a, ok := access.ActionOf(op, false); !ok || !strings.HasPrefix(a, "s3:") {
			t.Errorf("operation %s has no IAM action", op)
		}
	}
}

// TestPublicAccessBlockSDK checks Put/Get/DeletePublicAccessBlock and what
// each setting enforces: BlockPublicPolicy refuses a public policy but not
// one naming a user, BlockPublicAcls the canned public-read,
// IgnorePublicAcls and RestrictPublicBuckets take the public grants (of
// the policy and of the object's ACL public-read) away from anonymous
// readers, and deleting the configuration gives them back.
func TestPublicAccessBlockSDK(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bk := aws.String("pab")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bk, ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("k"), Body: strings.NewReader("data"), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	putPolicy(t, g.alice, "pab", publicReadPolicy("pab", "", false))
	anonGet := func() int {
		resp, _ := g.anon(http.MethodGet, "/pab/k", "", nil, nil)
		return resp.StatusCode
	}
	if got := anonGet(); got != 200 {
		t.Fatalf("anonymous GET before any block: %d", got)
	}
	_, err := g.alice.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: bk})
	wantCode(t, "GetPublicAccessBlock before any", err, 404, "NoSuchPublicAccessBlockConfiguration")

	all := &types.PublicAccessBlockConfiguration{BlockPublicAcls: aws.Bool(true), IgnorePublicAcls: aws.Bool(true), BlockPublicPolicy: aws.Bool(true), RestrictPublicBuckets: aws.Bool(true)}
	if _, err := g.alice.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: bk, PublicAccessBlockConfiguration: all}); err != nil {
		t.Fatalf("PutPublicAccessBlock: %v", err)
	}
	out, err := g.alice.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: bk})
	if err != nil {
		t.Fatalf("GetPublicAccessBlock: %v", err)
	}
	if c := out.PublicAccessBlockConfiguration; !aws.ToBool(c.BlockPublicAcls) || !aws.ToBool(c.IgnorePublicAcls) || !aws.ToBool(c.BlockPublicPolicy) || !aws.ToBool(c.RestrictPublicBuckets) {
		t.Errorf("GetPublicAccessBlock = %+v, want every setting true", c)
	}
	if got := anonGet(); got != 403 {
		t.Errorf("anonymous GET under the block: %d, want 403", got)
	}
	if _, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("k")}); err != nil {
		t.Errorf("a signed user under RestrictPublicBuckets: %v", err)
	}
	_, err = g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: bk, Policy: aws.String(publicReadPolicy("pab", "x/", false))})
	wantCode(t, "PutBucketPolicy public under BlockPublicPolicy", err, 403, "AccessDenied")
	putPolicy(t, g.alice, "pab", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::pab/*"}]}`)
	_, err = g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, ACL: types.BucketCannedACLPublicRead})
	wantCode(t, "PutBucketAcl public-read under BlockPublicAcls", err, 403, "AccessDenied")

	if _, err := g.alice.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: bk}); err != nil {
		t.Fatalf("DeletePublicAccessBlock: %v", err)
	}
	_, err = g.alice.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: bk})
	wantCode(t, "GetPublicAccessBlock after delete", err, 404, "NoSuchPublicAccessBlockConfiguration")
	if got := anonGet(); got != 200 {
		t.Errorf("anonymous GET after the block is deleted (the object's public-read ACL): %d, want 200", got)
	}
}

// TestBucketPolicyNotPrincipalAllow checks that PutBucketPolicy refuses a
// statement that allows with NotPrincipal, which IAM supports only with
// "Effect":"Deny": it would have let everyone but the principals it
// names, anonymous callers included, read the bucket. Nothing is stored;
// the same statement with Deny is accepted.
func TestBucketPolicyNotPrincipalAllow(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("notp")}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, "notp", "k", "secret")
	allow := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::notp/*"}]}`
	_, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String("notp"), Policy: aws.String(allow)})
	wantCode(t, "PutBucketPolicy of an Allow with NotPrincipal", err, 400, "MalformedPolicy")
	_, err = g.alice.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("notp")})
	wantCode(t, "GetBucketPolicy after the refusal", err, 404, "NoSuchBucketPolicy")
	resp, err := http.Get(g.Endpoint + "/notp/k")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("anonymous GET after the refusal: %d, want 403", resp.StatusCode)
	}
	putPolicy(t, g.alice, "notp", strings.Replace(allow, `"Allow"`, `"Deny"`, 1))
}

// TestBucketPolicyPrincipalArn checks the condition key aws:PrincipalArn:
// a user's is the ARN a Principal element names it by
// (arn:aws:iam:::user/ACCESSKEY), matched by ArnEquals and ArnLike, and an
// anonymous request has none. The Deny that spares a list of ARNs, the
// key's common use, refuses everyone else, anonymous callers included;
// without the key it refused every user, those it lists too.
func TestBucketPolicyPrincipalArn(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("parn")}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, "parn", "k", "data")
	putPolicy(t, g.alice, "parn", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::parn/*","Condition":{"ArnEquals":{"aws:PrincipalArn":"arn:aws:iam:::user/AKIDBOB"}}},
		{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::parn/*","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:user/AKIDB*"}}},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::parn/*","Condition":{"ArnNotEquals":{"aws:PrincipalArn":["arn:aws:iam:::user/AKIDALICE","arn:aws:iam:::user/AKIDBOB"]}}}]}`)
	if _, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("parn"), Key: aws.String("k")}); err != nil {
		t.Errorf("bob GetObject (ArnEquals on his ARN): %v", err)
	}
	put := func(c *s3.Client, key string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("parn"), Key: aws.String(key), Body: strings.NewReader("x")})
		return err
	}
	if err := put(g.bob, "by-bob"); err != nil {
		t.Errorf("bob PutObject (ArnLike, spared by the Deny): %v", err)
	}
	if err := put(g.alice, "by-alice"); err != nil {
		t.Errorf("alice PutObject (the owner, spared by the Deny): %v", err)
	}
	for _, c := range []struct {
		method, key string
		want        int
	}{
		{http.MethodGet, "k", http.StatusForbidden},
		{http.MethodPut, "anon", http.StatusForbidden},
	} {
		req, err := http.NewRequestWithContext(ctx, c.method, g.Endpoint+"/parn/"+c.key, strings.NewReader(""))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("anonymous %s (no aws:PrincipalArn): %d, want %d", c.method, resp.StatusCode, c.want)
		}
	}
}
