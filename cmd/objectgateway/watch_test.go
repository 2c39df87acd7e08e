package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func TestParseConfigWatch(t *testing.T) {
	c, err := parseConfig(nil, io.Discard, func(string) string { return "" })
	if err != nil || c.watch {
		t.Fatalf("watch must be off by default: %v %v", c.watch, err)
	}
	c, err = parseConfig(nil, io.Discard, func(k string) string {
		if k == "OBJECTGATEWAY_WATCH" {
			return "true"
		}
		return ""
	})
	if err != nil || !c.watch {
		t.Fatalf("OBJECTGATEWAY_WATCH=true: %v %v", c.watch, err)
	}
}

// TestServeWatchListsOutOfBandFiles starts serve with --watch and checks
// that a file written behind its back, in a new directory, is listed
// through the SDK without a scan, and that shutdown stays clean.
func TestServeWatchListsOutOfBandFiles(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"photos/cat.png": "png"})
	var stderr syncBuffer
	ctx := context.Background()
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "WATCHTESTACCESSKEY01", "OBJECTGATEWAY_SECRET_KEY": "watch-test-secret"}
	sv := startServe(t, []string{"--root", root, "--listen", "127.0.0.1:0", "--watch"}, vars, &stderr)
	client := s3Client(sv.addr, vars["OBJECTGATEWAY_ACCESS_KEY"], vars["OBJECTGATEWAY_SECRET_KEY"])
	// The existing directories are watched in the background: write the
	// file first into a directory created now, whose watch (or the import
	// of the directory when it is watched) finds it either way.
	writeFiles(t, filepath.Join(root, "photos"), map[string]string{"2025/new.jpg": "fresh jpeg"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("photos")})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, o := range out.Contents {
			got += fmt.Sprintf("%s:%d ", aws.ToString(o.Key), aws.ToInt64(o.Size))
		}
		if got == "2025/new.jpg:10 cat.png:3 " {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("listing %q; stderr:\n%s", got, stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	sv.stop() // checks the shutdown is clean
}
