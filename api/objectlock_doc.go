package api

import (
	"encoding/xml"
	"time"

	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The documents of Object Lock: a bucket's ObjectLockConfiguration
// (PutObjectLockConfiguration, GetObjectLockConfiguration) and a version's
// Retention (PutObjectRetention, GetObjectRetention) and LegalHold
// (PutObjectLegalHold, GetObjectLegalHold). Each parser reads the document
// into a struct of its raw strings with the token reader, then checks it
// in one method; the fuzz targets compare the reader with xml.Unmarshal
// into the same struct. What the values mean is pkg/objectlock's.

// s3Time is the layout of S3's timestamps in XML documents.
const s3Time = "2006-01-02T15:04:05.000Z"

// objectLockDoc is an ObjectLockConfiguration as the request wrote it.
type objectLockDoc struct {
	ObjectLockEnabled string       `xml:"ObjectLockEnabled"`
	Rule              *lockRuleDoc `xml:"Rule"`
}

type lockRuleDoc struct {
	DefaultRetention *defaultRetentionDoc `xml:"DefaultRetention"`
}

// defaultRetentionDoc keeps Days and Years as pointers so that an element
// sent empty is told from one not sent: S3 wants exactly one of them.
type defaultRetentionDoc struct {
	Mode  string  `xml:"Mode"`
	Days  *string `xml:"Days"`
	Years *string `xml:"Years"`
}

// parseObjectLockConfiguration reads a PutObjectLockConfiguration body:
// whether it enables Object Lock (true for every document accepted, as
// S3 accepts no other ObjectLockEnabled than Enabled) and the bucket's
// default retention, the zero Default when the document has no Rule.
func parseObjectLockConfiguration(body []byte) (enabled bool, def objectlock.Default, err error) {
	var doc objectLockDoc
	x := newXMLDoc(body, maxConfigTokens)
	if err := x.root("ObjectLockConfiguration"); err != nil {
		return false, objectlock.Default{}, err
	}
	err = x.elements(func(e xml.StartElement) error {
		switch e.Name.Local {
		case "ObjectLockEnabled":
			var err error
			doc.ObjectLockEnabled, err = x.text()
			return err
		case "Rule":
			if doc.Rule == nil {
				doc.Rule = &lockRuleDoc{}
			}
			return parseLockRule(x, doc.Rule)
		}
		return x.skip()
	})
	if err != nil {
		return false, objectlock.Default{}, err
	}
	return doc.config()
}

// parseLockRule reads the Rule element just opened into r. A repeated
// element is read into the one already there, as xml.Unmarshal does.
func parseLockRule(x *xmlDoc, r *lockRuleDoc) error {
	return x.elements(func(e xml.StartElement) error {
		if e.Name.Local != "DefaultRetention" {
			return x.skip()
		}
		if r.DefaultRetention == nil {
			r.DefaultRetention = &defaultRetentionDoc{}
		}
		d := r.DefaultRetention
		return x.elements(func(e xml.StartElement) error {
			var err error
			switch e.Name.Local {
			case "Mode":
				d.Mode, err = x.text()
			case "Days":
				d.Days, err = textPtr(x, d.Days)
			case "Years":
				d.Years, err = textPtr(x, d.Years)
			default:
				err = x.skip()
			}
			return err
		})
	})
}

// textPtr reads the text of the element just opened into p, allocating
// it the first time, as xml.Unmarshal fills a *string field.
func textPtr(x *xmlDoc, p *string) (*string, error) {
	s, err := x.text()
	if p == nil {
		p = new(string)
	}
	*p = s
	return p, err
}

// config checks doc as S3 does. ObjectLockEnabled other than Enabled (or
// missing), a Rule without a DefaultRetention, a DefaultRetention without
// a valid mode, with both Days and Years or with neither, or a period
// that is not an integer is MalformedXML. A period that is not positive
// or over S3's limits (36500 days, 100 years) is InvalidArgument naming
// the element.
func (doc objectLockDoc) config() (bool, objectlock.Default, error) {
	if doc.ObjectLockEnabled != "Enabled" {
		return false, objectlock.Default{}, s3err.New(s3err.MalformedXML)
	}
	if doc.Rule == nil {
		return true, objectlock.Default{}, nil
	}
	d := doc.Rule.DefaultRetention
	if d == nil || (d.Days == nil) == (d.Years == nil) {
		return false, objectlock.Default{}, s3err.New(s3err.MalformedXML)
	}
	mode, err := objectlock.ParseMode(d.Mode)
	if err != nil {
		return false, objectlock.Default{}, malformed(err)
	}
	def := objectlock.Default{Mode: mode}
	name, text, max := "Days", d.Days, objectlock.MaxDays
	if d.Years != nil {
		name, text, max = "Years", d.Years, objectlock.MaxYears
	}
	n, err := xmlInt(*text)
	switch {
	case err != nil:
		return false, objectlock.Default{}, err
	case n <= 0:
		return false, objectlock.Default{}, s3err.Newf(s3err.InvalidArgument, "Default retention period must be a positive integer value.").
			With("ArgumentName", name).With("ArgumentValue", *text)
	case n > max:
		return false, objectlock.Default{}, s3err.Newf(s3err.InvalidArgument, "Default retention period too large.").
			With("ArgumentName", name).With("ArgumentValue", *text)
	}
	if name == "Days" {
		def.Days = n
	} else {
		def.Years = n
	}
	return true, def, nil
}

// appendObjectLockConfiguration appends the GetObjectLockConfiguration
// document of a bucket with Object Lock enabled and default retention
// def (none when zero).
func appendObjectLockConfiguration(b []byte, enabled bool, def objectlock.Default) []byte {
	b = append(b, `<ObjectLockConfiguration xmlns="`+s3NS+`">`...)
	if enabled {
		b = appendElem(b, "ObjectLockEnabled", "Enabled")
	}
	if !def.IsZero() {
		b = append(b, "<Rule><DefaultRetention>"...)
		b = appendElem(b, "Mode", string(def.Mode))
		if def.Days != 0 {
			b = appendIntElem(b, "Days", int64(def.Days))
		}
		if def.Years != 0 {
			b = appendIntElem(b, "Years", int64(def.Years))
		}
		b = append(b, "</DefaultRetention></Rule>"...)
	}
	return append(b, "</ObjectLockConfiguration>"...)
}

// retentionDoc is a Retention as the request wrote it.
type retentionDoc struct {
	Mode            string `xml:"Mode"`
	RetainUntilDate string `xml:"RetainUntilDate"`
}

// parseRetentionBody reads a PutObjectRetention body into the retention
// it sets at now. A Retention without Mode and RetainUntilDate is the
// zero Retention, which removes the version's retention (when
// objectlock.CheckChange allows it).
func parseRetentionBody(body []byte, now time.Time) (objectlock.Retention, error) {
	var doc retentionDoc
	x := newXMLDoc(body, maxConfigTokens)
	if err := x.root("Retention"); err != nil {
		return objectlock.Retention{}, err
	}
	err := x.elements(func(e xml.StartElement) error {
		var err error
		switch e.Name.Local {
		case "Mode":
			doc.Mode, err = x.text()
		case "RetainUntilDate":
			doc.RetainUntilDate, err = x.text()
		default:
			err = x.skip()
		}
		return err
	})
	if err != nil {
		return objectlock.Retention{}, err
	}
	return doc.retention(now)
}

// retention checks doc as S3 does: a mode without a date or a date
// without a mode, an unknown mode, or a date that is not an RFC 3339
// timestamp is MalformedXML; a date not after now is InvalidArgument
// naming RetainUntilDate.
func (doc retentionDoc) retention(now time.Time) (objectlock.Retention, error) {
	if doc.Mode == "" && doc.RetainUntilDate == "" {
		return objectlock.Retention{}, nil
	}
	if doc.Mode == "" || doc.RetainUntilDate == "" {
		return objectlock.Retention{}, s3err.New(s3err.MalformedXML)
	}
	mode, err := objectlock.ParseMode(doc.Mode)
	if err != nil {
		return objectlock.Retention{}, malformed(err)
	}
	until, err := time.Parse(time.RFC3339, doc.RetainUntilDate)
	if err != nil {
		return objectlock.Retention{}, malformed(err)
	}
	if !until.After(now) {
		return objectlock.Retention{}, objectlock.ErrUntilInPast("RetainUntilDate", doc.RetainUntilDate)
	}
	return objectlock.Retention{Mode: mode, Until: until.UTC()}, nil
}

// appendRetention appends the GetObjectRetention document of retention
// r, its date in S3's timestamp format with milliseconds in UTC.
func appendRetention(b []byte, r objectlock.Retention) []byte {
	b = append(b, `<Retention xmlns="`+s3NS+`">`...)
	b = appendElemOmit(b, "Mode", string(r.Mode))
	if !r.Until.IsZero() {
		b = append(b, "<RetainUntilDate>"...)
		b = r.Until.UTC().AppendFormat(b, s3Time)
		b = append(b, "</RetainUntilDate>"...)
	}
	return append(b, "</Retention>"...)
}

// legalHoldDoc is a LegalHold as the request wrote it.
type legalHoldDoc struct {
	Status string `xml:"Status"`
}

// parseLegalHoldBody reads a PutObjectLegalHold body: whether it puts
// the version under a legal hold (Status ON) or lifts it (OFF).
func parseLegalHoldBody(body []byte) (on bool, err error) {
	var doc legalHoldDoc
	x := newXMLDoc(body, maxConfigTokens)
	if err := x.root("LegalHold"); err != nil {
		return false, err
	}
	err = x.elements(func(e xml.StartElement) error {
		if e.Name.Local != "Status" {
			return x.skip()
		}
		var err error
		doc.Status, err = x.text()
		return err
	})
	if err != nil {
		return false, err
	}
	return doc.on()
}

// on checks doc as S3 does: a Status other than ON or OFF, a missing one
// included, is MalformedXML.
func (doc legalHoldDoc) on() (bool, error) {
	switch doc.Status {
	case objectlock.LegalHoldOn:
		return true, nil
	case objectlock.LegalHoldOff:
		return false, nil
	}
	return false, s3err.New(s3err.MalformedXML)
}

// appendLegalHold appends the GetObjectLegalHold document of a version
// whose legal hold is on or off.
func appendLegalHold(b []byte, on bool) []byte {
	status := objectlock.LegalHoldOff
	if on {
		status = objectlock.LegalHoldOn
	}
	b = append(b, `<LegalHold xmlns="`+s3NS+`"><Status>`...)
	b = append(b, status...)
	return append(b, "</Status></LegalHold>"...)
}
