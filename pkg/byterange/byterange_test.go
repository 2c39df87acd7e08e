package byterange

import (
	"errors"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func TestParse(t *testing.T) {
	const huge = "99999999999999999999999"
	tests := []struct {
		name   string
		header string
		size   int64
		want   Range
		ok     bool
		err    bool
	}{
		{"absent", "", 10, Range{}, false, false},
		{"closed", "bytes=0-4", 10, Range{0, 5}, true, false},
		{"single byte", "bytes=3-3", 10, Range{3, 1}, true, false},
		{"last byte", "bytes=9-9", 10, Range{9, 1}, true, false},
		{"end clamped", "bytes=5-100", 10, Range{5, 5}, true, false},
		{"end overflow clamped", "bytes=5-" + huge, 10, Range{5, 5}, true, false},
		{"open", "bytes=4-", 10, Range{4, 6}, true, false},
		{"whole open", "bytes=0-", 10, Range{0, 10}, true, false},
		{"suffix", "bytes=-3", 10, Range{7, 3}, true, false},
		{"suffix longer than object", "bytes=-30", 10, Range{0, 10}, true, false},
		{"suffix overflow", "bytes=-" + huge, 10, Range{0, 10}, true, false},
		{"unit case-insensitive", "Bytes=1-2", 10, Range{1, 2}, true, false},
		{"spaces around spec", "bytes= 1-2 ", 10, Range{1, 2}, true, false},
		{"space before suffix", "bytes= -1", 10, Range{9, 1}, true, false},
		{"unit upper case", "BYTES=0-0", 10, Range{0, 1}, true, false},

		{"start at size", "bytes=10-", 10, Range{}, false, true},
		{"start past size", "bytes=40-50", 10, Range{}, false, true},
		{"start overflow", "bytes=" + huge + "-", 10, Range{}, false, true},
		{"zero suffix", "bytes=-0", 10, Range{}, false, true},
		{"empty object closed", "bytes=0-0", 0, Range{}, false, true},
		{"empty object open", "bytes=0-", 0, Range{}, false, true},
		{"empty object zero suffix", "bytes=-0", 0, Range{}, false, true},
		{"empty object suffix served whole", "bytes=-5", 0, Range{}, false, false},

		{"other unit", "items=0-4", 10, Range{}, false, false},
		{"no equals", "bytes 0-4", 10, Range{}, false, false},
		{"no dash", "bytes=4", 10, Range{}, false, false},
		{"empty spec", "bytes=", 10, Range{}, false, false},
		{"lone dash", "bytes=-", 10, Range{}, false, false},
		{"reversed", "bytes=5-2", 10, Range{}, false, false},
		{"reversed past end", "bytes=50-20", 10, Range{}, false, false},
		{"letters", "bytes=a-b", 10, Range{}, false, false},
		{"negative", "bytes=--5", 10, Range{}, false, false},
		{"plus sign", "bytes=+1-2", 10, Range{}, false, false},
		{"inner space", "bytes=1 -2", 10, Range{}, false, false},
		{"multi", "bytes=0-1,3-4", 10, Range{}, false, false},
		{"multi unsatisfiable", "bytes=20-21,30-31", 10, Range{}, false, false},
		{"trailing comma", "bytes=0-1,", 10, Range{}, false, false},
		// S3 serves any list, even one range with an empty element, whole
		// with 200 rather than apply the RFC's empty-element rule.
		{"single byte trailing comma", "bytes=0-0,", 10, Range{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := Parse(tt.header, tt.size)
			if tt.err {
				if !errors.Is(err, s3err.New(s3err.InvalidRange)) {
					t.Fatalf("Parse(%q, %d) err = %v, want InvalidRange", tt.header, tt.size, err)
				}
				if code := s3err.As(err).Code; code.Status() != 416 {
					t.Fatalf("status = %d, want 416", code.Status())
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q, %d) err = %v", tt.header, tt.size, err)
			}
			if ok != tt.ok || got != tt.want {
				t.Fatalf("Parse(%q, %d) = %+v, %v; want %+v, %v", tt.header, tt.size, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestInvalidRangeBody(t *testing.T) {
	_, _, err := Parse("bytes=40-50", 11)
	e := s3err.As(err)
	want := []s3err.Field{{Name: "RangeRequested", Value: "bytes=40-50"}, {Name: "ActualObjectSize", Value: "11"}}
	if len(e.Extra) != len(want) {
		t.Fatalf("Extra = %v, want %v", e.Extra, want)
	}
	for i := range want {
		if e.Extra[i] != want[i] {
			t.Fatalf("Extra = %v, want %v", e.Extra, want)
		}
	}
}

func TestContentRange(t *testing.T) {
	tests := []struct {
		r    Range
		size int64
		want string
	}{
		{Range{0, 5}, 10, "bytes 0-4/10"},
		{Range{9, 1}, 10, "bytes 9-9/10"},
		{Range{7, 3}, 10, "bytes 7-9/10"},
	}
	for _, tt := range tests {
		if got := tt.r.ContentRange(tt.size); got != tt.want {
			t.Errorf("%+v.ContentRange(%d) = %q, want %q", tt.r, tt.size, got, tt.want)
		}
	}
	if got := UnsatisfiedContentRange(11); got != "bytes */11" {
		t.Errorf("UnsatisfiedContentRange(11) = %q", got)
	}
}
