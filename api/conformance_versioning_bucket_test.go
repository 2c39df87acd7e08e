package api_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
)

// This file checks the bucket-level operations of versioning and Object
// Lock through the SDKs and by hand: GetBucketVersioning and
// PutBucketVersioning, CreateBucket with Object Lock,
// Get/PutObjectLockConfiguration, ListObjectVersions, DeleteObjects by
// version id, and DeleteBucket of a bucket holding only versions. The
// versions are written through the object layer, which reports their ids.

// putVersion writes a version of key through the layer and returns it.
func putVersion(t *testing.T, g *gateway, bucket, key, body string) object.Object {
	t.Helper()
	o, err := g.layer.PutObject(object.PutInput{Bucket: bucket, Key: key, Body: strings.NewReader(body), Size: int64(len(body))})
	if err != nil {
		t.Fatalf("layer PutObject(%q): %v", key, err)
	}
	return o
}

// deleteKey deletes key without a version id through the layer and
// returns the id of the delete marker it wrote.
func deleteKey(t *testing.T, g *gateway, bucket, key string) string {
	t.Helper()
	rm, err := g.layer.Remove(object.RemoveInput{Bucket: bucket, Key: key})
	if err != nil || !rm.DeleteMarker {
		t.Fatalf("layer Remove(%q) = %+v, %v; want a delete marker", key, rm, err)
	}
	return rm.VersionID
}

// setVersioning puts bucket's versioning status through the SDK.
func setVersioning(t *testing.T, c *s3.Client, bucket string, status types.BucketVersioningStatus) {
	t.Helper()
	_, err := c.PutBucketVersioning(t.Context(), &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: status}})
	if err != nil {
		t.Fatalf("PutBucketVersioning(%s, %s): %v", bucket, status, err)
	}
}

// shown is the version id S3 shows for o.
func shown(o object.Object) string {
	if o.VersionID == "" {
		return "null"
	}
	return o.VersionID
}

func TestConformanceBucketVersioningStates(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("vstate")
			b := aws.String(bucket)
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: b}); err != nil {
				t.Fatal(err)
			}
			get := func(want types.BucketVersioningStatus) {
				t.Helper()
				out, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: b})
				if err != nil {
					t.Fatalf("GetBucketVersioning: %v", err)
				}
				if out.Status != want {
					t.Errorf("GetBucketVersioning: Status %q, want %q", out.Status, want)
				}
			}
			get("")
			setVersioning(t, c.Client, bucket, types.BucketVersioningStatusEnabled)
			get(types.BucketVersioningStatusEnabled)
			setVersioning(t, c.Client, bucket, types.BucketVersioningStatusSuspended)
			get(types.BucketVersioningStatusSuspended)
			setVersioning(t, c.Client, bucket, types.BucketVersioningStatusEnabled)
			get(types.BucketVersioningStatusEnabled)

			_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
				VersioningConfiguration: &types.VersioningConfiguration{Status: "Sometimes"}})
			wantCode(t, "PutBucketVersioning(Sometimes)", err, 400, "MalformedXML")
			_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
				VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled, MFADelete: types.MFADeleteEnabled}})
			wantCode(t, "PutBucketVersioning(MFA Delete)", err, 501, "NotImplemented")
			get(types.BucketVersioningStatusEnabled)

			missing := aws.String(uniqueBucket("vmissing"))
			_, err = c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: missing})
			wantCode(t, "GetBucketVersioning(missing bucket)", err, 404, "NoSuchBucket")
			_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: missing,
				VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
			wantCode(t, "PutBucketVersioning(missing bucket)", err, 404, "NoSuchBucket")
		})
	}
	for _, c := range g.minioClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("vstate")
			if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
				t.Fatal(err)
			}
			for i, step := range []func() error{nil, func() error { return c.EnableVersioning(ctx, bucket) }, func() error { return c.SuspendVersioning(ctx, bucket) }} {
				if step != nil {
					if err := step(); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
				}
				cfg, err := c.GetBucketVersioning(ctx, bucket)
				if err != nil {
					t.Fatalf("GetBucketVersioning: %v", err)
				}
				if want := []string{"", "Enabled", "Suspended"}[i]; cfg.Status != want {
					t.Errorf("after step %d: Status %q, want %q", i, cfg.Status, want)
				}
			}
		})
	}
}

// TestConformanceBucketVersioningEmptyDocument checks the document of a
// bucket whose versioning was never configured: an empty
// VersioningConfiguration, as S3 answers.
func TestConformanceBucketVersioningEmptyDocument(t *testing.T) {
	g := startGateway(t)
	bucket := uniqueBucket("vdoc")
	if _, err := g.sdk(sdkModes[0]).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	resp, body := g.do(g.rawRequest(http.MethodGet, "/"+bucket, "versioning", nil), nil, true)
	want := `<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></VersioningConfiguration>`
	if resp.StatusCode != 200 || !bytes.HasSuffix(bytes.TrimSpace(body), []byte(want)) {
		t.Errorf("GetBucketVersioning of a new bucket: %d %q, want 200 %q", resp.StatusCode, body, want)
	}
}

func TestConformanceObjectLockBucket(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("lock")
			b := aws.String(bucket)
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: b, ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
				t.Fatalf("CreateBucket(Object Lock): %v", err)
			}
			v, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: b})
			if err != nil || v.Status != types.BucketVersioningStatusEnabled {
				t.Errorf("GetBucketVersioning of a lock bucket: %v, %v; want Enabled", v.Status, err)
			}
			cfg, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: b})
			if err != nil {
				t.Fatalf("GetObjectLockConfiguration: %v", err)
			}
			if l := cfg.ObjectLockConfiguration; l == nil || l.ObjectLockEnabled != types.ObjectLockEnabledEnabled || l.Rule != nil {
				t.Errorf("GetObjectLockConfiguration of a new lock bucket: %+v, want Enabled without a rule", l)
			}

			_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
				VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusSuspended}})
			wantCode(t, "PutBucketVersioning(Suspended) on a lock bucket", err, 409, "InvalidBucketState")
			setVersioning(t, c.Client, bucket, types.BucketVersioningStatusEnabled)

			for _, rule := range []*types.ObjectLockRule{
				{DefaultRetention: &types.DefaultRetention{Mode: types.ObjectLockRetentionModeGovernance, Days: aws.Int32(3)}},
				{DefaultRetention: &types.DefaultRetention{Mode: types.ObjectLockRetentionModeCompliance, Years: aws.Int32(2)}},
				nil,
			} {
				_, err = c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: b,
					ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled, Rule: rule}})
				if err != nil {
					t.Fatalf("PutObjectLockConfiguration(%+v): %v", rule, err)
				}
				cfg, err = c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: b})
				if err != nil {
					t.Fatalf("GetObjectLockConfiguration: %v", err)
				}
				got := cfg.ObjectLockConfiguration.Rule
				if (got == nil) != (rule == nil) {
					t.Fatalf("GetObjectLockConfiguration: rule %+v, want %+v", got, rule)
				}
				if rule != nil {
					g, w := got.DefaultRetention, rule.DefaultRetention
					if g.Mode != w.Mode || aws.ToInt32(g.Days) != aws.ToInt32(w.Days) || aws.ToInt32(g.Years) != aws.ToInt32(w.Years) {
						t.Errorf("GetObjectLockConfiguration: retention %s %d days %d years, want %s %d days %d years",
							g.Mode, aws.ToInt32(g.Days), aws.ToInt32(g.Years), w.Mode, aws.ToInt32(w.Days), aws.ToInt32(w.Years))
					}
				}
			}
			_, err = c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: b,
				ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled,
					Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{Mode: types.ObjectLockRetentionModeGovernance, Days: aws.Int32(0)}}}})
			wantCode(t, "PutObjectLockConfiguration(0 days)", err, 400, "InvalidArgument")

			// A bucket without Object Lock has no configuration, and gets
			// one only once its versioning is Enabled.
			plain := aws.String(uniqueBucket("nolock"))
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: plain, ObjectLockEnabledForBucket: aws.Bool(false)}); err != nil {
				t.Fatal(err)
			}
			_, err = c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: plain})
			wantCode(t, "GetObjectLockConfiguration without Object Lock", err, 404, "ObjectLockConfigurationNotFoundError")
			enable := &s3.PutObjectLockConfigurationInput{Bucket: plain,
				ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled}}
			_, err = c.PutObjectLockConfiguration(ctx, enable)
			wantCode(t, "PutObjectLockConfiguration on an unversioned bucket", err, 409, "InvalidBucketState")
			setVersioning(t, c.Client, *plain, types.BucketVersioningStatusEnabled)
			if _, err := c.PutObjectLockConfiguration(ctx, enable); err != nil {
				t.Fatalf("PutObjectLockConfiguration on a versioned bucket: %v", err)
			}
			if _, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: plain}); err != nil {
				t.Errorf("GetObjectLockConfiguration after enabling: %v", err)
			}
			_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: plain,
				VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusSuspended}})
			wantCode(t, "PutBucketVersioning(Suspended) after enabling Object Lock", err, 409, "InvalidBucketState")

			missing := aws.String(uniqueBucket("lmissing"))
			_, err = c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: missing})
			wantCode(t, "GetObjectLockConfiguration(missing bucket)", err, 404, "NoSuchBucket")
		})
	}
	for _, c := range g.minioClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("lock")
			if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{ObjectLocking: true}); err != nil {
				t.Fatalf("MakeBucket(ObjectLocking): %v", err)
			}
			mode, days := minio.Governance, uint(5)
			unit := minio.Days
			if err := c.SetObjectLockConfig(ctx, bucket, &mode, &days, &unit); err != nil {
				t.Fatalf("SetObjectLockConfig: %v", err)
			}
			enabled, gotMode, gotDays, gotUnit, err := c.GetObjectLockConfig(ctx, bucket)
			if err != nil {
				t.Fatalf("GetObjectLockConfig: %v", err)
			}
			if enabled != "Enabled" || gotMode == nil || *gotMode != mode || gotDays == nil || *gotDays != days || gotUnit == nil || *gotUnit != unit {
				t.Errorf("GetObjectLockConfig: %q %v %v %v", enabled, gotMode, gotDays, gotUnit)
			}
			cfg, err := c.GetBucketVersioning(ctx, bucket)
			if err != nil || cfg.Status != "Enabled" {
				t.Errorf("GetBucketVersioning of a lock bucket: %+v, %v", cfg, err)
			}
			if err := c.SuspendVersioning(ctx, bucket); err == nil {
				t.Errorf("SuspendVersioning of a lock bucket succeeded")
			} else {
				wantMinioCode(t, "SuspendVersioning of a lock bucket", err, 409, "InvalidBucketState")
			}
		})
	}
}

// TestConformanceObjectLockRequests sends the Object Lock bucket requests
// by hand: a CreateBucket header that is no boolean, and a
// PutObjectLockConfiguration without Content-MD5 or x-amz-checksum-*,
// which S3 refuses.
func TestConformanceObjectLockRequests(t *testing.T) {
	g := startGateway(t)
	bucket := uniqueBucket("lockraw")
	req := g.rawRequest(http.MethodPut, "/"+bucket, "", nil)
	req.Header.Set("X-Amz-Bucket-Object-Lock-Enabled", "maybe")
	resp, body := g.do(req, nil, true)
	wantXMLError(t, "CreateBucket(x-amz-bucket-object-lock-enabled: maybe)", resp, body, 400, "InvalidArgument")

	req = g.rawRequest(http.MethodPut, "/"+bucket, "", nil)
	req.Header.Set("X-Amz-Bucket-Object-Lock-Enabled", "True")
	if resp, body := g.do(req, nil, true); resp.StatusCode != 200 {
		t.Fatalf("CreateBucket(x-amz-bucket-object-lock-enabled: True): %d %s", resp.StatusCode, body)
	}

	doc := []byte(`<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention></Rule></ObjectLockConfiguration>`)
	resp, body = g.do(g.rawRequest(http.MethodPut, "/"+bucket, "object-lock", doc), doc, true)
	wantXMLError(t, "PutObjectLockConfiguration without a digest", resp, body, 400, "InvalidRequest")
	cfg, err := g.sdk(sdkModes[0]).GetObjectLockConfiguration(t.Context(), &s3.GetObjectLockConfigurationInput{Bucket: aws.String(bucket)})
	if err != nil || cfg.ObjectLockConfiguration.Rule != nil {
		t.Errorf("GetObjectLockConfiguration after a refused Put: %+v, %v; want no rule", cfg, err)
	}

	sum := md5.Sum(doc)
	req = g.rawRequest(http.MethodPut, "/"+bucket, "object-lock", doc)
	req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	if resp, body := g.do(req, doc, true); resp.StatusCode != 200 {
		t.Errorf("PutObjectLockConfiguration with Content-MD5: %d %s", resp.StatusCode, body)
	}
}

// versionRow is one entry of a ListObjectVersions answer: a Version, a
// DeleteMarker or a CommonPrefixes (Kind "Prefix", Key the prefix).
type versionRow struct {
	Kind, Key, VersionID string
	IsLatest             bool
}

func (r versionRow) String() string {
	return fmt.Sprintf("%s(%q %s latest=%v)", r.Kind, r.Key, r.VersionID, r.IsLatest)
}

// versionPage is one raw ListObjectVersions page, its rows in document
// order and its keys decoded when encoding-type=url was asked for.
type versionPage struct {
	rows                 []versionRow
	truncated            bool
	nextKey, nextVersion string
	encodingType         string
}

// listVersionsRaw sends one ListObjectVersions request with query q and
// reads the answer element by element, keeping the order of Version and
// DeleteMarker elements, which the SDK's output types lose.
func listVersionsRaw(t *testing.T, g *gateway, bucket string, q url.Values) versionPage {
	t.Helper()
	q.Set("versions", "")
	resp, body := g.do(g.rawRequest(http.MethodGet, "/"+bucket, strings.ReplaceAll(q.Encode(), "+", "%20"), nil), nil, true)
	if resp.StatusCode != 200 {
		t.Fatalf("ListObjectVersions(%s): %d %s", q.Encode(), resp.StatusCode, body)
	}
	encoded := q.Get("encoding-type") == "url"
	dec := func(s string) string {
		if !encoded {
			return s
		}
		d, err := url.QueryUnescape(s)
		if err != nil {
			t.Errorf("encoding-type=url value %q does not decode: %v", s, err)
		}
		return d
	}
	var p versionPage
	d := xml.NewDecoder(bytes.NewReader(body))
	depth := 0
	for range 100000 {
		tok, err := d.Token()
		if err == io.EOF {
			return p
		}
		if err != nil {
			t.Fatalf("ListObjectVersions answer does not parse: %v\n%s", err, body)
		}
		switch e := tok.(type) {
		case xml.EndElement:
			depth--
		case xml.StartElement:
			depth++
			if depth != 2 {
				continue
			}
			depth--
			switch e.Name.Local {
			case "Version", "DeleteMarker":
				var v struct {
					Key, VersionId, IsLatest, ETag string
					Size                           *string
				}
				if err := d.DecodeElement(&v, &e); err != nil {
					t.Fatal(err)
				}
				if (e.Name.Local == "Version") != (v.ETag != "" && v.Size != nil) {
					t.Errorf("%s %q: ETag %q Size %v", e.Name.Local, v.Key, v.ETag, v.Size)
				}
				p.rows = append(p.rows, versionRow{Kind: e.Name.Local, Key: dec(v.Key), VersionID: v.VersionId, IsLatest: v.IsLatest == "true"})
			case "CommonPrefixes":
				var cp struct{ Prefix string }
				if err := d.DecodeElement(&cp, &e); err != nil {
					t.Fatal(err)
				}
				p.rows = append(p.rows, versionRow{Kind: "Prefix", Key: dec(cp.Prefix)})
			default:
				var s string
				if err := d.DecodeElement(&s, &e); err != nil {
					t.Fatal(err)
				}
				switch e.Name.Local {
				case "IsTruncated":
					p.truncated = s == "true"
				case "NextKeyMarker":
					p.nextKey = dec(s)
				case "NextVersionIdMarker":
					p.nextVersion = s
				case "EncodingType":
					p.encodingType = s
				}
			}
		}
	}
	t.Fatal("ListObjectVersions answer too long")
	return p
}

// pageVersions lists bucket to its end max rows at a time with query q,
// checking each page against the same rows of want: the versions and
// markers in order, then the common prefixes.
func pageVersions(t *testing.T, g *gateway, bucket string, q url.Values, max int, want []versionRow) {
	t.Helper()
	keyMarker, versionMarker := "", ""
	pos := 0
	for page := 0; ; page++ {
		if page > len(want)+1 {
			t.Fatalf("max-keys %d: more pages than rows", max)
		}
		pq := url.Values{}
		for k, v := range q {
			pq[k] = v
		}
		pq.Set("max-keys", strconv.Itoa(max))
		if keyMarker != "" {
			pq.Set("key-marker", keyMarker)
		}
		if versionMarker != "" {
			pq.Set("version-id-marker", versionMarker)
		}
		p := listVersionsRaw(t, g, bucket, pq)
		if q.Get("encoding-type") == "url" && p.encodingType != "url" {
			t.Errorf("EncodingType %q not echoed", p.encodingType)
		}
		n := min(max, len(want)-pos)
		exp := slices.Clone(want[pos : pos+n])
		// S3 renders a page's common prefixes after its versions.
		slices.SortStableFunc(exp, func(a, b versionRow) int {
			return boolInt(a.Kind == "Prefix") - boolInt(b.Kind == "Prefix")
		})
		if !slices.Equal(p.rows, exp) {
			t.Fatalf("max-keys %d, page %d (key-marker %q, version-id-marker %q):\n got %v\nwant %v", max, page, keyMarker, versionMarker, p.rows, exp)
		}
		pos += n
		if !p.truncated {
			if pos != len(want) {
				t.Fatalf("max-keys %d: listing ended after %d rows, want %d", max, pos, len(want))
			}
			return
		}
		last := want[pos-1]
		wantVersion := last.VersionID
		if p.nextKey != last.Key || p.nextVersion != wantVersion {
			t.Fatalf("max-keys %d, page %d: next markers %q %q, want %q %q", max, page, p.nextKey, p.nextVersion, last.Key, wantVersion)
		}
		keyMarker, versionMarker = p.nextKey, p.nextVersion
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// versionedFixture fills a bucket with keys whose versions, delete
// markers and null versions cover what ListObjectVersions must order,
// and returns the rows of its whole listing (without a delimiter).
func versionedFixture(t *testing.T, g *gateway, c *s3.Client, bucket string) []versionRow {
	t.Helper()
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	aNull := putVersion(t, g, bucket, "a", "null") // written before versioning: the null version
	setVersioning(t, c, bucket, types.BucketVersioningStatusEnabled)
	a1 := putVersion(t, g, bucket, "a", "a1")
	a2 := putVersion(t, g, bucket, "a", "a2")
	b1 := putVersion(t, g, bucket, "b", "b1")
	bm := deleteKey(t, g, bucket, "b")
	cd := putVersion(t, g, bucket, "c/d", "cd")
	ce1 := putVersion(t, g, bucket, "c/e", "ce1")
	cem := deleteKey(t, g, bucket, "c/e")
	ce2 := putVersion(t, g, bucket, "c/e", "ce2")
	// f keeps only its delete marker once its one version is removed.
	f1 := putVersion(t, g, bucket, "f", "f1")
	fm := deleteKey(t, g, bucket, "f")
	if _, err := g.layer.Remove(object.RemoveInput{Bucket: bucket, Key: "f", VersionID: f1.VersionID}); err != nil {
		t.Fatal(err)
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusSuspended)
	gNull := putVersion(t, g, bucket, "g", "g") // written while suspended: null
	putVersion(t, g, bucket, "h", "h")
	gm := deleteKey(t, g, bucket, "h") // replaces h's null version with a null marker
	v := func(key string, o object.Object, latest bool) versionRow {
		return versionRow{Kind: "Version", Key: key, VersionID: shown(o), IsLatest: latest}
	}
	m := func(key, id string, latest bool) versionRow {
		return versionRow{Kind: "DeleteMarker", Key: key, VersionID: id, IsLatest: latest}
	}
	for _, id := range []string{aNull.VersionID, gNull.VersionID} {
		if id != "" {
			t.Fatalf("a version written unversioned or suspended has id %q, want the null version", id)
		}
	}
	if gm != "null" {
		t.Fatalf("a delete marker written while suspended has id %q, want null", gm)
	}
	return []versionRow{
		v("a", a2, true), v("a", a1, false), v("a", aNull, false),
		m("b", bm, true), v("b", b1, false),
		v("c/d", cd, true),
		v("c/e", ce2, true), m("c/e", cem, false), v("c/e", ce1, false),
		m("f", fm, true),
		v("g", gNull, true),
		m("h", gm, true),
	}
}

func TestConformanceListObjectVersionsPaging(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := uniqueBucket("lov")
	want := versionedFixture(t, g, c, bucket)

	for _, max := range []int{1, 2, 3, 1000} {
		pageVersions(t, g, bucket, url.Values{}, max, want)
	}

	// A prefix, and a delimiter folding c/d and c/e into one common
	// prefix, which counts as one row and continues with no version id.
	var underC []versionRow
	for _, r := range want {
		if strings.HasPrefix(r.Key, "c/") {
			underC = append(underC, r)
		}
	}
	for _, max := range []int{1, 2, 1000} {
		pageVersions(t, g, bucket, url.Values{"prefix": {"c/"}}, max, underC)
	}
	var folded []versionRow
	for _, r := range want {
		switch {
		case !strings.HasPrefix(r.Key, "c/"):
			folded = append(folded, r)
		case !slices.Contains(folded, versionRow{Kind: "Prefix", Key: "c/"}):
			folded = append(folded, versionRow{Kind: "Prefix", Key: "c/"})
		}
	}
	for _, max := range []int{1, 2, 3, 1000} {
		pageVersions(t, g, bucket, url.Values{"delimiter": {"/"}}, max, folded)
	}

	// The SDK pages through the same listing by its markers; its output
	// splits versions from markers, so the rows are compared as sets.
	for _, sc := range g.sdkClients() {
		for _, max := range []int32{1, 2, 3} {
			var got []versionRow
			in := &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), MaxKeys: aws.Int32(max)}
			for page := 0; ; page++ {
				if page > len(want) {
					t.Fatalf("%s max-keys %d: more pages than rows", sc.name, max)
				}
				out, err := sc.ListObjectVersions(t.Context(), in)
				if err != nil {
					t.Fatalf("%s ListObjectVersions: %v", sc.name, err)
				}
				if n := len(out.Versions) + len(out.DeleteMarkers); n > int(max) || n == 0 {
					t.Fatalf("%s max-keys %d: page of %d rows", sc.name, max, n)
				}
				for _, v := range out.Versions {
					got = append(got, versionRow{"Version", aws.ToString(v.Key), aws.ToString(v.VersionId), aws.ToBool(v.IsLatest)})
					if aws.ToString(v.ETag) == "" || v.Size == nil || v.StorageClass != types.ObjectVersionStorageClassStandard || v.Owner == nil {
						t.Errorf("%s: Version %q lacks ETag, Size, StorageClass or Owner: %+v", sc.name, aws.ToString(v.Key), v)
					}
				}
				for _, dm := range out.DeleteMarkers {
					got = append(got, versionRow{"DeleteMarker", aws.ToString(dm.Key), aws.ToString(dm.VersionId), aws.ToBool(dm.IsLatest)})
					if dm.Owner == nil || dm.LastModified == nil {
						t.Errorf("%s: DeleteMarker %q lacks Owner or LastModified", sc.name, aws.ToString(dm.Key))
					}
				}
				if !aws.ToBool(out.IsTruncated) {
					break
				}
				in.KeyMarker, in.VersionIdMarker = out.NextKeyMarker, out.NextVersionIdMarker
			}
			sortRows := func(rs []versionRow) []versionRow {
				rs = slices.Clone(rs)
				slices.SortFunc(rs, func(a, b versionRow) int { return strings.Compare(a.String(), b.String()) })
				return rs
			}
			if !slices.Equal(sortRows(got), sortRows(want)) {
				t.Errorf("%s max-keys %d:\n got %v\nwant %v", sc.name, max, got, want)
			}
		}
	}

	// minio-go keeps the document's order of versions and markers.
	for _, mc := range g.minioClients() {
		var got []versionRow
		for o := range mc.ListObjects(t.Context(), bucket, minio.ListObjectsOptions{WithVersions: true, Recursive: true, MaxKeys: 2}) {
			if o.Err != nil {
				t.Fatalf("%s ListObjects(versions): %v", mc.name, o.Err)
			}
			kind := "Version"
			if o.IsDeleteMarker {
				kind = "DeleteMarker"
			}
			got = append(got, versionRow{kind, o.Key, o.VersionID, o.IsLatest})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s ListObjects(versions):\n got %v\nwant %v", mc.name, got, want)
		}
	}
}

// TestConformanceListObjectVersionsRefusals checks the markers S3
// refuses and a bucket that does not exist.
func TestConformanceListObjectVersionsRefusals(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := uniqueBucket("lovbad")
	versionedFixture(t, g, c, bucket)
	for _, tc := range []struct{ name, query string }{
		{"version-id-marker without key-marker", "versions&version-id-marker=null"},
		{"malformed version-id-marker", "versions&key-marker=a&version-id-marker=nonsense"},
	} {
		resp, body := g.do(g.rawRequest(http.MethodGet, "/"+bucket, tc.query, nil), nil, true)
		wantXMLError(t, tc.name, resp, body, 400, "InvalidArgument")
	}
	_, err := c.ListObjectVersions(t.Context(), &s3.ListObjectVersionsInput{Bucket: aws.String(uniqueBucket("lovmissing"))})
	wantCode(t, "ListObjectVersions(missing bucket)", err, 404, "NoSuchBucket")
}

// TestConformanceListObjectVersionsHostileKeys pages, with
// encoding-type=url, through versions and markers of keys that break
// naive listings, and checks the SDK's plain listing of the same keys.
func TestConformanceListObjectVersionsHostileKeys(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := uniqueBucket("lovhostile")
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusEnabled)
	keys := append(slices.Clone(hostileKeys), "ctl\x01key", "tab\tkey", "nl\nkey", "cr\rkey")
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var want []versionRow
	for _, k := range keys {
		v1 := putVersion(t, g, bucket, k, "1")
		m := deleteKey(t, g, bucket, k)
		want = append(want, versionRow{"DeleteMarker", k, m, true}, versionRow{"Version", k, v1.VersionID, false})
	}
	for _, max := range []int{1, 3, 1000} {
		pageVersions(t, g, bucket, url.Values{"encoding-type": {"url"}}, max, want)
	}
	var underA []versionRow
	for _, r := range want {
		if strings.HasPrefix(r.Key, "a/") {
			underA = append(underA, r)
		}
	}
	pageVersions(t, g, bucket, url.Values{"encoding-type": {"url"}, "prefix": {"a/"}}, 2, underA)

	out, err := c.ListObjectVersions(t.Context(), &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), EncodingType: types.EncodingTypeUrl})
	if err != nil {
		t.Fatalf("ListObjectVersions(encoding-type=url): %v", err)
	}
	dec := decoder(t, true)
	if len(out.DeleteMarkers) != len(keys) || len(out.Versions) != len(keys) {
		t.Fatalf("ListObjectVersions: %d markers, %d versions; want %d of each", len(out.DeleteMarkers), len(out.Versions), len(keys))
	}
	for i, k := range keys {
		if got := dec(out.Versions[i].Key); got != k {
			t.Errorf("Version %d: key %q, want %q", i, got, k)
		}
		if got := dec(out.DeleteMarkers[i].Key); got != k {
			t.Errorf("DeleteMarker %d: key %q, want %q", i, got, k)
		}
	}
}

// TestConformanceListObjectVersionsUnversioned checks that a bucket whose
// versioning was never enabled lists each object as its null version, the
// latest, and continues after a "null" version-id-marker.
func TestConformanceListObjectVersionsUnversioned(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := uniqueBucket("lovplain")
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	putMany(t, c, bucket, []string{"x", "y/1", "y/2", "z"})
	want := []versionRow{
		{"Version", "x", "null", true}, {"Version", "y/1", "null", true},
		{"Version", "y/2", "null", true}, {"Version", "z", "null", true},
	}
	for _, max := range []int{1, 3, 1000} {
		pageVersions(t, g, bucket, url.Values{}, max, want)
	}
	pageVersions(t, g, bucket, url.Values{"delimiter": {"/"}}, 1, []versionRow{want[0], {Kind: "Prefix", Key: "y/"}, want[3]})
}

// TestConformanceDeleteObjectsVersions deletes by version id with
// DeleteObjects: versions, delete markers, markers written by entries
// without an id, malformed ids, and a version under GOVERNANCE retention
// that only x-amz-bypass-governance-retention removes.
func TestConformanceDeleteObjectsVersions(t *testing.T) {
	g := startGateway(t)
	for _, c := range g.sdkClients() {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			bucket := uniqueBucket("dov")
			b := aws.String(bucket)
			if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: b, ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
				t.Fatal(err)
			}
			k1 := putVersion(t, g, bucket, "k", "1")
			k2 := putVersion(t, g, bucket, "k", "2")
			goneV := putVersion(t, g, bucket, "gone", "g")
			m := deleteKey(t, g, bucket, "gone")
			n1 := putVersion(t, g, bucket, "new", "n")
			until := time.Now().Add(24 * time.Hour).UTC()
			locked, err := g.layer.PutObject(object.PutInput{Bucket: bucket, Key: "locked", Body: strings.NewReader("l"), Size: 1,
				Lock: object.Lock{Retention: objectlock.Retention{Mode: objectlock.Governance, Until: until}}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				// A test stopped early leaves no version whose file the
				// immutable flag keeps from the temporary directory's removal.
				_, _ = g.layer.Remove(object.RemoveInput{Bucket: bucket, Key: "locked", VersionID: locked.VersionID, BypassGovernance: true})
			})

			out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b, Delete: &types.Delete{Objects: []types.ObjectIdentifier{
				{Key: aws.String("k"), VersionId: aws.String(k1.VersionID)},
				{Key: aws.String("gone"), VersionId: aws.String(m)},
				{Key: aws.String("new")},
				{Key: aws.String("k"), VersionId: aws.String("nonsense")},
				{Key: aws.String("locked"), VersionId: aws.String(locked.VersionID)},
			}}})
			if err != nil {
				t.Fatalf("DeleteObjects: %v", err)
			}
			deleted := map[string]types.DeletedObject{}
			for _, d := range out.Deleted {
				deleted[aws.ToString(d.Key)] = d
			}
			if d := deleted["k"]; aws.ToString(d.VersionId) != k1.VersionID || aws.ToBool(d.DeleteMarker) || d.DeleteMarkerVersionId != nil {
				t.Errorf("Deleted k: %+v, want VersionId %s and no marker", d, k1.VersionID)
			}
			if d := deleted["gone"]; aws.ToString(d.VersionId) != m || !aws.ToBool(d.DeleteMarker) || aws.ToString(d.DeleteMarkerVersionId) != m {
				t.Errorf("Deleted gone: %+v, want VersionId, DeleteMarker, DeleteMarkerVersionId %s", d, m)
			}
			d := deleted["new"]
			if d.VersionId != nil || !aws.ToBool(d.DeleteMarker) || len(aws.ToString(d.DeleteMarkerVersionId)) != 26 {
				t.Errorf("Deleted new: %+v, want a new delete marker's id and no VersionId", d)
			}
			newMarker := aws.ToString(d.DeleteMarkerVersionId)
			errs := map[string]types.Error{}
			for _, e := range out.Errors {
				errs[aws.ToString(e.Key)] = e
			}
			if len(out.Deleted) != 3 || len(out.Errors) != 2 {
				t.Errorf("DeleteObjects: %d deleted, %d errors; want 3 and 2", len(out.Deleted), len(out.Errors))
			}
			if e := errs["k"]; aws.ToString(e.Code) != "NoSuchVersion" || aws.ToString(e.VersionId) != "nonsense" {
				t.Errorf("Error k: %+v, want NoSuchVersion for version nonsense", e)
			}
			if e := errs["locked"]; aws.ToString(e.Code) != "AccessDenied" || aws.ToString(e.VersionId) != locked.VersionID {
				t.Errorf("Error locked: %+v, want AccessDenied for version %s", e, locked.VersionID)
			}

			// Quiet: only the failure is reported; the bypass removes the
			// GOVERNANCE version.
			out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b, Delete: &types.Delete{Quiet: aws.Bool(true), Objects: []types.ObjectIdentifier{
				{Key: aws.String("new"), VersionId: aws.String(newMarker)},
				{Key: aws.String("locked"), VersionId: aws.String(locked.VersionID)},
			}}})
			if err != nil || len(out.Deleted) != 0 || len(out.Errors) != 1 || aws.ToString(out.Errors[0].Code) != "AccessDenied" {
				t.Fatalf("DeleteObjects(quiet, locked): %+v, %v; want one AccessDenied", out, err)
			}
			out, err = c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b, BypassGovernanceRetention: aws.Bool(true), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
				{Key: aws.String("locked"), VersionId: aws.String(locked.VersionID)},
			}}})
			if err != nil || len(out.Errors) != 0 || len(out.Deleted) != 1 || aws.ToString(out.Deleted[0].VersionId) != locked.VersionID {
				t.Fatalf("DeleteObjects(bypass governance): %+v, %v", out, err)
			}

			// What is left: k's second version and new's, current again,
			// and gone's version, current again once its marker went.
			want := []versionRow{{"Version", "gone", shown(goneV), true}, {"Version", "k", k2.VersionID, true}, {"Version", "new", n1.VersionID, true}}
			pageVersions(t, g, bucket, url.Values{}, 1000, want)
		})
	}
}

// TestConformanceDeleteObjectsSuspended checks DeleteObjects without a
// version id in a suspended bucket: the marker written is the null one.
func TestConformanceDeleteObjectsSuspended(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	bucket := uniqueBucket("dosusp")
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusSuspended)
	putVersion(t, g, bucket, "k", "1")
	out, err := c.DeleteObjects(t.Context(), &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k")}}}})
	if err != nil || len(out.Deleted) != 1 {
		t.Fatalf("DeleteObjects: %+v, %v", out, err)
	}
	if d := out.Deleted[0]; !aws.ToBool(d.DeleteMarker) || aws.ToString(d.DeleteMarkerVersionId) != "null" || d.VersionId != nil {
		t.Errorf("Deleted: %+v, want DeleteMarker with DeleteMarkerVersionId null", d)
	}
}

// TestConformanceDeleteObjectsUnknownVersionID checks that an entry whose
// VersionId names no version the gateway could hold, an empty one (as
// aws-sdk-go-v2 sends VersionId: aws.String("")) or one of another form,
// deletes nothing and is answered NoSuchVersion with the id it named, in
// an unversioned bucket and in a versioned one, while the entry beside it
// without a VersionId is deleted. S3 answers them so: brendanhay/amazonka#160
// and wal-g/wal-g#2549 for the empty id ("The specified version does not
// exist." for each such entry of a bucket without versioning),
// versity/versitygw#2119 for "abc", with S3's DeleteResult.
func TestConformanceDeleteObjectsUnknownVersionID(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	for _, status := range []types.BucketVersioningStatus{"", types.BucketVersioningStatusEnabled} {
		bucket := makeBucket(t, c, "doempty")
		if status != "" {
			setVersioning(t, c, bucket, status)
		}
		putBytes(t, c, bucket, "kept", []byte("kept"))
		for _, id := range []string{"", "abc"} {
			putBytes(t, c, bucket, "gone", []byte("gone"))
			out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
				{Key: aws.String("kept"), VersionId: aws.String(id)}, {Key: aws.String("gone")},
			}}})
			if err != nil {
				t.Fatalf("versioning %q, VersionId %q: DeleteObjects: %v", status, id, err)
			}
			if len(out.Errors) != 1 || aws.ToString(out.Errors[0].Key) != "kept" || aws.ToString(out.Errors[0].VersionId) != id ||
				aws.ToString(out.Errors[0].Code) != "NoSuchVersion" || aws.ToString(out.Errors[0].Message) != "The specified version does not exist." {
				t.Errorf("versioning %q, VersionId %q: Errors %+v, want NoSuchVersion for kept", status, id, out.Errors)
			}
			if len(out.Deleted) != 1 || aws.ToString(out.Deleted[0].Key) != "gone" {
				t.Errorf("versioning %q, VersionId %q: Deleted %+v, want gone alone", status, id, out.Deleted)
			}
		}
		if got := getBytes(t, c, bucket, "kept"); string(got) != "kept" {
			t.Errorf("versioning %q: kept reads %q", status, got)
		}
		vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String("kept")})
		if err != nil || len(vs.Versions) != 1 || len(vs.DeleteMarkers) != 0 {
			t.Errorf("versioning %q: versions of kept %+v, markers %+v, %v; want its one version", status, vs.Versions, vs.DeleteMarkers, err)
		}
	}
}

// TestConformanceDeleteKeyTooLong checks that a delete without a version
// id of a key longer than S3's 1,024 bytes is 400 KeyTooLongError, as S3
// answers any request naming such a key (s3fs-fuse/s3fs-fuse#1602), and
// writes no delete marker in a versioned bucket: the marker was written,
// and listed, for a key no PUT could have made. In DeleteObjects the
// entry is refused alone. A key of 1,024 bytes still gets its marker.
func TestConformanceDeleteKeyTooLong(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	long, longest := strings.Repeat("k", 1025), strings.Repeat("k", 1024)
	for _, status := range []types.BucketVersioningStatus{"", types.BucketVersioningStatusEnabled} {
		bucket := makeBucket(t, c, "dolong")
		if status != "" {
			setVersioning(t, c, bucket, status)
		}
		_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(long)})
		wantCode(t, fmt.Sprintf("versioning %q: DeleteObject of a 1,025-byte key", status), err, 400, "KeyTooLongError")
		_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(long)})
		wantCode(t, fmt.Sprintf("versioning %q: GetObject of a 1,025-byte key", status), err, 400, "KeyTooLongError")
		_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(long)})
		if err == nil || httpStatus(err) != 400 {
			t.Errorf("versioning %q: HeadObject of a 1,025-byte key: %v, want 400", status, err)
		}
		putBytes(t, c, bucket, "k", []byte("v"))
		out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
			{Key: aws.String(long)}, {Key: aws.String("k")},
		}}})
		if err != nil {
			t.Fatalf("versioning %q: DeleteObjects: %v", status, err)
		}
		if len(out.Errors) != 1 || aws.ToString(out.Errors[0].Key) != long || aws.ToString(out.Errors[0].Code) != "KeyTooLongError" {
			t.Errorf("versioning %q: DeleteObjects errors %+v, want KeyTooLongError for the long key", status, out.Errors)
		}
		if len(out.Deleted) != 1 || aws.ToString(out.Deleted[0].Key) != "k" {
			t.Errorf("versioning %q: DeleteObjects deleted %+v, want k alone", status, out.Deleted)
		}
		if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(longest)}); err != nil {
			t.Errorf("versioning %q: DeleteObject of a 1,024-byte key: %v", status, err)
		}
		vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(longest)})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if status != "" {
			want = 1 // the 1,024-byte key's marker, and none for the longer one
		}
		if len(vs.DeleteMarkers) != want || len(vs.Versions) != 0 {
			t.Errorf("versioning %q: versions %+v, markers %+v; want %d marker of the 1,024-byte key", status, vs.Versions, vs.DeleteMarkers, want)
		}
		for _, m := range vs.DeleteMarkers {
			if aws.ToString(m.Key) != longest {
				t.Errorf("versioning %q: a delete marker for a key of %d bytes", status, len(aws.ToString(m.Key)))
			}
		}
	}
}

// TestConformanceDeleteBucketWithVersions checks that a bucket whose
// keys are all deleted but whose versions or markers remain is not
// empty, and that it can go once they are removed by id.
func TestConformanceDeleteBucketWithVersions(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := uniqueBucket("dbv")
	b := aws.String(bucket)
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: b}); err != nil {
		t.Fatal(err)
	}
	setVersioning(t, c, bucket, types.BucketVersioningStatusEnabled)
	v := putVersion(t, g, bucket, "k", "1")
	m := deleteKey(t, g, bucket, "k")
	if out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b}); err != nil || len(out.Contents) != 0 {
		t.Fatalf("ListObjectsV2 after the delete: %+v, %v; want no object", out, err)
	}
	_, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b})
	wantCode(t, "DeleteBucket with a noncurrent version and a marker", err, 409, "BucketNotEmpty")

	if _, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b, Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k"), VersionId: aws.String(v.VersionID)}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b})
	wantCode(t, "DeleteBucket with only a delete marker", err, 409, "BucketNotEmpty")

	if _, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: b, Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("k"), VersionId: aws.String(m)}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b}); err != nil {
		t.Errorf("DeleteBucket once every version is gone: %v", err)
	}
}
