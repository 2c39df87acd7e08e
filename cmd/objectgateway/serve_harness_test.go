package main

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// served is a serve command running in-process.
type served struct {
	addr, admin string
	// website is the website endpoint's address, when args ask for one.
	website string
	// stop shuts it down and checks it exited cleanly; it runs at
	// cleanup if not before.
	stop func()
}

// startServe runs serve with args and the environment vars (nothing else
// is set) until stop, writing its log to logw (nil: discarded). It returns
// once the S3 listener accepts requests and, when args ask for one, the
// admin listener too; the website endpoint, when asked for, is reported
// before the S3 listener.
func startServe(t *testing.T, args []string, vars map[string]string, logw io.Writer) *served {
	t.Helper()
	return startServeEnv(t, args, vars, logw, env{})
}

// startServeEnv is startServe with more of the command's environment:
// base's clocks are kept, its streams and hooks replaced.
func startServeEnv(t *testing.T, args []string, vars map[string]string, logw io.Writer, base env) *served {
	t.Helper()
	if logw == nil {
		logw = io.Discard
	}
	wantAdmin, wantWebsite := false, false
	for _, a := range args {
		wantAdmin = wantAdmin || a == "--admin-listen"
		wantWebsite = wantWebsite || a == "--website-listen"
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc, adminc := make(chan string, 1), make(chan string, 1)
	done := make(chan error, 1)
	e := base
	e.stdout, e.stderr = io.Discard, logw
	e.getenv = func(k string) string { return vars[k] }
	e.ready = func(a string) { addrc <- a }
	e.adminReady = func(a string) { adminc <- a }
	websitec := make(chan string, 1)
	e.websiteReady = func(a string) { websitec <- a }
	go func() { done <- serve(ctx, args, e) }()
	s := &served{}
	for s.addr == "" || wantAdmin && s.admin == "" {
		select {
		case s.addr = <-addrc:
		case s.admin = <-adminc:
		case err := <-done:
			cancel()
			t.Fatalf("serve exited early: %v", err)
		case <-time.After(cdnWait):
			cancel()
			t.Fatalf("serve did not start within %v", cdnWait)
		}
	}
	if wantWebsite {
		select {
		case s.website = <-websitec:
		default:
			cancel()
			t.Fatal("serve accepted requests without reporting the website endpoint's address")
		}
	}
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
	}
	t.Cleanup(s.stop)
	return s
}

// s3Client is an aws-sdk-go-v2 client of a gateway at addr, path-style,
// without retries (a test sees the first answer).
func s3Client(addr, access, secret string) *s3.Client {
	return s3.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: awscreds.NewStaticCredentialsProvider(access, secret, ""),
		HTTPClient:  &http.Client{},
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}, func(o *s3.Options) {
		o.BaseEndpoint = aws.String("http://" + addr)
		o.UsePathStyle = true
	})
}
