package bench

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// BenchmarkClientOverhead compares the client this package uses (net/http
// and pkg/sigv4) with aws-sdk-go-v2 for a 1 KiB GET against an in-process
// gateway on loopback. The difference is client time that would be
// counted in every small-request latency if the SDK were used.
func BenchmarkClientOverhead(b *testing.B) {
	gw := startGateway(b, nil)
	ep := Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3}
	c, err := newClient(ep, Credentials{AccessKey: testAccess, SecretKey: testSecret, Region: "us-east-1"}, true, "overhead", 4)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	ctx := context.Background()
	if err := c.createBucket(ctx); err != nil {
		b.Fatal(err)
	}
	if err := c.put(ctx, "small/obj", payload(smallSize)); err != nil {
		b.Fatal(err)
	}
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.get(ctx, "small/obj", ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		tr := &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}
		defer tr.CloseIdleConnections()
		cl := s3.New(s3.Options{
			BaseEndpoint: aws.String(gw.URL),
			Region:       "us-east-1",
			UsePathStyle: true,
			Credentials:  awscreds.NewStaticCredentialsProvider(testAccess, testSecret, ""),
			HTTPClient:   &http.Client{Transport: tr},
		})
		b.ReportAllocs()
		for b.Loop() {
			out, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("overhead"), Key: aws.String("small/obj")})
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, out.Body)
			out.Body.Close()
		}
	})
}

// BenchmarkGatewayListPage lists a 1,000-key page of a 10,000-key bucket
// of an in-process gateway, as list-page does; run it with -cpuprofile to
// see where a LIST's time goes (client and server share the profile; the
// server's part is under api.(*Server).ServeHTTP).
func BenchmarkGatewayListPage(b *testing.B) {
	gw := startGateway(b, nil)
	ep := Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3}
	o := Options{Objects: 10000, Concurrency: 8}.Defaults()
	c, err := newClient(ep, Credentials{AccessKey: testAccess, SecretKey: testSecret, Region: "us-east-1"}, true, "listpage", 8)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	ctx := context.Background()
	if err := c.createBucket(ctx); err != nil {
		b.Fatal(err)
	}
	r := &run{target: &target{c: c, opts: &o}}
	if err := populate(ctx, r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p, _, err := c.timedList(ctx, "many/", manyKey(4000), "", listPageKeys)
		if err != nil || len(p.Keys) != listPageKeys {
			b.Fatalf("%d keys, %v", len(p.Keys), err)
		}
	}
}

// BenchmarkGatewayPutLarge uploads a 32 MiB object to an in-process
// gateway (fsync off) in one stream; with -cpuprofile it shows how a large
// PUT's time splits between reading the body, hashing and writing.
func BenchmarkGatewayPutLarge(b *testing.B) {
	gw := startGateway(b, nil)
	ep := Endpoint{Name: "gw", URL: gw.URL, Mode: ModeS3}
	c, err := newClient(ep, Credentials{AccessKey: testAccess, SecretKey: testSecret, Region: "us-east-1"}, true, "putlarge", 2)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	ctx := context.Background()
	if err := c.createBucket(ctx); err != nil {
		b.Fatal(err)
	}
	data := payload(32 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := c.put(ctx, "large/obj", data); err != nil {
			b.Fatal(err)
		}
	}
}
