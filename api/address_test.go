package api

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/gorilla/mux"
)

// resolveRequest is a server-side request for host and the request-target
// as sent; ok is false when Go's server would not accept the target.
func resolveRequest(host, target string) (*http.Request, bool) {
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, false
	}
	return &http.Request{Method: "GET", URL: u, Host: host, RequestURI: target, Header: http.Header{}}, true
}

func TestResolve(t *testing.T) {
	tests := []struct {
		domain, host, target string
		want                 address
	}{
		{"", "h", "/", address{lv: levelService}},
		{"", "h", "/b", address{lv: levelBucket, bucket: "b"}},
		{"", "h", "/b/", address{lv: levelBucket, bucket: "b"}},
		{"", "h", "/b/k", address{lv: levelObject, bucket: "b", key: "k"}},
		{"", "h", "/b//", address{lv: levelObject, bucket: "b", key: "/"}},
		{"", "h", "/b/a/../c", address{lv: levelObject, bucket: "b", key: "a/../c"}},
		{"", "h", "/b/a%2Fb%20c?x=1", address{lv: levelObject, bucket: "b", key: "a%2Fb%20c"}},
		{"", "h", "//k", address{lv: levelService}},
		{"", "h", "*", address{lv: levelService}},
		{"", "b.example.com", "/k", address{lv: levelBucket, bucket: "k"}},
		{"example.com", "b.example.com", "/", address{lv: levelBucket, bucket: "b", virtualHost: true}},
		{"example.com", "b.example.com:9000", "/k/x", address{lv: levelObject, bucket: "b", key: "k/x", virtualHost: true}},
		{".example.com", "b.c.example.com", "/k", address{lv: levelObject, bucket: "b.c", key: "k", virtualHost: true}},
		{"example.com", "example.com", "/b/k", address{lv: levelObject, bucket: "b", key: "k"}},
		{"example.com", ".example.com", "/b", address{lv: levelBucket, bucket: "b"}},
		{"example.com", "B.EXAMPLE.COM", "/b", address{lv: levelBucket, bucket: "b"}},
		{"example.com:9000", "b.example.com", "/k", address{lv: levelBucket, bucket: "k"}},
		{"example.com:9000", "b.example.com:9000", "/k", address{lv: levelObject, bucket: "b", key: "k", virtualHost: true}},
		{"example.com", "b.example.com", "*", address{lv: levelService}},
		{"example.com", "other", "http://b.example.com/k", address{lv: levelObject, bucket: "b", key: "k", virtualHost: true}},
	}
	for _, tt := range tests {
		r, ok := resolveRequest(tt.host, tt.target)
		if !ok {
			t.Fatalf("bad target %q", tt.target)
		}
		s := &Server{router: newRouter(tt.domain)}
		if got := s.resolve(r); got != tt.want {
			t.Errorf("domain %q host %q target %q: resolve = %+v, want %+v", tt.domain, tt.host, tt.target, got, tt.want)
		}
	}
}

// TestPathAddressMatchesRouter checks the path-style shortcut of resolve
// against the gorilla/mux routes it stands for, on every path of up to
// six pieces from an alphabet of the characters that matter to them.
func TestPathAddressMatchesRouter(t *testing.T) {
	router := newRouter("")
	pieces := []string{"/", "a", "b.c", "%2F", "%20", "..", "é", "\x7f", " "}
	var paths []string
	var grow func(p string, n int)
	grow = func(p string, n int) {
		paths = append(paths, p)
		if n == 0 {
			return
		}
		for _, c := range pieces {
			grow(p+c, n-1)
		}
	}
	grow("", 6)
	shortcut := 0
	for _, p := range paths {
		r := &http.Request{Method: "GET", URL: &url.URL{Path: p}, Host: "h", Header: http.Header{}}
		a, ok := pathAddress(r.URL.EscapedPath())
		if !ok {
			continue
		}
		shortcut++
		var m mux.RouteMatch
		want := address{lv: levelService}
		if router.Match(r, &m) {
			lv := m.Handler.(levelHandler)
			want = address{lv: level(lv), bucket: m.Vars["bucket"], key: m.Vars["key"]}
		}
		if a != want {
			t.Errorf("pathAddress(%q) = %+v, the router says %+v", p, a, want)
		}
	}
	if shortcut < 1000 {
		t.Errorf("only %d of %d paths took the shortcut", shortcut, len(paths))
	}
}
