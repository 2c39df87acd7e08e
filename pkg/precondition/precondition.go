package precondition

import (
	"net/http"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Headers holds the raw values of the four conditional headers, or of their
// x-amz-copy-source-if-* counterparts. An empty string means absent.
type Headers struct {
	IfMatch, IfNoneMatch, IfModifiedSince, IfUnmodifiedSince string

	// Now, when non-zero, is the server's current time. An If-Modified-Since
	// date later than Now is invalid and ignored (RFC 2616 §14.25: "A date
	// which is later than the server's current time is invalid"); S3 is
	// observed to copy, not fail, when x-amz-copy-source-if-modified-since
	// is in the future. The zero value disables the check.
	Now time.Time
}

// FromHeader reads the four conditional headers of a request, each named
// prefix + "If-Match" and so on: prefix "" for a GET's or a HEAD's,
// "X-Amz-Copy-Source-" for a copy's source. If-Match and If-None-Match
// are lists, and one sent on several lines is the lines joined with ", "
// (RFC 9110 §5.3): a client's second line is not ignored. A date sent
// twice is read from its first line.
func FromHeader(h http.Header, prefix string) Headers {
	return Headers{
		IfMatch:           strings.Join(h.Values(prefix+"If-Match"), ", "),
		IfNoneMatch:       strings.Join(h.Values(prefix+"If-None-Match"), ", "),
		IfModifiedSince:   h.Get(prefix + "If-Modified-Since"),
		IfUnmodifiedSince: h.Get(prefix + "If-Unmodified-Since"),
	}
}

// Check evaluates h for a GetObject or HeadObject of an existing object whose
// unquoted ETag is etag. It returns nil to proceed, an *s3err.Error with code
// PreconditionFailed (412), or one with code NotModified (304).
func Check(h Headers, etag string, lastModified time.Time) error {
	return evaluate(h, etag, lastModified, s3err.NotModified)
}

// CheckCopySource evaluates the x-amz-copy-source-if-* headers of CopyObject
// or UploadPartCopy against the source object. It returns nil to proceed or
// an *s3err.Error with code PreconditionFailed (412); it never answers 304.
func CheckCopySource(h Headers, etag string, lastModified time.Time) error {
	return evaluate(h, etag, lastModified, s3err.PreconditionFailed)
}

// RangeApplies reports whether a GetObject or HeadObject with a Range header
// and the If-Range value ifRange is to be answered with the range (206): it
// is when ifRange is empty or still names the object whose unquoted ETag is
// etag. Otherwise the caller ignores Range and sends the whole object (200),
// so that a client resuming a download never splices bytes of two versions
// (RFC 9110 §13.1.5).
//
// An entity tag matches by the strong comparison: a W/ tag never does. A
// date matches only when it is exactly the Last-Modified time sent to
// clients, in whole seconds. A value that is neither a date nor an entity
// tag matches nothing, so the whole object is sent.
func RangeApplies(ifRange, etag string, lastModified time.Time) bool {
	ifRange = strings.TrimSpace(ifRange)
	if ifRange == "" {
		return true
	}
	if t, ok := parseHTTPDate(ifRange); ok {
		return t.Equal(lastModified.UTC().Truncate(time.Second))
	}
	if strings.Contains(ifRange, ",") || ifRange == "*" {
		// If-Range holds one entity tag, never a list or "*".
		return false
	}
	return matchList(ifRange, etag, false)
}

// evaluate runs the RFC 9110 §13.2.2 order. notModified is the code used when
// If-None-Match or If-Modified-Since fails.
func evaluate(h Headers, etag string, lastModified time.Time, notModified s3err.Code) error {
	mod := lastModified.Truncate(time.Second)
	if h.IfMatch != "" {
		if !matchList(h.IfMatch, etag, false) {
			return s3err.New(s3err.PreconditionFailed)
		}
	} else if t, ok := parseHTTPDate(h.IfUnmodifiedSince); ok && mod.After(t) {
		return s3err.New(s3err.PreconditionFailed)
	}
	if h.IfNoneMatch != "" {
		if matchList(h.IfNoneMatch, etag, true) {
			return s3err.New(notModified)
		}
	} else if t, ok := parseHTTPDate(h.IfModifiedSince); ok && !mod.After(t) {
		if h.Now.IsZero() || !t.After(h.Now) {
			return s3err.New(notModified)
		}
	}
	return nil
}

// matchList reports whether the comma-separated entity-tag list contains
// etag (or "*"). With weak=false a W/ tag never matches.
func matchList(list, etag string, weak bool) bool {
	etag = strings.Trim(etag, `"`)
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "*" {
			return true
		}
		isWeak := false
		if rest, ok := strings.CutPrefix(item, "W/"); ok {
			item, isWeak = rest, true
		}
		if isWeak && !weak {
			continue
		}
		if len(item) >= 2 && item[0] == '"' && item[len(item)-1] == '"' {
			item = item[1 : len(item)-1]
		}
		if item != "" && item == etag {
			return true
		}
	}
	return false
}

// httpDateLayouts are the three HTTP-date forms of RFC 9110 §5.6.7:
// IMF-fixdate, the obsolete RFC 850 form and asctime.
var httpDateLayouts = [...]string{
	"Mon, 02 Jan 2006 15:04:05 GMT",
	"Monday, 02-Jan-06 15:04:05 GMT",
	"Mon Jan _2 15:04:05 2006",
}

// parseHTTPDate parses an HTTP-date; ok is false for an empty or invalid
// value, which the caller treats as an absent header.
func parseHTTPDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range httpDateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
