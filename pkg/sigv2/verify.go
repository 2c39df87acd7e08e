package sigv2

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Credentials looks up the secret key of an access key id. It has the
// shape of sigv4.Credentials, so one user table serves both versions.
type Credentials interface {
	SecretKey(accessKeyID string) (secret string, ok bool)
}

// Options configures a Verifier.
type Options struct {
	// Credentials resolves access keys; nil rejects every access key.
	Credentials Credentials
	// Now is the clock; nil means time.Now. Tests set it to check skew and
	// expiry without sleeping.
	Now func() time.Time
	// MaxSkew is how far a header-signed request's Date (or x-amz-date)
	// may be from Now; 0 means 15 minutes, S3's limit.
	MaxSkew time.Duration
}

// Verifier authenticates requests signed with Signature Version 2. It is
// safe for concurrent use.
type Verifier struct {
	o Options
}

// NewVerifier returns a Verifier with o's defaults filled in.
func NewVerifier(o Options) *Verifier {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxSkew <= 0 {
		o.MaxSkew = 15 * time.Minute
	}
	return &Verifier{o: o}
}

// Auth is the outcome of a successful Verify.
type Auth struct {
	// AccessKeyID identifies the authenticated principal.
	AccessKeyID string
	// Presigned is set for query-string authentication.
	Presigned bool
}

// headerPrefix starts a Version 2 Authorization header.
const headerPrefix = "AWS "

// Claims reports whether r is signed with Version 2 and nothing else: an
// Authorization header "AWS ..." without authentication in the query, or
// the AWSAccessKeyId or Signature query parameters without an
// Authorization header or X-Amz-Algorithm. A request that mixes
// mechanisms is not claimed, so that the Version 4 verifier gives S3's
// answer to it ("Only one auth mechanism allowed").
func Claims(r *http.Request) bool {
	v2Query, v4Query := false, false
	for q := r.URL.RawQuery; q != "" && !(v2Query && v4Query); {
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "AWSAccessKeyId", "Signature":
			v2Query = true
		case "X-Amz-Algorithm":
			v4Query = true
		}
	}
	if authz := r.Header.Get("Authorization"); authz != "" {
		return strings.HasPrefix(authz, headerPrefix) && !v2Query && !v4Query
	}
	return v2Query && !v4Query
}

// Verify authenticates r, which Claims must have claimed. bucket is the
// bucket the Host header names for a virtual-hosted-style request, ""
// for path style: the signed resource always starts with the bucket.
// Every error is an *s3err.Error.
func (v *Verifier) Verify(r *http.Request, bucket string) (Auth, error) {
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return Auth{}, s3err.New(s3err.InvalidArgument)
	}
	if authz := r.Header.Get("Authorization"); authz != "" {
		return v.verifyHeader(r, query, bucket, authz)
	}
	return v.verifyQuery(r, query, bucket)
}

// verifyHeader checks the Authorization header form.
func (v *Verifier) verifyHeader(r *http.Request, query url.Values, bucket, authz string) (Auth, error) {
	accessKey, sig, err := ParseAuthorization(authz)
	if err != nil {
		return Auth{}, err
	}
	date := r.Header.Get("X-Amz-Date")
	if date == "" {
		date = r.Header.Get("Date")
	}
	t, err := parseDate(date)
	if err != nil {
		return Auth{}, s3err.Newf(s3err.AccessDenied, "AWS authentication requires a valid Date or x-amz-date header")
	}
	secret, err := v.secret(accessKey)
	if err != nil {
		return Auth{}, err
	}
	now := v.o.Now()
	if d := now.Sub(t); d > v.o.MaxSkew || d < -v.o.MaxSkew {
		return Auth{}, s3err.New(s3err.RequestTimeTooSkewed).
			With("RequestTime", date).
			With("ServerTime", now.UTC().Format(time.RFC3339)).
			With("MaxAllowedSkewMilliseconds", strconv.FormatInt(v.o.MaxSkew.Milliseconds(), 10))
	}
	if err := checkRequest(r, query, bucket, "", secret, accessKey, sig); err != nil {
		return Auth{}, err
	}
	return Auth{AccessKeyID: accessKey}, nil
}

// verifyQuery checks query-string authentication.
func (v *Verifier) verifyQuery(r *http.Request, query url.Values, bucket string) (Auth, error) {
	accessKey, expires := query.Get("AWSAccessKeyId"), query.Get("Expires")
	// A signature sent with an unescaped "+" reads as a space; base64
	// has no spaces, so they are turned back.
	sig := strings.ReplaceAll(query.Get("Signature"), " ", "+")
	if accessKey == "" || expires == "" || sig == "" {
		return Auth{}, s3err.Newf(s3err.AccessDenied, "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters")
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil {
		return Auth{}, s3err.Newf(s3err.AccessDenied, "Invalid date (should be seconds since epoch): %s", expires)
	}
	secret, err := v.secret(accessKey)
	if err != nil {
		return Auth{}, err
	}
	if now := v.o.Now(); now.Unix() > exp {
		return Auth{}, s3err.Newf(s3err.AccessDenied, "Request has expired").
			With("Expires", time.Unix(exp, 0).UTC().Format(time.RFC3339)).
			With("ServerTime", now.UTC().Format(time.RFC3339))
	}
	if err := checkRequest(r, query, bucket, expires, secret, accessKey, sig); err != nil {
		return Auth{}, err
	}
	return Auth{AccessKeyID: accessKey, Presigned: true}, nil
}

// VerifyPolicy checks the fields of a Version 2 browser POST upload:
// signature must be the base64 HMAC-SHA1 of the base64 policy, as sent,
// under accessKey's secret. The policy's conditions are the caller's to
// check; they are the same for both versions.
func (v *Verifier) VerifyPolicy(accessKey, policy, signature string) error {
	secret, err := v.secret(accessKey)
	if err != nil {
		return err
	}
	return check(secret, policy, accessKey, signature)
}

// secret resolves accessKey, or answers InvalidAccessKeyId.
func (v *Verifier) secret(accessKey string) (string, error) {
	if v.o.Credentials != nil {
		if s, ok := v.o.Credentials.SecretKey(accessKey); ok {
			return s, nil
		}
	}
	return "", s3err.New(s3err.InvalidAccessKeyID).With("AWSAccessKeyId", accessKey)
}

// checkRequest checks sig against the string to sign of r, in each
// spelling clients are known to sign:
//
//   - A request to a bucket itself by path ("/bucket") is also taken
//     signed as "/bucket/": botocore and s3cmd sign every bucket
//     operation's resource with the slash, as the virtual-hosted form of
//     the same request ("/" on the bucket's host) is signed.
//   - The optionalSubresources present are also taken signed: botocore
//     signs the fixed query of an operation's URI ("?list-type=2" of
//     ListObjectsV2), which minio-go and s3cmd leave out.
//
// Each candidate is compared in constant time; the error reports the
// first.
func checkRequest(r *http.Request, query url.Values, bucket, expires, secret, accessKey, sig string) error {
	p := resourcePath(r, bucket)
	paths := []string{p}
	if len(p) > 1 && strings.IndexByte(p[1:], '/') < 0 {
		paths = append(paths, p+"/")
	}
	sets := []func(string) bool{isSubresource}
	for k := range query {
		if optionalSubresources[k] {
			sets = append(sets, isSubresourceOrOptional)
			break
		}
	}
	var first error
	for _, signed := range sets {
		for _, path := range paths {
			err := check(secret, stringToSign(r.Method, r.Header, query, path, expires, signed), accessKey, sig)
			if err == nil {
				return nil
			}
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// check compares sig with the signature of sts in constant time.
func check(secret, sts, accessKey, sig string) error {
	want := Sign(secret, sts)
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return s3err.New(s3err.SignatureDoesNotMatch).
			With("AWSAccessKeyId", accessKey).
			With("StringToSign", sts)
	}
	return nil
}

// Sign is the base64 HMAC-SHA1 of sts under secret.
func Sign(secret, sts string) string {
	m := hmac.New(sha1.New, []byte(secret))
	m.Write([]byte(sts))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// ParseAuthorization splits "AWS AccessKeyId:Signature". Both parts must
// be non-empty; the access key cannot contain ":", the signature may
// (it cannot in base64, and is then simply wrong).
func ParseAuthorization(authz string) (accessKey, signature string, err error) {
	rest, ok := strings.CutPrefix(authz, headerPrefix)
	if ok {
		accessKey, signature, ok = strings.Cut(strings.TrimSpace(rest), ":")
	}
	if !ok || accessKey == "" || signature == "" || strings.ContainsAny(accessKey, " \t") {
		return "", "", s3err.Newf(s3err.InvalidArgument, "AWS authorization header is invalid.  Expected AwsAccessKeyId:signature").
			With("ArgumentName", "Authorization").
			With("ArgumentValue", "AWS "+accessKey+":")
	}
	return accessKey, signature, nil
}

// parseDate reads Date or x-amz-date: an HTTP date in any of the forms
// net/http accepts, RFC 1123 with a numeric zone (AWS's own examples),
// or the ISO 8601 basic form some clients put in x-amz-date.
func parseDate(s string) (time.Time, error) {
	if t, err := http.ParseTime(s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC1123Z, s); err == nil {
		return t, nil
	}
	return time.Parse("20060102T150405Z", s)
}

// resourcePath is the path part of the canonicalised resource: the raw
// path exactly as sent (never decoded or cleaned: each client signs its
// own encoding of it), after "/bucket" for a virtual-hosted-style
// request.
func resourcePath(r *http.Request, bucket string) string {
	p := r.RequestURI
	if p == "" || p[0] != '/' {
		// Client-side requests and absolute-form targets: the URL's
		// escaped path is what goes on the wire.
		p = r.URL.EscapedPath()
	}
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if p == "" {
		p = "/"
	}
	if bucket != "" {
		p = "/" + bucket + p
	}
	return p
}

// subresources are the query parameters that are part of the signed
// resource. Every other parameter (AWSAccessKeyId, Expires, Signature,
// list parameters such as prefix) is not signed.
var subresources = map[string]bool{
	"accelerate": true, "acl": true, "analytics": true, "cors": true, "delete": true,
	"encryption": true, "intelligent-tiering": true, "inventory": true, "legal-hold": true,
	"lifecycle": true, "location": true, "logging": true, "metrics": true,
	"notification": true, "object-lock": true, "ownershipControls": true, "partNumber": true,
	"policy": true, "publicAccessBlock": true, "replication": true, "requestPayment": true,
	"restore": true, "retention": true, "select": true, "select-type": true,
	"tagging": true, "torrent": true, "uploadId": true, "uploads": true,
	"versionId": true, "versioning": true, "versions": true, "website": true,
	"response-cache-control": true, "response-content-disposition": true,
	"response-content-encoding": true, "response-content-language": true,
	"response-content-type": true, "response-expires": true,
}

// optionalSubresources are query parameters some clients sign and
// others do not: botocore signs the fixed query of an operation's URI in
// its model, minio-go and s3cmd do not. A request is taken signed either
// way.
var optionalSubresources = map[string]bool{"list-type": true, "attributes": true, "policyStatus": true}

func isSubresource(k string) bool           { return subresources[k] }
func isSubresourceOrOptional(k string) bool { return subresources[k] || optionalSubresources[k] }

// StringToSign builds the Version 2 string to sign of a request:
//
//	Verb \n Content-MD5 \n Content-Type \n Date \n CanonicalizedAmzHeaders CanonicalizedResource
//
// path is the raw path with the bucket in front; query holds the decoded
// query parameters. expires, when not empty, takes the Date line's place
// (query-string authentication). The Date line is empty when x-amz-date
// is given, which then carries the time.
func StringToSign(method string, h http.Header, query url.Values, path, expires string) string {
	return stringToSign(method, h, query, path, expires, isSubresource)
}

// stringToSign is StringToSign with the query parameters signed reports
// true for as the signed sub-resources.
func stringToSign(method string, h http.Header, query url.Values, path, expires string, signed func(string) bool) string {
	var b strings.Builder
	b.WriteString(method)
	b.WriteByte('\n')
	b.WriteString(strings.TrimSpace(h.Get("Content-Md5")))
	b.WriteByte('\n')
	b.WriteString(strings.TrimSpace(h.Get("Content-Type")))
	b.WriteByte('\n')
	switch {
	case expires != "":
		b.WriteString(expires)
	case h.Get("X-Amz-Date") == "":
		b.WriteString(strings.TrimSpace(h.Get("Date")))
	}
	b.WriteByte('\n')
	writeAmzHeaders(&b, h)
	b.WriteString(path)
	writeSubresources(&b, query, signed)
	return b.String()
}

// writeAmzHeaders writes the CanonicalizedAmzHeaders: every x-amz-*
// header, its name lowercase, sorted by name, the values of repeated
// headers trimmed and joined by ",", one "name:value\n" line each.
func writeAmzHeaders(b *strings.Builder, h http.Header) {
	vals := map[string][]string{}
	var names []string
	for name, vs := range h {
		lname := strings.ToLower(name)
		if !strings.HasPrefix(lname, "x-amz-") {
			continue
		}
		if _, ok := vals[lname]; !ok {
			names = append(names, lname)
		}
		for _, v := range vs {
			vals[lname] = append(vals[lname], strings.TrimSpace(v))
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte(':')
		b.WriteString(strings.Join(vals[n], ","))
		b.WriteByte('\n')
	}
}

// writeSubresources appends the signed sub-resources, sorted by name, as
// "?name" or "?name=value" (the decoded value), joined by "&": the
// query parameters signed reports true for.
func writeSubresources(b *strings.Builder, query url.Values, signed func(string) bool) {
	var names []string
	for k := range query {
		if signed(k) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for i, k := range names {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		for j, v := range query[k] {
			if j > 0 {
				b.WriteByte('&')
			}
			b.WriteString(k)
			if v != "" {
				b.WriteByte('=')
				b.WriteString(v)
			}
		}
	}
}
