package api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

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
		{"b/k?versionId=abc", "", "", false},
		{"b", "", "", false},
		{"b/", "", "", false},
		{"/k", "", "", false},
		{"b/%zz", "", "", false},
	}
	for _, c := range cases {
		b, k, err := parseCopySource(c.in)
		if (err == nil) != c.ok || b != c.bucket || k != c.key {
			t.Errorf("parseCopySource(%q) = %q, %q, %v", c.in, b, k, err)
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
