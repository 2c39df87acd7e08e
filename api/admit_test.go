package api

import (
	"strings"
	"testing"
)

// TestAnonymousLimit checks the default of Options.MaxAnonymousInFlight:
// an eighth of MaxInFlight with a floor, and no bound without one.
func TestAnonymousLimit(t *testing.T) {
	for _, c := range []struct {
		max, anon, want int
	}{
		{max: 1024, want: 128},
		{max: 8, want: minAnonymous},
		{max: 0, want: 0},
		{max: 1024, anon: 4, want: 4},
		{max: 0, anon: 4, want: 4},
	} {
		if got := anonymousLimit(Options{MaxInFlight: c.max, MaxAnonymousInFlight: c.anon}); got != c.want {
			t.Errorf("MaxInFlight %d, MaxAnonymousInFlight %d: %d, want %d", c.max, c.anon, got, c.want)
		}
	}
}

// TestPreDataLimit checks that the fields' reader lets exactly
// maxPostPreData bytes through, marks the body as over the limit on the
// next read, and passes everything once opened.
func TestPreDataLimit(t *testing.T) {
	body := strings.Repeat("x", maxPostPreData+10)
	p := &preData{r: strings.NewReader(body), left: maxPostPreData}
	buf := make([]byte, maxPostPreData+10)
	n := 0
	for n < maxPostPreData {
		m, err := p.Read(buf[n:])
		if err != nil {
			t.Fatalf("after %d bytes: %v", n, err)
		}
		n += m
	}
	if n != maxPostPreData || p.over {
		t.Fatalf("%d bytes through, over %v", n, p.over)
	}
	if m, err := p.Read(buf); m != 0 || err == nil || !p.over {
		t.Fatalf("read past the limit: %d %v, over %v", m, err, p.over)
	}
	p.open = true
	if m, err := p.Read(buf); m != 10 || err != nil {
		t.Fatalf("read once open: %d %v", m, err)
	}
}
