package sigv4

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// This file keeps the strings.Builder canonicalisation the package used
// before it appended into one reused buffer, as the reference the
// equivalence tests (FuzzCanonicalRequest) compare the faster code with.

func refS3Escape(b *strings.Builder, s string, keepSlash bool) {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '/' && keepSlash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
}

func refCanonicalURI(raw string) (string, error) {
	if raw == "" {
		return "/", nil
	}
	dec, err := url.PathUnescape(raw)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	refS3Escape(&b, dec, true)
	return b.String(), nil
}

func refCanonicalQuery(pairs []queryPair, skip string) string {
	enc := make([]queryPair, 0, len(pairs))
	var b strings.Builder
	for _, p := range pairs {
		if skip != "" && p.k == skip {
			continue
		}
		b.Reset()
		refS3Escape(&b, p.k, false)
		k := b.String()
		b.Reset()
		refS3Escape(&b, p.v, false)
		enc = append(enc, queryPair{k, b.String()})
	}
	sort.Slice(enc, func(i, j int) bool {
		if enc[i].k != enc[j].k {
			return enc[i].k < enc[j].k
		}
		return enc[i].v < enc[j].v
	})
	b.Reset()
	for i, p := range enc {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k)
		b.WriteByte('=')
		b.WriteString(p.v)
	}
	return b.String()
}

func refWriteCollapsed(b *strings.Builder, v string) {
	v = strings.Trim(v, " \t")
	space := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == ' ' {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
}

func refWriteCanonicalHeaders(b *strings.Builder, r *http.Request, signed []string) {
	for _, name := range signed {
		b.WriteString(name)
		b.WriteByte(':')
		for i, v := range headerValues(r, name) {
			if i > 0 {
				b.WriteByte(',')
			}
			refWriteCollapsed(b, v)
		}
		b.WriteByte('\n')
	}
}

// refCanonicalRequest is the canonical request as verify built it.
func refCanonicalRequest(r *http.Request, pairs []queryPair, skip, signedHeaders, payload string) (string, error) {
	uri, err := refCanonicalURI(rawPath(r))
	if err != nil {
		return "", err
	}
	var cr strings.Builder
	cr.WriteString(r.Method)
	cr.WriteByte('\n')
	cr.WriteString(uri)
	cr.WriteByte('\n')
	cr.WriteString(refCanonicalQuery(pairs, skip))
	cr.WriteByte('\n')
	refWriteCanonicalHeaders(&cr, r, strings.Split(signedHeaders, ";"))
	cr.WriteByte('\n')
	cr.WriteString(signedHeaders)
	cr.WriteByte('\n')
	cr.WriteString(payload)
	return cr.String(), nil
}
