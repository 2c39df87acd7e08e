package lifecycle

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// s3NS is the namespace of S3's documents.
const s3NS = "http://s3.amazonaws.com/doc/2006-03-01/"

// Render returns the canonical LifecycleConfiguration document of c: the
// form the bucket record keeps and GetBucketLifecycleConfiguration
// answers. Parse(Render(c)) gives c back.
func Render(c *Configuration) []byte {
	b := []byte(`<LifecycleConfiguration xmlns="` + s3NS + `">`)
	for i := range c.Rules {
		b = appendRule(b, &c.Rules[i])
	}
	return append(b, "</LifecycleConfiguration>"...)
}

func appendRule(b []byte, r *Rule) []byte {
	b = append(b, "<Rule>"...)
	if r.ID != "" {
		b = elem(b, "ID", r.ID)
	}
	b = appendFilter(b, &r.Filter)
	if r.Enabled {
		b = elem(b, "Status", "Enabled")
	} else {
		b = elem(b, "Status", "Disabled")
	}
	if e := r.Expiration; !e.IsZero() {
		b = append(b, "<Expiration>"...)
		switch {
		case e.Days > 0:
			b = elem(b, "Days", strconv.Itoa(e.Days))
		case !e.Date.IsZero():
			b = elem(b, "Date", e.Date.UTC().Format("2006-01-02T15:04:05.000Z"))
		default:
			b = elem(b, "ExpiredObjectDeleteMarker", "true")
		}
		b = append(b, "</Expiration>"...)
	}
	if n := r.NoncurrentVersionExpiration; !n.IsZero() {
		b = append(b, "<NoncurrentVersionExpiration>"...)
		b = elem(b, "NoncurrentDays", strconv.Itoa(n.NoncurrentDays))
		if n.NewerNoncurrentVersions > 0 {
			b = elem(b, "NewerNoncurrentVersions", strconv.Itoa(n.NewerNoncurrentVersions))
		}
		b = append(b, "</NoncurrentVersionExpiration>"...)
	}
	if a := r.AbortIncompleteMultipartUpload; !a.IsZero() {
		b = append(b, "<AbortIncompleteMultipartUpload>"...)
		b = elem(b, "DaysAfterInitiation", strconv.Itoa(a.DaysAfterInitiation))
		b = append(b, "</AbortIncompleteMultipartUpload>"...)
	}
	return append(b, "</Rule>"...)
}

func appendFilter(b []byte, f *Filter) []byte {
	switch f.Form {
	case FormLegacyPrefix:
		return elem(b, "Prefix", f.Prefix)
	case FormEmpty:
		return append(b, "<Filter></Filter>"...)
	}
	b = append(b, "<Filter>"...)
	and := f.Form == FormAnd
	if and {
		b = append(b, "<And>"...)
	}
	if and || f.Form == FormPrefix {
		b = elem(b, "Prefix", f.Prefix)
	}
	for _, t := range f.Tags {
		b = append(b, "<Tag>"...)
		b = elem(b, "Key", t.Key)
		b = elem(b, "Value", t.Value)
		b = append(b, "</Tag>"...)
	}
	if f.SizeGreater > 0 || f.Form == FormSizeGreater {
		b = elem(b, "ObjectSizeGreaterThan", strconv.FormatInt(f.SizeGreater, 10))
	}
	if f.SizeLess > 0 || f.Form == FormSizeLess {
		b = elem(b, "ObjectSizeLessThan", strconv.FormatInt(f.SizeLess, 10))
	}
	if and {
		b = append(b, "</And>"...)
	}
	return append(b, "</Filter>"...)
}

// elem appends <name>text</name>, text escaped.
func elem(b []byte, name, text string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	var sb strings.Builder
	_ = xml.EscapeText(&sb, []byte(text))
	b = append(b, sb.String()...)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}
