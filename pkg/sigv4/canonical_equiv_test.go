package sigv4

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// canonicalRequest is the canonical request verify signs, built with the
// append functions.
func canonicalRequest(r *http.Request, pairs []queryPair, skip, signedHeaders, payload string) (string, error) {
	b, err := appendCanonicalURI(append([]byte(r.Method), '\n'), rawPath(r))
	if err != nil {
		return "", err
	}
	signed := appendSplit(nil, signedHeaders, ';')
	return string(appendCanonicalTail(b, r, pairs, skip, signed, signedHeaders, payload)), nil
}

// FuzzCanonicalRequest checks the buffer-appending canonicalisation
// against the strings.Builder code it replaced (canonical_ref_test.go),
// for hostile paths, queries, signed-header lists and header values.
func FuzzCanonicalRequest(f *testing.F) {
	// Seeds: a presigned query (sorted, with an escaped credential), an
	// unsorted one with repeated keys and values that sort differently
	// once encoded, empty pairs, '+', and a path needing escaping.
	f.Add("/b/k", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=abc", "host", " a  b ")
	f.Add("/b/a%20b/%E6%97%A5", "b=2&a=1&a=0&prefix=a%2Fb&prefix=a-b&&=&k=a+b", "host;x-amz-date;x-amz-meta-a", "x")
	f.Add("", "z&y=&x==&w=%zz", ";;", "")
	f.Add("/b//x/./y/../z+~!*'()", "uploads&list-type=2&prefix=&delimiter=%2F", "content-length;host;transfer-encoding", "\t v \t")
	f.Add("/%zz", "a=1", "host", "")
	f.Fuzz(func(t *testing.T, path, query, signedHeaders, value string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RequestURI = path + "?" + query
		if path == "" || path[0] != '/' {
			r.RequestURI = ""
			r.URL.Path, r.URL.RawPath = path, ""
			r.URL.RawQuery = query
		}
		r.Host = "h:9000" + value
		r.Header["X-Amz-Date"] = []string{value}
		r.Header["X-Amz-Meta-A"] = []string{value, "  " + value}
		r.TransferEncoding = []string{value}
		pairs, err := parseQuery(rawQuery(r))
		if err != nil {
			return
		}
		for _, skip := range []string{"", "X-Amz-Signature", "a"} {
			want, werr := refCanonicalRequest(r, pairs, skip, signedHeaders, UnsignedPayload)
			got, gerr := canonicalRequest(r, pairs, skip, signedHeaders, UnsignedPayload)
			if (werr != nil) != (gerr != nil) || got != want {
				t.Fatalf("path %q query %q signed %q skip %q:\n got %q, %v\nwant %q, %v", path, query, signedHeaders, skip, got, gerr, want, werr)
			}
		}
		if got, want := appendSplit(nil, signedHeaders, ';'), strings.Split(signedHeaders, ";"); strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("appendSplit(%q) = %q, want %q", signedHeaders, got, want)
		}
	})
}

// TestMACMatchesHMAC checks macSHA256 against crypto/hmac for keys
// shorter than, equal to and longer than the block size and messages
// around it.
func TestMACMatchesHMAC(t *testing.T) {
	for _, kn := range []int{0, 1, 32, 63, 64, 65, 200} {
		for _, mn := range []int{0, 1, 55, 64, 130, 191, 192, 300, 5000} {
			key := bytes.Repeat([]byte{byte(kn + 1)}, kn)
			msg := bytes.Repeat([]byte{byte(mn*7 + 3)}, mn)
			m := hmac.New(sha256.New, key)
			m.Write(msg)
			want := m.Sum(nil)
			var scratch [256]byte
			got := macSHA256(key, msg, scratch[:0])
			if !bytes.Equal(got[:], want) {
				t.Fatalf("key %d bytes, msg %d bytes: %x, want %x", kn, mn, got, want)
			}
		}
	}
}

// TestSplitCredential checks splitCredential against strings.Split.
func TestSplitCredential(t *testing.T) {
	for _, c := range []string{"", "/", "AK/d/r/s/t", "/d/r/s/t", "AK/d/r/s/t/", "AK/d/r/s", "AK////", "////", "a/b/c/d/e/f", "AK/20130524/us-east-1/s3/aws4_request"} {
		parts, ok := splitCredential(c)
		want := strings.Split(c, "/")
		wantOK := len(want) == 5 && want[0] != ""
		if ok != wantOK || (ok && strings.Join(parts[:], "/") != c) {
			t.Errorf("splitCredential(%q) = %q, %v; want %q, %v", c, parts, ok, want, wantOK)
		}
	}
}

// FuzzParseAmzDate checks parseAmzDate against time.Parse.
func FuzzParseAmzDate(f *testing.F) {
	// Seeds: valid times, a leap day and a non-leap one, out-of-range
	// fields, year 0, a fraction time.Parse accepts, and junk.
	for _, s := range []string{"20130524T000000Z", "20240229T235959Z", "20230229T000000Z", "20131324T000000Z",
		"20130532T000000Z", "20130524T240000Z", "20130524T006000Z", "20130524T000060Z", "00000101T000000Z",
		"20130524T000000.5Z", "2013-05-24T00:00:00Z", "20130524T00000aZ", "+0130524T000000Z", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gerr := parseAmzDate(s)
		want, werr := time.Parse(amzDateFmt, s)
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) ||
			!got.Equal(want) || got.Location() != want.Location() {
			t.Fatalf("parseAmzDate(%q) = %v, %v; time.Parse = %v, %v", s, got, gerr, want, werr)
		}
	})
}

// FuzzQueryUnescape checks queryUnescape against url.QueryUnescape.
func FuzzQueryUnescape(f *testing.F) {
	for _, s := range []string{"", "AWS4-HMAC-SHA256", "a+b", "a%2Fb", "%zz", "%", "a b;c=d&e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gerr := queryUnescape(s)
		want, werr := url.QueryUnescape(s)
		if got != want || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("queryUnescape(%q) = %q, %v; want %q, %v", s, got, gerr, want, werr)
		}
	})
}
