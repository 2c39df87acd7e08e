package object

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func newHotLayer(t *testing.T, o hotcache.Options) (*Layer, *hotcache.Cache, string) {
	t.Helper()
	hot, err := hotcache.New(o)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	l, err := Open(Options{Root: root, NoSync: true, HotCache: hot})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	return l, hot, root
}

// readHot reads an object through ReadObject, from memory or from its file.
func readHot(t *testing.T, l *Layer, key string) (Object, string, error) {
	t.Helper()
	r, err := l.ReadObject("bkt", key)
	if err != nil {
		return Object{}, "", err
	}
	defer r.Close()
	if r.Body != nil {
		if r.File != nil {
			t.Fatal("Reader has both Body and File")
		}
		return r.Object, string(r.Body), nil
	}
	var b []byte
	if r.File != nil {
		if b, err = io.ReadAll(r.File); err != nil {
			t.Fatal(err)
		}
	}
	return r.Object, string(b), nil
}

// TestHotCacheNeverServesStale caches an object, changes it through the
// gateway or behind its back, and reads it again: the new bytes (or
// NoSuchKey) must come back, with a record that describes them.
func TestHotCacheNeverServesStale(t *testing.T) {
	const old = "hot object, version 1"
	later := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, l *Layer, path string)
		want   string // "" means NoSuchKey
	}{
		{"overwritten through the gateway", func(t *testing.T, l *Layer, _ string) {
			put(t, l, "k", "HOT OBJECT, VERSION 2")
		}, "HOT OBJECT, VERSION 2"},
		{"renamed over behind its back, same size", func(t *testing.T, _ *Layer, path string) {
			tmp := filepath.Join(filepath.Dir(path), ".swap")
			if err := os.WriteFile(tmp, []byte("hot object, version 3"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}, "hot object, version 3"},
		{"rewritten in place behind its back, same size", func(t *testing.T, _ *Layer, path string) {
			if err := os.WriteFile(path, []byte("hot object, version 4"), 0o644); err != nil {
				t.Fatal(err)
			}
			// The rewrite may fall within one tick of the file system's
			// clock (see pkg/hotcache's Caveats); a later mtime is what
			// any later tick gives it.
			if err := os.Chtimes(path, later, later); err != nil {
				t.Fatal(err)
			}
		}, "hot object, version 4"},
		{"appended behind its back", func(t *testing.T, _ *Layer, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(" and more"); err != nil {
				t.Fatal(err)
			}
		}, old + " and more"},
		{"deleted behind its back", func(t *testing.T, _ *Layer, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"deleted through the gateway", func(t *testing.T, l *Layer, _ string) {
			if err := l.DeleteObject("bkt", "k", Conditions{}); err != nil {
				t.Fatal(err)
			}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, hot, root := newHotLayer(t, hotcache.Options{MaxBytes: 1 << 20})
			put(t, l, "k", old)
			for range 2 {
				if _, got, err := readHot(t, l, "k"); err != nil || got != old {
					t.Fatalf("read = %q, %v; want %q", got, err, old)
				}
			}
			if s := hot.Stats(); s.Hits != 1 || s.Fills != 1 {
				t.Fatalf("before the change: %+v, want 1 fill then 1 hit", s)
			}
			tc.change(t, l, filepath.Join(root, "bkt", "k"))
			for i := range 2 { // the miss that refills, then a hit
				o, got, err := readHot(t, l, "k")
				if tc.want == "" {
					if code(err) != s3err.NoSuchKey {
						t.Fatalf("read %d after the change = %q, %v; want NoSuchKey", i, got, err)
					}
					continue
				}
				if err != nil || got != tc.want {
					t.Fatalf("read %d after the change = %q, %v; want %q", i, got, err, tc.want)
				}
				if o.Size != int64(len(tc.want)) {
					t.Fatalf("record size %d for %d bytes", o.Size, len(tc.want))
				}
			}
		})
	}
}

func TestHotCacheSkipsLargeObjects(t *testing.T) {
	l, hot, _ := newHotLayer(t, hotcache.Options{MaxBytes: 1 << 20, MaxObject: 1024})
	big := string(bytes.Repeat([]byte("x"), 1025))
	put(t, l, "big", big)
	for range 3 {
		r, err := l.ReadObject("bkt", "big")
		if err != nil {
			t.Fatal(err)
		}
		if r.Body != nil || r.File == nil {
			t.Fatal("an object over the limit came from memory")
		}
		r.Close()
	}
	if s := hot.Stats(); s.Fills != 0 || s.Hits != 0 || s.Misses != 0 || s.Entries != 0 {
		t.Fatalf("stats after reading an object over the limit: %+v", s)
	}
	// Exactly at the limit it is cached.
	put(t, l, "edge", big[:1024])
	for range 2 {
		if _, got, err := readHot(t, l, "edge"); err != nil || got != big[:1024] {
			t.Fatalf("read edge: %d bytes, %v", len(got), err)
		}
	}
	if s := hot.Stats(); s.Fills != 1 || s.Hits != 1 {
		t.Fatalf("stats for an object at the limit: %+v", s)
	}
}

func TestHotCacheEvictsWithinBudget(t *testing.T) {
	const budget = 64 << 10
	l, hot, _ := newHotLayer(t, hotcache.Options{MaxBytes: budget})
	body := string(bytes.Repeat([]byte("e"), 4<<10))
	for i := range 64 { // 256 KiB of objects through a 64 KiB cache
		key := fmt.Sprintf("k%02d", i)
		put(t, l, key, body)
		if _, got, err := readHot(t, l, key); err != nil || got != body {
			t.Fatalf("read %s: %d bytes, %v", key, len(got), err)
		}
	}
	hot.CleanUp()
	s := hot.Stats()
	if s.Bytes > budget || s.Evictions == 0 || s.Fills != 64 {
		t.Fatalf("after 256 KiB through a %d-byte budget: %+v", budget, s)
	}
	// Every object still reads correctly, cached or not.
	for i := range 64 {
		if _, got, err := readHot(t, l, fmt.Sprintf("k%02d", i)); err != nil || got != body {
			t.Fatalf("reread k%02d: %d bytes, %v", i, len(got), err)
		}
	}
}

// TestHotCacheConcurrentMissesFillOnce holds the first fill until every
// reader has asked: they must all share it.
func TestHotCacheConcurrentMissesFillOnce(t *testing.T) {
	l, hot, _ := newHotLayer(t, hotcache.Options{MaxBytes: 1 << 20})
	put(t, l, "k", "shared fill")
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var fills int
		l.onFill = func() { fills++; <-release }
		const readers = 50
		var wg sync.WaitGroup
		got := make([]string, readers)
		for i := range readers {
			wg.Go(func() {
				r, err := l.ReadObject("bkt", "k")
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = string(r.Body)
				r.Close()
			})
		}
		synctest.Wait()
		close(release)
		wg.Wait()
		if fills != 1 {
			t.Fatalf("%d concurrent misses ran %d fills, want 1", readers, fills)
		}
		for i, g := range got {
			if g != "shared fill" {
				t.Fatalf("reader %d got %q", i, g)
			}
		}
	})
	if s := hot.Stats(); s.Fills != 1 || s.Misses != 50 {
		t.Fatalf("stats: %+v", s)
	}
}

// TestMovedOutOfTheBucketIsNotServed caches objects, then moves the very
// files out of the bucket behind the gateway's back (same inode, size and
// mtime) and leaves a symbolic link where they were: a directory of the
// key's path, or the bucket directory itself. The stat that confirms a
// record (HEAD, hot-cache hits) must not follow the link: HEAD, a GET of
// the cached copy and a GET through the file all fail alike, as the
// confined open refuses the path.
func TestMovedOutOfTheBucketIsNotServed(t *testing.T) {
	for _, tc := range []struct {
		name string
		move func(t *testing.T, root, outside string)
	}{
		{"a directory of the key", func(t *testing.T, root, outside string) {
			moveAndLink(t, filepath.Join(root, "bkt", "d"), filepath.Join(outside, "d"))
		}},
		{"the bucket directory", func(t *testing.T, root, outside string) {
			moveAndLink(t, filepath.Join(root, "bkt"), filepath.Join(outside, "bkt"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, _, root := newHotLayer(t, hotcache.Options{MaxBytes: 1 << 20, MaxObject: 1 << 10})
			for _, k := range []string{"d/secret", "d/cold"} {
				if _, err := l.PutObject(PutInput{Bucket: "bkt", Key: k, Body: bytes.NewReader([]byte(k)), Size: int64(len(k))}); err != nil {
					t.Fatal(err)
				}
			}
			if _, body, err := readHot(t, l, "d/secret"); err != nil || body != "d/secret" {
				t.Fatalf("first read: %q, %v", body, err)
			}
			// The outside directory is on the same filesystem, so a rename
			// keeps every file's inode, size and mtime.
			outside := filepath.Join(root, "outside")
			if err := os.Mkdir(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.move(t, root, outside)

			for _, k := range []string{"d/secret", "d/cold"} {
				_, headErr := l.StatObject("bkt", k)
				_, body, getErr := readHot(t, l, k)
				_, openErr := l.OpenObject("bkt", k)
				if headErr == nil || getErr == nil || openErr == nil {
					t.Fatalf("%s after the move: HEAD %v; GET %q, %v; open %v — want all refused", k, headErr, body, getErr, openErr)
				}
				if code(headErr) != code(openErr) || code(getErr) != code(openErr) {
					t.Errorf("%s: HEAD %v, GET %v, open %v: want the same error", k, headErr, getErr, openErr)
				}
			}
		})
	}
}

func moveAndLink(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, from); err != nil {
		t.Fatal(err)
	}
}
