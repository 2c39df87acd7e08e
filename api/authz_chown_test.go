package api_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// TestAuthzFileOwner checks the uid/gid mapping: when the gateway runs as
// root, the bucket directory and the files a mapped user creates (PUT,
// copy, multipart completion) belong to its uid/gid; the root user's keep
// the process's ownership.
func TestAuthzFileOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	g := startUsersGateway(t)
	ctx := t.Context()
	const uid, gid = 12345, 23456
	_, secret, err := g.users.AddUser(object.AddUserInput{AccessKey: "AKIDDAVE", POSIX: &object.POSIXOwner{UID: uid, GID: gid}})
	if err != nil {
		t.Fatal(err)
	}
	dave := g.sdkWith(sdkModes[2], "AKIDDAVE", secret)
	bucket := uniqueBucket("owned")
	if _, err := dave.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, dave, bucket, "dir/put", "put")
	if _, err := dave.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("copy"), CopySource: aws.String(bucket + "/dir/put")}); err != nil {
		t.Fatal(err)
	}
	up, err := dave.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := dave.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("part")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dave.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, g.root, bucket, "by-root", "root")

	owner := func(rel string) (uint32, uint32) {
		t.Helper()
		fi, err := os.Lstat(filepath.Join(g.Root, bucket, rel))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		return st.Uid, st.Gid
	}
	for _, rel := range []string{".", "dir/put", "copy", "mp"} {
		if u, gr := owner(rel); u != uid || gr != gid {
			t.Errorf("%s is owned by %d:%d, want %d:%d", rel, u, gr, uid, gid)
		}
	}
	if u, gr := owner("by-root"); u != uint32(os.Geteuid()) || gr != uint32(os.Getegid()) {
		t.Errorf("the root user's object is owned by %d:%d", u, gr)
	}
}
