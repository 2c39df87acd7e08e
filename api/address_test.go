package api

import (
	"net/http"
	"net/url"
	"testing"
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
