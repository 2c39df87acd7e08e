package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/powercut"
	"github.com/objectgateway/objectgateway/storage"
)

// The fault-injection matrix: the gateway binary on a power-cut mount,
// and for each cell (an operation, a kind of filesystem call, an errno)
// one call of that kind on a path the operation touches fails. The
// operation must answer the S3 error the errno maps to (EIO 500
// InternalError, ENOSPC and EDQUOT 507 InsufficientStorage), the key must
// still read as its previous version, staging must be empty after the
// answer, and the gateway must go on serving writes.

// faultOp is one operation of the matrix on a prepared cell.
type faultOp struct {
	name string
	// bucket is "fault-plain" (unversioned) or "fault-versioned" (versioning Enabled).
	bucket string
	// prepare makes what the operation needs beyond the key's previous
	// version, which every cell has.
	prepare func(c *faultCell) error
	// run is the operation; a DeleteObjects answer's per-key error is
	// returned as its error.
	run func(c *faultCell) error
	// after, if set, checks what the operation must leave besides the
	// previous version (for example that a failed completion can be
	// retried).
	after func(c *faultCell) error
}

// faultCell is the state of one cell: its keys and the gateway client.
type faultCell struct {
	ctx      context.Context
	client   *s3.Client
	bucket   string
	key      string // the key the operation writes or deletes
	src      string // a second key, the source of a copy
	uploadID string
	parts    []s3types.CompletedPart
	prior    []byte // the previous version's bytes
}

func (c *faultCell) put(key string, body []byte) error {
	_, err := c.client.PutObject(c.ctx, &s3.PutObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key), Body: bytes.NewReader(body)})
	return err
}

func (c *faultCell) read(key string) ([]byte, error) {
	out, err := c.client.GetObject(c.ctx, &s3.GetObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, err
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}

func (c *faultCell) createUpload() error {
	up, err := c.client.CreateMultipartUpload(c.ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(c.bucket), Key: aws.String(c.key)})
	if err == nil {
		c.uploadID = aws.ToString(up.UploadId)
	}
	return err
}

func (c *faultCell) uploadPart() error {
	out, err := c.client.UploadPart(c.ctx, &s3.UploadPartInput{Bucket: aws.String(c.bucket), Key: aws.String(c.key),
		UploadId: aws.String(c.uploadID), PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("the only part, which may be small"))})
	if err == nil {
		c.parts = []s3types.CompletedPart{{ETag: out.ETag, PartNumber: aws.Int32(1)}}
	}
	return err
}

func (c *faultCell) complete() error {
	_, err := c.client.CompleteMultipartUpload(c.ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(c.bucket), Key: aws.String(c.key),
		UploadId: aws.String(c.uploadID), MultipartUpload: &s3types.CompletedMultipartUpload{Parts: c.parts}})
	return err
}

func (c *faultCell) deleteObjects() error {
	out, err := c.client.DeleteObjects(c.ctx, &s3.DeleteObjectsInput{Bucket: aws.String(c.bucket),
		Delete: &s3types.Delete{Objects: []s3types.ObjectIdentifier{{Key: aws.String(c.key)}}}})
	if err != nil {
		return err
	}
	if len(out.Errors) > 0 {
		return &smithy.GenericAPIError{Code: aws.ToString(out.Errors[0].Code), Message: aws.ToString(out.Errors[0].Message)}
	}
	return nil
}

var faultOps = map[string]faultOp{
	"PutObject": {name: "PutObject", bucket: "fault-plain",
		run: func(c *faultCell) error { return c.put(c.key, []byte("the new version")) }},
	"PutObject in a new directory": {name: "PutObject in a new directory", bucket: "fault-plain",
		run: func(c *faultCell) error { return c.put(c.src, []byte("a key in a new directory")) },
		after: func(c *faultCell) error {
			if _, err := c.read(c.src); !isCode(err, "NoSuchKey") {
				return fmt.Errorf("the failed new key reads: %v", err)
			}
			return nil
		}},
	"UploadPart": {name: "UploadPart", bucket: "fault-plain",
		prepare: func(c *faultCell) error { return c.createUpload() },
		run:     func(c *faultCell) error { return c.uploadPart() },
		after: func(c *faultCell) error {
			// The upload survives a failed part: the part is sent again.
			if err := c.uploadPart(); err != nil {
				return fmt.Errorf("UploadPart again: %v", err)
			}
			return nil
		}},
	"CompleteMultipartUpload": {name: "CompleteMultipartUpload", bucket: "fault-plain",
		prepare: func(c *faultCell) error {
			if err := c.createUpload(); err != nil {
				return err
			}
			return c.uploadPart()
		},
		run: func(c *faultCell) error { return c.complete() }},
	"CopyObject": {name: "CopyObject", bucket: "fault-plain",
		prepare: func(c *faultCell) error { return c.put(c.src, []byte("the copy source")) },
		run: func(c *faultCell) error {
			_, err := c.client.CopyObject(c.ctx, &s3.CopyObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(c.key),
				CopySource: aws.String(c.bucket + "/" + c.src)})
			return err
		}},
	"DeleteObject": {name: "DeleteObject", bucket: "fault-plain",
		run: func(c *faultCell) error {
			_, err := c.client.DeleteObject(c.ctx, &s3.DeleteObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(c.key)})
			return err
		}},
	"DeleteObjects": {name: "DeleteObjects", bucket: "fault-plain",
		run: func(c *faultCell) error { return c.deleteObjects() }},
	"versioned PutObject": {name: "versioned PutObject", bucket: "fault-versioned",
		run: func(c *faultCell) error { return c.put(c.key, []byte("the new version")) }},
	"versioned DeleteObject": {name: "versioned DeleteObject", bucket: "fault-versioned",
		run: func(c *faultCell) error {
			_, err := c.client.DeleteObject(c.ctx, &s3.DeleteObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(c.key)})
			return err
		}},
}

func isCode(err error, code string) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == code
}

// faultWant is the S3 code and HTTP status an errno answers.
func faultWant(errno syscall.Errno) (string, int) {
	if errno == syscall.ENOSPC || errno == syscall.EDQUOT {
		return "InsufficientStorage", http.StatusInsufficientStorage
	}
	return "InternalError", http.StatusInternalServerError
}

var allErrnos = []syscall.Errno{syscall.EIO, syscall.ENOSPC, syscall.EDQUOT}

// faultRow is one row of the matrix: an operation, a kind of call on a
// path, and the errnos it is run with. In path, {key} is the path of the
// cell's key and {dir} that of its directory, relative to the mount.
type faultRow struct {
	op     string
	kind   string
	path   string
	errnos []syscall.Errno
	// nth is which matching call fails (0 is the first).
	nth int
	// times is how many matching calls in a row fail (0 is one).
	times int
	// deleted allows the key to read as deleted after the failure: the
	// unlink happened and only the fsync that makes it durable failed, so
	// the answer (a 5xx, whose outcome S3 clients treat as unknown) cannot
	// undo it; a DELETE sent again must succeed.
	deleted bool
	// restart is set for a failure after which the index answers every
	// call with an error until the gateway is restarted (a commit bbolt
	// reports as failed after its meta page was written): writes must
	// fail until the restart, and the checks run after it.
	restart bool
}

var faultMatrix = []faultRow{
	{op: "PutObject", kind: "write", path: "/staging/", errnos: allErrnos},
	{op: "PutObject", kind: "fsync", path: "/staging/", errnos: allErrnos},
	{op: "PutObject", kind: "fsync", path: "{dir}", errnos: allErrnos}, // the directory fsync that makes the rename durable
	{op: "PutObject", kind: "open", path: "/staging/", errnos: []syscall.Errno{syscall.EIO, syscall.ENOSPC}},
	{op: "PutObject", kind: "rename", path: "/staging/", errnos: []syscall.Errno{syscall.EIO, syscall.EDQUOT}},
	{op: "PutObject", kind: "link", path: "/staging/", errnos: []syscall.Errno{syscall.EIO, syscall.ENOSPC}}, // the backup of the previous version
	{op: "PutObject in a new directory", kind: "mkdir", path: "{dir}/new", errnos: []syscall.Errno{syscall.EIO, syscall.ENOSPC, syscall.EDQUOT}},
	{op: "UploadPart", kind: "write", path: "/staging/", errnos: allErrnos},
	{op: "UploadPart", kind: "fsync", path: "/staging/", errnos: allErrnos},
	{op: "UploadPart", kind: "fsync", path: "/.objectgateway/multipart/", errnos: []syscall.Errno{syscall.EIO}},
	{op: "UploadPart", kind: "open", path: "/staging/", errnos: []syscall.Errno{syscall.EIO}},
	{op: "UploadPart", kind: "rename", path: "/.objectgateway/multipart/", errnos: []syscall.Errno{syscall.ENOSPC}},
	{op: "CompleteMultipartUpload", kind: "write", path: "/staging/", errnos: allErrnos},
	{op: "CompleteMultipartUpload", kind: "fsync", path: "/staging/", errnos: allErrnos},
	{op: "CompleteMultipartUpload", kind: "open", path: "/staging/", errnos: []syscall.Errno{syscall.EIO}},
	{op: "CompleteMultipartUpload", kind: "rename", path: "/staging/", errnos: []syscall.Errno{syscall.EDQUOT}},
	// The first write of a copy is copy_file_range; an EIO from it makes
	// os.File.ReadFrom copy in user space instead (some filesystems answer
	// EIO for a copy they cannot make), so EIO fails that write too.
	{op: "CopyObject", kind: "write", path: "/staging/", errnos: []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT}},
	{op: "CopyObject", kind: "write", path: "/staging/", errnos: []syscall.Errno{syscall.EIO}, times: 2},
	{op: "CopyObject", kind: "fsync", path: "/staging/", errnos: allErrnos},
	{op: "CopyObject", kind: "open", path: "/staging/", errnos: []syscall.Errno{syscall.ENOSPC}},
	{op: "CopyObject", kind: "rename", path: "/staging/", errnos: []syscall.Errno{syscall.EIO}},
	{op: "DeleteObject", kind: "unlink", path: "{key}", errnos: []syscall.Errno{syscall.EIO}},
	{op: "DeleteObject", kind: "fsync", path: "{dir}", errnos: []syscall.Errno{syscall.EIO}, deleted: true},
	{op: "DeleteObjects", kind: "unlink", path: "{key}", errnos: []syscall.Errno{syscall.EIO}},
	{op: "versioned PutObject", kind: "write", path: "/staging/", errnos: allErrnos},
	{op: "versioned PutObject", kind: "fsync", path: "/staging/", errnos: allErrnos},
	{op: "versioned PutObject", kind: "fsync", path: "/.objectgateway/versions", errnos: []syscall.Errno{syscall.EIO}},
	{op: "versioned PutObject", kind: "rename", path: "/staging/", errnos: []syscall.Errno{syscall.ENOSPC}},
	{op: "versioned PutObject", kind: "link", path: "/.objectgateway/versions/", errnos: []syscall.Errno{syscall.EIO}},
	{op: "versioned DeleteObject", kind: "rename", path: "/.objectgateway/versions/", errnos: []syscall.Errno{syscall.EIO}},
	{op: "versioned DeleteObject", kind: "fsync", path: "/.objectgateway/versions", errnos: []syscall.Errno{syscall.EDQUOT}},
	// The index commit: bbolt fdatasyncs its data pages, then its meta
	// page.
	{op: "PutObject", kind: "fsync", path: "/index.db", errnos: allErrnos},
	{op: "CompleteMultipartUpload", kind: "fsync", path: "/index.db", errnos: []syscall.Errno{syscall.ENOSPC}},
	// A delete removes the file before the record (a crash in between
	// leaves a record whose file is missing, which the next read drops),
	// so a failed commit of the removal leaves the key deleted.
	{op: "DeleteObject", kind: "fsync", path: "/index.db", errnos: []syscall.Errno{syscall.EIO}, deleted: true},
	{op: "versioned PutObject", kind: "fsync", path: "/index.db", errnos: []syscall.Errno{syscall.EDQUOT}},
	{op: "PutObject", kind: "fsync", path: "/index.db", errnos: []syscall.Errno{syscall.EIO}, nth: 2, restart: true},
}

// TestFaultMatrix runs every cell of faultMatrix on one gateway.
func TestFaultMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a real gateway process")
	}
	m := mountPowerCut(t)
	root := filepath.Join(m.path, "root")
	h := newCrashHarness(t, buildGateway(t), root)
	defer h.stop(syscall.SIGKILL)
	h.start()
	ctx := context.Background()
	for _, b := range []string{"fault-plain", "fault-versioned"} {
		if _, err := h.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.client.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("fault-versioned"),
		VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range faultMatrix {
		op, ok := faultOps[row.op]
		if !ok {
			t.Fatalf("no operation %q", row.op)
		}
		for _, errno := range row.errnos {
			n++
			kind := row.kind
			if row.nth > 1 {
				kind = fmt.Sprintf("%s#%d", row.kind, row.nth)
			}
			name := fmt.Sprintf("%s/%s %s/%s", row.op, kind, row.path, errnoName(errno))
			t.Run(name, func(t *testing.T) {
				c := &faultCell{ctx: ctx, client: h.client, bucket: op.bucket,
					key: fmt.Sprintf("c%03d/key", n), src: fmt.Sprintf("c%03d/new/src", n),
					prior: []byte(fmt.Sprintf("the previous version of cell %d", n))}
				if row.op == "CopyObject" {
					c.src = fmt.Sprintf("c%03d/src", n)
				}
				if err := c.put(c.key, c.prior); err != nil {
					t.Fatal(err)
				}
				if op.prepare != nil {
					if err := op.prepare(c); err != nil {
						t.Fatal(err)
					}
				}
				dir := "/root/" + c.bucket + "/" + strings.Split(c.key, "/")[0]
				p := strings.NewReplacer("{key}", "/root/"+c.bucket+"/"+c.key, "{dir}", dir).Replace(row.path)
				for range max(row.times, 1) {
					m.Fail(powercut.Rule{Op: powercut.Op(row.kind), Nth: max(row.nth, 1), Errno: errno, Path: p})
				}
				err := op.run(c)
				if left := m.Pending(); left != 0 {
					m.Clear()
					t.Fatalf("%s made no %s call on a path with %q", row.op, row.kind, p)
				}
				checkFaultAnswer(t, err, errno)
				if row.restart {
					// metadata.ErrFailed wraps the commit's error, so the
					// refusal answers as that error does.
					err := c.put(fmt.Sprintf("c%03d/refused", n), []byte("a write the stopped index refuses"))
					checkFaultAnswer(t, err, errno)
					_, err = c.read(c.key)
					checkFaultAnswer(t, err, errno)
					h.stop(syscall.SIGTERM)
					h.start()
					c.client = h.client
				}
				got, err := c.read(c.key)
				switch {
				case row.deleted && isCode(err, "NoSuchKey"):
					if _, err := c.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(c.key)}); err != nil {
						t.Errorf("the DELETE sent again: %v", err)
					}
				case err != nil || !bytes.Equal(got, c.prior):
					t.Errorf("after the failure %s reads %q (%v), want the previous version %q", c.key, got, err, c.prior)
				}
				checkStagingEmpty(t, root)
				if op.after != nil {
					if err := op.after(c); err != nil {
						t.Error(err)
					}
				}
				if err := c.put(fmt.Sprintf("c%03d/probe", n), []byte("the gateway goes on serving")); err != nil {
					t.Errorf("a PUT after the failure: %v", err)
				}
			})
		}
	}
	// What every failure left behind, once the gateway has stopped, is
	// consistent: fsck finds nothing.
	h.stop(syscall.SIGTERM)
	l, err := object.OpenExclusive(object.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rep, err := l.Fsck(object.FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("fsck after the matrix: %v", p)
	}
	t.Logf("fault matrix: %d cells", n)
}

// checkFaultAnswer fails unless err is the S3 error errno maps to.
func checkFaultAnswer(t *testing.T, err error, errno syscall.Errno) {
	t.Helper()
	code, status := faultWant(errno)
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("the operation answered %v, want %s", err, code)
	}
	if ae.ErrorCode() != code {
		t.Errorf("the operation answered %s (%v), want %s", ae.ErrorCode(), err, code)
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() != status {
		t.Errorf("the operation answered status %d, want %d", re.HTTPStatusCode(), status)
	}
}

// checkStagingEmpty fails unless the state directory's staging holds
// nothing.
func checkStagingEmpty(t *testing.T, root string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, storage.StateDir, "staging"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("staging holds %s after the answer", e.Name())
	}
}

func errnoName(errno syscall.Errno) string {
	switch errno {
	case syscall.EIO:
		return "EIO"
	case syscall.ENOSPC:
		return "ENOSPC"
	case syscall.EDQUOT:
		return "EDQUOT"
	}
	return errno.Error()
}
