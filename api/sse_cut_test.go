package api_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestSSEDamageAfterTheFirstBlockCutsTheAnswer damages a package in the
// middle of a 1 MiB SSE-S3 object, past the first block that is checked
// before the status line: the GET has already answered 200 when the
// damage is found, so the connection must be cut (an error at the
// client), never a body that ends as if complete. A range over intact
// packages only still succeeds (a range decrypts only what it covers);
// one that reaches the damage is cut too. Over HTTP/1.1 and over TLS.
func TestSSEDamageAfterTheFirstBlockCutsTheAnswer(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssecut")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	const pkg, pkgSize = 64 << 10, 64<<10 + 32
	plain := make([]byte, 1<<20)
	for i := range plain {
		plain[i] = byte(i*7 + i>>16)
	}
	key := "big"
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(plain),
		ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
		t.Fatal(err)
	}
	// A byte of package 9's payload (the third block of four packages).
	path := filepath.Join(g.Root, bucket, key)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 16*pkgSize {
		t.Fatalf("file of %d bytes, want %d", fi.Size(), 16*pkgSize)
	}
	flipFileByte(t, path, 9*pkgSize+1000, 0x10)
	get := g.signedGetter(t, bucket, key)
	for _, ep := range []struct{ name, url string }{{"http", g.Endpoint}, {"tls", g.TLS}} {
		// The whole object: 200, then cut after the intact blocks.
		status, body, err := get(ep.url, "")
		if err == nil {
			t.Fatalf("%s: GET answered %d with %d bytes and no error (whole: %v)", ep.name, status, len(body), bytes.Equal(body, plain))
		}
		if status != http.StatusOK {
			t.Fatalf("%s: status %d, want 200 then a cut", ep.name, status)
		}
		if len(body) >= 9*pkg || !bytes.Equal(body, plain[:len(body)]) {
			t.Fatalf("%s: %d bytes before the cut, want a prefix of the object before package 9", ep.name, len(body))
		}
		// A range over intact packages: 206 and its bytes.
		status, body, err = get(ep.url, "bytes=100-589823") // packages 0..8
		if err != nil || status != http.StatusPartialContent || !bytes.Equal(body, plain[100:589824]) {
			t.Fatalf("%s: intact range: status %d, %d bytes, err %v", ep.name, status, len(body), err)
		}
		status, body, err = get(ep.url, "bytes=655360-") // packages 10..15
		if err != nil || status != http.StatusPartialContent || !bytes.Equal(body, plain[655360:]) {
			t.Fatalf("%s: intact tail range: status %d, %d bytes, err %v", ep.name, status, len(body), err)
		}
		// A range whose fifth package is the damaged one: cut after 206.
		status, body, err = get(ep.url, "bytes=327680-")
		if err == nil {
			t.Fatalf("%s: range over the damage answered %d with %d bytes and no error", ep.name, status, len(body))
		}
		if status != http.StatusPartialContent || len(body) > 4*pkg || !bytes.Equal(body, plain[327680:327680+len(body)]) {
			t.Fatalf("%s: range over the damage: status %d, %d bytes before the cut", ep.name, status, len(body))
		}
		// A range that starts in the damaged package: an error before
		// the answer starts.
		status, _, err = get(ep.url, "bytes=589900-600000")
		if err != nil || status != http.StatusInternalServerError {
			t.Fatalf("%s: range starting at the damage: status %d, err %v, want 500 InternalError", ep.name, status, err)
		}
	}
}

// TestSSEFileReplacedByAShortFileIsAnError replaces an encrypted object's
// file, behind the gateway's back, with bytes no DARE stream has the size
// of (shorter than a package's header and tag): the gateway adopts the
// file with the record's encryption, and its GET must be InternalError,
// not a 200 answer of an empty object.
func TestSSEFileReplacedByAShortFileIsAnError(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("sseshort")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 20, 32} {
		key := "short"
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(ssePlain()),
			ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(g.Root, bucket, key)
		if err := os.WriteFile(path, bytes.Repeat([]byte{0x20}, n), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
		if err == nil {
			body, rerr := io.ReadAll(out.Body)
			out.Body.Close()
			t.Fatalf("file of %d bytes: GetObject answered %d bytes (read error %v), want InternalError", n, len(body), rerr)
		}
		var oe interface{ ErrorCode() string }
		if !errors.As(err, &oe) || oe.ErrorCode() != "InternalError" {
			t.Fatalf("file of %d bytes: GetObject error %v, want InternalError", n, err)
		}
	}
}

// TestSSELargeObjectRanges GETs a 9 MiB SSE-S3 object, whole and in
// ranges of 4 MiB and more (which a process with a spare core writes
// through the sse pipeline, decrypted from a mapping of the file), over
// HTTP and TLS, and then damages a package deep inside it: the whole GET
// is cut after its 200 with only the object's bytes before the cut.
func TestSSELargeObjectRanges(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkMode{name: "tls", tls: true})
	ctx := context.Background()
	bucket := uniqueBucket("ssebig")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	const pkg, pkgSize = 64 << 10, 64<<10 + 32
	plain := make([]byte, 9<<20+5)
	for i := range plain {
		plain[i] = byte(i*13 + i>>16)
	}
	key := "big"
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(plain),
		ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
		t.Fatal(err)
	}
	get := g.signedGetter(t, bucket, key)
	size := len(plain)
	ranges := []struct {
		header     string
		start, end int // end exclusive
	}{
		{"bytes=0-", 0, size},
		{"bytes=7-", 7, size},
		{"bytes=65539-6291455", 65539, 6291456},
		{"bytes=1000-5243879", 1000, 5243880},
		{"bytes=-4194400", size - 4194400, size},
	}
	for _, ep := range []struct{ name, url string }{{"http", g.Endpoint}, {"tls", g.TLS}} {
		for _, r := range ranges {
			status, body, err := get(ep.url, r.header)
			if err != nil || status != http.StatusPartialContent || !bytes.Equal(body, plain[r.start:r.end]) {
				t.Fatalf("%s %s: status %d, %d bytes (want %d), err %v", ep.name, r.header, status, len(body), r.end-r.start, err)
			}
		}
		status, body, err := get(ep.url, "")
		if err != nil || status != http.StatusOK || !bytes.Equal(body, plain) {
			t.Fatalf("%s whole: status %d, %d bytes, err %v", ep.name, status, len(body), err)
		}
	}
	// A byte of package 100's payload, deep inside the pipelined part.
	flipFileByte(t, filepath.Join(g.Root, bucket, key), 100*pkgSize+5000, 0x01)
	for _, ep := range []struct{ name, url string }{{"http", g.Endpoint}, {"tls", g.TLS}} {
		status, body, err := get(ep.url, "")
		if err == nil {
			t.Fatalf("%s: GET of the damaged object answered %d with %d bytes and no error", ep.name, status, len(body))
		}
		if status != http.StatusOK || len(body) > 100*pkg || !bytes.Equal(body, plain[:len(body)]) {
			t.Fatalf("%s: status %d, %d bytes before the cut, want a prefix before package 100", ep.name, status, len(body))
		}
	}
}

// flipFileByte flips the bits of mask in the byte at of the file at path
// behind the gateway's back, keeping the file's modification time.
func flipFileByte(t *testing.T, path string, at int64, mask byte) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, at); err != nil {
		t.Fatal(err)
	}
	b[0] ^= mask
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// signedGetter returns a GET of bucket/key at an endpoint of g, signed
// with g's root user, with a Range header when one is given: the status,
// the body read until the end or an error, and that error.
func (g *gateway) signedGetter(t *testing.T, bucket, key string) func(endpoint, rangeHeader string) (int, []byte, error) {
	return func(endpoint, rangeHeader string) (int, []byte, error) {
		req, err := http.NewRequest(http.MethodGet, endpoint+"/"+bucket+"/"+key, http.NoBody)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = 0
		if rangeHeader != "" {
			req.Header.Set("Range", rangeHeader)
		}
		g.signAt(req, nil, g.SecretKey, time.Now())
		resp, err := g.httpClient().Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, body, err
	}
}
