package lifecycle

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

func doc(rules string) []byte {
	return []byte(`<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + rules + `</LifecycleConfiguration>`)
}

func TestParseValid(t *testing.T) {
	c, err := Parse(doc(`
<Rule><ID>logs</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>
<Rule><ID>tmp</ID><Filter><And><Prefix>tmp/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>100</ObjectSizeLessThan></And></Filter><Status>Disabled</Status><NoncurrentVersionExpiration><NoncurrentDays>2</NoncurrentDays><NewerNoncurrentVersions>3</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>
<Rule><Prefix>up/</Prefix><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>
<Rule><ID>date</ID><Filter/><Status>Enabled</Status><Expiration><Date>2030-01-01T00:00:00Z</Date></Expiration></Rule>`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rules) != 4 {
		t.Fatalf("rules = %d", len(c.Rules))
	}
	r := c.Rules[1]
	if r.Enabled || r.Filter.Prefix != "tmp/" || len(r.Filter.Tags) != 1 || r.Filter.SizeGreater != 10 || r.Filter.SizeLess != 100 ||
		r.NoncurrentVersionExpiration != (NoncurrentVersionExpiration{2, 3}) {
		t.Errorf("rule 1 = %+v", r)
	}
	if c.Rules[2].ID == "" || c.Rules[2].Filter.Form != FormLegacyPrefix || !c.Rules[2].Expiration.ExpiredObjectDeleteMarker {
		t.Errorf("rule 2 = %+v", c.Rules[2])
	}
	if !c.Rules[3].Expiration.Date.Equal(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("rule 3 = %+v", c.Rules[3])
	}
	// The canonical form parses back to the same configuration and
	// renders to the same bytes.
	out := Render(c)
	c2, err := Parse(out)
	if err != nil {
		t.Fatalf("Parse(Render) = %v\n%s", err, out)
	}
	if out2 := Render(c2); !bytes.Equal(out, out2) {
		t.Errorf("Render not stable:\n%s\n%s", out, out2)
	}
}

func TestParseErrors(t *testing.T) {
	exp := `<Status>Enabled</Status><Expiration><Days>1</Days></Expiration>`
	many := make([]byte, 0)
	for i := 0; i <= MaxRules; i++ {
		many = append(many, `<Rule><Filter/>`+exp+`</Rule>`...)
	}
	long := string(bytes.Repeat([]byte("i"), 256))
	cases := []struct {
		name, body string
		code       s3err.Code
		msg        string
	}{
		{"not xml", `<Lifecycle`, s3err.MalformedXML, ""},
		{"wrong root", `<Other/>`, s3err.MalformedXML, ""},
		{"no rule", string(doc(``)), s3err.MalformedXML, ""},
		{"too many rules", string(doc(string(many))), s3err.MalformedXML, ""},
		{"duplicate id", string(doc(`<Rule><ID>a</ID><Filter/>` + exp + `</Rule><Rule><ID>a</ID><Filter/>` + exp + `</Rule>`)), s3err.InvalidArgument, "Rule ID must be unique. Found same ID for more than one rule"},
		{"long id", string(doc(`<Rule><ID>` + long + `</ID><Filter/>` + exp + `</Rule>`)), s3err.InvalidArgument, "ID length should not exceed allowed limit of 255"},
		{"no status", string(doc(`<Rule><Filter/><Expiration><Days>1</Days></Expiration></Rule>`)), s3err.MalformedXML, ""},
		{"bad status", string(doc(`<Rule><Filter/><Status>On</Status><Expiration><Days>1</Days></Expiration></Rule>`)), s3err.MalformedXML, ""},
		{"prefix and filter", string(doc(`<Rule><Prefix>a</Prefix><Filter/>` + exp + `</Rule>`)), s3err.MalformedXML, ""},
		{"neither prefix nor filter", string(doc(`<Rule>` + exp + `</Rule>`)), s3err.MalformedXML, ""},
		{"two filter conditions", string(doc(`<Rule><Filter><Prefix>a</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></Filter>` + exp + `</Rule>`)), s3err.MalformedXML, ""},
		{"and of one", string(doc(`<Rule><Filter><And><Prefix>a</Prefix></And></Filter>` + exp + `</Rule>`)), s3err.MalformedXML, ""},
		{"duplicate tag keys", string(doc(`<Rule><Filter><And><Tag><Key>k</Key><Value>1</Value></Tag><Tag><Key>k</Key><Value>2</Value></Tag></And></Filter>` + exp + `</Rule>`)), s3err.InvalidRequest, "Duplicate Tag Keys are not allowed."},
		{"sizes crossed", string(doc(`<Rule><Filter><And><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>10</ObjectSizeLessThan></And></Filter>` + exp + `</Rule>`)), s3err.InvalidArgument, "ObjectSizeGreaterThan must be less than ObjectSizeLessThan"},
		{"no action", string(doc(`<Rule><Filter/><Status>Enabled</Status></Rule>`)), s3err.InvalidRequest, "At least one action needs to be specified in a rule"},
		{"zero days", string(doc(`<Rule><Filter/><Status>Enabled</Status><Expiration><Days>0</Days></Expiration></Rule>`)), s3err.InvalidArgument, "'Days' for Expiration action must be a positive integer"},
		{"days not a number", string(doc(`<Rule><Filter/><Status>Enabled</Status><Expiration><Days>x</Days></Expiration></Rule>`)), s3err.MalformedXML, ""},
		{"days and date", string(doc(`<Rule><Filter/><Status>Enabled</Status><Expiration><Days>1</Days><Date>2030-01-01T00:00:00Z</Date></Expiration></Rule>`)), s3err.MalformedXML, ""},
		{"date not midnight", string(doc(`<Rule><Filter/><Status>Enabled</Status><Expiration><Date>2030-01-01T10:00:00Z</Date></Expiration></Rule>`)), s3err.InvalidArgument, "'Date' must be at midnight GMT"},
		{"bad date", string(doc(`<Rule><Filter/><Status>Enabled</Status><Expiration><Date>soon</Date></Expiration></Rule>`)), s3err.InvalidArgument, "Invalid date"},
		{"marker with days", string(doc(`<Rule><Filter/><Status>Enabled</Status><Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`)), s3err.MalformedXML, ""},
		{"marker with tags", string(doc(`<Rule><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`)), s3err.InvalidRequest, "ExpiredObjectDeleteMarker cannot be specified with Tags."},
		{"abort with tags", string(doc(`<Rule><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`)), s3err.InvalidRequest, "AbortIncompleteMultipartUpload cannot be specified with Tags."},
		{"abort zero", string(doc(`<Rule><Filter/><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>0</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`)), s3err.InvalidArgument, "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer"},
		{"noncurrent zero", string(doc(`<Rule><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>0</NoncurrentDays></NoncurrentVersionExpiration></Rule>`)), s3err.InvalidArgument, "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer"},
		{"newer too many", string(doc(`<Rule><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>101</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`)), s3err.InvalidArgument, "'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be a positive integer up to 100"},
		{"transition", string(doc(`<Rule><Filter/><Status>Enabled</Status><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition></Rule>`)), s3err.InvalidRequest, "Transition and NoncurrentVersionTransition actions are not supported: this server has one storage class"},
		{"noncurrent transition", string(doc(`<Rule><Filter/>` + exp + `<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><StorageClass>GLACIER</StorageClass></NoncurrentVersionTransition></Rule>`)), s3err.InvalidRequest, "Transition and NoncurrentVersionTransition actions are not supported: this server has one storage class"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.body))
			e := s3err.As(err)
			if err == nil || e.Code != c.code {
				t.Fatalf("Parse = %v, want %v", err, c.code)
			}
			if c.msg != "" && e.Message != c.msg {
				t.Errorf("message = %q, want %q", e.Message, c.msg)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		days int
		from time.Time
		d    time.Duration
		want time.Time
	}{
		// AWS's example: created 15 January 2014 10:30 UTC, 3 days,
		// expires 19 January 2014 00:00 UTC.
		{3, time.Date(2014, 1, 15, 10, 30, 0, 0, time.UTC), day, time.Date(2014, 1, 19, 0, 0, 0, 0, time.UTC)},
		{1, time.Date(2014, 1, 15, 0, 0, 0, 0, time.UTC), day, time.Date(2014, 1, 17, 0, 0, 0, 0, time.UTC)},
		{1, time.Date(2014, 1, 15, 23, 59, 59, 0, time.FixedZone("x", 3600)), day, time.Date(2014, 1, 17, 0, 0, 0, 0, time.UTC)},
		{36500, time.Date(2014, 1, 15, 10, 30, 0, 0, time.UTC), day, time.Date(2014, 1, 15, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 36501)},
		// A day of 2s: midnights are even seconds since the epoch.
		{1, time.Unix(101, 500), 2 * time.Second, time.Unix(104, 0).UTC()},
		{1, time.Unix(100, 0), 2 * time.Second, time.Unix(104, 0).UTC()},
		{2, time.Unix(-3, 0), 2 * time.Second, time.Unix(2, 0).UTC()},
		{1, time.Unix(0, 0), 0, time.Unix(2*86400, 0).UTC()},
	}
	for _, c := range cases {
		if got := Expiry(c.days, c.from, c.d); !got.Equal(c.want) {
			t.Errorf("Expiry(%d, %v, %v) = %v, want %v", c.days, c.from, c.d, got, c.want)
		}
	}
}

func TestExpiration(t *testing.T) {
	c, err := Parse(doc(`
<Rule><ID>all</ID><Filter/><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>
<Rule><ID>logs</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>
<Rule><ID>off</ID><Filter/><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>
<Rule><ID>big "tmp"</ID><Filter><And><Prefix>tmp/</Prefix><Tag><Key>t</Key><Value>1</Value></Tag><ObjectSizeGreaterThan>100</ObjectSizeGreaterThan></And></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>
<Rule><ID>old</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`))
	if err != nil {
		t.Fatal(err)
	}
	lm := time.Date(2026, 12, 20, 10, 0, 0, 0, time.UTC)
	tagged := func(k string) (string, bool) { return "1", k == "t" }
	cases := []struct {
		key  string
		size int64
		tags TagLookup
		want string // rule id, "" for none
		at   time.Time
	}{
		{"a", 1, nil, "all", time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC)},
		{"logs/x", 1, nil, "logs", time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)},
		{"tmp/x", 101, tagged, "big \"tmp\"", time.Date(2026, 12, 23, 0, 0, 0, 0, time.UTC)},
		{"tmp/x", 100, tagged, "all", time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC)},
		{"tmp/x", 101, nil, "all", time.Date(2027, 1, 20, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range cases {
		at, id, ok := c.Expiration(tc.key, tc.size, tc.tags, lm, 0)
		if !ok || id != tc.want || !at.Equal(tc.at) {
			t.Errorf("%s/%d: Expiration = %v %q %v, want %v %q", tc.key, tc.size, at, id, ok, tc.at, tc.want)
		}
	}
	at, id, _ := c.Expiration("tmp/x", 101, tagged, lm, 0)
	if h := ExpirationHeader(at, id); h != `expiry-date="Wed, 23 Dec 2026 00:00:00 GMT", rule-id="big \"tmp\""` {
		t.Errorf("header = %s", h)
	}
	var none *Configuration
	if _, _, ok := none.Expiration("a", 1, nil, lm, 0); ok {
		t.Error("a nil configuration expires objects")
	}
}

func TestDue(t *testing.T) {
	c, err := Parse(doc(`
<Rule><ID>nc</ID><Filter><Prefix>p/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`))
	if err != nil {
		t.Fatal(err)
	}
	r := &c.Rules[0]
	since := time.Unix(100, 0)
	due := time.Unix(104, 0)
	d := 2 * time.Second
	if r.NoncurrentDue("p/a", 1, nil, since, 1, due, d) {
		t.Error("removes one of the 2 newest noncurrent versions")
	}
	if r.NoncurrentDue("p/a", 1, nil, since, 2, due.Add(-time.Nanosecond), d) {
		t.Error("removes a noncurrent version before its day")
	}
	if !r.NoncurrentDue("p/a", 1, nil, since, 2, due, d) {
		t.Error("keeps a noncurrent version past its day and beyond the newest 2")
	}
	if r.NoncurrentDue("q/a", 1, nil, since, 5, due, d) {
		t.Error("a rule acts outside its prefix")
	}
	if applies, ok := r.AbortDue("p/a", since, due, d); !applies || !ok {
		t.Error("keeps an upload past DaysAfterInitiation")
	}
	if applies, ok := r.AbortDue("p/a", since, due.Add(-1), d); !applies || ok {
		t.Error("aborts an upload early")
	}
	if !r.MarkerDue("p/a", since, since, d) || r.MarkerDue("q/a", since, since, d) {
		t.Error("MarkerDue ignores the prefix")
	}
}

// TestMarkerDue checks when a rule removes a delete marker that is its
// key's only version: at once with ExpiredObjectDeleteMarker, and, with
// an Expiration by Days or Date, once the marker is as old as the rule
// asks of a current version.
func TestMarkerDue(t *testing.T) {
	c, err := Parse(doc(`
<Rule><ID>flag</ID><Filter><Prefix>f/</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>
<Rule><ID>days</ID><Filter><Prefix>d/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>
<Rule><ID>date</ID><Filter><Prefix>t/</Prefix></Filter><Status>Enabled</Status><Expiration><Date>2026-03-01T00:00:00Z</Date></Expiration></Rule>
<Rule><ID>off</ID><Filter><Prefix>o/</Prefix></Filter><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>
<Rule><ID>tagged</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>
<Rule><ID>nc</ID><Filter><Prefix>n/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`))
	if err != nil {
		t.Fatal(err)
	}
	// A marker written at noon on 1 February: Days 2 is due at the
	// midnight that follows its second day, 4 February.
	written := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		rule, key string
		now       time.Time
		aged, due bool
	}{
		{"flag", "f/a", written, false, true},
		{"flag", "x/a", written, false, false},
		{"days", "d/a", time.Date(2026, 2, 2, 23, 59, 59, 0, time.UTC), true, false},
		{"days", "d/a", time.Date(2026, 2, 3, 0, 0, 0, 0, time.UTC), true, false},
		{"days", "d/a", time.Date(2026, 2, 4, 0, 0, 0, 0, time.UTC), true, true},
		{"days", "x/a", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), true, false},
		{"date", "t/a", time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC), true, false},
		{"date", "t/a", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), true, true},
		{"off", "o/a", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), false, false},
		// A marker has no tags: a rule filtered by tag never matches one.
		{"tagged", "a", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), true, false},
		{"nc", "n/a", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), false, false},
	}
	for _, tc := range cases {
		var r *Rule
		for i := range c.Rules {
			if c.Rules[i].ID == tc.rule {
				r = &c.Rules[i]
			}
		}
		if got := r.MarkerAged(); got != tc.aged {
			t.Errorf("%s: MarkerAged = %v, want %v", tc.rule, got, tc.aged)
		}
		if got := r.MarkerDue(tc.key, written, tc.now, 0); got != tc.due {
			t.Errorf("%s %s at %v: MarkerDue = %v, want %v", tc.rule, tc.key, tc.now, got, tc.due)
		}
	}
}

// TestParseLimits checks that a document over MaxSize, with more tokens
// than any valid one or nested too deep is refused before it is
// unmarshalled, and that the largest valid document (1,000 rules with
// every element, ten tags and indentation) fits.
func TestParseLimits(t *testing.T) {
	if _, err := Parse(make([]byte, MaxSize+1)); s3err.As(err).Code != s3err.MaxMessageLengthExceeded {
		t.Errorf("a document over MaxSize: %v", err)
	}
	many := doc(string(bytes.Repeat([]byte("<x/>"), maxTokens)))
	if _, err := Parse(many); s3err.As(err).Code != s3err.MalformedXML {
		t.Errorf("%d empty elements: %v, want MalformedXML", maxTokens, err)
	}
	deep := doc(string(bytes.Repeat([]byte("<x>"), maxDepth+1)) + string(bytes.Repeat([]byte("</x>"), maxDepth+1)))
	if _, err := Parse(deep); s3err.As(err).Code != s3err.MalformedXML {
		t.Errorf("nesting %d deep: %v, want MalformedXML", maxDepth+1, err)
	}
	var rules bytes.Buffer
	for i := 0; i < MaxRules; i++ {
		fmt.Fprintf(&rules, "\n\t<Rule>\n\t\t<ID>rule-%04d</ID>\n\t\t<Filter>\n\t\t\t<And>\n\t\t\t\t<Prefix>logs/</Prefix>\n", i)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&rules, "\t\t\t\t<Tag>\n\t\t\t\t\t<Key>k%d</Key>\n\t\t\t\t\t<Value>v</Value>\n\t\t\t\t</Tag>\n", j)
		}
		rules.WriteString("\t\t\t\t<ObjectSizeGreaterThan>1</ObjectSizeGreaterThan>\n\t\t\t\t<ObjectSizeLessThan>9</ObjectSizeLessThan>\n\t\t\t</And>\n\t\t</Filter>\n" +
			"\t\t<Status>Enabled</Status>\n\t\t<Expiration>\n\t\t\t<Days>1</Days>\n\t\t</Expiration>\n" +
			"\t\t<NoncurrentVersionExpiration>\n\t\t\t<NoncurrentDays>1</NoncurrentDays>\n\t\t\t<NewerNoncurrentVersions>1</NewerNoncurrentVersions>\n\t\t</NoncurrentVersionExpiration>\n\t</Rule>")
	}
	if _, err := Parse(doc(rules.String())); err != nil {
		t.Errorf("the largest valid document (%d bytes): %v", rules.Len(), err)
	}
}

// tagSet is a TagSet over a map.
type tagSet map[string]string

func (s tagSet) HasTag(k, v string) bool { x, ok := s[k]; return ok && x == v }

// TestCurrentExpirySetAgreesWithCurrentExpiry: the walk's in-place form
// of a rule decides as the form the request path uses, for every filter
// shape and object.
func TestCurrentExpirySetAgreesWithCurrentExpiry(t *testing.T) {
	c, err := Parse(doc(`
<Rule><ID>all</ID><Filter/><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>
<Rule><ID>legacy</ID><Prefix>logs/</Prefix><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>
<Rule><ID>tag</ID><Filter><Tag><Key>kind</Key><Value>scratch</Value></Tag></Filter><Status>Enabled</Status><Expiration><Date>2027-01-01T00:00:00Z</Date></Expiration></Rule>
<Rule><ID>gt</ID><Filter><ObjectSizeGreaterThan>100</ObjectSizeGreaterThan></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>
<Rule><ID>lt</ID><Filter><ObjectSizeLessThan>100</ObjectSizeLessThan></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>
<Rule><ID>and</ID><Filter><And><Prefix>tmp/</Prefix><Tag><Key>t</Key><Value>1</Value></Tag><Tag><Key>u</Key><Value></Value></Tag><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>1000</ObjectSizeLessThan></And></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>
<Rule><ID>off</ID><Filter/><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>
<Rule><ID>nc</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`))
	if err != nil {
		t.Fatal(err)
	}
	lm := time.Date(2026, 12, 20, 10, 0, 0, 0, time.UTC)
	keys := []string{"", "a", "logs", "logs/", "logs/x", "tmp", "tmp/x", "tmp/\xff"}
	sizes := []int64{0, 10, 11, 99, 100, 101, 999, 1000}
	sets := []tagSet{nil, {}, {"kind": "scratch"}, {"kind": "keep"}, {"t": "1"}, {"t": "1", "u": ""}, {"t": "1", "u": "x"}, {"kind": "scratch", "t": "1", "u": ""}}
	n := 0
	for i := range c.Rules {
		r := &c.Rules[i]
		for _, k := range keys {
			for _, size := range sizes {
				for _, s := range sets {
					var lookup TagLookup
					var set TagSet
					if s != nil {
						lookup = func(k string) (string, bool) { v, ok := s[k]; return v, ok }
						set = s
					}
					at, ok := r.CurrentExpiry(k, size, lookup, lm, time.Hour)
					at2, ok2 := r.CurrentExpirySet([]byte(k), size, set, lm, time.Hour)
					if ok != ok2 || !at.Equal(at2) {
						t.Errorf("rule %s, %q size %d tags %v: CurrentExpiry %v %v, CurrentExpirySet %v %v", r.ID, k, size, s, at, ok, at2, ok2)
					}
					if ok {
						n++
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no rule matched anything")
	}
}
