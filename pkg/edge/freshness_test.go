package edge

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestCachePolicy(t *testing.T) {
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	def := 10 * time.Minute
	date := func(t time.Time) string { return t.Format(http.TimeFormat) }
	for _, tc := range []struct {
		name  string
		h     http.Header
		store bool
		ttl   time.Duration
		sie   time.Duration
	}{
		{"nothing", http.Header{}, true, def, -1},
		{"max-age", http.Header{"Cache-Control": {"max-age=60"}}, true, time.Minute, -1},
		{"s-maxage wins", http.Header{"Cache-Control": {"max-age=600, s-maxage=30"}}, true, 30 * time.Second, 0},
		{"s-maxage first", http.Header{"Cache-Control": {"s-maxage=30", "max-age=600"}}, true, 30 * time.Second, 0},
		{"public max-age", http.Header{"Cache-Control": {"public, max-age=5"}}, true, 5 * time.Second, -1},
		{"quoted and spaced", http.Header{"Cache-Control": {`  MAX-AGE = "90" `}}, true, 90 * time.Second, -1},
		{"max-age=0", http.Header{"Cache-Control": {"max-age=0"}}, true, 0, -1},
		{"no-cache", http.Header{"Cache-Control": {"no-cache, max-age=600"}}, true, 0, 0},
		// Revalidation required: never stale on error, unless granted.
		{"must-revalidate", http.Header{"Cache-Control": {"max-age=60, must-revalidate"}}, true, time.Minute, 0},
		{"proxy-revalidate", http.Header{"Cache-Control": {"max-age=60, proxy-revalidate"}}, true, time.Minute, 0},
		{"must-revalidate with stale-if-error", http.Header{"Cache-Control": {"max-age=60, must-revalidate, stale-if-error=30"}}, true, time.Minute, 30 * time.Second},
		{"no-store", http.Header{"Cache-Control": {"no-store"}}, false, def, -1},
		{"private", http.Header{"Cache-Control": {"private, max-age=60"}}, false, time.Minute, -1},
		{"stale-if-error", http.Header{"Cache-Control": {"max-age=60, stale-if-error=300"}}, true, time.Minute, 5 * time.Minute},
		{"stale-if-error=0", http.Header{"Cache-Control": {"stale-if-error=0"}}, true, def, 0},
		{"malformed max-age", http.Header{"Cache-Control": {"max-age=soon"}}, true, def, -1},
		{"negative max-age", http.Header{"Cache-Control": {"max-age=-5"}}, true, def, -1},
		{"capped max-age", http.Header{"Cache-Control": {"max-age=99999999999999999"}}, true, 100 * 365 * 24 * time.Hour, -1},
		// RFC 9111 §1.2.2: a delta-seconds too large to represent is the
		// greatest one, not an invalid one.
		{"overflowing max-age", http.Header{"Cache-Control": {"max-age=99999999999999999999999"}}, true, 100 * 365 * 24 * time.Hour, -1},
		{"expires", http.Header{"Expires": {date(now.Add(2 * time.Hour))}}, true, 2 * time.Hour, -1},
		{"expires with date", http.Header{"Expires": {date(now.Add(2 * time.Hour))}, "Date": {date(now.Add(time.Hour))}}, true, time.Hour, -1},
		{"expires in the past", http.Header{"Expires": {date(now.Add(-time.Hour))}}, true, 0, -1},
		{"expires invalid", http.Header{"Expires": {"0"}}, true, 0, -1},
		{"max-age over expires", http.Header{"Expires": {date(now.Add(2 * time.Hour))}, "Cache-Control": {"max-age=60"}}, true, time.Minute, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := cachePolicy(tc.h, now, def)
			if p.store != tc.store || p.ttl != tc.ttl || p.staleIfError != tc.sie {
				t.Errorf("cachePolicy = %+v, want store %v ttl %v stale-if-error %v", p, tc.store, tc.ttl, tc.sie)
			}
		})
	}
}

// TestRevalidation checks that an expired object is revalidated with one
// conditional request and, on 304, served from the cache.
func TestRevalidation(t *testing.T) {
	e := newEnv(t, nil)
	size := 2*testSlice + 5
	data := randomBytes(30, size)
	ob := e.origin.put("b/obj", data)
	e.mustGet("b/obj", data, xMiss)
	e.mustGet("b/obj", data, xHit)
	gets := e.origin.total(http.MethodGet, "b/obj")

	e.clock.advance(time.Hour + time.Second) // DefaultTTL
	r := e.mustGet("b/obj", data, xRevalidated)
	if r.header.Get("ETag") != ob.etag {
		t.Errorf("ETag %q, want %q", r.header.Get("ETag"), ob.etag)
	}
	// One HEAD, unconditional: its answer carries every current header.
	heads := e.origin.requests(func(r originRequest) bool { return r.method != http.MethodGet })
	if len(heads) != 1 || heads[0].method != http.MethodHead || heads[0].ifNoneMatch != "" || heads[0].ifMatch != "" {
		t.Fatalf("revalidation requests %+v, want one plain HEAD", heads)
	}
	if n := e.origin.total(http.MethodGet, "b/obj"); n != gets {
		t.Errorf("%d GETs after the revalidation, want %d (no download)", n, gets)
	}
	// Fresh again for a TTL.
	e.clock.advance(30 * time.Minute)
	e.mustGet("b/obj", data, xHit)
	if s := e.c().Stats(); s.Revalidations != 1 || s.NotModified != 1 {
		t.Errorf("stats %+v, want one revalidation, not modified", s)
	}
}

// TestRevalidationUpdatesHeaders checks that a revalidation whose answer
// carries other headers for the same bytes (an object copied onto itself
// with new metadata) updates what hits answer, through net/http and on
// the fast path, and what a restart loads; and that one saying no-store
// ends the caching: the object is passed through from then on.
func TestRevalidationUpdatesHeaders(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(50, 3000)
	e.origin.put("b/obj", data, func(o *object) {
		o.cacheControl = "max-age=60"
		o.contentType = "text/plain"
		o.meta = map[string]string{"Color": "red"}
	})
	e.mustGet("b/obj", data, xMiss)
	e.mustGet("b/obj", data, xHit)
	e.origin.update("b/obj", func(o *object) {
		o.cacheControl = "max-age=120"
		o.meta = map[string]string{"Color": "blue"}
	})
	e.clock.advance(61 * time.Second)
	gets := e.origin.total(http.MethodGet, "b/obj")
	check := func(what string, r response) {
		t.Helper()
		if cc, color := r.header.Get("Cache-Control"), r.header.Get("X-Amz-Meta-Color"); cc != "max-age=120" || color != "blue" {
			t.Errorf("%s: Cache-Control %q, X-Amz-Meta-Color %q; want the origin's new max-age=120, blue", what, cc, color)
		}
	}
	check("revalidated", e.mustGet("b/obj", data, xRevalidated))
	if n := e.origin.total(http.MethodGet, "b/obj"); n != gets {
		t.Errorf("%d GETs after the revalidation, want %d (no download)", n, gets)
	}
	// Fresh for the new max-age, not the old one.
	e.clock.advance(100 * time.Second)
	check("hit", e.mustGet("b/obj", data, xHit))
	e.settle()
	check("fast hit", e.fastHit("b", "obj"))
	e.restart()
	check("hit after a restart", e.mustGet("b/obj", data, xHit))

	e.origin.update("b/obj", func(o *object) { o.cacheControl = "no-store" })
	e.clock.advance(121 * time.Second)
	for range 2 {
		if r := e.mustGet("b/obj", data, xPass); r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("passed through with Cache-Control %q, want no-store", r.header.Get("Cache-Control"))
		}
	}
	if e.fileOf("b/obj") != "" {
		t.Error("an object the origin now forbids to store is still cached")
	}
}

// TestAge checks the Age of answers from the cache (RFC 9111 §5.1): the
// seconds since the object was fetched or last validated, through
// net/http and on the fast path, kept across a restart.
func TestAge(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(51, 3000)
	e.origin.put("b/obj", data, func(o *object) { o.cacheControl = "max-age=100"; o.contentType = "text/plain" })
	age := func(what string, r response, want string) {
		t.Helper()
		if got := r.header.Get("Age"); got != want {
			t.Errorf("%s: Age %q, want %q", what, got, want)
		}
	}
	age("miss", e.mustGet("b/obj", data, xMiss), "0")
	e.clock.advance(30 * time.Second)
	age("hit", e.mustGet("b/obj", data, xHit), "30")
	e.settle()
	fastAge := func() string { return e.fastHit("b", "obj").header.Get("Age") }
	if got := fastAge(); got != "30" {
		t.Errorf("fast hit: Age %q, want 30", got)
	}
	e.restart()
	e.clock.advance(10 * time.Second)
	age("hit after a restart", e.mustGet("b/obj", data, xHit), "40")
	e.clock.advance(61 * time.Second)
	age("revalidated", e.mustGet("b/obj", data, xRevalidated), "0")
	e.clock.advance(5 * time.Second)
	if got := fastAge(); got != "5" {
		t.Errorf("fast hit after the revalidation: Age %q, want 5", got)
	}
}

// TestOriginAge checks that the Age an origin's answer carries (the
// origin being a CDN or another edge) counts against the object's
// freshness and is added to the Age the edge answers (RFC 9111 §4.2.3),
// for a GET miss, a HEAD miss, a revalidation and a cached 404; that a
// pass-through relays it; and that a malformed Age is ignored.
func TestOriginAge(t *testing.T) {
	data := randomBytes(52, 3000)
	t.Run("get", func(t *testing.T) {
		e := newEnv(t, nil)
		e.origin.put("b/obj", data, func(o *object) { o.cacheControl = "max-age=100"; o.age = "40" })
		if r := e.mustGet("b/obj", data, xMiss); r.header.Get("Age") != "40" {
			t.Errorf("miss: Age %q, want 40", r.header.Get("Age"))
		}
		e.clock.advance(59 * time.Second)
		if r := e.mustGet("b/obj", data, xHit); r.header.Get("Age") != "99" {
			t.Errorf("hit: Age %q, want 99", r.header.Get("Age"))
		}
		e.settle()
		if got := e.fastHit("b", "obj").header.Get("Age"); got != "99" {
			t.Errorf("fast hit: Age %q, want 99", got)
		}
		e.restart()
		e.clock.advance(2 * time.Second)
		// 101 s old: stale, and confirmed by a HEAD whose answer is 40 s old.
		if r := e.mustGet("b/obj", data, xRevalidated); r.header.Get("Age") != "40" {
			t.Errorf("revalidated: Age %q, want 40", r.header.Get("Age"))
		}
		if got := e.origin.total(http.MethodHead, "b/obj"); got != 1 {
			t.Errorf("%d revalidations, want 1", got)
		}
		e.clock.advance(59 * time.Second)
		e.mustGet("b/obj", data, xHit)
		e.clock.advance(2 * time.Second)
		e.mustGet("b/obj", data, xRevalidated)
	})
	t.Run("stale on arrival", func(t *testing.T) {
		e := newEnv(t, nil)
		e.origin.put("b/obj", data, func(o *object) { o.cacheControl = "max-age=100"; o.age = "100" })
		e.mustGet("b/obj", data, xMiss)
		e.mustGet("b/obj", data, xRevalidated)
		// A HEAD miss whose answer is already stale is not remembered.
		e.origin.put("b/head", data, func(o *object) { o.cacheControl = "max-age=100"; o.age = "120" })
		for range 2 {
			if r := e.do(http.MethodHead, "b/head"); r.status != http.StatusOK {
				t.Fatalf("HEAD: %d", r.status)
			}
		}
		if got := e.origin.total(http.MethodHead, "b/head"); got != 2 {
			t.Errorf("%d origin HEADs for two HEADs of an object stale on arrival, want 2", got)
		}
	})
	t.Run("pass", func(t *testing.T) {
		e := newEnv(t, nil)
		e.origin.put("b/obj", data, func(o *object) { o.cacheControl = "no-store"; o.age = "7" })
		if r := e.mustGet("b/obj", data, xPass); r.header.Get("Age") != "7" {
			t.Errorf("passed through: Age %q, want the origin's 7", r.header.Get("Age"))
		}
	})
	t.Run("malformed", func(t *testing.T) {
		e := newEnv(t, nil)
		e.origin.put("b/obj", data, func(o *object) { o.cacheControl = "max-age=100"; o.age = "-5" })
		e.mustGet("b/obj", data, xMiss)
		e.clock.advance(99 * time.Second)
		if r := e.mustGet("b/obj", data, xHit); r.header.Get("Age") != "99" {
			t.Errorf("hit: Age %q, want 99", r.header.Get("Age"))
		}
	})
	t.Run("404", func(t *testing.T) {
		e := newEnv(t, nil)
		e.origin.missingAge.Store(fmt.Sprint(int64(DefaultNegativeTTL/time.Second) - 3))
		if r := e.get("b/missing"); r.status != http.StatusNotFound {
			t.Fatalf("GET of a missing key: %d", r.status)
		}
		e.clock.advance(2 * time.Second)
		if r := e.get("b/missing"); r.status != http.StatusNotFound || r.xcache() != xHit {
			t.Errorf("GET of a cached 404: %d X-Cache %q", r.status, r.xcache())
		} else if want := fmt.Sprint(int64(DefaultNegativeTTL/time.Second) - 1); r.header.Get("Age") != want {
			t.Errorf("cached 404: Age %q, want %s", r.header.Get("Age"), want)
		}
		e.clock.advance(time.Second)
		e.get("b/missing")
		if n := e.origin.total(http.MethodGet, "b/missing"); n != 2 {
			t.Errorf("%d origin GETs of a 404 that came %v old, want 2 after its lifetime", n, DefaultNegativeTTL-3*time.Second)
		}
	})
}

// TestCacheControl checks the freshness an origin's headers give, served.
func TestCacheControl(t *testing.T) {
	data := randomBytes(31, 3000)
	for _, tc := range []struct {
		name  string
		set   func(o *object, now time.Time)
		fresh time.Duration // still a hit after this long
		stale time.Duration // revalidated after this long
		pass  bool
	}{
		{name: "max-age", set: func(o *object, _ time.Time) { o.cacheControl = "max-age=60" }, fresh: 59 * time.Second, stale: 61 * time.Second},
		{name: "s-maxage", set: func(o *object, _ time.Time) { o.cacheControl = "max-age=600, s-maxage=30" }, fresh: 29 * time.Second, stale: 31 * time.Second},
		{name: "no-cache", set: func(o *object, _ time.Time) { o.cacheControl = "no-cache" }, stale: 0},
		{name: "expires", set: func(o *object, now time.Time) { o.expires = now.Add(2 * time.Minute).Format(http.TimeFormat) }, fresh: 119 * time.Second, stale: 121 * time.Second},
		{name: "no-store", set: func(o *object, _ time.Time) { o.cacheControl = "no-store" }, pass: true},
		{name: "private", set: func(o *object, _ time.Time) { o.cacheControl = "private, max-age=600" }, pass: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.origin.put("b/obj", data, func(o *object) { tc.set(o, e.clock.Now()) })
			if tc.pass {
				for range 3 {
					e.mustGet("b/obj", data, xPass)
				}
				if e.fileOf("b/obj") != "" || len(e.dataFiles()) != 0 {
					t.Error("an object the origin forbids to store was stored")
				}
				return
			}
			r := e.mustGet("b/obj", data, xMiss)
			if tc.fresh > 0 {
				e.clock.advance(tc.fresh)
				e.mustGet("b/obj", data, xHit)
				e.clock.advance(tc.stale - tc.fresh)
			}
			r = e.mustGet("b/obj", data, xRevalidated)
			if got := e.origin.total(http.MethodHead, "b/obj"); got != 1 {
				t.Errorf("%d revalidations, want 1", got)
			}
			if tc.name == "max-age" && r.header.Get("Cache-Control") != "max-age=60" {
				t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
			}
		})
	}
}

// TestChangedAtOrigin checks that an object overwritten or deleted at the
// origin is never served old once expired, and that a change met while
// filling a missing slice is not spliced into the old object.
func TestChangedAtOrigin(t *testing.T) {
	e := newEnv(t, nil)
	maxAge := func(o *object) { o.cacheControl = "max-age=60" }
	v1 := randomBytes(40, 2*testSlice+10)
	v2 := randomBytes(41, testSlice+99)
	ob1 := e.origin.put("b/obj", v1, maxAge)
	e.mustGet("b/obj", v1, xMiss)
	ob2 := e.origin.put("b/obj", v2, maxAge)
	e.mustGet("b/obj", v1, xHit) // within its max-age the old bytes are allowed

	e.clock.advance(61 * time.Second)
	r := e.mustGet("b/obj", v2, "")
	if r.header.Get("ETag") != ob2.etag || r.header.Get("ETag") == ob1.etag {
		t.Errorf("ETag %q, want the new %q", r.header.Get("ETag"), ob2.etag)
	}
	e.mustGet("b/obj", v2, xHit)

	// Deleted at the origin: 404 once expired, and the entry dropped.
	id := e.fileOf("b/obj")
	e.origin.remove("b/obj")
	e.clock.advance(61 * time.Second)
	if r := e.get("b/obj"); r.status != http.StatusNotFound {
		t.Fatalf("deleted object: status %d, want 404", r.status)
	}
	if r := e.get("b/obj"); r.status != http.StatusNotFound {
		t.Fatalf("deleted object, again: status %d, want 404", r.status)
	}
	if e.fileOf("b/obj") != "" {
		t.Error("the deleted object's entry is still there")
	}
	eventually(t, "the deleted object's file to go", func() bool {
		for _, f := range e.dataFiles() {
			if f == id {
				return false
			}
		}
		return true
	})

	// Changed while only a part is cached: the missing slice is asked for
	// with If-Match, the 412 drops the entry, and the client's body is
	// cut rather than made of two versions.
	w1 := randomBytes(42, 3*testSlice)
	w2 := randomBytes(43, 3*testSlice)
	e.origin.put("b/part", w1)
	r = e.get("b/part", "Range", "bytes=0-99")
	checkBody(t, "first range", r, http.StatusPartialContent, w1[:100])
	e.origin.put("b/part", w2)
	r = e.get("b/part")
	if r.err == nil && r.status == http.StatusOK && len(r.body) == len(w1) {
		t.Fatal("a body spliced from two versions was served whole")
	}
	if ims := e.origin.requests(func(r originRequest) bool { return r.key == "b/part" && r.ifMatch != "" }); len(ims) == 0 {
		t.Error("no slice was asked for with If-Match")
	}
	r = e.mustGet("b/part", w2, xMiss)
	e.mustGet("b/part", w2, xHit)
}

// TestStaleIfError checks that an expired object is served while the
// origin fails, within the stale-if-error window and not after it.
func TestStaleIfError(t *testing.T) {
	for _, mode := range []struct {
		name string
		mode int32
		// missStatus answers a miss: the origin's own error relayed, or
		// 503 when it cannot be reached.
		missStatus int
	}{{"500", failStatus, http.StatusInternalServerError}, {"closed", failClose, http.StatusServiceUnavailable}} {
		t.Run(mode.name, func(t *testing.T) {
			e := newEnv(t, func(o *Options) { o.StaleIfError = 30 * time.Minute })
			data := randomBytes(50, testSlice+10)
			own := randomBytes(51, 100)
			e.origin.put("b/default", data, func(o *object) { o.cacheControl = "max-age=60" })
			e.origin.put("b/own", own, func(o *object) { o.cacheControl = "max-age=60, stale-if-error=10" })
			e.mustGet("b/default", data, xMiss)
			e.mustGet("b/own", own, xMiss)
			e.settle()

			e.origin.fail(mode.mode)
			e.clock.advance(65 * time.Second)
			e.mustGet("b/default", data, xStale)
			e.mustGet("b/own", own, xStale) // 5 s past its freshness
			e.clock.advance(10 * time.Second)
			if r := e.get("b/own"); r.status != http.StatusServiceUnavailable {
				t.Errorf("past its own stale-if-error: status %d, want 503", r.status)
			}
			e.clock.advance(28 * time.Minute)
			e.mustGet("b/default", data, xStale)
			e.clock.advance(2 * time.Minute)
			if r := e.get("b/default"); r.status != http.StatusServiceUnavailable {
				t.Errorf("past the default stale-if-error: status %d, want 503", r.status)
			}
			// A miss while the origin fails is an error too.
			if r := e.get("b/other"); r.status != mode.missStatus {
				t.Errorf("miss while the origin fails: status %d, want %d", r.status, mode.missStatus)
			}

			// The origin is back: revalidated, fresh, not downloaded again.
			e.origin.fail(failNone)
			gets := e.origin.total(http.MethodGet, "b/default")
			e.mustGet("b/default", data, xRevalidated)
			if n := e.origin.total(http.MethodGet, "b/default"); n != gets {
				t.Errorf("%d GETs after the origin came back, want %d", n, gets)
			}
			if s := e.c().Stats(); s.Stale != 3 {
				t.Errorf("%d stale answers, want 3", s.Stale)
			}
		})
	}
}
