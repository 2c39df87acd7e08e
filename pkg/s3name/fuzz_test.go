package s3name

import (
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzValidBucketName(f *testing.F) {
	for _, s := range []string{
		"abc",          // shortest valid
		"my.bucket-1",  // dots and hyphens
		"192.168.5.4",  // IP form
		"xn--abc",      // reserved prefix
		"abc--x-s3",    // reserved suffix
		"a..b",         // adjacent dots
		"a-.b",         // hyphen before a dot
		"a.-b",         // hyphen after a dot
		"ABC",          // uppercase
		"\xff\xfe\xfd", // not UTF-8
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidBucketName(name) != nil {
			return
		}
		// Differential checks against independent statements of the rules.
		if len(name) < 3 || len(name) > 63 || strings.Contains(name, "..") ||
			strings.Contains(name, ".-") || strings.Contains(name, "-.") {
			t.Fatalf("accepted %q", name)
		}
		if strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
			t.Fatalf("accepted %q with a forbidden character", name)
		}
		if _, err := netip.ParseAddr(name); err == nil {
			t.Fatalf("accepted IP address %q", name)
		}
	})
}

func FuzzValidKey(f *testing.F) {
	for _, s := range []string{"a", "a/b/", "é", "\x00", "\xae\x8a-", strings.Repeat("x", 1025)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		ok := ValidKey(key) == nil
		want := key != "" && len(key) <= MaxKeyLen && utf8.ValidString(key)
		if ok != want {
			t.Fatalf("ValidKey(%q) ok=%v, want %v", key, ok, want)
		}
	})
}
