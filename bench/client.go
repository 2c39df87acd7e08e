package bench

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// Mode is how an endpoint is spoken to.
type Mode string

const (
	// ModeS3 is an S3 endpoint: SigV4-signed requests, buckets, XML
	// listings.
	ModeS3 Mode = "s3"
	// ModeStatic is the static-file server of ServeStatic (or any server
	// answering GET/HEAD/PUT/DELETE of paths without auth): no signing, and
	// only the scenarios that make sense without S3 listings.
	ModeStatic Mode = "static"
	// ModeHTTP is a plain HTTP server or cache in front of the edge
	// scenario's origin (Varnish, nginx, ObjectGateway's edge mode, or the
	// origin itself): anonymous GETs of /bucket/key and nothing else. Only
	// the edge scenario measures it.
	ModeHTTP Mode = "http"
)

// Endpoint is one server under test.
type Endpoint struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Mode Mode   `json:"mode"`
	// PIDs, when set, are the server's process ids, comma-separated: the
	// edge scenario reports the CPU time and RSS of these processes and
	// of their live descendants (nginx workers, the Varnish child). A
	// string rather than a slice keeps Endpoint comparable.
	PIDs string `json:"pids,omitempty"`
}

// Credentials sign S3 requests.
type Credentials struct {
	AccessKey string
	SecretKey string
	Region    string
}

// client speaks to one endpoint and one bucket. Its transport keeps
// connections alive, enough of them for the most concurrent scenario.
type client struct {
	ep        Endpoint
	base      *url.URL
	creds     Credentials
	pathStyle bool
	bucket    string
	hc        *http.Client
	tr        *http.Transport
}

func newClient(ep Endpoint, creds Credentials, pathStyle bool, bucket string, conns int) (*client, error) {
	u, err := url.Parse(ep.URL)
	if err != nil {
		return nil, fmt.Errorf("endpoint %s: %w", ep.Name, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("endpoint %s: %q is not an http(s) URL", ep.Name, ep.URL)
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns * 2,
		MaxIdleConnsPerHost: conns * 2,
		IdleConnTimeout:     90 * time.Second,
		// The benchmark's bodies are random bytes; compression would only
		// add CPU on both sides.
		DisableCompression:    true,
		ResponseHeaderTimeout: 2 * time.Minute,
		WriteBufferSize:       256 << 10,
		ReadBufferSize:        256 << 10,
	}
	return &client{
		ep: ep, base: u, creds: creds, pathStyle: pathStyle, bucket: bucket,
		hc: &http.Client{Transport: tr}, tr: tr,
	}, nil
}

func (c *client) close() { c.tr.CloseIdleConnections() }

// url returns the URL of key in the client's bucket ("" key: the bucket).
// Keys the benchmark writes are plain ASCII without characters needing
// escapes.
func (c *client) url(key, query string) *url.URL {
	u := *c.base
	base := strings.TrimSuffix(u.Path, "/")
	if c.pathStyle || c.ep.Mode != ModeS3 {
		u.Path = base + "/" + c.bucket + "/" + key
	} else {
		u.Host = c.bucket + "." + u.Host
		u.Path = base + "/" + key
	}
	u.RawQuery = query
	return &u
}

// request is one request to send.
type request struct {
	method string
	key    string
	query  string
	body   []byte // nil: no body
	header http.Header
}

// do sends rq and returns the response with its body unread; the caller
// must close it. Any status ≥ 300 is returned as an *httpError after the
// body has been drained.
func (c *client) do(ctx context.Context, rq request) (*http.Response, error) {
	var body io.Reader
	if rq.body != nil {
		body = bytes.NewReader(rq.body)
	}
	r, err := http.NewRequestWithContext(ctx, rq.method, c.url(rq.key, rq.query).String(), body)
	if err != nil {
		return nil, err
	}
	for k, v := range rq.header {
		r.Header[k] = v
	}
	if c.ep.Mode == ModeS3 {
		sigv4.SignRequest(r, c.creds.AccessKey, c.creds.SecretKey, c.creds.Region, time.Now(), sigv4.UnsignedPayload)
	}
	resp, err := c.hc.Do(r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		return nil, &httpError{Method: rq.method, Key: rq.key, Status: resp.StatusCode, Body: string(msg)}
	}
	return resp, nil
}

// drain sends rq and reads the whole response body, returning its length.
func (c *client) drain(ctx context.Context, rq request) (int64, error) {
	resp, err := c.do(ctx, rq)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(io.Discard, resp.Body)
}

// httpError is a response with a status of 300 or more.
type httpError struct {
	Method, Key string
	Status      int
	Body        string
}

func (e *httpError) Error() string {
	b := e.Body
	if len(b) > 200 {
		b = b[:200] + "…"
	}
	return fmt.Sprintf("%s %q: HTTP %d %s", e.Method, e.Key, e.Status, strings.TrimSpace(b))
}

// isNotFound reports whether err is a 404 answer.
func isNotFound(err error) bool {
	he, ok := err.(*httpError)
	return ok && he.Status == http.StatusNotFound
}

func (c *client) put(ctx context.Context, key string, data []byte) error {
	_, err := c.drain(ctx, request{method: http.MethodPut, key: key, body: data,
		header: http.Header{"Content-Type": {"application/octet-stream"}}})
	return err
}

func (c *client) get(ctx context.Context, key string, rng string) (int64, error) {
	rq := request{method: http.MethodGet, key: key}
	if rng != "" {
		rq.header = http.Header{"Range": {rng}}
	}
	return c.drain(ctx, rq)
}

func (c *client) head(ctx context.Context, key string) error {
	_, err := c.drain(ctx, request{method: http.MethodHead, key: key})
	return err
}

func (c *client) delete(ctx context.Context, key string) error {
	_, err := c.drain(ctx, request{method: http.MethodDelete, key: key})
	return err
}

// createBucket creates the client's bucket (for a static endpoint, its
// directory).
func (c *client) createBucket(ctx context.Context) error {
	var body []byte
	if c.ep.Mode == ModeS3 && c.creds.Region != "" && c.creds.Region != "us-east-1" {
		body = []byte("<CreateBucketConfiguration><LocationConstraint>" + c.creds.Region +
			"</LocationConstraint></CreateBucketConfiguration>")
	}
	_, err := c.drain(ctx, request{method: http.MethodPut, body: body})
	return err
}

// listPage is one page of a listing.
type listPage struct {
	Keys      []string
	Truncated bool
	Next      string // continuation token (S3) or last key (static)
}

type listResult struct {
	IsTruncated           bool   `xml:"IsTruncated"`
	NextContinuationToken string `xml:"NextContinuationToken"`
	Contents              []struct {
		Key string `xml:"Key"`
	} `xml:"Contents"`
}

// list returns one page of up to max keys under prefix. For S3 it is a
// ListObjectsV2 (token continues a listing, startAfter starts one after a
// key); for a static endpoint a directory read of prefix (which must end
// in '/').
func (c *client) list(ctx context.Context, prefix, startAfter, token string, max int) (listPage, error) {
	p, _, err := c.timedList(ctx, prefix, startAfter, token, max)
	return p, err
}

// timedList is list, also returning the time from sending the request to
// the last byte of the answer: the server's part, without the client's
// XML decoding (encoding/xml takes milliseconds for a 1,000-key page).
func (c *client) timedList(ctx context.Context, prefix, startAfter, token string, max int) (listPage, time.Duration, error) {
	t0 := time.Now()
	q := url.Values{}
	if c.ep.Mode == ModeStatic {
		q.Set("list", "")
	} else {
		q.Set("list-type", "2")
	}
	q.Set("prefix", prefix)
	q.Set("max-keys", strconv.Itoa(max))
	if startAfter != "" {
		q.Set("start-after", startAfter)
	}
	if token != "" {
		q.Set("continuation-token", token)
	}
	resp, err := c.do(ctx, request{method: http.MethodGet, query: q.Encode()})
	if err != nil {
		return listPage{}, 0, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(t0)
	if err != nil {
		return listPage{}, d, err
	}
	if c.ep.Mode == ModeStatic {
		return parseStaticList(data), d, nil
	}
	var lr listResult
	if err := xml.Unmarshal(data, &lr); err != nil {
		return listPage{}, d, fmt.Errorf("ListObjectsV2: %w", err)
	}
	p := listPage{Truncated: lr.IsTruncated, Next: lr.NextContinuationToken, Keys: make([]string, len(lr.Contents))}
	for i, o := range lr.Contents {
		p.Keys[i] = o.Key
	}
	return p, d, nil
}

// listAll lists every key under prefix, page after page of up to 1,000.
func (c *client) listAll(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	token, after := "", ""
	for {
		p, err := c.list(ctx, prefix, after, token, 1000)
		if err != nil {
			return keys, err
		}
		keys = append(keys, p.Keys...)
		if !p.Truncated || len(p.Keys) == 0 {
			return keys, nil
		}
		if c.ep.Mode == ModeStatic || p.Next == "" {
			after = p.Keys[len(p.Keys)-1]
		} else {
			token = p.Next
		}
	}
}

// deleteKeys removes keys: with DeleteObjects, 1,000 at a time, on an S3
// endpoint; one DELETE each otherwise.
func (c *client) deleteKeys(ctx context.Context, keys []string) error {
	if c.ep.Mode == ModeStatic {
		for _, k := range keys {
			if err := c.delete(ctx, k); err != nil && !isNotFound(err) {
				return err
			}
		}
		return nil
	}
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		var b bytes.Buffer
		b.WriteString("<Delete><Quiet>true</Quiet>")
		for _, k := range keys[:n] {
			b.WriteString("<Object><Key>")
			xml.EscapeText(&b, []byte(k))
			b.WriteString("</Key></Object>")
		}
		b.WriteString("</Delete>")
		sum := md5.Sum(b.Bytes())
		resp, err := c.do(ctx, request{method: http.MethodPost, query: "delete=", body: b.Bytes(),
			header: http.Header{"Content-Md5": {base64.StdEncoding.EncodeToString(sum[:])},
				"Content-Type": {"application/xml"}}})
		if err != nil {
			return err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte("<Error>")) {
			return fmt.Errorf("DeleteObjects: %s", firstN(string(data), 300))
		}
		keys = keys[n:]
	}
	return nil
}

// deleteBucket removes the client's bucket, which must be empty on S3. A
// static server removes the directory with whatever it holds.
func (c *client) deleteBucket(ctx context.Context) error {
	err := c.delete(ctx, "")
	if isNotFound(err) {
		return nil
	}
	return err
}

// bucketExists reports whether the client's bucket exists.
func (c *client) bucketExists(ctx context.Context) (bool, error) {
	err := c.head(ctx, "")
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
