package edge

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// emptySHA256 is the payload hash of a request without a body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// upstream makes requests to the origin.
type upstream struct {
	o *Options
}

func newUpstream(o *Options) *upstream { return &upstream{o: o} }

// request builds a signed request for bucket/key with the given headers.
func (u *upstream) request(ctx context.Context, method, bucket, key string, h http.Header) (*http.Request, error) {
	base := *u.o.Upstream
	p := strings.TrimSuffix(base.Path, "/") + "/" + bucket + "/" + key
	raw := strings.TrimSuffix(base.EscapedPath(), "/") + "/" + s3name.EscapeKey(bucket) + "/" + s3name.EscapeKey(key)
	if u.o.VirtualHost {
		// The bucket is the host's first label (a bucket name is a valid
		// DNS label sequence: ValidExistingBucketName held at the api);
		// the path is the key alone. SigV4 signs the host the request
		// goes to, which this is.
		base.Host = bucket + "." + base.Host
		p = strings.TrimSuffix(base.Path, "/") + "/" + key
		raw = strings.TrimSuffix(base.EscapedPath(), "/") + "/" + s3name.EscapeKey(key)
	}
	base.Path, base.RawPath, base.RawQuery, base.Fragment = p, raw, "", ""
	r, err := http.NewRequestWithContext(ctx, method, base.String(), nil)
	if err != nil {
		return nil, err
	}
	r.URL.Path, r.URL.RawPath = p, raw
	for k, v := range h {
		r.Header[k] = v
	}
	if u.o.AccessKey != "" {
		sigv4.SignRequest(r, u.o.AccessKey, u.o.SecretKey, u.o.Region, u.o.Now(), emptySHA256)
	}
	return r, nil
}

// do sends a request to the origin.
func (u *upstream) do(ctx context.Context, method, bucket, key string, h http.Header) (*http.Response, error) {
	r, err := u.request(ctx, method, bucket, key, h)
	if err != nil {
		return nil, err
	}
	return u.o.Client.Do(r)
}

// upstreamError turns an origin's error response into the S3 error the
// edge answers with: the origin's own code when it sent one the gateway
// knows, else one matching its status. The body is closed.
func upstreamError(resp *http.Response) error {
	defer resp.Body.Close()
	var body struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if xml.Unmarshal(raw, &body) == nil && body.Code != "" {
		if c, ok := s3err.Lookup(body.Code); ok && c.Status() == resp.StatusCode {
			if body.Message != "" {
				return s3err.Newf(c, "%s", body.Message)
			}
			return s3err.New(c)
		}
	}
	switch resp.StatusCode {
	case http.StatusNotFound:
		return s3err.New(s3err.NoSuchKey)
	case http.StatusForbidden:
		return s3err.New(s3err.AccessDenied)
	case http.StatusPreconditionFailed:
		return s3err.New(s3err.PreconditionFailed)
	case http.StatusNotModified:
		return s3err.New(s3err.NotModified)
	case http.StatusBadRequest:
		return s3err.Newf(s3err.InvalidRequest, "The origin refused the request (%s).", resp.Status)
	}
	return originDown(fmt.Errorf("origin answered %s", resp.Status))
}

// originDown is the error of an origin that cannot be reached or fails.
func originDown(err error) error {
	return &s3err.Error{Code: s3err.ServiceUnavailable, Message: "The origin could not be reached or failed; try again.", Err: err}
}

// contentRange parses "bytes first-last/size".
func contentRange(v string) (first, last, size int64, ok bool) {
	rest, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	span, total, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	a, b, found := strings.Cut(span, "-")
	if !found {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	first, err1 = strconv.ParseInt(a, 10, 64)
	last, err2 = strconv.ParseInt(b, 10, 64)
	size, err3 = strconv.ParseInt(total, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || first < 0 || last < first || size <= last {
		return 0, 0, 0, false
	}
	return first, last, size, true
}

// keptHeaders are the origin response headers an entry keeps and replays.
var keptHeaders = []string{
	"Content-Type", "Cache-Control", "Content-Encoding", "Content-Disposition",
	"Content-Language", "Expires", "Last-Modified", "X-Amz-Version-Id",
	"X-Amz-Storage-Class", "X-Amz-Tagging-Count", "X-Amz-Website-Redirect-Location",
}

// storedHeader returns the part of an origin response's headers an entry
// replays: the kept ones and user metadata.
func storedHeader(h http.Header) http.Header {
	out := http.Header{}
	for _, k := range keptHeaders {
		if v := h.Values(k); len(v) > 0 {
			out[k] = append([]string(nil), v...)
		}
	}
	for k, v := range h {
		if strings.HasPrefix(k, "X-Amz-Meta-") {
			out[k] = append([]string(nil), v...)
		}
	}
	return out
}
