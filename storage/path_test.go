package storage

import (
	"path"
	"strings"
	"testing"
)

func TestNaturalPath(t *testing.T) {
	tests := []struct {
		bucket, key string
		want        string // "" means the key is shadowed
	}{
		{"b", "k", "b/k"},
		{"b", "a/b/c", "b/a/b/c"},
		{"b", "with space/ü/%2F+\\", "b/with space/ü/%2F+\\"},
		{"b", strings.Repeat("x", 255), "b/" + strings.Repeat("x", 255)},
		{"b", ".hidden/..dots/...", "b/.hidden/..dots/..."},
		{"b", strings.Repeat("x", 256), ""},
		{"b", "a/" + strings.Repeat("x", 256), ""},
		{"b", "", ""},
		{"b", "/", ""},
		{"b", "//", ""},
		{"b", "a//b", ""},
		{"b", "/a", ""},
		{"b", "a/", ""},
		{"b", ".", ""},
		{"b", "..", ""},
		{"b", "./x", ""},
		{"b", "a/../b", ""},
		{"b", "a/.", ""},
		{"b", "nul\x00", ""},
		{"", "k", ""},
		{".", "k", ""},
		{"..", "k", ""},
		{StateDir, "k", ""},
		{"a/b", "k", ""},
		{"b\x00", "k", ""},
	}
	for _, tt := range tests {
		got, ok := NaturalPath(tt.bucket, tt.key)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("NaturalPath(%q, %q) = %q, %v; want %q", tt.bucket, tt.key, got, ok, tt.want)
		}
	}
}

func TestShadowPath(t *testing.T) {
	// The digest of "" is a well-known constant, which pins the layout.
	const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if got, want := ShadowPath("b", ""), StateDir+"/shadow/b/e3/"+empty; got != want {
		t.Errorf("ShadowPath = %q, want %q", got, want)
	}
	if ShadowPath("b", "x") == ShadowPath("b", "y") || ShadowPath("b", "x") == ShadowPath("c", "x") {
		t.Error("ShadowPath collides")
	}
	if p := ShadowPath("b", "../../etc"); path.Clean(p) != p || !strings.HasPrefix(p, StateDir+"/shadow/b/") {
		t.Errorf("ShadowPath depends on key text: %q", p)
	}
}

// FuzzNaturalPath checks that NaturalPath never returns a path that,
// cleaned, leaves the bucket directory or differs from bucket/key: if it
// did, a key could write over another key, another bucket or the state
// directory.
func FuzzNaturalPath(f *testing.F) {
	seeds := [][2]string{
		{"b", "k"},                      // the common case
		{"b", "a/b/c"},                  // nested
		{"b", "../x"},                   // parent escape
		{"b", "a/../../x"},              // deeper escape
		{"b", "./a"},                    // dot segment
		{"b", "a//b"},                   // empty segment
		{"b", "/abs"},                   // leading slash
		{"b", "dir/"},                   // trailing slash
		{"b", "a\x00b"},                 // NUL
		{"..", "x"},                     // bucket escape
		{StateDir, "credentials"},       // state directory as bucket
		{"b", "..."},                    // three dots is a plain name
		{"b", "a\\..\\..\\x"},           // backslashes are plain bytes
		{"b", "é/世/🎉"},                  // unicode
		{"b/c", "k"},                    // slash in bucket
		{"b", strings.Repeat("x", 256)}, // overlong segment
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, bucket, key string) {
		p, ok := NaturalPath(bucket, key)
		if !ok {
			if p != "" {
				t.Fatalf("refused path is %q, want empty", p)
			}
			return
		}
		if p != bucket+"/"+key {
			t.Fatalf("NaturalPath(%q, %q) = %q", bucket, key, p)
		}
		if path.Clean(p) != p {
			t.Fatalf("NaturalPath(%q, %q) = %q is not clean (%q)", bucket, key, p, path.Clean(p))
		}
		if !strings.HasPrefix(path.Clean(p), bucket+"/") || strings.HasPrefix(bucket, ".") || strings.Contains(bucket, "/") {
			t.Fatalf("NaturalPath(%q, %q) = %q leaves the bucket", bucket, key, p)
		}
		for seg := range strings.SplitSeq(key, "/") {
			if len(seg) > 255 || strings.IndexByte(seg, 0) >= 0 {
				t.Fatalf("NaturalPath(%q, %q) accepted segment %q", bucket, key, seg)
			}
		}
	})
}
