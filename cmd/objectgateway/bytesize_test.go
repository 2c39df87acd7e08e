package main

import "testing"

func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"65536", 65536, true},
		{"64MiB", 64 << 20, true},
		{"16KiB", 16 << 10, true},
		{"1 GiB", 1 << 30, true},
		{"10MB", 10e6, true},
		{"8M", 8 << 20, true},
		{"512B", 512, true},
		{"-1", 0, false},
		{"MiB", 0, false},
		{"1.5MiB", 0, false},
		{"99999999999GiB", 0, false},
	} {
		got, err := parseByteSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
