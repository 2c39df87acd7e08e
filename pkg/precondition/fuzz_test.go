package precondition

import (
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// FuzzCheck feeds arbitrary header values to both evaluators. Besides never
// panicking, it checks the differential property that the copy variant is
// Check with every 304 turned into 412.
func FuzzCheck(f *testing.F) {
	f.Add("", "", "", "", "abc")                                    // no conditions
	f.Add(`"abc"`, "", "", "", "abc")                               // If-Match hit
	f.Add(`W/"abc", *`, "", "", "", "abc")                          // weak + wildcard
	f.Add("", `"abc"`, "Sun, 10 Mar 2024 11:59:59 GMT", "", "abc")  // INM false + IMS true
	f.Add("", "", "", "Sunday, 10-Mar-24 11:59:59 GMT", "abc")      // RFC 850 date
	f.Add("", "", "Sun Mar 10 12:00:00 2024", "", "abc")            // asctime date
	f.Add(`"`, `,,,`, "Mon, 99 Foo 2024 99:99:99 GMT", "\x00", `"`) // junk
	f.Fuzz(func(t *testing.T, ifMatch, ifNoneMatch, ims, ius, etag string) {
		h := Headers{IfMatch: ifMatch, IfNoneMatch: ifNoneMatch, IfModifiedSince: ims, IfUnmodifiedSince: ius}
		get := Check(h, etag, objMod)
		cp := CheckCopySource(h, etag, objMod)
		getCode, getFailed := s3err.CodeOf(get)
		cpCode, cpFailed := s3err.CodeOf(cp)
		if getFailed != cpFailed {
			t.Fatalf("Check = %v but CheckCopySource = %v", get, cp)
		}
		if getFailed {
			if getCode != s3err.PreconditionFailed && getCode != s3err.NotModified {
				t.Fatalf("Check returned %v", get)
			}
			if cpCode != s3err.PreconditionFailed {
				t.Fatalf("CheckCopySource returned %v", cp)
			}
		}
		// Adding a far-future Now never changes an outcome except to let an
		// If-Modified-Since in the future through.
		h.Now = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
		if _, failed := s3err.CodeOf(Check(h, etag, objMod)); failed != getFailed {
			t.Fatalf("far-future Now changed the outcome of %+v", h)
		}
	})
}

// FuzzRangeApplies feeds arbitrary If-Range values. Besides never
// panicking, it checks that a value that honours the Range names the object:
// it holds its ETag or is a date equal to its Last-Modified, and it is never
// a weak tag.
func FuzzRangeApplies(f *testing.F) {
	f.Add(`"abc"`, "abc")                         // strong match
	f.Add(`W/"abc"`, "abc")                       // weak: never
	f.Add("Sun, 10 Mar 2024 12:00:00 GMT", "abc") // equal date
	f.Add("Sun, 10 Mar 2024 12:00:01 GMT", "abc") // later date
	f.Add(`"abc", "def"`, "abc")                  // a list
	f.Add("\x00\"", "")                           // junk
	f.Fuzz(func(t *testing.T, ifRange, etag string) {
		if !RangeApplies(ifRange, etag, objMod) || strings.TrimSpace(ifRange) == "" {
			return
		}
		if d, ok := parseHTTPDate(ifRange); ok {
			if !d.Equal(objMod.Truncate(time.Second)) {
				t.Fatalf("date %q honoured against %v", ifRange, objMod)
			}
			return
		}
		if strings.HasPrefix(strings.TrimSpace(ifRange), "W/") || !strings.Contains(ifRange, strings.Trim(etag, `"`)) {
			t.Fatalf("If-Range %q honoured for ETag %q", ifRange, etag)
		}
	})
}
