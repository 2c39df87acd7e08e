package edge

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// policy is what an origin response says about caching it.
type policy struct {
	// store is false for no-store and private: the response is relayed,
	// never kept.
	store bool
	// ttl is how long the object is fresh from the time it was fetched;
	// zero means it must be revalidated before each use (no-cache).
	ttl time.Duration
	// staleIfError, when set (>= 0), is the response's own stale-if-error
	// window (0 when it must be revalidated: never served stale); -1
	// means not given.
	staleIfError time.Duration
	// age is the answer's Age header: how long a cache before the edge
	// (the origin may itself be a CDN or another edge) had held it.
	age time.Duration
}

// since is when the answer received at now was made, for its age: now
// less the Age the answer came with (RFC 9111 §4.2.3, corrected_age_value
// without the response delay). An answer received with an Age of 50
// under max-age=60 is fresh for 10 more seconds, and answered with Age
// 50 and more.
func (p policy) since(now time.Time) time.Time { return now.Add(-p.age) }

// freshUntil is when the answer received at now stops being fresh.
func (p policy) freshUntil(now time.Time) time.Time { return now.Add(p.ttl - p.age) }

// cachePolicy reads Cache-Control (s-maxage before max-age, as a shared
// cache must) and Expires/Date of an origin response.
func cachePolicy(h http.Header, now time.Time, defaultTTL time.Duration) policy {
	p := policy{store: true, ttl: defaultTTL, staleIfError: -1}
	p.age = answerAge(h)
	maxAge, sMaxAge := time.Duration(-1), time.Duration(-1)
	noCache, mustRevalidate := false, false
	for _, line := range h.Values("Cache-Control") {
		for _, d := range strings.Split(line, ",") {
			name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
			val = strings.Trim(strings.TrimSpace(val), `"`)
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "private":
				p.store = false
			case "no-cache":
				noCache = true
			case "must-revalidate", "proxy-revalidate":
				mustRevalidate = true
			case "max-age":
				maxAge = seconds(val, maxAge)
			case "s-maxage":
				sMaxAge = seconds(val, sMaxAge)
			case "stale-if-error":
				p.staleIfError = seconds(val, p.staleIfError)
			}
		}
	}
	// A copy the origin says must be revalidated is never served stale
	// when the origin fails (RFC 9111 §5.2.2.2, §5.2.2.8, §5.2.2.10: a
	// shared cache treats s-maxage as proxy-revalidate), unless the
	// origin grants a stale-if-error window itself.
	if (noCache || mustRevalidate || sMaxAge >= 0) && p.staleIfError < 0 {
		p.staleIfError = 0
	}
	switch {
	case noCache:
		p.ttl = 0
	case sMaxAge >= 0:
		p.ttl = sMaxAge
	case maxAge >= 0:
		p.ttl = maxAge
	default:
		if exp := h.Get("Expires"); exp != "" {
			t, err := http.ParseTime(exp)
			if err != nil {
				// An invalid Expires means "already expired" (RFC 9111 §5.3).
				p.ttl = 0
				break
			}
			base := now
			if d, err := http.ParseTime(h.Get("Date")); err == nil {
				base = d
			}
			p.ttl = max(t.Sub(base), 0)
		}
	}
	return p
}

// answerAge is the Age header of h (RFC 9111 §5.1): a malformed one is
// ignored; of several, the first counts.
func answerAge(h http.Header) time.Duration {
	return seconds(strings.TrimSpace(h.Get("Age")), 0)
}

// seconds parses a delta-seconds value; a malformed one keeps def.
func seconds(v string, def time.Duration) time.Duration {
	n, err := strconv.ParseInt(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) && n > 0 {
		// RFC 9111 §1.2.2: a value too large to represent is taken as
		// the greatest one, not ignored.
		err = nil
	}
	if err != nil || n < 0 {
		return def
	}
	const maxSeconds = int64(100 * 365 * 24 * 3600)
	return time.Duration(min(n, maxSeconds)) * time.Second
}
