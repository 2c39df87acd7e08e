package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// runBucket runs `objectgateway bucket ARGS --root root` and returns stdout.
func runBucket(t *testing.T, root string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := bucketCmd(append(args, "--root", root), env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }})
	return out.String(), err
}

// TestBucketCacheControlCommand sets, shows and clears a bucket's default
// Cache-Control with the gateway stopped (on the index directly), and checks what the gateway then
// serves: the bucket's default over the server's, the server's for other
// buckets and after --clear.
func TestBucketCacheControlCommand(t *testing.T) {
	root := t.TempDir()
	g := startCDNGateway(t, root)
	g.put(t, "a.txt", []byte("a"))
	ctx := context.Background()
	if _, err := g.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("other")}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("other"), Key: aws.String("b.txt"), Body: strings.NewReader("b")}); err != nil {
		t.Fatal(err)
	}
	g.stop()

	const cc = "public, max-age=77"
	for _, bad := range [][]string{
		{"cache-control"},
		{"cache-control", cdnBucket, "a\r\nX-Injected: 1"},
		{"cache-control", cdnBucket, ""},
		{"cache-control", cdnBucket, "x", "--clear"},
		{"cache-control", "missing", cc},
		{"expire", cdnBucket},
	} {
		if out, err := runBucket(t, root, bad...); err == nil {
			t.Errorf("bucket %q: no error (printed %q)", bad, out)
		}
	}
	if out, err := runBucket(t, root, "cache-control", cdnBucket); err != nil || !strings.Contains(out, "no default") {
		t.Fatalf("show unset: %q, %v", out, err)
	}
	if _, err := runBucket(t, root, "cache-control", cdnBucket, cc); err != nil {
		t.Fatal(err)
	}
	if out, err := runBucket(t, root, "cache-control", "--root", root, cdnBucket); err != nil || out != cc+"\n" {
		t.Fatalf("show: %q, %v; want %q", out, err, cc)
	}

	served := func(bucket, key string) string {
		t.Helper()
		out, err := g.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("HeadObject %s/%s: %v", bucket, key, err)
		}
		return aws.ToString(out.CacheControl)
	}
	g = startCDNGateway(t, root)
	if got := served(cdnBucket, "a.txt"); got != cc {
		t.Errorf("bucket with a default: Cache-Control %q, want %q", got, cc)
	}
	if got := served("other", "b.txt"); got != cdnMaxAge {
		t.Errorf("bucket without a default: Cache-Control %q, want the server's %q", got, cdnMaxAge)
	}
	g.stop()

	if _, err := runBucket(t, root, "cache-control", cdnBucket, "--clear"); err != nil {
		t.Fatal(err)
	}
	g = startCDNGateway(t, root)
	if got := served(cdnBucket, "a.txt"); got != cdnMaxAge {
		t.Errorf("after --clear: Cache-Control %q, want the server's %q", got, cdnMaxAge)
	}
}
