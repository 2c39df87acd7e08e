package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"
)

// hostileKeys are valid S3 keys chosen to break listings: characters that
// need escaping in URLs or XML, '-' '.' '/' and '0' around the delimiter
// (they sort 0x2D < 0x2E < 0x2F < 0x30), a key that is also a "directory"
// of others, empty and dot segments, keys ending in '/', multi-byte UTF-8
// and the longest key S3 allows (1024 bytes).
var hostileKeys = []string{
	"a", "a-b", "a.b", "a/", "a/b", "a/b/c", "a/b-c", "a/b.c", "a/b/", "a//b", "a/./b", "a/../b", "a0",
	"a b", "a+b", "a%b", "a%2Fb", "b c/d e", "plus+sign/x", "plus sign/x",
	"q?x=1&y#z", "xml<&>'\"", "~tilde", "-dash", "./dot", "zzz/", "zzz/a",
	"ü/ö", "ü-ö", "日本/語", "日本/語/深い", "emoji/😀", "emoji/😀/x",
	"long/" + strings.Repeat("x", 1019),
	"seg/" + strings.Repeat("y", 300) + "/z",
	"/lead", "//double", "/", "/a/", "trail//",
}

// listEntry is one listing entry: a key or a common prefix.
type listEntry struct {
	name   string
	prefix bool
}

// modelPage is S3's answer to one list request, computed from the sorted
// key set. It is the reference the gateway is compared against:
//   - keys are in UTF-8 byte order and only keys after marker count;
//   - with a delimiter, a key containing it after the prefix rolls up into
//     the common prefix ending at its first occurrence; a common prefix at
//     or before the marker is skipped (it was returned on an earlier
//     page);
//   - keys and common prefixes together count toward max-keys, and the
//     page is truncated only when another entry exists after it.
func modelPage(sorted []string, prefix, delim, marker string, maxKeys int) (page []listEntry, truncated bool) {
	var all []listEntry
	for _, k := range sorted {
		if !strings.HasPrefix(k, prefix) || k <= marker {
			continue
		}
		if delim != "" {
			if i := strings.Index(k[len(prefix):], delim); i >= 0 {
				cp := k[:len(prefix)+i+len(delim)]
				if cp <= marker || (len(all) > 0 && all[len(all)-1].name == cp) {
					continue
				}
				all = append(all, listEntry{cp, true})
				continue
			}
		}
		all = append(all, listEntry{k, false})
	}
	if len(all) > maxKeys {
		return all[:maxKeys], true
	}
	return all, false
}

// listParams is one combination of list parameters.
type listParams struct {
	prefix, delim, startAfter string
	maxKeys                   int
	encode                    bool
}

func (p listParams) String() string {
	return fmt.Sprintf("prefix=%q delimiter=%q start-after=%q max-keys=%d url=%v", p.prefix, p.delim, p.startAfter, p.maxKeys, p.encode)
}

// decoder undoes encoding-type=url when it was requested.
func decoder(t *testing.T, encode bool) func(s *string) string {
	return func(s *string) string {
		t.Helper()
		v := aws.ToString(s)
		if !encode {
			return v
		}
		d, err := url.QueryUnescape(v)
		if err != nil {
			t.Errorf("encoding-type=url value %q does not decode: %v", v, err)
		}
		return d
	}
}

// comparePage checks one returned page against the model.
func comparePage(t *testing.T, what string, got []listEntry, gotTruncated bool, want []listEntry, wantTruncated bool) bool {
	t.Helper()
	if !slices.Equal(got, want) || gotTruncated != wantTruncated {
		t.Errorf("%s:\n got  %v truncated=%v\n want %v truncated=%v", what, shortEntries(got), gotTruncated, shortEntries(want), wantTruncated)
		return false
	}
	return true
}

func shortEntries(es []listEntry) []string {
	var s []string
	for _, e := range es {
		n := e.name
		if len(n) > 24 {
			n = n[:24] + fmt.Sprintf("…(%d bytes)", len(e.name))
		}
		if e.prefix {
			n = "P:" + n
		}
		s = append(s, n)
	}
	return s
}

// merge interleaves a page's keys and common prefixes in byte order, as
// the entries of one listing.
func merge(keys, prefixes []string) []listEntry {
	var es []listEntry
	for _, k := range keys {
		es = append(es, listEntry{k, false})
	}
	for _, p := range prefixes {
		es = append(es, listEntry{p, true})
	}
	slices.SortFunc(es, func(a, b listEntry) int { return strings.Compare(a.name, b.name) })
	return es
}

// listV1 pages through ListObjects (V1) and compares every page with the
// model. It returns false after the first mismatch.
func listV1(t *testing.T, c *s3.Client, bucket string, sorted []string, p listParams) bool {
	t.Helper()
	dec := decoder(t, p.encode)
	marker := p.startAfter
	for page := 0; ; page++ {
		if page > len(sorted)+2 {
			t.Errorf("V1 %v: no end after %d pages", p, page)
			return false
		}
		in := &s3.ListObjectsInput{Bucket: aws.String(bucket), MaxKeys: aws.Int32(int32(p.maxKeys))}
		if p.prefix != "" {
			in.Prefix = aws.String(p.prefix)
		}
		if p.delim != "" {
			in.Delimiter = aws.String(p.delim)
		}
		if marker != "" {
			in.Marker = aws.String(marker)
		}
		if p.encode {
			in.EncodingType = types.EncodingTypeUrl
		}
		out, err := c.ListObjects(t.Context(), in)
		if err != nil {
			t.Errorf("V1 %v page %d: %v", p, page, err)
			return false
		}
		var keys, prefixes []string
		for _, o := range out.Contents {
			keys = append(keys, dec(o.Key))
			if o.ETag == nil || o.LastModified == nil || o.Size == nil {
				t.Errorf("V1 %v: entry %q lacks ETag, LastModified or Size", p, dec(o.Key))
				return false
			}
		}
		for _, cp := range out.CommonPrefixes {
			prefixes = append(prefixes, dec(cp.Prefix))
		}
		got := merge(keys, prefixes)
		want, wantTrunc := modelPage(sorted, p.prefix, p.delim, marker, p.maxKeys)
		if !comparePage(t, fmt.Sprintf("V1 %v page %d (marker %q)", p, page, marker), got, aws.ToBool(out.IsTruncated), want, wantTrunc) {
			return false
		}
		if dec(out.Prefix) != p.prefix || dec(out.Marker) != marker || dec(out.Delimiter) != p.delim || aws.ToInt32(out.MaxKeys) != int32(p.maxKeys) {
			t.Errorf("V1 %v page %d: echoed Prefix %q Marker %q Delimiter %q MaxKeys %d", p, page,
				dec(out.Prefix), dec(out.Marker), dec(out.Delimiter), aws.ToInt32(out.MaxKeys))
			return false
		}
		if p.encode && out.EncodingType != types.EncodingTypeUrl {
			t.Errorf("V1 %v: EncodingType %q not echoed", p, out.EncodingType)
			return false
		}
		if !wantTrunc {
			return true
		}
		last := got[len(got)-1].name
		next := dec(out.NextMarker)
		switch {
		case next != "" && next != last:
			t.Errorf("V1 %v page %d: NextMarker %q, want the last entry %q", p, page, next, last)
			return false
		case next == "" && p.delim != "":
			// S3 returns NextMarker whenever a delimiter was given.
			t.Errorf("V1 %v page %d: truncated with a delimiter but no NextMarker", p, page)
			return false
		}
		marker = last
	}
}

// listV2 pages through ListObjectsV2 with the SDK paginator and compares
// every page with the model.
func listV2(t *testing.T, c *s3.Client, bucket string, sorted []string, p listParams) bool {
	t.Helper()
	dec := decoder(t, p.encode)
	in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket), MaxKeys: aws.Int32(int32(p.maxKeys))}
	if p.prefix != "" {
		in.Prefix = aws.String(p.prefix)
	}
	if p.delim != "" {
		in.Delimiter = aws.String(p.delim)
	}
	if p.startAfter != "" {
		in.StartAfter = aws.String(p.startAfter)
	}
	if p.encode {
		in.EncodingType = types.EncodingTypeUrl
	}
	cursor := p.startAfter
	pg := s3.NewListObjectsV2Paginator(c, in)
	for page := 0; pg.HasMorePages(); page++ {
		if page > len(sorted)+2 {
			t.Errorf("V2 %v: no end after %d pages", p, page)
			return false
		}
		out, err := pg.NextPage(t.Context())
		if err != nil {
			t.Errorf("V2 %v page %d: %v", p, page, err)
			return false
		}
		var keys, prefixes []string
		for _, o := range out.Contents {
			keys = append(keys, dec(o.Key))
			if o.Owner != nil {
				t.Errorf("V2 %v: Owner returned without fetch-owner", p)
				return false
			}
		}
		for _, cp := range out.CommonPrefixes {
			prefixes = append(prefixes, dec(cp.Prefix))
		}
		got := merge(keys, prefixes)
		want, wantTrunc := modelPage(sorted, p.prefix, p.delim, cursor, p.maxKeys)
		if !comparePage(t, fmt.Sprintf("V2 %v page %d (after %q)", p, page, cursor), got, aws.ToBool(out.IsTruncated), want, wantTrunc) {
			return false
		}
		if int(aws.ToInt32(out.KeyCount)) != len(got) {
			t.Errorf("V2 %v page %d: KeyCount %d, want %d", p, page, aws.ToInt32(out.KeyCount), len(got))
			return false
		}
		if dec(out.Prefix) != p.prefix || dec(out.Delimiter) != p.delim || dec(out.StartAfter) != p.startAfter || aws.ToInt32(out.MaxKeys) != int32(p.maxKeys) {
			t.Errorf("V2 %v page %d: echoed Prefix %q Delimiter %q StartAfter %q MaxKeys %d", p, page,
				dec(out.Prefix), dec(out.Delimiter), dec(out.StartAfter), aws.ToInt32(out.MaxKeys))
			return false
		}
		if wantTrunc == (aws.ToString(out.NextContinuationToken) == "") {
			t.Errorf("V2 %v page %d: truncated=%v with NextContinuationToken %q", p, page, wantTrunc, aws.ToString(out.NextContinuationToken))
			return false
		}
		if page > 0 && aws.ToString(out.ContinuationToken) == "" {
			t.Errorf("V2 %v page %d: ContinuationToken not echoed", p, page)
			return false
		}
		if len(got) > 0 {
			cursor = got[len(got)-1].name
		}
		if !wantTrunc {
			break
		}
	}
	return true
}

// listVersions pages through ListObjectVersions (key-marker from
// startAfter) and compares every page with the model: in a bucket that was
// never versioned each key is one version, "null", the latest, and there
// are no delete markers. It pages by hand rather than with the SDK's
// paginator, which sends NextKeyMarker back as it came — still
// URL-encoded under encoding-type=url, as S3 returns it — where the
// caller must decode it.
func listVersions(t *testing.T, c *s3.Client, bucket string, sorted []string, p listParams) bool {
	t.Helper()
	dec := decoder(t, p.encode)
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), MaxKeys: aws.Int32(int32(p.maxKeys))}
	if p.prefix != "" {
		in.Prefix = aws.String(p.prefix)
	}
	if p.delim != "" {
		in.Delimiter = aws.String(p.delim)
	}
	if p.startAfter != "" {
		in.KeyMarker = aws.String(p.startAfter)
	}
	if p.encode {
		in.EncodingType = types.EncodingTypeUrl
	}
	cursor := p.startAfter
	for page := 0; ; page++ {
		if page > len(sorted)+2 {
			t.Errorf("versions %v: no end after %d pages", p, page)
			return false
		}
		out, err := c.ListObjectVersions(t.Context(), in)
		if err != nil {
			t.Errorf("versions %v page %d: %v", p, page, err)
			return false
		}
		if len(out.DeleteMarkers) != 0 {
			t.Errorf("versions %v: delete markers in an unversioned bucket", p)
			return false
		}
		var keys, prefixes []string
		for _, v := range out.Versions {
			keys = append(keys, dec(v.Key))
			if aws.ToString(v.VersionId) != "null" || !aws.ToBool(v.IsLatest) || v.ETag == nil || v.Size == nil || v.Owner == nil {
				t.Errorf("versions %v: entry %q: VersionId %q IsLatest %v ETag %v Size %v Owner %v", p, dec(v.Key),
					aws.ToString(v.VersionId), aws.ToBool(v.IsLatest), v.ETag, v.Size, v.Owner)
				return false
			}
		}
		for _, cp := range out.CommonPrefixes {
			prefixes = append(prefixes, dec(cp.Prefix))
		}
		got := merge(keys, prefixes)
		want, wantTrunc := modelPage(sorted, p.prefix, p.delim, cursor, p.maxKeys)
		if !comparePage(t, fmt.Sprintf("versions %v page %d (key-marker %q)", p, page, cursor), got, aws.ToBool(out.IsTruncated), want, wantTrunc) {
			return false
		}
		if dec(out.Prefix) != p.prefix || dec(out.Delimiter) != p.delim || dec(out.KeyMarker) != cursor || aws.ToInt32(out.MaxKeys) != int32(p.maxKeys) {
			t.Errorf("versions %v page %d: echoed Prefix %q Delimiter %q KeyMarker %q MaxKeys %d", p, page,
				dec(out.Prefix), dec(out.Delimiter), dec(out.KeyMarker), aws.ToInt32(out.MaxKeys))
			return false
		}
		if !wantTrunc {
			break
		}
		last := got[len(got)-1]
		if dec(out.NextKeyMarker) != last.name || (aws.ToString(out.NextVersionIdMarker) == "null") == last.prefix {
			t.Errorf("versions %v page %d: NextKeyMarker %q NextVersionIdMarker %q; last entry %v", p, page,
				dec(out.NextKeyMarker), aws.ToString(out.NextVersionIdMarker), last)
			return false
		}
		cursor = last.name
		in.KeyMarker, in.VersionIdMarker = aws.String(cursor), out.NextVersionIdMarker
	}
	return true
}

// TestConformanceListingDifferential stores the hostile keys and, for
// every combination of prefix, delimiter, start-after/marker and max-keys,
// pages through ListObjects and ListObjectsV2 (with and without
// encoding-type=url), comparing each page with modelPage.
func TestConformanceListingDifferential(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[2])
	bucket := makeBucket(t, c, "listing")
	for _, k := range hostileKeys {
		if len(k) > 1024 {
			t.Fatalf("test key longer than 1024 bytes: %d", len(k))
		}
	}
	putMany(t, c, bucket, hostileKeys)
	sorted := slices.Clone(hostileKeys)
	slices.Sort(sorted)

	// The full listing must hold exactly the keys, byte for byte.
	if got := listAll(t, c, bucket, ""); !slices.Equal(got, sorted) {
		t.Fatalf("full listing:\n got  %q\n want %q", got, sorted)
	}
	for _, k := range hostileKeys {
		if b := getBytes(t, c, bucket, k); string(b) != k {
			t.Errorf("GetObject(%q) = %q", k, b)
		}
	}

	prefixes := []string{"", "a", "a/", "a/b", "ü", "日本/", "long/", "nomatch"}
	delims := []string{"", "/", "-", "b", "😀", "/b"}
	starts := []string{"", "a", "a/", "a/b", "m", "ü", "zzzz"}
	maxKeys := []int{1, 2, 3, 4, 5, 1000}
	// One parallel subtest per prefix: the pages are many small requests,
	// and waiting on one leaves the CPUs to another.
	for _, prefix := range prefixes {
		t.Run("prefix="+prefix, func(t *testing.T) {
			t.Parallel()
			n := 0
		delimLoop:
			for _, delim := range delims {
				for _, start := range starts {
					for _, mk := range maxKeys {
						n++
						p := listParams{prefix: prefix, delim: delim, startAfter: start, maxKeys: mk, encode: n%2 == 0}
						ok := listV2(t, c, bucket, sorted, p)
						p.encode = !p.encode
						ok = listV1(t, c, bucket, sorted, p) && ok
						if n%2 == 0 {
							pv := p
							pv.encode = n%4 == 0
							ok = listVersions(t, c, bucket, sorted, pv) && ok
						}
						if !ok {
							// Keep the report readable: one failing
							// combination per prefix and delimiter is
							// enough.
							continue delimLoop
						}
					}
				}
			}
			t.Logf("%d parameter combinations compared with V1 and V2, half of them with ListObjectVersions", n)
		})
	}
}

// TestConformanceListingFeatures covers what the differential test does
// not: fetch-owner, encoding of hostile keys, empty buckets, bad
// parameters, and minio-go's listings.
func TestConformanceListingFeatures(t *testing.T) {
	g := startGateway(t)
	for _, cl := range g.sdkClients() {
		t.Run(cl.name, func(t *testing.T) {
			c := cl.Client
			ctx := t.Context()
			bucket := makeBucket(t, c, "features")

			out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
			if err != nil || len(out.Contents) != 0 || aws.ToBool(out.IsTruncated) || aws.ToInt32(out.KeyCount) != 0 {
				t.Errorf("ListObjectsV2(empty bucket) = %+v, %v", out, err)
			}
			if err == nil && aws.ToString(out.Name) != bucket {
				t.Errorf("ListObjectsV2: Name %q", aws.ToString(out.Name))
			}

			keys := []string{"enc/a b", "enc/a+b", "enc/a%b", "enc/ü", "enc/<&>", "enc/x/y"}
			putMany(t, c, bucket, keys)

			// encoding-type=url: the values decode back to the keys.
			v2, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
				Bucket: aws.String(bucket), Prefix: aws.String("enc/"), Delimiter: aws.String("/"),
				EncodingType: types.EncodingTypeUrl, FetchOwner: aws.Bool(true),
			})
			if err != nil {
				t.Fatalf("ListObjectsV2(encoding-type=url, fetch-owner): %v", err)
			}
			var got []string
			for _, o := range v2.Contents {
				raw := aws.ToString(o.Key)
				k, err := url.QueryUnescape(raw)
				if err != nil {
					t.Errorf("encoded key %q: %v", raw, err)
				}
				if strings.ContainsAny(raw, " <>&ü") {
					t.Errorf("encoding-type=url returned %q unencoded", raw)
				}
				got = append(got, k)
				if o.Owner == nil || aws.ToString(o.Owner.ID) == "" {
					t.Errorf("fetch-owner: %q has no Owner", k)
				}
			}
			want := []string{"enc/<&>", "enc/a b", "enc/a%b", "enc/a+b", "enc/ü"}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("encoded listing decodes to %q, want %q", got, want)
			}
			if len(v2.CommonPrefixes) != 1 || aws.ToString(v2.CommonPrefixes[0].Prefix) != "enc%2Fx%2F" && aws.ToString(v2.CommonPrefixes[0].Prefix) != "enc/x/" {
				t.Errorf("encoded CommonPrefixes %v", v2.CommonPrefixes)
			}

			// V1 returns Owner by default.
			v1, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String(bucket), Prefix: aws.String("enc/")})
			if err != nil {
				t.Fatalf("ListObjects: %v", err)
			}
			if len(v1.Contents) != len(keys) {
				t.Errorf("ListObjects: %d keys, want %d", len(v1.Contents), len(keys))
			}
			for _, o := range v1.Contents {
				if o.Owner == nil {
					t.Errorf("ListObjects: %q has no Owner", aws.ToString(o.Key))
				}
				if aws.ToString(o.ETag) != etagOf([]byte(aws.ToString(o.Key))) || aws.ToInt64(o.Size) != int64(len(aws.ToString(o.Key))) {
					t.Errorf("ListObjects: %q ETag %s Size %d", aws.ToString(o.Key), aws.ToString(o.ETag), aws.ToInt64(o.Size))
				}
			}

			// A continuation token that the gateway never issued.
			_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), ContinuationToken: aws.String("not-a-token!")})
			wantCode(t, "ListObjectsV2(bogus continuation-token)", err, 400, "InvalidArgument")
			_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), MaxKeys: aws.Int32(-1)})
			wantCode(t, "ListObjectsV2(max-keys=-1)", err, 400, "InvalidArgument")

			// ListObjectVersions: the keys as "null" versions, the markers
			// S3 accepts for such a bucket, and the ones it refuses.
			vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String("enc/"),
				KeyMarker: aws.String("enc/a b"), VersionIdMarker: aws.String("null")})
			if err != nil {
				t.Fatalf("ListObjectVersions(key-marker, version-id-marker null): %v", err)
			}
			got = got[:0]
			for _, v := range vs.Versions {
				got = append(got, aws.ToString(v.Key))
				if aws.ToString(v.ETag) != etagOf([]byte(aws.ToString(v.Key))) || aws.ToString(v.VersionId) != "null" || !aws.ToBool(v.IsLatest) {
					t.Errorf("ListObjectVersions: %q ETag %s VersionId %q IsLatest %v", aws.ToString(v.Key), aws.ToString(v.ETag), aws.ToString(v.VersionId), aws.ToBool(v.IsLatest))
				}
			}
			if want := []string{"enc/a%b", "enc/a+b", "enc/x/y", "enc/ü"}; !slices.Equal(got, want) {
				t.Errorf("ListObjectVersions after key-marker %q: %q, want %q", "enc/a b", got, want)
			}
			_, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), VersionIdMarker: aws.String("null")})
			wantCode(t, "ListObjectVersions(version-id-marker without key-marker)", err, 400, "InvalidArgument")
			_, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), KeyMarker: aws.String("enc/"), VersionIdMarker: aws.String("3HL4kqtJlcpXroDTDmJ")})
			wantCode(t, "ListObjectVersions(unknown version-id-marker)", err, 400, "InvalidArgument")
			_, err = c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("no-such-bucket-versions")})
			wantCode(t, "ListObjectVersions(no such bucket)", err, 404, "NoSuchBucket")
		})
	}

	t.Run("minio", func(t *testing.T) {
		c := g.minio(false)
		core := minio.Core{Client: c}
		ctx := t.Context()
		bucket := uniqueBucket("mlist")
		if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
			t.Fatal(err)
		}
		putMany(t, g.sdk(sdkModes[2]), bucket, hostileKeys)
		sorted := slices.Clone(hostileKeys)
		slices.Sort(sorted)

		for _, v1 := range []bool{false, true} {
			var got []string
			for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true, UseV1: v1, MaxKeys: 3}) {
				if o.Err != nil {
					t.Fatalf("ListObjects(UseV1=%v): %v", v1, o.Err)
				}
				got = append(got, o.Key)
			}
			if !slices.Equal(got, sorted) {
				t.Errorf("minio ListObjects(UseV1=%v):\n got  %q\n want %q", v1, got, sorted)
			}
		}
		// Core exposes the raw parameters (minio-go asks for
		// encoding-type=url and decodes).
		for _, p := range []listParams{{"a", "/", "", 2, true}, {"", "-", "a", 3, true}, {"日本/", "/", "", 1, true}} {
			cursor := p.startAfter
			token := ""
			for page := 0; ; page++ {
				res, err := core.ListObjectsV2(bucket, p.prefix, p.startAfter, token, p.delim, p.maxKeys)
				if err != nil {
					t.Fatalf("Core.ListObjectsV2 %v: %v", p, err)
				}
				var keys, prefixes []string
				for _, o := range res.Contents {
					keys = append(keys, o.Key)
				}
				for _, cp := range res.CommonPrefixes {
					prefixes = append(prefixes, cp.Prefix)
				}
				got := merge(keys, prefixes)
				want, trunc := modelPage(sorted, p.prefix, p.delim, cursor, p.maxKeys)
				if !comparePage(t, fmt.Sprintf("minio V2 %v page %d", p, page), got, res.IsTruncated, want, trunc) || !trunc {
					break
				}
				cursor, token = got[len(got)-1].name, res.NextContinuationToken
			}
			marker := p.startAfter
			for page := 0; ; page++ {
				res, err := core.ListObjects(bucket, p.prefix, marker, p.delim, p.maxKeys)
				if err != nil {
					t.Fatalf("Core.ListObjects %v: %v", p, err)
				}
				var keys, prefixes []string
				for _, o := range res.Contents {
					keys = append(keys, o.Key)
				}
				for _, cp := range res.CommonPrefixes {
					prefixes = append(prefixes, cp.Prefix)
				}
				got := merge(keys, prefixes)
				want, trunc := modelPage(sorted, p.prefix, p.delim, marker, p.maxKeys)
				if !comparePage(t, fmt.Sprintf("minio V1 %v page %d", p, page), got, res.IsTruncated, want, trunc) || !trunc {
					break
				}
				if res.NextMarker != got[len(got)-1].name {
					t.Errorf("minio V1 %v page %d: NextMarker %q, want %q", p, page, res.NextMarker, got[len(got)-1].name)
					break
				}
				marker = res.NextMarker
			}
		}
	})
}

// controlKeys are keys holding each C0 control character and DEL, which
// XML 1.0 has no character for (but tab, newline and carriage return),
// beside the keys they would be confused with if a listing replaced them:
// U+FFFD itself, a space, and the bare prefix.
func controlKeys() []string {
	keys := []string{"ctl/", "ctl/k", "ctl/ k", "ctl/\uFFFDk", "ctl/\uFFFEk", "ctl/~k"}
	for c := range 0x20 {
		keys = append(keys, "ctl/"+string(rune(c))+"k", "ctl/x"+string(rune(c)))
	}
	return append(keys, "ctl/\x7fk", "ctl/x\x7f")
}

// xmlRefs matches the references and entities of a ListBucketResult's text.
var xmlRefs = regexp.MustCompile(`&(#x[0-9A-Fa-f]+|#[0-9]+|lt|gt|amp|quot|apos);`)

// looseText undoes XML escaping the way S3's documents need and strict
// XML 1.0 parsers (encoding/xml among them) refuse: &#x1; is U+0001.
func looseText(t *testing.T, s string) string {
	t.Helper()
	return xmlRefs.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[1 : len(ref)-1]
		switch name {
		case "lt":
			return "<"
		case "gt":
			return ">"
		case "amp":
			return "&"
		case "quot":
			return `"`
		case "apos":
			return "'"
		}
		base, digits := 10, name[1:]
		if digits[0] == 'x' {
			base, digits = 16, digits[1:]
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			t.Fatalf("bad character reference %q", ref)
		}
		return string(rune(n))
	})
}

// rawListPage is what a client reading the XML by hand takes from a
// ListBucketResult.
type rawListPage struct {
	entries               []listEntry
	truncated             bool
	nextMarker, nextToken string
}

// rawList sends one signed ListObjects (V1) or ListObjectsV2 request with
// query q and reads the page with looseText, decoding encoding-type=url.
func rawList(t *testing.T, g *gateway, bucket string, q url.Values) rawListPage {
	t.Helper()
	resp, body := g.do(g.rawRequest(http.MethodGet, "/"+bucket, strings.ReplaceAll(q.Encode(), "+", "%20"), nil), nil, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("list %v: %d %s", q, resp.StatusCode, body)
	}
	text := func(s string) string {
		v := looseText(t, s)
		if q.Get("encoding-type") == "url" {
			d, err := url.QueryUnescape(v)
			if err != nil {
				t.Fatalf("encoding-type=url value %q does not decode: %v", v, err)
			}
			v = d
		}
		return v
	}
	doc := string(body)
	var keys, prefixes []string
	for _, m := range regexp.MustCompile(`<Contents><Key>(.*?)</Key>`).FindAllStringSubmatch(doc, -1) {
		keys = append(keys, text(m[1]))
	}
	for _, m := range regexp.MustCompile(`<CommonPrefixes><Prefix>(.*?)</Prefix>`).FindAllStringSubmatch(doc, -1) {
		prefixes = append(prefixes, text(m[1]))
	}
	p := rawListPage{entries: merge(keys, prefixes), truncated: strings.Contains(doc, "<IsTruncated>true</IsTruncated>")}
	if m := regexp.MustCompile(`<NextMarker>(.*?)</NextMarker>`).FindStringSubmatch(doc); m != nil {
		p.nextMarker = text(m[1])
	}
	if m := regexp.MustCompile(`<NextContinuationToken>(.*?)</NextContinuationToken>`).FindStringSubmatch(doc); m != nil {
		p.nextToken = looseText(t, m[1])
	}
	return p
}

// rawPageAll pages with max-keys=1 through raw requests, continuing as a
// client does: V1 from NextMarker, or the last key when there is none
// (no delimiter); V2 from NextContinuationToken. Every page must be the
// model's.
func rawPageAll(t *testing.T, g *gateway, bucket string, sorted []string, p listParams, v2 bool) {
	t.Helper()
	cursor, token := p.startAfter, ""
	for page := 0; ; page++ {
		if page > len(sorted)+2 {
			t.Fatalf("raw v2=%v %v: no end after %d pages", v2, p, page)
		}
		q := url.Values{"max-keys": {strconv.Itoa(p.maxKeys)}}
		if p.prefix != "" {
			q.Set("prefix", p.prefix)
		}
		if p.delim != "" {
			q.Set("delimiter", p.delim)
		}
		if p.encode {
			q.Set("encoding-type", "url")
		}
		switch {
		case v2 && token != "":
			q.Set("list-type", "2")
			q.Set("continuation-token", token)
		case v2:
			q.Set("list-type", "2")
			if cursor != "" {
				q.Set("start-after", cursor)
			}
		case cursor != "":
			q.Set("marker", cursor)
		}
		got := rawList(t, g, bucket, q)
		want, wantTrunc := modelPage(sorted, p.prefix, p.delim, cursor, p.maxKeys)
		if !comparePage(t, fmt.Sprintf("raw v2=%v %v page %d (after %q)", v2, p, page, cursor), got.entries, got.truncated, want, wantTrunc) {
			return
		}
		if !wantTrunc {
			return
		}
		last := got.entries[len(got.entries)-1].name
		switch {
		case v2:
			token = got.nextToken
		case got.nextMarker != "" && got.nextMarker != last:
			t.Fatalf("raw %v page %d: NextMarker %q, want the last entry %q", p, page, got.nextMarker, last)
		case got.nextMarker == "" && p.delim != "":
			t.Fatalf("raw %v page %d: truncated with a delimiter but no NextMarker", p, page)
		}
		cursor = last
	}
}

// TestConformanceListingControlKeys lists keys holding every C0 control
// character and DEL one key a page, with V1 markers and V2 continuation
// tokens, with and without encoding-type=url, through raw requests and
// aws-sdk-go-v2, comparing every page with modelPage: no key may be
// skipped or repeated. Without encoding-type S3 writes such a character
// as a reference (&#x1;) that strict XML 1.0 parsers refuse, the SDK's
// among them, so there the SDK must fail rather than read other keys.
func TestConformanceListingControlKeys(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[2])
	bucket := makeBucket(t, c, "ctlkeys")
	keys := controlKeys()
	putMany(t, c, bucket, keys)
	sorted := slices.Clone(keys)
	slices.Sort(sorted)

	for _, p := range []listParams{
		{maxKeys: 1},
		{prefix: "ctl/x", maxKeys: 1},
		{delim: "k", maxKeys: 1},
		{prefix: "ctl/", delim: "\x01", maxKeys: 1},
		{startAfter: "ctl/\x05k", maxKeys: 1},
		{maxKeys: 7},
	} {
		for _, encode := range []bool{false, true} {
			p.encode = encode
			rawPageAll(t, g, bucket, sorted, p, false)
			rawPageAll(t, g, bucket, sorted, p, true)
			if encode {
				listV1(t, c, bucket, sorted, p)
				listV2(t, c, bucket, sorted, p)
			}
		}
	}

	// Without encoding-type the SDK either reads the real keys or fails.
	out, err := c.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("ctl/x")})
	if err == nil {
		var got []string
		for _, o := range out.Contents {
			got = append(got, aws.ToString(o.Key))
		}
		want, _ := modelPage(sorted, "ctl/x", "", "", 1000)
		if !slices.Equal(merge(got, nil), want) {
			t.Errorf("ListObjectsV2 without encoding-type read other keys:\n got  %q\n want %v", got, shortEntries(want))
		}
	}
}

// rawVersionsPageAll pages through ListObjectVersions with raw requests,
// continuing from NextKeyMarker as a client does, and compares every page
// with the model. It also checks the echoed Prefix, Delimiter and
// KeyMarker read back to what was sent.
func rawVersionsPageAll(t *testing.T, g *gateway, bucket string, sorted []string, p listParams) {
	t.Helper()
	text := func(s string) string {
		v := looseText(t, s)
		if p.encode {
			d, err := url.QueryUnescape(v)
			if err != nil {
				t.Fatalf("encoding-type=url value %q does not decode: %v", v, err)
			}
			v = d
		}
		return v
	}
	field := func(doc, name string) string {
		m := regexp.MustCompile(`<` + name + `>(.*?)</` + name + `>`).FindStringSubmatch(doc)
		if m == nil {
			return ""
		}
		return text(m[1])
	}
	cursor := p.startAfter
	for page := 0; ; page++ {
		if page > len(sorted)+2 {
			t.Fatalf("raw versions %v: no end after %d pages", p, page)
		}
		q := url.Values{"versions": {""}, "max-keys": {strconv.Itoa(p.maxKeys)}}
		if p.prefix != "" {
			q.Set("prefix", p.prefix)
		}
		if p.delim != "" {
			q.Set("delimiter", p.delim)
		}
		if p.encode {
			q.Set("encoding-type", "url")
		}
		if cursor != "" {
			q.Set("key-marker", cursor)
		}
		resp, body := g.do(g.rawRequest(http.MethodGet, "/"+bucket, strings.ReplaceAll(q.Encode(), "+", "%20"), nil), nil, true)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("versions %v: %d %s", q, resp.StatusCode, body)
		}
		doc := string(body)
		var keys, prefixes []string
		for _, m := range regexp.MustCompile(`<Version><Key>(.*?)</Key>`).FindAllStringSubmatch(doc, -1) {
			keys = append(keys, text(m[1]))
		}
		for _, m := range regexp.MustCompile(`<CommonPrefixes><Prefix>(.*?)</Prefix>`).FindAllStringSubmatch(doc, -1) {
			prefixes = append(prefixes, text(m[1]))
		}
		got, truncated := merge(keys, prefixes), strings.Contains(doc, "<IsTruncated>true</IsTruncated>")
		want, wantTrunc := modelPage(sorted, p.prefix, p.delim, cursor, p.maxKeys)
		if !comparePage(t, fmt.Sprintf("raw versions %v page %d (key-marker %q)", p, page, cursor), got, truncated, want, wantTrunc) {
			return
		}
		if field(doc, "Prefix") != p.prefix || field(doc, "Delimiter") != p.delim || field(doc, "KeyMarker") != cursor {
			t.Fatalf("raw versions %v page %d: echoed Prefix %q Delimiter %q KeyMarker %q", p, page,
				field(doc, "Prefix"), field(doc, "Delimiter"), field(doc, "KeyMarker"))
		}
		if !wantTrunc {
			return
		}
		next, last := field(doc, "NextKeyMarker"), got[len(got)-1].name
		if next != last {
			t.Fatalf("raw versions %v page %d: NextKeyMarker %q, want the last entry %q", p, page, next, last)
		}
		cursor = next
	}
}

// TestConformanceListVersionsControlKeys is TestConformanceListingControlKeys
// for ListObjectVersions: keys holding every C0 control character and DEL,
// one a page, paged by NextKeyMarker with and without encoding-type=url.
// Keys, prefixes and markers must come back as the characters they hold
// (references without encoding-type, not U+FFFD), or paging skips keys.
func TestConformanceListVersionsControlKeys(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[2])
	bucket := makeBucket(t, c, "ctlversions")
	keys := controlKeys()
	putMany(t, c, bucket, keys)
	sorted := slices.Clone(keys)
	slices.Sort(sorted)

	for _, p := range []listParams{
		{maxKeys: 1},
		{prefix: "ctl/x", maxKeys: 1},
		{delim: "k", maxKeys: 1},
		{prefix: "ctl/", delim: "\x01", maxKeys: 1},
		{startAfter: "ctl/\x05k", maxKeys: 1},
		{maxKeys: 7},
	} {
		for _, encode := range []bool{false, true} {
			p.encode = encode
			rawVersionsPageAll(t, g, bucket, sorted, p)
			if encode {
				listVersions(t, c, bucket, sorted, p)
			}
		}
	}
}

// TestConformanceListV2EmptyContinuationToken: an empty continuation-token
// is no token, as S3 takes it (ceph/s3-tests
// test_bucket_listv2_continuationtoken_empty): the whole listing, from
// start-after when it is given, with the empty token echoed, which boto3
// and the SDKs read back as "".
func TestConformanceListV2EmptyContinuationToken(t *testing.T) {
	g := startGateway(t)
	c := g.sdk(sdkModes[0])
	ctx := t.Context()
	bucket := makeBucket(t, c, "emptytoken")
	keys := []string{"bar", "baz", "foo", "quxx"}
	for _, k := range keys {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: strings.NewReader(k)}); err != nil {
			t.Fatal(err)
		}
	}
	names := func(out *s3.ListObjectsV2Output) []string {
		var got []string
		for _, o := range out.Contents {
			got = append(got, aws.ToString(o.Key))
		}
		return got
	}
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), ContinuationToken: aws.String("")})
	if err != nil {
		t.Fatalf("ListObjectsV2 with an empty continuation-token: %v", err)
	}
	if got := names(out); !slices.Equal(got, keys) || aws.ToBool(out.IsTruncated) || out.ContinuationToken == nil || *out.ContinuationToken != "" {
		t.Errorf("ListObjectsV2 with an empty continuation-token: keys %q, truncated %v, ContinuationToken %v", got, aws.ToBool(out.IsTruncated), out.ContinuationToken)
	}
	out, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), ContinuationToken: aws.String(""), StartAfter: aws.String("baz")})
	if err != nil {
		t.Fatalf("ListObjectsV2 with an empty continuation-token and start-after: %v", err)
	}
	if got := names(out); !slices.Equal(got, keys[2:]) {
		t.Errorf("ListObjectsV2 with an empty continuation-token and start-after: keys %q, want %q", got, keys[2:])
	}
	req := g.rawRequest("GET", "/"+bucket, "list-type=2&continuation-token=&max-keys=1", nil)
	resp, body := g.do(req, nil, true)
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("<ContinuationToken></ContinuationToken>")) || !bytes.Contains(body, []byte("<Key>bar</Key>")) {
		t.Errorf("raw ListObjectsV2 with continuation-token=: %d %s", resp.StatusCode, body)
	}
	out, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil || out.ContinuationToken != nil {
		t.Errorf("ListObjectsV2 without a token: ContinuationToken %v, %v", out.ContinuationToken, err)
	}
}
