package api

import (
	"net/http"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func TestParseObjectLockEnabled(t *testing.T) {
	for _, tc := range []struct {
		vals []string
		lock bool
		code s3err.Code // zero for no error
	}{
		{nil, false, 0},
		{[]string{"true"}, true, 0},
		{[]string{" True "}, true, 0},
		{[]string{"FALSE"}, false, 0},
		{[]string{"false", "true"}, true, 0},
		{[]string{"yes"}, false, s3err.InvalidArgument},
		{[]string{""}, false, s3err.InvalidArgument},
		{[]string{"true", "1"}, false, s3err.InvalidArgument},
	} {
		lock, err := parseObjectLockEnabled(tc.vals)
		if tc.code != 0 {
			if c, ok := s3err.CodeOf(err); !ok || c != tc.code {
				t.Errorf("parseObjectLockEnabled(%q) = %v, %v; want %v", tc.vals, lock, err, tc.code)
			}
			continue
		}
		if err != nil || lock != tc.lock {
			t.Errorf("parseObjectLockEnabled(%q) = %v, %v; want %v", tc.vals, lock, err, tc.lock)
		}
	}
}

func TestCheckVersionMarker(t *testing.T) {
	id := metadata.VersionID(7, 42)
	for _, tc := range []struct {
		key, version string
		ok           bool
	}{
		{"", "", true},
		{"k", "", true},
		{"k", "null", true},
		{"k", id, true},
		{"", "null", false},
		{"", id, false},
		{"k", "nonsense", false},
		{"k", id[:25], false},
		{"k", "NULL", false},
	} {
		err := checkVersionMarker(tc.key, tc.version)
		if tc.ok != (err == nil) {
			t.Errorf("checkVersionMarker(%q, %q) = %v, want ok %v", tc.key, tc.version, err, tc.ok)
		}
		if err != nil {
			if c, _ := s3err.CodeOf(err); c != s3err.InvalidArgument {
				t.Errorf("checkVersionMarker(%q, %q) = %v, want InvalidArgument", tc.key, tc.version, err)
			}
		}
	}
}

func TestRequireBodyDigest(t *testing.T) {
	for _, tc := range []struct {
		name string
		hdr  []string
		ok   bool
	}{
		{"nothing", nil, false},
		// A malformed digest header is readBody's to refuse, as for every
		// body: x-amz-sdk-checksum-algorithm without a value is one.
		{"only the SDK's algorithm", []string{"X-Amz-Sdk-Checksum-Algorithm", "CRC32"}, true},
		{"Content-MD5", []string{"Content-Md5", "1B2M2Y8AsgTpgAmY7PhCfg=="}, true},
		{"x-amz-checksum-crc32", []string{"X-Amz-Checksum-Crc32", "AAAAAA=="}, true},
		{"a checksum in the trailer", []string{"X-Amz-Trailer", "x-amz-checksum-crc32"}, true},
	} {
		h := http.Header{}
		for i := 0; i+1 < len(tc.hdr); i += 2 {
			h.Set(tc.hdr[i], tc.hdr[i+1])
		}
		err := requireBodyDigest(h)
		if tc.ok != (err == nil) {
			t.Errorf("%s: requireBodyDigest = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil {
			if c, _ := s3err.CodeOf(err); c != s3err.InvalidRequest {
				t.Errorf("%s: requireBodyDigest = %v, want InvalidRequest", tc.name, err)
			}
		}
	}
}
