package edge

import (
	"errors"
	"io"
	"testing"
)

// TestRelayCutMidBody checks the relay of an answer whose cache disk
// failed while it was being sent: the bytes after the failure come
// straight from the origin (relay), and when the origin dies in the
// middle of them, Serve returns an error after the answer started, so
// that the handler aborts the connection; the client reads an error, not
// a short body that ends cleanly.
func TestRelayCutMidBody(t *testing.T) {
	f := &faults{}
	e := newEnv(t, func(o *Options) { o.fault = f.fault })
	data := randomBytes(96, 4*testSlice)
	e.origin.put("b/obj", data)
	if r := e.get("b/obj", "Range", "bytes=0-9"); r.status != 206 {
		t.Fatalf("first range: %d", r.status)
	}
	e.settle() // slice 0 cached

	pause := e.origin.pause("b/obj", testSlice+testSlice/2)
	cut := e.origin.cut("b/obj", 3*testSlice+100)
	resp := e.stream("b/obj")
	if resp.StatusCode != 200 {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	pause.wait(t)
	got := readN(t, resp.Body, testSlice+testSlice/2)
	// Slice 2 is read ahead while slice 1 is sent; once it is complete,
	// the disk fails: slice 3 has no fill and no file to come from.
	c := e.c()
	eventually(t, "slice 2 to be cached", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		en := c.entries["b/obj"]
		return en != nil && en.has(2)
	})
	f.set("write", "probe", "attach")
	c.diskFailed(c.disks[0], "write", errors.New("injected"))
	pause.open()
	rest, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Fatalf("the body ended cleanly after %d of %d bytes; want an error", len(got)+len(rest), len(data))
	}
	cut.wait(t)
	if n := len(got) + len(rest); n >= len(data) {
		t.Fatalf("%d bytes, want fewer than %d", n, len(data))
	}
	if relays := e.origin.fetches("b/obj", 3); relays != 1 {
		t.Errorf("slice 3 asked %d times, want once (the relay)", relays)
	}
}
