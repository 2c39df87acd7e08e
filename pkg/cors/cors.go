package cors

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// MaxRules is S3's limit on the rules of one configuration.
const MaxRules = 100

// MaxSize bounds a configuration document. 100 rules of generous size fit.
const MaxSize = 64 << 10

const s3NS = "http://s3.amazonaws.com/doc/2006-03-01/"

// Config is a bucket's CORS configuration.
type Config struct {
	XMLName xml.Name `xml:"CORSConfiguration"`
	NS      string   `xml:"xmlns,attr,omitempty"`
	Rules   []Rule   `xml:"CORSRule"`
}

// Rule is one CORSRule.
type Rule struct {
	ID             string   `xml:"ID,omitempty"`
	AllowedHeaders []string `xml:"AllowedHeader"`
	AllowedMethods []string `xml:"AllowedMethod"`
	AllowedOrigins []string `xml:"AllowedOrigin"`
	ExposeHeaders  []string `xml:"ExposeHeader"`
	// MaxAgeSeconds is the preflight cache time; nil when not set.
	MaxAgeSeconds *int `xml:"MaxAgeSeconds,omitempty"`
}

func malformedXML(msg string) error {
	if msg == "" {
		return s3err.New(s3err.MalformedXML)
	}
	return s3err.Newf(s3err.MalformedXML, "%s", msg)
}

func invalid(format string, args ...any) error {
	return s3err.Newf(s3err.InvalidRequest, format, args...)
}

// Parse validates a CORSConfiguration document. Its errors are
// *s3err.Error: MalformedXML for documents that do not follow the schema
// or have more than maxTokens XML tokens, InvalidRequest for values S3
// refuses.
func Parse(data []byte) (*Config, error) {
	if len(data) > MaxSize {
		return nil, s3err.New(s3err.MaxMessageLengthExceeded)
	}
	raw, err := decode(data)
	if err != nil {
		return nil, err
	}
	if ns := raw.space; ns != "" && ns != s3NS {
		return nil, malformedXML("")
	}
	if raw.unknown != "" {
		return nil, malformedXML("Unknown element " + raw.unknown + " in CORSConfiguration.")
	}
	if len(raw.rules) == 0 {
		return nil, malformedXML("")
	}
	if len(raw.rules) > MaxRules {
		return nil, malformedXML("The number of CORS rules should not exceed allowed limit of 100 rules.")
	}
	c := &Config{NS: s3NS, Rules: make([]Rule, 0, len(raw.rules))}
	for _, rr := range raw.rules {
		r, err := rr.rule()
		if err != nil {
			return nil, err
		}
		c.Rules = append(c.Rules, r)
	}
	return c, nil
}

// rawConfig is a CORSConfiguration as read, before validation.
type rawConfig struct {
	// space is the root element's namespace.
	space string
	rules []rawRule
	// unknown is the name of the first element directly in the root that
	// the schema does not define, so that a misspelt element is an error
	// rather than silently dropped.
	unknown string
}

// rawRule is one CORSRule as read: every value of each element, so that
// a repeated ID or MaxAgeSeconds can be refused.
type rawRule struct {
	ID             []string
	AllowedHeaders []string
	AllowedMethods []string
	AllowedOrigins []string
	ExposeHeaders  []string
	MaxAgeSeconds  []string
	// unknown is the first element the schema does not define.
	unknown string
}

func (rr rawRule) rule() (Rule, error) {
	var r Rule
	if rr.unknown != "" {
		return r, malformedXML("Unknown element " + rr.unknown + " in CORSRule.")
	}
	if len(rr.ID) > 1 || len(rr.MaxAgeSeconds) > 1 {
		return r, malformedXML("")
	}
	if len(rr.AllowedMethods) == 0 || len(rr.AllowedOrigins) == 0 {
		return r, malformedXML("")
	}
	if len(rr.ID) == 1 {
		r.ID = rr.ID[0]
		if len(r.ID) > 255 {
			return r, invalid("ID length should not exceed allowed limit of 255")
		}
	}
	for _, m := range rr.AllowedMethods {
		m = strings.TrimSpace(m)
		switch m {
		case "GET", "PUT", "POST", "DELETE", "HEAD":
		default:
			return r, invalid("Found unsupported HTTP method in CORS config. Unsupported method is %s", m)
		}
		r.AllowedMethods = append(r.AllowedMethods, m)
	}
	for _, o := range rr.AllowedOrigins {
		o = strings.TrimSpace(o)
		if strings.Count(o, "*") > 1 {
			return r, invalid("AllowedOrigin %q can not have more than one wildcard.", o)
		}
		r.AllowedOrigins = append(r.AllowedOrigins, o)
	}
	for _, h := range rr.AllowedHeaders {
		h = strings.TrimSpace(h)
		if strings.Count(h, "*") > 1 {
			return r, invalid("AllowedHeader %q can not have more than one wildcard.", h)
		}
		r.AllowedHeaders = append(r.AllowedHeaders, h)
	}
	for _, h := range rr.ExposeHeaders {
		h = strings.TrimSpace(h)
		if strings.Contains(h, "*") {
			return r, invalid("ExposeHeader %q contains wildcard. We currently do not support wildcard for ExposeHeader.", h)
		}
		r.ExposeHeaders = append(r.ExposeHeaders, h)
	}
	if len(rr.MaxAgeSeconds) == 1 {
		n, err := strconv.Atoi(strings.TrimSpace(rr.MaxAgeSeconds[0]))
		if err != nil || n < 0 {
			return r, malformedXML("")
		}
		r.MaxAgeSeconds = &n
	}
	return r, nil
}

// Marshal returns the canonical document of c.
func (c *Config) Marshal() []byte {
	out, err := xml.Marshal(Config{NS: s3NS, Rules: c.Rules})
	if err != nil {
		// Every field is a string, an int or a slice of strings: encoding
		// cannot fail.
		panic("cors: " + err.Error())
	}
	return out
}

// Match returns the first rule that allows a request from origin with
// method, sending the named request headers (a preflight's
// Access-Control-Request-Headers; nil for an actual request), or nil.
func (c *Config) Match(origin, method string, headers []string) *Rule {
	if c == nil {
		return nil
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		if r.allows(origin, method, headers) {
			return r
		}
	}
	return nil
}

func (r *Rule) allows(origin, method string, headers []string) bool {
	ok := false
	for _, o := range r.AllowedOrigins {
		if wildcard(o, origin) {
			ok = true
			break
		}
	}
	if !ok {
		return false
	}
	ok = false
	for _, m := range r.AllowedMethods {
		if m == method {
			ok = true
			break
		}
	}
	if !ok {
		return false
	}
	for _, h := range headers {
		ok = false
		for _, a := range r.AllowedHeaders {
			if wildcard(strings.ToLower(a), h) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// wildcard reports whether s matches pattern, where pattern may contain
// one '*' standing for any run of bytes.
func wildcard(pattern, s string) bool {
	pre, suf, ok := strings.Cut(pattern, "*")
	if !ok {
		return pattern == s
	}
	return len(s) >= len(pre)+len(suf) && strings.HasPrefix(s, pre) && strings.HasSuffix(s, suf)
}

// RequestHeaders splits a preflight's Access-Control-Request-Headers into
// lower-case names, dropping empty entries.
func RequestHeaders(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var out []string
	for _, h := range strings.Split(v, ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// Headers are the CORS response headers of a matched rule; empty fields
// are not sent.
type Headers struct {
	AllowOrigin      string
	AllowCredentials bool
	AllowMethods     string
	AllowHeaders     string
	ExposeHeaders    string
	MaxAge           string
}

// Response returns the headers S3 sends for a request from origin matched
// by r. requested are the preflight's requested headers (nil for an actual
// request); S3 echoes them as Access-Control-Allow-Headers.
func (r *Rule) Response(origin string, requested []string) Headers {
	h := Headers{
		AllowMethods:  strings.Join(r.AllowedMethods, ", "),
		AllowHeaders:  strings.Join(requested, ", "),
		ExposeHeaders: strings.Join(r.ExposeHeaders, ", "),
	}
	for _, o := range r.AllowedOrigins {
		if o == "*" {
			h.AllowOrigin = "*"
			break
		}
	}
	if h.AllowOrigin == "" {
		h.AllowOrigin = origin
		h.AllowCredentials = true
	}
	if r.MaxAgeSeconds != nil {
		h.MaxAge = strconv.Itoa(*r.MaxAgeSeconds)
	}
	return h
}
