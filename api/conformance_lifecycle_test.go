package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/pkg/lifecycle"
)

// TestConformanceLifecycleConfiguration checks Put, Get and
// DeleteBucketLifecycleConfiguration through the SDK in every checksum
// mode: what is put is what is got, every rule kind and filter form
// included, and a delete leaves NoSuchLifecycleConfiguration.
func TestConformanceLifecycleConfiguration(t *testing.T) {
	g := startGateway(t)
	for _, m := range sdkModes {
		t.Run(m.name, func(t *testing.T) {
			c := g.sdk(m)
			ctx := t.Context()
			b := aws.String(makeBucket(t, c, "lc"))
			_, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
			wantCode(t, "GetBucketLifecycleConfiguration(none)", err, 404, "NoSuchLifecycleConfiguration")
			rules := []types.LifecycleRule{
				{ID: aws.String("logs"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("logs/")},
					Expiration: &types.LifecycleExpiration{Days: aws.Int32(30)}},
				{ID: aws.String("scratch"), Status: types.ExpirationStatusDisabled, Filter: &types.LifecycleRuleFilter{And: &types.LifecycleRuleAndOperator{
					Prefix: aws.String("tmp/"), Tags: []types.Tag{{Key: aws.String("kind"), Value: aws.String("scratch")}},
					ObjectSizeGreaterThan: aws.Int64(10), ObjectSizeLessThan: aws.Int64(1 << 20),
				}}, NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(7), NewerNoncurrentVersions: aws.Int32(2)}},
				{ID: aws.String("tidy"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{},
					Expiration:                     &types.LifecycleExpiration{ExpiredObjectDeleteMarker: aws.Bool(true)},
					AbortIncompleteMultipartUpload: &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(3)}},
				{ID: aws.String("date"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Tag: &types.Tag{Key: aws.String("t"), Value: aws.String("v")}},
					Expiration: &types.LifecycleExpiration{Date: aws.Time(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))}},
			}
			if _, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: b,
				LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: rules}}); err != nil {
				t.Fatalf("PutBucketLifecycleConfiguration: %v", err)
			}
			got, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
			if err != nil {
				t.Fatalf("GetBucketLifecycleConfiguration: %v", err)
			}
			if len(got.Rules) != 4 {
				t.Fatalf("got %d rules", len(got.Rules))
			}
			r0, r1, r2, r3 := got.Rules[0], got.Rules[1], got.Rules[2], got.Rules[3]
			if aws.ToString(r0.ID) != "logs" || r0.Status != types.ExpirationStatusEnabled || aws.ToString(r0.Filter.Prefix) != "logs/" || aws.ToInt32(r0.Expiration.Days) != 30 {
				t.Errorf("rule logs = %+v", r0)
			}
			if a := r1.Filter.And; r1.Status != types.ExpirationStatusDisabled || a == nil || aws.ToString(a.Prefix) != "tmp/" || len(a.Tags) != 1 ||
				aws.ToInt64(a.ObjectSizeGreaterThan) != 10 || aws.ToInt64(a.ObjectSizeLessThan) != 1<<20 ||
				aws.ToInt32(r1.NoncurrentVersionExpiration.NoncurrentDays) != 7 || aws.ToInt32(r1.NoncurrentVersionExpiration.NewerNoncurrentVersions) != 2 {
				t.Errorf("rule scratch = %+v", r1)
			}
			if r2.Expiration == nil || !aws.ToBool(r2.Expiration.ExpiredObjectDeleteMarker) || aws.ToInt32(r2.AbortIncompleteMultipartUpload.DaysAfterInitiation) != 3 {
				t.Errorf("rule tidy = %+v", r2)
			}
			if r3.Filter.Tag == nil || aws.ToString(r3.Filter.Tag.Key) != "t" || !aws.ToTime(r3.Expiration.Date).Equal(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("rule date = %+v", r3)
			}
			if _, err := c.DeleteBucketLifecycle(ctx, &s3.DeleteBucketLifecycleInput{Bucket: b}); err != nil {
				t.Fatalf("DeleteBucketLifecycle: %v", err)
			}
			_, err = c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
			wantCode(t, "GetBucketLifecycleConfiguration(after delete)", err, 404, "NoSuchLifecycleConfiguration")
		})
	}
}

// TestConformanceLifecycleRefusals checks that the configurations S3
// refuses are refused with its codes, through the SDK where it can send
// them and as raw documents where it cannot, and that a refused one
// leaves the stored configuration alone.
func TestConformanceLifecycleRefusals(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeBucket(t, c, "lcref")
	b := aws.String(bucket)
	put := func(rules ...types.LifecycleRule) error {
		_, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: b,
			LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: rules}})
		return err
	}
	all := &types.LifecycleRuleFilter{Prefix: aws.String("")}
	days := func(n int32) *types.LifecycleExpiration { return &types.LifecycleExpiration{Days: aws.Int32(n)} }
	if err := put(types.LifecycleRule{ID: aws.String("keep"), Status: types.ExpirationStatusEnabled, Filter: all, Expiration: days(1)}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "Transition", put(types.LifecycleRule{ID: aws.String("t"), Status: types.ExpirationStatusEnabled, Filter: all,
		Transitions: []types.Transition{{Days: aws.Int32(30), StorageClass: types.TransitionStorageClassGlacier}}}), 400, "InvalidRequest")
	wantCode(t, "NoncurrentVersionTransition", put(types.LifecycleRule{ID: aws.String("t"), Status: types.ExpirationStatusEnabled, Filter: all, Expiration: days(1),
		NoncurrentVersionTransitions: []types.NoncurrentVersionTransition{{NoncurrentDays: aws.Int32(30), StorageClass: types.TransitionStorageClassGlacier}}}), 400, "InvalidRequest")
	wantCode(t, "Days 0", put(types.LifecycleRule{ID: aws.String("z"), Status: types.ExpirationStatusEnabled, Filter: all, Expiration: days(0)}), 400, "InvalidArgument")
	wantCode(t, "duplicate IDs", put(
		types.LifecycleRule{ID: aws.String("d"), Status: types.ExpirationStatusEnabled, Filter: all, Expiration: days(1)},
		types.LifecycleRule{ID: aws.String("d"), Status: types.ExpirationStatusEnabled, Filter: all, Expiration: days(2)}), 400, "InvalidArgument")
	wantCode(t, "no action", put(types.LifecycleRule{ID: aws.String("n"), Status: types.ExpirationStatusEnabled, Filter: all}), 400, "InvalidRequest")
	wantCode(t, "NoncurrentDays 0", put(types.LifecycleRule{ID: aws.String("n"), Status: types.ExpirationStatusEnabled, Filter: all,
		NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(0)}}), 400, "InvalidArgument")
	wantCode(t, "abort with a tag", put(types.LifecycleRule{ID: aws.String("a"), Status: types.ExpirationStatusEnabled,
		Filter:                         &types.LifecycleRuleFilter{Tag: &types.Tag{Key: aws.String("k"), Value: aws.String("v")}},
		AbortIncompleteMultipartUpload: &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(1)}}), 400, "InvalidRequest")
	wantCode(t, "date not at midnight", put(types.LifecycleRule{ID: aws.String("m"), Status: types.ExpirationStatusEnabled, Filter: all,
		Expiration: &types.LifecycleExpiration{Date: aws.Time(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC))}}), 400, "InvalidArgument")

	for name, doc := range map[string]string{
		"no rule":           `<LifecycleConfiguration></LifecycleConfiguration>`,
		"not xml":           `<LifecycleConfiguration><Rule>`,
		"prefix and filter": `<LifecycleConfiguration><Rule><ID>x</ID><Prefix>a</Prefix><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`,
		"days and date":     `<LifecycleConfiguration><Rule><ID>x</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days><Date>2030-01-01T00:00:00Z</Date></Expiration></Rule></LifecycleConfiguration>`,
		"bad status":        `<LifecycleConfiguration><Rule><ID>x</ID><Filter/><Status>enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`,
	} {
		body := []byte(doc)
		resp, out := g.do(g.rawRequest(http.MethodPut, "/"+bucket, "lifecycle", body), body, true)
		if resp.StatusCode != 400 || !strings.Contains(string(out), "<Code>MalformedXML</Code>") {
			t.Errorf("%s: %d %s, want 400 MalformedXML", name, resp.StatusCode, out)
		}
	}
	got, err := c.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: b})
	if err != nil || len(got.Rules) != 1 || aws.ToString(got.Rules[0].ID) != "keep" {
		t.Fatalf("configuration after refusals = %+v, %v", got, err)
	}
	_, err = c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: aws.String("no-such-bucket-lc"),
		LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: []types.LifecycleRule{{ID: aws.String("r"), Status: types.ExpirationStatusEnabled, Filter: all, Expiration: days(1)}}}})
	wantCode(t, "PutBucketLifecycleConfiguration(no such bucket)", err, 404, "NoSuchBucket")
}

// TestConformanceExpirationHeader checks x-amz-expiration on PutObject,
// HeadObject, GetObject and CopyObject answers: the earliest matching
// enabled rule, its expiry the object's creation plus its days rounded
// up to midnight UTC; none for an object no rule matches.
func TestConformanceExpirationHeader(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeBucket(t, c, "lcexp")
	b := aws.String(bucket)
	if _, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: b,
		LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: []types.LifecycleRule{
			{ID: aws.String("slow"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("logs/")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(30)}},
			{ID: aws.String("fast"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("logs/")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(3)}},
			{ID: aws.String("off"), Status: types.ExpirationStatusDisabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("logs/")}, Expiration: &types.LifecycleExpiration{Days: aws.Int32(1)}},
		}}}); err != nil {
		t.Fatal(err)
	}
	out := putBytes(t, c, bucket, "logs/a", []byte("x"))
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("logs/a")})
	if err != nil {
		t.Fatal(err)
	}
	want := `expiry-date="` + lifecycle.Expiry(3, aws.ToTime(head.LastModified), 0).Format(http.TimeFormat) + `", rule-id="fast"`
	if got := aws.ToString(out.Expiration); got != want {
		t.Errorf("PutObject x-amz-expiration = %q, want %q", got, want)
	}
	if got := aws.ToString(head.Expiration); got != want {
		t.Errorf("HeadObject x-amz-expiration = %q, want %q", got, want)
	}
	get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("logs/a")})
	if err != nil {
		t.Fatal(err)
	}
	get.Body.Close()
	if got := aws.ToString(get.Expiration); got != want {
		t.Errorf("GetObject x-amz-expiration = %q, want %q", got, want)
	}
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String("logs/b"), CopySource: aws.String(bucket + "/logs/a")})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(cp.Expiration); !strings.HasSuffix(got, `rule-id="fast"`) || !strings.HasPrefix(got, `expiry-date="`) {
		t.Errorf("CopyObject x-amz-expiration = %q", got)
	}
	other := putBytes(t, c, bucket, "data/a", []byte("x"))
	if other.Expiration != nil {
		t.Errorf("PutObject outside every rule: x-amz-expiration = %q", aws.ToString(other.Expiration))
	}
	if _, err := c.DeleteBucketLifecycle(ctx, &s3.DeleteBucketLifecycleInput{Bucket: b}); err != nil {
		t.Fatal(err)
	}
	head, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("logs/a")})
	if err != nil || head.Expiration != nil {
		t.Errorf("HeadObject after DeleteBucketLifecycle: x-amz-expiration %q, %v", aws.ToString(head.Expiration), err)
	}
}

// TestConformanceExpirationHeaderVersioned checks x-amz-expiration in a
// versioned bucket: on the current version, not on a version read by id.
func TestConformanceExpirationHeaderVersioned(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeBucket(t, c, "lcexpv")
	b := aws.String(bucket)
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: b,
		LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: []types.LifecycleRule{
			{ID: aws.String("r"), Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("")},
				Expiration: &types.LifecycleExpiration{Days: aws.Int32(2)}, NoncurrentVersionExpiration: &types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(1)}},
		}}}); err != nil {
		t.Fatal(err)
	}
	out := putBytes(t, c, bucket, "k", []byte("x"))
	if got := aws.ToString(out.Expiration); !strings.HasSuffix(got, `rule-id="r"`) || aws.ToString(out.VersionId) == "" {
		t.Errorf("PutObject: x-amz-expiration %q, version %q", got, aws.ToString(out.VersionId))
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("k")})
	if err != nil || !strings.HasSuffix(aws.ToString(head.Expiration), `rule-id="r"`) {
		t.Errorf("HeadObject: x-amz-expiration %q, %v", aws.ToString(head.Expiration), err)
	}
	byID, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("k"), VersionId: out.VersionId})
	if err != nil || byID.Expiration != nil {
		t.Errorf("HeadObject by version id: x-amz-expiration %q, %v; want none", aws.ToString(byID.Expiration), err)
	}
}
