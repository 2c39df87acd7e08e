package api_test

import (
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// TestDeleteMarkerHeadersWithHotCache checks that, with the hot-object
// cache on, a GET or HEAD of a key whose latest version is a delete
// marker answers as it does without the cache: NoSuchKey carrying
// x-amz-delete-marker and the marker's x-amz-version-id, and never the
// body the cache held for the version the marker hides.
func TestDeleteMarkerHeadersWithHotCache(t *testing.T) {
	hot, err := hotcache.New(hotcache.Options{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	g := startGatewayLayer(t, func(o *object.Options) { o.HotCache = hot })
	c := g.sdk(sdkModes[0])
	bucket := makeVersionedBucket(t, g, c, "vhot")
	putBytes(t, c, bucket, "k", []byte("cached body"))
	// Two reads: the first fills the cache, the second is served from it.
	for range 2 {
		if got := getBytes(t, c, bucket, "k"); string(got) != "cached body" {
			t.Fatalf("GET before the delete: %q", got)
		}
	}
	del, err := c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil || !aws.ToBool(del.DeleteMarker) {
		t.Fatalf("DeleteObject: %+v, %v", del, err)
	}
	marker := aws.ToString(del.VersionId)

	resp, body := g.do(g.rawRequest(http.MethodGet, "/"+bucket+"/k", "", nil), nil, true)
	wantXMLError(t, "GET of a deleted key with the hot cache", resp, body, 404, "NoSuchKey")
	if resp.Header.Get("X-Amz-Delete-Marker") != "true" || resp.Header.Get("X-Amz-Version-Id") != marker {
		t.Errorf("GET of a deleted key with the hot cache: x-amz-delete-marker %q, x-amz-version-id %q, want true, %q",
			resp.Header.Get("X-Amz-Delete-Marker"), resp.Header.Get("X-Amz-Version-Id"), marker)
	}
	resp, _ = g.do(g.rawRequest(http.MethodHead, "/"+bucket+"/k", "", nil), nil, true)
	if resp.StatusCode != 404 || resp.Header.Get("X-Amz-Delete-Marker") != "true" || resp.Header.Get("X-Amz-Version-Id") != marker {
		t.Errorf("HEAD of a deleted key with the hot cache: %d, x-amz-delete-marker %q, x-amz-version-id %q",
			resp.StatusCode, resp.Header.Get("X-Amz-Delete-Marker"), resp.Header.Get("X-Amz-Version-Id"))
	}
}

// TestDeleteMarkerLastModifiedIsHTTPDate checks that the 405 answer to a
// GET or HEAD of a delete marker by id carries Last-Modified as an
// HTTP-date (RFC 9110, "GMT"), the marker's time as ListObjectVersions
// shows it, so that clients and caches can parse it.
func TestDeleteMarkerLastModifiedIsHTTPDate(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := makeVersionedBucket(t, g, c, "vdate")
	putBytes(t, c, bucket, "k", []byte("x"))
	del, err := c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	marker := aws.ToString(del.VersionId)
	list, err := c.ListObjectVersions(t.Context(), &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
	if err != nil || len(list.DeleteMarkers) != 1 {
		t.Fatalf("ListObjectVersions: %+v, %v", list, err)
	}
	want := aws.ToTime(list.DeleteMarkers[0].LastModified).UTC().Truncate(1e9)
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		resp, _ := g.do(g.rawRequest(method, "/"+bucket+"/k", "versionId="+marker, nil), nil, true)
		if resp.StatusCode != 405 {
			t.Errorf("%s of a delete marker by id: %d, want 405", method, resp.StatusCode)
		}
		lm := resp.Header.Get("Last-Modified")
		got, err := http.ParseTime(lm)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s of a delete marker by id: Last-Modified %q (%v, %v), want the HTTP-date of %v", method, lm, got, err, want)
		}
	}
}
