package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
)

// This file tests multi-user authorization: every implemented operation
// as the root user, as the bucket's owner, as another user, and what
// another user may do on a bucket whose grants to everyone allow it.

// lateUsers lets the shared harness use an object.Users store, which needs
// the layer the harness opens inside startGateway: the store is bound
// right after the start.
type lateUsers struct {
	p atomic.Pointer[object.Users]
	// identityAsks counts IdentityPolicy calls.
	identityAsks atomic.Int64
}

func (l *lateUsers) SecretKey(ak string) (string, bool) { return l.p.Load().SecretKey(ak) }
func (l *lateUsers) IsRoot(ak string) bool              { return l.p.Load().IsRoot(ak) }
func (l *lateUsers) FileOwner(ak string) (object.POSIXOwner, bool) {
	return l.p.Load().FileOwner(ak)
}
func (l *lateUsers) UserByEmail(email string) (string, bool) { return l.p.Load().UserByEmail(email) }

func (l *lateUsers) IdentityPolicy(ak string) *policy.Policy {
	l.identityAsks.Add(1)
	return l.p.Load().IdentityPolicy(ak)
}

var (
	_ api.Principals       = (*lateUsers)(nil)
	_ api.FileOwners       = (*lateUsers)(nil)
	_ api.IdentityPolicies = (*lateUsers)(nil)
	_ api.Emails           = (*lateUsers)(nil)
)

// usersGateway is a gateway whose root user is the harness's key pair,
// with users alice and bob in its index.
type usersGateway struct {
	*gateway
	late             *lateUsers
	users            *object.Users
	root, alice, bob *s3.Client
	aliceKey, aliceSecret,
	bobKey, bobSecret string
}

func startUsersGateway(t *testing.T) *usersGateway {
	t.Helper()
	lu := &lateUsers{}
	g := startGateway(t, func(o *api.Options) { o.Credentials = lu })
	users := g.layer.Users(object.UsersOptions{Root: object.RootUser{AccessKey: g.AccessKey, SecretKey: g.SecretKey}})
	lu.p.Store(users)
	ug := &usersGateway{gateway: g, late: lu, users: users}
	var err error
	if _, ug.aliceSecret, err = users.AddUser(object.AddUserInput{Name: "alice", AccessKey: "AKIDALICE"}); err != nil {
		t.Fatal(err)
	}
	if _, ug.bobSecret, err = users.AddUser(object.AddUserInput{Name: "bob", AccessKey: "AKIDBOB", Email: "bob@example.com"}); err != nil {
		t.Fatal(err)
	}
	ug.aliceKey, ug.bobKey = "AKIDALICE", "AKIDBOB"
	ug.root = g.sdk(sdkModes[0])
	ug.alice = g.sdkWith(sdkModes[0], ug.aliceKey, ug.aliceSecret)
	ug.bob = g.sdkWith(sdkModes[0], ug.bobKey, ug.bobSecret)
	return ug
}

// authzFixture is a bucket owned by alice, holding "obj" (tagged, body
// "data") and a multipart upload of "mp" with part 1 uploaded, with a CORS
// configuration and a policy that grants everyone only keys under "pub/".
type authzFixture struct {
	bucket, uploadID, partETag string
}

func (g *usersGateway) fixture(t *testing.T, empty bool) authzFixture {
	t.Helper()
	ctx := t.Context()
	c := g.sdkWith(sdkModes[2], g.aliceKey, g.aliceSecret) // when-required: no checksum algorithm on the upload
	f := authzFixture{bucket: uniqueBucket("authz")}
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(f.bucket)}); err != nil {
		t.Fatalf("alice CreateBucket: %v", err)
	}
	if empty {
		return f
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(f.bucket), Key: aws.String("obj"), Body: strings.NewReader("data"), Tagging: aws.String("k=v")}); err != nil {
		t.Fatalf("alice PutObject: %v", err)
	}
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(f.bucket), Policy: aws.String(publicReadPolicy(f.bucket, "pub/", false))}); err != nil {
		t.Fatalf("alice PutBucketPolicy: %v", err)
	}
	if _, err := c.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(f.bucket), CORSConfiguration: corsConfig()}); err != nil {
		t.Fatalf("alice PutBucketCors: %v", err)
	}
	if _, err := c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: aws.String(f.bucket), WebsiteConfiguration: websiteConfig("index.html")}); err != nil {
		t.Fatalf("alice PutBucketWebsite: %v", err)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(f.bucket), Key: aws.String("mp")})
	if err != nil {
		t.Fatalf("alice CreateMultipartUpload: %v", err)
	}
	f.uploadID = aws.ToString(up.UploadId)
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(f.bucket), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("part one")})
	if err != nil {
		t.Fatalf("alice UploadPart: %v", err)
	}
	f.partETag = aws.ToString(part.ETag)
	return f
}

func corsConfig() *types.CORSConfiguration {
	return &types.CORSConfiguration{CORSRules: []types.CORSRule{{AllowedMethods: []string{"GET"}, AllowedOrigins: []string{"*"}}}}
}

// authzCase is one operation, run by a client against a fresh fixture.
type authzCase struct {
	op string
	// empty asks for a fixture bucket without objects or uploads.
	empty bool
	// perEntry marks an operation refused entry by entry in a 200
	// answer (DeleteObjects), as S3 refuses it: run returns the first
	// entry's error (entryError), which has no HTTP status of its own.
	perEntry bool
	run      func(ctx context.Context, c *s3.Client, f authzFixture) error
}

// unset is nil for err when it is the error S3 answers for a bucket
// configuration that was never set (code), so that reading it counts as
// allowed; any other error is returned.
// websiteConfig is a website configuration serving index documents
// named suffix.
func websiteConfig(suffix string) *types.WebsiteConfiguration {
	return &types.WebsiteConfiguration{IndexDocument: &types.IndexDocument{Suffix: aws.String(suffix)}}
}

func unset(err error, code string) error {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == code {
		return nil
	}
	return err
}

func authzCases(g *usersGateway) []authzCase {
	b := func(f authzFixture) *string { return aws.String(f.bucket) }
	obj := aws.String("obj")
	mp := aws.String("mp")
	return []authzCase{
		{op: "ListObjects", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: b(f)})
			return err
		}},
		{op: "GetObjectAcl", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b(f), Key: obj})
			return err
		}},
		// The fixture's bucket has no Object Lock: the owner's requests
		// reach the operation, which answers InvalidRequest for it.
		{op: "GetObjectRetention", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: b(f), Key: obj})
			return unset(err, "InvalidRequest")
		}},
		{op: "PutObjectRetention", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: b(f), Key: obj, Retention: &types.ObjectLockRetention{}})
			return unset(err, "InvalidRequest")
		}},
		{op: "GetObjectLegalHold", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: b(f), Key: obj})
			return unset(err, "InvalidRequest")
		}},
		{op: "PutObjectLegalHold", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: b(f), Key: obj, LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOff}})
			return unset(err, "InvalidRequest")
		}},
		{op: "PutObjectAcl", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: b(f), Key: obj, ACL: types.ObjectCannedACLPrivate})
			return err
		}},
		{op: "GetBucketTagging", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b(f)})
			return unset(err, "NoSuchTagSet")
		}},
		{op: "PutBucketTagging", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: b(f), Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}}})
			return err
		}},
		{op: "DeleteBucketTagging", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketLifecycleConfiguration", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b(f)})
			return unset(err, "NoSuchLifecycleConfiguration")
		}},
		{op: "PutBucketLifecycleConfiguration", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: b(f), LifecycleConfiguration: &types.BucketLifecycleConfiguration{
				Rules: []types.LifecycleRule{{ID: aws.String("r"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("tmp/")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}}},
			}})
			return err
		}},
		{op: "DeleteBucketLifecycle", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucketLifecycle(ctx, &s3.DeleteBucketLifecycleInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketEncryption", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: b(f)})
			return unset(err, "ServerSideEncryptionConfigurationNotFoundError")
		}},
		// PutBucketEncryption comes right before DeleteBucketEncryption,
		// which clears it for the cases after.
		{op: "PutBucketEncryption", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{Bucket: b(f),
				ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{{
					ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: types.ServerSideEncryptionAes256}}}}})
			return err
		}},
		{op: "DeleteBucketEncryption", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucketEncryption(ctx, &s3.DeleteBucketEncryptionInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketWebsite", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketWebsite(ctx, &s3.GetBucketWebsiteInput{Bucket: b(f)})
			return err
		}},
		{op: "PutBucketWebsite", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: b(f), WebsiteConfiguration: websiteConfig("other.html")})
			return err
		}},
		{op: "DeleteBucketWebsite", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucketWebsite(ctx, &s3.DeleteBucketWebsiteInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketReplication", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: b(f)})
			return unset(err, "ReplicationConfigurationNotFoundError")
		}},
		{op: "DeleteBucketReplication", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucketReplication(ctx, &s3.DeleteBucketReplicationInput{Bucket: b(f)})
			return err
		}},
		{op: "GetObjectLockConfiguration", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: b(f)})
			return unset(err, "ObjectLockConfigurationNotFoundError")
		}},
		{op: "GetBucketOwnershipControls", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: b(f)})
			return unset(err, "OwnershipControlsNotFoundError")
		}},
		{op: "DeleteBucketOwnershipControls", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucketOwnershipControls(ctx, &s3.DeleteBucketOwnershipControlsInput{Bucket: b(f)})
			return err
		}},
		{op: "PutBucketOwnershipControls", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: b(f),
				OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipObjectWriter}}}})
			return err
		}},
		{op: "GetPublicAccessBlock", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: b(f)})
			return unset(err, "NoSuchPublicAccessBlockConfiguration")
		}},
		{op: "PutPublicAccessBlock", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: b(f), PublicAccessBlockConfiguration: &types.PublicAccessBlockConfiguration{BlockPublicAcls: aws.Bool(false)}})
			return err
		}},
		{op: "DeletePublicAccessBlock", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketLogging", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketNotificationConfiguration", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketAccelerateConfiguration", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketAccelerateConfiguration(ctx, &s3.GetBucketAccelerateConfigurationInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketRequestPayment", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketRequestPayment(ctx, &s3.GetBucketRequestPaymentInput{Bucket: b(f)})
			return err
		}},
		{op: "ListObjectVersions", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: b(f)})
			return err
		}},
		{op: "ListObjectsV2", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketLocation", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketVersioning", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: b(f)})
			return err
		}},
		{op: "PutBucketVersioning", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b(f),
				VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
			return err
		}},
		{op: "PutObjectLockConfiguration", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			// The fixture's bucket is not versioned, so its owner is told
			// InvalidBucketState; anyone else must be refused before that.
			_, err := c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: b(f),
				ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled}})
			return unset(err, "InvalidBucketState")
		}},
		{op: "ListMultipartUploads", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: b(f)})
			return err
		}},
		{op: "HeadBucket", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: b(f)})
			return err
		}},
		{op: "DeleteBucket", empty: true, run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b(f)})
			return err
		}},
		{op: "DeleteObjects", perEntry: true, run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			return entryError(c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b(f), Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: obj}}}}))
		}},
		{op: "GetBucketPolicy", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: b(f)})
			return err
		}},
		{op: "PutBucketPolicy", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: b(f), Policy: aws.String(publicReadPolicy(f.bucket, "", true))})
			return err
		}},
		{op: "DeleteBucketPolicy", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketPolicyStatus", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketPolicyStatus(ctx, &s3.GetBucketPolicyStatusInput{Bucket: b(f)})
			return err
		}},
		{op: "GetBucketAcl", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: b(f)})
			return err
		}},
		{op: "PutBucketAcl", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b(f), ACL: types.BucketCannedACLPublicRead})
			return err
		}},
		{op: "GetBucketCors", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: b(f)})
			return err
		}},
		{op: "PutBucketCors", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: b(f), CORSConfiguration: corsConfig()})
			return err
		}},
		{op: "DeleteBucketCors", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteBucketCors(ctx, &s3.DeleteBucketCorsInput{Bucket: b(f)})
			return err
		}},
		{op: "GetObject", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: b(f), Key: obj})
			if err == nil {
				out.Body.Close()
			}
			return err
		}},
		{op: "HeadObject", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b(f), Key: obj})
			return err
		}},
		{op: "GetObjectTagging", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: b(f), Key: obj})
			return err
		}},
		{op: "PutObjectTagging", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b(f), Key: obj, Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}}})
			return err
		}},
		{op: "DeleteObjectTagging", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: b(f), Key: obj})
			return err
		}},
		{op: "GetObjectAttributes", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: b(f), Key: obj, ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesEtag, types.ObjectAttributesObjectSize}})
			return err
		}},
		{op: "PutObject", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b(f), Key: aws.String("new"), Body: strings.NewReader("new")})
			return err
		}},
		{op: "CopyObject", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b(f), Key: aws.String("copy"), CopySource: aws.String(f.bucket + "/obj")})
			return err
		}},
		{op: "DeleteObject", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b(f), Key: obj})
			return err
		}},
		{op: "CreateMultipartUpload", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b(f), Key: aws.String("mp2")})
			return err
		}},
		{op: "UploadPart", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: b(f), Key: mp, UploadId: aws.String(f.uploadID), PartNumber: aws.Int32(2), Body: strings.NewReader("part two")})
			return err
		}},
		{op: "UploadPartCopy", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: b(f), Key: mp, UploadId: aws.String(f.uploadID), PartNumber: aws.Int32(2), CopySource: aws.String(f.bucket + "/obj")})
			return err
		}},
		{op: "ListParts", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: b(f), Key: mp, UploadId: aws.String(f.uploadID)})
			return err
		}},
		{op: "CompleteMultipartUpload", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: b(f), Key: mp, UploadId: aws.String(f.uploadID),
				MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(f.partETag)}}}})
			return err
		}},
		{op: "AbortMultipartUpload", run: func(ctx context.Context, c *s3.Client, f authzFixture) error {
			_, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: b(f), Key: mp, UploadId: aws.String(f.uploadID)})
			return err
		}},
	}
}

// TestAuthzEveryOperation runs every implemented operation on a bucket
// alice owns, as root, as alice, as bob and as two users with identity
// policies: root, the owner and the user whose identity policy allows
// the fixture buckets succeed; bob and the user whose identity policy
// also denies everything get AccessDenied and change nothing.
func TestAuthzEveryOperation(t *testing.T) {
	g := startUsersGateway(t)
	cases := authzCases(g)

	// Every operation the router dispatches to is covered here or by the
	// dedicated tests below; the unsigned ones are outside authorization.
	covered := map[string]bool{
		"ListBuckets":  true, // TestAuthzListAndCreateBuckets
		"CreateBucket": true, // TestAuthzListAndCreateBuckets
		"PostObject":   true, // TestAuthzPostObject
		// CORS preflights are never signed and answer from the CORS
		// configuration alone; NotImplemented and MethodNotAllowed have
		// nothing to authorize (TestRefusalsAlikeForEveryCaller).
		"CORSPreflight":    true,
		"NotImplemented":   true,
		"MethodNotAllowed": true,
	}
	for _, c := range cases {
		covered[c.op] = true
	}
	for _, op := range api.ImplementedOperations() {
		if !covered[op] {
			t.Errorf("operation %s has no authorization test", op)
		}
	}

	// Users with identity policies: one allowed everything on the
	// fixture buckets (of another user's) by its policy alone, one whose
	// Deny overrides the same Allow.
	identity := func(ak, doc string) *s3.Client {
		_, secret, err := g.users.AddUser(object.AddUserInput{AccessKey: ak})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.users.SetUserPolicy(ak, doc); err != nil {
			t.Fatal(err)
		}
		return g.sdkWith(sdkModes[0], ak, secret)
	}
	const allowFixtures = `{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::authz-*"}`
	callers := []struct {
		name   string
		client *s3.Client
		denied bool
	}{
		{"root", g.root, false},
		{"owner", g.alice, false},
		{"other", g.bob, true},
		{"identity-allowed", identity("AKIDIDALLOW", `{"Version":"2012-10-17","Statement":[`+allowFixtures+`]}`), false},
		{"identity-denied", identity("AKIDIDDENY", `{"Version":"2012-10-17","Statement":[`+allowFixtures+`,
			{"Effect":"Deny","Action":"s3:*","Resource":"*"}]}`), true},
	}
	for _, tc := range cases {
		t.Run(tc.op, func(t *testing.T) {
			for _, who := range callers {
				f := g.fixture(t, tc.empty)
				err := tc.run(t.Context(), who.client, f)
				if !who.denied {
					if err != nil {
						t.Errorf("%s as %s: %v", tc.op, who.name, err)
					}
					continue
				}
				code := "AccessDenied"
				if strings.HasPrefix(tc.op, "Head") {
					code = "Forbidden" // a HEAD response has no body to carry the code
				}
				if tc.perEntry {
					if got := apiCode(err); got != code {
						t.Errorf("%s as %s: entry error %q, want %s (%v)", tc.op, who.name, got, code, err)
					}
				} else {
					wantCode(t, tc.op+" as "+who.name, err, 403, code)
				}
				g.checkUntouched(t, f, tc.empty)
			}
		})
	}
}

// checkUntouched verifies that a denied request left alice's fixture as
// it was.
func (g *usersGateway) checkUntouched(t *testing.T, f authzFixture, empty bool) {
	t.Helper()
	ctx := t.Context()
	if _, err := g.alice.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(f.bucket)}); err != nil {
		t.Errorf("fixture bucket after a denied request: %v", err)
	}
	if empty {
		return
	}
	out, err := g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(f.bucket), Key: aws.String("obj")})
	if err != nil {
		t.Errorf("fixture object after a denied request: %v", err)
		return
	}
	body, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(body) != "data" {
		t.Errorf("fixture object after a denied request: %q", body)
	}
	list, err := g.alice.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(f.bucket)})
	if err != nil || len(list.Contents) != 1 {
		t.Errorf("fixture listing after a denied request: %v, %d objects", err, len(list.Contents))
	}
	parts, err := g.alice.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(f.bucket), Key: aws.String("mp"), UploadId: aws.String(f.uploadID)})
	if err != nil || len(parts.Parts) != 1 {
		t.Errorf("fixture upload after a denied request: %v", err)
	}
	site, err := g.alice.GetBucketWebsite(ctx, &s3.GetBucketWebsiteInput{Bucket: aws.String(f.bucket)})
	if err != nil || site.IndexDocument == nil || aws.ToString(site.IndexDocument.Suffix) != "index.html" {
		t.Errorf("fixture website configuration after a denied request: %v", err)
	}
	pol, err := g.alice.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(f.bucket)})
	if err != nil || !strings.Contains(aws.ToString(pol.Policy), "pub/") {
		t.Errorf("fixture policy after a denied request: %v", err)
	}
}

// TestAuthzListAndCreateBuckets checks ListBuckets and CreateBucket: each
// user lists only its own buckets, root lists all; creating a bucket makes
// the caller its owner; a name another user holds is BucketAlreadyExists.
func TestAuthzListAndCreateBuckets(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	create := func(c *s3.Client, name string) error {
		_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
		return err
	}
	for _, x := range []struct {
		c    *s3.Client
		name string
	}{{g.root, "root-bucket"}, {g.alice, "alice-bucket"}, {g.bob, "bob-bucket"}} {
		if err := create(x.c, x.name); err != nil {
			t.Fatalf("CreateBucket %s: %v", x.name, err)
		}
	}
	list := func(c *s3.Client) []string {
		out, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
		if err != nil {
			t.Fatalf("ListBuckets: %v", err)
		}
		var names []string
		for _, b := range out.Buckets {
			names = append(names, aws.ToString(b.Name))
		}
		return names
	}
	if got := list(g.root); !slices.Equal(got, []string{"alice-bucket", "bob-bucket", "root-bucket"}) {
		t.Errorf("root lists %v", got)
	}
	if got := list(g.alice); !slices.Equal(got, []string{"alice-bucket"}) {
		t.Errorf("alice lists %v", got)
	}
	if got := list(g.bob); !slices.Equal(got, []string{"bob-bucket"}) {
		t.Errorf("bob lists %v", got)
	}
	wantCode(t, "bob creates alice's bucket", create(g.bob, "alice-bucket"), 409, "BucketAlreadyExists")
	wantCode(t, "alice creates root's bucket", create(g.alice, "root-bucket"), 409, "BucketAlreadyExists")
	wantCode(t, "alice re-creates her bucket", create(g.alice, "alice-bucket"), 409, "BucketAlreadyOwnedByYou")
	// Root's buckets (and those created before users existed) are root's.
	_, err := g.alice.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("root-bucket")})
	wantCode(t, "alice lists root's bucket", err, 403, "AccessDenied")
	if _, err := g.root.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("bob-bucket")}); err != nil {
		t.Errorf("root lists bob's bucket: %v", err)
	}
	// A bucket that does not exist is NoSuchBucket for everyone.
	_, err = g.bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("no-such-bucket"), Key: aws.String("k")})
	wantCode(t, "bob HeadObject in a missing bucket", err, 404, "NotFound")

	// A removed user can no longer sign; a disabled one neither.
	if err := g.users.SetDisabled(g.bobKey, true); err != nil {
		t.Fatal(err)
	}
	_, err = g.bob.ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, "disabled bob", err, 403, "InvalidAccessKeyId")
	if err := g.users.SetDisabled(g.bobKey, false); err != nil {
		t.Fatal(err)
	}
	if got := list(g.bob); len(got) != 1 {
		t.Errorf("re-enabled bob lists %v", got)
	}
	if err := g.users.RemoveUser(g.aliceKey); err != nil {
		t.Fatal(err)
	}
	_, err = g.alice.ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, "removed alice", err, 403, "InvalidAccessKeyId")
}

// TestAuthzPublicBucket checks what another user may do on a bucket whose
// owner granted everyone READ (listing, as in S3) and an object whose ACL
// is public-read: exactly what everyone may do, no more.
func TestAuthzPublicBucket(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("public")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket), ACL: types.BucketCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, bucket, "private", "alice only")
	_, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("private")})
	wantCode(t, "bob GetObject of a private object in a public-read bucket", err, 403, "AccessDenied")
	if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj"), Body: strings.NewReader("public data"), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	out, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj")})
	if err != nil {
		t.Fatalf("bob GetObject on a public-read bucket: %v", err)
	}
	body, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(body) != "public data" {
		t.Errorf("bob read %q", body)
	}
	if _, err := g.bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj")}); err != nil {
		t.Errorf("bob HeadObject on a public-read bucket: %v", err)
	}
	if _, err := g.bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)}); err != nil {
		t.Errorf("bob ListObjectsV2 on a public-read bucket: %v", err)
	}
	_, err = g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj"), Body: strings.NewReader("overwritten")})
	wantCode(t, "bob PutObject on a public-read bucket", err, 403, "AccessDenied")
	_, err = g.bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("obj")})
	wantCode(t, "bob DeleteObject on a public-read bucket", err, 403, "AccessDenied")
	_, err = g.bob.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket), ACL: types.BucketCannedACLPrivate})
	wantCode(t, "bob PutBucketAcl on a public-read bucket", err, 403, "AccessDenied")
	_, err = g.bob.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("obj")})
	wantCode(t, "bob GetObjectTagging on a public-read bucket", err, 403, "AccessDenied")

	// Copies need read access to the source: from the public bucket into
	// bob's own bucket works, from alice's private bucket it does not.
	own := uniqueBucket("bob")
	if _, err := g.bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(own)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("copy"), CopySource: aws.String(bucket + "/obj")}); err != nil {
		t.Errorf("bob copies from a public-read bucket: %v", err)
	}
	private := uniqueBucket("private")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(private)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, private, "secret", "alice's secret")
	_, err = g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("stolen"), CopySource: aws.String(private + "/secret")})
	wantCode(t, "bob copies from alice's private bucket", err, 403, "AccessDenied")
	up, err := g.bob.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(own), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.bob.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(own), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), CopySource: aws.String(private + "/secret")})
	wantCode(t, "bob UploadPartCopy from alice's private bucket", err, 403, "AccessDenied")
	if _, err := g.bob.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(own), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), CopySource: aws.String(bucket + "/obj")}); err != nil {
		t.Errorf("bob UploadPartCopy from a public-read bucket: %v", err)
	}
	if _, err := g.bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(own), Key: aws.String("stolen")}); err == nil {
		t.Error("a denied copy left an object behind")
	}
	// The policy grants only keys under "pub/": a policy-granted read of
	// such a key works for bob, others stay denied.
	pol := uniqueBucket("policy")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(pol)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(pol), Policy: aws.String(publicReadPolicy(pol, "pub/", false))}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, pol, "pub/a", "a")
	mustPut(t, g.alice, pol, "priv/b", "b")
	if _, err := g.bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(pol), Key: aws.String("pub/a")}); err != nil {
		t.Errorf("bob reads a policy-granted key: %v", err)
	}
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(pol), Key: aws.String("priv/b")})
	wantCode(t, "bob reads a key the policy does not grant", err, 403, "AccessDenied")
	_, err = g.bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(pol)})
	wantCode(t, "bob lists a bucket whose policy grants no ListBucket", err, 403, "AccessDenied")
}

// TestAuthzPostObject checks browser POST uploads: the signer must own
// the bucket (or be root).
func TestAuthzPostObject(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("post")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	// A user whose identity policy allows s3:PutObject on alice's bucket,
	// and one whose policy also denies it.
	withPolicy := func(ak, doc string) string {
		_, secret, err := g.users.AddUser(object.AddUserInput{AccessKey: ak})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.users.SetUserPolicy(ak, doc); err != nil {
			t.Fatal(err)
		}
		return secret
	}
	allowPut := `{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::` + bucket + `/*"}`
	poster := withPolicy("AKIDPOSTER", `{"Version":"2012-10-17","Statement":[`+allowPut+`]}`)
	noPost := withPolicy("AKIDNOPOST", `{"Version":"2012-10-17","Statement":[`+allowPut+`,{"Effect":"Deny","Action":"s3:PutObject","Resource":"*"}]}`)
	now := time.Now()
	p := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket},
		[]any{"starts-with", "$key", ""},
	}}
	for _, who := range []struct {
		name, ak, sk string
		status       int
	}{
		{"root", g.AccessKey, g.SecretKey, 204},
		{"owner", g.aliceKey, g.aliceSecret, 204},
		{"other", g.bobKey, g.bobSecret, 403},
		{"identity-allowed", "AKIDPOSTER", poster, 204},
		{"identity-denied", "AKIDNOPOST", noPost, 403},
	} {
		fields := append([]postField{{"key", "by-" + who.name}}, g.signPost(p, who.ak, who.sk, now)...)
		resp, body := g.postUpload(bucket, fields, "f.txt", []byte("posted"))
		if resp.StatusCode != who.status {
			t.Errorf("POST as %s: %d %s, want %d", who.name, resp.StatusCode, body, who.status)
		}
	}
	for _, k := range []string{"by-other", "by-identity-denied"} {
		if _, err := g.alice.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)}); err == nil {
			t.Errorf("a denied POST upload stored %s", k)
		}
	}
}

// TestAuthzPostObjectConditions checks that a browser POST upload is
// decided on the condition keys of its form fields, which stand for
// PutObject's headers: the bucket policy's Deny of s3:PutObject with a
// public x-amz-acl, or with a request tag, refuses the POST that asks
// for them in its acl and tagging fields. Before, the keys were read from
// the POST request's own headers, which carry none of them, and the
// upload went through: bob made an object of alice's bucket public-read
// where alice's policy denied it.
func TestAuthzPostObjectConditions(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("postcond")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::` + bucket + `/*"},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::` + bucket + `/*",
		 "Condition":{"StringEquals":{"s3:x-amz-acl":["public-read","public-read-write"]}}},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::` + bucket + `/*",
		 "Condition":{"StringEquals":{"s3:RequestObjectTag/class":"public"}}}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	_, err := g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("put"), Body: strings.NewReader("x"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, "bob PutObject public-read", err, 403, "AccessDenied")

	now := time.Now()
	p := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket},
		[]any{"starts-with", "$key", ""},
		[]any{"starts-with", "$acl", ""},
		[]any{"starts-with", "$tagging", ""},
	}}
	tagging := func(v string) string {
		return `<Tagging><TagSet><Tag><Key>class</Key><Value>` + v + `</Value></Tag></TagSet></Tagging>`
	}
	for _, c := range []struct {
		key, acl, tag string
		status        int
	}{
		{"private", "private", "internal", 204},
		{"public-read", "public-read", "internal", 403},
		{"public-read-write", "public-read-write", "internal", 403},
		{"tagged-public", "private", "public", 403},
	} {
		fields := append([]postField{{"key", c.key}, {"acl", c.acl}, {"tagging", tagging(c.tag)}}, g.signPost(p, g.bobKey, g.bobSecret, now)...)
		resp, body := g.postUpload(bucket, fields, "f.txt", []byte("posted"))
		if resp.StatusCode != c.status {
			t.Errorf("bob POST %s (acl %s, tag class=%s): %d %s, want %d", c.key, c.acl, c.tag, resp.StatusCode, body, c.status)
		}
		resp, _ = g.anon("GET", "/"+bucket+"/"+c.key, "", nil, nil)
		if resp.StatusCode == 200 {
			t.Errorf("anonymous GET of %s after bob's POST: 200", c.key)
		}
	}
}

// TestAuthzObjectLockOnWrite checks that Object Lock headers on a write
// need the permissions of setting them afterwards, as in S3: retention
// (x-amz-object-lock-mode, -retain-until-date) s3:PutObjectRetention,
// a legal hold s3:PutObjectLegalHold, on PutObject, CopyObject,
// CreateMultipartUpload and POST uploads. Before, s3:PutObject alone let
// bob write versions into alice's bucket under COMPLIANCE retention or a
// legal hold that neither alice nor root could remove, though bob's
// PutObjectRetention of the same lock was refused.
func TestAuthzObjectLockOnWrite(t *testing.T) {
	g := startUsersGateway(t)
	clearImmutable(t, g.Root)
	ctx := t.Context()
	bucket := uniqueBucket("lockwrite")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	src := uniqueBucket("locksrc")
	if _, err := g.bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(src)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.bob, src, "s", "source")
	res := func(prefix string) string { return `"arn:aws:s3:::` + bucket + `/` + prefix + `/*"` }
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:PutObject","Resource":[` + res("drop") + `,` + res("locker") + `]},
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":["s3:PutObjectRetention","s3:PutObjectLegalHold"],"Resource":` + res("locker") + `}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	until := aws.Time(time.Now().Add(time.Hour))
	put := func(c *s3.Client, key string, mode types.ObjectLockMode, hold types.ObjectLockLegalHoldStatus) error {
		in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("x"),
			ChecksumAlgorithm: types.ChecksumAlgorithmSha256, ObjectLockMode: mode, ObjectLockLegalHoldStatus: hold}
		if mode != "" {
			in.ObjectLockRetainUntilDate = until
		}
		_, err := c.PutObject(ctx, in)
		return err
	}
	wantCode(t, "bob PutObject with COMPLIANCE retention", put(g.bob, "drop/a", types.ObjectLockModeCompliance, ""), 403, "AccessDenied")
	wantCode(t, "bob PutObject with GOVERNANCE retention", put(g.bob, "drop/a", types.ObjectLockModeGovernance, ""), 403, "AccessDenied")
	wantCode(t, "bob PutObject with a legal hold", put(g.bob, "drop/a", "", types.ObjectLockLegalHoldStatusOn), 403, "AccessDenied")
	_, err := g.bob.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("drop/mp"),
		ObjectLockMode: types.ObjectLockModeCompliance, ObjectLockRetainUntilDate: until})
	wantCode(t, "bob CreateMultipartUpload with retention", err, 403, "AccessDenied")
	_, err = g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("drop/cp"), CopySource: aws.String(src + "/s"),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	wantCode(t, "bob CopyObject with a legal hold", err, 403, "AccessDenied")
	now := time.Now()
	p := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket},
		[]any{"starts-with", "$key", ""},
		[]any{"starts-with", "$x-amz-object-lock-mode", ""},
		[]any{"starts-with", "$x-amz-object-lock-retain-until-date", ""},
	}}
	fields := append([]postField{{"key", "drop/post"}, {"x-amz-object-lock-mode", "COMPLIANCE"},
		{"x-amz-object-lock-retain-until-date", until.UTC().Format(time.RFC3339)}}, g.signPost(p, g.bobKey, g.bobSecret, now)...)
	if resp, body := g.postUpload(bucket, fields, "f.txt", []byte("posted")); resp.StatusCode != 403 {
		t.Errorf("bob POST with COMPLIANCE retention: %d %s, want 403", resp.StatusCode, body)
	}
	out, err := g.alice.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Versions) != 0 {
		t.Errorf("refused writes left %d versions", len(out.Versions))
	}

	// Without lock headers the write is bob's s3:PutObject; with the
	// lock permissions, or as the bucket's owner, locks are set.
	if err := put(g.bob, "drop/plain", "", ""); err != nil {
		t.Errorf("bob PutObject without lock headers: %v", err)
	}
	if err := put(g.bob, "locker/a", types.ObjectLockModeGovernance, types.ObjectLockLegalHoldStatusOn); err != nil {
		t.Errorf("bob PutObject with lock headers where the policy grants the lock permissions: %v", err)
	}
	if err := put(g.alice, "drop/own", types.ObjectLockModeGovernance, types.ObjectLockLegalHoldStatusOn); err != nil {
		t.Errorf("alice PutObject with lock headers in her bucket: %v", err)
	}
}

// TestAuthzPutObjectTaggingConditions checks that PutObjectTagging is
// decided on the tag set of its body, which S3 gives as
// s3:RequestObjectTag/KEY and s3:RequestObjectTagKeys: a policy that lets
// bob tag only with the key "project", and denies the tag expire=now
// (which a lifecycle rule could act on), refuses bob's other tags. Before,
// the keys were taken from x-amz-tagging alone, which PutObjectTagging
// does not send: absent, they let ForAllValues through and no Deny
// apply, and bob set expire=now.
func TestAuthzPutObjectTaggingConditions(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("tagcond")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, bucket, "shared/t", "x")
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:PutObjectTagging","Resource":"arn:aws:s3:::` + bucket + `/shared/*",
		 "Condition":{"ForAllValues:StringEquals":{"s3:RequestObjectTagKeys":["project","expire"]}}},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObjectTagging","Resource":"arn:aws:s3:::` + bucket + `/*",
		 "Condition":{"StringEquals":{"s3:RequestObjectTag/expire":"now"}}}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	tag := func(c *s3.Client, kv ...string) error {
		var set []types.Tag
		for i := 0; i < len(kv); i += 2 {
			set = append(set, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
		}
		_, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("shared/t"), Tagging: &types.Tagging{TagSet: set}})
		return err
	}
	if err := tag(g.bob, "project", "p1", "expire", "later"); err != nil {
		t.Errorf("bob tags with the keys the policy allows: %v", err)
	}
	wantCode(t, "bob tags with a key the policy does not allow", tag(g.bob, "owner", "bob"), 403, "AccessDenied")
	wantCode(t, "bob tags expire=now, which the policy denies", tag(g.bob, "project", "p1", "expire", "now"), 403, "AccessDenied")
	wantCode(t, "alice, the owner, tags expire=now, which the policy denies to everyone", tag(g.alice, "expire", "now"), 403, "AccessDenied")
	if err := tag(g.alice, "owner", "alice"); err != nil {
		t.Errorf("alice tags her object: %v", err)
	}
	out, err := g.alice.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("shared/t")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.TagSet) != 1 || aws.ToString(out.TagSet[0].Key) != "owner" {
		t.Errorf("tags after the refused requests: %v", out.TagSet)
	}

	// A body that does not parse is the allowed caller's MalformedXML.
	bad := []byte("<Tagging><TagSet>")
	req := g.rawRequest("PUT", "/"+bucket+"/shared/t", "tagging", bad)
	sum := sha256.Sum256(bad)
	req.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(sum[:]))
	creds := aws.Credentials{AccessKeyID: g.aliceKey, SecretAccessKey: g.aliceSecret}
	// A signer of its own: the shared one caches signing keys by access
	// key id, and alice's secret differs between tests.
	own := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	if err := own.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "s3", g.Region, time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, body := g.do(req, nil, false)
	wantXMLError(t, "alice PutObjectTagging with a malformed body", resp, body, 400, "MalformedXML")
}

// TestAuthzWriteGrantKeepsVersions checks that a bucket ACL's WRITE lets
// its grantee delete objects, leaving delete markers, but not remove a
// version (DeleteObject or DeleteObjects with a version id), which S3
// gives only the bucket's owner. Before, bob, granted WRITE on alice's
// versioned bucket, removed the version he had just hidden behind a
// delete marker, and with it alice's data.
func TestAuthzWriteGrantKeepsVersions(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("writever")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	put, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("doc"), Body: strings.NewReader("v1")})
	if err != nil {
		t.Fatal(err)
	}
	v1 := put.VersionId
	grants := `id="` + access.CanonicalID(g.aliceKey) + `"`
	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket),
		GrantWrite: aws.String(`id="` + access.CanonicalID(g.bobKey) + `"`), GrantFullControl: aws.String(grants)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("doc")}); err != nil {
		t.Errorf("bob DeleteObject with WRITE: %v", err)
	}
	_, err = g.bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("doc"), VersionId: v1})
	wantCode(t, "bob DeleteObject of a version with WRITE", err, 403, "AccessDenied")
	err = entryError(g.bob.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("doc"), VersionId: v1}}}}))
	if apiCode(err) != "AccessDenied" {
		t.Errorf("bob DeleteObjects of a version with WRITE: %v, want the entry's AccessDenied", err)
	}
	out, err := g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("doc"), VersionId: v1})
	if got := readBody(t, "alice GetObject of the version", out, err); got != "v1" {
		t.Errorf("alice's version reads %q", got)
	}
	if _, err := g.alice.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("doc"), VersionId: v1}); err != nil {
		t.Errorf("alice, the owner, removes her version: %v", err)
	}
}

// TestAuthzPolicyOnForeignObject checks that a bucket policy, which is
// the bucket owner's, grants reads only of the objects the bucket's
// owner owns: an object bob wrote into alice's bucket (ObjectWriter)
// stays readable only by the grants of its ACL, on the REST endpoint and
// on the website endpoint, as S3 has it for another account's object.
// Before, alice, who may not read bob's private object, read it by
// granting herself s3:GetObject in her bucket policy, and published it to
// everyone with "Principal": "*".
func TestAuthzPolicyOnForeignObject(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("foreign")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket),
		GrantWrite: aws.String(`id="` + access.CanonicalID(g.bobKey) + `"`), GrantFullControl: aws.String(`id="` + access.CanonicalID(g.aliceKey) + `"`)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.bob, bucket, "bobs", "bob's private data")
	mustPut(t, g.alice, bucket, "alices", "alice's")
	mustPut(t, g.alice, bucket, "index.html", "index")
	if _, err := g.alice.PutBucketWebsite(ctx, &s3.PutBucketWebsiteInput{Bucket: aws.String(bucket), WebsiteConfiguration: websiteConfig("index.html")}); err != nil {
		t.Fatal(err)
	}
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:GetObjectVersion","s3:GetObjectAcl","s3:GetObjectTagging"],"Resource":"arn:aws:s3:::` + bucket + `/*"}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	_, err := g.alice.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("bobs")})
	wantCode(t, "alice GetObject of bob's object by her policy", err, 403, "AccessDenied")
	_, err = g.alice.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("bobs")})
	wantCode(t, "alice GetObjectAcl of bob's object by her policy", err, 403, "AccessDenied")
	_, err = g.alice.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("bobs")})
	wantCode(t, "alice GetObjectTagging of bob's object by her policy", err, 403, "AccessDenied")
	own := uniqueBucket("own")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(own)}); err != nil {
		t.Fatal(err)
	}
	_, err = g.alice.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("copy"), CopySource: aws.String(bucket + "/bobs")})
	wantCode(t, "alice CopyObject from bob's object by her policy", err, 403, "AccessDenied")
	for _, k := range []string{"bobs", "alices"} {
		want := 403
		if k == "alices" {
			want = 200
		}
		for _, method := range []string{"GET", "HEAD"} {
			if resp, body := g.anon(method, "/"+bucket+"/"+k, "", nil, nil); resp.StatusCode != want {
				t.Errorf("anonymous %s %s: %d %s, want %d", method, k, resp.StatusCode, body, want)
			}
		}
	}
	if _, err = g.alice.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("bobs")}); httpStatus(err) != 403 {
		t.Errorf("alice HeadObject of bob's object by her policy: %v, want 403", err)
	}
	// A conditional read is refused before its condition is looked at.
	if resp, body := g.anon("GET", "/"+bucket+"/bobs", "", map[string]string{"If-None-Match": "*"}, nil); resp.StatusCode != 403 {
		t.Errorf("anonymous conditional GET of bob's object: %d %s, want 403", resp.StatusCode, body)
	}
	ws := startWebsite(t, g.gateway, api.WebsiteOptions{})
	for _, k := range []string{"bobs", "alices"} {
		want := 403
		if k == "alices" {
			want = 200
		}
		req, err := http.NewRequestWithContext(ctx, "GET", ws.URL+"/"+k, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = bucket
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("website GET %s: %d, want %d", k, resp.StatusCode, want)
		}
	}

	// Bob's own grant publishes it; bob reads it whatever the policy.
	out, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("bobs")})
	if got := readBody(t, "bob GetObject of his object", out, err); got != "bob's private data" {
		t.Errorf("bob reads %q", got)
	}
	if _, err := g.bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("bobs"), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	if resp, body := g.anon("GET", "/"+bucket+"/bobs", "", nil, nil); resp.StatusCode != 200 {
		t.Errorf("anonymous GET of bob's object after his public-read: %d %s", resp.StatusCode, body)
	}
}

// TestAuthzObjectLockBodyConditions checks that PutObjectRetention and
// PutObjectLegalHold are decided on what their documents ask for, as S3
// gives it: s3:object-lock-mode and s3:object-lock-retain-until-date of
// the Retention, s3:object-lock-legal-hold of the LegalHold. A policy
// that lets bob set retention and legal holds but denies COMPLIANCE and
// holds ON refuses those. Before, the keys were taken from the
// x-amz-object-lock-* headers alone, which these requests do not send,
// and bob put alice's version under COMPLIANCE retention, which no one
// can lift before its date, and under a legal hold.
func TestAuthzObjectLockBodyConditions(t *testing.T) {
	g := startUsersGateway(t)
	clearImmutable(t, g.Root)
	ctx := t.Context()
	bucket := uniqueBucket("lockbody")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, bucket, "a", "x")
	mustPut(t, g.alice, bucket, "b", "x")
	res := `"arn:aws:s3:::` + bucket + `/*"`
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":["s3:PutObjectRetention","s3:PutObjectLegalHold"],"Resource":` + res + `},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObjectRetention","Resource":` + res + `,"Condition":{"StringEquals":{"s3:object-lock-mode":"COMPLIANCE"}}},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObjectRetention","Resource":` + res + `,"Condition":{"DateGreaterThan":{"s3:object-lock-retain-until-date":"` + time.Now().Add(24*time.Hour).UTC().Format(time.RFC3339) + `"}}},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObjectLegalHold","Resource":` + res + `,"Condition":{"StringEquals":{"s3:object-lock-legal-hold":"ON"}}}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	retain := func(key string, mode types.ObjectLockRetentionMode, until time.Time) error {
		_, err := g.bob.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Retention: &types.ObjectLockRetention{Mode: mode, RetainUntilDate: aws.Time(until)}})
		return err
	}
	hold := func(key string, status types.ObjectLockLegalHoldStatus) error {
		_, err := g.bob.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String(bucket), Key: aws.String(key),
			LegalHold: &types.ObjectLockLegalHold{Status: status}})
		return err
	}
	soon := time.Now().Add(time.Hour)
	wantCode(t, "bob PutObjectRetention COMPLIANCE", retain("a", types.ObjectLockRetentionModeCompliance, soon), 403, "AccessDenied")
	wantCode(t, "bob PutObjectRetention beyond the policy's date", retain("a", types.ObjectLockRetentionModeGovernance, time.Now().Add(48*time.Hour)), 403, "AccessDenied")
	wantCode(t, "bob PutObjectLegalHold ON", hold("a", types.ObjectLockLegalHoldStatusOn), 403, "AccessDenied")
	if _, err := g.alice.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String("a")}); err == nil {
		t.Error("a refused PutObjectRetention left a retention")
	}
	if err := retain("b", types.ObjectLockRetentionModeGovernance, soon); err != nil {
		t.Errorf("bob PutObjectRetention GOVERNANCE within the policy: %v", err)
	}
	if err := hold("b", types.ObjectLockLegalHoldStatusOff); err != nil {
		t.Errorf("bob PutObjectLegalHold OFF: %v", err)
	}
}

// TestAuthzObjectLockRemainingRetentionDays checks the condition key
// s3:object-lock-remaining-retention-days with the policy AWS gives to
// bound retention periods ("Setting limits on retention periods with a
// bucket policy"): a Deny of s3:PutObjectRetention where the key is
// NumericGreaterThan 10 refuses a PutObjectRetention, and a PutObject
// with lock headers, of more than ten days (ten and an hour count as
// eleven) and lets nine through. Without the key the Deny never applied.
func TestAuthzObjectLockRemainingRetentionDays(t *testing.T) {
	g := startUsersGateway(t)
	clearImmutable(t, g.Root)
	ctx := t.Context()
	bucket := uniqueBucket("lockdays")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket), ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.alice, bucket, "a", "x")
	mustPut(t, g.alice, bucket, "b", "x")
	res := `"arn:aws:s3:::` + bucket + `/*"`
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":["s3:PutObject","s3:PutObjectRetention"],"Resource":` + res + `},
		{"Effect":"Deny","Principal":"*","Action":"s3:PutObjectRetention","Resource":` + res + `,"Condition":{"NumericGreaterThan":{"s3:object-lock-remaining-retention-days":"10"}}}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	const day = 24 * time.Hour
	retain := func(key string, until time.Time) error {
		_, err := g.bob.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionModeGovernance, RetainUntilDate: aws.Time(until)}})
		return err
	}
	put := func(key string, until time.Time) error {
		_, err := g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("x"),
			ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, ObjectLockMode: types.ObjectLockModeGovernance, ObjectLockRetainUntilDate: aws.Time(until)})
		return err
	}
	wantCode(t, "bob PutObjectRetention of 30 days", retain("a", time.Now().Add(30*day)), 403, "AccessDenied")
	wantCode(t, "bob PutObjectRetention of 10 days and an hour", retain("a", time.Now().Add(10*day+time.Hour)), 403, "AccessDenied")
	if _, err := g.alice.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String("a")}); err == nil {
		t.Error("a refused PutObjectRetention left a retention")
	}
	if err := retain("b", time.Now().Add(9*day)); err != nil {
		t.Errorf("bob PutObjectRetention of 9 days: %v", err)
	}
	wantCode(t, "bob PutObject locked for 30 days", put("locked", time.Now().Add(30*day)), 403, "AccessDenied")
	if err := put("short", time.Now().Add(9*day)); err != nil {
		t.Errorf("bob PutObject locked for 9 days: %v", err)
	}
}

// TestAuthzWriteOnlyKeepsACLAndTags checks that a user whose identity
// policy lets it only write (s3:PutObject) cannot give the object it
// writes, which is the bucket owner's, an ACL granting anyone but the
// bucket's owner, or tags: those need s3:PutObjectAcl and
// s3:PutObjectTagging, as S3 asks of PutObject. Before, the user's
// x-amz-acl: public-read published the bucket owner's new object to
// everyone, and x-amz-grant-read to itself let it read back what its
// policy keeps it from reading, though its PutObjectAcl was refused.
func TestAuthzWriteOnlyKeepsACLAndTags(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("writeonly")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	_, secret, err := g.users.AddUser(object.AddUserInput{AccessKey: "AKIDWRITER"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.users.SetUserPolicy("AKIDWRITER", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::`+bucket+`/inbox/*"}]}`); err != nil {
		t.Fatal(err)
	}
	w := g.sdkWith(sdkModes[0], "AKIDWRITER", secret)
	put := func(key string, f func(*s3.PutObjectInput)) error {
		in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("x")}
		f(in)
		_, err := w.PutObject(ctx, in)
		return err
	}
	wantCode(t, "writer PutObject public-read", put("inbox/pub", func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLPublicRead }), 403, "AccessDenied")
	wantCode(t, "writer PutObject granting itself READ", put("inbox/self", func(in *s3.PutObjectInput) {
		in.GrantRead = aws.String(`id="` + access.CanonicalID("AKIDWRITER") + `"`)
	}), 403, "AccessDenied")
	wantCode(t, "writer PutObject with tags", put("inbox/tagged", func(in *s3.PutObjectInput) { in.Tagging = aws.String("expire=now") }), 403, "AccessDenied")
	_, err = w.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("inbox/mp"), ACL: types.ObjectCannedACLPublicRead})
	wantCode(t, "writer CreateMultipartUpload public-read", err, 403, "AccessDenied")
	now := time.Now()
	p := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket}, []any{"starts-with", "$key", "inbox/"}, map[string]string{"acl": "public-read"},
	}}
	fields := append([]postField{{"key", "inbox/post"}, {"acl", "public-read"}}, g.signPost(p, "AKIDWRITER", secret, now)...)
	if resp, body := g.postUpload(bucket, fields, "f.txt", []byte("posted")); resp.StatusCode != 403 {
		t.Errorf("writer POST with acl public-read: %d %s, want 403", resp.StatusCode, body)
	}
	for _, k := range []string{"inbox/pub", "inbox/post"} {
		if resp, _ := g.anon("GET", "/"+bucket+"/"+k, "", nil, nil); resp.StatusCode == 200 {
			t.Errorf("anonymous GET %s: 200", k)
		}
	}
	if _, err := w.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("inbox/self")}); err == nil {
		t.Error("the writer reads back an object")
	}

	// Without them, and with an ACL granting only the bucket's owner, it
	// writes; alice, who owns the objects, sets what she likes.
	if err := put("inbox/plain", func(*s3.PutObjectInput) {}); err != nil {
		t.Errorf("writer PutObject: %v", err)
	}
	if err := put("inbox/bofc", func(in *s3.PutObjectInput) { in.ACL = types.ObjectCannedACLBucketOwnerFullControl }); err != nil {
		t.Errorf("writer PutObject bucket-owner-full-control: %v", err)
	}
	if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("inbox/alice"), Body: strings.NewReader("x"),
		ACL: types.ObjectCannedACLPublicRead, Tagging: aws.String("k=v")}); err != nil {
		t.Errorf("alice PutObject public-read with tags: %v", err)
	}

	// An anonymous writer of a public-read-write bucket sets an ACL and
	// tags as S3 lets it (TestConformancePostObjectAnonymous), unless the
	// bucket's policy denies them, on a PUT as on a POST upload.
	open := uniqueBucket("anonwrite")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(open), ACL: types.BucketCannedACLPublicReadWrite}); err != nil {
		t.Fatal(err)
	}
	anonPut := func(key string) int {
		resp, _ := g.anon("PUT", "/"+open+"/"+key, "", map[string]string{"X-Amz-Acl": "public-read", "X-Amz-Tagging": "k=v"}, []byte("x"))
		return resp.StatusCode
	}
	anonPost := func(key string) int {
		resp, _ := g.postUpload(open, []postField{{"key", key}, {"acl", "public-read"}}, "f.txt", []byte("x"))
		return resp.StatusCode
	}
	if st := anonPut("put"); st != 200 {
		t.Errorf("anonymous PutObject public-read with tags into a public-read-write bucket: %d, want 200", st)
	}
	if st := anonPost("post"); st != 204 {
		t.Errorf("anonymous POST acl public-read into a public-read-write bucket: %d, want 204", st)
	}
	deny := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::` + open + `/*",
		"Condition":{"StringEquals":{"s3:x-amz-acl":"public-read"}}}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(open), Policy: aws.String(deny)}); err != nil {
		t.Fatal(err)
	}
	if st := anonPut("put-denied"); st != 403 {
		t.Errorf("anonymous PutObject public-read under a Deny of it: %d, want 403", st)
	}
	if st := anonPost("post-denied"); st != 403 {
		t.Errorf("anonymous POST acl public-read under a Deny of it: %d, want 403", st)
	}
}

// TestAuthzRecordReadErrorFailsClosed checks that a read of an object's
// record that fails for a reason other than its absence fails the request
// (500 InternalError) instead of leaving the decision made without it.
// The read is made to fail for the access decision only, as a transient
// I/O error would, so the handler's own read succeeds: before, the Deny
// on s3:ExistingObjectTag/class, which the failed read did not see, let
// bob read, copy and tag the secret object and everyone read it.
func TestAuthzRecordReadErrorFailsClosed(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("readerr")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	for k, class := range map[string]string{"secret": "secret", "open": "public"} {
		if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: strings.NewReader(k), Tagging: aws.String("class=" + class)}); err != nil {
			t.Fatal(err)
		}
	}
	res := `"arn:aws:s3:::` + bucket + `/*"`
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:GetObjectTagging","s3:PutObjectTagging"],"Resource":` + res + `},
		{"Effect":"Deny","Principal":"*","Action":["s3:GetObject","s3:GetObjectTagging","s3:PutObjectTagging"],"Resource":` + res + `,"Condition":{"StringEquals":{"s3:ExistingObjectTag/class":"secret"}}}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	own := uniqueBucket("bobs")
	if _, err := g.bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(own)}); err != nil {
		t.Fatal(err)
	}
	var failing atomic.Bool
	api.SetAuthzRecordRead(*g.handler.Load(), func(bucket, key, versionID string) (object.Object, error) {
		if failing.Load() && key == "secret" {
			return object.Object{}, &os.PathError{Op: "read", Path: key, Err: syscall.EIO}
		}
		return g.layer.StatVersion(bucket, key, versionID)
	})
	anonGet := func(key string) int {
		resp, err := http.Get(g.Endpoint + "/" + bucket + "/" + key)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	_, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("secret")})
	wantCode(t, "bob GetObject of the secret object, read intact", err, 403, "AccessDenied")

	failing.Store(true)
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("secret")})
	wantCode(t, "bob GetObject of the secret object, record unreadable", err, 500, "InternalError")
	if got := anonGet("secret"); got != http.StatusInternalServerError {
		t.Errorf("anonymous GET of the secret object, record unreadable: %d, want 500", got)
	}
	_, err = g.bob.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("secret")})
	wantCode(t, "bob GetObjectTagging, record unreadable", err, 500, "InternalError")
	_, err = g.bob.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("secret"),
		Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("class"), Value: aws.String("public")}}}})
	wantCode(t, "bob PutObjectTagging, record unreadable", err, 500, "InternalError")
	_, err = g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("stolen"), CopySource: aws.String(bucket + "/secret")})
	wantCode(t, "bob CopyObject of the secret object, record unreadable", err, 500, "InternalError")
	if _, err := g.bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(own), Key: aws.String("stolen")}); err == nil {
		t.Error("the copy of the secret object was made")
	}
	if got := anonGet("open"); got != http.StatusOK {
		t.Errorf("anonymous GET of the public object, its record readable: %d, want 200", got)
	}
	failing.Store(false)
	tags, err := g.root.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("secret")})
	if err != nil || len(tags.TagSet) != 1 || aws.ToString(tags.TagSet[0].Value) != "secret" {
		t.Errorf("the secret object's tags after the refusals: %+v, %v", tags, err)
	}
}

// TestAuthzExistingObjectTag checks that s3:ExistingObjectTag/KEY gives
// the tags of the object a read (or a copy's source) addresses, so that
// a bucket policy denying bob the objects tagged class=secret refuses
// him those, and lets him read the others. Before, the key was absent:
// the Deny never applied and bob read and copied the secret object.
func TestAuthzExistingObjectTag(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("existingtag")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	for k, class := range map[string]string{"secret": "secret", "open": "public"} {
		if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: strings.NewReader(k), Tagging: aws.String("class=" + class)}); err != nil {
			t.Fatal(err)
		}
	}
	res := `"arn:aws:s3:::` + bucket + `/*"`
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":["s3:GetObject","s3:GetObjectTagging"],"Resource":` + res + `},
		{"Effect":"Deny","Principal":"*","Action":["s3:GetObject","s3:GetObjectTagging"],"Resource":` + res + `,"Condition":{"StringEquals":{"s3:ExistingObjectTag/class":"secret"}}}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	_, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("secret")})
	wantCode(t, "bob GetObject of an object tagged class=secret", err, 403, "AccessDenied")
	_, err = g.bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("secret")})
	if httpStatus(err) != 403 {
		t.Errorf("bob HeadObject of an object tagged class=secret: %v, want 403", err)
	}
	_, err = g.bob.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("secret")})
	wantCode(t, "bob GetObjectTagging of an object tagged class=secret", err, 403, "AccessDenied")
	own := uniqueBucket("bobs")
	if _, err := g.bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(own)}); err != nil {
		t.Fatal(err)
	}
	_, err = g.bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(own), Key: aws.String("copy"), CopySource: aws.String(bucket + "/secret")})
	wantCode(t, "bob CopyObject from an object tagged class=secret", err, 403, "AccessDenied")
	out, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("open")})
	if got := readBody(t, "bob GetObject of an object tagged class=public", out, err); got != "open" {
		t.Errorf("bob reads %q", got)
	}
	// Retagged, the object is bob's to read.
	if _, err := g.alice.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("secret"),
		Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("class"), Value: aws.String("public")}}}}); err != nil {
		t.Fatal(err)
	}
	out, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("secret")})
	if got := readBody(t, "bob GetObject after the retagging", out, err); got != "secret" {
		t.Errorf("bob reads %q", got)
	}

	// A policy variable of the key in the Resource: bob reads the
	// objects under the prefix their team tag names, and no other.
	for _, k := range []string{"red/doc", "blue/doc"} {
		if _, err := g.alice.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: strings.NewReader(k), Tagging: aws.String("team=red")}); err != nil {
			t.Fatal(err)
		}
	}
	doc = `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/AKIDBOB"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::` + bucket + `/${s3:ExistingObjectTag/team}/*"}]}`
	if _, err := g.alice.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	out, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("red/doc")})
	if got := readBody(t, "bob GetObject of red/doc tagged team=red", out, err); got != "red/doc" {
		t.Errorf("bob reads %q", got)
	}
	_, err = g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("blue/doc")})
	wantCode(t, "bob GetObject of blue/doc tagged team=red", err, 403, "AccessDenied")
}

// TestAuthzUploadInitiator checks who may abort a multipart upload and
// list its parts: the bucket's owner and the upload's initiator, as in
// S3, and not a grantee of the bucket ACL's WRITE. Before, bob, granted
// WRITE on alice's bucket, listed the parts of alice's upload in progress
// (their sizes and ETags, the MD5 of each part's bytes) and aborted it;
// and a user allowed only s3:PutObject could not abort its own upload.
func TestAuthzUploadInitiator(t *testing.T) {
	g := startUsersGateway(t)
	ctx := t.Context()
	bucket := uniqueBucket("initiator")
	if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.alice.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String(bucket),
		GrantWrite: aws.String(`id="` + access.CanonicalID(g.bobKey) + `"`), GrantFullControl: aws.String(`id="` + access.CanonicalID(g.aliceKey) + `"`)}); err != nil {
		t.Fatal(err)
	}
	start := func(c *s3.Client, key string) *string {
		up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("CreateMultipartUpload %s: %v", key, err)
		}
		if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(1), Body: strings.NewReader("part")}); err != nil {
			t.Fatalf("UploadPart %s: %v", key, err)
		}
		return up.UploadId
	}
	list := func(c *s3.Client, key string, id *string) error {
		_, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: id})
		return err
	}
	abort := func(c *s3.Client, key string, id *string) error {
		_, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: id})
		return err
	}
	alices := start(g.alice, "alices")
	wantCode(t, "bob ListParts of alice's upload", list(g.bob, "alices", alices), 403, "AccessDenied")
	wantCode(t, "bob AbortMultipartUpload of alice's upload", abort(g.bob, "alices", alices), 403, "AccessDenied")
	if err := list(g.alice, "alices", alices); err != nil {
		t.Errorf("alice ListParts of her upload after bob's refused abort: %v", err)
	}
	bobs := start(g.bob, "bobs")
	if err := list(g.bob, "bobs", bobs); err != nil {
		t.Errorf("bob ListParts of his upload: %v", err)
	}
	if err := list(g.alice, "bobs", bobs); err != nil {
		t.Errorf("alice, the bucket's owner, ListParts of bob's upload: %v", err)
	}
	if err := abort(g.bob, "bobs", bobs); err != nil {
		t.Errorf("bob AbortMultipartUpload of his upload: %v", err)
	}
	if err := abort(g.alice, "alices", alices); err != nil {
		t.Errorf("alice AbortMultipartUpload of her upload: %v", err)
	}
	wantCode(t, "bob AbortMultipartUpload of an upload that is gone", abort(g.bob, "alices", alices), 403, "AccessDenied")
}
