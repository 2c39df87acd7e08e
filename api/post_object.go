package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/postpolicy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// maxPostPreData bounds the bytes of a POST upload's body before the
// file's content: the fields with their part headers and boundaries, and
// the file part's header. S3 answers MaxPostPreDataLengthExceeded over
// 20 KiB of fields; the 12 KiB beyond that are room for part headers and
// boundaries, so that no form S3 takes is refused. The fields are read
// before the upload is authenticated, so this is all an unauthenticated
// client can make the gateway hold.
const maxPostPreData = 32 << 10

// postForm is what a POST upload's fields say, read up to the file part.
type postForm struct {
	// fields maps lower-case field names to values.
	fields map[string]string
	// file is the file part, positioned at its first byte; nil if the
	// form has none.
	file *multipart.Part
}

// preData is a POST upload's body while its fields are read: it lets
// maxPostPreData bytes through and fails the reads after them, until open
// is set once the file part is found.
type preData struct {
	r    io.Reader
	left int64
	open bool
	// over is set when a read went past the limit. mime/multipart does
	// not always pass the read's error on (a header cut off by it is
	// "malformed"), so readPostForm asks this instead.
	over bool
}

func (p *preData) Read(b []byte) (int, error) {
	if p.open {
		return p.r.Read(b)
	}
	if p.left <= 0 {
		p.over = true
		return 0, errPreData
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	n, err := p.r.Read(b)
	p.left -= int64(n)
	return n, err
}

// readPostForm reads the fields of a multipart/form-data body up to and
// including the header of the file part, the first maxPostPreData bytes
// of body at most. Fields after the file are ignored, as S3 does.
func readPostForm(r *http.Request) (postForm, error) {
	f := postForm{fields: map[string]string{}}
	body := &preData{r: r.Body, left: maxPostPreData}
	c := *r
	c.Body = io.NopCloser(body)
	mr, err := c.MultipartReader()
	if err != nil {
		return f, s3err.Wrap(s3err.MalformedPOSTRequest, err)
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return f, postReadError(body, err)
		}
		name := strings.ToLower(part.FormName())
		if name == "" {
			// A part without a field name (a file part named "") is not
			// form data S3 reads.
			return f, s3err.Newf(s3err.MalformedPOSTRequest, "The body of your POST request is not well-formed multipart/form-data.")
		}
		if name == "file" {
			body.open = true
			f.file = part
			return f, nil
		}
		v, err := io.ReadAll(part)
		if err != nil {
			return f, postReadError(body, err)
		}
		f.fields[name] = string(v)
	}
}

// errPreData is preData's error past its limit.
var errPreData = errors.New("the POST fields are over maxPostPreData")

// postReadError is the answer to a failed read of a POST upload's
// fields: MaxPostPreDataLengthExceeded if the fields went past the
// limit, the S3 error the body's reader gave (RequestTimeout), or else
// MalformedPOSTRequest.
func postReadError(body *preData, err error) error {
	if body.over {
		return s3err.New(s3err.MaxPostPreDataLengthExceeded).With("MaxPostPreDataLengthBytes", strconv.Itoa(maxPostPreData))
	}
	var e *s3err.Error
	if errors.As(err, &e) {
		return err
	}
	return s3err.Wrap(s3err.MalformedPOSTRequest, err)
}

// postV2Fields are the fields of a Signature Version 2 POST upload's
// signature, which its policy need not name.
var postV2Fields = []string{"awsaccesskeyid", "signature"}

// postAuth checks the signature of a POST upload and returns the access
// key id, "" for an anonymous upload (no policy, no signature). A SigV4
// upload's x-amz-signature is the hex HMAC-SHA256 of the
// base64 policy under the signing key of x-amz-credential; a SigV2
// upload's signature (when Options.SigV2 is set) is the base64 HMAC-SHA1
// of the policy under the secret of awsaccesskeyid. v2 reports the
// latter.
func (s *Server) postAuth(fields map[string]string) (accessKey string, v2 bool, err error) {
	if _, ok := fields["x-amz-signature"]; !ok {
		if fields["signature"] == "" && fields["awsaccesskeyid"] == "" {
			if fields["policy"] == "" {
				// Neither policy nor signature: an anonymous upload,
				// which S3 takes into a bucket everyone may write to
				// (accessKey "", decided by mayPost).
				return "", false, nil
			}
			return "", false, s3err.New(s3err.AccessDenied)
		}
		if s.verifyV2 == nil {
			return "", false, sigv4.RefuseV2()
		}
		if fields["policy"] == "" {
			return "", false, postPolicyMissing()
		}
		ak := fields["awsaccesskeyid"]
		if ak == "" || fields["signature"] == "" {
			return "", false, s3err.Newf(s3err.InvalidArgument, "Bucket POST must contain the fields 'AWSAccessKeyId' and 'signature'.").With("ArgumentName", "AWSAccessKeyId")
		}
		return ak, true, s.verifyV2.VerifyPolicy(ak, fields["policy"], fields["signature"])
	}
	ak, err := s.postAuthV4(fields)
	return ak, false, err
}

// postPolicyMissing is S3's answer to a signed POST upload without a
// policy.
func postPolicyMissing() error {
	return s3err.Newf(s3err.InvalidArgument, "Bucket POST must contain a field named 'policy'.  If it is specified, please check the order of the fields.").With("ArgumentName", "policy")
}

// postAuthV4 checks the SigV4 signature of a POST upload.
func (s *Server) postAuthV4(fields map[string]string) (string, error) {
	if alg := fields["x-amz-algorithm"]; alg != "AWS4-HMAC-SHA256" {
		return "", s3err.Newf(s3err.InvalidArgument, "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"").With("ArgumentName", "x-amz-algorithm").With("ArgumentValue", alg)
	}
	if fields["policy"] == "" {
		return "", postPolicyMissing()
	}
	cred := fields["x-amz-credential"]
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[0] == "" || len(parts[1]) != 8 || parts[3] != "s3" || parts[4] != "aws4_request" {
		return "", s3err.Newf(s3err.InvalidArgument, "Invalid credential %q; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".", cred).With("ArgumentName", "x-amz-credential")
	}
	if parts[2] != s.opts.Region {
		return "", s3err.Newf(s3err.InvalidArgument, "Error parsing the X-Amz-Credential parameter; the region '%s' is wrong; expecting '%s'", parts[2], s.opts.Region).With("ArgumentName", "x-amz-credential")
	}
	var secret string
	ok := false
	if s.opts.Credentials != nil {
		secret, ok = s.opts.Credentials.SecretKey(parts[0])
	}
	if !ok {
		return "", s3err.New(s3err.InvalidAccessKeyID).With("AWSAccessKeyId", parts[0])
	}
	m := hmac.New(sha256.New, sigv4.SigningKey(secret, parts[1], parts[2], "s3"))
	m.Write([]byte(fields["policy"]))
	// Compared as the lowercase hex string, like every SigV4 signature.
	if !hmac.Equal([]byte(fields["x-amz-signature"]), []byte(hex.EncodeToString(m.Sum(nil)))) {
		return "", s3err.New(s3err.SignatureDoesNotMatch)
	}
	return parts[0], nil
}

// postHeaders maps the form fields that S3 stores with the object (or
// refuses) to the request headers of an equivalent PutObject. The tagging
// field is an XML document, not x-amz-tagging's query form: see
// postObject.
func postHeaders(fields map[string]string) http.Header {
	h := http.Header{}
	for name, v := range fields {
		switch {
		case name == "acl":
			h.Set("X-Amz-Acl", v)
		case name == "content-type", name == "cache-control", name == "content-disposition",
			name == "content-encoding", name == "content-language", name == "expires",
			strings.HasPrefix(name, "x-amz-meta-"), name == "x-amz-storage-class",
			name == "x-amz-website-redirect-location", strings.HasPrefix(name, "x-amz-server-side-encryption"),
			strings.HasPrefix(name, "x-amz-object-lock-"), strings.HasPrefix(name, "x-amz-checksum-"):
			h.Set(name, v)
		}
	}
	return h
}

// postChecksum is the checksum a POST upload's fields ask the file to be
// verified with and stored under: a field x-amz-checksum-ALGORITHM with
// its base64 value, and optionally x-amz-checksum-algorithm naming the
// algorithm, which S3's PostObject takes as PutObject takes the headers
// of those names and x-amz-sdk-checksum-algorithm (a value of another
// algorithm, two values, or a named algorithm without its value are
// InvalidRequest; a malformed value InvalidRequest too).
func postChecksum(fields map[string]string) (checksum.Expect, error) {
	h := http.Header{}
	for name, v := range fields {
		switch {
		case name == "x-amz-checksum-algorithm":
			h.Set("X-Amz-Sdk-Checksum-Algorithm", v)
		case name == "x-amz-checksum-type":
		case strings.HasPrefix(name, "x-amz-checksum-"):
			h.Set(name, v)
		}
	}
	return checksum.FromHeader(h)
}

// sizeLimit counts the file part of a POST upload and enforces the
// policy's content-length-range while it streams: more than max bytes is
// EntityTooLarge as soon as it is seen, fewer than min is EntityTooSmall
// at EOF, so nothing outside the range is ever committed.
type sizeLimit struct {
	r        io.Reader
	min, max int64
	n        int64
}

func (l *sizeLimit) Read(p []byte) (int, error) {
	if rest := l.max + 1 - l.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.max {
		return n, s3err.Newf(s3err.EntityTooLarge, "Your proposed upload exceeds the maximum allowed size").
			With("ProposedSize", strconv.FormatInt(l.n, 10)).With("MaxSizeAllowed", strconv.FormatInt(l.max, 10))
	}
	if err == io.EOF && l.n < l.min {
		return n, s3err.Newf(s3err.EntityTooSmall, "Your proposed upload is smaller than the minimum allowed size").
			With("ProposedSize", strconv.FormatInt(l.n, 10)).With("MinSizeAllowed", strconv.FormatInt(l.min, 10))
	}
	if err != nil && err != io.EOF {
		var e *s3err.Error
		if !errors.As(err, &e) {
			err = s3err.Wrap(s3err.IncompleteBody, err)
		}
	}
	return n, err
}

type postResponse struct {
	XMLName  xml.Name `xml:"PostResponse"`
	Location string   `xml:"Location"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	ETag     string   `xml:"ETag"`
}

// postObject answers PostObject, a browser upload: a multipart/form-data
// body whose fields carry the key, the metadata, a policy and its SigV4
// (or SigV2) signature, followed by the file. A form without policy and
// signature is an anonymous upload, as in S3: it needs a bucket everyone
// may write to (an ACL's WRITE to AllUsers, or a bucket policy).
//
// The request arrives in the anonymous budget: its fields are read
// (maxPostPreData bytes at most, within Options.PostFieldTimeout) and the
// policy's signature verified before it takes an authenticated slot and
// its file is streamed; an anonymous upload stays where it is.
func (s *Server) postObject(w http.ResponseWriter, r *http.Request, rq *request) error {
	form, err := readPostForm(r)
	if err != nil {
		return err
	}
	if form.file == nil {
		return s3err.New(s3err.IncorrectNumberOfFilesInPostRequest)
	}
	accessKey, v2, err := s.postAuth(form.fields)
	if err != nil {
		return err
	}
	// An anonymous upload stays in the anonymous budget and has no
	// policy to satisfy: only the bucket's grants decide it (mayPost).
	anonymous := accessKey == ""
	rq.accessKey, rq.sigV2 = accessKey, v2
	if !anonymous {
		if err := s.admit(rq, &s.authenticated); err != nil {
			return err
		}
	}
	rq.body.lift()
	var pol *postpolicy.Policy
	if !anonymous {
		if pol, err = s.checkPostPolicy(form.fields, rq.bucket, v2); err != nil {
			return err
		}
	}
	key, ok := form.fields["key"]
	if !ok || key == "" {
		return s3err.Newf(s3err.InvalidArgument, "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.").With("ArgumentName", "key")
	}
	key = strings.ReplaceAll(key, "${filename}", path.Base("/"+form.file.FileName()))
	rq.key = key
	ph := postHeaders(form.fields)
	var tags []metadata.KV
	if v := form.fields["tagging"]; v != "" {
		if tags, err = parseTaggingBody([]byte(v)); err != nil {
			return err
		}
	}
	if err := s.mayPost(postConditionRequest(r, ph, tags), rq); err != nil {
		return err
	}

	enc, ck, err := s.writeEncryption(r, rq, ph)
	defer ck.wipe()
	if err != nil {
		return err
	}
	if err := unsupportedWriteHeaders(ph); err != nil {
		return err
	}
	if err := checkStorageClass(ph); err != nil {
		return err
	}
	expect, err := postChecksum(form.fields)
	if err != nil {
		return err
	}
	hdrs, err := objectHeaders(ph)
	if err != nil {
		return err
	}
	// The lock fields are covered by the signed policy like any other,
	// so unlike PutObject's headers they need no Content-MD5 of their own.
	lock, err := s.uploadLock(ph)
	if err != nil {
		return err
	}
	lim := &sizeLimit{r: form.file, max: object.MaxPutSize}
	if pol != nil {
		if lo, hi, ok := pol.Range(); ok {
			lim.min, lim.max = lo, min(hi, object.MaxPutSize)
		}
	}
	owner, acl, err := s.writeAccess(ph, rq)
	if err != nil {
		return err
	}
	obj, err := s.layer.PutObject(object.PutInput{Bucket: rq.bucket, Key: key, Body: lim, Size: -1, Expect: expect, Headers: hdrs, Tags: tags, Chown: s.fileOwner(rq),
		Conditions: object.Conditions{BucketID: s.bucketID(rq)}, Lock: lock, Encryption: enc, Owner: owner, ACL: acl})
	if err != nil {
		return err
	}
	etag := `"` + obj.ETag + `"`
	loc := objectURL(r, rq, key)
	h := w.Header()
	setEncryptionHeaders(h, obj.SSE, ck)
	setWrittenVersionID(h, obj.VersionID)
	h.Set("ETag", etag)
	h.Set("Location", loc)
	setWrittenChecksum(h, expect, &obj)

	redirect := form.fields["success_action_redirect"]
	if redirect == "" {
		redirect = form.fields["redirect"]
	}
	if u, err := url.Parse(redirect); redirect != "" && err == nil && u.Scheme != "" && u.Host != "" {
		// S3 appends bucket, key and etag, in that order, to the query
		// the URL has, which it leaves as it is.
		q := "bucket=" + url.QueryEscape(rq.bucket) + "&key=" + url.QueryEscape(key) + "&etag=" + url.QueryEscape(etag)
		if u.RawQuery != "" {
			q = u.RawQuery + "&" + q
		}
		u.RawQuery = q
		h.Set("Location", u.String())
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	switch form.fields["success_action_status"] {
	case "200":
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return nil
	case "201":
		return writeXML(w, http.StatusCreated, postResponse{Location: loc, Bucket: rq.bucket, Key: key, ETag: etag})
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// checkPostPolicy decodes the policy of a signed POST upload and checks
// the form's fields, and the addressed bucket, against it.
func (s *Server) checkPostPolicy(fields map[string]string, bucket string, v2 bool) (*postpolicy.Policy, error) {
	doc, err := base64.StdEncoding.DecodeString(fields["policy"])
	if err != nil {
		return nil, s3err.Newf(s3err.InvalidPolicyDocument, "Invalid Policy: Invalid Base64 Encoding.")
	}
	pol, err := postpolicy.Parse(doc)
	if err != nil {
		return nil, err
	}
	check := make(map[string]string, len(fields)+1)
	for k, v := range fields {
		check[k] = v
	}
	check["bucket"] = bucket
	exempt := []string{"bucket"}
	if v2 {
		exempt = append(exempt, postV2Fields...)
	}
	if err := pol.Check(s.now(), check, exempt...); err != nil {
		return nil, err
	}
	return pol, nil
}

// postConditionRequest is the request a POST upload's authorization
// takes its condition keys from: r with the headers of the equivalent
// PutObject in place of its own, as S3 reads a browser upload's form
// fields where PutObject has headers. A bucket policy that denies
// s3:PutObject with, say, s3:x-amz-acl public-read, or allows it only
// with s3:x-amz-server-side-encryption AES256, then decides the POST as
// it decides the PUT; the headers of the POST request itself (which the
// upload does not use) say nothing.
func postConditionRequest(r *http.Request, ph http.Header, tags []metadata.KV) *http.Request {
	h := ph.Clone()
	for _, name := range []string{"Referer", "User-Agent"} {
		if v := r.Header.Values(name); len(v) > 0 {
			h[name] = v
		}
	}
	if len(tags) > 0 {
		q := make(url.Values, len(tags))
		for _, t := range tags {
			q.Add(t.Key, t.Value)
		}
		h.Set("X-Amz-Tagging", q.Encode())
	}
	c := *r
	c.Header = h
	return &c
}

// objectURL is the absolute URL of key in the request's bucket, as S3
// gives it in a Location: by the request's host and scheme, path-style
// unless the request itself was virtual-hosted.
func objectURL(r *http.Request, rq *request, key string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	p := "/" + s3name.EscapeKey(key)
	if !rq.virtualHost {
		p = "/" + rq.bucket + p
	}
	return scheme + "://" + r.Host + p
}
