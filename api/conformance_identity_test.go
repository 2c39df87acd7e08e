package api_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// This file tests identity policies (policies attached to users) through
// aws-sdk-go-v2: a read-only user, a user confined to a prefix, a
// write-only user and a user denied deletes, on a bucket root owns and on
// the user's own.

// identityUser adds a user with the identity policy doc ("" for none)
// and returns a client signing as it.
func (g *usersGateway) identityUser(t *testing.T, accessKey, doc string) *s3.Client {
	t.Helper()
	_, secret, err := g.users.AddUser(object.AddUserInput{AccessKey: accessKey})
	if err != nil {
		t.Fatal(err)
	}
	if doc != "" {
		if err := g.users.SetUserPolicy(accessKey, doc); err != nil {
			t.Fatalf("SetUserPolicy %s: %v", accessKey, err)
		}
	}
	return g.sdkWith(sdkModes[0], accessKey, secret)
}

// sharedBucket creates a bucket of root's holding keys.
func (g *usersGateway) sharedBucket(t *testing.T, keys ...string) string {
	t.Helper()
	ctx := t.Context()
	name := uniqueBucket("shared")
	if _, err := g.root.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, err := g.root.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(name), Key: aws.String(k), Body: strings.NewReader("body of " + k)}); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

func getBody(ctx context.Context, c *s3.Client, bucket, key string) (string, error) {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return "", err
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	return string(b), err
}

func putBody(ctx context.Context, c *s3.Client, bucket, key string) error {
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("written")})
	return err
}

func listKeys(ctx context.Context, c *s3.Client, bucket, prefix string) ([]string, error) {
	in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	out, err := c.ListObjectsV2(ctx, in)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys, nil
}

func TestConformanceIdentityReadOnly(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	shared := g.sharedBucket(t, "a", "dir/b")
	reader := g.identityUser(t, "AKIDREADER", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::`+shared+`","arn:aws:s3:::`+shared+`/*"]}]}`)
	if body, err := getBody(ctx, reader, shared, "dir/b"); err != nil || body != "body of dir/b" {
		t.Errorf("read-only GetObject: %q, %v", body, err)
	}
	if keys, err := listKeys(ctx, reader, shared, ""); err != nil || len(keys) != 2 {
		t.Errorf("read-only ListObjectsV2: %v, %v", keys, err)
	}
	// With s3:ListBucket, a missing key is NoSuchKey.
	_, err := getBody(ctx, reader, shared, "missing")
	wantCode(t, "read-only GetObject of a missing key", err, 404, "NoSuchKey")
	wantCode(t, "read-only PutObject", putBody(ctx, reader, shared, "a"), 403, "AccessDenied")
	_, err = reader.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(shared), Key: aws.String("a")})
	wantCode(t, "read-only DeleteObject", err, 403, "AccessDenied")
	_, err = reader.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(shared), Policy: aws.String(publicReadPolicy(shared, "", false))})
	wantCode(t, "read-only PutBucketPolicy", err, 403, "AccessDenied")
	// An identity policy makes account-level actions need its Allow too.
	_, err = reader.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(uniqueBucket("reader-own"))})
	wantCode(t, "read-only CreateBucket", err, 403, "AccessDenied")
	_, err = reader.ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, "read-only ListBuckets", err, 403, "AccessDenied")
	// Another of root's buckets is not in the policy.
	other := g.sharedBucket(t, "a")
	_, err = getBody(ctx, reader, other, "a")
	wantCode(t, "read-only GetObject elsewhere", err, 403, "AccessDenied")
	if body, err := getBody(ctx, g.root, shared, "a"); err != nil || body != "body of a" {
		t.Errorf("the object after refused writes: %q, %v", body, err)
	}
}

func TestConformanceIdentityPrefix(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	shared := g.sharedBucket(t, "home/AKIDCAROL/mine", "home/AKIDBOB/his", "top")
	carol := g.identityUser(t, "AKIDCAROL", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::`+shared+`/home/${aws:username}/*"},
		{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::`+shared+`","Condition":{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}}]}`)
	if keys, err := listKeys(ctx, carol, shared, "home/AKIDCAROL/"); err != nil || len(keys) != 1 || keys[0] != "home/AKIDCAROL/mine" {
		t.Errorf("list own prefix: %v, %v", keys, err)
	}
	_, err := listKeys(ctx, carol, shared, "")
	wantCode(t, "list the whole bucket", err, 403, "AccessDenied")
	_, err = listKeys(ctx, carol, shared, "home/AKIDBOB/")
	wantCode(t, "list another's prefix", err, 403, "AccessDenied")
	if body, err := getBody(ctx, carol, shared, "home/AKIDCAROL/mine"); err != nil || body != "body of home/AKIDCAROL/mine" {
		t.Errorf("read own prefix: %q, %v", body, err)
	}
	if err := putBody(ctx, carol, shared, "home/AKIDCAROL/new"); err != nil {
		t.Errorf("write own prefix: %v", err)
	}
	if _, err := carol.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(shared), Key: aws.String("home/AKIDCAROL/new")}); err != nil {
		t.Errorf("delete in own prefix: %v", err)
	}
	_, err = getBody(ctx, carol, shared, "home/AKIDBOB/his")
	wantCode(t, "read another's prefix", err, 403, "AccessDenied")
	_, err = getBody(ctx, carol, shared, "top")
	wantCode(t, "read outside the prefix", err, 403, "AccessDenied")
	wantCode(t, "write another's prefix", putBody(ctx, carol, shared, "home/AKIDBOB/x"), 403, "AccessDenied")
	wantCode(t, "write outside the prefix", putBody(ctx, carol, shared, "top"), 403, "AccessDenied")
	// Without s3:ListBucket on the bucket's root, a missing key in the
	// prefix is not told apart from a forbidden one.
	_, err = getBody(ctx, carol, shared, "home/AKIDCAROL/missing")
	wantCode(t, "read a missing key of the prefix", err, 403, "AccessDenied")
	// A copy needs the source's read as well as the target's write.
	_, err = carol.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(shared), Key: aws.String("home/AKIDCAROL/copy"), CopySource: aws.String(shared + "/top")})
	wantCode(t, "copy from outside the prefix", err, 403, "AccessDenied")
	if _, err := carol.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(shared), Key: aws.String("home/AKIDCAROL/copy"), CopySource: aws.String(shared + "/home/AKIDCAROL/mine")}); err != nil {
		t.Errorf("copy within the prefix: %v", err)
	}
	if body, err := getBody(ctx, g.root, shared, "home/AKIDBOB/his"); err != nil || body != "body of home/AKIDBOB/his" {
		t.Errorf("bob's object after refused writes: %q, %v", body, err)
	}
}

func TestConformanceIdentityWriteOnly(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	shared := g.sharedBucket(t)
	drop := g.identityUser(t, "AKIDDROP", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::`+shared+`/inbox/*"}}`)
	if err := putBody(ctx, drop, shared, "inbox/1"); err != nil {
		t.Fatalf("write-only PutObject: %v", err)
	}
	up, err := drop.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(shared), Key: aws.String("inbox/2")})
	if err != nil {
		t.Fatalf("write-only CreateMultipartUpload: %v", err)
	}
	part, err := drop.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(shared), Key: aws.String("inbox/2"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("part")})
	if err != nil {
		t.Fatalf("write-only UploadPart: %v", err)
	}
	if _, err := drop.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(shared), Key: aws.String("inbox/2"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}}); err != nil {
		t.Fatalf("write-only CompleteMultipartUpload: %v", err)
	}
	_, err = getBody(ctx, drop, shared, "inbox/1")
	wantCode(t, "write-only GetObject", err, 403, "AccessDenied")
	_, err = drop.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(shared), Key: aws.String("inbox/1")})
	wantCode(t, "write-only HeadObject", err, 403, "Forbidden")
	_, err = listKeys(ctx, drop, shared, "inbox/")
	wantCode(t, "write-only ListObjectsV2", err, 403, "AccessDenied")
	_, err = drop.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(shared), Key: aws.String("inbox/1")})
	wantCode(t, "write-only DeleteObject", err, 403, "AccessDenied")
	if keys, err := listKeys(ctx, g.root, shared, ""); err != nil || len(keys) != 2 {
		t.Errorf("root lists %v, %v", keys, err)
	}
}

func TestConformanceIdentityDeny(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	// A user who may create buckets but not delete anything, even in its
	// own bucket, and whose grant from a bucket policy does not survive
	// its Deny.
	keeper := g.identityUser(t, "AKIDKEEPER", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:CreateBucket","Resource":"*"},
		{"Effect":"Deny","Action":["s3:DeleteObject","s3:DeleteObjectVersion","s3:DeleteBucket"],"Resource":"*"}]}`)
	own := uniqueBucket("keeper")
	if _, err := keeper.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(own)}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	if err := putBody(ctx, keeper, own, "k"); err != nil {
		t.Fatalf("PutObject in own bucket: %v", err)
	}
	if body, err := getBody(ctx, keeper, own, "k"); err != nil || body != "written" {
		t.Errorf("GetObject in own bucket: %q, %v", body, err)
	}
	_, err := keeper.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(own), Key: aws.String("k")})
	wantCode(t, "DeleteObject in own bucket", err, 403, "AccessDenied")
	// None of the keys may be deleted: each is refused in a 200 answer,
	// as S3 refuses them.
	err = entryError(keeper.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(own), Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k")}}}}))
	if apiCode(err) != "AccessDenied" {
		t.Errorf("DeleteObjects in own bucket: %v, want the entry's AccessDenied", err)
	}
	_, err = keeper.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(own)})
	wantCode(t, "DeleteBucket of own bucket", err, 403, "AccessDenied")
	if _, err := g.root.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(own), Key: aws.String("k")}); err != nil {
		t.Errorf("root is never denied: %v", err)
	}
	// A bucket policy of root's granting the user deletes does not
	// override the user's Deny.
	shared := g.sharedBucket(t, "x")
	if _, err := g.root.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(shared), Policy: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow",
		"Principal":{"AWS":"arn:aws:iam:::user/AKIDKEEPER"},"Action":["s3:GetObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::` + shared + `/*"}}`)}); err != nil {
		t.Fatal(err)
	}
	if body, err := getBody(ctx, keeper, shared, "x"); err != nil || body != "body of x" {
		t.Errorf("GetObject the bucket policy grants: %q, %v", body, err)
	}
	_, err = keeper.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(shared), Key: aws.String("x")})
	wantCode(t, "DeleteObject the bucket policy grants", err, 403, "AccessDenied")
}

// TestConformanceIdentityPolicyChange checks that a policy put or removed
// while the gateway serves is in force from the next request, and that
// one request asks for the policy once, so that all its decisions (each
// key of a DeleteObjects) see the same policy.
func TestConformanceIdentityPolicyChange(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	shared := g.sharedBucket(t, "a", "b", "c")
	c := g.identityUser(t, "AKIDLATER", "")
	_, err := getBody(ctx, c, shared, "a")
	wantCode(t, "before the policy", err, 403, "AccessDenied")
	doc := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["s3:GetObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::` + shared + `/*"}}`
	if err := g.users.SetUserPolicy("AKIDLATER", doc); err != nil {
		t.Fatal(err)
	}
	if _, err := getBody(ctx, c, shared, "a"); err != nil {
		t.Errorf("after the policy: %v", err)
	}
	before := g.late.identityAsks.Load()
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(shared), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("a")}, {Key: aws.String("b")}, {Key: aws.String("c")}}}})
	if err != nil || len(out.Deleted) != 3 {
		t.Fatalf("DeleteObjects: %+v, %v", out, err)
	}
	if n := g.late.identityAsks.Load() - before; n != 1 {
		t.Errorf("one DeleteObjects of three keys asked for the identity policy %d times, want once", n)
	}
	if err := g.users.SetUserPolicy("AKIDLATER", ""); err != nil {
		t.Fatal(err)
	}
	if err := putBody(ctx, g.root, shared, "a"); err != nil {
		t.Fatal(err)
	}
	_, err = getBody(ctx, c, shared, "a")
	wantCode(t, "after the policy is removed", err, 403, "AccessDenied")
}

// TestConformanceIdentityConditions checks condition keys in identity
// policies against real requests: aws:SourceIp (the test client is on
// 127.0.0.1) and aws:username.
func TestConformanceIdentityConditions(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	shared := g.sharedBucket(t, "k")
	fromIP := func(cidr string) string {
		return `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + shared + `/*","Condition":{"IpAddress":{"aws:SourceIp":"` + cidr + `"}}}}`
	}
	local := g.identityUser(t, "AKIDLOCAL", fromIP("127.0.0.0/8"))
	remote := g.identityUser(t, "AKIDREMOTE", fromIP("10.0.0.0/8"))
	if _, err := getBody(ctx, local, shared, "k"); err != nil {
		t.Errorf("aws:SourceIp in 127.0.0.0/8: %v", err)
	}
	_, err := getBody(ctx, remote, shared, "k")
	wantCode(t, "aws:SourceIp in 10.0.0.0/8", err, 403, "AccessDenied")
	// One document for two users: the Deny binds only the user it names.
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::` + shared + `/*"},
		{"Effect":"Deny","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{"aws:username":"AKIDDENIED"}}}]}`
	allowed := g.identityUser(t, "AKIDALLOWED", doc)
	denied := g.identityUser(t, "AKIDDENIED", doc)
	if _, err := getBody(ctx, allowed, shared, "k"); err != nil {
		t.Errorf("aws:username of another user: %v", err)
	}
	_, err = getBody(ctx, denied, shared, "k")
	wantCode(t, "aws:username of the user denied", err, 403, "AccessDenied")
}
