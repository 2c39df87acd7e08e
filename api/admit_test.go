package api

import "testing"

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
