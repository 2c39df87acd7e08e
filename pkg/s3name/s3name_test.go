package s3name

import (
	"net/url"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func TestValidBucketName(t *testing.T) {
	tests := []struct {
		name  string
		valid bool
	}{
		{"abc", true},
		{"my-bucket", true},
		{"my.bucket.name", true},
		{"1bucket2", true},
		{"a-b.c-d", true},
		{"docexamplebucket1", true},
		{strings.Repeat("a", 63), true},
		{"xn-a", true},            // only the full "xn--" prefix is reserved
		{"sthree", true},          // only "sthree-" is reserved
		{"bucket-s3alias2", true}, // suffix must be at the end
		{"256.1.1", true},         // three labels is not an address
		{"1.2.3.a", true},         // not all digits
		{"my-x-s3", true},         // "--x-s3" needs two hyphens
		{"a--b", true},            // doubled hyphens away from dots are fine
		{"a-b.c-d.e-f", true},     // hyphens inside labels
		{"xn-bucket", true},       // one hyphen is not the punycode prefix
		{"mybucket-s3aliasx", true},
		{"bucket.mrapx", true},
		{"1.2.3.4.5", true}, // five labels is not an IPv4 address
		{"1.2.3", true},

		{"", false},
		{"ab", false},
		{strings.Repeat("a", 64), false},
		{"MyBucket", false},
		{"my_bucket", false},
		{"my bucket", false},
		{"bücket", false},
		{"-bucket", false},
		{"bucket-", false},
		{".bucket", false},
		{"bucket.", false},
		{"my..bucket", false},
		{"foo-.bar", false},
		{"foo.-bar", false},
		{"a-.-b", false},
		{"a.b-.c", false},
		{"xn--", false},
		{"sthree-", false},
		{"s3alias-s3alias", false},
		{"a--ol-s3", false},
		{"a.mrap", false},
		{"0.0.0.0", false},
		{"00.00.00.000", false},
		{"192.168.5.4", false},
		{"999.999.999.999", false},
		{"xn--bucket", false},
		{"sthree-bucket", false},
		{"sthree-configurator-x", false},
		{"amzn-s3-demo-bucket", false},
		{"bucket-s3alias", false},
		{"bucket--ol-s3", false},
		{"bucket.mrap", false},
		{"bucket--x-s3", false},
		{"bucket--table-s3", false},
		{"buck/et", false},
		{"bucket\x00", false},
	}
	for _, tt := range tests {
		err := ValidBucketName(tt.name)
		if tt.valid {
			if err != nil {
				t.Errorf("ValidBucketName(%q) = %v, want nil", tt.name, err)
			}
			continue
		}
		if code, _ := s3err.CodeOf(err); err == nil || code != s3err.InvalidBucketName {
			t.Errorf("ValidBucketName(%q) = %v, want InvalidBucketName", tt.name, err)
			continue
		}
		if e := s3err.As(err); len(e.Extra) != 1 || e.Extra[0] != (s3err.Field{Name: "BucketName", Value: tt.name}) {
			t.Errorf("ValidBucketName(%q) extra = %v", tt.name, e.Extra)
		}
	}
}

func TestValidKey(t *testing.T) {
	tests := []struct {
		name string
		key  string
		code s3err.Code
		ok   bool
	}{
		{"simple", "photo.jpg", 0, true},
		{"nested", "a/b/c/d.txt", 0, true},
		{"unicode", "é/日本語/🙂", 0, true},
		{"odd ascii", "a b+c%d#e&f=g?h", 0, true},
		{"leading slash", "/abs", 0, true},
		{"dot segments", "a/./../b", 0, true},
		{"trailing slash", "dir/", 0, true},
		{"control chars", "tab\tnl\ncr\r", 0, true},
		{"nul", "a\x00b", 0, true},
		{"max length", strings.Repeat("k", MaxKeyLen), 0, true},
		{"max length multibyte", strings.Repeat("é", MaxKeyLen/2), 0, true},

		{"empty", "", s3err.InvalidArgument, false},
		{"too long", strings.Repeat("k", MaxKeyLen+1), s3err.KeyTooLongError, false},
		{"too long multibyte", strings.Repeat("é", MaxKeyLen/2) + "x", s3err.KeyTooLongError, false},
		{"invalid utf-8", "\xae\x8a-", s3err.InvalidURI, false},
		{"truncated rune", "caf\xc3", s3err.InvalidURI, false},
		{"surrogate", "\xed\xa0\x80", s3err.InvalidURI, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidKey(tt.key)
			if tt.ok {
				if err != nil {
					t.Fatalf("ValidKey = %v, want nil", err)
				}
				return
			}
			if code, failed := s3err.CodeOf(err); !failed || code != tt.code {
				t.Fatalf("ValidKey = %v, want %v", err, tt.code)
			}
		})
	}
}

func TestEscapeKeyRoundTrips(t *testing.T) {
	for _, k := range []string{"plain", "a b", "a+b", "100%", "é/ü", "a/b/c", "x&y=z?", "~._-", "\x01"} {
		enc := EscapeKey(k)
		if strings.ContainsAny(enc, " +&=?") {
			t.Errorf("%q encoded to %q, which form decoding would misread", k, enc)
		}
		if dec, err := url.QueryUnescape(enc); err != nil || dec != k {
			t.Errorf("QueryUnescape(%q) = %q, %v", enc, dec, err)
		}
		if dec, err := url.PathUnescape(enc); err != nil || dec != k {
			t.Errorf("PathUnescape(%q) = %q, %v", enc, dec, err)
		}
	}
}

// TestValidExistingBucketName checks that buckets created before the
// hyphen-next-to-period rule are still valid names to scan, fsck and the
// edge, while every other rule holds for them too.
func TestValidExistingBucketName(t *testing.T) {
	for _, name := range []string{"logs-.2024", "a.-b", "my-bucket"} {
		if err := ValidExistingBucketName(name); err != nil {
			t.Errorf("ValidExistingBucketName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"ab", "Upper", "a..b", "192.168.1.1", "xn--abc", "-a"} {
		if ValidExistingBucketName(name) == nil {
			t.Errorf("ValidExistingBucketName(%q) = nil", name)
		}
	}
	if ValidBucketName("logs-.2024") == nil {
		t.Error("a new bucket may have a hyphen next to a period")
	}
}

func TestLooksLikeIPv4(t *testing.T) {
	// The definition: four non-empty dot-separated runs of digits.
	want := func(name string) bool {
		parts := strings.Split(name, ".")
		if len(parts) != 4 {
			return false
		}
		for _, p := range parts {
			if p == "" || strings.Trim(p, "0123456789") != "" {
				return false
			}
		}
		return true
	}
	for _, name := range []string{
		"", ".", "...", "1.2.3.4", "192.168.5.4", "999.999.999.9999", "01.002.3.4",
		"1.2.3", "1.2.3.4.5", ".1.2.3", "1..2.3", "1.2.3.", "1.2.3.4.", "a.b.c.d",
		"1.2.3.4a", "1.2.3.x", "1-2.3.4.5", "bucket", "my.bucket.name.here",
	} {
		if got := looksLikeIPv4(name); got != want(name) {
			t.Errorf("looksLikeIPv4(%q) = %v, want %v", name, got, want(name))
		}
	}
}
