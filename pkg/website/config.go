package website

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// MaxSize bounds a WebsiteConfiguration document: 50 routing rules of
// generous size fit in a few kilobytes.
const MaxSize = 64 << 10

// MaxRoutingRules is S3's limit on the routing rules of one
// configuration.
const MaxRoutingRules = 50

// maxTokens bounds the XML tokens of a document. encoding/xml allocates
// for every token, so a document of many unknown empty elements is
// refused before it is unmarshalled. 50 rules with every element,
// indented, take about 1,700 tokens.
const maxTokens = 4096

// maxDepth bounds the nesting of a document; a valid one nests four
// elements (RoutingRules, RoutingRule, Redirect, HostName) under its
// root.
const maxDepth = 16

// errTokens and errDepth are the causes of the MalformedXML of a
// document with more tokens, or deeper nesting, than a valid one.
var (
	errTokens = errors.New("the website configuration has more XML tokens than a valid one needs")
	errDepth  = errors.New("the website configuration nests deeper than a valid one")
)

const s3NS = "http://s3.amazonaws.com/doc/2006-03-01/"

// Config is a bucket's website configuration.
type Config struct {
	XMLName               xml.Name         `xml:"WebsiteConfiguration"`
	NS                    string           `xml:"xmlns,attr,omitempty"`
	RedirectAllRequestsTo *RedirectAll     `xml:"RedirectAllRequestsTo,omitempty"`
	IndexDocument         *IndexDocument   `xml:"IndexDocument,omitempty"`
	ErrorDocument         *ErrorDocument   `xml:"ErrorDocument,omitempty"`
	RoutingRules          *routingRulesXML `xml:"RoutingRules,omitempty"`
}

// RedirectAll sends every request of the website endpoint to another
// host.
type RedirectAll struct {
	HostName string `xml:"HostName"`
	// Protocol is "http", "https" or "" for the protocol of the request.
	Protocol string `xml:"Protocol,omitempty"`
}

// IndexDocument is the object served for a request for a directory.
type IndexDocument struct {
	Suffix string `xml:"Suffix"`
}

// ErrorDocument is the object served, with the error's status, for a
// request that fails with a 4XX error.
type ErrorDocument struct {
	Key string `xml:"Key"`
}

type routingRulesXML struct {
	Rules []RoutingRule `xml:"RoutingRule"`
}

// RoutingRule redirects the requests its condition matches.
type RoutingRule struct {
	Condition *Condition `xml:"Condition,omitempty"`
	Redirect  *Redirect  `xml:"Redirect"`
}

// Condition selects the requests of a routing rule; an empty field
// matches everything.
type Condition struct {
	KeyPrefixEquals             string `xml:"KeyPrefixEquals,omitempty"`
	HttpErrorCodeReturnedEquals string `xml:"HttpErrorCodeReturnedEquals,omitempty"`
}

// Redirect is where a routing rule sends a request.
type Redirect struct {
	Protocol             string `xml:"Protocol,omitempty"`
	HostName             string `xml:"HostName,omitempty"`
	ReplaceKeyPrefixWith string `xml:"ReplaceKeyPrefixWith,omitempty"`
	ReplaceKeyWith       string `xml:"ReplaceKeyWith,omitempty"`
	HttpRedirectCode     string `xml:"HttpRedirectCode,omitempty"`
}

// Rules returns the configuration's routing rules in document order.
func (c *Config) Rules() []RoutingRule {
	if c.RoutingRules == nil {
		return nil
	}
	return c.RoutingRules.Rules
}

func invalid(msg string) error {
	return s3err.Newf(s3err.InvalidArgument, "%s", msg)
}

// Parse validates a WebsiteConfiguration document. Its errors are
// *s3err.Error: MaxMessageLengthExceeded for a document over MaxSize,
// MalformedXML for one that does not follow the schema (or has more
// tokens or nesting than a valid one), InvalidArgument, with S3's
// messages, for values S3 refuses.
func Parse(data []byte) (*Config, error) {
	if len(data) > MaxSize {
		return nil, s3err.New(s3err.MaxMessageLengthExceeded)
	}
	if err := checkTokens(data); err != nil {
		return nil, s3err.Wrap(s3err.MalformedXML, err)
	}
	var c Config
	if err := xml.Unmarshal(data, &c); err != nil {
		return nil, s3err.Wrap(s3err.MalformedXML, err)
	}
	if ns := c.XMLName.Space; ns != "" && ns != s3NS {
		return nil, s3err.New(s3err.MalformedXML)
	}
	c.NS = s3NS
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

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

func (c *Config) validate() error {
	if r := c.RedirectAllRequestsTo; r != nil {
		if c.IndexDocument != nil || c.ErrorDocument != nil || c.RoutingRules != nil {
			return invalid("RedirectAllRequestsTo cannot be provided in conjunction with other Routing Rules.")
		}
		if strings.TrimSpace(r.HostName) == "" {
			return invalid("A host name must be provided for RedirectAllRequestsTo.")
		}
		return checkProtocol(r.Protocol)
	}
	if c.IndexDocument == nil {
		return invalid("A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty")
	}
	if s := c.IndexDocument.Suffix; s == "" || strings.Contains(s, "/") {
		return invalid("The IndexDocument Suffix is not well formed")
	}
	if c.ErrorDocument != nil && c.ErrorDocument.Key == "" {
		return invalid("The ErrorDocument Key is not well formed")
	}
	rules := c.Rules()
	if c.RoutingRules != nil && len(rules) == 0 {
		return s3err.New(s3err.MalformedXML)
	}
	if len(rules) > MaxRoutingRules {
		return invalid("The number of routing rules must not exceed the allowed limit of 50 rules.")
	}
	for _, rule := range rules {
		if err := rule.validate(); err != nil {
			return err
		}
	}
	return nil
}

func checkProtocol(p string) error {
	switch p {
	case "", "http", "https":
		return nil
	}
	return invalid("Invalid protocol, protocol can be http or https. If not defined the protocol will be selected automatically.")
}

func (r RoutingRule) validate() error {
	if c := r.Condition; c != nil {
		if c.KeyPrefixEquals == "" && c.HttpErrorCodeReturnedEquals == "" {
			return invalid("Condition cannot be empty. To redirect all requests without a condition, the condition element shouldn't be present.")
		}
		if code := c.HttpErrorCodeReturnedEquals; code != "" {
			n, err := strconv.Atoi(code)
			if err != nil || n < 400 || n > 599 {
				return invalid("The provided HTTP error code (" + code + ") is not valid. Valid codes are 4XX or 5XX.")
			}
		}
	}
	d := r.Redirect
	if d == nil {
		return s3err.New(s3err.MalformedXML)
	}
	if *d == (Redirect{}) {
		return invalid("The Redirect element must contain at least one of HostName, Protocol, ReplaceKeyPrefixWith, ReplaceKeyWith or HttpRedirectCode.")
	}
	if d.ReplaceKeyPrefixWith != "" && d.ReplaceKeyWith != "" {
		return invalid("You can only define ReplaceKeyPrefix or ReplaceKey but not both.")
	}
	if code := d.HttpRedirectCode; code != "" {
		n, err := strconv.Atoi(code)
		if err != nil || n < 301 || n > 399 {
			return invalid("The provided HTTP redirect code (" + code + ") is not valid. Valid codes are 3XX except 300.")
		}
	}
	return checkProtocol(d.Protocol)
}

// Marshal returns the canonical document of a parsed configuration, as
// GetBucketWebsite answers it.
func (c *Config) Marshal() []byte {
	out, err := xml.Marshal(c)
	if err != nil {
		// Every field is a string, which always marshals.
		panic(err)
	}
	return out
}
