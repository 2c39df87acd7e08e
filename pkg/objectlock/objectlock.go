package objectlock

import (
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Mode is a retention mode, spelled as S3 spells it on the wire.
type Mode string

// The retention modes S3 defines. Governance protects a version from
// everyone without the permission to bypass it; Compliance protects it
// from everyone, the account's root user included.
const (
	Governance Mode = "GOVERNANCE"
	Compliance Mode = "COMPLIANCE"
)

// ParseMode returns the mode s names. S3 matches modes exactly, so
// "governance" is refused as any unknown mode is, with InvalidArgument
// and S3's message for an x-amz-object-lock-mode header it does not know;
// the XML parsers answer MalformedXML for the same refusal.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Governance, Compliance:
		return m, nil
	}
	return "", s3err.Newf(s3err.InvalidArgument, "Unknown wormMode directive.").
		With("ArgumentName", "x-amz-object-lock-mode").With("ArgumentValue", s)
}

// Retention is an object version's retention: a mode and the instant the
// version is protected until. The zero value is no retention.
type Retention struct {
	Mode  Mode
	Until time.Time
}

// IsZero reports whether r is no retention at all.
func (r Retention) IsZero() bool { return r.Mode == "" && r.Until.IsZero() }

// active reports whether r still protects its version at now: it has a
// mode and its Until is after now. S3 treats a retention whose date has
// passed as none.
func (r Retention) active(now time.Time) bool {
	return r.Mode != "" && r.Until.After(now)
}

// MaxDays and MaxYears are S3's limits on a bucket's default retention
// period.
const (
	MaxDays  = 36500
	MaxYears = 100
)

// Default is a bucket's default retention: the mode and period S3 gives
// every new version that brings no retention of its own. Exactly one of
// Days and Years is set in a valid Default; the zero value is no default.
type Default struct {
	Mode  Mode
	Days  int
	Years int
}

// IsZero reports whether d is no default retention.
func (d Default) IsZero() bool { return d == Default{} }

// Until returns the instant a version created at created is retained
// until under d: S3 adds the period to the version's creation time. Days
// and years are calendar days and years in UTC (time.AddDate), so a year
// from 29 February ends on 1 March: S3's pages do not say how a default's
// year is counted (only that an event hold's counts 365 days), and a
// calendar year is what other S3 servers give and never ends before the
// date a client computes from its own calendar. The zero time is returned
// for the zero Default.
func (d Default) Until(created time.Time) time.Time {
	if d.IsZero() {
		return time.Time{}
	}
	return created.UTC().AddDate(d.Years, 0, d.Days)
}

// Retention returns the retention d gives a version created at created.
func (d Default) Retention(created time.Time) Retention {
	if d.IsZero() {
		return Retention{}
	}
	return Retention{Mode: d.Mode, Until: d.Until(created)}
}
