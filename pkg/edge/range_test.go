package edge

import (
	"fmt"
	"net/http"
	"testing"
)

// TestRangeMiss checks that a range request on a miss fetches only the
// slices it covers, and the answers to suffix, open, unsatisfiable and
// multiple ranges.
func TestRangeMiss(t *testing.T) {
	e := newEnv(t, nil)
	size := int64(20*testSlice - 7)
	data := randomBytes(3, int(size))
	e.origin.put("b/big", data)

	checkRange := func(hdr string, first, last int64) response {
		t.Helper()
		r := e.get("b/big", "Range", hdr)
		checkBody(t, hdr, r, http.StatusPartialContent, data[first:last+1])
		if want := fmt.Sprintf("bytes %d-%d/%d", first, last, size); r.header.Get("Content-Range") != want {
			t.Fatalf("%s: Content-Range %q, want %q", hdr, r.header.Get("Content-Range"), want)
		}
		return r
	}
	checkFetched := func(want ...int64) {
		t.Helper()
		fetched := map[int64]bool{}
		for i := range int64(20) {
			switch n := e.origin.fetches("b/big", i); n {
			case 0:
			case 1:
				fetched[i] = true
			default:
				t.Fatalf("slice %d fetched %d times", i, n)
			}
		}
		if len(fetched) != len(want) {
			t.Fatalf("slices fetched %v, want %v", fetched, want)
		}
		for _, i := range want {
			if !fetched[i] {
				t.Fatalf("slices fetched %v, want %v", fetched, want)
			}
		}
	}

	// Ten bytes deep inside slice 13: only slice 13 is fetched (the
	// read-ahead stays within the requested range).
	at := int64(13*testSlice + 100)
	if r := checkRange(fmt.Sprintf("bytes=%d-%d", at, at+9), at, at+9); r.xcache() != xMiss {
		t.Errorf("X-Cache %q, want MISS", r.xcache())
	}
	checkFetched(13)
	// Again: a hit, nothing fetched.
	if r := checkRange(fmt.Sprintf("bytes=%d-%d", at, at+9), at, at+9); r.xcache() != xHit {
		t.Errorf("X-Cache %q, want HIT", r.xcache())
	}
	checkFetched(13)

	// Across the boundary of slices 6 and 7: both, once each.
	b := int64(7 * testSlice)
	checkRange(fmt.Sprintf("bytes=%d-%d", b-5, b+4), b-5, b+4)
	checkFetched(6, 7, 13)

	// An open range from inside slice 18: slices 18 and 19.
	checkRange(fmt.Sprintf("bytes=%d-", 18*testSlice+10), 18*testSlice+10, size-1)
	checkFetched(6, 7, 13, 18, 19)

	// A suffix range, now cached.
	checkRange("bytes=-100", size-100, size-1)
	checkFetched(6, 7, 13, 18, 19)

	// Past the end: 416 with the size.
	for _, hdr := range []string{fmt.Sprintf("bytes=%d-", size), fmt.Sprintf("bytes=%d-%d", size+10, size+20), "bytes=-0"} {
		r := e.get("b/big", "Range", hdr)
		if r.status != http.StatusRequestedRangeNotSatisfiable {
			t.Fatalf("%s: status %d, want 416", hdr, r.status)
		}
		if want := fmt.Sprintf("bytes */%d", size); r.header.Get("Content-Range") != want {
			t.Fatalf("%s: Content-Range %q, want %q", hdr, r.header.Get("Content-Range"), want)
		}
	}

	// Several ranges: the whole object with 200, as S3 answers.
	r := e.get("b/big", "Range", "bytes=0-9,100-109")
	checkBody(t, "multiple ranges", r, http.StatusOK, data)
	if r.header.Get("Content-Range") != "" {
		t.Errorf("multiple ranges: Content-Range %q on a 200", r.header.Get("Content-Range"))
	}
	for i := range int64(20) {
		if n := e.origin.fetches("b/big", i); n != 1 {
			t.Errorf("slice %d fetched %d times after the whole object was read, want 1", i, n)
		}
	}
}

// TestRangeMissEdges checks ranges on objects not cached yet: a suffix, an
// unsatisfiable start, and an empty object.
func TestRangeMissEdges(t *testing.T) {
	e := newEnv(t, nil)
	size := int64(6*testSlice + 200)
	data := randomBytes(4, int(size))
	e.origin.put("b/suffix", data)
	e.origin.put("b/past", data)
	e.origin.put("b/empty", nil)

	r := e.get("b/suffix", "Range", "bytes=-100")
	checkBody(t, "suffix on a miss", r, http.StatusPartialContent, data[size-100:])
	if want := fmt.Sprintf("bytes %d-%d/%d", size-100, size-1, size); r.header.Get("Content-Range") != want {
		t.Errorf("Content-Range %q, want %q", r.header.Get("Content-Range"), want)
	}
	// The size is not known before the first answer, so the first slice
	// is fetched to learn it; the slices between are not.
	for i := range int64(6) {
		want := 0
		if i == 0 {
			want = 1
		}
		if n := e.origin.fetches("b/suffix", i); n != want {
			t.Errorf("suffix: slice %d fetched %d times, want %d", i, n, want)
		}
	}
	if n := e.origin.fetches("b/suffix", 6); n != 1 {
		t.Errorf("suffix: last slice fetched %d times, want 1", n)
	}

	r = e.get("b/past", "Range", fmt.Sprintf("bytes=%d-", 100*testSlice))
	if r.status != http.StatusRequestedRangeNotSatisfiable || r.header.Get("Content-Range") != fmt.Sprintf("bytes */%d", size) {
		t.Errorf("past the end on a miss: %d %q", r.status, r.header.Get("Content-Range"))
	}
	e.mustGet("b/past", data, xMiss) // the 416 fetched only the first slice
	e.mustGet("b/past", data, xHit)

	e.mustGet("b/empty", []byte{}, xMiss)
	e.mustGet("b/empty", []byte{}, xHit)
	if r := e.get("b/empty", "Range", "bytes=0-9"); r.status != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("range of an empty object: status %d, want 416", r.status)
	}
}

// TestRangeIfRange checks that a range whose If-Range names another
// version of the object is answered with the whole object, on a miss and on
// a hit, and one naming the cached version with the range.
func TestRangeIfRange(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(5, 3*testSlice+11)
	e.origin.put("b/obj", data)
	first := e.get("b/obj", "Range", "bytes=0-9", "If-Range", `"0123456789abcdef0123456789abcdef"`)
	checkBody(t, "miss, other ETag", first, http.StatusOK, data)
	etag, mod := first.header.Get("Etag"), first.header.Get("Last-Modified")
	if etag == "" || mod == "" {
		t.Fatalf("no validators: ETag %q, Last-Modified %q", etag, mod)
	}
	for _, tc := range []struct {
		what, ifRange string
		partial       bool
	}{
		{"cached ETag", etag, true},
		{"cached Last-Modified", mod, true},
		{"other ETag", `"0123456789abcdef0123456789abcdef"`, false},
		{"weak cached ETag", "W/" + etag, false},
		{"other date", "Mon, 02 Jan 2006 15:04:05 GMT", false},
	} {
		r := e.get("b/obj", "Range", "bytes=0-9", "If-Range", tc.ifRange)
		if tc.partial {
			checkBody(t, tc.what, r, http.StatusPartialContent, data[:10])
			continue
		}
		checkBody(t, tc.what, r, http.StatusOK, data)
		if cr := r.header.Get("Content-Range"); cr != "" {
			t.Errorf("%s: whole object with Content-Range %q", tc.what, cr)
		}
	}
}
