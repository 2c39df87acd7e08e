package api_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"
)

// TestConformanceVirtualHosted addresses buckets as bucket.s3.test: the
// clients' transports dial the test listener for every *.s3.test host.
func TestConformanceVirtualHosted(t *testing.T) {
	const domain = "s3.test"
	g := startGateway(t, withDomain(domain))
	addr := g.plain.Listener.Addr().String()
	_, port, _ := strings.Cut(addr, ":")
	transport := func() http.RoundTripper {
		tr := &http.Transport{DialContext: dialer(addr, domain)}
		t.Cleanup(tr.CloseIdleConnections)
		return requestIDCheck{t: t, next: tr}
	}
	for _, m := range []sdkMode{sdkModes[0], sdkModes[2]} {
		t.Run(m.name, func(t *testing.T) {
			c := g.sdk(m, func(o *s3.Options) {
				o.BaseEndpoint = aws.String("http://" + domain + ":" + port)
				o.UsePathStyle = false
				o.HTTPClient = &http.Client{Transport: transport()}
			})
			ctx := t.Context()
			bucket := uniqueBucket("vhost")
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatalf("CreateBucket: %v", err)
			}
			if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Errorf("HeadBucket: %v", err)
			}
			key := "vh/key with space ü+"
			body := []byte("virtual-hosted")
			if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
				t.Fatalf("PutObject: %v", err)
			}
			if got := getBytes(t, c, bucket, key); !bytes.Equal(got, body) {
				t.Errorf("GetObject = %q", got)
			}
			lo, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
			if err != nil || len(lo.Contents) != 1 || aws.ToString(lo.Contents[0].Key) != key {
				t.Errorf("ListObjectsV2 = %v, %v", lo, err)
			}
			lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
			if err != nil {
				t.Errorf("ListBuckets on %s: %v", domain, err)
			} else if !containsBucket(lb.Buckets, bucket) {
				t.Errorf("ListBuckets: %s missing", bucket)
			}
			_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket + "-missing"), Key: aws.String("k")})
			wantCode(t, "GetObject(missing bucket, virtual-hosted)", err, 404, "NoSuchBucket")

			// The same object path-style on the same server.
			if got := getBytes(t, g.sdk(m), bucket, key); !bytes.Equal(got, body) {
				t.Errorf("path-style GetObject = %q", got)
			}
			if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
				t.Errorf("DeleteObject: %v", err)
			}
			if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Errorf("DeleteBucket: %v", err)
			}
		})
	}
	t.Run("minio", func(t *testing.T) {
		mc, err := minio.New(domain+":"+port, &minio.Options{
			Creds:        miniocreds.NewStaticV4(g.AccessKey, g.SecretKey, ""),
			Region:       g.Region,
			BucketLookup: minio.BucketLookupDNS,
			Transport:    transport(),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		bucket := uniqueBucket("mvhost")
		if err := mc.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
			t.Fatalf("MakeBucket: %v", err)
		}
		if _, err := mc.PutObject(ctx, bucket, "a b", strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
			t.Fatalf("PutObject: %v", err)
		}
		st, err := mc.StatObject(ctx, bucket, "a b", minio.StatObjectOptions{})
		if err != nil || st.Size != 1 {
			t.Errorf("StatObject = %v, %v", st.Size, err)
		}
	})
}

func containsBucket(bs []types.Bucket, name string) bool {
	for _, b := range bs {
		if aws.ToString(b.Name) == name {
			return true
		}
	}
	return false
}

// TestConformanceNotImplemented checks that operations the gateway lacks
// answer 501 NotImplemented in S3 XML instead of a wrong success.
func TestConformanceNotImplemented(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := makeBucket(t, c, "notimpl")
	putBytes(t, c, bucket, "k", []byte("v"))
	ctx := t.Context()

	_, err := c.GetObjectTorrent(ctx, &s3.GetObjectTorrentInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	wantCode(t, "GetObjectTorrent", err, 501, "NotImplemented")
	_, err = c.GetBucketInventoryConfiguration(ctx, &s3.GetBucketInventoryConfigurationInput{Bucket: aws.String(bucket), Id: aws.String("i")})
	wantCode(t, "GetBucketInventoryConfiguration", err, 501, "NotImplemented")

	for _, tc := range []struct{ method, path, query string }{
		{http.MethodPut, "/" + bucket + "/k", "renameObject"},
		{http.MethodGet, "/" + bucket + "/k", "torrent"},
		{http.MethodPut, "/" + bucket, "replication"},
		{http.MethodGet, "/" + bucket, "analytics"},
		{http.MethodDelete, "/" + bucket, "object-lock"},
	} {
		body := []byte{}
		if tc.method == http.MethodPut {
			body = []byte("<Tagging><TagSet/></Tagging>")
		}
		req := g.rawRequest(tc.method, tc.path, tc.query, body)
		resp, b := g.do(req, body, true)
		wantXMLError(t, tc.method+" "+tc.path+"?"+tc.query, resp, b, 501, "NotImplemented")
	}
	// The object and bucket are untouched.
	if got := getBytes(t, c, bucket, "k"); string(got) != "v" {
		t.Errorf("object after NotImplemented requests: %q", got)
	}
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Errorf("bucket after DELETE ?object-lock: %v", err)
	}
}

// TestConformanceRequestIDs checks x-amz-request-id on successes, errors,
// HEAD and 304 responses, and that ids differ between requests. (Every
// client of the harness also checks each response it receives.)
func TestConformanceRequestIDs(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := makeBucket(t, c, "ids")
	put := putBytes(t, c, bucket, "k", []byte("v"))
	seen := map[string]bool{}
	for _, tc := range []struct {
		method, path, query string
		header              string
		status              int
	}{
		{http.MethodGet, "/", "", "", 200},
		{http.MethodGet, "/" + bucket + "/k", "", "", 200},
		{http.MethodHead, "/" + bucket + "/k", "", "", 200},
		{http.MethodHead, "/" + bucket + "/missing", "", "", 404},
		{http.MethodGet, "/" + bucket + "/missing", "", "", 404},
		{http.MethodGet, "/" + bucket + "/k", "", "If-None-Match", 304},
		{http.MethodGet, "/" + bucket, "list-type=2", "", 200},
		{http.MethodDelete, "/" + bucket, "", "", 409},
	} {
		req := g.rawRequest(tc.method, tc.path, tc.query, nil)
		if tc.header != "" {
			req.Header.Set(tc.header, aws.ToString(put.ETag))
		}
		resp, _ := g.do(req, nil, true)
		id := resp.Header.Get("X-Amz-Request-Id")
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s?%s: status %d, want %d", tc.method, tc.path, tc.query, resp.StatusCode, tc.status)
		}
		if id == "" {
			t.Errorf("%s %s?%s: no x-amz-request-id", tc.method, tc.path, tc.query)
		} else if seen[id] {
			t.Errorf("%s %s?%s: request id %s reused", tc.method, tc.path, tc.query, id)
		}
		seen[id] = true
	}
	resp, err := http.Get(g.Endpoint + "/" + bucket)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Amz-Request-Id") == "" {
		t.Errorf("anonymous request: no x-amz-request-id")
	}
}

// TestConformancePlainFiles checks the design's first decision: an object
// is a plain file at <root>/<bucket>/<key>.
func TestConformancePlainFiles(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[1])
	bucket := makeBucket(t, c, "files")
	body := payload(70<<10, 5)
	for _, key := range []string{"dir/file.txt", "top.bin", "deep/er/still/x y ü.dat"} {
		// Over TLS with default settings: an aws-chunked body with a
		// trailer, which must not leak into the file.
		if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
			t.Fatalf("PutObject(%q): %v", key, err)
		}
		got, err := os.ReadFile(filepath.Join(g.Root, bucket, filepath.FromSlash(key)))
		if err != nil {
			t.Errorf("object %q is not a plain file: %v", key, err)
			continue
		}
		if !bytes.Equal(got, body) {
			t.Errorf("file of %q holds %d bytes that differ from the object", key, len(got))
		}
	}
	if fi, err := os.Stat(filepath.Join(g.Root, bucket)); err != nil || !fi.IsDir() {
		t.Errorf("bucket %s is not a directory under the root: %v", bucket, err)
	}
	// Deleting the object removes the file and its emptied directories.
	if _, err := c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("deep/er/still/x y ü.dat")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(g.Root, bucket, "deep")); !os.IsNotExist(err) {
		t.Errorf("emptied directory deep/ left behind: %v", err)
	}
}

// TestConformanceRestart closes the object layer and opens a new one on
// the same root: every bucket, object, metadata and checksum is still
// there.
func TestConformanceRestart(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	buckets := []string{makeBucket(t, c, "restart"), makeBucket(t, c, "restart")}
	objects := map[string][]byte{}
	for i, key := range append([]string{"a", "a/b", "dir/file.txt", "sp ace/ü", "long/" + strings.Repeat("z", 600)}, hostileKeys[:8]...) {
		objects[key] = payload(100+i, uint64(i))
	}
	for key, body := range objects {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(buckets[0]), Key: aws.String(key), Body: bytes.NewReader(body),
			ContentType: aws.String("text/x-restart"), Metadata: map[string]string{"k": "v"},
			ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
		})
		if err != nil {
			t.Fatalf("PutObject(%q): %v", key, err)
		}
	}
	before := listAll(t, c, buckets[0], "")

	g.restart()

	lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatalf("ListBuckets after restart: %v", err)
	}
	for _, b := range buckets {
		if !containsBucket(lb.Buckets, b) {
			t.Errorf("bucket %s lost in the restart", b)
		}
	}
	after := listAll(t, c, buckets[0], "")
	if strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Errorf("listing changed in the restart:\n before %q\n after  %q", before, after)
	}
	for key, body := range objects {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(buckets[0]), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Errorf("GetObject(%q) after restart: %v", key, err)
			continue
		}
		got, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("GetObject(%q) after restart: %d bytes, %v", key, len(got), err)
		}
		if aws.ToString(out.ContentType) != "text/x-restart" || out.Metadata["k"] != "v" ||
			aws.ToString(out.ChecksumSHA256) != checksumOf(types.ChecksumAlgorithmSha256, body) || aws.ToString(out.ETag) != etagOf(body) {
			t.Errorf("GetObject(%q) after restart: type %q meta %v sha256 %q etag %s", key,
				aws.ToString(out.ContentType), out.Metadata, aws.ToString(out.ChecksumSHA256), aws.ToString(out.ETag))
		}
	}
	// The gateway still writes after the restart.
	putBytes(t, c, buckets[1], "new", []byte("after"))
	if got := getBytes(t, c, buckets[1], "new"); string(got) != "after" {
		t.Errorf("GetObject(new) = %q", got)
	}
}
