package objectlock

import (
	"errors"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// now is the fixed clock of the tests.
var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// wantAnswer fails unless err is nil when code is nil, or an S3 error of
// code with message when it is not.
func wantAnswer(t *testing.T, err error, code *s3err.Code, message string) {
	t.Helper()
	if code == nil {
		if err != nil {
			t.Fatalf("error %v, want none", err)
		}
		return
	}
	var e *s3err.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want %s", err, *code)
	}
	if e.Code != *code || (message != "" && e.Text() != message) {
		t.Fatalf("error %s %q, want %s %q", e.Code, e.Text(), *code, message)
	}
}

func code(c s3err.Code) *s3err.Code { return &c }

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
		ok   bool
	}{
		{"GOVERNANCE", Governance, true},
		{"COMPLIANCE", Compliance, true},
		{"governance", "", false}, // S3 matches modes exactly.
		{" COMPLIANCE", "", false},
		{"", "", false},
		{"LEGAL", "", false},
	} {
		m, err := ParseMode(tc.in)
		if tc.ok {
			if err != nil || m != tc.want {
				t.Errorf("ParseMode(%q) = %q, %v; want %q", tc.in, m, err, tc.want)
			}
			continue
		}
		if s3err.As(err).Code != s3err.InvalidArgument || s3err.As(err).Text() != "Unknown wormMode directive." {
			t.Errorf("ParseMode(%q) = %q, %v; want InvalidArgument", tc.in, m, err)
		}
	}
}

func TestDefaultUntil(t *testing.T) {
	created := time.Date(2024, 2, 29, 10, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		d    Default
		want time.Time
	}{
		{Default{}, time.Time{}},
		{Default{Mode: Governance, Days: 1}, time.Date(2024, 3, 1, 10, 30, 0, 0, time.UTC)},
		{Default{Mode: Governance, Days: 365}, time.Date(2025, 2, 28, 10, 30, 0, 0, time.UTC)},
		// A calendar year from 29 February ends on 1 March.
		{Default{Mode: Compliance, Years: 1}, time.Date(2025, 3, 1, 10, 30, 0, 0, time.UTC)},
		{Default{Mode: Compliance, Years: 4}, time.Date(2028, 2, 29, 10, 30, 0, 0, time.UTC)},
		{Default{Mode: Compliance, Days: MaxDays}, created.AddDate(0, 0, MaxDays)},
		{Default{Mode: Compliance, Years: MaxYears}, time.Date(2124, 2, 29, 10, 30, 0, 0, time.UTC)},
	} {
		if got := tc.d.Until(created); !got.Equal(tc.want) {
			t.Errorf("%+v.Until(%v) = %v, want %v", tc.d, created, got, tc.want)
		}
	}
	// A creation time in another zone is the same instant in UTC.
	east := created.In(time.FixedZone("east", 14*3600))
	if got := (Default{Mode: Governance, Days: 1}).Until(east); !got.Equal(time.Date(2024, 3, 1, 10, 30, 0, 0, time.UTC)) {
		t.Errorf("Until of a creation time in UTC+14 = %v", got)
	}
	if r := (Default{Mode: Governance, Days: 2}).Retention(created); r.Mode != Governance || !r.Until.Equal(created.AddDate(0, 0, 2)) {
		t.Errorf("Retention = %+v", r)
	}
	if r := (Default{}).Retention(created); !r.IsZero() {
		t.Errorf("the zero Default gives retention %+v", r)
	}
}

func TestCheckChange(t *testing.T) {
	later, earlier, past := now.Add(48*time.Hour), now.Add(24*time.Hour), now.Add(-time.Hour)
	gov := func(u time.Time) Retention { return Retention{Mode: Governance, Until: u} }
	comp := func(u time.Time) Retention { return Retention{Mode: Compliance, Until: u} }
	denied := code(s3err.AccessDenied)
	for _, tc := range []struct {
		name     string
		old, new Retention
		bypass   bool
		want     *s3err.Code
	}{
		{"none to governance", Retention{}, gov(later), false, nil},
		{"none to compliance", Retention{}, comp(later), false, nil},
		{"none to none", Retention{}, Retention{}, false, nil},

		{"compliance extended", comp(earlier), comp(later), false, nil},
		{"compliance same date", comp(earlier), comp(earlier), false, nil},
		{"compliance shortened", comp(later), comp(earlier), false, denied},
		{"compliance same date as shown", comp(earlier.Add(456789)), comp(earlier.Truncate(Precision)), false, nil},
		{"compliance a millisecond shorter than shown", comp(earlier.Add(456789)), comp(earlier.Truncate(Precision).Add(-Precision)), false, denied},
		{"compliance shortened with bypass", comp(later), comp(earlier), true, denied},
		{"compliance removed", comp(later), Retention{}, false, denied},
		{"compliance removed with bypass", comp(later), Retention{}, true, denied},
		{"compliance to governance later", comp(earlier), gov(later), false, denied},
		{"compliance to governance with bypass", comp(earlier), gov(later), true, denied},
		{"compliance expired, removed", comp(past), Retention{}, false, nil},
		{"compliance expired, to governance", comp(past), gov(earlier), false, nil},
		{"compliance expiring now is expired", comp(now), Retention{}, false, nil},

		{"governance extended", gov(earlier), gov(later), false, nil},
		{"governance same date", gov(earlier), gov(earlier), false, nil},
		{"governance shortened", gov(later), gov(earlier), false, denied},
		{"governance shortened with bypass", gov(later), gov(earlier), true, nil},
		{"governance removed", gov(later), Retention{}, false, denied},
		{"governance removed with bypass", gov(later), Retention{}, true, nil},
		{"governance to compliance", gov(earlier), comp(later), false, denied},
		{"governance to compliance with bypass", gov(earlier), comp(later), true, nil},
		{"governance expired, shortened", gov(past), gov(earlier), false, nil},
		{"governance expired, removed", gov(past), Retention{}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckChange(tc.old, tc.new, tc.bypass, now)
			wantAnswer(t, err, tc.want, lockedMessage)
			if tc.want != nil && s3err.As(err).Code.Status() != 403 {
				t.Fatalf("status %d, want 403", s3err.As(err).Code.Status())
			}
		})
	}
}

func TestProtectedAndCheckRemove(t *testing.T) {
	future, past := now.Add(time.Minute), now.Add(-time.Minute)
	denied := code(s3err.AccessDenied)
	for _, tc := range []struct {
		name      string
		r         Retention
		hold      bool
		protected bool
		remove    *s3err.Code // without bypass
		bypassed  *s3err.Code // with bypass
	}{
		{"nothing", Retention{}, false, false, nil, nil},
		{"legal hold", Retention{}, true, true, denied, denied},
		{"legal hold, expired retention", Retention{Mode: Compliance, Until: past}, true, true, denied, denied},
		{"legal hold, governance", Retention{Mode: Governance, Until: future}, true, true, denied, denied},
		{"compliance", Retention{Mode: Compliance, Until: future}, false, true, denied, denied},
		{"governance", Retention{Mode: Governance, Until: future}, false, true, denied, nil},
		{"compliance expired", Retention{Mode: Compliance, Until: past}, false, false, nil, nil},
		{"governance expired", Retention{Mode: Governance, Until: past}, false, false, nil, nil},
		{"governance until now", Retention{Mode: Governance, Until: now}, false, false, nil, nil},
		{"a date without a mode", Retention{Until: future}, false, false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Protected(tc.r, tc.hold, now); got != tc.protected {
				t.Errorf("Protected = %v, want %v", got, tc.protected)
			}
			wantAnswer(t, CheckRemove(tc.r, tc.hold, false, now), tc.remove, lockedMessage)
			wantAnswer(t, CheckRemove(tc.r, tc.hold, true, now), tc.bypassed, lockedMessage)
		})
	}
}

func TestParseHeaders(t *testing.T) {
	const future = "2026-12-31T00:00:00Z"
	until := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	invalid := code(s3err.InvalidArgument)
	for _, tc := range []struct {
		name              string
		mode, date, hold  string
		want              Retention
		wantHold          bool
		err               *s3err.Code
		message, argument string
	}{
		{name: "none"},
		{name: "governance", mode: "GOVERNANCE", date: future, want: Retention{Governance, until}},
		{name: "compliance with hold", mode: "COMPLIANCE", date: future, hold: "ON", want: Retention{Compliance, until}, wantHold: true},
		{name: "fractional seconds", mode: "GOVERNANCE", date: "2026-12-31T00:00:00.000Z", want: Retention{Governance, until}},
		{name: "offset", mode: "GOVERNANCE", date: "2026-12-31T01:00:00+01:00", want: Retention{Governance, until}},
		{name: "hold alone", hold: "ON", wantHold: true},
		{name: "hold off", hold: "OFF"},
		{name: "mode alone", mode: "GOVERNANCE", err: invalid,
			message: "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied", argument: HeaderRetainUntil},
		{name: "date alone", date: future, err: invalid,
			message: "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied", argument: HeaderMode},
		{name: "unknown mode", mode: "governance", date: future, err: invalid, message: "Unknown wormMode directive.", argument: HeaderMode},
		{name: "unknown mode before a bad date", mode: "X", date: "abc", err: invalid, message: "Unknown wormMode directive.", argument: HeaderMode},
		{name: "bad date", mode: "GOVERNANCE", date: "abc", err: invalid, message: "The retain until date must be provided in ISO 8601 format", argument: HeaderRetainUntil},
		{name: "date without zone", mode: "GOVERNANCE", date: "2026-12-31T00:00:00", err: invalid, message: "The retain until date must be provided in ISO 8601 format"},
		{name: "date only", mode: "GOVERNANCE", date: "2026-12-31", err: invalid, message: "The retain until date must be provided in ISO 8601 format"},
		{name: "past date", mode: "COMPLIANCE", date: "2020-01-01T00:00:00Z", err: invalid, message: "The retain until date must be in the future!", argument: HeaderRetainUntil},
		{name: "date now", mode: "COMPLIANCE", date: now.Format(time.RFC3339), err: invalid, message: "The retain until date must be in the future!"},
		{name: "bad hold", hold: "on", err: invalid, message: "Legal Hold must be either of 'ON' or 'OFF'", argument: HeaderLegalHold},
		{name: "bad hold with retention", mode: "GOVERNANCE", date: future, hold: "TRUE", err: invalid, message: "Legal Hold must be either of 'ON' or 'OFF'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, hold, err := ParseHeaders(tc.mode, tc.date, tc.hold, now)
			wantAnswer(t, err, tc.err, tc.message)
			if err != nil {
				if tc.argument != "" && (len(s3err.As(err).Extra) == 0 || s3err.As(err).Extra[0] != (s3err.Field{Name: "ArgumentName", Value: tc.argument})) {
					t.Fatalf("extra %v, want ArgumentName %s", s3err.As(err).Extra, tc.argument)
				}
				return
			}
			if r.Mode != tc.want.Mode || !r.Until.Equal(tc.want.Until) || hold != tc.wantHold {
				t.Fatalf("ParseHeaders = %+v, %v; want %+v, %v", r, hold, tc.want, tc.wantHold)
			}
		})
	}
}

// FuzzParseHeaders checks that ParseHeaders never panics, refuses only
// with InvalidArgument, and that what it accepts is a retention in the
// future with a known mode, or none when neither header is sent.
func FuzzParseHeaders(f *testing.F) {
	f.Add("GOVERNANCE", "2026-12-31T00:00:00Z", "ON")         // as SDKs send them
	f.Add("COMPLIANCE", "2026-12-31T00:00:00.123456789Z", "") // nanoseconds
	f.Add("COMPLIANCE", "2026-12-31T00:00:00-23:59", "OFF")   // largest negative offset
	f.Add("GOVERNANCE", "", "")                               // mode alone
	f.Add("", "2026-12-31T00:00:00Z", "")                     // date alone
	f.Add("GOVERNANCE", "2026-06-01T12:00:00Z", "")           // exactly now
	f.Add("GOVERNANCE", "9999-12-31T23:59:59Z", "")           // the last RFC 3339 second
	f.Add("governance", "2026-12-31T00:00:00Z", "on")         // lower case
	f.Add("GOVERNANCE", "2026-02-30T00:00:00Z", "")           // no such day
	f.Fuzz(func(t *testing.T, mode, date, hold string) {
		r, onHold, err := ParseHeaders(mode, date, hold, now)
		if err != nil {
			if c := s3err.As(err).Code; c != s3err.InvalidArgument {
				t.Fatalf("ParseHeaders(%q, %q, %q) refused with %s", mode, date, hold, c)
			}
			return
		}
		if onHold != (hold == LegalHoldOn) {
			t.Fatalf("legal hold %v from %q", onHold, hold)
		}
		if mode == "" && date == "" {
			if !r.IsZero() {
				t.Fatalf("retention %+v from no headers", r)
			}
			return
		}
		if r.Mode != Governance && r.Mode != Compliance || !r.Until.After(now) || r.Until.Location() != time.UTC {
			t.Fatalf("accepted retention %+v from %q, %q", r, mode, date)
		}
	})
}
