package api

import (
	"encoding/xml"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// lockNow is the clock of the Object Lock document tests.
var lockNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// The references below are the Object Lock parsers with xml.Unmarshal in
// place of the token reader, for the fuzz targets.

func referenceObjectLock(body []byte) (bool, objectlock.Default, error) {
	var in struct {
		XMLName xml.Name `xml:"ObjectLockConfiguration"`
		objectLockDoc
	}
	if err := xml.Unmarshal(body, &in); err != nil {
		return false, objectlock.Default{}, s3err.Wrap(s3err.MalformedXML, err)
	}
	return in.objectLockDoc.config()
}

func referenceRetention(body []byte, now time.Time) (objectlock.Retention, error) {
	var in struct {
		XMLName xml.Name `xml:"Retention"`
		retentionDoc
	}
	if err := xml.Unmarshal(body, &in); err != nil {
		return objectlock.Retention{}, s3err.Wrap(s3err.MalformedXML, err)
	}
	return in.retentionDoc.retention(now)
}

func referenceLegalHold(body []byte) (bool, error) {
	var in struct {
		XMLName xml.Name `xml:"LegalHold"`
		legalHoldDoc
	}
	if err := xml.Unmarshal(body, &in); err != nil {
		return false, s3err.Wrap(s3err.MalformedXML, err)
	}
	return in.legalHoldDoc.on()
}

// wantArgument fails unless err is InvalidArgument with message and the
// ArgumentName name.
func wantArgument(t *testing.T, err error, message, name string) {
	t.Helper()
	e := s3err.As(err)
	if e == nil || e.Code != s3err.InvalidArgument || e.Text() != message {
		t.Fatalf("error %v, want InvalidArgument %q", err, message)
	}
	if len(e.Extra) == 0 || e.Extra[0] != (s3err.Field{Name: "ArgumentName", Value: name}) {
		t.Fatalf("extra %v, want ArgumentName %s", e.Extra, name)
	}
}

func TestParseObjectLockConfiguration(t *testing.T) {
	lock := func(inner string) string {
		return `<ObjectLockConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + inner + `</ObjectLockConfiguration>`
	}
	rule := func(inner string) string {
		return lock(`<ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention>` + inner + `</DefaultRetention></Rule>`)
	}
	const (
		positive = "Default retention period must be a positive integer value."
		tooLarge = "Default retention period too large."
	)
	for _, tc := range []struct {
		name, body string
		want       objectlock.Default
		err        s3err.Code // 0 with message "": accepted
		message    string     // InvalidArgument's message
		argument   string
	}{
		{name: "enabled alone removes the default", body: lock(`<ObjectLockEnabled>Enabled</ObjectLockEnabled>`)},
		{name: "governance days", body: rule(`<Mode>GOVERNANCE</Mode><Days>1</Days>`), want: objectlock.Default{Mode: objectlock.Governance, Days: 1}},
		{name: "compliance years", body: rule(`<Years>100</Years><Mode>COMPLIANCE</Mode>`), want: objectlock.Default{Mode: objectlock.Compliance, Years: 100}},
		{name: "most days", body: rule(`<Mode>COMPLIANCE</Mode><Days>36500</Days>`), want: objectlock.Default{Mode: objectlock.Compliance, Days: 36500}},
		{name: "days with white space", body: rule(`<Mode>GOVERNANCE</Mode><Days> 7 </Days>`), want: objectlock.Default{Mode: objectlock.Governance, Days: 7}},
		{name: "no namespace", body: `<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>`},
		{name: "missing ObjectLockEnabled", body: lock(`<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention></Rule>`), err: s3err.MalformedXML},
		{name: "empty", body: lock(``), err: s3err.MalformedXML},
		{name: "disabled", body: lock(`<ObjectLockEnabled>Disabled</ObjectLockEnabled>`), err: s3err.MalformedXML},
		{name: "empty rule", body: lock(`<ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule></Rule>`), err: s3err.MalformedXML},
		{name: "empty default retention", body: rule(``), err: s3err.MalformedXML},
		{name: "mode without period", body: rule(`<Mode>GOVERNANCE</Mode>`), err: s3err.MalformedXML},
		{name: "period without mode", body: rule(`<Days>1</Days>`), err: s3err.MalformedXML},
		{name: "days and years", body: rule(`<Mode>GOVERNANCE</Mode><Days>1</Days><Years>1</Years>`), err: s3err.MalformedXML},
		{name: "lower-case mode", body: rule(`<Mode>governance</Mode><Days>1</Days>`), err: s3err.MalformedXML},
		{name: "unknown mode", body: rule(`<Mode>BAD-VALUE</Mode><Days>1</Days>`), err: s3err.MalformedXML},
		{name: "days not a number", body: rule(`<Mode>GOVERNANCE</Mode><Days>one</Days>`), err: s3err.MalformedXML},
		{name: "days overflowing", body: rule(`<Mode>GOVERNANCE</Mode><Days>99999999999999999999</Days>`), err: s3err.MalformedXML},
		{name: "zero days", body: rule(`<Mode>GOVERNANCE</Mode><Days>0</Days>`), err: s3err.InvalidArgument, message: positive, argument: "Days"},
		{name: "empty days", body: rule(`<Mode>GOVERNANCE</Mode><Days></Days>`), err: s3err.InvalidArgument, message: positive, argument: "Days"},
		{name: "negative days", body: rule(`<Mode>GOVERNANCE</Mode><Days>-1</Days>`), err: s3err.InvalidArgument, message: positive, argument: "Days"},
		{name: "negative years", body: rule(`<Mode>COMPLIANCE</Mode><Years>-1</Years>`), err: s3err.InvalidArgument, message: positive, argument: "Years"},
		{name: "too many days", body: rule(`<Mode>GOVERNANCE</Mode><Days>36501</Days>`), err: s3err.InvalidArgument, message: tooLarge, argument: "Days"},
		{name: "far too many days", body: rule(`<Mode>GOVERNANCE</Mode><Days>999999999</Days>`), err: s3err.InvalidArgument, message: tooLarge, argument: "Days"},
		{name: "too many years", body: rule(`<Mode>GOVERNANCE</Mode><Years>101</Years>`), err: s3err.InvalidArgument, message: tooLarge, argument: "Years"},
		{name: "wrong root", body: `<LockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></LockConfiguration>`, err: s3err.MalformedXML},
		{name: "truncated", body: lock(`<ObjectLockEnabled>Enabled`), err: s3err.MalformedXML},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enabled, def, err := parseObjectLockConfiguration([]byte(tc.body))
			switch {
			case tc.message != "":
				wantArgument(t, err, tc.message, tc.argument)
			case tc.err != 0:
				wantCodes(t, err, tc.err)
			case err != nil || !enabled || def != tc.want:
				t.Fatalf("= %v, %+v, %v; want enabled, %+v", enabled, def, err, tc.want)
			}
		})
	}
}

func TestAppendObjectLockConfiguration(t *testing.T) {
	const open = `<ObjectLockConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><ObjectLockEnabled>Enabled</ObjectLockEnabled>`
	for _, tc := range []struct {
		def  objectlock.Default
		want string
	}{
		{objectlock.Default{}, open + `</ObjectLockConfiguration>`},
		{objectlock.Default{Mode: objectlock.Governance, Days: 30}, open + `<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>30</Days></DefaultRetention></Rule></ObjectLockConfiguration>`},
		{objectlock.Default{Mode: objectlock.Compliance, Years: 7}, open + `<Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Years>7</Years></DefaultRetention></Rule></ObjectLockConfiguration>`},
	} {
		got := string(appendObjectLockConfiguration(nil, true, tc.def))
		if got != tc.want {
			t.Errorf("%+v renders %s, want %s", tc.def, got, tc.want)
		}
		if enabled, back, err := parseObjectLockConfiguration([]byte(got)); err != nil || !enabled || back != tc.def {
			t.Errorf("%s parses back as %v, %+v, %v", got, enabled, back, err)
		}
	}
}

func TestParseRetentionBody(t *testing.T) {
	ret := func(inner string) string {
		return `<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + inner + `</Retention>`
	}
	until := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, body string
		want       objectlock.Retention
		err        s3err.Code
		past       bool // InvalidArgument, "must be in the future"
	}{
		{name: "governance", body: ret(`<Mode>GOVERNANCE</Mode><RetainUntilDate>2026-12-31T00:00:00Z</RetainUntilDate>`), want: objectlock.Retention{Mode: objectlock.Governance, Until: until}},
		{name: "compliance with milliseconds", body: ret(`<RetainUntilDate>2026-12-31T00:00:00.000Z</RetainUntilDate><Mode>COMPLIANCE</Mode>`), want: objectlock.Retention{Mode: objectlock.Compliance, Until: until}},
		{name: "offset", body: ret(`<Mode>COMPLIANCE</Mode><RetainUntilDate>2026-12-30T19:00:00-05:00</RetainUntilDate>`), want: objectlock.Retention{Mode: objectlock.Compliance, Until: until}},
		{name: "empty removes", body: ret(``)},
		{name: "self-closing removes", body: `<Retention/>`},
		{name: "mode alone", body: ret(`<Mode>GOVERNANCE</Mode>`), err: s3err.MalformedXML},
		{name: "date alone", body: ret(`<RetainUntilDate>2026-12-31T00:00:00Z</RetainUntilDate>`), err: s3err.MalformedXML},
		{name: "unknown mode", body: ret(`<Mode>LEGAL</Mode><RetainUntilDate>2026-12-31T00:00:00Z</RetainUntilDate>`), err: s3err.MalformedXML},
		{name: "bad date", body: ret(`<Mode>GOVERNANCE</Mode><RetainUntilDate>31/12/2026</RetainUntilDate>`), err: s3err.MalformedXML},
		{name: "date without zone", body: ret(`<Mode>GOVERNANCE</Mode><RetainUntilDate>2026-12-31T00:00:00</RetainUntilDate>`), err: s3err.MalformedXML},
		{name: "past date", body: ret(`<Mode>GOVERNANCE</Mode><RetainUntilDate>2020-01-01T00:00:00Z</RetainUntilDate>`), past: true},
		{name: "now", body: ret(`<Mode>GOVERNANCE</Mode><RetainUntilDate>2026-06-01T12:00:00Z</RetainUntilDate>`), past: true},
		{name: "wrong root", body: `<ObjectRetention><Mode>GOVERNANCE</Mode></ObjectRetention>`, err: s3err.MalformedXML},
		{name: "no body", body: ``, err: s3err.MalformedXML},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parseRetentionBody([]byte(tc.body), lockNow)
			switch {
			case tc.past:
				wantArgument(t, err, "The retain until date must be in the future!", "RetainUntilDate")
			case tc.err != 0:
				wantCodes(t, err, tc.err)
			case err != nil || r.Mode != tc.want.Mode || !r.Until.Equal(tc.want.Until):
				t.Fatalf("= %+v, %v; want %+v", r, err, tc.want)
			}
		})
	}
}

func TestAppendRetention(t *testing.T) {
	r := objectlock.Retention{Mode: objectlock.Compliance, Until: time.Date(2026, 12, 31, 1, 2, 3, 456789000, time.FixedZone("x", 3600))}
	const want = `<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Mode>COMPLIANCE</Mode><RetainUntilDate>2026-12-31T00:02:03.456Z</RetainUntilDate></Retention>`
	got := string(appendRetention(nil, r))
	if got != want {
		t.Fatalf("renders %s, want %s", got, want)
	}
	back, err := parseRetentionBody([]byte(got), lockNow)
	if err != nil || back.Mode != r.Mode || !back.Until.Equal(r.Until.Truncate(time.Millisecond)) {
		t.Fatalf("parses back as %+v, %v", back, err)
	}
	if got := string(appendRetention(nil, objectlock.Retention{})); got != `<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></Retention>` {
		t.Fatalf("no retention renders %s", got)
	}
}

func TestParseLegalHoldBody(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
		err  bool
	}{
		{`<LegalHold xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>ON</Status></LegalHold>`, true, false},
		{`<LegalHold><Status>OFF</Status></LegalHold>`, false, false},
		{`<LegalHold><Other/><Status>OFF</Status><Status>ON</Status></LegalHold>`, true, false},
		{`<LegalHold><Status>on</Status></LegalHold>`, false, true},
		{`<LegalHold><Status>TRUE</Status></LegalHold>`, false, true},
		{`<LegalHold><Status></Status></LegalHold>`, false, true},
		{`<LegalHold/>`, false, true},
		{`<Hold><Status>ON</Status></Hold>`, false, true},
		{`<LegalHold><Status>ON`, false, true},
	} {
		on, err := parseLegalHoldBody([]byte(tc.body))
		if tc.err {
			if s3err.As(err).Code != s3err.MalformedXML || err == nil {
				t.Errorf("%s: %v, %v; want MalformedXML", tc.body, on, err)
			}
			continue
		}
		if err != nil || on != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.body, on, err, tc.want)
		}
	}
	for _, on := range []bool{true, false} {
		doc := appendLegalHold(nil, on)
		want := `<LegalHold xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>OFF</Status></LegalHold>`
		if on {
			want = `<LegalHold xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>ON</Status></LegalHold>`
		}
		if string(doc) != want {
			t.Errorf("legal hold %v renders %s, want %s", on, doc, want)
		}
		if back, err := parseLegalHoldBody(doc); err != nil || back != on {
			t.Errorf("%s parses back as %v, %v", doc, back, err)
		}
	}
}
