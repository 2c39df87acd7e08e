package api

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// address is what a request's Host and path address: a level and the
// bucket and key as the client encoded them (not yet unescaped).
type address struct {
	lv     level
	bucket string
	key    string
	// virtualHost is set when the bucket came from the Host header
	// (bucket.domain) rather than from the path.
	virtualHost bool
}

// levelHandler marks a route with the level it addresses. The router is
// used only to match (see resolve); it never serves.
type levelHandler level

func (levelHandler) ServeHTTP(http.ResponseWriter, *http.Request) {}

// vhostHandler is levelHandler for the routes of virtual-hosted requests,
// which answers that address by URLs of the same form (objectURL).
type vhostHandler level

func (vhostHandler) ServeHTTP(http.ResponseWriter, *http.Request) {}

// newRouter maps paths (and, with a Domain, Host headers) to the addressed
// bucket and key with gorilla/mux. The path is matched as the client
// encoded it and never cleaned: "a//b" and "a/../b" are keys like any
// other.
func newRouter(domain string) *mux.Router {
	r := mux.NewRouter().SkipClean(true).UseEncodedPath()
	if domain != "" {
		vh := r.Host("{bucket:.+}." + strings.TrimPrefix(domain, ".")).Subrouter()
		vh.Path("/").Handler(vhostHandler(levelBucket))
		vh.Path("/{key:.+}").Handler(vhostHandler(levelObject))
	}
	r.Path("/").Handler(levelHandler(levelService))
	r.Path("/{bucket}").Handler(levelHandler(levelBucket))
	r.Path("/{bucket}/").Handler(levelHandler(levelBucket))
	r.Path("/{bucket}/{key:.+}").Handler(levelHandler(levelObject))
	return r
}

// resolve returns what a request addresses. It asks the router to match
// rather than to serve: serving would copy the request twice to carry the
// variables and the route in its context, for every request.
func (s *Server) resolve(r *http.Request) address {
	if s.pathStyleOnly {
		if a, ok := pathAddress(r.URL.EscapedPath()); ok {
			return a
		}
	}
	var m mux.RouteMatch
	if !s.router.Match(r, &m) {
		return address{lv: levelService}
	}
	switch lv := m.Handler.(type) {
	case levelHandler:
		return address{lv: level(lv), bucket: m.Vars["bucket"], key: m.Vars["key"]}
	case vhostHandler:
		return address{lv: level(lv), bucket: m.Vars["bucket"], key: m.Vars["key"], virtualHost: true}
	}
	return address{lv: levelService}
}

// pathAddress is what the path-style routes of newRouter match, without
// their regular expressions (a tenth of an edge hit's CPU went to them):
// "/" the service, "/b" and "/b/" a bucket, "/b/k…" an object. ok is false
// for what it leaves to the router: paths with bytes outside printable
// ASCII, and paths whose bucket segment is empty.
func pathAddress(p string) (a address, ok bool) {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f {
			return address{}, false
		}
	}
	rest, ok := strings.CutPrefix(p, "/")
	if !ok {
		return address{}, false
	}
	if rest == "" {
		return address{lv: levelService}, true
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return address{}, false
	}
	if key == "" {
		return address{lv: levelBucket, bucket: bucket}, true
	}
	return address{lv: levelObject, bucket: bucket, key: key}, true
}
