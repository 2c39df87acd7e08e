package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/pgtest"
	"github.com/objectgateway/objectgateway/storage"
)

// A gateway of a shared catalogue killed with SIGKILL in the middle of a
// write into a versioned bucket, while another serves: the other goes on
// serving the key's acknowledged version, alone in its listing; the dead
// gateway's staged bytes stay in the staging area while no gateway
// starts (docs/scale-out.md: the next gateway that starts on the root
// removes them), and are gone once it is started again; the key takes
// new writes through it; and with every gateway stopped, fsck finds the
// root and the catalogue consistent.
func TestScaleOutKilledMidWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the gateway and runs two processes and PostgreSQL")
	}
	dsn := pgtest.TCPDSN(t)
	bin := buildGateway(t)
	root := t.TempDir()
	g1 := startScaleGateway(t, "gateway 1", bin, root, dsn)
	g2 := startScaleGateway(t, "gateway 2", bin, root, dsn)
	ctx := context.Background()
	const bucket, key = "killed", "k"
	if _, err := g1.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := g1.client.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	v1 := []byte("the acknowledged version\n")
	if _, err := g1.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(v1)}); err != nil {
		t.Fatal(err)
	}
	staging := filepath.Join(root, storage.StateDir, "staging")
	before := stagedNames(t, staging)

	// A PUT through gateway 2 whose body stops after 1 MiB of 8: its
	// bytes are staged, not yet renamed nor recorded.
	ps := s3.NewPresignClient(g2.client)
	req, err := ps.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	const size, sent = 8 << 20, 1 << 20
	pr, pw := io.Pipe()
	hreq, err := http.NewRequest(http.MethodPut, req.URL, pr)
	if err != nil {
		t.Fatal(err)
	}
	hreq.ContentLength = size
	for k, v := range req.SignedHeader {
		hreq.Header[k] = v
	}
	putDone := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(hreq)
		if err == nil {
			resp.Body.Close()
		}
		putDone <- err
	}()
	if _, err := pw.Write(bytes.Repeat([]byte("x"), sent)); err != nil {
		t.Fatal(err)
	}
	// Readiness: the staged file of the write holds the bytes sent.
	var leftover string
	deadline := time.Now().Add(scaleWait)
	for leftover == "" {
		for n := range stagedNames(t, staging) {
			if fi, err := os.Stat(filepath.Join(staging, n)); err == nil && !before[n] && fi.Size() >= sent {
				leftover = n
			}
		}
		if leftover == "" {
			if time.Now().After(deadline) {
				t.Fatalf("no staged file of %d bytes in %s after %v", sent, staging, scaleWait)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	g2.kill()
	pw.CloseWithError(io.ErrClosedPipe)
	if err := <-putDone; err == nil {
		t.Errorf("the PUT cut by the kill was answered")
	}

	check := func(g *scaleGateway, want []byte, versions int) {
		t.Helper()
		got, _, err := getBytes(ctx, g.client, bucket, key)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s serves %q, %v; want %q", g.name, got, err, want)
		}
		out, err := g.client.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Versions) != versions || len(out.DeleteMarkers) != 0 {
			t.Errorf("%s lists %d versions and %d delete markers, want %d versions", g.name, len(out.Versions), len(out.DeleteMarkers), versions)
		}
	}
	check(g1, v1, 1)
	if !stagedNames(t, staging)[leftover] {
		t.Errorf("the dead gateway's staged file %s was removed while no gateway started", leftover)
	}
	g2.start()
	if stagedNames(t, staging)[leftover] {
		t.Errorf("the dead gateway's staged file %s is still there after a gateway started", leftover)
	}
	v2 := []byte("written after the kill\n")
	if _, err := g2.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(v2)}); err != nil {
		t.Fatal(err)
	}
	check(g1, v2, 2)
	check(g2, v2, 2)

	g1.stop()
	g2.stop()
	l, err := object.OpenExclusive(object.Options{Root: root, Index: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rep, err := l.Fsck(object.FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("fsck after the kill: %s", p)
	}
}

// stagedNames returns the names in the staging directory.
func stagedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "up-") {
			out[e.Name()] = true
		}
	}
	return out
}
