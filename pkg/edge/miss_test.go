package edge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHeadMissAsksOriginHead checks that a HEAD of an object not cached
// is answered by an origin HEAD (no GET, no body bytes, no file), that
// its metadata answers the next HEADs until it expires, and that ranges
// and conditionals apply to it as to a cached entry.
func TestHeadMissAsksOriginHead(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(90, 3*testSlice+17)
	ob := e.origin.put("b/obj", data, func(o *object) {
		o.cacheControl = "max-age=60"
		o.meta = map[string]string{"Color": "red"}
	})

	r := e.do(http.MethodHead, "b/obj")
	if r.status != http.StatusOK || r.header.Get("Content-Length") != fmt.Sprint(len(data)) ||
		r.header.Get("ETag") != ob.etag || r.header.Get("X-Amz-Meta-Color") != "red" || r.xcache() != xMiss {
		t.Fatalf("HEAD miss: %d %v", r.status, r.header)
	}
	if g, h := e.origin.total(http.MethodGet, "b/obj"), e.origin.total(http.MethodHead, "b/obj"); g != 0 || h != 1 {
		t.Fatalf("HEAD miss made %d GETs and %d HEADs at the origin, want 0 and 1", g, h)
	}
	if files := e.dataFiles(); len(files) != 0 {
		t.Errorf("HEAD miss created files %v", files)
	}

	// Its metadata answers the next HEADs: plain, ranged, conditional.
	if r := e.do(http.MethodHead, "b/obj"); r.status != http.StatusOK || r.xcache() != xHit || r.header.Get("ETag") != ob.etag {
		t.Errorf("second HEAD: %d X-Cache %q", r.status, r.xcache())
	}
	if r := e.do(http.MethodHead, "b/obj", "Range", "bytes=10-19"); r.status != http.StatusPartialContent ||
		r.header.Get("Content-Range") != fmt.Sprintf("bytes 10-19/%d", len(data)) || r.header.Get("Content-Length") != "10" {
		t.Errorf("ranged HEAD: %d %v", r.status, r.header)
	}
	if r := e.do(http.MethodHead, "b/obj", "If-None-Match", ob.etag); r.status != http.StatusNotModified {
		t.Errorf("HEAD If-None-Match: %d, want 304", r.status)
	}
	if r := e.do(http.MethodHead, "b/obj", "If-Match", `"other"`); r.status != http.StatusPreconditionFailed {
		t.Errorf("HEAD If-Match: %d, want 412", r.status)
	}
	if h := e.origin.total(http.MethodHead, "b/obj"); h != 1 {
		t.Errorf("%d origin HEADs after HEAD hits, want 1", h)
	}
	if s := e.c().Stats(); s.OriginHeads != 1 {
		t.Errorf("Stats.OriginHeads %d, want 1", s.OriginHeads)
	}

	// Expired: asked again.
	e.clock.advance(61 * time.Second)
	if r := e.do(http.MethodHead, "b/obj"); r.status != http.StatusOK || r.xcache() != xMiss {
		t.Errorf("HEAD after expiry: %d X-Cache %q", r.status, r.xcache())
	}
	if h := e.origin.total(http.MethodHead, "b/obj"); h != 2 {
		t.Errorf("%d origin HEADs after expiry, want 2", h)
	}

	// A GET makes the entry, which answers HEADs from then on; a purge
	// forgets the HEAD's metadata too.
	e.mustGet("b/obj", data, xMiss)
	heads := e.origin.total(http.MethodHead, "b/obj")
	if r := e.do(http.MethodHead, "b/obj"); r.status != http.StatusOK || r.xcache() != xHit {
		t.Errorf("HEAD of a cached object: %d X-Cache %q", r.status, r.xcache())
	}
	e.origin.put("b/other", data)
	e.do(http.MethodHead, "b/other")
	e.c().Purge("b", "", true)
	if r := e.do(http.MethodHead, "b/other"); r.xcache() != xMiss {
		t.Errorf("HEAD after a purge: X-Cache %q, want MISS", r.xcache())
	}
	if e.origin.total(http.MethodHead, "b/obj") != heads {
		t.Errorf("a HEAD of a cached object went to the origin")
	}

	// What may not be stored is asked for each time.
	e.origin.put("b/private", data, func(o *object) { o.cacheControl = "private" })
	for i := range 2 {
		if r := e.do(http.MethodHead, "b/private"); r.status != http.StatusOK || r.xcache() != xPass {
			t.Errorf("HEAD %d of a private object: %d X-Cache %q", i, r.status, r.xcache())
		}
	}
	if h := e.origin.total(http.MethodHead, "b/private"); h != 2 {
		t.Errorf("%d origin HEADs of a private object, want 2", h)
	}
	if g := e.origin.total(http.MethodGet, "b/private"); g != 0 {
		t.Errorf("%d origin GETs of a private object on HEAD, want 0", g)
	}
}

// TestNegativeCache checks that an origin 404 is answered from the cache
// for NegativeTTL (GET and HEAD alike), that an object put at the origin
// within it appears once it expires or when purged, and that a deletion
// found by revalidation is cached the same way.
func TestNegativeCache(t *testing.T) {
	e := newEnv(t, nil) // the default NegativeTTL
	data := randomBytes(91, testSlice+5)

	for i := range 3 {
		r := e.get("b/missing")
		if r.status != http.StatusNotFound {
			t.Fatalf("GET %d of a missing key: %d, want 404", i, r.status)
		}
		if want := map[bool]string{true: "", false: xHit}[i == 0]; r.xcache() != want {
			t.Errorf("GET %d of a missing key: X-Cache %q, want %q", i, r.xcache(), want)
		}
	}
	if r := e.do(http.MethodHead, "b/missing"); r.status != http.StatusNotFound || r.xcache() != xHit {
		t.Errorf("HEAD of a cached 404: %d X-Cache %q", r.status, r.xcache())
	}
	if n := e.origin.total(http.MethodGet, "b/missing") + e.origin.total(http.MethodHead, "b/missing"); n != 1 {
		t.Errorf("%d origin requests for a missing key, want 1", n)
	}
	if s := e.c().Stats(); s.NegativeHits != 3 {
		t.Errorf("Stats.NegativeHits %d, want 3", s.NegativeHits)
	}

	// Put at the origin: still 404 until the negative answer expires,
	// its Age the time since the origin said so.
	e.origin.put("b/missing", data)
	e.clock.advance(DefaultNegativeTTL - time.Second)
	if r := e.get("b/missing"); r.status != http.StatusNotFound {
		t.Errorf("within the negative TTL: %d, want 404", r.status)
	} else if want := fmt.Sprint(int64((DefaultNegativeTTL - time.Second) / time.Second)); r.header.Get("Age") != want {
		t.Errorf("cached 404: Age %q, want %s", r.header.Get("Age"), want)
	}
	e.clock.advance(time.Second)
	e.mustGet("b/missing", data, xMiss)
	e.mustGet("b/missing", data, xHit)

	// A purge forgets a 404 at once.
	if r := e.get("b/later"); r.status != http.StatusNotFound {
		t.Fatalf("b/later: %d, want 404", r.status)
	}
	e.origin.put("b/later", data)
	e.c().Purge("b", "later", false)
	e.mustGet("b/later", data, xMiss)

	// Deleted at the origin and found so by revalidation: the 404 is
	// cached; an object put again is seen after the negative TTL.
	e.origin.put("b/gone", data, func(o *object) { o.cacheControl = "max-age=60" })
	e.mustGet("b/gone", data, xMiss)
	fills := e.origin.total(http.MethodGet, "b/gone")
	e.origin.remove("b/gone")
	e.clock.advance(61 * time.Second)
	for range 2 {
		if r := e.get("b/gone"); r.status != http.StatusNotFound {
			t.Fatalf("deleted object: %d, want 404", r.status)
		}
	}
	if n := e.origin.total(http.MethodGet, "b/gone"); n != fills+1 {
		t.Errorf("%d origin GETs of b/gone, want %d (the fill's and one answered 404)", n, fills+1)
	}
	v2 := randomBytes(92, 100)
	e.origin.put("b/gone", v2)
	e.clock.advance(DefaultNegativeTTL)
	e.mustGet("b/gone", v2, xMiss)
}

// TestNegativeCacheOfHead: a HEAD's 404 has no body, so it does not say
// whether the key or the bucket is missing; it is cached for HEADs only,
// and a GET asks the origin and gets NoSuchBucket, which is then cached
// for both. Before, the GET got the HEAD's 404 as NoSuchKey.
func TestNegativeCacheOfHead(t *testing.T) {
	e := newEnv(t, nil)
	code := func(r response) string { return r.header.Get("X-Test-Error-Code") }
	for i := range 2 {
		r := e.do(http.MethodHead, "nobucket/k")
		if want := map[bool]string{true: "", false: xHit}[i == 0]; r.status != http.StatusNotFound || r.xcache() != want {
			t.Errorf("HEAD %d in a missing bucket: %d X-Cache %q, want 404 %q", i, r.status, r.xcache(), want)
		}
	}
	for i := range 2 {
		r := e.get("nobucket/k")
		if want := map[bool]string{true: "", false: xHit}[i == 0]; r.status != http.StatusNotFound || code(r) != "NoSuchBucket" || r.xcache() != want {
			t.Errorf("GET %d in a missing bucket after a HEAD: %d %q X-Cache %q, want 404 NoSuchBucket %q", i, r.status, code(r), r.xcache(), want)
		}
	}
	if r := e.do(http.MethodHead, "nobucket/k"); r.status != http.StatusNotFound || r.xcache() != xHit {
		t.Errorf("HEAD after the GET: %d X-Cache %q, want 404 HIT", r.status, r.xcache())
	}
	if h, g := e.origin.total(http.MethodHead, "nobucket/k"), e.origin.total(http.MethodGet, "nobucket/k"); h != 1 || g != 1 {
		t.Errorf("origin HEADs %d and GETs %d, want 1 and 1", h, g)
	}
}

// TestNegativeCacheOff checks NegativeTTL < 0: every 404 asks the origin.
func TestNegativeCacheOff(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.NegativeTTL = -1 })
	for range 3 {
		if r := e.get("b/missing"); r.status != http.StatusNotFound || r.xcache() != "" {
			t.Fatalf("GET of a missing key: %d X-Cache %q", r.status, r.xcache())
		}
	}
	if n := e.origin.total(http.MethodGet, "b/missing"); n != 3 {
		t.Errorf("%d origin GETs, want 3", n)
	}
}

// TestXCacheBytes checks that X-Cache says HIT only when every byte of
// the answer came from the cache: a range filled before, the whole
// object once all its slices are there; MISS when any slice is fetched;
// PASS when nothing is stored. The hit and miss counters agree.
func TestXCacheBytes(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(93, 3*testSlice+100)
	e.origin.put("b/obj", data)
	rng := func(from, to int) []string { return []string{"Range", fmt.Sprintf("bytes=%d-%d", from, to)} }

	steps := []struct {
		what     string
		hdr      []string
		from, to int
		want     string
	}{
		{"first range: miss", rng(10, 20), 10, 20, xMiss},
		{"same range: hit", rng(10, 20), 10, 20, xHit},
		{"other bytes of the same slice: hit", rng(testSlice-10, testSlice-1), testSlice - 10, testSlice - 1, xHit},
		{"range across a missing slice: miss", rng(testSlice-10, testSlice+10), testSlice - 10, testSlice + 10, xMiss},
		{"the whole object, slices 2 and 3 missing: miss", nil, 0, len(data) - 1, xMiss},
		{"the whole object: hit", nil, 0, len(data) - 1, xHit},
	}
	for _, s := range steps {
		// A slice is in the cache once its fill is done; a request that
		// follows a fill still running gets bytes from the origin (MISS).
		e.settle()
		r := e.get("b/obj", s.hdr...)
		status := http.StatusPartialContent
		if s.hdr == nil {
			status = http.StatusOK
		}
		checkBody(t, s.what, r, status, data[s.from:s.to+1])
		if r.xcache() != s.want {
			t.Errorf("%s: X-Cache %q, want %q", s.what, r.xcache(), s.want)
		}
	}
	if st := e.c().Stats(); st.Hits != 3 || st.Misses != 3 {
		t.Errorf("stats: %d hits, %d misses, want 3 and 3", st.Hits, st.Misses)
	}

	// Fresh by the clock but refilled: a revalidated copy whose slices are
	// missing is a MISS too.
	e.origin.put("b/short", data, func(o *object) { o.cacheControl = "max-age=1" })
	e.get("b/short", rng(0, 9)...)
	e.settle()
	e.clock.advance(2 * time.Second)
	if r := e.get("b/short"); r.xcache() != xMiss {
		t.Errorf("revalidated copy with missing slices: X-Cache %q, want MISS", r.xcache())
	}
	e.settle()
	e.clock.advance(2 * time.Second)
	if r := e.get("b/short"); r.xcache() != xRevalidated {
		t.Errorf("revalidated complete copy: X-Cache %q, want REVALIDATED", r.xcache())
	}

	e.origin.put("b/nostore", data, func(o *object) { o.cacheControl = "no-store" })
	e.mustGet("b/nostore", data, xPass)
}

// TestHeadMissCoalesced checks that concurrent HEAD misses of one object
// make one origin HEAD: the clients that arrive while it runs wait for
// its answer, and those after it get the metadata it left.
func TestHeadMissCoalesced(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(95, 1000)
	ob := e.origin.put("b/obj", data)
	g := e.origin.holdHeads()
	const n = 6
	results := make(chan response, n)
	go func() { results <- e.do(http.MethodHead, "b/obj") }()
	g.wait(t)
	for range n - 1 {
		go func() { results <- e.do(http.MethodHead, "b/obj") }()
	}
	e.waitInflight(n)
	g.open()
	for range n {
		select {
		case r := <-results:
			if r.status != http.StatusOK || r.header.Get("ETag") != ob.etag || r.header.Get("Content-Length") != "1000" {
				t.Errorf("HEAD: %d %v", r.status, r.header)
			}
		case <-time.After(waitLimit):
			t.Fatal("HEADs did not finish")
		}
	}
	if h := e.origin.total(http.MethodHead, "b/obj"); h != 1 {
		t.Errorf("%d origin HEADs for %d concurrent misses, want 1", h, n)
	}
	if s := e.c().Stats(); s.Hits+s.Misses != n {
		t.Errorf("stats: %d hits + %d misses, want %d", s.Hits, s.Misses, n)
	}
}

// TestStalledOriginHeadSent checks that a client whose miss follows a
// fill waiting for the origin gets the answer's head (and the bytes
// there are) at once, not when the origin goes on: a stalled origin is
// then a cut answer, not a silent one. (A small object is fetched whole
// before its answer begins: TestSmallObjectStoredBeforeAnswer.)
func TestStalledOriginHeadSent(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.smallObject = -1 })
	data := randomBytes(52, 3000)
	e.origin.put("b/obj", data, func(o *object) { o.contentType = "text/plain" })
	g := e.origin.pause("b/obj", 1)
	type result struct {
		resp *http.Response
		err  error
	}
	got := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/b/obj", nil)
		resp, err := e.client.Do(req)
		got <- result{resp, err}
	}()
	g.wait(t)
	var r result
	select {
	case r = <-got:
	case <-time.After(waitLimit):
		t.Fatal("no answer's head while the origin holds the body")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.resp.Body.Close()
	if r.resp.StatusCode != http.StatusOK || r.resp.Header.Get("X-Cache") != xMiss {
		t.Fatalf("status %d, X-Cache %q", r.resp.StatusCode, r.resp.Header.Get("X-Cache"))
	}
	g.open()
	body, err := io.ReadAll(r.resp.Body)
	if err != nil || !bytes.Equal(body, data) {
		t.Fatalf("body: %d bytes, error %v; want the object", len(body), err)
	}
}

// TestStalledOriginSniffedType checks that the head sent early for a
// stalled origin does not lose the Content-Type net/http sniffs from the
// body when the origin sends none: such a head waits for the first bytes,
// and the miss is answered with the type hits are.
func TestStalledOriginSniffedType(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.smallObject = -1 })
	data := []byte("<html><body>" + strings.Repeat("x", 3000) + "</body></html>")
	e.origin.put("b/page", data, func(o *object) { o.contentType = noContentType })
	g := e.origin.pause("b/page", 1)
	got := make(chan response, 1)
	go func() { got <- e.get("b/page") }()
	g.wait(t)
	g.open()
	r := <-got
	checkBody(t, "miss", r, http.StatusOK, data)
	want := http.DetectContentType(data)
	if ct := r.header.Get("Content-Type"); ct != want || r.xcache() != xMiss {
		t.Errorf("miss: Content-Type %q, X-Cache %q; want %q, MISS", ct, r.xcache(), want)
	}
	if ct := e.mustGet("b/page", data, xHit).header.Get("Content-Type"); ct != want {
		t.Errorf("hit: Content-Type %q, want %q", ct, want)
	}
}

// TestRetriedAnswerHasNoAge checks that an answer made again from the
// origin after the cached copy could not be read (its disk failed)
// carries no Age of that copy.
func TestRetriedAnswerHasNoAge(t *testing.T) {
	f := &faults{}
	e := newEnv(t, func(o *Options) { o.fault = f.fault })
	data := randomBytes(53, 3000)
	e.origin.put("b/obj", data, func(o *object) { o.contentType = "text/plain" })
	e.mustGet("b/obj", data, xMiss)
	e.settle()
	e.clock.advance(5 * time.Minute)
	f.set("read")
	r := e.mustGet("b/obj", data, xPass)
	if age, ok := r.header["Age"]; ok {
		t.Errorf("relayed answer after a failed read carries Age %q", age)
	}
}

// TestSmallObjectStoredBeforeAnswer checks a miss of an object of at
// most defaultSmallObject bytes, which the request that misses it
// fetches whole before it answers: a client that asks meanwhile follows
// the same fill, one origin request serving both; an origin that fails
// mid-object gets the client a whole error answer (503, not a cut body)
// and leaves no entry, so that the next request fetches the object again.
func TestSmallObjectStoredBeforeAnswer(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(54, 3000)
	e.origin.put("b/obj", data)
	g := e.origin.pause("b/obj", 1000)
	first := make(chan response, 1)
	go func() { first <- e.get("b/obj") }()
	g.wait(t)
	joined := make(chan response, 1)
	go func() { joined <- e.get("b/obj") }()
	e.waitInflight(2)
	g.open()
	r := <-first
	checkBody(t, "the request that missed", r, http.StatusOK, data)
	if r.xcache() != xMiss {
		t.Errorf("X-Cache %q, want %q", r.xcache(), xMiss)
	}
	checkBody(t, "the request that joined it", <-joined, http.StatusOK, data)
	e.mustGet("b/obj", data, xHit)
	if n := e.origin.fetches("b/obj", 0); n != 1 {
		t.Errorf("%d origin GETs, want 1", n)
	}

	e.origin.put("b/cut", data)
	e.origin.cut("b/cut", 1000)
	r = e.get("b/cut")
	if r.err != nil || r.status != http.StatusServiceUnavailable || r.header.Get("X-Test-Error-Code") != "ServiceUnavailable" {
		t.Fatalf("origin cut mid-object: status %d, error code %q, body error %v; want a whole 503 ServiceUnavailable",
			r.status, r.header.Get("X-Test-Error-Code"), r.err)
	}
	if r.header.Get("ETag") != "" || r.header.Get("Content-Type") != "" {
		t.Errorf("the error answer carries the object's headers: %v", r.header)
	}
	if id := e.fileOf("b/cut"); id != "" {
		t.Errorf("an entry (file %s) is left by the failed fetch", id)
	}
	e.mustGet("b/cut", data, xMiss)
	e.mustGet("b/cut", data, xHit)
	if n := e.origin.fetches("b/cut", 0); n != 2 {
		t.Errorf("%d origin GETs of the cut object, want 2", n)
	}
}

// TestSmallObjectFetchedForConditional checks that a miss of a small
// object whose answer needs none of its bytes (a 304) still completes the
// fill it made: the next request is served by it, not left waiting for a
// fill that never runs, and the origin is asked once.
func TestSmallObjectFetchedForConditional(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(55, 3000)
	e.origin.put("b/obj", data)
	if r := e.get("b/obj", "If-None-Match", "*"); r.status != http.StatusNotModified {
		t.Fatalf("If-None-Match * on a miss: %d, want 304", r.status)
	}
	checkBody(t, "next GET", e.get("b/obj"), http.StatusOK, data)
	e.mustGet("b/obj", data, xHit)
	if n := e.origin.fetches("b/obj", 0); n != 1 {
		t.Errorf("%d origin GETs, want 1", n)
	}
}

// TestSmallObjectFillPanics checks that a fill run by the request that
// missed (a small object) which panics midway ends for the clients that
// follow it, and for those after them: a panic in a request's goroutine
// is recovered by net/http's server, and the fill, never finished, would
// hold every later request of the object for good.
func TestSmallObjectFillPanics(t *testing.T) {
	var writes atomic.Int64
	e := newEnv(t, func(o *Options) {
		o.fault = func(op string) error {
			if op == "write" && writes.Add(1) == 2 {
				panic("injected fault in the fill")
			}
			return nil
		}
	})
	data := randomBytes(57, 3000)
	e.origin.put("b/obj", data)
	if r := e.get("b/obj"); r.err == nil && r.status == http.StatusOK {
		t.Fatalf("the GET whose fill panicked: %d, complete body", r.status)
	}
	next := make(chan response, 1)
	go func() { next <- e.get("b/obj") }()
	select {
	case r := <-next:
		checkBody(t, "the GET after the panic", r, http.StatusOK, data)
	case <-time.After(waitLimit):
		t.Error("the GET after the fill's panic waits for that fill for good")
		// Let the waiting request go, so that the test can end.
		c := e.c()
		c.mu.Lock()
		var fills []*fill
		if en := c.entries["b/obj"]; en != nil {
			for _, fl := range en.fills {
				fills = append(fills, fl)
			}
		}
		c.mu.Unlock()
		for _, fl := range fills {
			c.finish(fl, errors.New("test: unstuck"))
		}
		<-next
	}
}
