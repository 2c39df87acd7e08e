package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// serveOnce runs serve over root, lists every bucket's keys through the
// SDK, and stops the gateway. It returns the keys ("bucket/key") and what
// the gateway wrote to stderr.
func serveOnce(t *testing.T, root string) ([]string, string) {
	t.Helper()
	var stderr syncBuffer
	ctx := context.Background()
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "SCANTESTACCESSKEY001", "OBJECTGATEWAY_SECRET_KEY": "scan-test-secret"}
	sv := startServe(t, []string{"--root", root, "--listen", "127.0.0.1:0"}, vars, &stderr)
	client := s3Client(sv.addr, vars["OBJECTGATEWAY_ACCESS_KEY"], vars["OBJECTGATEWAY_SECRET_KEY"])
	var keys []string
	bs, err := client.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs.Buckets {
		p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: b.Name})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range page.Contents {
				keys = append(keys, aws.ToString(b.Name)+"/"+aws.ToString(o.Key))
			}
		}
	}
	sv.stop()
	return keys, stderr.String()
}

// TestServeImportsExistingTreeOnce checks that the first start on an
// existing tree imports it, with progress on stderr, and that a restart
// does not rescan: a file added behind the gateway's back afterwards is
// not listed until a scan.
func TestServeImportsExistingTreeOnce(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"photos/2024/beach.jpg": "jpeg",
		"photos/cat.png":        "png",
		"docs/a/b/c.txt":        "text",
	})
	keys, log := serveOnce(t, root)
	want := []string{"docs/a/b/c.txt", "photos/2024/beach.jpg", "photos/cat.png"}
	if !slices.Equal(keys, want) {
		t.Fatalf("first start listed %q, want %q", keys, want)
	}
	if !strings.Contains(log, "scan: 3/3 files") || !strings.Contains(log, "import finished") {
		t.Fatalf("the import must show progress and a summary; stderr:\n%s", log)
	}

	writeFiles(t, root, map[string]string{"photos/later.jpg": "new"})
	keys, log = serveOnce(t, root)
	if !slices.Equal(keys, want) || strings.Contains(log, "scan:") {
		t.Fatalf("a restart must not rescan: listed %q; stderr:\n%s", keys, log)
	}

	var out bytes.Buffer
	if err := run(context.Background(), []string{"scan", "--root", root, "--quiet"}, &out, &out); err != nil {
		t.Fatalf("scan: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "added 1, updated 0, removed 0, unchanged 3") {
		t.Fatalf("scan output: %s", out.String())
	}
	if keys, _ = serveOnce(t, root); len(keys) != 4 {
		t.Fatalf("after scan: %q", keys)
	}
}

// TestScanAndFsckCommands runs the scan and fsck subcommands as a user
// would, checking their output and exit status.
func TestScanAndFsckCommands(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"bkt/one": "1", "bkt/sub/two": "22"})
	runCmd := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, &out, &errOut)
		return out.String(), err
	}
	out, err := runCmd("scan", "--root", root)
	if err != nil || !strings.Contains(out, "bucket created: bkt") || !strings.Contains(out, "added 2,") {
		t.Fatalf("scan: %v\n%s", err, out)
	}
	if out, err = runCmd("fsck", "--root", root); err != nil || !strings.Contains(out, "0 problems") {
		t.Fatalf("fsck of a clean root: %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(root, "bkt", "one")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{".objectgateway/staging/up-x-1": "half"})
	out, err = runCmd("fsck", "--root", root)
	if !errors.Is(err, errProblems) || !strings.Contains(out, `missing-file bkt/"one"`) || !strings.Contains(out, "staging-leftover up-x-1") {
		t.Fatalf("fsck must report and exit 1: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, ".objectgateway/staging/up-x-1")); err != nil {
		t.Fatal("fsck without --repair must not remove anything")
	}
	if out, err = runCmd("fsck", "--root", root, "--repair"); err != nil || !strings.Contains(out, "(repaired)") || !strings.Contains(out, "0 remaining") {
		t.Fatalf("fsck --repair: %v\n%s", err, out)
	}
	if out, err = runCmd("fsck", "--root", root); err != nil {
		t.Fatalf("fsck after repair: %v\n%s", err, out)
	}
	if _, err := runCmd("scan", "--root", filepath.Join(root, "missing")); err == nil {
		t.Fatal("scan of a missing root must fail")
	}
	if _, err := runCmd("scan", "--root", root, "--bucket", "nope"); err == nil {
		t.Fatal("scan of a missing bucket must fail")
	}
}
