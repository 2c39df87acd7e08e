package sigv4

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// appendS3Escape appends s encoded with S3's SigV4 rule: every byte except
// the unreserved characters A-Z a-z 0-9 - _ . ~ is percent-encoded with
// upper case hex; '/' is kept when keepSlash is set (paths) and encoded
// otherwise (query keys and values).
func appendS3Escape(b []byte, s string, keepSlash bool) []byte {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '/' && keepSlash:
			b = append(b, c)
		default:
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return b
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

// appendCanonicalURI decodes the raw path once and appends it re-encoded
// with S3's rule. S3 does not encode twice, unlike other AWS services, and
// does not clean the path, so dot segments and empty segments are signed
// as sent. A '+' in a path is a literal plus, never a space.
func appendCanonicalURI(b []byte, raw string) ([]byte, error) {
	if raw == "" {
		return append(b, '/'), nil
	}
	dec, err := url.PathUnescape(raw)
	if err != nil {
		return b, s3err.Wrap(s3err.InvalidURI, err)
	}
	return appendS3Escape(b, dec, true), nil
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
	if raw == "" {
		return nil, nil
	}
	out := make([]queryPair, 0, strings.Count(raw, "&")+1)
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		dk, err := queryUnescape(k)
		if err != nil {
			return nil, s3err.Wrap(s3err.InvalidURI, err)
		}
		dv, err := queryUnescape(v)
		if err != nil {
			return nil, s3err.Wrap(s3err.InvalidURI, err)
		}
		out = append(out, queryPair{dk, dv})
	}
	return out, nil
}

// queryUnescape is url.QueryUnescape, which returns s itself when s holds
// neither '%' nor '+'; two IndexByte calls find that faster than its
// byte-by-byte scan of a presigned URL's long values.
func queryUnescape(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, nil
	}
	return url.QueryUnescape(s)
}

// querySpan locates one encoded "key=value" pair that appendCanonicalQuery
// wrote: the key is b[start:eq], the value b[eq+1:end].
type querySpan struct{ start, eq, end int }

// appendCanonicalQuery appends every pair except those named skip, encoded,
// sorted by encoded key and then encoded value: SigV4 sorts after encoding,
// and the two orders differ (for example "a-b" and "a/b"). The pairs are
// encoded once after b's end, sorted as spans of that scratch area, and
// then moved into place, so nothing is allocated for the usual handful of
// parameters.
func appendCanonicalQuery(b []byte, pairs []queryPair, skip string) []byte {
	base := len(b)
	var arr [16]querySpan
	spans := arr[:0]
	for _, p := range pairs {
		if skip != "" && p.k == skip {
			continue
		}
		sp := querySpan{start: len(b)}
		b = appendS3Escape(b, p.k, false)
		sp.eq = len(b)
		b = append(b, '=')
		b = appendS3Escape(b, p.v, false)
		sp.end = len(b)
		spans = append(spans, sp)
	}
	if len(spans) == 0 {
		return b
	}
	slices.SortFunc(spans, func(x, y querySpan) int { return compareSpans(b, x, y) })
	mid := len(b)
	for i, sp := range spans {
		if i > 0 {
			b = append(b, '&')
		}
		b = append(b, b[sp.start:sp.end]...)
	}
	n := copy(b[base:], b[mid:])
	return b[:base+n]
}

// compareSpans orders two encoded pairs by key, then by value.
func compareSpans(b []byte, x, y querySpan) int {
	if c := bytes.Compare(b[x.start:x.eq], b[y.start:y.eq]); c != 0 {
		return c
	}
	return bytes.Compare(b[x.eq+1:x.end], b[y.eq+1:y.end])
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

// appendCanonicalTail appends what follows the canonical URI in a
// canonical request: the query, the headers, the signed header list and
// the payload line.
func appendCanonicalTail(b []byte, r *http.Request, pairs []queryPair, skip string, signed []string, signedHeaders, payload string) []byte {
	b = append(b, '\n')
	b = appendCanonicalQuery(b, pairs, skip)
	b = append(b, '\n')
	b = appendCanonicalHeaders(b, r, signed)
	b = append(b, '\n')
	b = append(b, signedHeaders...)
	b = append(b, '\n')
	return append(b, payload...)
}

// appendCanonicalHeaders appends "name:value\n" for each signed header in
// the order the client listed them. Values are trimmed, inner runs of
// spaces collapse to one, and repeated headers are joined with ','.
func appendCanonicalHeaders(b []byte, r *http.Request, signed []string) []byte {
	for _, name := range signed {
		b = append(b, name...)
		b = append(b, ':')
		if name == "host" {
			// headerValues' answer without its one-element slice: host is
			// the one header every request signs.
			host := r.Host
			if host == "" && r.URL != nil {
				host = r.URL.Host
			}
			b = appendCollapsed(b, host)
		} else {
			for i, v := range headerValues(r, name) {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendCollapsed(b, v)
			}
		}
		b = append(b, '\n')
	}
	return b
}

// appendCollapsed appends v without leading or trailing spaces and with
// each inner run of spaces collapsed to one, as the SDK signers do.
func appendCollapsed(b []byte, v string) []byte {
	v = strings.Trim(v, " \t")
	space := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == ' ' {
			space = true
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		b = append(b, c)
	}
	return b
}

// appendSplit appends the sep-separated fields of s to dst, like
// strings.Split (an empty s is one empty field), into a slice the caller
// can keep on its stack.
func appendSplit(dst []string, s string, sep byte) []string {
	for {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
}
