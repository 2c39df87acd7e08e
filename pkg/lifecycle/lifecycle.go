package lifecycle

import (
	"strings"
	"time"
)

// MaxRules is S3's limit on the rules of one configuration.
const MaxRules = 1000

// MaxIDLength is S3's limit on the length of a rule's ID.
const MaxIDLength = 255

// MaxNewerNoncurrentVersions is S3's limit on NewerNoncurrentVersions.
const MaxNewerNoncurrentVersions = 100

// Configuration is a bucket's lifecycle configuration: its rules, in the
// order the document gave them.
type Configuration struct {
	Rules []Rule
}

// Rule is one lifecycle rule. An action whose fields are all zero is not
// part of the rule.
type Rule struct {
	// ID names the rule; unique within a configuration.
	ID string
	// Enabled is Status Enabled; a disabled rule never acts.
	Enabled bool
	// Filter selects the objects the rule applies to.
	Filter Filter
	// Expiration expires current versions.
	Expiration Expiration
	// NoncurrentVersionExpiration removes noncurrent versions.
	NoncurrentVersionExpiration NoncurrentVersionExpiration
	// AbortIncompleteMultipartUpload aborts uploads left unfinished.
	AbortIncompleteMultipartUpload AbortIncompleteMultipartUpload
}

// Filter selects objects by key prefix, tags and size; an object
// matches when it satisfies every condition set.
type Filter struct {
	Prefix string
	Tags   []Tag
	// SizeGreater and SizeLess are ObjectSizeGreaterThan and
	// ObjectSizeLessThan; zero is no bound.
	SizeGreater, SizeLess int64
	// Form is how the document wrote the filter, so that it is rendered
	// back as it was written.
	Form FilterForm
}

// FilterForm is the element a rule's filter was written with.
type FilterForm uint8

const (
	// FormEmpty is an empty <Filter/>: every object.
	FormEmpty FilterForm = iota
	// FormLegacyPrefix is the rule's top-level <Prefix>, from the older
	// PutBucketLifecycle grammar.
	FormLegacyPrefix
	// FormPrefix, FormTag, FormSizeGreater and FormSizeLess are a Filter
	// with that one element.
	FormPrefix
	FormTag
	FormSizeGreater
	FormSizeLess
	// FormAnd is a Filter with an And of several conditions.
	FormAnd
)

// Tag is one object tag a filter asks for.
type Tag struct {
	Key, Value string
}

// Expiration is the action on current versions: Days after creation, or
// at Date; or, with ExpiredObjectDeleteMarker, the removal of a delete
// marker that no version is left behind.
type Expiration struct {
	Days                      int
	Date                      time.Time
	ExpiredObjectDeleteMarker bool
}

// expires reports whether the action expires current versions.
func (e Expiration) expires() bool { return e.Days > 0 || !e.Date.IsZero() }

// IsZero reports whether the rule has no Expiration.
func (e Expiration) IsZero() bool { return !e.expires() && !e.ExpiredObjectDeleteMarker }

// NoncurrentVersionExpiration removes a noncurrent version NoncurrentDays
// after it became noncurrent, keeping the NewerNoncurrentVersions newest
// noncurrent versions of each key whatever their age.
type NoncurrentVersionExpiration struct {
	NoncurrentDays          int
	NewerNoncurrentVersions int
}

// IsZero reports whether the rule has no NoncurrentVersionExpiration.
func (n NoncurrentVersionExpiration) IsZero() bool { return n.NoncurrentDays == 0 }

// AbortIncompleteMultipartUpload aborts an upload DaysAfterInitiation
// after it was initiated.
type AbortIncompleteMultipartUpload struct {
	DaysAfterInitiation int
}

// IsZero reports whether the rule has no AbortIncompleteMultipartUpload.
func (a AbortIncompleteMultipartUpload) IsZero() bool { return a.DaysAfterInitiation == 0 }

// TagLookup returns the value of an object's tag and whether it has it.
type TagLookup func(key string) (string, bool)

// Match reports whether an object of this key, size and tags satisfies
// the filter. tags may be nil when the filter has no tags.
func (f *Filter) Match(key string, size int64, tags TagLookup) bool {
	if !strings.HasPrefix(key, f.Prefix) {
		return false
	}
	if f.SizeGreater > 0 && size <= f.SizeGreater {
		return false
	}
	if f.SizeLess > 0 && size >= f.SizeLess {
		return false
	}
	for _, t := range f.Tags {
		if tags == nil {
			return false
		}
		if v, ok := tags(t.Key); !ok || v != t.Value {
			return false
		}
	}
	return true
}

// TagSet is an object's tags as a walk of the index reads them in place
// (metadata.WalkRecord): a test for one tag, without copying the set.
type TagSet interface {
	HasTag(key, value string) bool
}

// MatchSet is Match for an object read in place: its key's bytes and its
// tags as a TagSet, which may be nil when the filter has no tags. It
// allocates nothing.
func (f *Filter) MatchSet(key []byte, size int64, tags TagSet) bool {
	if len(key) < len(f.Prefix) || string(key[:len(f.Prefix)]) != f.Prefix {
		return false
	}
	if f.SizeGreater > 0 && size <= f.SizeGreater {
		return false
	}
	if f.SizeLess > 0 && size >= f.SizeLess {
		return false
	}
	for _, t := range f.Tags {
		if tags == nil || !tags.HasTag(t.Key, t.Value) {
			return false
		}
	}
	return true
}

// Expiry is when something from the given time expires after days days
// of length day, as S3 computes it: the time days later, rounded up to
// the next "midnight", a multiple of day since the Unix epoch (midnight
// UTC for a day of 24 hours). A day of 0 or less is 24 hours.
func Expiry(days int, from time.Time, day time.Duration) time.Time {
	if day <= 0 {
		day = 24 * time.Hour
	}
	from = from.UTC()
	if day == 24*time.Hour {
		// AddDate keeps periods of centuries from overflowing a Duration.
		mid := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.UTC)
		return mid.AddDate(0, 0, days+1)
	}
	since := from.Sub(time.Unix(0, 0))
	n := since / day
	if since%day < 0 {
		n--
	}
	return time.Unix(0, 0).UTC().Add((n + time.Duration(days) + 1) * day)
}

// CurrentExpiry is when the rule expires a current version of key last
// modified at lastModified, if the rule is enabled, expires current
// versions and its filter matches.
func (r *Rule) CurrentExpiry(key string, size int64, tags TagLookup, lastModified time.Time, day time.Duration) (time.Time, bool) {
	if !r.Enabled || !r.Expiration.expires() || !r.Filter.Match(key, size, tags) {
		return time.Time{}, false
	}
	if !r.Expiration.Date.IsZero() {
		return r.Expiration.Date, true
	}
	return Expiry(r.Expiration.Days, lastModified, day), true
}

// CurrentExpirySet is CurrentExpiry for a current version read in place
// (Filter.MatchSet).
func (r *Rule) CurrentExpirySet(key []byte, size int64, tags TagSet, lastModified time.Time, day time.Duration) (time.Time, bool) {
	if !r.Enabled || !r.Expiration.expires() || !r.Filter.MatchSet(key, size, tags) {
		return time.Time{}, false
	}
	if !r.Expiration.Date.IsZero() {
		return r.Expiration.Date, true
	}
	return Expiry(r.Expiration.Days, lastModified, day), true
}

// Expiration returns the x-amz-expiration of a current version: the
// earliest expiry among the enabled Expiration rules that match it, and
// that rule's ID. ok is false when none does.
func (c *Configuration) Expiration(key string, size int64, tags TagLookup, lastModified time.Time, day time.Duration) (at time.Time, ruleID string, ok bool) {
	if c == nil {
		return time.Time{}, "", false
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		t, match := r.CurrentExpiry(key, size, tags, lastModified, day)
		if match && (!ok || t.Before(at)) {
			at, ruleID, ok = t, r.ID, true
		}
	}
	return at, ruleID, ok
}

// ExpirationHeader formats the x-amz-expiration header S3 sends with an
// object a rule expires.
func ExpirationHeader(at time.Time, ruleID string) string {
	return `expiry-date="` + at.UTC().Format(httpDate) + `", rule-id="` + escapeQuoted(ruleID) + `"`
}

// httpDate is the layout of HTTP dates, always in GMT.
const httpDate = "Mon, 02 Jan 2006 15:04:05 GMT"

// escapeQuoted escapes the quotes and backslashes of s for a quoted
// string in a header.
func escapeQuoted(s string) string {
	if !strings.ContainsAny(s, `"\`) {
		return s
	}
	var b strings.Builder
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// AbortDue reports whether the rule aborts an upload of key initiated at
// initiated by now.
func (r *Rule) AbortDue(key string, initiated, now time.Time, day time.Duration) (applies, due bool) {
	a := r.AbortIncompleteMultipartUpload
	if !r.Enabled || a.IsZero() || !r.Filter.Match(key, 0, nil) {
		return false, false
	}
	return true, !now.Before(Expiry(a.DaysAfterInitiation, initiated, day))
}

// NoncurrentDue reports whether the rule removes a noncurrent version of
// key that became noncurrent at since, newer noncurrent versions of the
// same key being newer in number.
func (r *Rule) NoncurrentDue(key string, size int64, tags TagLookup, since time.Time, newer int, now time.Time, day time.Duration) bool {
	n := r.NoncurrentVersionExpiration
	if !r.Enabled || n.IsZero() || !r.Filter.Match(key, size, tags) {
		return false
	}
	if newer < n.NewerNoncurrentVersions {
		return false
	}
	return !now.Before(Expiry(n.NoncurrentDays, since, day))
}

// MarkerDue reports whether the rule removes a delete marker of key,
// last modified at lastModified, that is its key's only version. A rule
// with ExpiredObjectDeleteMarker removes it whatever its age; one that
// expires current versions (Days or Date) removes it once it is as old
// as the rule asks of a current version, as S3 does.
func (r *Rule) MarkerDue(key string, lastModified, now time.Time, day time.Duration) bool {
	if !r.Enabled || !r.Filter.Match(key, 0, nil) {
		return false
	}
	if r.Expiration.ExpiredObjectDeleteMarker {
		return true
	}
	at, ok := r.CurrentExpiry(key, 0, nil, lastModified, day)
	return ok && !now.Before(at)
}

// MarkerAged reports whether MarkerDue depends on the marker's
// last-modified time, so that a walk must read it.
func (r *Rule) MarkerAged() bool {
	return r.Enabled && !r.Expiration.ExpiredObjectDeleteMarker && r.Expiration.expires()
}

// NeedsTags reports whether the rule's filter asks for tags, so that a
// walk must read the objects' tags.
func (r *Rule) NeedsTags() bool { return len(r.Filter.Tags) > 0 }
