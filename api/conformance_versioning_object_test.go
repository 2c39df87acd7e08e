package api_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"
	"golang.org/x/sys/unix"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
)

// These tests cover the object operations of versioning and Object Lock
// through real clients. The buckets' versioning and Object Lock are set
// through the object layer, so that they test the object operations alone.

// setLayerVersioning sets a bucket's versioning state through the layer.
func setLayerVersioning(t *testing.T, g *gateway, bucket, status string) {
	t.Helper()
	st, err := g.layer.BucketState(bucket)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.layer.SetVersioning(bucket, st.ID, status); err != nil {
		t.Fatalf("SetVersioning(%s, %s): %v", bucket, status, err)
	}
}

// makeVersionedBucket creates a bucket with versioning Enabled.
func makeVersionedBucket(t *testing.T, g *gateway, c *s3.Client, prefix string) string {
	t.Helper()
	b := makeBucket(t, c, prefix)
	setLayerVersioning(t, g, b, metadata.VersioningEnabled)
	return b
}

// makeLockBucket creates a bucket with versioning and Object Lock, without
// a default retention.
func makeLockBucket(t *testing.T, g *gateway, c *s3.Client, prefix string) string {
	t.Helper()
	b := makeVersionedBucket(t, g, c, prefix)
	st, err := g.layer.BucketState(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.layer.SetObjectLock(b, st.ID, objectlock.Default{}); err != nil {
		t.Fatalf("SetObjectLock(%s): %v", b, err)
	}
	return b
}

// fsImmutableFL is FS_IMMUTABLE_FL of <linux/fs.h>.
const fsImmutableFL = 0x00000010

// clearImmutable takes the immutable flag off every file under root at the
// end of a test, so that the test's temporary directory can be removed: a
// locked version's file bears the flag wherever the filesystem has it.
func clearImmutable(t *testing.T, root string) {
	t.Cleanup(func() {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer f.Close()
			flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
			if err == nil && flags&fsImmutableFL != 0 {
				v := int(flags &^ fsImmutableFL)
				_ = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, v)
			}
			return nil
		})
	})
}

// getVersion reads one version of a key whole.
func getVersion(t *testing.T, c *s3.Client, bucket, key, id string) (*s3.GetObjectOutput, []byte) {
	t.Helper()
	out, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(id)})
	if err != nil {
		t.Fatalf("GetObject(%s/%s?versionId=%s): %v", bucket, key, id, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return out, b
}

// TestVersionedObjectReads checks, with every SDK mode and minio-go, that
// three PUTs of a key make three versions with distinct ids, each read
// back exactly by id with GET and HEAD, and that a malformed id is
// InvalidArgument and an unknown one NoSuchVersion.
func TestVersionedObjectReads(t *testing.T) {
	g := startGateway(t)
	ctx := t.Context()
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			bucket := makeVersionedBucket(t, g, c.Client, "vread")
			ids := map[string]string{}
			var order []string
			for i := range 3 {
				body := "body number " + string(rune('a'+i))
				out := putBytes(t, c.Client, bucket, "k", []byte(body))
				id := aws.ToString(out.VersionId)
				if id == "" || id == metadata.NullVersion {
					t.Fatalf("PutObject %d in a versioned bucket: version id %q", i, id)
				}
				if _, dup := ids[id]; dup {
					t.Fatalf("PutObject %d: version id %q given twice", i, id)
				}
				ids[id] = body
				order = append(order, id)
			}
			for id, body := range ids {
				out, got := getVersion(t, c.Client, bucket, "k", id)
				if string(got) != body || aws.ToString(out.VersionId) != id {
					t.Errorf("GET ?versionId=%s: %q version %q, want %q", id, got, aws.ToString(out.VersionId), body)
				}
				head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id)})
				if err != nil {
					t.Fatalf("HEAD ?versionId=%s: %v", id, err)
				}
				if aws.ToInt64(head.ContentLength) != int64(len(body)) || aws.ToString(head.VersionId) != id {
					t.Errorf("HEAD ?versionId=%s: length %d version %q", id, aws.ToInt64(head.ContentLength), aws.ToString(head.VersionId))
				}
			}
			// A GET without an id reads the latest and names it.
			out, got := getVersion(t, c.Client, bucket, "k", order[2])
			plain, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
			if err != nil {
				t.Fatal(err)
			}
			plain.Body.Close()
			if aws.ToString(plain.VersionId) != order[2] || string(got) != ids[order[2]] || aws.ToString(out.VersionId) != order[2] {
				t.Errorf("GET of the latest: version %q, want %q", aws.ToString(plain.VersionId), order[2])
			}

			_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String("not-a-version")})
			wantCode(t, "GET malformed versionId", err, 400, "InvalidArgument")
			unknown := metadata.VersionID(1<<40, 1)
			_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(unknown)})
			wantCode(t, "GET unknown versionId", err, 404, "NoSuchVersion")
			_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(unknown)})
			if httpStatus(err) != 404 {
				t.Errorf("HEAD unknown versionId: %v, want 404", err)
			}
		})
	}
	for _, mc := range g.minioClients() {
		t.Run(mc.name, func(t *testing.T) {
			c := g.sdk(sdkModes[0])
			bucket := makeVersionedBucket(t, g, c, "vminio")
			first, err := mc.PutObject(ctx, bucket, "k", strings.NewReader("one"), 3, minio.PutObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			second, err := mc.PutObject(ctx, bucket, "k", strings.NewReader("two!"), 4, minio.PutObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if first.VersionID == "" || first.VersionID == second.VersionID {
				t.Fatalf("minio PutObject version ids %q, %q", first.VersionID, second.VersionID)
			}
			o, err := mc.GetObject(ctx, bucket, "k", minio.GetObjectOptions{VersionID: first.VersionID})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(o)
			o.Close()
			if err != nil || string(got) != "one" {
				t.Errorf("minio GET first version: %q, %v", got, err)
			}
			_, err = mc.GetObjectTagging(ctx, bucket, "k", minio.GetObjectTaggingOptions{VersionID: metadata.VersionID(1<<40, 7)})
			wantMinioCode(t, "minio GetObjectTagging of an unknown version", err, 404, "NoSuchVersion")
		})
	}
}

// TestVersionIDHeaderOnlyWhenVersioned checks that an unversioned bucket's
// answers carry no x-amz-version-id, and that a versioned bucket's null
// version (written before versioning was enabled, or while it is
// suspended) is named "null" and replaced by each suspended write.
func TestVersionIDHeaderOnlyWhenVersioned(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeBucket(t, c, "vnull")
	if out := putBytes(t, c, bucket, "k", []byte("before")); out.VersionId != nil {
		t.Errorf("PutObject in an unversioned bucket: version id %q", aws.ToString(out.VersionId))
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	if head.VersionId != nil {
		t.Errorf("HEAD in an unversioned bucket: version id %q", aws.ToString(head.VersionId))
	}
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("gone")})
	if err != nil || del.VersionId != nil || aws.ToBool(del.DeleteMarker) {
		t.Errorf("DeleteObject in an unversioned bucket: %+v, %v", del, err)
	}

	setLayerVersioning(t, g, bucket, metadata.VersioningEnabled)
	out, body := getVersion(t, c, bucket, "k", metadata.NullVersion)
	if string(body) != "before" || aws.ToString(out.VersionId) != metadata.NullVersion {
		t.Errorf("GET ?versionId=null of the object written before versioning: %q, version %q", body, aws.ToString(out.VersionId))
	}
	head, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil || aws.ToString(head.VersionId) != metadata.NullVersion {
		t.Errorf("HEAD of the null version: version %q, %v", aws.ToString(head.VersionId), err)
	}
	v1 := aws.ToString(putBytes(t, c, bucket, "k", []byte("enabled")).VersionId)

	setLayerVersioning(t, g, bucket, metadata.VersioningSuspended)
	// A write while suspended makes the null version and is answered
	// without a version id, as S3 answers it; GET and HEAD name it null.
	for _, body := range []string{"suspended one", "suspended two"} {
		if out := putBytes(t, c, bucket, "k", []byte(body)); out.VersionId != nil {
			t.Errorf("PutObject while suspended: version id %q, want none", aws.ToString(out.VersionId))
		}
	}
	if head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); err != nil || aws.ToString(head.VersionId) != metadata.NullVersion {
		t.Errorf("HEAD of the null version written while suspended: version %q, %v", aws.ToString(head.VersionId), err)
	}
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("copied"), CopySource: aws.String(bucket + "/k?versionId=" + v1)})
	if err != nil || cp.VersionId != nil || aws.ToString(cp.CopySourceVersionId) != v1 {
		t.Errorf("CopyObject while suspended: version %q, source version %q, %v; want none and %s", aws.ToString(cp.VersionId), aws.ToString(cp.CopySourceVersionId), err, v1)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("one part")})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil || done.VersionId != nil {
		t.Errorf("CompleteMultipartUpload while suspended: version %q, %v; want none", aws.ToString(done.VersionId), err)
	}
	if _, got := getVersion(t, c, bucket, "mp", metadata.NullVersion); string(got) != "one part" {
		t.Errorf("null version of the upload completed while suspended: %q", got)
	}
	if _, got := getVersion(t, c, bucket, "k", metadata.NullVersion); string(got) != "suspended two" {
		t.Errorf("null version after two suspended writes: %q", got)
	}
	if _, got := getVersion(t, c, bucket, "k", v1); string(got) != "enabled" {
		t.Errorf("version %s after suspended writes: %q", v1, got)
	}
	tags, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil || aws.ToString(tags.VersionId) != metadata.NullVersion {
		t.Errorf("GetObjectTagging of the null version: version %q, %v", aws.ToString(tags.VersionId), err)
	}
	attrs, err := c.GetObjectAttributes(ctx, &s3.GetObjectAttributesInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(v1), ObjectAttributes: []types.ObjectAttributes{types.ObjectAttributesObjectSize}})
	if err != nil || aws.ToString(attrs.VersionId) != v1 || aws.ToInt64(attrs.ObjectSize) != int64(len("enabled")) {
		t.Errorf("GetObjectAttributes ?versionId=%s: %+v, %v", v1, attrs, err)
	}

	// A server started on a versioned bucket names its null version too,
	// and still names none in an unversioned bucket.
	other := makeBucket(t, c, "vplain")
	putBytes(t, c, other, "k", []byte("plain"))
	g.restart()
	head, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil || aws.ToString(head.VersionId) != metadata.NullVersion {
		t.Errorf("HEAD of the null version after a restart: version %q, %v", aws.ToString(head.VersionId), err)
	}
	head, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(other), Key: aws.String("k")})
	if err != nil || head.VersionId != nil {
		t.Errorf("HEAD in an unversioned bucket after a restart: version %q, %v", aws.ToString(head.VersionId), err)
	}
}

// TestDeleteMarkers checks DeleteObject in a versioned bucket: without an
// id it writes a delete marker (x-amz-delete-marker and its id), after
// which GET is NoSuchKey carrying the marker's headers and GET of the
// marker by id MethodNotAllowed; deleting the marker by id makes the
// previous version current again; deleting a version by id removes it
// alone, and deleting an unknown version succeeds.
func TestDeleteMarkers(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeVersionedBucket(t, g, c, "vdel")
	v1 := aws.ToString(putBytes(t, c, bucket, "k", []byte("one")).VersionId)
	v2 := aws.ToString(putBytes(t, c, bucket, "k", []byte("two")).VersionId)

	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	marker := aws.ToString(del.VersionId)
	if !aws.ToBool(del.DeleteMarker) || marker == "" || marker == v2 {
		t.Fatalf("DeleteObject: delete marker %v, version %q", aws.ToBool(del.DeleteMarker), marker)
	}

	// The raw answers carry the marker's headers, which SDKs do not
	// surface on errors.
	resp, body := g.do(g.rawRequest(http.MethodGet, "/"+bucket+"/k", "", nil), nil, true)
	wantXMLError(t, "GET of a deleted key", resp, body, 404, "NoSuchKey")
	if resp.Header.Get("X-Amz-Delete-Marker") != "true" || resp.Header.Get("X-Amz-Version-Id") != marker {
		t.Errorf("GET of a deleted key: x-amz-delete-marker %q, x-amz-version-id %q, want true, %q",
			resp.Header.Get("X-Amz-Delete-Marker"), resp.Header.Get("X-Amz-Version-Id"), marker)
	}
	resp, _ = g.do(g.rawRequest(http.MethodHead, "/"+bucket+"/k", "", nil), nil, true)
	if resp.StatusCode != 404 || resp.Header.Get("X-Amz-Delete-Marker") != "true" || resp.Header.Get("X-Amz-Version-Id") != marker {
		t.Errorf("HEAD of a deleted key: %d, headers %v", resp.StatusCode, resp.Header)
	}
	resp, body = g.do(g.rawRequest(http.MethodGet, "/"+bucket+"/k", "versionId="+marker, nil), nil, true)
	wantXMLError(t, "GET of a delete marker by id", resp, body, 405, "MethodNotAllowed")
	if resp.Header.Get("X-Amz-Delete-Marker") != "true" || resp.Header.Get("X-Amz-Version-Id") != marker {
		t.Errorf("GET of a delete marker by id: headers %v", resp.Header)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(marker)})
	wantCode(t, "SDK GET of a delete marker by id", err, 405, "MethodNotAllowed")

	del, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(marker)})
	if err != nil || !aws.ToBool(del.DeleteMarker) || aws.ToString(del.VersionId) != marker {
		t.Fatalf("DeleteObject of the marker by id: %+v, %v", del, err)
	}
	if got := getBytes(t, c, bucket, "k"); string(got) != "two" {
		t.Errorf("GET after the marker was deleted: %q, want two", got)
	}

	del, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(v1)})
	if err != nil || aws.ToBool(del.DeleteMarker) || aws.ToString(del.VersionId) != v1 {
		t.Fatalf("DeleteObject of %s by id: %+v, %v", v1, del, err)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(v1)})
	wantCode(t, "GET of a deleted version", err, 404, "NoSuchVersion")
	if got := getBytes(t, c, bucket, "k"); string(got) != "two" {
		t.Errorf("GET after an old version was deleted: %q", got)
	}

	unknown := metadata.VersionID(1<<40, 3)
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(unknown)}); err != nil {
		t.Errorf("DeleteObject of an unknown version: %v, want success as in S3", err)
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String("nonsense")})
	wantCode(t, "DeleteObject with a malformed version id", err, 400, "InvalidArgument")
}

// TestVersionTaggingAndCopies checks tagging of one version, CopyObject
// and UploadPartCopy from an old version (x-amz-copy-source-version-id),
// a copy naming a delete marker, and that a multipart completion makes a
// version named in x-amz-version-id.
func TestVersionTaggingAndCopies(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeVersionedBucket(t, g, c, "vcopy")
	v1 := aws.ToString(putBytes(t, c, bucket, "k", []byte("old bytes")).VersionId)
	v2 := aws.ToString(putBytes(t, c, bucket, "k", []byte("new bytes")).VersionId)

	put, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(v1),
		Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("age"), Value: aws.String("old")}}}})
	if err != nil || aws.ToString(put.VersionId) != v1 {
		t.Fatalf("PutObjectTagging ?versionId=%s: %+v, %v", v1, put, err)
	}
	for id, want := range map[string]int{v1: 1, v2: 0} {
		got, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id)})
		if err != nil || len(got.TagSet) != want || aws.ToString(got.VersionId) != id {
			t.Errorf("GetObjectTagging ?versionId=%s: %+v, %v; want %d tags", id, got, err, want)
		}
	}
	if _, err := c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(v1)}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(v1)}); err != nil || len(got.TagSet) != 0 {
		t.Errorf("tags of %s after DeleteObjectTagging: %+v, %v", v1, got, err)
	}
	if _, err := c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(v1)}); err != nil {
		t.Errorf("GetObjectAcl ?versionId=%s: %v", v1, err)
	}
	_, err = c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(metadata.VersionID(1<<40, 9))})
	wantCode(t, "GetObjectAcl of an unknown version", err, 404, "NoSuchVersion")

	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("copy"), CopySource: aws.String(bucket + "/k?versionId=" + v1)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(cp.CopySourceVersionId) != v1 || aws.ToString(cp.VersionId) == "" {
		t.Errorf("CopyObject from %s: source version %q, version %q", v1, aws.ToString(cp.CopySourceVersionId), aws.ToString(cp.VersionId))
	}
	if got := getBytes(t, c, bucket, "copy"); string(got) != "old bytes" {
		t.Errorf("copy of %s: %q", v1, got)
	}

	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1),
		CopySource: aws.String(bucket + "/k?versionId=" + v1)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(pc.CopySourceVersionId) != v1 {
		t.Errorf("UploadPartCopy from %s: source version %q", v1, aws.ToString(pc.CopySourceVersionId))
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: pc.CopyPartResult.ETag}}}})
	if err != nil {
		t.Fatal(err)
	}
	mpID := aws.ToString(done.VersionId)
	if mpID == "" || mpID == metadata.NullVersion {
		t.Errorf("CompleteMultipartUpload in a versioned bucket: version %q", mpID)
	}
	if out, got := getVersion(t, c, bucket, "mp", mpID); string(got) != "old bytes" || aws.ToString(out.VersionId) != mpID {
		t.Errorf("completed upload by id: %q", got)
	}

	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: del.VersionId})
	wantCode(t, "GetObjectTagging of a delete marker", err, 405, "MethodNotAllowed")
	_, err = c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: del.VersionId, Tagging: &types.Tagging{TagSet: []types.Tag{}}})
	wantCode(t, "PutObjectTagging of a delete marker", err, 405, "MethodNotAllowed")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("copy2"), CopySource: aws.String(bucket + "/k?versionId=" + aws.ToString(del.VersionId))})
	wantCode(t, "CopyObject from a delete marker by id", err, 400, "InvalidRequest")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("copy2"), CopySource: aws.String(bucket + "/k")})
	wantCode(t, "CopyObject from a key whose latest is a delete marker", err, 404, "NoSuchKey")
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("copy2"), CopySource: aws.String(bucket + "/k?versionId=bad")})
	wantCode(t, "CopyObject from a malformed version id", err, 400, "InvalidArgument")
}

// lockClock is a layer clock a test moves forward, so that a retention
// expires without waiting for it. Only the layer's clock moves: the
// server's stays the real one, which request signatures are checked by.
type lockClock struct{ ahead atomic.Int64 }

func (c *lockClock) now() time.Time { return time.Now().Add(time.Duration(c.ahead.Load())) }

// lockSDK is the client the Object Lock tests use. Their uploads with
// lock headers name a checksum algorithm, as S3 requires of them: this
// SDK sends none of its own for a small body (TestObjectLockRefusals).
func lockSDK(g *gateway) *s3.Client { return g.sdk(sdkModes[0]) }

// TestObjectLockRetention checks retention set by PutObject's headers and
// by PutObjectRetention: a locked version cannot be deleted (AccessDenied),
// GOVERNANCE yields to x-amz-bypass-governance-retention and COMPLIANCE
// does not, COMPLIANCE cannot be shortened, a retention that has expired
// no longer protects, GET and HEAD carry the lock headers, and an
// overwrite makes a new version while the locked one stays readable.
func TestObjectLockRetention(t *testing.T) {
	clock := &lockClock{}
	g := startGatewayLayer(t, func(o *object.Options) { o.Now = clock.now })
	clearImmutable(t, g.Root)
	c := lockSDK(g)
	ctx := t.Context()
	bucket := makeLockBucket(t, g, c, "lock")
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)

	gov, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("gov"), Body: strings.NewReader("governed"),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, ObjectLockMode: types.ObjectLockModeGovernance, ObjectLockRetainUntilDate: aws.Time(until)})
	if err != nil {
		t.Fatalf("PutObject with GOVERNANCE retention: %v", err)
	}
	govID := aws.ToString(gov.VersionId)
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("gov"), VersionId: aws.String(govID)})
	if err != nil {
		t.Fatal(err)
	}
	if head.ObjectLockMode != types.ObjectLockModeGovernance || !aws.ToTime(head.ObjectLockRetainUntilDate).Equal(until) {
		t.Errorf("HEAD of a locked version: mode %q until %v, want GOVERNANCE %v", head.ObjectLockMode, aws.ToTime(head.ObjectLockRetainUntilDate), until)
	}
	resp, _ := g.do(g.rawRequest(http.MethodHead, "/"+bucket+"/gov", "", nil), nil, true)
	if got, want := resp.Header.Get("X-Amz-Object-Lock-Retain-Until-Date"), until.Format("2006-01-02T15:04:05.000Z"); got != want {
		t.Errorf("x-amz-object-lock-retain-until-date %q, want %q", got, want)
	}
	ret, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String("gov"), VersionId: aws.String(govID)})
	if err != nil || ret.Retention.Mode != types.ObjectLockRetentionModeGovernance || !aws.ToTime(ret.Retention.RetainUntilDate).Equal(until) {
		t.Errorf("GetObjectRetention: %+v, %v", ret, err)
	}

	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("gov"), VersionId: aws.String(govID)})
	wantCode(t, "DeleteObject of a GOVERNANCE version", err, 403, "AccessDenied")
	// An overwrite is a new version: the locked one stays.
	over := aws.ToString(putBytes(t, c, bucket, "gov", []byte("newer")).VersionId)
	if over == govID {
		t.Fatalf("overwrite of a locked key reused its version id")
	}
	if _, got := getVersion(t, c, bucket, "gov", govID); string(got) != "governed" {
		t.Errorf("locked version after an overwrite: %q", got)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("gov"), VersionId: aws.String(govID), BypassGovernanceRetention: aws.Bool(true)}); err != nil {
		t.Errorf("DeleteObject of a GOVERNANCE version with bypass: %v", err)
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("gov"), VersionId: aws.String(govID)})
	wantCode(t, "GET of the version deleted with bypass", err, 404, "NoSuchVersion")

	comp := aws.ToString(putBytes(t, c, bucket, "comp", []byte("complied")).VersionId)
	if _, err := c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String("comp"), VersionId: aws.String(comp),
		Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionModeCompliance, RetainUntilDate: aws.Time(until)}}); err != nil {
		t.Fatalf("PutObjectRetention COMPLIANCE: %v", err)
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("comp"), VersionId: aws.String(comp), BypassGovernanceRetention: aws.Bool(true)})
	wantCode(t, "DeleteObject of a COMPLIANCE version with bypass", err, 403, "AccessDenied")
	_, err = c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String("comp"), VersionId: aws.String(comp), BypassGovernanceRetention: aws.Bool(true),
		Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionModeCompliance, RetainUntilDate: aws.Time(until.Add(-time.Minute))}})
	wantCode(t, "shortening COMPLIANCE", err, 403, "AccessDenied")
	if _, err := c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String("comp"), VersionId: aws.String(comp),
		Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionModeCompliance, RetainUntilDate: aws.Time(until.Add(time.Hour))}}); err != nil {
		t.Errorf("extending COMPLIANCE: %v", err)
	}

	// Past the retention (on the layer's clock) the version may go.
	clock.ahead.Store(int64(3 * time.Hour))
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("comp"), VersionId: aws.String(comp)}); err != nil {
		t.Errorf("DeleteObject of a version whose retention expired: %v", err)
	}

	plain := aws.ToString(putBytes(t, c, bucket, "plain", []byte("p")).VersionId)
	_, err = c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String("plain"), VersionId: aws.String(plain)})
	wantCode(t, "GetObjectRetention of a version without retention", err, 404, "NoSuchObjectLockConfiguration")
}

// TestObjectLockLegalHold checks that a legal hold, set by header or by
// PutObjectLegalHold, blocks the deletion of its version until it is
// lifted, whatever the bypass.
func TestObjectLockLegalHold(t *testing.T) {
	g := startGateway(t)
	clearImmutable(t, g.Root)
	c := lockSDK(g)
	ctx := t.Context()
	bucket := makeLockBucket(t, g, c, "hold")

	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), Body: strings.NewReader("held"),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(put.VersionId)
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil || head.ObjectLockLegalHoldStatus != types.ObjectLockLegalHoldStatusOn {
		t.Errorf("HEAD of a held version: legal hold %q, %v", head.ObjectLockLegalHoldStatus, err)
	}
	hold, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id)})
	if err != nil || hold.LegalHold.Status != types.ObjectLockLegalHoldStatusOn {
		t.Errorf("GetObjectLegalHold: %+v, %v", hold, err)
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id), BypassGovernanceRetention: aws.Bool(true)})
	wantCode(t, "DeleteObject of a held version", err, 403, "AccessDenied")
	if _, err := c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id),
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOff}}); err != nil {
		t.Fatal(err)
	}
	hold, err = c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id)})
	if err != nil || hold.LegalHold.Status != types.ObjectLockLegalHoldStatusOff {
		t.Errorf("GetObjectLegalHold after OFF: %+v, %v", hold, err)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id)}); err != nil {
		t.Errorf("DeleteObject after the legal hold was lifted: %v", err)
	}
}

// TestObjectLockRefusals checks what S3 refuses around Object Lock: lock
// headers or the retention operations on a bucket without Object Lock
// (InvalidRequest), and a PutObject with lock headers whose body carries
// neither Content-MD5 nor a checksum (InvalidRequest), which the same
// request with Content-MD5 passes.
func TestObjectLockRefusals(t *testing.T) {
	g := startGateway(t)
	clearImmutable(t, g.Root)
	c := lockSDK(g)
	ctx := t.Context()
	plain := makeVersionedBucket(t, g, c, "nolock")
	until := aws.Time(time.Now().Add(time.Hour))
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(plain), Key: aws.String("k"), Body: strings.NewReader("x"),
		ObjectLockMode: types.ObjectLockModeGovernance, ObjectLockRetainUntilDate: until})
	wantCode(t, "PutObject with lock headers on a bucket without Object Lock", err, 400, "InvalidRequest")
	putBytes(t, c, plain, "k", []byte("x"))
	_, err = c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(plain), Key: aws.String("k")})
	wantCode(t, "GetObjectRetention on a bucket without Object Lock", err, 400, "InvalidRequest")
	_, err = c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String(plain), Key: aws.String("k"), LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOn}})
	wantCode(t, "PutObjectLegalHold on a bucket without Object Lock", err, 400, "InvalidRequest")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(plain), Key: aws.String("k"), Body: strings.NewReader("x"),
		ObjectLockMode: types.ObjectLockModeGovernance})
	wantCode(t, "PutObject with a lock mode and no date", err, 400, "InvalidArgument")

	lock := makeLockBucket(t, g, c, "integrity")
	bare := g.sdk(sdkModes[2]) // when-required: no checksum on PutObject
	_, err = bare.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(lock), Key: aws.String("k"), Body: strings.NewReader("x"),
		ObjectLockMode: types.ObjectLockModeGovernance, ObjectLockRetainUntilDate: until})
	wantCode(t, "PutObject with lock headers and no Content-MD5 or checksum", err, 400, "InvalidRequest")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(lock), Key: aws.String("k"), Body: strings.NewReader("x"),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	wantCode(t, "PutObject with a legal hold and only a signed payload hash", err, 400, "InvalidRequest")
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(lock), Key: aws.String("k"), Body: strings.NewReader("x"),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256, ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn}); err != nil {
		t.Errorf("PutObject with a legal hold and x-amz-checksum-sha256: %v", err)
	}
	sum := md5.Sum([]byte("x"))
	if _, err := bare.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(lock), Key: aws.String("k"), Body: bytes.NewReader([]byte("x")),
		ContentMD5: aws.String(base64.StdEncoding.EncodeToString(sum[:])), ObjectLockMode: types.ObjectLockModeGovernance, ObjectLockRetainUntilDate: until}); err != nil {
		t.Errorf("PutObject with lock headers and Content-MD5: %v", err)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(lock), Key: aws.String("mp"),
		ObjectLockMode: types.ObjectLockModeCompliance, ObjectLockRetainUntilDate: until})
	if err != nil {
		t.Fatalf("CreateMultipartUpload with lock headers: %v", err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(lock), Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("part")})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(lock), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(lock), Key: aws.String("mp"), VersionId: done.VersionId})
	wantCode(t, "DeleteObject of a completed upload under COMPLIANCE", err, 403, "AccessDenied")
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(lock), Key: aws.String("cp"), CopySource: aws.String(lock + "/mp"),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	if err != nil {
		t.Fatalf("CopyObject with a legal hold: %v", err)
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(lock), Key: aws.String("cp"), VersionId: cp.VersionId})
	wantCode(t, "DeleteObject of a copy under a legal hold", err, 403, "AccessDenied")
}

// TestAnonymousVersionReads checks that a bucket policy granting
// s3:GetObject lets everyone read the current version of a key but not an
// older one by id, which in S3 needs s3:GetObjectVersion (no policy the
// policy above grants it), while the old version's own ACL public-read,
// whose READ grants s3:GetObjectVersion, lets everyone read it.
func TestAnonymousVersionReads(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeVersionedBucket(t, g, c, "vanon")
	old := aws.ToString(putBytes(t, c, bucket, "k", []byte("overwritten")).VersionId)
	putBytes(t, c, bucket, "k", []byte("current"))
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(publicReadPolicy(bucket, "", false))}); err != nil {
		t.Fatal(err)
	}
	if resp, body := g.anon(http.MethodGet, "/"+bucket+"/k", "", nil, nil); resp.StatusCode != 200 || string(body) != "current" {
		t.Errorf("anonymous GET under an s3:GetObject policy: %d %q", resp.StatusCode, body)
	}
	resp, body := g.anon(http.MethodGet, "/"+bucket+"/k", "versionId="+old, nil, nil)
	wantXMLError(t, "anonymous GET of an old version under an s3:GetObject policy", resp, body, 403, "AccessDenied")
	if resp, _ := g.anon(http.MethodHead, "/"+bucket+"/k", "versionId="+old, nil, nil); resp.StatusCode != 403 {
		t.Errorf("anonymous HEAD of an old version under an s3:GetObject policy: %d, want 403", resp.StatusCode)
	}

	if _, err := c.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(old), ACL: types.ObjectCannedACLPublicRead}); err != nil {
		t.Fatal(err)
	}
	if resp, body := g.anon(http.MethodGet, "/"+bucket+"/k", "versionId="+old, nil, nil); resp.StatusCode != 200 || string(body) != "overwritten" {
		t.Errorf("anonymous GET of an old version whose ACL is public-read: %d %q", resp.StatusCode, body)
	}
	if resp, _ := g.anon(http.MethodGet, "/"+bucket+"/k", "", nil, nil); resp.StatusCode != 403 {
		t.Errorf("anonymous GET of the current version, whose ACL is private: %d, want 403", resp.StatusCode)
	}
}

// TestPostObjectVersionAndLock checks that a browser POST upload to a lock
// bucket takes the x-amz-object-lock-* form fields and answers the version
// it made, and that the version is then protected.
func TestPostObjectVersionAndLock(t *testing.T) {
	g := startGateway(t)
	clearImmutable(t, g.Root)
	c := lockSDK(g)
	ctx := t.Context()
	bucket := makeLockBucket(t, g, c, "vpost")
	now := time.Now()
	until := now.Add(time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	p := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
		map[string]string{"bucket": bucket},
		map[string]string{"key": "k"},
		map[string]string{"x-amz-object-lock-mode": "GOVERNANCE"},
		map[string]string{"x-amz-object-lock-retain-until-date": until},
	}}
	fields := []postField{{"key", "k"}, {"x-amz-object-lock-mode", "GOVERNANCE"}, {"x-amz-object-lock-retain-until-date", until}}
	fields = append(fields, g.signPost(p, g.AccessKey, g.SecretKey, now)...)
	resp, body := g.postUpload(bucket, fields, "f.txt", []byte("posted"))
	id := resp.Header.Get("X-Amz-Version-Id")
	if resp.StatusCode != 204 || id == "" || id == metadata.NullVersion {
		t.Fatalf("POST to a lock bucket: %d, version %q, %s", resp.StatusCode, id, body)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id)})
	if err != nil || head.ObjectLockMode != types.ObjectLockModeGovernance {
		t.Fatalf("HEAD of the posted version: mode %q, %v", head.ObjectLockMode, err)
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), VersionId: aws.String(id)})
	wantCode(t, "DeleteObject of a posted GOVERNANCE version", err, 403, "AccessDenied")
}
