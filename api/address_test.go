package api

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/mux"
)

// muxResolve is the gorilla/mux router resolve replaced, with the same
// templates and options, answering the level and the escaped variables.
func muxResolve(domain string, r *http.Request) address {
	var got address
	at := func(lv level) http.Handler {
		return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			v := mux.Vars(r)
			got = address{lv: lv, bucket: v["bucket"], key: v["key"]}
		})
	}
	m := mux.NewRouter().SkipClean(true).UseEncodedPath()
	if domain != "" {
		vh := m.Host("{bucket:.+}." + strings.TrimPrefix(domain, ".")).Subrouter()
		vh.Path("/").Handler(at(levelBucket))
		vh.Path("/{key:.+}").Handler(at(levelObject))
	}
	m.Path("/").Handler(at(levelService))
	m.Path("/{bucket}").Handler(at(levelBucket))
	m.Path("/{bucket}/").Handler(at(levelBucket))
	m.Path("/{bucket}/{key:.+}").Handler(at(levelObject))
	m.NotFoundHandler = at(levelService)
	m.ServeHTTP(httptest.NewRecorder(), r)
	return got
}

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
		{"example.com", "b.example.com", "/", address{lv: levelBucket, bucket: "b"}},
		{"example.com", "b.example.com:9000", "/k/x", address{lv: levelObject, bucket: "b", key: "k/x"}},
		{".example.com", "b.c.example.com", "/k", address{lv: levelObject, bucket: "b.c", key: "k"}},
		{"example.com", "example.com", "/b/k", address{lv: levelObject, bucket: "b", key: "k"}},
		{"example.com", ".example.com", "/b", address{lv: levelBucket, bucket: "b"}},
		{"example.com", "B.EXAMPLE.COM", "/b", address{lv: levelBucket, bucket: "b"}},
		{"example.com:9000", "b.example.com", "/k", address{lv: levelBucket, bucket: "k"}},
		{"example.com:9000", "b.example.com:9000", "/k", address{lv: levelObject, bucket: "b", key: "k"}},
		{"example.com", "b.example.com", "*", address{lv: levelService}},
		{"example.com", "other", "http://b.example.com/k", address{lv: levelObject, bucket: "b", key: "k"}},
	}
	for _, tt := range tests {
		r, ok := resolveRequest(tt.host, tt.target)
		if !ok {
			t.Fatalf("bad target %q", tt.target)
		}
		s := &Server{hostSuffix: hostSuffix(tt.domain)}
		if got := s.resolve(r); got != tt.want {
			t.Errorf("domain %q host %q target %q: resolve = %+v, want %+v", tt.domain, tt.host, tt.target, got, tt.want)
		}
		if got := muxResolve(tt.domain, r); got != tt.want {
			t.Errorf("domain %q host %q target %q: mux = %+v, want %+v", tt.domain, tt.host, tt.target, got, tt.want)
		}
	}
}

// FuzzResolve checks resolve against the gorilla/mux routes it replaced.
func FuzzResolve(f *testing.F) {
	// Seeds: each route, hostile paths (empty segments, dot segments,
	// escapes, a raw newline), hosts with ports and IPv6 literals, and an
	// absolute-form target.
	for _, s := range [][3]string{
		{"", "h", "/"}, {"", "h", "/b"}, {"", "h", "/b/"}, {"", "h", "/b/k/x"},
		{"", "h", "//"}, {"", "h", "/b//k"}, {"", "h", "/%2F/k"}, {"", "h", "/b/k%0Ax"},
		{"example.com", "b.example.com:80", "/"}, {"example.com", "b.example.com", "/k"},
		{"example.com", "[::1]:9000", "/b/k"}, {".s3.local:9000", "b.s3.local:9000", "/k"},
		{"example.com", "h", "http://x.example.com/k?q"}, {"example.com", "b.example.com", "*"},
		{".", "b.", "/k"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, domain, host, target string) {
		if strings.ContainsAny(domain, "{}\n") || !utf8Valid(domain) {
			return // not a domain mux could compile into a route
		}
		r, ok := resolveRequest(host, target)
		if !ok {
			return
		}
		s := &Server{hostSuffix: hostSuffix(domain)}
		if got, want := s.resolve(r), muxResolve(domain, r); got != want {
			t.Fatalf("domain %q host %q target %q: resolve = %+v, mux = %+v", domain, host, target, got, want)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
