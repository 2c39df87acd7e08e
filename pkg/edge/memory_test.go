package edge

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/hotcache"
)

// TestMemoryTier checks the memory tier: a small complete object is
// answered from memory (its file can go and the bytes still come, ranges
// included), a larger one from the file, and an object changed at the
// origin is never answered from the old version's memory copy.
func TestMemoryTier(t *testing.T) {
	mem, err := hotcache.New(hotcache.Options{MaxBytes: 8 << 20, MaxObject: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mem.Close)
	e := newEnv(t, func(o *Options) { o.Memory = mem })
	maxAge := func(o *object) { o.cacheControl = "max-age=60" }
	small := randomBytes(70, 5000)
	large := randomBytes(71, 300<<10)
	e.origin.put("b/small", small, maxAge)
	e.origin.put("b/large", large, maxAge)

	e.mustGet("b/small", small, xMiss)
	// A hit on the complete entry reads its file once and offers it to
	// memory. The miss's client can have the last byte before its fill has
	// recorded the entry complete; a hit before that is served from the
	// file without an offer, so hit until the tier holds the object.
	eventually(t, "the memory tier to admit the object", func() bool {
		e.mustGet("b/small", small, xHit)
		mem.CleanUp()
		return mem.Stats().Entries > 0
	})
	// The memory copy answers without the file.
	id := e.fileOf("b/small")
	if err := os.Remove(dataPath(filepath.Join(e.opts.Dir, "data"), id)); err != nil {
		t.Fatal(err)
	}
	hits := mem.Stats().Hits
	e.mustGet("b/small", small, xHit)
	r := e.get("b/small", "Range", "bytes=100-199")
	checkBody(t, "range from memory", r, http.StatusPartialContent, small[100:200])
	if got := mem.Stats().Hits - hits; got != 2 {
		t.Errorf("memory hits: %d, want 2", got)
	}

	// Larger than the tier's largest object: always from the file.
	e.mustGet("b/large", large, xMiss)
	e.mustGet("b/large", large, xHit)
	if s := mem.Stats(); s.Fills != 1 {
		t.Errorf("memory fills: %d, want 1 (the small object only)", s.Fills)
	}

	// Changed at the origin: once expired, the new bytes, never the old
	// memory copy.
	v2 := randomBytes(72, 4000)
	e.origin.put("b/small", v2, maxAge)
	e.clock.advance(61 * time.Second)
	e.mustGet("b/small", v2, "")
	e.mustGet("b/small", v2, xHit)
	e.mustGet("b/small", v2, xHit)
}
