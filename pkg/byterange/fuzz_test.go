package byterange

import (
	"errors"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func FuzzParse(f *testing.F) {
	seeds := []struct {
		header string
		size   int64
	}{
		{"", 10},                                // no header
		{"bytes=0-4", 10},                       // closed range
		{"bytes=5-100", 10},                     // end clamped
		{"bytes=4-", 10},                        // open-ended
		{"bytes=-3", 10},                        // suffix
		{"bytes=-0", 10},                        // zero suffix: unsatisfiable
		{"bytes=-5", 0},                         // suffix on empty object: whole
		{"bytes=0-0", 0},                        // empty object: unsatisfiable
		{"bytes=10-", 10},                       // start at size
		{"bytes=0-1,3-4", 10},                   // multi-range: ignored
		{"bytes=5-2", 10},                       // reversed: ignored
		{"items=0-1", 10},                       // other unit: ignored
		{"bytes=9223372036854775807-", 1 << 62}, // int64 edge
		{"bytes=-99999999999999999999", 7},      // overflowing suffix
	}
	for _, s := range seeds {
		f.Add(s.header, s.size)
	}
	f.Fuzz(func(t *testing.T, header string, size int64) {
		r, ok, err := Parse(header, size)
		if err != nil {
			if ok {
				t.Fatalf("Parse(%q, %d): ok with error %v", header, size, err)
			}
			if !errors.Is(err, s3err.New(s3err.InvalidRange)) {
				t.Fatalf("Parse(%q, %d): error %v is not InvalidRange", header, size, err)
			}
			return
		}
		if !ok {
			if r != (Range{}) {
				t.Fatalf("Parse(%q, %d): not ok but range %+v", header, size, r)
			}
			return
		}
		if r.Start < 0 || r.Length < 1 || r.Start >= size || r.Length > size-r.Start {
			t.Fatalf("Parse(%q, %d) = %+v: outside [0,%d)", header, size, r, size)
		}
	})
}
