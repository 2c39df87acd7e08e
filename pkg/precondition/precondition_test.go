package precondition

import (
	"net/http"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The object every case is evaluated against. Its Last-Modified carries
// sub-second precision that clients never see.
var (
	objETag = "9b2cf535f27731c974343645a3985328"
	objMod  = time.Date(2024, 3, 10, 12, 0, 0, 700_000_000, time.UTC)
)

const (
	before = "Sun, 10 Mar 2024 11:59:59 GMT"
	same   = "Sun, 10 Mar 2024 12:00:00 GMT" // Last-Modified as sent to clients
	after  = "Sun, 10 Mar 2024 12:00:01 GMT"
	match  = `"9b2cf535f27731c974343645a3985328"`
	other  = `"00000000000000000000000000000000"`
)

// want is the expected outcome: 0 means proceed.
type want int

const (
	proceed want = iota
	fail412
	fail304
)

func outcome(t *testing.T, err error) want {
	t.Helper()
	if err == nil {
		return proceed
	}
	switch code, _ := s3err.CodeOf(err); code {
	case s3err.PreconditionFailed:
		return fail412
	case s3err.NotModified:
		return fail304
	default:
		t.Fatalf("unexpected error %v", err)
		return proceed
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		h    Headers
		get  want // Check
		copy want // CheckCopySource
	}{
		{"none", Headers{}, proceed, proceed},

		{"if-match true", Headers{IfMatch: match}, proceed, proceed},
		{"if-match false", Headers{IfMatch: other}, fail412, fail412},
		{"if-match unquoted", Headers{IfMatch: objETag}, proceed, proceed},
		{"if-match list", Headers{IfMatch: other + ", " + match}, proceed, proceed},
		{"if-match list false", Headers{IfMatch: other + `,"x"`}, fail412, fail412},
		{"if-match star", Headers{IfMatch: "*"}, proceed, proceed},
		{"if-match weak never strong-matches", Headers{IfMatch: "W/" + match}, fail412, fail412},
		{"if-match empty quotes", Headers{IfMatch: `""`}, fail412, fail412},

		{"if-unmodified-since true (same second)", Headers{IfUnmodifiedSince: same}, proceed, proceed},
		{"if-unmodified-since true (later)", Headers{IfUnmodifiedSince: after}, proceed, proceed},
		{"if-unmodified-since false", Headers{IfUnmodifiedSince: before}, fail412, fail412},
		{"if-unmodified-since unparsable ignored", Headers{IfUnmodifiedSince: "yesterday"}, proceed, proceed},

		// S3: If-Match true and If-Unmodified-Since false → 200 and the data.
		{"if-match true + ius false", Headers{IfMatch: match, IfUnmodifiedSince: before}, proceed, proceed},
		{"if-match false + ius true", Headers{IfMatch: other, IfUnmodifiedSince: after}, fail412, fail412},

		{"if-none-match true", Headers{IfNoneMatch: other}, proceed, proceed},
		{"if-none-match false", Headers{IfNoneMatch: match}, fail304, fail412},
		{"if-none-match weak compare", Headers{IfNoneMatch: "W/" + match}, fail304, fail412},
		{"if-none-match unquoted", Headers{IfNoneMatch: objETag}, fail304, fail412},
		{"if-none-match star", Headers{IfNoneMatch: "*"}, fail304, fail412},
		{"if-none-match list", Headers{IfNoneMatch: `"a", ` + match}, fail304, fail412},

		{"if-modified-since true", Headers{IfModifiedSince: before}, proceed, proceed},
		{"if-modified-since false (same second)", Headers{IfModifiedSince: same}, fail304, fail412},
		{"if-modified-since false (later)", Headers{IfModifiedSince: after}, fail304, fail412},
		{"if-modified-since unparsable ignored", Headers{IfModifiedSince: "2024-03-10"}, proceed, proceed},

		// S3: If-None-Match false and If-Modified-Since true → 304 (412 for copy).
		{"inm false + ims true", Headers{IfNoneMatch: match, IfModifiedSince: before}, fail304, fail412},
		// RFC 9110 §13.1.3: If-Modified-Since is ignored when If-None-Match is present.
		{"inm true + ims false", Headers{IfNoneMatch: other, IfModifiedSince: after}, proceed, proceed},

		// 412 takes precedence over 304.
		{"if-match false + inm false", Headers{IfMatch: other, IfNoneMatch: match}, fail412, fail412},
		{"ius false + ims false", Headers{IfUnmodifiedSince: before, IfModifiedSince: after}, fail412, fail412},
		{"if-match true + inm false", Headers{IfMatch: match, IfNoneMatch: match}, fail304, fail412},
		{"all four true", Headers{IfMatch: match, IfUnmodifiedSince: after, IfNoneMatch: other, IfModifiedSince: before}, proceed, proceed},

		// A date in the future is invalid when the caller supplies Now.
		{"ims in the future with Now", Headers{IfModifiedSince: "Mon, 11 Mar 2024 00:00:00 GMT", Now: objMod.Add(time.Hour)}, proceed, proceed},
		{"ims in the past with Now", Headers{IfModifiedSince: after, Now: objMod.Add(time.Hour)}, fail304, fail412},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outcome(t, Check(tt.h, objETag, objMod)); got != tt.get {
				t.Errorf("Check = %v, want %v", got, tt.get)
			}
			if got := outcome(t, CheckCopySource(tt.h, objETag, objMod)); got != tt.copy {
				t.Errorf("CheckCopySource = %v, want %v", got, tt.copy)
			}
		})
	}
}

func TestParseHTTPDate(t *testing.T) {
	wantT := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	for _, s := range []string{
		"Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
		"Sunday, 06-Nov-94 08:49:37 GMT", // RFC 850
		"Sun Nov  6 08:49:37 1994",       // asctime
		" Sun, 06 Nov 1994 08:49:37 GMT ",
	} {
		got, ok := parseHTTPDate(s)
		if !ok || !got.Equal(wantT) {
			t.Errorf("parseHTTPDate(%q) = %v, %v; want %v", s, got, ok, wantT)
		}
	}
	for _, s := range []string{"", "1994-11-06T08:49:37Z", "Sun, 06 Nov 1994 08:49:37 PST", "garbage"} {
		if _, ok := parseHTTPDate(s); ok {
			t.Errorf("parseHTTPDate(%q) ok, want invalid", s)
		}
	}
}

func TestStatuses(t *testing.T) {
	if s := s3err.As(Check(Headers{IfNoneMatch: "*"}, objETag, objMod)).Code.Status(); s != 304 {
		t.Errorf("If-None-Match status = %d, want 304", s)
	}
	if s := s3err.As(Check(Headers{IfMatch: other}, objETag, objMod)).Code.Status(); s != 412 {
		t.Errorf("If-Match status = %d, want 412", s)
	}
}

func TestRangeApplies(t *testing.T) {
	cases := []struct {
		ifRange string
		want    bool
	}{
		{"", true},                               // no If-Range: the Range stands
		{match, true},                            // the current ETag, quoted
		{objETag, true},                          // and bare, as the AWS CLI passes it
		{" " + match + " ", true},                // surrounding space
		{same, true},                             // exactly Last-Modified as sent
		{"Sunday, 10-Mar-24 12:00:00 GMT", true}, // RFC 850 form of the same
		{"Sun Mar 10 12:00:00 2024", true},       // asctime form of the same
		{other, false},                           // an older version's ETag
		{`W/` + match, false},                    // weak tags never match strongly
		{before, false},                          // a date must equal Last-Modified,
		{after, false},                           // not merely be later
		{"*", false},                             // not an entity tag
		{match + ", " + other, false},            // If-Range holds one validator
		{"not a date", false},                    // neither: the whole object
		{`""`, false},                            // an empty tag names nothing
	}
	for _, c := range cases {
		if got := RangeApplies(c.ifRange, objETag, objMod); got != c.want {
			t.Errorf("RangeApplies(%q) = %v, want %v", c.ifRange, got, c.want)
		}
	}
}

// TestFromHeaderJoinsListLines: If-None-Match and If-Match sent on several
// lines are one list (RFC 9110 §5.3), so a matching ETag on the second
// line counts; the copy source's fields are read under their prefix.
func TestFromHeaderJoinsListLines(t *testing.T) {
	const etag = "abc"
	lm := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Add("If-None-Match", `"other"`)
	h.Add("If-None-Match", `"abc"`)
	if err := Check(FromHeader(h, ""), etag, lm); code(err) != s3err.NotModified {
		t.Errorf("If-None-Match matching on its second line: %v, want NotModified", err)
	}
	h = http.Header{}
	h.Add("If-Match", `"other"`)
	h.Add("If-Match", `"abc", "more"`)
	if err := Check(FromHeader(h, ""), etag, lm); err != nil {
		t.Errorf("If-Match matching on its second line: %v, want nil", err)
	}
	h = http.Header{}
	h.Add("If-Match", `"other"`)
	h.Add("If-Match", `"third"`)
	if err := Check(FromHeader(h, ""), etag, lm); code(err) != s3err.PreconditionFailed {
		t.Errorf("If-Match matching no line: %v, want PreconditionFailed", err)
	}
	h = http.Header{}
	h.Add("X-Amz-Copy-Source-If-None-Match", `"x"`)
	h.Add("X-Amz-Copy-Source-If-None-Match", `"abc"`)
	h.Set("If-None-Match", `"abc"`)
	got := FromHeader(h, "X-Amz-Copy-Source-")
	if got.IfNoneMatch != `"x", "abc"` || got.IfMatch != "" {
		t.Errorf("copy source fields: %+v", got)
	}
}

func code(err error) s3err.Code {
	if err == nil {
		return -1
	}
	return s3err.As(err).Code
}
