package api_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestConditionalDeleteSizeAndTime checks DeleteObject's
// x-amz-if-match-size and x-amz-if-match-last-modified-time: a mismatch is
// 412 and keeps the object, a match deletes it, and a missing key is 204.
func TestConditionalDeleteSizeAndTime(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("cond-delete")
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), Body: strings.NewReader("12345")}); err != nil {
				t.Fatal(err)
			}
			head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
			if err != nil {
				t.Fatal(err)
			}
			mod := aws.ToTime(head.LastModified)
			for _, tc := range []struct {
				what string
				in   s3.DeleteObjectInput
			}{
				{"size 4", s3.DeleteObjectInput{IfMatchSize: aws.Int64(4)}},
				{"time a second later", s3.DeleteObjectInput{IfMatchLastModifiedTime: aws.Time(mod.Add(time.Second))}},
				{"right size, wrong time", s3.DeleteObjectInput{IfMatchSize: aws.Int64(5), IfMatchLastModifiedTime: aws.Time(mod.Add(-time.Second))}},
			} {
				in := tc.in
				in.Bucket, in.Key = aws.String(bucket), aws.String("k")
				_, err := c.DeleteObject(ctx, &in)
				wantCode(t, "DeleteObject("+tc.what+")", err, 412, "PreconditionFailed")
				if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); err != nil {
					t.Fatalf("object gone after DeleteObject(%s): %v", tc.what, err)
				}
			}
			if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("k"), IfMatchSize: aws.Int64(5), IfMatchLastModifiedTime: aws.Time(mod),
			}); err != nil {
				t.Fatalf("DeleteObject(matching size and time): %v", err)
			}
			if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); err == nil {
				t.Fatal("object still there after a matching conditional delete")
			}
			if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), IfMatchSize: aws.Int64(9)}); err != nil {
				t.Errorf("DeleteObject(missing key, size condition): %v, want 204", err)
			}
		})
	}
}

// TestConditionalDeleteSizeMalformed checks that a size or time that is
// not one is refused, not read as no condition.
func TestConditionalDeleteSizeMalformed(t *testing.T) {
	h := startHostile(t)
	h.want(h.send(http.MethodDelete, "/"+h.bucket+"/"+victimKey, "", nil, "X-Amz-If-Match-Size", "five"), 400, "InvalidArgument")
	h.want(h.send(http.MethodDelete, "/"+h.bucket+"/"+victimKey, "", nil, "X-Amz-If-Match-Last-Modified-Time", "yesterday"), 400, "InvalidArgument")
	h.want(h.send(http.MethodGet, "/"+h.bucket+"/"+victimKey, "", nil), 200)
}

// TestConditionalDeleteObjectsEntries checks the ETag, Size and
// LastModifiedTime of DeleteObjects entries: each mismatch is that key's
// PreconditionFailed error and keeps it; matching entries are deleted.
func TestConditionalDeleteObjectsEntries(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("cond-multi")
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatal(err)
			}
			etags := map[string]string{}
			for _, k := range []string{"etag", "size", "time", "match"} {
				out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: strings.NewReader("abc")})
				if err != nil {
					t.Fatal(err)
				}
				etags[k] = aws.ToString(out.ETag)
			}
			head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("match")})
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
				{Key: aws.String("etag"), ETag: aws.String(`"0123456789abcdef0123456789abcdef"`)},
				{Key: aws.String("size"), Size: aws.Int64(4)},
				{Key: aws.String("time"), LastModifiedTime: aws.Time(time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC))},
				{Key: aws.String("match"), ETag: aws.String(etags["match"]), Size: aws.Int64(3), LastModifiedTime: head.LastModified},
			}}})
			if err != nil {
				t.Fatal(err)
			}
			failed := map[string]string{}
			for _, e := range out.Errors {
				failed[aws.ToString(e.Key)] = aws.ToString(e.Code)
			}
			for _, k := range []string{"etag", "size", "time"} {
				if failed[k] != "PreconditionFailed" {
					t.Errorf("DeleteObjects entry %q: error %q, want PreconditionFailed", k, failed[k])
				}
				if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)}); err != nil {
					t.Errorf("%q deleted despite its failed condition: %v", k, err)
				}
			}
			if len(out.Deleted) != 1 || aws.ToString(out.Deleted[0].Key) != "match" {
				t.Errorf("Deleted = %v, want only %q", out.Deleted, "match")
			}
			if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("match")}); err == nil {
				t.Error(`"match" still there after its conditions matched`)
			}
		})
	}
}

// TestConditionalCopyDestination checks CopyObject's If-Match and
// If-None-Match on the destination (onto another key and onto itself), and
// that an entity tag in If-None-Match is NotImplemented on every write, as
// S3 answers it, rather than ignored.
func TestConditionalCopyDestination(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("cond-copy")
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatal(err)
			}
			put := func(key, body string) string {
				out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)})
				if err != nil {
					t.Fatal(err)
				}
				return aws.ToString(out.ETag)
			}
			put("src", "source bytes")
			dstTag := put("dst", "destination bytes")
			copyIn := func(key string, set func(*s3.CopyObjectInput)) *s3.CopyObjectInput {
				in := &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), CopySource: aws.String(bucket + "/src")}
				set(in)
				return in
			}
			read := func(key string) string {
				out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
				if err != nil {
					t.Fatal(err)
				}
				defer out.Body.Close()
				b, err := io.ReadAll(out.Body)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}

			_, err := c.CopyObject(ctx, copyIn("dst", func(in *s3.CopyObjectInput) { in.IfNoneMatch = aws.String("*") }))
			wantCode(t, "CopyObject(If-None-Match *, existing)", err, 412, "PreconditionFailed")
			_, err = c.CopyObject(ctx, copyIn("dst", func(in *s3.CopyObjectInput) { in.IfMatch = aws.String(`"0123456789abcdef0123456789abcdef"`) }))
			wantCode(t, "CopyObject(If-Match other)", err, 412, "PreconditionFailed")
			_, err = c.CopyObject(ctx, copyIn("absent", func(in *s3.CopyObjectInput) { in.IfMatch = aws.String(dstTag) }))
			wantCode(t, "CopyObject(If-Match, missing)", err, 404, "NoSuchKey")
			_, err = c.CopyObject(ctx, copyIn("dst", func(in *s3.CopyObjectInput) { in.IfNoneMatch = aws.String(dstTag) }))
			wantCode(t, "CopyObject(If-None-Match etag)", err, 501, "NotImplemented")
			if got := read("dst"); got != "destination bytes" {
				t.Fatalf("dst = %q after refused copies", got)
			}
			_, err = c.CopyObject(ctx, &s3.CopyObjectInput{
				Bucket: aws.String(bucket), Key: aws.String("src"), CopySource: aws.String(bucket + "/src"),
				MetadataDirective: types.MetadataDirectiveReplace, IfNoneMatch: aws.String("*"),
			})
			wantCode(t, "CopyObject(onto itself, If-None-Match *)", err, 412, "PreconditionFailed")

			if _, err := c.CopyObject(ctx, copyIn("dst", func(in *s3.CopyObjectInput) { in.IfMatch = aws.String(dstTag) })); err != nil {
				t.Fatalf("CopyObject(If-Match current): %v", err)
			}
			if _, err := c.CopyObject(ctx, copyIn("new", func(in *s3.CopyObjectInput) { in.IfNoneMatch = aws.String("*") })); err != nil {
				t.Fatalf("CopyObject(If-None-Match *, missing): %v", err)
			}
			if got := read("dst"); got != "source bytes" {
				t.Errorf("dst = %q after the matching copy", got)
			}

			_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("dst"), Body: strings.NewReader("x"), IfNoneMatch: aws.String(dstTag)})
			wantCode(t, "PutObject(If-None-Match etag)", err, 501, "NotImplemented")
			mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("dst")})
			if err != nil {
				t.Fatal(err)
			}
			p1, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("dst"), UploadId: mp.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("part")})
			if err != nil {
				t.Fatal(err)
			}
			in := mpCompleteInput(bucket, "dst", aws.ToString(mp.UploadId), mpCompleted(p1))
			in.IfNoneMatch = aws.String(dstTag)
			_, err = c.CompleteMultipartUpload(ctx, in)
			wantCode(t, "CompleteMultipartUpload(If-None-Match etag)", err, 501, "NotImplemented")
		})
	}
}
