package edge

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/byterange"
	"github.com/objectgateway/objectgateway/pkg/precondition"
)

// origin is a tiny in-memory S3-like server: GET and HEAD of /bucket/key
// with Range, If-Match, If-None-Match, and per-object caching headers.
// It counts the requests it receives, can be told to fail, and can pause
// or cut an object's body at a byte offset so that fills are observably
// in flight.
type origin struct {
	srv *httptest.Server

	mu      sync.Mutex
	objects map[string]*object // by "bucket/key"
	log     []originRequest
	gates   []*gate
	gen     int // bumped by each put, so that every version has its own ETag

	// failMode is failNone, failStatus (500 InternalError) or failClose
	// (the connection is closed without an answer).
	failMode atomic.Int32

	// now, when set, is the clock of the Date header.
	now func() time.Time

	// missingAge, when set, is the Age header of 404 answers.
	missingAge atomic.Value

	// headGate, when set, holds every HEAD until it is opened; its
	// reached is closed by the first HEAD held.
	headGate *gate
}

const (
	failNone int32 = iota
	failStatus
	failClose
)

// object is an origin object.
type object struct {
	data         []byte
	etag         string // quoted
	lastModified time.Time
	contentType  string
	cacheControl string
	expires      string
	age          string // the Age header, as a cache before the edge would send it
	meta         map[string]string
}

// noContentType as an object's contentType: the origin sends no
// Content-Type header for it.
const noContentType = "-"

// originRequest is one request the origin received.
type originRequest struct {
	method, key, rng, ifMatch, ifNoneMatch string
}

// gate stops the body of the next response of key that crosses object
// offset at: the bytes before at are sent and flushed, reached is closed,
// and the response waits for release (or, when cut, the connection is
// closed there). A gate acts once.
type gate struct {
	key     string
	at      int64
	cut     atomic.Bool
	reached chan struct{}
	release chan struct{}
	used    atomic.Bool
	once    sync.Once
}

// open lets a paused body go on.
func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// abort closes the connection of a paused body.
func (g *gate) abort() {
	g.cut.Store(true)
	g.open()
}

// wait blocks until the gate has stopped a body.
func (g *gate) wait(t *testing.T) {
	t.Helper()
	select {
	case <-g.reached:
	case <-time.After(waitLimit):
		t.Fatalf("origin: no response of %s reached offset %d", g.key, g.at)
	}
}

func newOrigin(t *testing.T) *origin {
	o := &origin{objects: make(map[string]*object)}
	o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(func() {
		o.openGates()
		o.srv.Close()
	})
	return o
}

// holdHeads installs a gate that holds every HEAD until opened.
func (o *origin) holdHeads() *gate {
	g := &gate{reached: make(chan struct{}), release: make(chan struct{})}
	o.mu.Lock()
	o.headGate = g
	o.mu.Unlock()
	return g
}

// openGates lets every paused body go on.
func (o *origin) openGates() {
	o.mu.Lock()
	gates := o.gates
	if o.headGate != nil {
		gates = append(gates, o.headGate)
	}
	o.mu.Unlock()
	for _, g := range gates {
		g.open()
	}
}

// update changes an object's headers in place: the same bytes and ETag,
// as an S3 copy of an object onto itself with new metadata.
func (o *origin) update(ck string, set func(*object)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	set(o.objects[ck])
}

// put stores an object (replacing any) with a new ETag.
func (o *origin) put(ck string, data []byte, opts ...func(*object)) *object {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gen++
	ob := &object{
		data:         data,
		etag:         fmt.Sprintf(`"%08x%08x"`, checksum(data), o.gen),
		lastModified: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(o.gen) * time.Second),
		contentType:  "application/octet-stream",
	}
	for _, f := range opts {
		f(ob)
	}
	o.objects[ck] = ob
	return ob
}

func (o *origin) remove(ck string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.objects, ck)
}

// pause installs a gate on key at offset at.
func (o *origin) pause(ck string, at int64) *gate {
	g := &gate{key: ck, at: at, reached: make(chan struct{}), release: make(chan struct{})}
	o.mu.Lock()
	o.gates = append(o.gates, g)
	o.mu.Unlock()
	return g
}

// cut installs a gate that closes the connection at offset at, once.
func (o *origin) cut(ck string, at int64) *gate {
	g := o.pause(ck, at)
	g.cut.Store(true)
	return g
}

func (o *origin) fail(mode int32) { o.failMode.Store(mode) }

// requests returns the requests received so far that match the filter.
func (o *origin) requests(match func(originRequest) bool) []originRequest {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []originRequest
	for _, r := range o.log {
		if match == nil || match(r) {
			out = append(out, r)
		}
	}
	return out
}

// count is the number of requests of method for key with exactly the Range
// header rng ("" for none).
func (o *origin) count(method, ck, rng string) int {
	return len(o.requests(func(r originRequest) bool { return r.method == method && r.key == ck && r.rng == rng }))
}

// total is the number of requests of method for key, any range.
func (o *origin) total(method, ck string) int {
	return len(o.requests(func(r originRequest) bool { return r.method == method && r.key == ck }))
}

// all is the number of requests received.
func (o *origin) all() int { return len(o.requests(nil)) }

// fetches is the number of GETs of ck whose Range starts at slice i (the
// first fetch of an object asks for a whole slice whatever the size,
// later ones for the bytes the slice holds).
func (o *origin) fetches(ck string, i int64) int {
	prefix := "bytes=" + strconv.FormatInt(i*testSlice, 10) + "-"
	return len(o.requests(func(r originRequest) bool {
		return r.method == http.MethodGet && r.key == ck && strings.HasPrefix(r.rng, prefix)
	}))
}

func (o *origin) serve(w http.ResponseWriter, r *http.Request) {
	ck := strings.TrimPrefix(r.URL.Path, "/")
	o.mu.Lock()
	o.log = append(o.log, originRequest{
		method: r.Method, key: ck, rng: r.Header.Get("Range"),
		ifMatch: r.Header.Get("If-Match"), ifNoneMatch: r.Header.Get("If-None-Match"),
	})
	ob := o.objects[ck]
	var g *gate
	for _, x := range o.gates {
		if x.key == ck && !x.used.Load() {
			g = x
			break
		}
	}
	hg := o.headGate
	o.mu.Unlock()
	if hg != nil && r.Method == http.MethodHead {
		if hg.used.CompareAndSwap(false, true) {
			close(hg.reached)
		}
		select {
		case <-hg.release:
		case <-r.Context().Done():
			return
		}
	}

	switch o.failMode.Load() {
	case failStatus:
		writeS3Error(w, http.StatusInternalServerError, "InternalError")
		return
	case failClose:
		panic(http.ErrAbortHandler)
	}
	if ob == nil {
		if age, _ := o.missingAge.Load().(string); age != "" {
			w.Header().Set("Age", age)
		}
		code := "NoSuchKey"
		if strings.HasPrefix(ck, "nobucket/") {
			code = "NoSuchBucket"
		}
		writeS3Error(w, http.StatusNotFound, code)
		return
	}
	h := w.Header()
	if o.now != nil {
		h.Set("Date", o.now().Format(http.TimeFormat))
	}
	h.Set("ETag", ob.etag)
	h.Set("Last-Modified", ob.lastModified.Format(http.TimeFormat))
	if ob.contentType != noContentType {
		h.Set("Content-Type", ob.contentType)
	} else {
		h["Content-Type"] = nil // not sniffed either
	}
	h.Set("Accept-Ranges", "bytes")
	if ob.cacheControl != "" {
		h.Set("Cache-Control", ob.cacheControl)
	}
	if ob.expires != "" {
		h.Set("Expires", ob.expires)
	}
	if ob.age != "" {
		h.Set("Age", ob.age)
	}
	for k, v := range ob.meta {
		h.Set("X-Amz-Meta-"+k, v)
	}
	err := precondition.Check(precondition.Headers{
		IfMatch: r.Header.Get("If-Match"), IfNoneMatch: r.Header.Get("If-None-Match"),
	}, strings.Trim(ob.etag, `"`), ob.lastModified)
	if err != nil {
		if strings.Contains(err.Error(), "NotModified") {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		writeS3Error(w, http.StatusPreconditionFailed, "PreconditionFailed")
		return
	}
	size := int64(len(ob.data))
	rng, partial, err := byterange.Parse(r.Header.Get("Range"), size)
	if err != nil {
		h.Set("Content-Range", byterange.UnsatisfiedContentRange(size))
		writeS3Error(w, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")
		return
	}
	status := http.StatusOK
	if partial {
		status = http.StatusPartialContent
		h.Set("Content-Range", rng.ContentRange(size))
	} else {
		rng = byterange.Range{Start: 0, Length: size}
	}
	h.Set("Content-Length", strconv.FormatInt(rng.Length, 10))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	body := ob.data[rng.Start : rng.Start+rng.Length]
	if g != nil && g.at > rng.Start && g.at < rng.Start+rng.Length && g.used.CompareAndSwap(false, true) {
		n := g.at - rng.Start
		w.Write(body[:n])
		w.(http.Flusher).Flush()
		close(g.reached)
		if !g.cut.Load() {
			select {
			case <-g.release:
			case <-r.Context().Done():
				return
			}
		}
		if g.cut.Load() {
			panic(http.ErrAbortHandler)
		}
		body = body[n:]
	}
	w.Write(body)
}

func writeS3Error(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	xml.NewEncoder(w).Encode(struct {
		XMLName xml.Name `xml:"Error"`
		Code    string   `xml:"Code"`
		Message string   `xml:"Message"`
	}{Code: code, Message: "origin says " + code})
}

func checksum(b []byte) uint32 {
	var h uint32 = 2166136261
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}
