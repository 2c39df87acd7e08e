package api_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// This file tests that a write authorized against a bucket never lands in
// another bucket that took the same name while the write's body was still
// arriving: alice opens the request into her bucket, deletes the bucket,
// bob creates one of the same name, and only then does alice's body end.

// heldBody is a request body that the test sends in two halves: prefix at
// once, the rest when released. held is closed when the gateway asks for
// more than the prefix, so it has taken its authorization decision and
// is streaming the body.
type heldBody struct {
	prefix int64
	read   atomic.Int64
	once   sync.Once
	held   chan struct{}
	io.ReadCloser
}

func (b *heldBody) Read(p []byte) (int, error) {
	if b.read.Load() >= b.prefix {
		b.once.Do(func() { close(b.held) })
	}
	n, err := b.ReadCloser.Read(p)
	b.read.Add(int64(n))
	return n, err
}

// holdBody makes the gateway's handler watch the body of the next request
// to path: it is wrapped in a heldBody of the given prefix, sent on the
// returned channel. The handler is restored at the test's cleanup.
func holdBody(t *testing.T, g *gateway, path string, prefix int64) <-chan *heldBody {
	bodies := make(chan *heldBody, 1)
	inner := *g.handler.Load()
	t.Cleanup(func() { g.handler.Store(&inner) })
	var taken atomic.Bool
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path && !taken.Swap(true) {
			hb := &heldBody{prefix: prefix, held: make(chan struct{}), ReadCloser: r.Body}
			r.Body = hb
			bodies <- hb
		}
		inner.ServeHTTP(w, r)
	})
	g.handler.Store(&h)
	return bodies
}

// sendHeld sends req with body, holding everything after the first prefix
// bytes until release is closed. It returns the response.
func sendHeld(t *testing.T, g *gateway, req *http.Request, body []byte, prefix int, release <-chan struct{}) <-chan *http.Response {
	pr, pw := io.Pipe()
	req.Body = pr
	req.ContentLength = int64(len(body))
	go func() {
		pw.Write(body[:prefix])
		<-release
		pw.Write(body[prefix:])
		pw.Close()
	}()
	// net/http buffers what it writes of a request; a one-byte buffer
	// makes every write of the pipe's reach the gateway at once.
	client := &http.Client{Transport: &http.Transport{WriteBufferSize: 1, DisableKeepAlives: true}}
	out := make(chan *http.Response, 1)
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", req.Method, req.URL.Path, err)
			close(out)
			return
		}
		out <- resp
	}()
	return out
}

// aliceUpload is a multipart upload of "victim" by alice with part 1
// uploaded.
type aliceUpload struct{ id, etag string }

func createUpload(t *testing.T, g *usersGateway, bucket string) aliceUpload {
	t.Helper()
	ctx := t.Context()
	c := g.sdkWith(sdkModes[2], g.aliceKey, g.aliceSecret)
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("victim")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("victim"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("alice's part one")})
	if err != nil {
		t.Fatal(err)
	}
	return aliceUpload{aws.ToString(up.UploadId), aws.ToString(part.ETag)}
}

// signUnsigned signs req as accessKey with an unsigned payload.
func signUnsigned(t *testing.T, g *gateway, req *http.Request, accessKey, secret string) {
	t.Helper()
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	creds := aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secret}
	// A signer of its own: the shared one caches signing keys by access
	// key, and every test's alice has the same key with another secret.
	fresh := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	if err := fresh.SignHTTP(context.Background(), creds, req, "UNSIGNED-PAYLOAD", "s3", g.Region, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func TestWriteNeverLandsInARecreatedBucketHTTP(t *testing.T) {
	type write struct {
		method, key, query, contentType string
		// contentMD5 is sent as Content-MD5 when set.
		contentMD5 string
		body       []byte
		prefix     int
		// signed is false for a browser POST, which carries its own
		// signature in the form.
		signed bool
	}
	g := startUsersGateway(t)
	ctx := t.Context()
	post := func(bucket string) write {
		now := time.Now()
		p := postPolicy{expiration: now.Add(time.Hour), conditions: []any{
			map[string]string{"bucket": bucket},
			[]any{"starts-with", "$key", ""},
		}}
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for _, f := range append([]postField{{"key", "victim"}}, g.signPost(p, g.aliceKey, g.aliceSecret, now)...) {
			mw.WriteField(f.name, f.value)
		}
		fw, _ := mw.CreateFormFile("file", "f.txt")
		fw.Write(bytes.Repeat([]byte("a"), 256<<10))
		mw.Close()
		// The prefix holds the fields and 128 KiB of the file: far more
		// than the form reader buffers before the fields are verified.
		return write{method: "POST", contentType: mw.FormDataContentType(), body: buf.Bytes(), prefix: buf.Len() - 128<<10}
	}
	cases := []struct {
		name string
		make func(bucket string) write
		// wantStatus is what alice gets once bob owns the name.
		wantStatus int
		// missing: alice's bucket does not exist when her request is
		// authorized (bob creates the name while her body arrives).
		missing bool
	}{
		{"PutObject", func(string) write {
			return write{method: "PUT", key: "victim", body: []byte("alice's bytes"), prefix: 2, signed: true}
		}, 404, false},
		{"PostObject", post, 404, false},
		{"DeleteObjects", func(string) write {
			doc := []byte(`<Delete><Object><Key>victim</Key></Object><Object><Key>other</Key></Object></Delete>`)
			return write{method: "POST", query: "delete=", body: doc, contentMD5: md5Base64(doc), prefix: 20, signed: true}
		}, 404, false},
		{"UploadPart", func(bucket string) write {
			up := createUpload(t, g, bucket)
			return write{method: "PUT", key: "victim", query: "partNumber=2&uploadId=" + url.QueryEscape(up.id), body: []byte("alice's part"), prefix: 2, signed: true}
		}, 404, false},
		{"CompleteMultipartUpload", func(bucket string) write {
			up := createUpload(t, g, bucket)
			doc := []byte(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>` + up.etag + `</ETag></Part></CompleteMultipartUpload>`)
			return write{method: "POST", key: "victim", query: "uploadId=" + url.QueryEscape(up.id), body: doc, prefix: 20, signed: true}
		}, 404, false},
		{"PutObjectTagging", func(string) write {
			doc := []byte(`<Tagging><TagSet><Tag><Key>owner</Key><Value>alice</Value></Tag></TagSet></Tagging>`)
			return write{method: "PUT", key: "victim", query: "tagging=", body: doc, prefix: 20, signed: true}
		}, 404, false},
		{"PutBucketTagging", func(string) write {
			doc := []byte(`<Tagging><TagSet><Tag><Key>owner</Key><Value>alice</Value></Tag></TagSet></Tagging>`)
			return write{method: "PUT", query: "tagging=", body: doc, prefix: 20, signed: true}
		}, 404, false},
		{"PutObjectTagging into a bucket created meanwhile", func(string) write {
			doc := []byte(`<Tagging><TagSet><Tag><Key>owner</Key><Value>alice</Value></Tag></TagSet></Tagging>`)
			return write{method: "PUT", key: "victim", query: "tagging=", body: doc, prefix: 20, signed: true}
		}, 404, true},
		{"PutObject into a bucket created meanwhile", func(string) write {
			return write{method: "PUT", key: "victim", body: []byte("alice's bytes"), prefix: 2, signed: true}
		}, 404, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bucket := uniqueBucket("shared")
			if !tc.missing {
				if _, err := g.alice.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
					t.Fatal(err)
				}
			}
			w := tc.make(bucket)
			path := "/" + bucket
			if w.key != "" {
				path += "/" + w.key
			}
			bodies := holdBody(t, g.gateway, path, int64(w.prefix))
			req := g.rawRequest(w.method, path, w.query, nil)
			if w.contentType != "" {
				req.Header.Set("Content-Type", w.contentType)
			}
			if w.contentMD5 != "" {
				req.Header.Set("Content-Md5", w.contentMD5)
			}
			if w.signed {
				req.ContentLength = int64(len(w.body))
				signUnsigned(t, g.gateway, req, g.aliceKey, g.aliceSecret)
			}
			release := make(chan struct{})
			respc := sendHeld(t, g.gateway, req, w.body, w.prefix, release)
			hb := <-bodies
			var early *http.Response
			select {
			case <-hb.held:
			case early = <-respc:
				// Refusing a write into a bucket that did not exist when it
				// was authorized without reading its body is right too.
				if early == nil || !tc.missing {
					close(release)
					if early != nil {
						got, _ := io.ReadAll(early.Body)
						t.Fatalf("answered before its body was streamed: %d %.200s", early.StatusCode, got)
					}
					t.FailNow()
				}
			}

			if !tc.missing {
				if _, err := g.alice.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
					t.Fatalf("alice DeleteBucket: %v", err)
				}
			}
			if _, err := g.bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatalf("bob CreateBucket: %v", err)
			}
			if _, err := g.bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("victim"), Body: strings.NewReader("bob's bytes")}); err != nil {
				t.Fatal(err)
			}
			close(release)
			resp := early
			if resp == nil {
				resp = <-respc
			}
			if resp == nil {
				return
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("alice's %s into bob's bucket: %d %.200s, want %d", tc.name, resp.StatusCode, got, tc.wantStatus)
			}

			obj, err := g.bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("victim")})
			if err != nil {
				t.Fatalf("bob's object is gone: %v", err)
			}
			b, _ := io.ReadAll(obj.Body)
			obj.Body.Close()
			if string(b) != "bob's bytes" {
				t.Errorf("bob's object holds %.40q", b)
			}
			tags, err := g.bob.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String("victim")})
			if err != nil || len(tags.TagSet) != 0 {
				t.Errorf("bob's object tags: %v %v", tags, err)
			}
			if bt, err := g.bob.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String(bucket)}); err == nil {
				t.Errorf("bob's bucket has tags %v", bt.TagSet)
			}
			list, err := g.bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
			if err != nil || len(list.Contents) != 1 {
				t.Errorf("bob's bucket lists %d objects (%v)", len(list.Contents), err)
			}
			if _, err := g.bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("victim")}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
