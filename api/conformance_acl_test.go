package api_test

// Conformance of ACLs and Object Ownership through aws-sdk-go-v2 and
// minio-go: grants on buckets and objects, canned ACLs, the grant
// headers, the bucket owner's rights over objects others wrote, Block
// Public Access on ACLs, ownership controls, and the typed errors.

import (
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// minioAs is a minio-go client signing with another key pair.
func (g *usersGateway) minioAs(ak, sk string) *minio.Client {
	return g.minio(false, func(o *minio.Options) { o.Creds = miniocreds.NewStaticV4(ak, sk, "") })
}

// grantOf finds the permission an ACL gives a grantee (canonical id or
// group URI), "" for none.
func grantsOf(grants []types.Grant) map[string][]string {
	out := map[string][]string{}
	for _, gr := range grants {
		who := aws.ToString(gr.Grantee.ID)
		if gr.Grantee.URI != nil {
			who = aws.ToString(gr.Grantee.URI)
		}
		out[who] = append(out[who], string(gr.Permission))
	}
	return out
}

func readBody(t *testing.T, what string, out *s3.GetObjectOutput, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer out.Body.Close()
	b, _ := io.ReadAll(out.Body)
	return string(b)
}

// TestConformanceObjectACLGrants: alice's object, private by default, is
// read by bob once its ACL grants him READ (PutObjectAcl with
// x-amz-grant-read), by everyone with public-read; GetObjectAcl shows the
// grants; the version's ACL is the one asked for by versionId.
func TestConformanceObjectACLGrants(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("oacl")
	bk := aws.String(bucket)
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bk}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, bucket, "k", "secret")
	alice, bob := access.CanonicalID(g.aliceKey), access.CanonicalID(g.bobKey)

	acl, err := g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("k")})
	if err != nil {
		t.Fatalf("GetObjectAcl: %v", err)
	}
	if aws.ToString(acl.Owner.ID) != alice || len(acl.Grants) != 1 || grantsOf(acl.Grants)[alice][0] != "FULL_CONTROL" {
		t.Fatalf("new object's ACL: owner %v grants %v", aws.ToString(acl.Owner.ID), grantsOf(acl.Grants))
	}
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("k")})
	wantCode(t, "bob GetObject of a private object", err, 403, "AccessDenied")

	if _, err := g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), GrantRead: aws.String(`id="` + bob + `"`)}); err != nil {
		t.Fatalf("PutObjectAcl(grant-read bob): %v", err)
	}
	out, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("k")})
	if got := readBody(t, "bob GetObject after the grant", out, err); got != "secret" {
		t.Errorf("bob read %q", got)
	}
	_, err = g.bob.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("k")})
	wantCode(t, "bob GetObjectAcl with READ only", err, 403, "AccessDenied")
	_, err = g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("k"), Body: strings.NewReader("x")})
	wantCode(t, "bob PutObject with object READ only", err, 403, "AccessDenied")
	if resp, body := g.anon("GET", "/"+bucket+"/k", "", nil, nil); resp.StatusCode != 403 {
		t.Errorf("anonymous GET of an object granted to bob: %d %s", resp.StatusCode, body)
	}

	// A grant of READ_ACP and the email of a user.
	if _, err := g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), GrantReadACP: aws.String(`emailAddress="bob@example.com"`)}); err != nil {
		t.Fatalf("PutObjectAcl(grant-read-acp by email): %v", err)
	}
	acl, err = g.bob.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("k")})
	if err != nil || grantsOf(acl.Grants)[bob][0] != "READ_ACP" || len(acl.Grants) != 1 {
		t.Errorf("bob GetObjectAcl with READ_ACP by email: %v %v", err, acl)
	}
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("k")})
	wantCode(t, "bob GetObject after his READ was replaced", err, 403, "AccessDenied")

	// public-read: everyone reads, and the AccessControlPolicy body form.
	if _, err := g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatalf("PutObjectAcl(public-read): %v", err)
	}
	if resp, body := g.anon("GET", "/"+bucket+"/k", "", nil, nil); resp.StatusCode != 200 || string(body) != "secret" {
		t.Errorf("anonymous GET of a public-read object: %d %s", resp.StatusCode, body)
	}
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), AccessControlPolicy: &types.AccessControlPolicy{
		Owner: &types.Owner{ID: aws.String(alice)},
		Grants: []types.Grant{
			{Grantee: &types.Grantee{Type: types.TypeCanonicalUser, ID: aws.String(alice)}, Permission: types.PermissionFullControl},
			{Grantee: &types.Grantee{Type: types.TypeGroup, URI: aws.String(access.AuthenticatedUsers)}, Permission: types.PermissionRead},
		}}})
	if err != nil {
		t.Fatalf("PutObjectAcl(body): %v", err)
	}
	if resp, _ := g.anon("GET", "/"+bucket+"/k", "", nil, nil); resp.StatusCode != 403 {
		t.Errorf("anonymous GET of an authenticated-read object: %d", resp.StatusCode)
	}
	out, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("k")})
	readBody(t, "bob GetObject of an authenticated-read object", out, err)

	// Typed errors.
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), GrantRead: aws.String(`id="not-a-canonical-id"`)})
	wantCode(t, "PutObjectAcl(bad grant id)", err, 400, "InvalidArgument")
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), GrantRead: aws.String(`uri="http://example.com/everyone"`)})
	wantCode(t, "PutObjectAcl(bad grant uri)", err, 400, "InvalidArgument")
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), GrantRead: aws.String(`emailAddress="nobody@example.com"`)})
	wantCode(t, "PutObjectAcl(unknown email)", err, 400, "UnresolvableGrantByEmailAddress")
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), ACL: types.ObjectCannedACLPublicRead, GrantRead: aws.String(`id="` + bob + `"`)})
	wantCode(t, "PutObjectAcl(canned and grants)", err, 400, "InvalidRequest")
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("missing"), ACL: types.ObjectCannedACLPrivate})
	wantCode(t, "PutObjectAcl(missing key)", err, 404, "NoSuchKey")
	many := make([]types.Grant, 101)
	for i := range many {
		many[i] = types.Grant{Grantee: &types.Grantee{Type: types.TypeCanonicalUser, ID: aws.String(alice)}, Permission: types.PermissionRead}
	}
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), AccessControlPolicy: &types.AccessControlPolicy{Owner: &types.Owner{ID: aws.String(alice)}, Grants: many}})
	wantCode(t, "PutObjectAcl(101 grants)", err, 400, "MalformedACLError")
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), AccessControlPolicy: &types.AccessControlPolicy{Owner: &types.Owner{ID: aws.String(bob)},
		Grants: []types.Grant{{Grantee: &types.Grantee{Type: types.TypeCanonicalUser, ID: aws.String(bob)}, Permission: types.PermissionFullControl}}}})
	wantCode(t, "PutObjectAcl(another owner)", err, 403, "AccessDenied")
	_, err = g.bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, "bob PutObjectAcl without WRITE_ACP", err, 403, "AccessDenied")
}

// TestConformanceObjectACLVersions: PutObjectAcl and GetObjectAcl with
// versionId change and read that version's ACL only.
func TestConformanceObjectACLVersions(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("vacl")
	bk := aws.String(bucket)
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bk}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: bk, VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	v1, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("k"), Body: strings.NewReader("one"), ACL: types.ObjectCannedACLPublicRead})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("k"), Body: strings.NewReader("two")}); err != nil {
		t.Fatal(err)
	}
	acl, err := g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("k"), VersionId: v1.VersionId})
	if err != nil || len(grantsOf(acl.Grants)[access.AllUsers]) != 1 {
		t.Fatalf("GetObjectAcl(v1): %v %v", err, acl)
	}
	acl, err = g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("k")})
	if err != nil || len(acl.Grants) != 1 {
		t.Fatalf("GetObjectAcl(current): %v %v", err, acl)
	}
	if _, err := g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("k"), VersionId: v1.VersionId, ACL: types.ObjectCannedACLPrivate}); err != nil {
		t.Fatalf("PutObjectAcl(v1, private): %v", err)
	}
	acl, err = g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("k"), VersionId: v1.VersionId})
	if err != nil || len(acl.Grants) != 1 {
		t.Fatalf("GetObjectAcl(v1) after private: %v %v", err, acl)
	}
}

// TestConformanceBucketACLGrants: a bucket ACL's READ lets bob list but
// not read objects (S3's public-read), WRITE lets him write; the object
// bob writes is his: alice (the bucket owner) may delete it but not read
// it until he grants her, and bucket-owner-full-control does.
func TestConformanceBucketACLGrants(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("bacl")
	bk := aws.String(bucket)
	alice, bob := access.CanonicalID(g.aliceKey), access.CanonicalID(g.bobKey)
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bk, GrantRead: aws.String("id=" + bob)}); err != nil {
		t.Fatalf("CreateBucket(grant-read bob): %v", err)
	}
	mustPut(t, g.alice, bucket, "a", "alice's")
	if _, err := g.bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bk}); err != nil {
		t.Errorf("bob lists with READ: %v", err)
	}
	_, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("a")})
	wantCode(t, "bob reads an object with bucket READ only", err, 403, "AccessDenied")
	_, err = g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("b"), Body: strings.NewReader("x")})
	wantCode(t, "bob writes with bucket READ only", err, 403, "AccessDenied")
	_, err = g.bob.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: bk})
	wantCode(t, "bob GetBucketAcl without READ_ACP", err, 403, "AccessDenied")

	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, GrantRead: aws.String("id=" + bob), GrantWrite: aws.String("id=" + bob), GrantReadACP: aws.String("id=" + bob)}); err != nil {
		t.Fatalf("PutBucketAcl(grants): %v", err)
	}
	acl, err := g.bob.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: bk})
	if err != nil {
		t.Fatalf("bob GetBucketAcl with READ_ACP: %v", err)
	}
	if aws.ToString(acl.Owner.ID) != alice || strings.Join(grantsOf(acl.Grants)[bob], ",") != "READ,WRITE,READ_ACP" {
		t.Errorf("bucket ACL: owner %s grants %v", aws.ToString(acl.Owner.ID), grantsOf(acl.Grants))
	}
	mustPut(t, g.bob, bucket, "b", "bob's")
	list, err := g.alice.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bk, FetchOwner: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range list.Contents {
		want := map[string]string{"a": alice, "b": bob}[aws.ToString(o.Key)]
		if o.Owner == nil || aws.ToString(o.Owner.ID) != want {
			t.Errorf("ListObjectsV2 owner of %s: %v, want %s", aws.ToString(o.Key), o.Owner, want)
		}
	}
	oacl, err := g.bob.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("b")})
	if err != nil || aws.ToString(oacl.Owner.ID) != bob {
		t.Errorf("bob's object's owner: %v %v", err, oacl)
	}
	_, err = g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("b")})
	wantCode(t, "the bucket owner reads bob's private object", err, 403, "AccessDenied")
	_, err = g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("b")})
	wantCode(t, "the bucket owner reads the ACL of bob's private object", err, 403, "AccessDenied")

	if _, err := g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("c"), Body: strings.NewReader("for alice"), ACL: types.ObjectCannedACLBucketOwnerFullControl}); err != nil {
		t.Fatal(err)
	}
	out, err := g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("c")})
	readBody(t, "the bucket owner reads bob's bucket-owner-full-control object", out, err)

	if _, err := g.alice.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bk, Key: aws.String("b")}); err != nil {
		t.Errorf("the bucket owner deletes bob's object: %v", err)
	}
	if _, err := g.bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bk, Key: aws.String("a")}); err != nil {
		t.Errorf("bob deletes with bucket WRITE: %v", err)
	}

	// public-read on a bucket is listing, not reading.
	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	if resp, body := g.anon("GET", "/"+bucket, "list-type=2", nil, nil); resp.StatusCode != 200 {
		t.Errorf("anonymous list of a public-read bucket: %d %s", resp.StatusCode, body)
	}
	if resp, _ := g.anon("GET", "/"+bucket+"/c", "", nil, nil); resp.StatusCode != 403 {
		t.Errorf("anonymous GET in a public-read bucket: %d, want 403", resp.StatusCode)
	}
	// public-read-write: everyone writes, and the object is the bucket
	// owner's.
	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, ACL: types.BucketCannedACLPublicReadWrite}); err != nil {
		t.Fatal(err)
	}
	if resp, body := g.anon("PUT", "/"+bucket+"/anon", "", nil, []byte("anonymous")); resp.StatusCode != 200 {
		t.Errorf("anonymous PUT into a public-read-write bucket: %d %s", resp.StatusCode, body)
	}
	out, err = g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("anon")})
	readBody(t, "the bucket owner reads an anonymous write", out, err)
}

// TestConformanceOwnershipControls: Put/Get/DeleteBucketOwnershipControls,
// BucketOwnerEnforced refusing ACLs and owning every object,
// BucketOwnerPreferred, and x-amz-object-ownership on CreateBucket.
func TestConformanceOwnershipControls(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("own")
	bk := aws.String(bucket)
	alice, bob := access.CanonicalID(g.aliceKey), access.CanonicalID(g.bobKey)
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bk, GrantWrite: aws.String("id=" + bob)}); err != nil {
		t.Fatal(err)
	}
	_, err := g.alice.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: bk})
	wantCode(t, "GetBucketOwnershipControls(unset)", err, 404, "OwnershipControlsNotFoundError")
	put := func(o types.ObjectOwnership) error {
		_, err := g.alice.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: bk,
			OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: o}}}})
		return err
	}
	wantCode(t, "BucketOwnerEnforced over an ACL granting bob", put(types.ObjectOwnershipBucketOwnerEnforced), 400, "InvalidBucketAclWithObjectOwnership")

	// BucketOwnerPreferred: bucket-owner-full-control hands the object over.
	if err := put(types.ObjectOwnershipBucketOwnerPreferred); err != nil {
		t.Fatal(err)
	}
	got, err := g.alice.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: bk})
	if err != nil || got.OwnershipControls.Rules[0].ObjectOwnership != types.ObjectOwnershipBucketOwnerPreferred {
		t.Fatalf("GetBucketOwnershipControls: %v %v", err, got)
	}
	if _, err := g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("handed"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLBucketOwnerFullControl}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.bob, bucket, "kept", "y")
	for key, want := range map[string]string{"handed": alice, "kept": bob} {
		acl, err := g.bob.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String(key)})
		if key == "handed" {
			// bob no longer owns it and was granted nothing.
			wantCode(t, "bob GetObjectAcl of the object he handed over", err, 403, "AccessDenied")
			acl, err = g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String(key)})
		}
		if err != nil || aws.ToString(acl.Owner.ID) != want {
			t.Errorf("owner of %s under BucketOwnerPreferred: %v %v, want %s", key, err, acl, want)
		}
	}

	// BucketOwnerEnforced: ACLs disabled, alice owns everything.
	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, ACL: types.BucketCannedACLPrivate}); err != nil {
		t.Fatal(err)
	}
	if err := put(types.ObjectOwnershipBucketOwnerEnforced); err != nil {
		t.Fatalf("BucketOwnerEnforced: %v", err)
	}
	out, err := g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("kept")})
	readBody(t, "the bucket owner reads bob's object under BucketOwnerEnforced", out, err)
	acl, err := g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("kept")})
	if err != nil || aws.ToString(acl.Owner.ID) != alice || len(acl.Grants) != 1 || grantsOf(acl.Grants)[alice][0] != "FULL_CONTROL" {
		t.Errorf("GetObjectAcl under BucketOwnerEnforced: %v %+v", err, acl)
	}
	_, err = g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("p"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, "PutObject(public-read) under BucketOwnerEnforced", err, 400, "AccessControlListNotSupported")
	if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("p"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLBucketOwnerFullControl}); err != nil {
		t.Errorf("PutObject(bucket-owner-full-control) under BucketOwnerEnforced: %v", err)
	}
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("p"), ACL: types.ObjectCannedACLPrivate})
	wantCode(t, "PutObjectAcl under BucketOwnerEnforced", err, 400, "AccessControlListNotSupported")
	_, err = g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, ACL: types.BucketCannedACLPublicRead})
	wantCode(t, "PutBucketAcl under BucketOwnerEnforced", err, 400, "AccessControlListNotSupported")
	_, err = g.alice.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: bk, Key: aws.String("mp"), GrantRead: aws.String("id=" + bob)})
	wantCode(t, "CreateMultipartUpload(grant) under BucketOwnerEnforced", err, 400, "AccessControlListNotSupported")
	_, err = g.alice.CopyObject(ctx, &s3.CopyObjectInput{Bucket: bk, Key: aws.String("cp"), CopySource: aws.String(bucket + "/p"), ACL: types.ObjectCannedACLAuthenticatedRead})
	wantCode(t, "CopyObject(authenticated-read) under BucketOwnerEnforced", err, 400, "AccessControlListNotSupported")

	if _, err := g.alice.DeleteBucketOwnershipControls(ctx, &s3.DeleteBucketOwnershipControlsInput{Bucket: bk}); err != nil {
		t.Fatal(err)
	}
	_, err = g.alice.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: bk})
	wantCode(t, "GetBucketOwnershipControls(deleted)", err, 404, "OwnershipControlsNotFoundError")
	_, err = g.bob.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: bk,
		OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipObjectWriter}}}})
	wantCode(t, "bob PutBucketOwnershipControls", err, 403, "AccessDenied")
	wantCode(t, "an unknown ObjectOwnership", put("Everyone"), 400, "MalformedXML")

	// x-amz-object-ownership on CreateBucket.
	enforced := uniqueBucket("enforced")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(enforced), ObjectOwnership: types.ObjectOwnershipBucketOwnerEnforced}); err != nil {
		t.Fatal(err)
	}
	got, err = g.alice.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: aws.String(enforced)})
	if err != nil || got.OwnershipControls.Rules[0].ObjectOwnership != types.ObjectOwnershipBucketOwnerEnforced {
		t.Errorf("ownership of a bucket created BucketOwnerEnforced: %v %v", err, got)
	}
	_, err = g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(uniqueBucket("bad")), ObjectOwnership: types.ObjectOwnershipBucketOwnerEnforced, ACL: types.BucketCannedACLPublicRead})
	wantCode(t, "CreateBucket(BucketOwnerEnforced, public-read)", err, 400, "InvalidBucketAclWithObjectOwnership")
	_, err = g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(uniqueBucket("bad")), ObjectOwnership: "Nobody"})
	wantCode(t, "CreateBucket(unknown ownership)", err, 400, "InvalidArgument")
}

// TestConformanceACLBlockPublicAccess: BlockPublicAcls refuses public
// ACLs on PutObject, PutObjectAcl, PutBucketAcl (canned and grants to
// AllUsers or AuthenticatedUsers) with AccessDenied; IgnorePublicAcls
// takes the grants of those already stored away.
func TestConformanceACLBlockPublicAccess(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("bpa")
	bk := aws.String(bucket)
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bk}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("pub"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	block := func(c types.PublicAccessBlockConfiguration) {
		t.Helper()
		if _, err := g.alice.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: bk, PublicAccessBlockConfiguration: &c}); err != nil {
			t.Fatal(err)
		}
	}
	block(types.PublicAccessBlockConfiguration{BlockPublicAcls: aws.Bool(true)})
	_, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("p2"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, "PutObject(public-read) under BlockPublicAcls", err, 403, "AccessDenied")
	_, err = g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("p2"), Body: strings.NewReader("x"), GrantRead: aws.String(`uri="` + access.AuthenticatedUsers + `"`)})
	wantCode(t, "PutObject(grant AuthenticatedUsers) under BlockPublicAcls", err, 403, "AccessDenied")
	_, err = g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("pub"), ACL: types.ObjectCannedACLPublicReadWrite})
	wantCode(t, "PutObjectAcl(public-read-write) under BlockPublicAcls", err, 403, "AccessDenied")
	_, err = g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, GrantRead: aws.String(`uri="` + access.AllUsers + `"`)})
	wantCode(t, "PutBucketAcl(grant AllUsers) under BlockPublicAcls", err, 403, "AccessDenied")
	if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("p3"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPrivate}); err != nil {
		t.Errorf("PutObject(private) under BlockPublicAcls: %v", err)
	}
	// BlockPublicAcls alone leaves the stored public ACL in force.
	if resp, _ := g.anon("GET", "/"+bucket+"/pub", "", nil, nil); resp.StatusCode != 200 {
		t.Errorf("anonymous GET of a public-read object under BlockPublicAcls: %d", resp.StatusCode)
	}
	block(types.PublicAccessBlockConfiguration{IgnorePublicAcls: aws.Bool(true)})
	if resp, _ := g.anon("GET", "/"+bucket+"/pub", "", nil, nil); resp.StatusCode != 403 {
		t.Errorf("anonymous GET of a public-read object under IgnorePublicAcls: %d", resp.StatusCode)
	}
	if _, err := g.alice.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: bk}); err != nil {
		t.Fatal(err)
	}
	if resp, _ := g.anon("GET", "/"+bucket+"/pub", "", nil, nil); resp.StatusCode != 200 {
		t.Errorf("anonymous GET after the block is deleted: %d", resp.StatusCode)
	}
}

// TestConformanceACLMinio drives the same ACLs through minio-go: grant
// headers on PutObject (x-amz-grant-read to bob, who then reads),
// GetObjectACL, and the typed errors.
func TestConformanceACLMinio(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("macl")
	alice, bob := g.minioAs(g.aliceKey, g.aliceSecret), g.minioAs(g.bobKey, g.bobSecret)
	if err := alice.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	bobID := access.CanonicalID(g.bobKey)
	putWith := func(c *minio.Client, key string, hdr map[string]string) error {
		_, err := c.PutObject(ctx, bucket, key, strings.NewReader("data"), 4, minio.PutObjectOptions{UserMetadata: hdr})
		return err
	}
	if err := putWith(alice, "granted", map[string]string{"x-amz-grant-read": `id="` + bobID + `"`}); err != nil {
		t.Fatalf("PutObject(x-amz-grant-read): %v", err)
	}
	if err := putWith(alice, "private", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.StatObject(ctx, bucket, "granted", minio.StatObjectOptions{}); err != nil {
		t.Errorf("bob StatObject of an object granted to him: %v", err)
	}
	_, err := bob.StatObject(ctx, bucket, "private", minio.StatObjectOptions{})
	if r := minio.ToErrorResponse(err); r.StatusCode != 403 {
		t.Errorf("bob StatObject of a private object: %v", err)
	}
	info, err := alice.GetObjectACL(ctx, bucket, "granted")
	if err != nil {
		t.Fatalf("GetObjectACL: %v", err)
	}
	found := false
	for _, gr := range info.Grant {
		if gr.Grantee.ID == bobID && gr.Permission == "READ" {
			found = true
		}
	}
	if !found || info.Owner.ID != access.CanonicalID(g.aliceKey) {
		t.Errorf("GetObjectACL: owner %v grants %+v", info.Owner, info.Grant)
	}
	wantMinioCode(t, "PutObject(bad grant)", putWith(alice, "x", map[string]string{"x-amz-grant-read": "nobody"}), 400, "InvalidArgument")
	wantMinioCode(t, "PutObject(unknown email)", putWith(alice, "x", map[string]string{"x-amz-grant-read": `emailAddress="nobody@example.com"`}), 400, "UnresolvableGrantByEmailAddress")
	wantMinioCode(t, "PutObject(bad canned ACL)", putWith(alice, "x", map[string]string{"x-amz-acl": "everyone"}), 400, "InvalidArgument")
	wantMinioCode(t, "bob PutObject without WRITE", putWith(bob, "x", nil), 403, "AccessDenied")

	enforced := uniqueBucket("menf")
	if err := alice.MakeBucket(ctx, enforced, minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: aws.String(enforced),
		OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipBucketOwnerEnforced}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = alice.PutObject(ctx, enforced, "k", strings.NewReader("d"), 1, minio.PutObjectOptions{UserMetadata: map[string]string{"x-amz-acl": "public-read"}})
	wantMinioCode(t, "PutObject(public-read) under BucketOwnerEnforced", err, 400, "AccessControlListNotSupported")
}

// TestConformanceNewBucketDefaultsAWS2023: with the 2023 defaults a new
// bucket has Block Public Access on and BucketOwnerEnforced; ACLs are
// refused, x-amz-object-ownership still chooses.
func TestConformanceNewBucketDefaultsAWS2023(t *testing.T) {
	g := startGateway(t, func(o *api.Options) { o.NewBucketDefaults = api.DefaultsAWS2023 })
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("d2023")
	bk := aws.String(bucket)
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bk}); err != nil {
		t.Fatal(err)
	}
	pab, err := c.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: bk})
	if err != nil {
		t.Fatal(err)
	}
	if cfg := pab.PublicAccessBlockConfiguration; !aws.ToBool(cfg.BlockPublicAcls) || !aws.ToBool(cfg.IgnorePublicAcls) || !aws.ToBool(cfg.BlockPublicPolicy) || !aws.ToBool(cfg.RestrictPublicBuckets) {
		t.Errorf("2023 defaults: Block Public Access %+v, want all on", cfg)
	}
	own, err := c.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: bk})
	if err != nil || own.OwnershipControls.Rules[0].ObjectOwnership != types.ObjectOwnershipBucketOwnerEnforced {
		t.Errorf("2023 defaults: ownership %v %v", err, own)
	}
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("k"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, "PutObject(public-read) with 2023 defaults", err, 400, "AccessControlListNotSupported")
	_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(uniqueBucket("d2023")), ACL: types.BucketCannedACLPublicRead})
	wantCode(t, "CreateBucket(public-read) with 2023 defaults", err, 400, "InvalidBucketAclWithObjectOwnership")
	writer := uniqueBucket("d2023w")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(writer), ObjectOwnership: types.ObjectOwnershipObjectWriter}); err != nil {
		t.Fatal(err)
	}
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(writer), Key: aws.String("k"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, "PutObject(public-read) into ObjectWriter under the default BlockPublicAcls", err, 403, "AccessDenied")
}

// TestConformanceMigratedPublicRead opens a root whose bucket an earlier
// version made public-read (which let everyone read objects): after the
// gateway opens it, the bucket has a policy that does the same, and
// anonymous reads and listings still work.
func TestConformanceMigratedPublicRead(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("legacy")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, c, bucket, "old.txt", "published")
	// What an earlier version's PutBucketAcl public-read stored.
	if err := g.layer.UpdateBucket(bucket, 0, func(b *object.Bucket) error { b.PublicRead = true; return nil }); err != nil {
		t.Fatal(err)
	}
	g.restart()
	if resp, body := g.anon("GET", "/"+bucket+"/old.txt", "", nil, nil); resp.StatusCode != 200 || string(body) != "published" {
		t.Errorf("anonymous GET after the migration: %d %s", resp.StatusCode, body)
	}
	if resp, body := g.anon("GET", "/"+bucket, "list-type=2", nil, nil); resp.StatusCode != 200 {
		t.Errorf("anonymous list after the migration: %d %s", resp.StatusCode, body)
	}
	pol, err := c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(bucket)})
	if err != nil || !strings.Contains(aws.ToString(pol.Policy), "MigratedPublicRead") {
		t.Errorf("policy after the migration: %v %v", err, pol)
	}
	acl, err := c.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: aws.String(bucket)})
	if err != nil || len(acl.Grants) != 1 {
		t.Errorf("bucket ACL after the migration: %v %v", err, acl)
	}
}

// TestConformanceACLNoGrants: an AccessControlPolicy whose
// AccessControlList has no Grant removes every grant, the owner's
// FULL_CONTROL included. GetBucketAcl and GetObjectAcl then answer the
// Owner and an empty AccessControlList; the grantees lose what the ACL
// gave them; the bucket's owner keeps everything on its bucket and its
// objects, and an object's owner keeps READ_ACP and WRITE_ACP (an empty
// list never locks the owner out of the ACL it must restore). Under
// BucketOwnerEnforced the empty list is not in force and the bucket's ACL
// reads as the owner's FULL_CONTROL, as S3 shows a bucket whose ACLs are
// disabled; it is back when ACLs are.
func TestConformanceACLNoGrants(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("nogrants")
	bk := aws.String(bucket)
	alice, bob := access.CanonicalID(g.aliceKey), access.CanonicalID(g.bobKey)
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bk, GrantRead: aws.String("id=" + bob), GrantWrite: aws.String("id=" + bob)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, bucket, "alices", "alice's")
	mustPut(t, g.bob, bucket, "bobs", "bob's")
	if _, err := g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("alices"), GrantRead: aws.String("id=" + bob)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bk}); err != nil {
		t.Fatalf("bob lists with READ: %v", err)
	}
	out, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("alices")})
	readBody(t, "bob reads alice's object with its READ", out, err)

	noGrants := func(id string) *types.AccessControlPolicy {
		return &types.AccessControlPolicy{Owner: &types.Owner{ID: aws.String(id)}, Grants: []types.Grant{}}
	}
	// empty checks an ACL read as the owner and no grant; acl is
	// called only when err is nil.
	empty := func(what string, owner string, err error, acl func() (*types.Owner, []types.Grant)) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		o, grants := acl()
		if aws.ToString(o.ID) != owner || len(grants) != 0 {
			t.Errorf("%s: owner %s grants %v, want owner %s and no grant", what, aws.ToString(o.ID), grantsOf(grants), owner)
		}
	}

	// The bucket's ACL.
	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, AccessControlPolicy: noGrants(alice)}); err != nil {
		t.Fatalf("PutBucketAcl(no grants): %v", err)
	}
	bacl, err := g.alice.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: bk})
	empty("the owner's GetBucketAcl after no grants", alice, err, func() (*types.Owner, []types.Grant) { return bacl.Owner, bacl.Grants })
	resp, body := g.do(g.rawRequest("GET", "/"+bucket, "acl", nil), nil, true)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "</Owner><AccessControlList></AccessControlList></AccessControlPolicy>") {
		t.Errorf("GetBucketAcl document after no grants: %d %s", resp.StatusCode, body)
	}
	_, err = g.bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bk})
	wantCode(t, "bob lists after the bucket's grants were removed", err, 403, "AccessDenied")
	_, err = g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: bk, Key: aws.String("more"), Body: strings.NewReader("x")})
	wantCode(t, "bob writes after the bucket's grants were removed", err, 403, "AccessDenied")
	// The bucket's owner needs no grant.
	if _, err := g.alice.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bk}); err != nil {
		t.Errorf("the owner lists a bucket whose ACL grants nothing: %v", err)
	}
	mustPut(t, g.alice, bucket, "new", "written")
	out, err = g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("new")})
	readBody(t, "the owner reads in a bucket whose ACL grants nothing", out, err)

	// An object's ACL: alice's own object in her bucket.
	if _, err := g.alice.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("alices"), AccessControlPolicy: noGrants(alice)}); err != nil {
		t.Fatalf("PutObjectAcl(no grants) of alice's object: %v", err)
	}
	oacl, err := g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("alices")})
	empty("GetObjectAcl of alice's object after no grants", alice, err, func() (*types.Owner, []types.Grant) { return oacl.Owner, oacl.Grants })
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("alices")})
	wantCode(t, "bob reads after the object's grants were removed", err, 403, "AccessDenied")
	out, err = g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("alices")})
	if got := readBody(t, "the bucket's owner reads her object whose ACL grants nothing", out, err); got != "alice's" {
		t.Errorf("alice read %q", got)
	}

	// bob's object in alice's bucket: its owner keeps READ_ACP and
	// WRITE_ACP; reading it is the ACL's to grant, as for any ACL that
	// leaves its owner out.
	if _, err := g.bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("bobs"), AccessControlPolicy: noGrants(bob)}); err != nil {
		t.Fatalf("PutObjectAcl(no grants) of bob's object: %v", err)
	}
	oacl, err = g.bob.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: bk, Key: aws.String("bobs")})
	empty("bob's GetObjectAcl of his object after no grants", bob, err, func() (*types.Owner, []types.Grant) { return oacl.Owner, oacl.Grants })
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("bobs")})
	wantCode(t, "bob reads his object whose ACL grants nothing", err, 403, "AccessDenied")
	if _, err := g.bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bk, Key: aws.String("bobs"), ACL: types.ObjectCannedACLPrivate}); err != nil {
		t.Fatalf("bob restores his object's ACL: %v", err)
	}
	out, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: bk, Key: aws.String("bobs")})
	readBody(t, "bob reads his object after restoring its ACL", out, err)

	// BucketOwnerEnforced: an ACL that grants no one else lets ACLs be
	// disabled; it reads as the owner's FULL_CONTROL meanwhile, and is
	// refused as any ACL is.
	setOwnership := func(o types.ObjectOwnership) {
		t.Helper()
		if _, err := g.alice.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: bk,
			OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: o}}}}); err != nil {
			t.Fatalf("PutBucketOwnershipControls(%s) over an ACL without grants: %v", o, err)
		}
	}
	setOwnership(types.ObjectOwnershipBucketOwnerEnforced)
	bacl, err = g.alice.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: bk})
	if err != nil || aws.ToString(bacl.Owner.ID) != alice || len(bacl.Grants) != 1 || grantsOf(bacl.Grants)[alice][0] != "FULL_CONTROL" {
		t.Errorf("GetBucketAcl under BucketOwnerEnforced: %v %+v", err, bacl)
	}
	_, err = g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, AccessControlPolicy: noGrants(alice)})
	wantCode(t, "PutBucketAcl(no grants) under BucketOwnerEnforced", err, 400, "AccessControlListNotSupported")
	setOwnership(types.ObjectOwnershipObjectWriter)
	bacl, err = g.alice.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: bk})
	empty("GetBucketAcl with ACLs enabled again", alice, err, func() (*types.Owner, []types.Grant) { return bacl.Owner, bacl.Grants })

	// A private ACL is stored as none again.
	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: bk, ACL: types.BucketCannedACLPrivate}); err != nil {
		t.Fatal(err)
	}
	bacl, err = g.alice.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: bk})
	if err != nil || len(bacl.Grants) != 1 || grantsOf(bacl.Grants)[alice][0] != "FULL_CONTROL" {
		t.Errorf("GetBucketAcl after private: %v %+v", err, bacl)
	}
}
