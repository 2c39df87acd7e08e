package api_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// TestAuthzUnreadableStoredPolicyFailsClosed: a bucket policy in the
// catalogue that this version cannot parse (here one with a condition
// operator it does not know, as a later version might store) denies every
// request on the bucket, the ACL's grants included, instead of being read
// as no policy, which dropped its Deny and let the ACL grant bob the object
// the policy denied him. The owner still reads and deletes the policy,
// root is not bound by it, and once it is deleted the ACL grants again.
func TestAuthzUnreadableStoredPolicyFailsClosed(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("unreadable")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), Body: strings.NewReader("data"),
		GrantRead: aws.String(`id="` + access.CanonicalID(g.bobKey) + `"`)}); err != nil {
		t.Fatal(err)
	}
	bobGet := func() error {
		_, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
		return err
	}
	if err := bobGet(); err != nil {
		t.Fatalf("bob GetObject through the object's ACL: %v", err)
	}
	stored := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject",` +
		`"Resource":"arn:aws:s3:::` + bucket + `/*","Condition":{"StringMatchesLater":{"aws:username":"bob"}}}]}`
	if err := g.layer.UpdateBucket(bucket, 0, func(b *object.Bucket) error { b.Policy = stored; return nil }); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "bob GetObject under an unreadable policy", bobGet(), 403, "AccessDenied")
	_, err := g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	wantCode(t, "alice GetObject under an unreadable policy", err, 403, "AccessDenied")
	if _, err := g.root.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); err != nil {
		t.Errorf("root GetObject under an unreadable policy: %v", err)
	}
	_, err = g.bob.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(bucket)})
	wantCode(t, "bob GetBucketPolicy", err, 403, "AccessDenied")
	got, err := g.alice.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(bucket)})
	if err != nil || aws.ToString(got.Policy) != stored {
		t.Fatalf("alice GetBucketPolicy: %v, want the stored text back", err)
	}
	st, err := g.root.GetBucketPolicyStatus(ctx, &s3.GetBucketPolicyStatusInput{Bucket: aws.String(bucket)})
	if err != nil || st.PolicyStatus == nil || aws.ToBool(st.PolicyStatus.IsPublic) {
		t.Errorf("GetBucketPolicyStatus: %v %+v, want not public", err, st)
	}
	if resp, _ := g.anon("GET", "/"+bucket+"/k", "", nil, nil); resp.StatusCode != 403 {
		t.Errorf("anonymous GET under an unreadable policy: %d, want 403", resp.StatusCode)
	}
	if _, err := g.alice.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("alice DeleteBucketPolicy: %v", err)
	}
	if err := bobGet(); err != nil {
		t.Errorf("bob GetObject through the ACL once the policy is deleted: %v", err)
	}
}
