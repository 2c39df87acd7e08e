package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"
)

func TestConformanceAuthErrorsSDK(t *testing.T) {
	g := startGateway(t)
	setup := g.sdk(sdkModes[0])
	bucket := makeBucket(t, setup, "auth")
	putBytes(t, setup, bucket, "k", []byte("v"))
	for _, m := range sdkModes {
		t.Run(m.name, func(t *testing.T) {
			ctx := t.Context()
			wrong := g.sdkWith(m, g.AccessKey, "wrong-secret")
			_, err := wrong.ListBuckets(ctx, &s3.ListBucketsInput{})
			wantCode(t, "ListBuckets(wrong secret)", err, 403, "SignatureDoesNotMatch")
			_, err = wrong.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("w"), Body: strings.NewReader("body")})
			wantCode(t, "PutObject(wrong secret)", err, 403, "SignatureDoesNotMatch")
			_, err = wrong.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
			wantCode(t, "GetObject(wrong secret)", err, 403, "SignatureDoesNotMatch")

			unknown := g.sdkWith(m, "AKIDUNKNOWN", g.SecretKey)
			_, err = unknown.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
			wantCode(t, "ListObjectsV2(unknown access key)", err, 403, "InvalidAccessKeyId")
		})
	}

	t.Run("minio", func(t *testing.T) {
		wrong := g.minio(false, func(o *minio.Options) { o.Creds = miniocreds.NewStaticV4(g.AccessKey, "wrong-secret", "") })
		_, err := wrong.ListBuckets(t.Context())
		wantMinioCode(t, "ListBuckets(wrong secret)", err, 403, "SignatureDoesNotMatch")
		// A streaming-signed PUT: the seed signature is already wrong.
		_, err = wrong.PutObject(t.Context(), bucket, "w", strings.NewReader("body"), 4, minio.PutObjectOptions{})
		wantMinioCode(t, "PutObject(wrong secret)", err, 403, "SignatureDoesNotMatch")
		unknown := g.minio(false, func(o *minio.Options) { o.Creds = miniocreds.NewStaticV4("AKIDUNKNOWN", g.SecretKey, "") })
		_, err = unknown.ListBuckets(t.Context())
		wantMinioCode(t, "ListBuckets(unknown key)", err, 403, "InvalidAccessKeyId")
	})

	t.Run("anonymous", func(t *testing.T) {
		for _, path := range []string{"/", "/" + bucket, "/" + bucket + "/k", "/" + bucket + "?list-type=2"} {
			resp, err := http.Get(g.Endpoint + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			wantXMLError(t, "anonymous GET "+path, resp, b, 403, "AccessDenied")
		}
		req := g.rawRequest(http.MethodPut, "/"+bucket+"/anon", "", []byte("x"))
		resp, b := g.do(req, []byte("x"), false)
		wantXMLError(t, "anonymous PUT", resp, b, 403, "AccessDenied")
		_, err := setup.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("anon")})
		wantCode(t, "HeadObject after anonymous PUT", err, 404, "NotFound")
	})
}

// TestConformanceClockSkew runs a gateway whose clock is 20 minutes ahead:
// S3 refuses header-signed requests more than 15 minutes off.
func TestConformanceClockSkew(t *testing.T) {
	for _, skew := range []time.Duration{20 * time.Minute, -20 * time.Minute} {
		g := startGateway(t, withNow(func() time.Time { return time.Now().Add(skew) }))
		for _, m := range sdkModes {
			t.Run(m.name+"/"+skew.String(), func(t *testing.T) {
				// A fresh client: the SDK corrects its clock after a skew
				// error, which would hide the next one.
				c := g.sdk(m)
				_, err := c.ListBuckets(t.Context(), &s3.ListBucketsInput{})
				wantCode(t, "ListBuckets", err, 403, "RequestTimeTooSkewed")
				_, err = g.sdk(m).PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("skew"), Key: aws.String("k"), Body: strings.NewReader("x")})
				wantCode(t, "PutObject", err, 403, "RequestTimeTooSkewed")
			})
		}
		t.Run("minio/"+skew.String(), func(t *testing.T) {
			_, err := g.minio(false).ListBuckets(t.Context())
			wantMinioCode(t, "ListBuckets", err, 403, "RequestTimeTooSkewed")
		})
	}
	// 10 minutes off is within S3's window.
	g := startGateway(t, withNow(func() time.Time { return time.Now().Add(10 * time.Minute) }))
	if _, err := g.sdk(sdkModes[0]).ListBuckets(t.Context(), &s3.ListBucketsInput{}); err != nil {
		t.Errorf("ListBuckets with a 10-minute skew: %v", err)
	}
}

// presignedDo sends a presigned request through plain net/http.
func presignedDo(t *testing.T, g *gateway, p *v4.PresignedHTTPRequest, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(p.Method, p.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range p.SignedHeader {
		if strings.EqualFold(k, "Host") {
			continue
		}
		req.Header[k] = vs
	}
	resp, err := g.httpClient().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", p.Method, p.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func TestConformancePresigned(t *testing.T) {
	g := startGateway(t)
	keys := []string{"presigned/plain.txt", "presigned/a b ü+x=y&z.txt", "presigned/日本語 キー", "presigned/%25 pct"}
	for _, m := range sdkModes {
		t.Run(m.name, func(t *testing.T) {
			c := g.sdk(m)
			ps := s3.NewPresignClient(c)
			ctx := t.Context()
			bucket := makeBucket(t, c, "presign")
			for i, key := range keys {
				body := payload(2048+i, uint64(i))
				put, err := ps.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)},
					s3.WithPresignExpires(15*time.Minute))
				if err != nil {
					t.Fatalf("PresignPutObject(%q): %v", key, err)
				}
				resp, b := presignedDo(t, g, put, body)
				if resp.StatusCode != http.StatusOK {
					t.Errorf("presigned PUT %q: %d %s", key, resp.StatusCode, b)
					continue
				}
				if et := resp.Header.Get("ETag"); et != etagOf(body) {
					t.Errorf("presigned PUT %q: ETag %s, want %s", key, et, etagOf(body))
				}
				get, err := ps.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)},
					s3.WithPresignExpires(15*time.Minute))
				if err != nil {
					t.Fatalf("PresignGetObject(%q): %v", key, err)
				}
				resp, b = presignedDo(t, g, get, nil)
				if resp.StatusCode != http.StatusOK || !bytes.Equal(b, body) {
					t.Errorf("presigned GET %q: %d, %d bytes (want %d)", key, resp.StatusCode, len(b), len(body))
				}
				if got := getBytes(t, c, bucket, key); !bytes.Equal(got, body) {
					t.Errorf("GetObject(%q) after presigned PUT: bytes differ", key)
				}
			}

			// Tampering with a presigned URL breaks its signature.
			get, err := ps.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(keys[1])})
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(get.URL)
			if err != nil {
				t.Fatal(err)
			}
			tamper := func(what string, f func(u *url.URL)) {
				t.Helper()
				v := *u
				f(&v)
				p := *get
				p.URL = v.String()
				resp, b := presignedDo(t, g, &p, nil)
				wantXMLError(t, "presigned GET with "+what, resp, b, 403, "SignatureDoesNotMatch")
			}
			tamper("another key", func(u *url.URL) {
				u.Path = "/" + bucket + "/" + keys[0]
				u.RawPath = ""
			})
			tamper("an added query parameter", func(u *url.URL) { u.RawQuery += "&response-content-type=text%2Fhtml" })
			tamper("a changed X-Amz-Expires", func(u *url.URL) {
				q := u.Query()
				q.Set("X-Amz-Expires", "604800")
				u.RawQuery = q.Encode()
			})
			tamper("a changed signature", func(u *url.URL) {
				q := u.Query()
				sig := []byte(q.Get("X-Amz-Signature"))
				sig[0] ^= 1
				q.Set("X-Amz-Signature", string(sig))
				u.RawQuery = q.Encode()
			})
			// A presigned PUT URL cannot be used for a GET.
			put, err := ps.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(keys[0])})
			if err != nil {
				t.Fatal(err)
			}
			p := *put
			p.Method = http.MethodGet
			resp, b := presignedDo(t, g, &p, nil)
			wantXMLError(t, "presigned PUT URL used for GET", resp, b, 403, "SignatureDoesNotMatch")
		})
	}

	t.Run("minio", func(t *testing.T) {
		c := g.minio(false)
		ctx := t.Context()
		bucket := uniqueBucket("mpresign")
		if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
			t.Fatal(err)
		}
		for i, key := range keys {
			body := payload(100+i, uint64(i))
			pu, err := c.PresignedPutObject(ctx, bucket, key, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			resp, b := presignedDo(t, g, &v4.PresignedHTTPRequest{URL: pu.String(), Method: http.MethodPut}, body)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("minio presigned PUT %q: %d %s", key, resp.StatusCode, b)
			}
			gu, err := c.PresignedGetObject(ctx, bucket, key, time.Hour, url.Values{"response-content-type": {"text/x-presigned"}})
			if err != nil {
				t.Fatal(err)
			}
			resp, b = presignedDo(t, g, &v4.PresignedHTTPRequest{URL: gu.String(), Method: http.MethodGet}, nil)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(b, body) || resp.Header.Get("Content-Type") != "text/x-presigned" {
				t.Errorf("minio presigned GET %q: %d, %d bytes, Content-Type %q", key, resp.StatusCode, len(b), resp.Header.Get("Content-Type"))
			}
		}
	})
}

// TestConformancePresignedExpired uses URLs signed now on a gateway whose
// clock is two hours ahead: a one-hour URL has expired.
func TestConformancePresignedExpired(t *testing.T) {
	g := startGateway(t, withNow(func() time.Time { return time.Now().Add(2 * time.Hour) }))
	c := g.sdk(sdkModes[0])
	ps := s3.NewPresignClient(c)
	for _, op := range []string{"GET", "PUT"} {
		var p *v4.PresignedHTTPRequest
		var err error
		if op == "GET" {
			p, err = ps.PresignGetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String("expired"), Key: aws.String("k")}, s3.WithPresignExpires(time.Hour))
		} else {
			p, err = ps.PresignPutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("expired"), Key: aws.String("k")}, s3.WithPresignExpires(time.Hour))
		}
		if err != nil {
			t.Fatal(err)
		}
		resp, b := presignedDo(t, g, p, []byte("x"))
		wantXMLError(t, "expired presigned "+op, resp, b, 403, "AccessDenied")
	}
	mu, err := g.minio(false).PresignedGetObject(t.Context(), "expired", "k", time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, b := presignedDo(t, g, &v4.PresignedHTTPRequest{URL: mu.String(), Method: http.MethodGet}, nil)
	wantXMLError(t, "expired minio presigned GET", resp, b, 403, "AccessDenied")
}
