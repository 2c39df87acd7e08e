package api

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// refEntries is how the ListObjects handlers built their documents for
// xml.Marshal before the hand-written renderer; it is the reference the
// renderer is checked against.
func refEntries(p listParams, page *object.ListPage, withOwner bool, accessKey string) ([]listEntry, []commonPrefix) {
	var own *owner
	if withOwner {
		o := ownerOf(accessKey)
		own = &o
	}
	contents := make([]listEntry, 0, len(page.Objects))
	for i := range page.Objects {
		o := &page.Objects[i]
		e := listEntry{
			Key:          p.encode(o.Key),
			LastModified: isoTime(o.LastModified),
			ETag:         `"` + o.ETag + `"`,
			Size:         o.Size,
			Owner:        own,
			StorageClass: "STANDARD",
		}
		if len(o.Checksums) > 0 {
			e.ChecksumAlgorithm = o.Checksums[0].Algorithm
			e.ChecksumType = o.Checksums[0].Type
		}
		contents = append(contents, e)
	}
	prefixes := make([]commonPrefix, 0, len(page.CommonPrefixes))
	for _, cp := range page.CommonPrefixes {
		prefixes = append(prefixes, commonPrefix{Prefix: p.encode(cp)})
	}
	return contents, prefixes
}

// hostileXMLKeys are keys whose escaping encoding/xml and a hand-written
// encoder could disagree on: markup characters, the three whitespace
// characters XML keeps by reference, other control characters, DEL, the
// replacement character itself, invalid UTF-8, noncharacters and
// surrogates encoded in UTF-8.
var hostileXMLKeys = []string{
	"plain/key.txt",
	`a<b>c&d"e'f`,
	"tab\there\nnew\rcr",
	"\x00\x01\x08\x0b\x0c\x1f",
	"del\x7f",
	"é日本\U0001F600",
	"\uFFFD literal",
	"bad\xffutf8\xc3",
	"\xef\xbf\xbe\xef\xbf\xbf", // U+FFFE, U+FFFF
	"\xed\xa0\x80",             // a UTF-8-encoded surrogate
	"\xf4\x90\x80\x80",         // beyond U+10FFFF
	"]]>",
	"&amp;&#34;",
	" ",
	"%2F+ /",
}

func refListV1(t testing.TB, out listBucketResultV1, p listParams, page *object.ListPage, accessKey string) []byte {
	out.Contents, out.CommonPrefixes = refEntries(p, page, true, accessKey)
	b, err := xml.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(xml.Header), b...)
}

func refListV2(t testing.TB, out listBucketResultV2, p listParams, page *object.ListPage, withOwner bool, accessKey string) []byte {
	out.Contents, out.CommonPrefixes = refEntries(p, page, withOwner, accessKey)
	b, err := xml.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(xml.Header), b...)
}

func hostilePage(keys []string) object.ListPage {
	var page object.ListPage
	for i, k := range keys {
		o := metadata.Object{
			Key:          k,
			Size:         int64(i) * 1000,
			ETag:         "9b2cf535f27731c974343645a3985328",
			LastModified: time.Date(2026, 11, 30, 1, 2, 3, 456789000, time.FixedZone("x", 3600)),
		}
		if i%2 == 0 {
			o.Checksums = []metadata.Checksum{{Algorithm: "CRC64NVME", Value: "AAAAAAAAAAA=", Type: "FULL_OBJECT"}}
		}
		page.Objects = append(page.Objects, o)
		page.CommonPrefixes = append(page.CommonPrefixes, k+"/")
	}
	return page
}

// charRefs matches the hexadecimal character references appendXMLText
// writes for the characters XML 1.0 has no Char for.
var charRefs = regexp.MustCompile(`&#x([0-9A-F]+);`)

// asEncodingXML undoes the one documented difference between the renderer
// and encoding/xml: it turns the references for C0 controls and U+FFFE,
// U+FFFF back into the U+FFFD encoding/xml writes. A literal "&#x1;" in a
// key is written "&amp;#x1;", which the pattern does not match.
func asEncodingXML(b []byte) []byte {
	return charRefs.ReplaceAllFunc(b, func(ref []byte) []byte {
		n, err := strconv.ParseUint(string(ref[3:len(ref)-1]), 16, 32)
		if err == nil && (n < 0x20 && n != '\t' && n != '\n' && n != '\r' || n == 0xFFFE || n == 0xFFFF) {
			return []byte("\uFFFD")
		}
		return ref
	})
}

// refXMLText is the escaping appendXMLText documents, built from
// xml.EscapeText one rune at a time.
func refXMLText(t testing.TB, s string) []byte {
	var out bytes.Buffer
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		switch {
		case width == 1 && r < 0x20 && r != '\t' && r != '\n' && r != '\r', width == 3 && (r == 0xFFFE || r == 0xFFFF):
			fmt.Fprintf(&out, "&#x%X;", r)
		default:
			if err := xml.EscapeText(&out, []byte(s[i:i+width])); err != nil {
				t.Fatal(err)
			}
		}
		i += width
	}
	return out.Bytes()
}

// checkSame fails unless got is the bytes of want once asEncodingXML undid
// the character references, and then decodes to the same document.
func checkSame[T any](t testing.TB, got, want []byte) {
	t.Helper()
	if !bytes.Equal(asEncodingXML(got), want) {
		t.Fatalf("renderer and xml.Marshal differ:\n got %q\nwant %q", got, want)
	}
	// encoding/xml refuses the references it has no Char for, as strict
	// XML 1.0 parsers do, so the documents are compared with them undone.
	var gu, w T
	if err := xml.Unmarshal(asEncodingXML(got), &gu); err != nil {
		t.Fatalf("renderer output does not parse: %v\n%q", err, got)
	}
	if err := xml.Unmarshal(want, &w); err != nil {
		t.Fatalf("xml.Marshal output does not parse: %v", err)
	}
	if !reflect.DeepEqual(gu, w) {
		t.Fatalf("decoded documents differ:\n got %+v\nwant %+v", gu, w)
	}
}

// checkListXML renders a V1, a V2 and a ListVersionsResult document for
// one set of inputs and compares each with xml.Marshal of the structs.
func checkListXML(t testing.TB, keys []string, prefix, delim, accessKey string, encodeURL, withOwner bool) {
	p := listParams{prefix: prefix, delimiter: delim, maxKeys: 1000, encodeURL: encodeURL}
	page := hostilePage(keys)
	page.Truncated = len(keys)%2 == 1
	v1 := listBucketResultV1{NS: s3NS, Name: "bucket", Prefix: p.encode(prefix), Marker: p.encode(prefix + "m"),
		MaxKeys: p.maxKeys, Delimiter: p.encode(delim), IsTruncated: page.Truncated, NextMarker: p.encode(delim)}
	v2 := listBucketResultV2{NS: s3NS, Name: "bucket", Prefix: p.encode(prefix), StartAfter: p.encode(delim),
		ContinuationToken: &prefix, NextContinuationToken: delim, KeyCount: 2 * len(keys),
		MaxKeys: p.maxKeys, Delimiter: p.encode(delim), IsTruncated: page.Truncated}
	if encodeURL {
		v1.EncodingType, v2.EncodingType = "url", "url"
	}
	checkSame[listBucketResultV1](t, appendListV1(append([]byte(nil), xml.Header...), &v1, p, &page, accessKey), refListV1(t, v1, p, &page, accessKey))
	checkSame[listBucketResultV2](t, appendListV2(append([]byte(nil), xml.Header...), &v2, p, &page, withOwner, accessKey), refListV2(t, v2, p, &page, withOwner, accessKey))

	vs := listVersionsResult{NS: s3NS, Name: "bucket", Prefix: p.encode(prefix), KeyMarker: p.encode(prefix + "m"),
		VersionIDMarker: "null", NextKeyMarker: p.encode(delim), NextVersionIDMarker: delim, MaxKeys: p.maxKeys,
		Delimiter: p.encode(delim), IsTruncated: page.Truncated, EncodingType: v1.EncodingType}
	entries, prefixes := refEntries(p, &page, true, accessKey)
	for _, e := range entries {
		// Each key gets a delete marker before its version, so that the
		// renderer is checked on interleaved Version and DeleteMarker
		// elements.
		vs.Versions = append(vs.Versions, versionEntry{XMLName: deleteMarkerName, Key: e.Key, VersionID: "00000000000000000000000001", IsLatest: true,
			LastModified: e.LastModified, Owner: *e.Owner})
		vs.Versions = append(vs.Versions, versionEntry{Key: e.Key, VersionID: "null", LastModified: e.LastModified,
			ETag: e.ETag, ChecksumAlgorithm: e.ChecksumAlgorithm, ChecksumType: e.ChecksumType, Size: &e.Size, Owner: *e.Owner, StorageClass: e.StorageClass})
	}
	vs.CommonPrefixes = prefixes
	ref, err := xml.Marshal(vs)
	if err != nil {
		t.Fatal(err)
	}
	checkSame[listVersionsResult](t, appendListVersions(append([]byte(nil), xml.Header...), &vs), append([]byte(xml.Header), ref...))
}

func TestListXMLMatchesEncodingXML(t *testing.T) {
	for _, encodeURL := range []bool{false, true} {
		for _, withOwner := range []bool{false, true} {
			checkListXML(t, hostileXMLKeys, "", "", "AKIA<&>", encodeURL, withOwner)
			checkListXML(t, nil, "", "", "", encodeURL, withOwner)
			for _, k := range hostileXMLKeys {
				checkListXML(t, []string{k}, k, k, k, encodeURL, withOwner)
			}
		}
	}
}

func TestAppendXMLText(t *testing.T) {
	for _, s := range append(hostileXMLKeys, "", strings.Repeat("\x80", 5), "a\U0010FFFFb") {
		if got, want := appendXMLText(nil, s), refXMLText(t, s); !bytes.Equal(got, want) {
			t.Errorf("appendXMLText(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzListXML checks the hand-written ListBucketResult renderer against
// xml.Marshal, byte for byte but for the documented character references,
// for arbitrary keys, prefixes, delimiters and owners.
func FuzzListXML(f *testing.F) {
	// Seeds: every hostile key as a key, then markup in the prefix and
	// delimiter, and invalid UTF-8 in the owner.
	for _, k := range hostileXMLKeys {
		f.Add(k, "", "", "AKIA", false, false)
	}
	f.Add("a/b", "a<", "/&", "AKIA", true, true)
	f.Add("k", "\xff", "\r\n", "\xc3\x28", false, true)
	f.Fuzz(func(t *testing.T, key, prefix, delim, accessKey string, encodeURL, withOwner bool) {
		checkListXML(t, []string{key, prefix + key}, prefix, delim, accessKey, encodeURL, withOwner)
		if got, want := appendXMLText(nil, key), refXMLText(t, key); !bytes.Equal(got, want) {
			t.Fatalf("appendXMLText(%q) = %q, want %q", key, got, want)
		}
	})
}

// BenchmarkListXML renders a 1,000-key page with xml.Marshal and with
// the hand-written renderer.
func BenchmarkListXML(b *testing.B) {
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "many/object-" + strings.Repeat("x", i%7) + itoa(int64(i))
	}
	page := hostilePage(keys)
	page.CommonPrefixes = nil
	p := listParams{maxKeys: 1000}
	v2 := listBucketResultV2{NS: s3NS, Name: "bucket", KeyCount: 1000, MaxKeys: 1000}
	b.Run("encoding-xml", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			refListV2(b, v2, p, &page, false, "")
		}
	})
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = appendListV2(append(buf[:0], xml.Header...), &v2, p, &page, false, "")
		}
	})
}
