package edge

import (
	"net/http"
	"testing"
)

// TestConditionalAtEdge checks If-None-Match and If-Match answered from the
// cache, and that HEAD has GET's headers without a body.
func TestConditionalAtEdge(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(70, 2*testSlice+3)
	ob := e.origin.put("b/obj", data, func(o *object) {
		o.contentType = "image/png"
		o.cacheControl = "public, max-age=3600"
		o.meta = map[string]string{"Color": "blue", "Owner": "me"}
	})
	e.origin.put("b/fresh", data)

	// On a miss and on a hit alike.
	for _, k := range []string{"b/fresh", "b/obj"} {
		r := e.get(k, "If-None-Match", `"nope", `+e.originETag(k))
		if r.status != http.StatusNotModified || len(r.body) != 0 || r.header.Get("ETag") != e.originETag(k) {
			t.Errorf("%s If-None-Match on a miss: %d, ETag %q", k, r.status, r.header.Get("ETag"))
		}
	}
	// A 304 on a miss sends no body, so only the first slice is cached:
	// the GET after it fetches the others, a MISS (bytes from the
	// origin); the next one is a HIT.
	e.mustGet("b/obj", data, xMiss)
	e.mustGet("b/obj", data, xHit)
	before := e.origin.all()
	r := e.get("b/obj", "If-None-Match", ob.etag)
	if r.status != http.StatusNotModified || r.header.Get("ETag") != ob.etag || r.xcache() != xHit {
		t.Errorf("If-None-Match: %d, ETag %q, X-Cache %q", r.status, r.header.Get("ETag"), r.xcache())
	}
	// A list on several lines is one list (RFC 9110 §5.3).
	if r := e.get("b/obj", "If-None-Match", `"other"`, "If-None-Match", ob.etag); r.status != http.StatusNotModified {
		t.Errorf("If-None-Match matching on its second line: %d, want 304", r.status)
	}
	checkBody(t, "If-Match matching on its second line", e.get("b/obj", "If-Match", `"other"`, "If-Match", ob.etag), http.StatusOK, data)
	if r := e.get("b/obj", "If-None-Match", "*"); r.status != http.StatusNotModified {
		t.Errorf("If-None-Match *: %d, want 304", r.status)
	}
	checkBody(t, "If-None-Match other", e.get("b/obj", "If-None-Match", `"other"`), http.StatusOK, data)
	if r := e.get("b/obj", "If-Match", `"other"`); r.status != http.StatusPreconditionFailed || len(r.body) != 0 {
		t.Errorf("If-Match mismatch: %d, want 412", r.status)
	}
	checkBody(t, "If-Match", e.get("b/obj", "If-Match", ob.etag), http.StatusOK, data)
	r = e.get("b/obj", "If-Match", ob.etag, "Range", "bytes=5-9")
	checkBody(t, "If-Match with a range", r, http.StatusPartialContent, data[5:10])
	if r := e.get("b/obj", "If-Modified-Since", ob.lastModified.Format(http.TimeFormat)); r.status != http.StatusNotModified {
		t.Errorf("If-Modified-Since its date: %d, want 304", r.status)
	}
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests for conditionals on a cached object, want 0", n)
	}

	get := e.mustGet("b/obj", data, xHit)
	head := e.do(http.MethodHead, "b/obj")
	if head.status != http.StatusOK || len(head.body) != 0 {
		t.Fatalf("HEAD: %d with %d bytes", head.status, len(head.body))
	}
	for _, k := range []string{"Content-Length", "ETag", "Content-Type", "Cache-Control", "Last-Modified",
		"X-Amz-Meta-Color", "X-Amz-Meta-Owner", "Accept-Ranges", "X-Cache"} {
		if get.header.Get(k) == "" || head.header.Get(k) != get.header.Get(k) {
			t.Errorf("%s: GET %q, HEAD %q", k, get.header.Get(k), head.header.Get(k))
		}
	}
	want := map[string]string{
		"Content-Type": "image/png", "Cache-Control": "public, max-age=3600", "X-Amz-Meta-Color": "blue",
		"ETag": ob.etag, "Last-Modified": ob.lastModified.Format(http.TimeFormat), "Content-Length": "131075",
	}
	for k, v := range want {
		if get.header.Get(k) != v {
			t.Errorf("%s: %q, want %q", k, get.header.Get(k), v)
		}
	}

	// HEAD of an object not cached yet answers with the same headers.
	e.origin.put("b/h", data, func(o *object) { o.meta = map[string]string{"Color": "red"} })
	head = e.do(http.MethodHead, "b/h")
	if head.status != http.StatusOK || len(head.body) != 0 || head.header.Get("Content-Length") != "131075" ||
		head.header.Get("X-Amz-Meta-Color") != "red" || head.header.Get("ETag") != e.originETag("b/h") {
		t.Errorf("HEAD on a miss: %d %v", head.status, head.header)
	}
	e.mustGet("b/h", data, "")
	if r := e.do(http.MethodHead, "b/missing"); r.status != http.StatusNotFound {
		t.Errorf("HEAD of a missing key: %d, want 404", r.status)
	}
}

func (e *env) originETag(ck string) string {
	e.origin.mu.Lock()
	defer e.origin.mu.Unlock()
	return e.origin.objects[ck].etag
}
