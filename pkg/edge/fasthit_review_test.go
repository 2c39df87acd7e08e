package edge

import (
	"bytes"
	"net/http"
	"os"
	"testing"
	"time"
)

// A fast hit whose answer fails must not keep its descriptor (releaseFile
// with ok false), but ServeHit's deferred release reads the err declared
// by `f, err := c.openFile(e)` in the inner block, which is always nil.
func TestReviewFailedFastHitDropsDescriptor(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(300, 3*testSlice+100)
	e.origin.put("b/a", data, func(o *object) { o.cacheControl = "max-age=60"; o.contentType = "application/octet-stream" })
	e.mustGet("b/a", data, xMiss)
	e.settle()
	if err := os.Truncate(e.pathOf("b/a"), 10); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	answered, _, err := e.c().ServeHit(&buf, &HitRequest{Bucket: "b", Key: "a"})
	if !answered || err == nil {
		t.Fatalf("ServeHit: answered %v, err %v; want a failed answer", answered, err)
	}
	if fs, n := e.kept("b/a"); len(fs) != 0 || n != 0 {
		t.Fatalf("after a failed fast hit %d descriptors are kept (%d in all); want 0", len(fs), n)
	}
}

func (e *env) pathOf(ck string) string {
	c := e.c()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[ck].path()
}

func TestAppendDate(t *testing.T) {
	for _, now := range []time.Time{
		time.Date(2026, 12, 6, 16, 40, 1, 0, time.UTC),
		time.Date(2026, 12, 6, 16, 40, 1, 999_999_999, time.UTC),
		time.Date(2026, 12, 6, 17, 40, 2, 0, time.FixedZone("CET", 3600)),
		time.Date(2026, 12, 6, 16, 40, 1, 500, time.UTC),
	} {
		got := string(appendDate([]byte("Date: "), now))
		if want := "Date: " + now.UTC().Format(http.TimeFormat); got != want {
			t.Errorf("appendDate(%v) = %q, want %q", now, got, want)
		}
	}
}
