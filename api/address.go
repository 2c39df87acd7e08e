package api

import (
	"net/http"
	"strings"
)

// address is what a request's Host and path address: a level and the
// bucket and key as the client encoded them (not yet unescaped).
type address struct {
	lv     level
	bucket string
	key    string
}

// resolve maps a request to the bucket and key it addresses, with
// virtual-hosted-style requests (bucket.Domain) when a Domain is set. The
// path is matched as the client encoded it (URL.EscapedPath) and never
// cleaned: "a//b" and "a/../b" are keys like any other.
//
// It answers what the gorilla/mux routes it replaced did, which a request
// paid for with regular expressions and two copies of the request per
// request; TestResolveMatchesMux and FuzzResolve keep the two in step:
//
//	Host {bucket:.+}.Domain, path /            bucket
//	Host {bucket:.+}.Domain, path /{key:.+}    object
//	/                                          service
//	/{bucket}, /{bucket}/                      bucket
//	/{bucket}/{key:.+}                         object
//	anything else                              service, no bucket
//
// where {bucket} is a non-empty segment without '/', and ".+" is one or
// more bytes other than '\n' (Go's regexp '.'). The host is
// URL.Host for an absolute-form request and Host otherwise, matched
// case-sensitively, without its port when Domain has none.
func (s *Server) resolve(r *http.Request) address {
	path := r.URL.EscapedPath()
	if s.hostSuffix != "" {
		host := r.Host
		if r.URL.IsAbs() {
			host = r.URL.Host
		}
		if !strings.Contains(s.hostSuffix, ":") {
			if i := strings.IndexByte(host, ':'); i >= 0 {
				host = host[:i]
			}
		}
		if bucket, ok := strings.CutSuffix(host, s.hostSuffix); ok && anyBytes(bucket) {
			if path == "/" {
				return address{lv: levelBucket, bucket: bucket}
			}
			if key, ok := strings.CutPrefix(path, "/"); ok && anyBytes(key) {
				return address{lv: levelObject, bucket: bucket, key: key}
			}
		}
	}
	rest, ok := strings.CutPrefix(path, "/")
	if !ok || rest == "" {
		return address{lv: levelService}
	}
	bucket, key, slash := strings.Cut(rest, "/")
	switch {
	case bucket == "":
		return address{lv: levelService}
	case !slash || key == "":
		return address{lv: levelBucket, bucket: bucket}
	case anyBytes(key):
		return address{lv: levelObject, bucket: bucket, key: key}
	}
	return address{lv: levelService}
}

// hostSuffix is what the Host of a virtual-hosted-style request ends
// with: "." and domain without its leading dot; "" for no domain.
func hostSuffix(domain string) string {
	if domain == "" {
		return ""
	}
	return "." + strings.TrimPrefix(domain, ".")
}

// anyBytes reports whether s matches the regular expression ".+": one or
// more bytes, none of them '\n'.
func anyBytes(s string) bool {
	return s != "" && strings.IndexByte(s, '\n') < 0
}
