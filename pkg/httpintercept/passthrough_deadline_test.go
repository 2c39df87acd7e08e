package httpintercept

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// After a hit on a new connection (net/http still in StateNew, so the
// Conn is in charge of the header deadline), the next head must be held
// to ReadHeaderTimeout from its first bytes even when the read that
// brings them already switches the connection to pass-through: a request
// line ending in a bare LF (which net/http accepts, then waits for the
// rest of the head), or MaxHeadBytes of a head without its end. Held to
// the idle deadline the hit left (an hour), the head outlasts the
// client's 20-second wait; net/http alone closes after 1 s.
func TestReadHeaderTimeoutPassThroughAfterHit(t *testing.T) {
	const header, idle = time.Second, time.Hour
	cfg := func(s *http.Server, o *Options) {
		s.ReadHeaderTimeout, s.IdleTimeout = header, idle
		o.ReadHeaderTimeout, o.IdleTimeout = header, idle
		o.MaxHeadBytes = 4 << 10 // the size of the Conn's first buffer
	}
	partials := []string{
		"GET /other HTTP/1.1\nHost: example.com\n",
		"GET /other HTTP/1.1\r\nHost: example.com\r\nX-Pad: " + strings.Repeat("p", 5000),
	}
	ends := map[int][]string{}
	for _, mode := range []int{plainServer, intercepted} {
		f := newFixture(t, mode, cfg)
		hit := "hit:/hit/a"
		if mode == plainServer {
			hit = "net/http:/hit/a"
		}
		for _, partial := range partials {
			c := f.dial()
			c.send(get("/hit/a"))
			c.expect("GET", 200, hit, false)
			c.send(partial)
			ends[mode] = append(ends[mode], c.rest())
		}
	}
	for i := range ends[plainServer] {
		if a, b := ends[plainServer][i], ends[intercepted][i]; a != b {
			t.Errorf("case %d: net/http alone ends with %q, intercepted with %q", i, a, b)
		}
	}
}
