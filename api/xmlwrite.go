package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// The ListObjects renderers below write a ListBucketResult by hand: a
// 1,000-key page through encoding/xml.Marshal cost ~4.7 ms of CPU (80% of
// a LIST), by reflection and one allocation per field. Their output is
// byte for byte what xml.Marshal gives for listBucketResultV1/V2, except
// for the control characters appendXMLText writes as references, which
// list_xml_test.go and FuzzListXML check against the structs.

// xmlBufPool holds the buffers a listing is rendered into. A 1,000-key
// page is ~300 KB; buffers larger than maxPooledXML are dropped so one
// huge page does not pin its memory.
var xmlBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

const maxPooledXML = 4 << 20

// appendXMLText appends s escaped as encoding/xml escapes character data
// and attribute values (printer.EscapeString), the five markup characters,
// tab, newline and carriage return as character references, with one
// difference: the other C0 controls (U+0000 to U+001F) and the
// noncharacters U+FFFE and U+FFFF, which XML 1.0 has no Char for, are
// numeric character references too (&#x1;, &#xFFFE;) where encoding/xml
// writes U+FFFD. S3 answers them so, and a key is valid with any of them:
// replaced by U+FFFD it would come back as another key, and a client
// paging with it as its marker would skip or repeat keys. XML 1.0 parsers
// in strict mode refuse these references; Go's encoding/xml and the AWS
// SDKs read them back to the real character, and encoding-type=url is
// there for the others. Only bytes of invalid UTF-8, which no key holds,
// still become U+FFFD.
func appendXMLText(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch c {
			case '"':
				esc = "&#34;"
			case '\'':
				esc = "&#39;"
			case '&':
				esc = "&amp;"
			case '<':
				esc = "&lt;"
			case '>':
				esc = "&gt;"
			case '\t':
				esc = "&#x9;"
			case '\n':
				esc = "&#xA;"
			case '\r':
				esc = "&#xD;"
			default:
				if c >= 0x20 {
					i++
					continue
				}
				b = append(b, s[last:i]...)
				b = appendCharRef(b, rune(c))
				i++
				last = i
				continue
			}
			b = append(b, s[last:i]...)
			b = append(b, esc...)
			i++
			last = i
			continue
		}
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		if xmlCharRune(r) && (r != utf8.RuneError || width != 1) {
			continue
		}
		b = append(b, s[last:i-width]...)
		if r == 0xFFFE || r == 0xFFFF {
			b = appendCharRef(b, r)
		} else {
			b = append(b, "\uFFFD"...)
		}
		last = i
	}
	return append(b, s[last:]...)
}

// appendCharRef appends the hexadecimal character reference of r, as S3
// writes it: upper-case digits without leading zeros (&#x1F;).
func appendCharRef(b []byte, r rune) []byte {
	b = append(b, "&#x"...)
	b = strconv.AppendUint(b, uint64(r), 16)
	for i := len(b) - 1; b[i] != 'x'; i-- {
		if 'a' <= b[i] && b[i] <= 'f' {
			b[i] -= 'a' - 'A'
		}
	}
	return append(b, ';')
}

// xmlCharRune reports whether a non-ASCII rune is in XML's Char range
// (encoding/xml's isInCharacterRange).
func xmlCharRune(r rune) bool {
	return r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// appendElem appends <name>escaped text</name>.
func appendElem(b []byte, name, text string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = appendXMLText(b, text)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

// appendElemOmit is appendElem for an omitempty field.
func appendElemOmit(b []byte, name, text string) []byte {
	if text == "" {
		return b
	}
	return appendElem(b, name, text)
}

func appendIntElem(b []byte, name string, n int64) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = strconv.AppendInt(b, n, 10)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

func appendBoolElem(b []byte, name string, v bool) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = strconv.AppendBool(b, v)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

// appendEncoded appends a key or prefix as listEntry.Key would hold it:
// percent-encoded for encoding-type=url (whose output needs no XML
// escaping), else escaped.
func (p listParams) appendEncoded(b []byte, s string) []byte {
	if !p.encodeURL {
		return appendXMLText(b, s)
	}
	const hexd = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '/' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hexd[c>>4], hexd[c&15])
	}
	return b
}

// appendOwner appends an <Owner> element for accessKey, as ownerOf
// builds it.
func appendOwner(b []byte, accessKey string) []byte {
	sum := sha256.Sum256([]byte(accessKey))
	b = append(b, "<Owner><ID>"...)
	b = hex.AppendEncode(b, sum[:])
	b = append(b, "</ID>"...)
	b = appendElem(b, "DisplayName", accessKey)
	return append(b, "</Owner>"...)
}

// appendListBody appends the Contents and CommonPrefixes of a page, as
// xml.Marshal renders the []listEntry and []commonPrefix that entries
// would build from it. With withOwner each entry names its owner: the
// object's (Object.Owner), or accessKey, the bucket's owner, for those
// that name none.
func appendListBody(b []byte, p listParams, page *object.ListPage, withOwner bool, accessKey string) []byte {
	var ownerXML []byte
	if withOwner {
		ownerXML = appendOwner(nil, accessKey)
	}
	for i := range page.Objects {
		o := &page.Objects[i]
		b = append(b, "<Contents><Key>"...)
		b = p.appendEncoded(b, o.Key)
		b = append(b, "</Key><LastModified>"...)
		b = o.LastModified.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
		b = append(b, "</LastModified><ETag>&#34;"...)
		b = appendXMLText(b, o.ETag)
		b = append(b, "&#34;</ETag>"...)
		if len(o.Checksums) > 0 {
			b = appendElemOmit(b, "ChecksumAlgorithm", o.Checksums[0].Algorithm)
			b = appendElemOmit(b, "ChecksumType", o.Checksums[0].Type)
		}
		b = appendIntElem(b, "Size", o.Size)
		if withOwner && o.Owner != "" && o.Owner != accessKey {
			b = appendOwner(b, o.Owner)
		} else {
			b = append(b, ownerXML...)
		}
		b = append(b, "<StorageClass>STANDARD</StorageClass></Contents>"...)
	}
	for _, cp := range page.CommonPrefixes {
		b = append(b, "<CommonPrefixes><Prefix>"...)
		b = p.appendEncoded(b, cp)
		b = append(b, "</Prefix></CommonPrefixes>"...)
	}
	return b
}

// appendListV1 appends out (whose Contents and CommonPrefixes are
// ignored) with the contents of page, as xml.Marshal renders a
// listBucketResultV1.
func appendListV1(b []byte, out *listBucketResultV1, p listParams, page *object.ListPage, accessKey string) []byte {
	b = append(b, `<ListBucketResult xmlns="`...)
	b = appendXMLText(b, out.NS)
	b = append(b, `">`...)
	b = appendElem(b, "Name", out.Name)
	b = appendElem(b, "Prefix", out.Prefix)
	b = appendElem(b, "Marker", out.Marker)
	b = appendElemOmit(b, "NextMarker", out.NextMarker)
	b = appendIntElem(b, "MaxKeys", int64(out.MaxKeys))
	b = appendElemOmit(b, "Delimiter", out.Delimiter)
	b = appendBoolElem(b, "IsTruncated", out.IsTruncated)
	b = appendElemOmit(b, "EncodingType", out.EncodingType)
	b = appendListBody(b, p, page, true, accessKey)
	return append(b, "</ListBucketResult>"...)
}

// appendListV2 is appendListV1 for a listBucketResultV2.
func appendListV2(b []byte, out *listBucketResultV2, p listParams, page *object.ListPage, withOwner bool, accessKey string) []byte {
	b = append(b, `<ListBucketResult xmlns="`...)
	b = appendXMLText(b, out.NS)
	b = append(b, `">`...)
	b = appendElem(b, "Name", out.Name)
	b = appendElem(b, "Prefix", out.Prefix)
	b = appendElemOmit(b, "StartAfter", out.StartAfter)
	if out.ContinuationToken != nil {
		b = appendElem(b, "ContinuationToken", *out.ContinuationToken)
	}
	b = appendElemOmit(b, "NextContinuationToken", out.NextContinuationToken)
	b = appendIntElem(b, "KeyCount", int64(out.KeyCount))
	b = appendIntElem(b, "MaxKeys", int64(out.MaxKeys))
	b = appendElemOmit(b, "Delimiter", out.Delimiter)
	b = appendBoolElem(b, "IsTruncated", out.IsTruncated)
	b = appendElemOmit(b, "EncodingType", out.EncodingType)
	b = appendListBody(b, p, page, withOwner, accessKey)
	return append(b, "</ListBucketResult>"...)
}

// writeRenderedXML answers status with an XML document rendered by
// render after the XML declaration, as writeXML does for xml.Marshal.
func writeRenderedXML(w http.ResponseWriter, status int, render func([]byte) []byte) error {
	bp := xmlBufPool.Get().(*[]byte)
	b := render(append((*bp)[:0], xml.Header...))
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, err := w.Write(b)
	if cap(b) <= maxPooledXML {
		*bp = b[:0]
		xmlBufPool.Put(bp)
	}
	return err
}
