package lifecycle

import (
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The document of PutBucketLifecycleConfiguration, as the request wrote
// it: strings and pointers, so that an element sent empty is told from
// one not sent, then checked in one pass by config.

type configDoc struct {
	XMLName xml.Name  `xml:"LifecycleConfiguration"`
	Rules   []ruleDoc `xml:"Rule"`
}

type ruleDoc struct {
	ID                             *string        `xml:"ID"`
	Status                         string         `xml:"Status"`
	Prefix                         *string        `xml:"Prefix"`
	Filter                         *filterDoc     `xml:"Filter"`
	Expiration                     *expirationDoc `xml:"Expiration"`
	NoncurrentVersionExpiration    *noncurrentDoc `xml:"NoncurrentVersionExpiration"`
	AbortIncompleteMultipartUpload *abortDoc      `xml:"AbortIncompleteMultipartUpload"`
	Transitions                    []struct{}     `xml:"Transition"`
	NoncurrentVersionTransitions   []struct{}     `xml:"NoncurrentVersionTransition"`
}

type filterDoc struct {
	Prefix      *string `xml:"Prefix"`
	Tag         *tagDoc `xml:"Tag"`
	SizeGreater *string `xml:"ObjectSizeGreaterThan"`
	SizeLess    *string `xml:"ObjectSizeLessThan"`
	And         *andDoc `xml:"And"`
}

type andDoc struct {
	Prefix      *string  `xml:"Prefix"`
	Tags        []tagDoc `xml:"Tag"`
	SizeGreater *string  `xml:"ObjectSizeGreaterThan"`
	SizeLess    *string  `xml:"ObjectSizeLessThan"`
}

type tagDoc struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type expirationDoc struct {
	Days                      *string `xml:"Days"`
	Date                      *string `xml:"Date"`
	ExpiredObjectDeleteMarker *string `xml:"ExpiredObjectDeleteMarker"`
}

type noncurrentDoc struct {
	NoncurrentDays          *string `xml:"NoncurrentDays"`
	NewerNoncurrentVersions *string `xml:"NewerNoncurrentVersions"`
}

type abortDoc struct {
	DaysAfterInitiation *string `xml:"DaysAfterInitiation"`
}

// Parse reads and validates a LifecycleConfiguration document as S3
// does. Its errors are *s3err.Error: MalformedXML for a document that is
// not one or breaks the grammar (no rule, more than MaxRules, a filter
// with two conditions outside an And, Days with Date, an unknown
// Status), InvalidArgument with S3's messages for a value out of range
// or a duplicate ID, and InvalidRequest for a rule S3 refuses as a whole
// (no action, tags with an action that cannot have them) and for
// transitions, which the gateway's single storage class cannot honour.
// A document over MaxSize is MaxMessageLengthExceeded; one with more XML
// tokens or deeper nesting than any valid one is MalformedXML before it
// is unmarshalled.
func Parse(body []byte) (*Configuration, error) {
	if len(body) > MaxSize {
		return nil, s3err.New(s3err.MaxMessageLengthExceeded)
	}
	if err := checkTokens(body); err != nil {
		return nil, s3err.Wrap(s3err.MalformedXML, err)
	}
	var doc configDoc
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, s3err.Wrap(s3err.MalformedXML, err)
	}
	return doc.config()
}

// MaxSize bounds a LifecycleConfiguration document: 1,000 rules of the
// longest IDs, prefixes and a few tags each fit.
const MaxSize = 2 << 20

// maxTokens and maxDepth bound a document's XML tokens and nesting: a
// rule with every element, ten tags in its And and indentation has about
// 250 tokens, so 1,000 of them fit; no valid element nests deeper than 5.
const (
	maxTokens = 300 * MaxRules
	maxDepth  = 16
)

var (
	errTokens = errors.New("the document has more XML tokens than any valid lifecycle configuration")
	errDepth  = errors.New("the document nests deeper than any valid lifecycle configuration")
)

// checkTokens reads data's tokens once, cheaply (RawToken), and fails
// when there are more, or they nest deeper, than a valid document has.
func checkTokens(data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	depth := 0
	for n := 0; ; n++ {
		if n == maxTokens {
			return errTokens
		}
		t, err := d.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t.(type) {
		case xml.StartElement:
			if depth++; depth > maxDepth {
				return errDepth
			}
		case xml.EndElement:
			depth--
		}
	}
}

// errMalformed is the cause of a MalformedXML for a document that breaks
// the grammar without breaking XML.
var errMalformed = errors.New("the lifecycle configuration breaks S3's grammar")

func malformed() error { return s3err.Wrap(s3err.MalformedXML, errMalformed) }

func invalidArgument(msg, name, value string) error {
	return s3err.Newf(s3err.InvalidArgument, "%s", msg).With("ArgumentName", name).With("ArgumentValue", value)
}

func invalidRequest(msg string) error {
	return s3err.Newf(s3err.InvalidRequest, "%s", msg)
}

func (doc *configDoc) config() (*Configuration, error) {
	if len(doc.Rules) == 0 || len(doc.Rules) > MaxRules {
		return nil, malformed()
	}
	c := &Configuration{Rules: make([]Rule, 0, len(doc.Rules))}
	ids := make(map[string]bool, len(doc.Rules))
	for i := range doc.Rules {
		r, err := doc.Rules[i].rule(i)
		if err != nil {
			return nil, err
		}
		if ids[r.ID] {
			return nil, invalidArgument("Rule ID must be unique. Found same ID for more than one rule", "ID", r.ID)
		}
		ids[r.ID] = true
		c.Rules = append(c.Rules, r)
	}
	return c, nil
}

func (d *ruleDoc) rule(i int) (Rule, error) {
	var r Rule
	switch d.Status {
	case "Enabled":
		r.Enabled = true
	case "Disabled":
	default:
		return Rule{}, malformed()
	}
	if d.ID != nil {
		r.ID = strings.TrimSpace(*d.ID)
	}
	if len(r.ID) > MaxIDLength {
		return Rule{}, invalidArgument("ID length should not exceed allowed limit of 255", "ID", r.ID)
	}
	if len(d.Transitions) > 0 || len(d.NoncurrentVersionTransitions) > 0 {
		return Rule{}, invalidRequest("Transition and NoncurrentVersionTransition actions are not supported: this server has one storage class")
	}
	var err error
	if r.Filter, err = d.filter(); err != nil {
		return Rule{}, err
	}
	if d.Expiration != nil {
		if r.Expiration, err = d.Expiration.expiration(); err != nil {
			return Rule{}, err
		}
	}
	if d.NoncurrentVersionExpiration != nil {
		if r.NoncurrentVersionExpiration, err = d.NoncurrentVersionExpiration.noncurrent(); err != nil {
			return Rule{}, err
		}
	}
	if d.AbortIncompleteMultipartUpload != nil {
		n, err := days(d.AbortIncompleteMultipartUpload.DaysAfterInitiation,
			"'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer", "DaysAfterInitiation")
		if err != nil {
			return Rule{}, err
		}
		r.AbortIncompleteMultipartUpload.DaysAfterInitiation = n
	}
	if r.Expiration.IsZero() && r.NoncurrentVersionExpiration.IsZero() && r.AbortIncompleteMultipartUpload.IsZero() {
		return Rule{}, invalidRequest("At least one action needs to be specified in a rule")
	}
	if len(r.Filter.Tags) > 0 {
		if !r.AbortIncompleteMultipartUpload.IsZero() {
			return Rule{}, invalidRequest("AbortIncompleteMultipartUpload cannot be specified with Tags.")
		}
		if r.Expiration.ExpiredObjectDeleteMarker {
			return Rule{}, invalidRequest("ExpiredObjectDeleteMarker cannot be specified with Tags.")
		}
	}
	if r.ID == "" {
		r.ID = generatedID(i, &r)
	}
	return r, nil
}

// generatedID is the ID of a rule the document gave none, as S3 gives
// one: derived from the rule's place and content, so that parsing the
// same document twice gives the same IDs.
func generatedID(i int, r *Rule) string {
	h := sha256.New()
	h.Write(strconv.AppendInt(nil, int64(i), 10))
	h.Write(appendRule(nil, r))
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h.Sum(nil))[:32]
}

// filter checks the rule's selection: exactly one of the top-level
// Prefix and Filter, and in a Filter at most one condition outside And.
func (d *ruleDoc) filter() (Filter, error) {
	if (d.Prefix == nil) == (d.Filter == nil) {
		return Filter{}, malformed()
	}
	if d.Prefix != nil {
		return Filter{Prefix: *d.Prefix, Form: FormLegacyPrefix}, nil
	}
	fd := d.Filter
	var f Filter
	n := 0
	if fd.Prefix != nil {
		n++
		f.Prefix, f.Form = *fd.Prefix, FormPrefix
	}
	if fd.Tag != nil {
		n++
		f.Tags, f.Form = []Tag{{fd.Tag.Key, fd.Tag.Value}}, FormTag
	}
	var err error
	if fd.SizeGreater != nil {
		n++
		f.Form = FormSizeGreater
		if f.SizeGreater, err = size(*fd.SizeGreater, "ObjectSizeGreaterThan"); err != nil {
			return Filter{}, err
		}
	}
	if fd.SizeLess != nil {
		n++
		f.Form = FormSizeLess
		if f.SizeLess, err = size(*fd.SizeLess, "ObjectSizeLessThan"); err != nil {
			return Filter{}, err
		}
	}
	if fd.And != nil {
		n++
		if f, err = fd.And.filter(); err != nil {
			return Filter{}, err
		}
	}
	if n > 1 {
		return Filter{}, malformed()
	}
	if err := checkTags(f.Tags); err != nil {
		return Filter{}, err
	}
	if f.SizeLess > 0 && f.SizeGreater >= f.SizeLess {
		return Filter{}, invalidArgument("ObjectSizeGreaterThan must be less than ObjectSizeLessThan", "ObjectSizeGreaterThan", strconv.FormatInt(f.SizeGreater, 10))
	}
	return f, nil
}

func (a *andDoc) filter() (Filter, error) {
	f := Filter{Form: FormAnd}
	n := len(a.Tags)
	if a.Prefix != nil {
		f.Prefix = *a.Prefix
		n++
	}
	for _, t := range a.Tags {
		f.Tags = append(f.Tags, Tag{t.Key, t.Value})
	}
	var err error
	if a.SizeGreater != nil {
		n++
		if f.SizeGreater, err = size(*a.SizeGreater, "ObjectSizeGreaterThan"); err != nil {
			return Filter{}, err
		}
	}
	if a.SizeLess != nil {
		n++
		if f.SizeLess, err = size(*a.SizeLess, "ObjectSizeLessThan"); err != nil {
			return Filter{}, err
		}
	}
	// An And combines conditions; S3 refuses one of a single condition.
	if n < 2 {
		return Filter{}, malformed()
	}
	return f, nil
}

// checkTags applies S3's rules for tags to a filter's: keys of 1 to 128
// characters, values up to 256, no key twice.
func checkTags(tags []Tag) error {
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		if t.Key == "" || len(t.Key) > 128 {
			return invalidArgument("The TagKey you have provided is invalid", "Key", t.Key)
		}
		if len(t.Value) > 256 {
			return invalidArgument("The TagValue you have provided is invalid", "Value", t.Value)
		}
		if seen[t.Key] {
			return invalidRequest("Duplicate Tag Keys are not allowed.")
		}
		seen[t.Key] = true
	}
	return nil
}

// size parses an object size bound: a non-negative integer.
func size(s, name string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, malformed()
	}
	if n < 0 {
		return 0, invalidArgument("'"+name+"' must be a non-negative integer", name, s)
	}
	return n, nil
}

// days parses a count of days: not an integer is MalformedXML, not
// positive is InvalidArgument with msg.
func days(p *string, msg, name string) (int, error) {
	if p == nil {
		return 0, malformed()
	}
	n, err := strconv.ParseInt(strings.TrimSpace(*p), 10, 32)
	if err != nil {
		return 0, malformed()
	}
	if n <= 0 {
		return 0, invalidArgument(msg, name, *p)
	}
	return int(n), nil
}

// expiration checks an Expiration: exactly one of Days, Date and
// ExpiredObjectDeleteMarker; a Date at midnight UTC.
func (d *expirationDoc) expiration() (Expiration, error) {
	n := 0
	for _, p := range []*string{d.Days, d.Date, d.ExpiredObjectDeleteMarker} {
		if p != nil {
			n++
		}
	}
	if n != 1 {
		return Expiration{}, malformed()
	}
	var e Expiration
	switch {
	case d.Days != nil:
		v, err := days(d.Days, "'Days' for Expiration action must be a positive integer", "Days")
		if err != nil {
			return Expiration{}, err
		}
		e.Days = v
	case d.Date != nil:
		t, err := parseDate(strings.TrimSpace(*d.Date))
		if err != nil {
			return Expiration{}, invalidArgument("Invalid date", "Date", *d.Date)
		}
		if !t.Equal(t.Truncate(24 * time.Hour)) {
			return Expiration{}, invalidArgument("'Date' must be at midnight GMT", "Date", *d.Date)
		}
		e.Date = t
	default:
		switch strings.TrimSpace(*d.ExpiredObjectDeleteMarker) {
		case "true":
			e.ExpiredObjectDeleteMarker = true
		case "false":
			// An Expiration that only says false does nothing; S3
			// accepts it only beside another action, which the check
			// for an action in Rule enforces.
		default:
			return Expiration{}, malformed()
		}
	}
	return e, nil
}

// parseDate reads an Expiration Date: ISO 8601, a full timestamp or a
// date alone, in UTC.
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse("2006-01-02", s)
	return t.UTC(), err
}

func (d *noncurrentDoc) noncurrent() (NoncurrentVersionExpiration, error) {
	var n NoncurrentVersionExpiration
	v, err := days(d.NoncurrentDays, "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer", "NoncurrentDays")
	if err != nil {
		return n, err
	}
	n.NoncurrentDays = v
	if d.NewerNoncurrentVersions != nil {
		s := *d.NewerNoncurrentVersions
		k, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
		if err != nil {
			return n, malformed()
		}
		if k <= 0 || k > MaxNewerNoncurrentVersions {
			return n, invalidArgument("'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be a positive integer up to 100", "NewerNoncurrentVersions", s)
		}
		n.NewerNoncurrentVersions = int(k)
	}
	return n, nil
}
