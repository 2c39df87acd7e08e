package api

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/website"
)

// WebsiteOptions configure the website endpoint (see Server.Website).
type WebsiteOptions struct {
	// Domain is the base domain of the website hosts: a request for
	// bucket.Domain serves the bucket's site. Empty means the Host of the
	// request, without its port, is the bucket name (a catch-all for
	// buckets named after their sites' domains, as S3 allows with a
	// CNAME).
	Domain string
}

// Website returns the handler of the website endpoint: the buckets'
// static sites, served to anonymous browsers by GET and HEAD from their
// website configurations (PutBucketWebsite), with index documents,
// error documents, redirects and HTML error pages, as S3's website
// endpoints differ from its REST endpoint. Only objects the bucket's
// policy or canned ACL lets everyone read are served; requests are never
// authenticated. The objects themselves are sent by the GetObject path,
// so that conditional and range requests, Cache-Control defaults and
// sendfile are those of the REST endpoint.
func (s *Server) Website(o WebsiteOptions) http.Handler {
	return &websiteHandler{s: s, opts: o}
}

// Operation names of the website endpoint's requests in logs and
// metrics.
const (
	opWebsiteGet  = "WebsiteGetObject"
	opWebsiteHead = "WebsiteHeadObject"
)

type websiteHandler struct {
	s    *Server
	opts WebsiteOptions

	// configs caches parsed configurations by their stored text.
	configs parsedCache[*website.Config]
}

// ServeHTTP implements http.Handler.
func (wh *websiteHandler) ServeHTTP(hw http.ResponseWriter, r *http.Request) {
	s := wh.s
	start := s.now()
	w := newResponseWriter(hw)
	rq := &request{id: s.nextID(), op: opWebsiteGet}
	if r.Method == http.MethodHead {
		rq.op = opWebsiteHead
	}
	h := w.Header()
	h["X-Amz-Request-Id"] = []string{rq.id}
	h["X-Amz-Id-2"] = []string{rq.id}
	h["Server"] = []string{"ObjectGateway"}
	s.opts.Metrics.begin()
	defer s.leave(rq)
	err := wh.serve(w, r, rq)
	if err != nil {
		wh.writeError(w, r, rq, err)
	}
	s.opts.Metrics.end(rq.op, w.status, r.ContentLength, w.written, s.now().Sub(start))
	s.logAccess(r, rq, w, err, start)
}

// serve answers one website request, returning the error its HTML page
// shows. Every request is anonymous and served from the anonymous
// budget.
func (wh *websiteHandler) serve(w *responseWriter, r *http.Request, rq *request) error {
	s := wh.s
	if err := s.admit(rq, &s.anonymous); err != nil {
		return err
	}
	bucket, ok := websiteBucket(r.Host, wh.opts.Domain)
	if !ok {
		return s3err.New(s3err.NoSuchBucket).With("BucketName", r.Host)
	}
	rq.bucket = bucket
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return s3err.New(s3err.MethodNotAllowed).With("Method", r.Method).With("ResourceType", "OBJECT")
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		return err
	}
	cfg := wh.configOf(b)
	if cfg == nil {
		return s3err.New(s3err.NoSuchWebsiteConfiguration).With("BucketName", bucket)
	}
	path, err := url.PathUnescape(r.URL.EscapedPath())
	if err != nil {
		return s3err.New(s3err.InvalidURI)
	}
	site := website.Request{Host: r.Host, Protocol: "http"}
	if r.TLS != nil {
		site.Protocol = "https"
	}
	if t, ok := cfg.RedirectAll(site, r.URL.EscapedPath()); ok {
		return redirect(w, t)
	}
	key := cfg.Key(path)
	rq.key = key
	if t, ok := cfg.BeforeLookup(site, key); ok {
		return redirect(w, t)
	}
	p := s.access.policyOf(b)
	err = wh.serveObject(w, r, rq, p, key)
	if err == nil {
		return nil
	}
	e := s3err.As(err)
	if e.Code == s3err.NotModified {
		return err
	}
	if e.Code == s3err.NoSuchKey || (e.Code == s3err.AccessDenied && wh.missing(bucket, key)) {
		// S3 sends a request for a "directory" without its slash to the
		// directory, whose index document then answers; a policy granting
		// dir/* does not grant the key dir, which is not there anyway.
		if index, ok := cfg.IndexOf(key); ok && p.Allows(policy.GetObject, index) && !wh.missing(bucket, index) {
			return redirect(w, website.DirectoryRedirect(key))
		}
	}
	if e.Code == s3err.NoSuchKey {
		if p.Allows(policy.ListBucket, "") {
			// S3's page names the key looked up (the index document's, for
			// a directory).
			err = s3err.Wrap(s3err.NoSuchKey, err).With("Key", key)
		} else {
			// Like S3: without s3:ListBucket for everyone, a missing key
			// is not told apart from a forbidden one.
			err = s3err.Wrap(s3err.AccessDenied, err)
		}
		e = s3err.As(err)
	}
	status := e.Code.Status()
	if t, ok := cfg.AfterError(site, key, status); ok {
		return redirect(w, t)
	}
	if cfg.ErrorDocument != nil && status >= 400 && status < 500 {
		if served := wh.serveErrorDocument(w, r, rq, p, cfg.ErrorDocument.Key, status); served {
			return err
		}
	}
	return err
}

// missing reports whether the bucket has no object key.
func (wh *websiteHandler) missing(bucket, key string) bool {
	_, err := wh.s.layer.StatObject(bucket, key)
	c, ok := s3err.CodeOf(err)
	return ok && c == s3err.NoSuchKey
}

// serveObject sends the object key through GetObject's path when
// everyone may read it, and AccessDenied otherwise. The query string is
// ignored, as S3's website endpoints ignore it: no versionId, partNumber
// or response-* overrides.
func (wh *websiteHandler) serveObject(w *responseWriter, r *http.Request, rq *request, p *policy.Policy, key string) error {
	if !p.Allows(policy.GetObject, key) {
		return s3err.New(s3err.AccessDenied)
	}
	o, err := wh.s.layer.StatObject(rq.bucket, key)
	if err == nil && wh.foreign(rq, o) {
		// The bucket policy is the bucket owner's: it does not publish an
		// object another user owns (see access.Decide).
		return s3err.New(s3err.AccessDenied)
	}
	// An object stored with x-amz-website-redirect-location is answered
	// on the website endpoint by a 301 to it, as S3 does.
	if err == nil && o.WebsiteRedirect != "" {
		return redirect(w, website.Target{Status: http.StatusMovedPermanently, Location: o.WebsiteRedirect})
	}
	rq.query = url.Values{}
	return wh.s.getObject(w, r, rq)
}

// foreign reports whether o is owned by another user than the owner of
// the request's bucket, which the bucket's policy does not publish.
func (wh *websiteHandler) foreign(rq *request, o object.Object) bool {
	b, err := wh.s.bucketRecord(rq)
	if err != nil || ownershipOf(b) == access.BucketOwnerEnforced {
		return false
	}
	return o.Owner != "" && o.Owner != b.Owner
}

// serveErrorDocument answers with the bucket's error document and the
// status of the error it stands for, and reports whether it did. It
// sends nothing when the document is missing or not readable by
// everyone, so that the HTML page of the original error is sent instead.
func (wh *websiteHandler) serveErrorDocument(w *responseWriter, r *http.Request, rq *request, p *policy.Policy, key string, status int) bool {
	if !p.Allows(policy.GetObject, key) {
		return false
	}
	rd, err := wh.s.layer.ReadObject(rq.bucket, key)
	if err != nil {
		return false
	}
	defer rd.Close()
	if wh.foreign(rq, rd.Object) {
		return false
	}
	h := w.Header()
	// The answer is the error document, not a part of the object asked
	// for: a 416's Content-Range does not describe it.
	h.Del("Content-Range")
	ct := rd.Object.ContentType
	if ct == "" {
		ct = "text/html"
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Length", itoa(rd.Object.Size))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return true
	}
	if rd.Body != nil {
		_, _ = w.Write(rd.Body)
	} else if rd.File != nil {
		_, _ = io.CopyN(w, rd.File, rd.Object.Size)
	}
	return true
}

// writeError sends err as S3's website endpoints do: an HTML page with
// the status as its title and the code, message and request id as a
// list. It sends nothing once the response has started (an error
// document, or a body cut short).
func (wh *websiteHandler) writeError(w *responseWriter, r *http.Request, rq *request, err error) {
	if w.started {
		return
	}
	e := s3err.As(err)
	status := e.Code.Status()
	if e.Code == s3err.NotModified {
		w.WriteHeader(status)
		return
	}
	extra := make([]website.Field, 0, len(e.Extra))
	for _, f := range e.Extra {
		extra = append(extra, website.Field{Name: f.Name, Value: f.Value})
	}
	page := website.ErrorPage(status, e.Code.String(), e.Text(), extra, rq.id)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", itoa(int64(len(page))))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(page)
	}
}

// redirect answers a redirect with an empty body.
func redirect(w http.ResponseWriter, t website.Target) error {
	h := w.Header()
	loc := t.Location
	if strings.HasPrefix(loc, "//") {
		// A path of a key that begins with "/" would read as a link to
		// another host ("//evil.example/"): its first slash is escaped.
		loc = "/%2F" + loc[2:]
	}
	h.Set("Location", loc)
	h.Set("Content-Length", "0")
	w.WriteHeader(t.Status)
	return nil
}

// websiteBucket returns the bucket a website request's Host names:
// the label before domain, or with no domain the host itself, without
// its port and in lower case, as host names are case-insensitive.
func websiteBucket(host, domain string) (string, bool) {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if domain == "" {
		return host, host != ""
	}
	bucket, ok := strings.CutSuffix(host, "."+strings.ToLower(domain))
	return bucket, ok && bucket != ""
}

// configOf returns a bucket's parsed website configuration, or nil when
// it has none. A stored text that no longer parses (written by another
// version) is no configuration.
func (wh *websiteHandler) configOf(b object.Bucket) *website.Config {
	if b.Website == "" {
		return nil
	}
	return wh.configs.get(b.Website, func() *website.Config {
		cfg, _ := website.Parse([]byte(b.Website))
		return cfg
	})
}
