package storage

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// TestWalkOrderAndConfinement checks that Walk yields keys in byte order
// (a file "a.txt" before the directory "a/", "a-b" before both), follows
// links only to files inside the bucket, and never leaves the bucket.
func TestWalkOrderAndConfinement(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	if _, err := fs.MakeBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.MakeBucket("other"); err != nil {
		t.Fatal(err)
	}
	files := []string{"a/b", "a/c/d", "a.txt", "a-b", "a0", "z", "é/x", "sp ace"}
	for _, f := range files {
		p := filepath.Join(dir, "bkt", f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "other", "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"to-other":  "../other/secret",
		"to-state":  "../" + StateDir + "/staging",
		"absolute":  "/etc/passwd",
		"dangling":  "nothing",
		"to-dir":    "a",
		"to-file":   "a.txt",
		"a/up-file": "../z",
	} {
		if err := os.Symlink(target, filepath.Join(dir, "bkt", link)); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	sizes := map[string]int64{}
	skipped := map[string]error{}
	err := fs.Walk("bkt", WalkOptions{Skip: func(k string, r error) { skipped[k] = r }}, func(k string, fi FileInfo) error {
		keys = append(keys, k)
		sizes[k] = fi.Size
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(files), "to-file", "a/up-file")
	sort.Strings(want)
	if !slices.Equal(keys, want) {
		t.Fatalf("walk yielded %q\nwant        %q", keys, want)
	}
	if sizes["to-file"] != int64(len("a.txt")) || sizes["a/c/d"] != int64(len("a/c/d")) {
		t.Fatalf("sizes %v", sizes)
	}
	for _, k := range []string{"to-other", "to-state", "absolute"} {
		if !errors.Is(skipped[k], ErrEscape) {
			t.Errorf("%s: skipped with %v, want ErrEscape", k, skipped[k])
		}
	}
	if !errors.Is(skipped["dangling"], ErrNotFound) || !errors.Is(skipped["to-dir"], errDirLink) {
		t.Errorf("skipped %v", skipped)
	}

	// Stat agrees with Walk and with Open's notion of a missing file.
	if fi, err := fs.Stat("bkt", "a/c/d", Natural); err != nil || fi.Size != 5 {
		t.Fatalf("stat: %+v %v", fi, err)
	}
	if _, err := fs.Stat("bkt", "a/", Directory); err != nil {
		t.Fatalf("stat of a directory key: %v", err)
	}
	if _, err := fs.Stat("bkt", "z/", Directory); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a file is not a directory key: %v", err)
	}
	if _, err := fs.Stat("bkt", "a", Natural); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a directory is not an object: %v", err)
	}
	if err := fs.Walk("nope", WalkOptions{}, func(string, FileInfo) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("walk of a missing bucket: %v", err)
	}
}
