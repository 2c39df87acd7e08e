package website

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Request is what the routing of a website request depends on.
type Request struct {
	// Host is the Host the client asked for, with its port if any.
	Host string
	// Protocol is "http" or "https", the scheme the client used.
	Protocol string
}

// Target is a redirect a website endpoint answers with.
type Target struct {
	// Status is the 3XX status.
	Status int
	// Location is the absolute URL, or for a redirect within the site
	// the path, sent in the Location header.
	Location string
}

// Key returns the object key a website request path (unescaped, with its
// leading slash) names: the path itself, or for the root and for a path
// ending in "/" the index document under it.
func (c *Config) Key(path string) string {
	key := strings.TrimPrefix(path, "/")
	if c.IndexDocument != nil && (key == "" || strings.HasSuffix(key, "/")) {
		key += c.IndexDocument.Suffix
	}
	return key
}

// IndexOf returns the key of the index document of the "directory" key
// names when key has no trailing slash, so that a request for "dir" whose
// object is missing can be redirected to "dir/" when "dir/index.html"
// exists; ok is false when key cannot name a directory.
func (c *Config) IndexOf(key string) (index string, ok bool) {
	if c.IndexDocument == nil || key == "" || strings.HasSuffix(key, "/") {
		return "", false
	}
	return key + "/" + c.IndexDocument.Suffix, true
}

// RedirectAll returns the redirect of every request when the
// configuration has RedirectAllRequestsTo: 301 to the same path on the
// configured host. path is the request's escaped path.
func (c *Config) RedirectAll(rq Request, path string) (Target, bool) {
	r := c.RedirectAllRequestsTo
	if r == nil {
		return Target{}, false
	}
	proto := r.Protocol
	if proto == "" {
		proto = rq.Protocol
	}
	return Target{Status: http.StatusMovedPermanently, Location: proto + "://" + r.HostName + path}, true
}

// BeforeLookup returns the redirect of the first routing rule that
// applies to key before the object is looked up: a rule without an error
// code condition whose prefix, if any, key has.
func (c *Config) BeforeLookup(rq Request, key string) (Target, bool) {
	for _, rule := range c.Rules() {
		if rule.Condition != nil && rule.Condition.HttpErrorCodeReturnedEquals != "" {
			continue
		}
		if rule.matchesKey(key) {
			return rule.target(rq, key), true
		}
	}
	return Target{}, false
}

// AfterError returns the redirect of the first routing rule whose error
// code condition is status (and whose prefix, if any, key has), once the
// lookup of key failed with status.
func (c *Config) AfterError(rq Request, key string, status int) (Target, bool) {
	code := strconv.Itoa(status)
	for _, rule := range c.Rules() {
		if rule.Condition == nil || rule.Condition.HttpErrorCodeReturnedEquals != code {
			continue
		}
		if rule.matchesKey(key) {
			return rule.target(rq, key), true
		}
	}
	return Target{}, false
}

func (r RoutingRule) matchesKey(key string) bool {
	return r.Condition == nil || strings.HasPrefix(key, r.Condition.KeyPrefixEquals)
}

// target builds the redirect of a rule for key: the key replaced whole
// (ReplaceKeyWith) or its matched prefix replaced (ReplaceKeyPrefixWith),
// on the rule's host and protocol or the request's.
func (r RoutingRule) target(rq Request, key string) Target {
	d := r.Redirect
	switch {
	case d.ReplaceKeyWith != "":
		key = d.ReplaceKeyWith
	case d.ReplaceKeyPrefixWith != "":
		prefix := ""
		if r.Condition != nil {
			prefix = r.Condition.KeyPrefixEquals
		}
		key = d.ReplaceKeyPrefixWith + strings.TrimPrefix(key, prefix)
	}
	status := http.StatusMovedPermanently
	if n, err := strconv.Atoi(d.HttpRedirectCode); err == nil {
		status = n
	}
	host, proto := d.HostName, d.Protocol
	if host == "" {
		host = rq.Host
	}
	if proto == "" {
		proto = rq.Protocol
	}
	return Target{Status: status, Location: proto + "://" + host + "/" + escapePath(key)}
}

// escapePath escapes a key for a Location header, leaving its slashes.
func escapePath(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// DirectoryRedirect is the 302 that sends a request for key, a
// "directory" named without its trailing slash whose index document
// exists (IndexOf), to the directory.
func DirectoryRedirect(key string) Target {
	return Target{Status: http.StatusFound, Location: "/" + escapePath(key) + "/"}
}
