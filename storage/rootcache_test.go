package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestReadRootFollowsTheBucketDirectory checks that the cached bucket Root
// used by reads never outlives the directory it was opened on: a bucket
// directory renamed away and replaced serves the new directory's files, and
// one replaced by a symbolic link is refused.
func TestReadRootFollowsTheBucketDirectory(t *testing.T) {
	fs, dir := newTestFS(t, Options{NoSync: true})
	mustBucket(t, fs, "b")
	put(t, fs, "b", "k", []byte("first"), Natural)
	if body, _, err := get(fs, "b", "k", Natural); err != nil || string(body) != "first" {
		t.Fatalf("first read: %q %v", body, err)
	}

	// Replace the bucket directory behind the store's back.
	if err := os.Rename(filepath.Join(dir, "b"), filepath.Join(dir, "old-b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b", "k"), []byte("second"), 0o644); err != nil {
		t.Fatal(err)
	}
	if body, _, err := get(fs, "b", "k", Natural); err != nil || string(body) != "second" {
		t.Fatalf("after the directory was replaced: %q %v, want the new file", body, err)
	}

	// Replace it with a link pointing outside the root.
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "k"), []byte("secret"), 0o644)
	if err := os.Rename(filepath.Join(dir, "b"), filepath.Join(dir, "older-b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if body, _, err := get(fs, "b", "k", Natural); !errors.Is(err, ErrEscape) {
		t.Fatalf("a bucket directory replaced by a link: %q %v, want ErrEscape", body, err)
	}
}

// TestReadRootConcurrentReadsAndRemoval reads through the cache while the
// bucket is removed and recreated, under the race detector.
func TestReadRootConcurrentReadsAndRemoval(t *testing.T) {
	fs, _ := newTestFS(t, Options{NoSync: true})
	mustBucket(t, fs, "b")
	put(t, fs, "b", "k", []byte("v"), Natural)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				f, _, err := fs.Open("b", "k", Natural)
				// A read that races the removal and re-creation of its
				// bucket may find the directory gone (ErrNotFound) or
				// replaced between opening and checking it (ErrEscape,
				// bucketRoot's refusal of a directory that changed under
				// it); anything else is a bug.
				if err == nil {
					f.Close()
				} else if !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrEscape) {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		fs.Remove("b", "k", Natural)
		if err := fs.RemoveBucket("b"); err != nil {
			t.Fatal(err)
		}
		mustBucket(t, fs, "b")
		put(t, fs, "b", "k", []byte("v"), Natural)
	}
	wg.Wait()
}

// TestReadRootCacheIsBounded reads from more buckets than the cache keeps:
// it never holds more than maxCachedRoots entries (two descriptors each),
// and every bucket, dropped or not, still reads and identifies its files.
func TestReadRootCacheIsBounded(t *testing.T) {
	fs, _ := newTestFS(t, Options{NoSync: true})
	n := maxCachedRoots + 20
	name := func(i int) string { return fmt.Sprintf("b%04d", i) }
	for i := range n {
		mustBucket(t, fs, name(i))
		put(t, fs, name(i), "k", []byte(name(i)), Natural)
	}
	for round := range 2 {
		for i := range n {
			body, fi, err := get(fs, name(i), "k", Natural)
			if err != nil || string(body) != name(i) {
				t.Fatalf("round %d, %s: %q %v", round, name(i), body, err)
			}
			if got, ok := fs.Identify(name(i), "k", Natural); !ok || got != fi {
				t.Fatalf("round %d, Identify(%s) = %+v, %v; Open gave %+v", round, name(i), got, ok, fi)
			}
			fs.roots.mu.Lock()
			size := len(fs.roots.m)
			fs.roots.mu.Unlock()
			if size > maxCachedRoots {
				t.Fatalf("round %d: %d cached roots, more than %d", round, size, maxCachedRoots)
			}
		}
	}
}
