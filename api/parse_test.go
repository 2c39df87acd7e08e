package api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func TestParseListParams(t *testing.T) {
	cases := []struct {
		query   string
		want    listParams
		errCode s3err.Code
	}{
		{"", listParams{maxKeys: 1000}, -1},
		{"prefix=a%2Fb&delimiter=%2F", listParams{prefix: "a/b", delimiter: "/", maxKeys: 1000}, -1},
		{"max-keys=0", listParams{maxKeys: 0}, -1},
		{"max-keys=5000", listParams{maxKeys: 1000}, -1},
		{"max-keys=-1", listParams{}, s3err.InvalidArgument},
		{"max-keys=abc", listParams{}, s3err.InvalidArgument},
		{"encoding-type=url", listParams{maxKeys: 1000, encodeURL: true}, -1},
		{"encoding-type=base64", listParams{}, s3err.InvalidEncodingType},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.query)
		got, err := parseListParams(q)
		if c.errCode >= 0 {
			if e := s3err.As(err); e == nil || e.Code != c.errCode {
				t.Errorf("%q: err %v, want %s", c.query, err, c.errCode)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.query, got, err, c.want)
		}
	}
}

func TestParseCopySource(t *testing.T) {
	cases := []struct {
		in          string
		bucket, key string
		ok          bool
	}{
		{"b/k", "b", "k", true},
		{"/b/dir/k", "b", "dir/k", true},
		{"b/a%20b%2Bc", "b", "a b+c", true},
		{"b/%C3%A9", "b", "é", true},
		{"b/k?versionId=null", "b", "k", true},
		{"b/k?versionId=abc", "b", "k", true}, // the layer checks the id
		{"b/k?versionId=", "", "", false},
		{"b", "", "", false},
		{"b/", "", "", false},
		{"/k", "", "", false},
		{"b/%zz", "", "", false},
	}
	for _, c := range cases {
		src, err := parseCopySource(c.in)
		if (err == nil) != c.ok || src.bucket != c.bucket || src.key != c.key {
			t.Errorf("parseCopySource(%q) = %q, %q, %v", c.in, src.bucket, src.key, err)
		}
	}
	for in, want := range map[string]string{"b/k": "", "b/k?versionId=null": "null", "/b/d/k?versionId=0123456789ABCDEFGHIJKLMNOP": "0123456789ABCDEFGHIJKLMNOP"} {
		if src, err := parseCopySource(in); err != nil || src.versionID != want {
			t.Errorf("parseCopySource(%q): version %q, %v; want %q", in, src.versionID, err, want)
		}
	}
}

func TestObjectHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("Content-Encoding", "aws-chunked,gzip")
	h.Set("X-Amz-Meta-Colour", "blue")
	h.Set("x-amz-meta-A", "1")
	got, err := objectHeaders(h)
	if err != nil {
		t.Fatal(err)
	}
	if got.ContentType != "binary/octet-stream" || got.ContentEncoding != "gzip" {
		t.Fatalf("got %+v", got)
	}
	if len(got.User) != 2 || got.User[0].Key != "a" || got.User[1].Key != "colour" || got.User[1].Value != "blue" {
		t.Fatalf("user metadata %+v", got.User)
	}
	h.Set("X-Amz-Meta-Big", strings.Repeat("x", 2048))
	if _, err := objectHeaders(h); s3err.As(err).Code != s3err.MetadataTooLarge {
		t.Fatalf("err %v, want MetadataTooLarge", err)
	}
}

func TestStoredContentEncoding(t *testing.T) {
	for in, want := range map[string]string{"": "", "gzip": "gzip", "aws-chunked": "", "aws-chunked, gzip": "gzip", "gzip,aws-chunked,br": "gzip,br"} {
		if got := storedContentEncoding(in); got != want {
			t.Errorf("storedContentEncoding(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDeleteConditions(t *testing.T) {
	mod := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	cases := []struct {
		etag, size, lastModified string
		wantSize                 int64 // -1: no size condition
		wantTime                 time.Time
		errCode                  s3err.Code // -1: no error
	}{
		{"", "", "", -1, time.Time{}, -1},
		{`"abc"`, "", "", -1, time.Time{}, -1},
		{"", "0", "", 0, time.Time{}, -1},
		{"", " 42 ", "", 42, time.Time{}, -1},
		{"", "", "Wed, 04 Mar 2026 05:06:07 GMT", -1, mod, -1},
		{"", "", "Wednesday, 04-Mar-26 05:06:07 GMT", -1, mod, -1},
		{"", "-1", "", -1, time.Time{}, s3err.InvalidArgument},
		{"", "5.0", "", -1, time.Time{}, s3err.InvalidArgument},
		{"", "", "2026-03-04T05:06:07Z", -1, time.Time{}, s3err.InvalidArgument},
	}
	for _, c := range cases {
		got, err := deleteConditions(c.etag, c.size, c.lastModified)
		if c.errCode >= 0 {
			if code, _ := s3err.CodeOf(err); code != c.errCode {
				t.Errorf("deleteConditions(%q, %q, %q) error %v, want %v", c.etag, c.size, c.lastModified, err, c.errCode)
			}
			continue
		}
		if err != nil {
			t.Errorf("deleteConditions(%q, %q, %q): %v", c.etag, c.size, c.lastModified, err)
			continue
		}
		if got.IfMatch != c.etag || !got.IfMatchLastModified.Equal(c.wantTime) ||
			(got.IfMatchSize == nil) != (c.wantSize < 0) || got.IfMatchSize != nil && *got.IfMatchSize != c.wantSize {
			t.Errorf("deleteConditions(%q, %q, %q) = %+v", c.etag, c.size, c.lastModified, got)
		}
	}
}
