package api

import (
	"bytes"
	"encoding/xml"
	"errors"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// xmlDoc reads a request document token by token for the parsers of
// request bodies, which keep only the values they need: unlike
// xml.Unmarshal into a struct, an element nobody asked for costs nothing
// beyond its tokens, and the parsers stop at the number of elements S3
// allows (parts, objects, grants, tags).
//
// The decoder itself allocates a little for every token it returns (the
// start and end elements, boxed in an interface), so xmlDoc also bounds the
// tokens of a document, to more than any valid document has, and its
// nesting. The parsers answer as xml.Unmarshal into the structs they
// replace did: elements are matched by local name in any namespace,
// character data and comments between elements are ignored, what precedes
// the root element is skipped and what follows its end is never read.
type xmlDoc struct {
	d *xml.Decoder
	// left is the number of tokens the document may still have.
	left int
	// depth is the number of elements open.
	depth int
}

// maxXMLDepth bounds the nesting of a request document. The deepest
// valid one, an AccessControlPolicy, nests four elements
// (AccessControlList, Grant, Grantee, ID) under its root.
const maxXMLDepth = 32

// errXMLTokens and errXMLDepth are the causes of the MalformedXML of a
// document with more tokens, or deeper nesting, than its parser allows.
var (
	errXMLTokens = errors.New("the document has more elements than any valid one")
	errXMLDepth  = errors.New("the document nests deeper than any valid one")
)

// newXMLDoc reads body, which may have at most maxTokens tokens.
func newXMLDoc(body []byte, maxTokens int) *xmlDoc {
	return &xmlDoc{d: xml.NewDecoder(bytes.NewReader(body)), left: maxTokens}
}

// malformed is the answer to a document that is not well-formed or that
// a value in it does not parse: MalformedXML, keeping the cause for logs.
func malformed(err error) error {
	return s3err.Wrap(s3err.MalformedXML, err)
}

// token returns the next token. Its character data is valid only until the
// next call, as with xml.Decoder.Token.
func (x *xmlDoc) token() (xml.Token, error) {
	if x.left == 0 {
		return nil, malformed(errXMLTokens)
	}
	x.left--
	t, err := x.d.Token()
	if err != nil {
		return nil, malformed(err)
	}
	switch t.(type) {
	case xml.StartElement:
		if x.depth++; x.depth > maxXMLDepth {
			return nil, malformed(errXMLDepth)
		}
	case xml.EndElement:
		x.depth--
	}
	return t, nil
}

// root reads up to the document's root element and checks its local
// name.
func (x *xmlDoc) root(name string) error {
	for {
		t, err := x.token()
		if err != nil {
			return err
		}
		if e, ok := t.(xml.StartElement); ok {
			if e.Name.Local != name {
				return malformed(xml.UnmarshalError("expected element type <" + name + "> but have <" + e.Name.Local + ">"))
			}
			return nil
		}
	}
}

// elements reads the element just opened to its end, calling child for
// each element directly inside it. child must read that element to its
// end (with text, skip or elements) or return an error, which elements
// returns.
func (x *xmlDoc) elements(child func(e xml.StartElement) error) error {
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
func (x *xmlDoc) skip() error {
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
// data directly inside it; the elements nested in it are skipped, as
// xml.Unmarshal fills a string field.
func (x *xmlDoc) text() (string, error) {
	var first string
	var more []byte // the text so far, once it came in more than one piece
	for {
		t, err := x.token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.CharData:
			switch {
			case more != nil:
				more = append(more, t...)
			case first == "":
				first = string(t)
			default:
				more = append([]byte(first), t...)
			}
		case xml.StartElement:
			if err := x.skip(); err != nil {
				return "", err
			}
		case xml.EndElement:
			if more != nil {
				return string(more), nil
			}
			return first, nil
		}
	}
}

// xmlInt parses the text of an integer element as xml.Unmarshal does: an
// empty element is 0, surrounding white space is allowed.
func xmlInt(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, strconv.IntSize)
	if err != nil {
		return 0, malformed(err)
	}
	return int(n), nil
}

// xmlBool parses the text of a boolean element as xml.Unmarshal does: an
// empty element is false, surrounding white space is allowed.
func xmlBool(s string) (bool, error) {
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return false, malformed(err)
	}
	return b, nil
}
