package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
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
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	vars := map[string]string{"OBJECTGATEWAY_ACCESS_KEY": "WATCHTESTACCESSKEY01", "OBJECTGATEWAY_SECRET_KEY": "watch-test-secret"}
	go func() {
		done <- serve(ctx, []string{"--root", root, "--listen", "127.0.0.1:0", "--watch"}, env{
			stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] },
			ready: func(a string) { addrc <- a },
		})
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("serve exited early: %v\n%s", err, stderr.String())
	}
	client := s3.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: awscreds.NewStaticCredentialsProvider(vars["OBJECTGATEWAY_ACCESS_KEY"], vars["OBJECTGATEWAY_SECRET_KEY"], ""),
		HTTPClient:  &http.Client{},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String("http://" + addr)
		o.UsePathStyle = true
	})
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
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
