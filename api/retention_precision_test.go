package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
)

// TestRetentionWrittenBackAsShown checks that a client may send a
// version's retention back as GetObjectRetention shows it, at S3's
// millisecond precision: the same date in the same mode is no shortening,
// even under COMPLIANCE, whether the date came from the bucket's default
// retention (the version's creation time plus the period, on a clock with
// nanoseconds) or from an upload's header written with nanoseconds.
func TestRetentionWrittenBackAsShown(t *testing.T) {
	// The layer's clock stands still at an instant with a fraction of a
	// millisecond, which a default retention inherits.
	created := time.Now().UTC().Truncate(time.Millisecond).Add(456789 * time.Nanosecond)
	g := startGatewayLayer(t, func(o *object.Options) { o.Now = func() time.Time { return created } })
	clearImmutable(t, g.Root)
	c := lockSDK(g)
	ctx := t.Context()
	bucket := makeLockBucket(t, g, c, "lockms")
	st, err := g.layer.BucketState(bucket)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.layer.SetObjectLock(bucket, st.ID, objectlock.Default{Mode: objectlock.Compliance, Days: 1}); err != nil {
		t.Fatal(err)
	}
	putBytes(t, c, bucket, "default", []byte("under the default retention"))
	until := created.Add(2 * time.Hour).Truncate(time.Second).Add(123456789 * time.Nanosecond)
	// SDKs send milliseconds; a raw request may send nanoseconds, which
	// RFC 3339 allows.
	body := []byte("x")
	req := g.rawRequest(http.MethodPut, "/"+bucket+"/header", "", body)
	req.Header.Set("X-Amz-Checksum-Crc32", "jNwWgw==") // CRC32 of "x"
	req.Header.Set("X-Amz-Object-Lock-Mode", "COMPLIANCE")
	req.Header.Set("X-Amz-Object-Lock-Retain-Until-Date", until.Format(time.RFC3339Nano))
	if resp, b := g.do(req, body, true); resp.StatusCode != 200 {
		t.Fatalf("PutObject with COMPLIANCE retention to %s: %d %s", until.Format(time.RFC3339Nano), resp.StatusCode, b)
	}
	for _, key := range []string{"default", "header"} {
		ret, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("GetObjectRetention(%s): %v", key, err)
		}
		_, err = c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Retention: &types.ObjectLockRetention{Mode: ret.Retention.Mode, RetainUntilDate: ret.Retention.RetainUntilDate}})
		if err != nil {
			t.Errorf("PutObjectRetention(%s) with the retention GetObjectRetention shows (%s %v): %v",
				key, ret.Retention.Mode, aws.ToTime(ret.Retention.RetainUntilDate), err)
		}
		_, err = c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Retention: &types.ObjectLockRetention{Mode: ret.Retention.Mode, RetainUntilDate: aws.Time(aws.ToTime(ret.Retention.RetainUntilDate).Add(-time.Millisecond))}})
		wantCode(t, "PutObjectRetention one millisecond shorter than shown, key "+key, err, 403, "AccessDenied")
	}
}
