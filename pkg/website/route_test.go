package website

import (
	"net/http"
	"testing"
)

func mustParse(t *testing.T, doc string) *Config {
	t.Helper()
	c, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

// TestKey checks the index document of the root and of directories.
func TestKey(t *testing.T) {
	c := mustParse(t, `<WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix></IndexDocument></WebsiteConfiguration>`)
	for path, want := range map[string]string{
		"/":            "index.html",
		"/dir/":        "dir/index.html",
		"/a/b/":        "a/b/index.html",
		"/page.html":   "page.html",
		"/dir":         "dir",
		"/with space/": "with space/index.html",
	} {
		if got := c.Key(path); got != want {
			t.Errorf("Key(%q) = %q, want %q", path, got, want)
		}
	}
	if idx, ok := c.IndexOf("dir"); !ok || idx != "dir/index.html" {
		t.Errorf("IndexOf(dir) = %q, %v", idx, ok)
	}
	if _, ok := c.IndexOf("dir/index.html/"); ok {
		t.Error("IndexOf of a key with a trailing slash")
	}
	if got := DirectoryRedirect("a b/c"); got.Status != http.StatusFound || got.Location != "/a%20b/c/" {
		t.Errorf("DirectoryRedirect = %+v", got)
	}
}

// TestRedirects checks RedirectAllRequestsTo and the routing rules: the
// first matching rule wins, prefix rules apply before the lookup, error
// code rules after it, and the replacements, hosts, protocols and codes.
func TestRedirects(t *testing.T) {
	rq := Request{Host: "site.example:8080", Protocol: "http"}
	all := mustParse(t, `<WebsiteConfiguration><RedirectAllRequestsTo><HostName>www.example.com</HostName></RedirectAllRequestsTo></WebsiteConfiguration>`)
	if got, ok := all.RedirectAll(rq, "/a/b%20c"); !ok || got != (Target{301, "http://www.example.com/a/b%20c"}) {
		t.Errorf("RedirectAll = %+v, %v", got, ok)
	}
	c := mustParse(t, `<WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix></IndexDocument><RoutingRules>
		<RoutingRule><Condition><KeyPrefixEquals>docs/</KeyPrefixEquals></Condition><Redirect><ReplaceKeyPrefixWith>documents/</ReplaceKeyPrefixWith></Redirect></RoutingRule>
		<RoutingRule><Condition><KeyPrefixEquals>docs/old</KeyPrefixEquals></Condition><Redirect><ReplaceKeyWith>never.html</ReplaceKeyWith></Redirect></RoutingRule>
		<RoutingRule><Condition><KeyPrefixEquals>moved</KeyPrefixEquals></Condition><Redirect><ReplaceKeyWith>here.html</ReplaceKeyWith><HttpRedirectCode>302</HttpRedirectCode><Protocol>https</Protocol></Redirect></RoutingRule>
		<RoutingRule><Condition><HttpErrorCodeReturnedEquals>404</HttpErrorCodeReturnedEquals></Condition><Redirect><HostName>fallback.example</HostName><ReplaceKeyPrefixWith>report-404/</ReplaceKeyPrefixWith></Redirect></RoutingRule>
		<RoutingRule><Condition><KeyPrefixEquals>img/</KeyPrefixEquals><HttpErrorCodeReturnedEquals>403</HttpErrorCodeReturnedEquals></Condition><Redirect><ReplaceKeyWith>denied.png</ReplaceKeyWith></Redirect></RoutingRule>
		</RoutingRules></WebsiteConfiguration>`)
	if _, ok := c.RedirectAll(rq, "/"); ok {
		t.Error("RedirectAll without RedirectAllRequestsTo")
	}
	for _, tc := range []struct {
		key  string
		want Target
		ok   bool
	}{
		{"docs/old/a.html", Target{301, "http://site.example:8080/documents/old/a.html"}, true},
		{"moved/x", Target{302, "https://site.example:8080/here.html"}, true},
		{"other.html", Target{}, false},
		{"img/a.png", Target{}, false},
	} {
		if got, ok := c.BeforeLookup(rq, tc.key); ok != tc.ok || got != tc.want {
			t.Errorf("BeforeLookup(%q) = %+v, %v; want %+v, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		key    string
		status int
		want   Target
		ok     bool
	}{
		{"gone.html", 404, Target{301, "http://fallback.example/report-404/gone.html"}, true},
		{"img/a.png", 403, Target{301, "http://site.example:8080/denied.png"}, true},
		{"css/a.css", 403, Target{}, false},
		{"gone.html", 500, Target{}, false},
	} {
		if got, ok := c.AfterError(rq, tc.key, tc.status); ok != tc.ok || got != tc.want {
			t.Errorf("AfterError(%q, %d) = %+v, %v; want %+v, %v", tc.key, tc.status, got, ok, tc.want, tc.ok)
		}
	}
}
