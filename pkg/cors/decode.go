package cors

import (
	"bytes"
	"encoding/xml"
	"errors"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// maxTokens bounds the XML tokens of a configuration. encoding/xml
// allocates for every token it returns, so a 64 KiB document of unknown
// empty elements (32,000 tokens) cost 7.5 MB through xml.Unmarshal. 100
// rules of an ID, two methods, two origins, three headers, three exposed
// headers and a MaxAgeSeconds, indented, take 4,100 tokens; twice that
// leaves room for larger rules (TestParseTokenLimit).
const maxTokens = 8192

// errTokens is the cause of the MalformedXML of a document with more
// than maxTokens tokens.
var errTokens = errors.New("the CORS configuration has more XML tokens than a valid one needs")

// decoder reads a configuration token by token, keeping only the values
// of the schema's elements, and answers as xml.Unmarshal into the structs
// it replaced did (decode_test.go compares the two): elements are matched
// by local name in any namespace, character data and comments between
// elements are ignored, an element's text is the character data directly
// inside it, what precedes the root element is skipped and what follows
// its end is never read.
//
// It reads with RawToken, which allocates half of what Token does, and
// does the one part of Token's work the answers depend on itself: an end
// element must close the element open, prefix and name (open holds them).
// Only the root's namespace is looked at, and it can only be declared on
// the root itself (rootSpace).
type decoder struct {
	d *xml.Decoder
	// left is the number of tokens the document may still have.
	left int
	// open is the stack of the raw names of the elements open.
	open []xml.Name
}

// decode reads data's CORSConfiguration. Its errors are MalformedXML.
func decode(data []byte) (rawConfig, error) {
	x := &decoder{d: xml.NewDecoder(bytes.NewReader(data)), left: maxTokens}
	var raw rawConfig
	if err := x.config(&raw); err != nil {
		return raw, s3err.Wrap(s3err.MalformedXML, err)
	}
	return raw, nil
}

// token returns the next token, checking that end elements match their
// start elements as xml.Decoder.Token does.
func (x *decoder) token() (xml.Token, error) {
	if x.left == 0 {
		return nil, errTokens
	}
	x.left--
	t, err := x.d.RawToken()
	if err != nil {
		return nil, err
	}
	switch e := t.(type) {
	case xml.StartElement:
		x.open = append(x.open, e.Name)
	case xml.EndElement:
		n := len(x.open)
		if n == 0 {
			return nil, errors.New("unexpected end element </" + e.Name.Local + ">")
		}
		if x.open[n-1] != e.Name {
			return nil, errors.New("element <" + x.open[n-1].Local + "> closed by </" + e.Name.Local + ">")
		}
		x.open = x.open[:n-1]
	}
	return t, nil
}

// rootSpace is the namespace xml.Decoder.Token gives the root element
// (its translate): the root is the first element, so only its own
// attributes declare prefixes.
func rootSpace(root xml.StartElement) string {
	prefix := root.Name.Space
	switch prefix {
	case "xmlns":
		return prefix
	case "xml":
		prefix = "http://www.w3.org/XML/1998/namespace"
	}
	space, found := "", false
	for _, a := range root.Attr {
		if a.Name.Space == "xmlns" && a.Name.Local == prefix || a.Name.Space == "" && a.Name.Local == "xmlns" && prefix == "" {
			space, found = a.Value, true
		}
	}
	if found || prefix == "" {
		return space
	}
	return prefix
}

func (x *decoder) config(raw *rawConfig) error {
	var root xml.StartElement
	for {
		t, err := x.token()
		if err != nil {
			return err
		}
		if e, ok := t.(xml.StartElement); ok {
			root = e
			break
		}
	}
	if root.Name.Local != "CORSConfiguration" {
		return xml.UnmarshalError("expected element type <CORSConfiguration> but have <" + root.Name.Local + ">")
	}
	raw.space = rootSpace(root)
	return x.elements(func(e xml.StartElement) error {
		if e.Name.Local != "CORSRule" {
			if raw.unknown == "" {
				raw.unknown = e.Name.Local
			}
			return x.skip()
		}
		var rr rawRule
		if err := x.rule(&rr); err != nil {
			return err
		}
		raw.rules = append(raw.rules, rr)
		return nil
	})
}

func (x *decoder) rule(rr *rawRule) error {
	return x.elements(func(e xml.StartElement) error {
		var field *[]string
		switch e.Name.Local {
		case "ID":
			field = &rr.ID
		case "AllowedHeader":
			field = &rr.AllowedHeaders
		case "AllowedMethod":
			field = &rr.AllowedMethods
		case "AllowedOrigin":
			field = &rr.AllowedOrigins
		case "ExposeHeader":
			field = &rr.ExposeHeaders
		case "MaxAgeSeconds":
			field = &rr.MaxAgeSeconds
		default:
			if rr.unknown == "" {
				rr.unknown = e.Name.Local
			}
			return x.skip()
		}
		v, err := x.text()
		if err != nil {
			return err
		}
		*field = append(*field, v)
		return nil
	})
}

// elements reads the element just opened to its end, calling child for
// each element directly inside it; child reads that element to its end.
func (x *decoder) elements(child func(e xml.StartElement) error) error {
	for {
		t, err := x.token()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			if err := child(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// skip reads the element just opened to its end.
func (x *decoder) skip() error {
	for open := 1; open > 0; {
		t, err := x.token()
		if err != nil {
			return err
		}
		switch t.(type) {
		case xml.StartElement:
			open++
		case xml.EndElement:
			open--
		}
	}
	return nil
}

// text reads the element just opened to its end and returns the character
// data directly inside it, skipping nested elements, as xml.Unmarshal
// fills a string.
func (x *decoder) text() (string, error) {
	var b []byte
	for {
		t, err := x.token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.CharData:
			b = append(b, t...)
		case xml.StartElement:
			if err := x.skip(); err != nil {
				return "", err
			}
		case xml.EndElement:
			return string(b), nil
		}
	}
}
