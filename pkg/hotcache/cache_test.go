package hotcache

import (
	"bytes"
	"fmt"
	"testing"
)

func TestNilCacheCachesNothing(t *testing.T) {
	var c *Cache
	if c.Fits(1) {
		t.Fatal("nil cache fits an object")
	}
	if s := c.Stats(); s != (Stats{}) {
		t.Fatalf("nil cache stats %+v", s)
	}
	c.Close()
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{{}, {MaxBytes: -1}, {MaxBytes: 1 << 20, MaxObject: -1}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func TestPutKeepsOnlyWholeObjectsWithinTheLimit(t *testing.T) {
	c, err := New(Options{MaxBytes: 1 << 20, MaxObject: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		name   string
		size   int64
		body   []byte
		cached bool
	}{
		{"at the limit", 8, []byte("12345678"), true},
		{"over the limit", 9, []byte("123456789"), false},
		{"shorter than its key says", 8, []byte("1234"), false},
		{"empty", 0, []byte{}, true},
	} {
		k := Key{Bucket: "b", Object: tc.name, ETag: "e", Size: tc.size}
		c.Put(k, tc.body)
		got, ok := c.Get(k)
		if ok != tc.cached || (ok && !bytes.Equal(got, tc.body)) {
			t.Errorf("%s: Get = %q, %v; want cached=%v", tc.name, got, ok, tc.cached)
		}
	}
}

func TestBudgetHolds(t *testing.T) {
	const budget = 32 << 10
	c, err := New(Options{MaxBytes: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := make([]byte, 1<<10)
	for i := range 200 {
		c.Put(Key{Bucket: "b", Object: fmt.Sprint(i), Size: int64(len(body))}, body)
	}
	c.CleanUp()
	s := c.Stats()
	if s.Bytes > budget || s.Evictions == 0 || s.Fills != 200 {
		t.Fatalf("200 KiB through a %d-byte budget: %+v", budget, s)
	}
}

func TestKeyDistinguishesFileVersions(t *testing.T) {
	c, err := New(Options{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k := Key{Bucket: "b", Object: "o", ETag: "e", Inode: 1, Mtime: 2, Size: 1}
	c.Put(k, []byte("a"))
	for _, other := range []Key{
		{Bucket: "b", Object: "o", ETag: "f", Inode: 1, Mtime: 2, Size: 1},
		{Bucket: "b", Object: "o", ETag: "e", Inode: 9, Mtime: 2, Size: 1},
		{Bucket: "b", Object: "o", ETag: "e", Inode: 1, Mtime: 3, Size: 1},
		{Bucket: "c", Object: "o", ETag: "e", Inode: 1, Mtime: 2, Size: 1},
	} {
		if _, ok := c.Get(other); ok {
			t.Errorf("Get(%+v) found the entry of %+v", other, k)
		}
	}
}
