package byterange

import (
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Range is one satisfiable byte range of an object: Length bytes from Start.
type Range struct {
	Start, Length int64
}

// End returns the offset of the last byte of r (inclusive).
func (r Range) End() int64 { return r.Start + r.Length - 1 }

// ContentRange returns the value of the Content-Range response header for r
// within an object of the given size, "bytes first-last/size".
func (r Range) ContentRange(size int64) string {
	return "bytes " + strconv.FormatInt(r.Start, 10) + "-" + strconv.FormatInt(r.End(), 10) +
		"/" + strconv.FormatInt(size, 10)
}

// UnsatisfiedContentRange returns the Content-Range header value that goes
// with a 416 answer, "bytes */size" (RFC 9110 §14.4).
func UnsatisfiedContentRange(size int64) string {
	return "bytes */" + strconv.FormatInt(size, 10)
}

// Parse interprets a Range header value against an object of size bytes.
//
// ok=false with a nil error means the header is absent or ignored and the
// whole object is to be served with 200. ok=true means r is to be served with
// 206. A non-nil error is an *s3err.Error with code InvalidRange (416),
// returned only for a well-formed single range that selects no byte of the
// object; it carries the RangeRequested and ActualObjectSize elements S3
// puts in that error body.
func Parse(header string, size int64) (r Range, ok bool, err error) {
	if size < 0 {
		return Range{}, false, nil
	}
	unit, spec, found := strings.Cut(header, "=")
	if !found || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return Range{}, false, nil
	}
	// S3 does not serve multipart/byteranges: a list of ranges is ignored
	// and the whole object is returned with 200.
	if strings.Contains(spec, ",") {
		return Range{}, false, nil
	}
	spec = strings.Trim(spec, " \t")
	first, last, found := strings.Cut(spec, "-")
	if !found {
		return Range{}, false, nil
	}
	unsatisfiable := func() (Range, bool, error) {
		return Range{}, false, s3err.New(s3err.InvalidRange).
			With("RangeRequested", header).
			With("ActualObjectSize", strconv.FormatInt(size, 10))
	}

	if first == "" {
		// Suffix range: the last n bytes.
		n, valid := parseDigits(last)
		if !valid {
			return Range{}, false, nil
		}
		if n == 0 {
			return unsatisfiable()
		}
		if size == 0 {
			return Range{}, false, nil
		}
		n = min(n, size)
		return Range{Start: size - n, Length: n}, true, nil
	}

	start, valid := parseDigits(first)
	if !valid {
		return Range{}, false, nil
	}
	end := int64(-1) // open-ended "a-"
	if last != "" {
		end, valid = parseDigits(last)
		if !valid || end < start {
			// RFC 9110 §14.1.1: last-pos < first-pos is invalid, and an
			// invalid range is ignored.
			return Range{}, false, nil
		}
	}
	if start >= size {
		return unsatisfiable()
	}
	if end < 0 || end > size-1 {
		end = size - 1
	}
	return Range{Start: start, Length: end - start + 1}, true, nil
}

// parseDigits parses a non-empty run of ASCII digits. A value too large for
// int64 saturates to the maximum, which every caller treats as "past the end":
// the number is well-formed, just larger than any object.
func parseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Only ErrRange is possible after the digit check.
		return 1<<63 - 1, true
	}
	return n, true
}
