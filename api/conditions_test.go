package api

import (
	"testing"
	"time"
)

// TestRemainingRetentionDays checks the value of
// s3:object-lock-remaining-retention-days: whole days from now to the
// requested date, a part of a day counted as a day.
func TestRemainingRetentionDays(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const day = 24 * time.Hour
	for _, c := range []struct {
		name  string
		until time.Time
		want  string
	}{
		{"ten days", now.Add(10 * day), "10"},
		{"ten days and a second", now.Add(10*day + time.Second), "11"},
		{"a minute", now.Add(time.Minute), "1"},
		{"a day less a second", now.Add(day - time.Second), "1"},
		{"now", now, "0"},
		{"past", now.Add(-3 * day), "0"},
		{"another zone", now.Add(2 * day).In(time.FixedZone("X", 5*3600)), "2"},
	} {
		if got := remainingRetentionDays(c.until, now); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
