package edge

import (
	"io"
	"net/http"
	"sync"
	"testing"
)

// TestCoalescedMiss checks that concurrent misses of one object make one
// origin request per slice, and that every client gets the object.
func TestCoalescedMiss(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int64
	}{
		{"one slice", testSlice - 1000},
		{"five slices", 4*testSlice + 1234},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			data := randomBytes(1, int(tc.size))
			e.origin.put("b/obj", data)
			// The origin holds the first slice's body until every client
			// is in flight, so that all of them miss together.
			g := e.origin.pause("b/obj", 1000)

			const n = 100
			res := make([]response, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { res[i] = e.get("b/obj") })
			}
			g.wait(t)
			e.waitInflight(n)
			g.open()
			wg.Wait()

			for i, r := range res {
				checkBody(t, "client", r, http.StatusOK, data)
				if x := r.xcache(); x != xMiss && x != xHit {
					t.Fatalf("client %d: X-Cache %q", i, x)
				}
			}
			slices := (tc.size + testSlice - 1) / testSlice
			for i := range slices {
				if got := e.origin.fetches("b/obj", i); got != 1 {
					t.Errorf("slice %d fetched %d times, want 1", i, got)
				}
			}
			if got := e.origin.all(); got != int(slices) {
				t.Errorf("%d origin requests, want %d: %v", got, slices, e.origin.requests(nil))
			}
			if s := e.c().Stats(); s.Misses+s.Hits != n || s.Misses == 0 {
				t.Errorf("stats: %d misses + %d hits, want %d", s.Misses, s.Hits, n)
			}
		})
	}
}

// TestJoinMidFill checks that a client arriving while a fill is half done
// streams the bytes already written and then the rest, without a second
// origin request.
func TestJoinMidFill(t *testing.T) {
	e := newEnv(t, nil)
	size := int64(2*testSlice + 5000)
	data := randomBytes(2, int(size))
	e.origin.put("b/obj", data)
	half := size / 2 // inside slice 1
	g := e.origin.pause("b/obj", half)

	first := e.stream("b/obj")
	if first.StatusCode != http.StatusOK || first.Header.Get("X-Cache") != xMiss {
		t.Fatalf("first client: %d %q", first.StatusCode, first.Header.Get("X-Cache"))
	}
	g.wait(t)
	got := readN(t, first.Body, int(half)) // everything the origin sent so far

	// The joiner's answer starts (its headers, X-Cache among them, and
	// the bytes already on disk go out) while the origin is still
	// paused: only then does the fill go on. Opening the gate earlier
	// would let the fill finish first and the joiner be, rightly, a HIT.
	type answer struct {
		resp *http.Response
		err  error
	}
	joined := make(chan answer, 1)
	go func() {
		resp, err := e.client.Get(e.srv.URL + "/b/obj")
		joined <- answer{resp, err}
	}()
	a := <-joined
	if a.err != nil {
		g.open()
		t.Fatal(a.err)
	}
	jr := a.resp
	defer jr.Body.Close()
	g.open()

	rest, err := io.ReadAll(first.Body)
	if err != nil {
		t.Fatal(err)
	}
	checkBody(t, "first client", response{status: 200, body: append(got, rest...)}, 200, data)
	jbody, err := io.ReadAll(jr.Body)
	r := response{status: jr.StatusCode, header: jr.Header, body: jbody, err: err}
	checkBody(t, "joiner", r, http.StatusOK, data)
	// The joiner's bytes after the first half came from the origin as
	// it read them: not a HIT, although it caused no origin request.
	if r.xcache() != xMiss {
		t.Errorf("joiner: X-Cache %q, want MISS", r.xcache())
	}
	for i := range int64(3) {
		if n := e.origin.fetches("b/obj", i); n != 1 {
			t.Errorf("slice %d fetched %d times, want 1", i, n)
		}
	}
	if n := e.origin.all(); n != 3 {
		t.Errorf("%d origin requests, want 3", n)
	}
}

// TestHitUsesReadFrom checks that a hit's bytes go to the ResponseWriter
// through ReadFrom from the cached file (sendfile on a network
// connection), not through a copying wrapper.
func TestHitUsesReadFrom(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(3, 3*testSlice+5)
	e.origin.put("b/obj", data)
	e.mustGet("b/obj", data, xMiss)
	// The fill's request ends before the hit is sent.
	e.waitInflight(0)
	before := e.readFroms.Load()
	e.mustGet("b/obj", data, xHit)
	// The client may have read the last bytes before the handler's last
	// ReadFrom returned and was counted: wait for the request to end.
	e.waitInflight(0)
	if n := e.readFroms.Load() - before; n != int64(len(data)) {
		t.Errorf("%d bytes of a hit went through ReadFrom, want all %d", n, len(data))
	}
}
