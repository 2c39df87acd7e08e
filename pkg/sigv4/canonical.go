package sigv4

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// s3Escape appends s encoded with S3's SigV4 rule: every byte except the
// unreserved characters A-Z a-z 0-9 - _ . ~ is percent-encoded with upper
// case hex; '/' is kept when keepSlash is set (paths) and encoded otherwise
// (query keys and values).
func s3Escape(b *strings.Builder, s string, keepSlash bool) {
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

// rawPath returns the request path as the client sent it. On the server
// RequestURI is the exact request-target, so it is preferred over r.URL,
// whose EscapedPath may re-encode a path it considers non-canonical.
func rawPath(r *http.Request) string {
	p := r.RequestURI
	if p == "" || p[0] != '/' {
		// Client-side requests (tests, the signer) and absolute-form
		// targets: the URL's escaped path is what goes on the wire.
		p = r.URL.EscapedPath()
	}
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p
}

// canonicalURI decodes the raw path once and re-encodes it with S3's rule.
// S3 does not encode twice, unlike other AWS services, and does not clean
// the path, so dot segments and empty segments are signed as sent. A '+'
// in a path is a literal plus, never a space.
func canonicalURI(raw string) (string, error) {
	if raw == "" {
		return "/", nil
	}
	dec, err := url.PathUnescape(raw)
	if err != nil {
		return "", s3err.Wrap(s3err.InvalidURI, err)
	}
	var b strings.Builder
	b.Grow(len(dec) + 16)
	s3Escape(&b, dec, true)
	return b.String(), nil
}

// rawQuery returns the query string as sent.
func rawQuery(r *http.Request) string {
	if r.RequestURI != "" && r.RequestURI[0] == '/' {
		if i := strings.IndexByte(r.RequestURI, '?'); i >= 0 {
			return r.RequestURI[i+1:]
		}
		return ""
	}
	return r.URL.RawQuery
}

type queryPair struct{ k, v string }

// parseQuery splits a raw query into decoded pairs in order. Unlike
// url.ParseQuery it keeps every pair, including ones with empty keys or
// values, because the client signed all of them.
func parseQuery(raw string) ([]queryPair, error) {
	var out []queryPair
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		dk, err := url.QueryUnescape(k)
		if err != nil {
			return nil, s3err.Wrap(s3err.InvalidURI, err)
		}
		dv, err := url.QueryUnescape(v)
		if err != nil {
			return nil, s3err.Wrap(s3err.InvalidURI, err)
		}
		out = append(out, queryPair{dk, dv})
	}
	return out, nil
}

// canonicalQuery encodes every pair except those named skip, then sorts by
// encoded key and encoded value: SigV4 sorts after encoding, and the two
// orders differ (for example "a-b" and "a/b").
func canonicalQuery(pairs []queryPair, skip string) string {
	enc := make([]queryPair, 0, len(pairs))
	var b strings.Builder
	for _, p := range pairs {
		if skip != "" && p.k == skip {
			continue
		}
		b.Reset()
		s3Escape(&b, p.k, false)
		k := b.String()
		b.Reset()
		s3Escape(&b, p.v, false)
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

// headerValues returns the values of a signed header, reconstructing the
// ones Go's HTTP stack moves out of r.Header.
func headerValues(r *http.Request, name string) []string {
	switch name {
	case "host":
		host := r.Host
		if host == "" && r.URL != nil {
			host = r.URL.Host
		}
		return []string{host}
	case "content-length":
		if v := r.Header.Values("Content-Length"); len(v) > 0 {
			return v
		}
		if r.ContentLength >= 0 {
			return []string{strconv.FormatInt(r.ContentLength, 10)}
		}
		return nil
	case "transfer-encoding":
		if v := r.Header.Values("Transfer-Encoding"); len(v) > 0 {
			return v
		}
		return r.TransferEncoding
	}
	return r.Header.Values(name)
}

// writeCanonicalHeaders writes "name:value\n" for each signed header in the
// order the client listed them. Values are trimmed, inner runs of spaces
// collapse to one, and repeated headers are joined with ','.
func writeCanonicalHeaders(b *strings.Builder, r *http.Request, signed []string) {
	for _, name := range signed {
		b.WriteString(name)
		b.WriteByte(':')
		for i, v := range headerValues(r, name) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCollapsed(b, v)
		}
		b.WriteByte('\n')
	}
}

// writeCollapsed writes v without leading or trailing spaces and with each
// inner run of spaces collapsed to one, as the SDK signers do.
func writeCollapsed(b *strings.Builder, v string) {
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
