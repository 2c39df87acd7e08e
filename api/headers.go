package api

import (
	"encoding/base64"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// maxUserMetadata is S3's limit on x-amz-meta-* names and values together.
const maxUserMetadata = 2048

const metaPrefix = "X-Amz-Meta-"

// objectHeaders parses the metadata a PUT, copy or multipart upload stores
// with an object: the standard content headers and x-amz-meta-*.
func objectHeaders(h http.Header) (object.Headers, error) {
	out := object.Headers{
		ContentType:        h.Get("Content-Type"),
		ContentEncoding:    storedContentEncoding(h.Get("Content-Encoding")),
		ContentDisposition: h.Get("Content-Disposition"),
		ContentLanguage:    h.Get("Content-Language"),
		CacheControl:       h.Get("Cache-Control"),
		Expires:            h.Get("Expires"),
	}
	var err error
	if out.WebsiteRedirect, err = websiteRedirect(h); err != nil {
		return out, err
	}
	if out.ContentType == "" {
		out.ContentType = "binary/octet-stream"
	}
	size := 0
	for name, vals := range h {
		if len(name) <= len(metaPrefix) || !strings.EqualFold(name[:len(metaPrefix)], metaPrefix) {
			continue
		}
		k := strings.ToLower(name[len(metaPrefix):])
		v := storedMetaValue(strings.Join(vals, ","))
		size += len(k) + len(v)
		out.User = append(out.User, metadata.KV{Key: k, Value: v})
	}
	if size > maxUserMetadata {
		return out, s3err.Newf(s3err.MetadataTooLarge, "Your metadata headers exceed the maximum allowed metadata size of %d bytes.", maxUserMetadata)
	}
	sort.Slice(out.User, func(i, j int) bool { return out.User[i].Key < out.User[j].Key })
	return out, nil
}

// storedMetaValue returns the value an x-amz-meta-* header of a write
// stores: its RFC 2047 encoded words decoded, as S3 decodes them before
// storing (so that a value is kept as the text it stands for, and
// metaHeaderValue answers it encoded again). A value with no encoded
// word, or one in a charset the decoder does not know, is kept as sent.
func storedMetaValue(v string) string {
	if !strings.Contains(v, "=?") {
		return v
	}
	d, err := new(mime.WordDecoder).DecodeHeader(v)
	if err != nil {
		return v
	}
	return d
}

// metaHeaderValue returns a stored user metadata value as GET and HEAD
// answer it: as it is when it is US-ASCII, else as one RFC 2047 encoded
// word of its UTF-8, as S3 answers values with other characters ("encoded
// as per RFC 2047 to make them mail-safe before returning"). A value that
// is not valid UTF-8 came as a header's octets, which HTTP reads as
// ISO-8859-1, and is read so.
func metaHeaderValue(v string) string {
	ascii := true
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return v
	}
	if !utf8.ValidString(v) {
		runes := make([]rune, len(v))
		for i := 0; i < len(v); i++ {
			runes[i] = rune(v[i])
		}
		v = string(runes)
	}
	return "=?UTF-8?B?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// maxWebsiteRedirect is S3's limit on x-amz-website-redirect-location.
const maxWebsiteRedirect = 2048

// websiteRedirect returns the x-amz-website-redirect-location of a write,
// checked as S3 checks it: a path in the bucket's website ("/...") or an
// absolute http or https URL, of at most 2 KiB.
func websiteRedirect(h http.Header) (string, error) {
	v := h.Get("X-Amz-Website-Redirect-Location")
	if v == "" {
		return "", nil
	}
	if len(v) > maxWebsiteRedirect {
		return "", s3err.Newf(s3err.InvalidArgument, "The length of website redirect location cannot exceed 2,048 characters.").
			With("ArgumentName", "x-amz-website-redirect-location").With("ArgumentValue", v)
	}
	if !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
		return "", s3err.Newf(s3err.InvalidArgument, "The website redirect location must have a prefix of 'http://' or 'https://' or '/'.").
			With("ArgumentName", "x-amz-website-redirect-location").With("ArgumentValue", v)
	}
	return v, nil
}

// newObjectHeaders parses what a request creating an object (PutObject,
// CreateMultipartUpload) says about it: unsupported headers are refused,
// then the stored headers and the tags are parsed. The encryption
// headers are the caller's (parseWriteEncryption).
func newObjectHeaders(h http.Header) (object.Headers, []metadata.KV, error) {
	if err := unsupportedWriteHeaders(h); err != nil {
		return object.Headers{}, nil, err
	}
	hdrs, err := objectHeaders(h)
	if err != nil {
		return hdrs, nil, err
	}
	tags, err := parseTaggingHeader(h.Get("X-Amz-Tagging"))
	return hdrs, tags, err
}

// checkStorageClass accepts the one storage class the gateway has.
func checkStorageClass(h http.Header) error {
	switch c := h.Get("X-Amz-Storage-Class"); c {
	case "", "STANDARD":
		return nil
	case "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING", "GLACIER", "DEEP_ARCHIVE", "OUTPOSTS", "GLACIER_IR", "SNOW", "EXPRESS_ONEZONE", "FSX_OPENZFS":
		return s3err.Newf(s3err.NotImplemented, "Storage class %s is not supported; objects are stored as STANDARD.", c)
	default:
		return s3err.New(s3err.InvalidStorageClass)
	}
}

// unsupportedWriteHeaders refuses request headers that ask for behaviour the
// gateway does not provide, instead of storing the object without it.
func unsupportedWriteHeaders(h http.Header) error {
	if err := checkCustomerKeyHeaders(h); err != nil {
		return err
	}
	return checkStorageClass(h)
}

// checkCustomerKeyHeaders refuses an SSE-C key or key MD5 sent without
// x-amz-server-side-encryption-customer-algorithm, as S3 does (400
// InvalidArgument), rather than ignore a key the client believes protects
// its object.
func checkCustomerKeyHeaders(h http.Header) error {
	if h.Get("X-Amz-Server-Side-Encryption-Customer-Algorithm") != "" {
		return nil
	}
	for _, name := range []string{"X-Amz-Server-Side-Encryption-Customer-Key", "X-Amz-Server-Side-Encryption-Customer-Key-Md5"} {
		if h.Get(name) != "" {
			return s3err.Newf(s3err.InvalidArgument, "Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.").
				With("ArgumentName", "x-amz-server-side-encryption").With("ArgumentValue", "null")
		}
	}
	return nil
}

// checkReadEncryptionHeaders answers the encryption headers of a GetObject
// or HeadObject as S3 does: x-amz-server-side-encryption belongs to writes
// and is InvalidArgument on a read, and SSE-C headers need their
// algorithm. The SSE-C key itself is checked against the object
// (object.Layer.CheckCustomerKey).
func checkReadEncryptionHeaders(h http.Header) error {
	if v := h.Get("X-Amz-Server-Side-Encryption"); v != "" {
		return s3err.Newf(s3err.InvalidArgument, "x-amz-server-side-encryption header is not supported for this operation.").
			With("ArgumentName", "x-amz-server-side-encryption").With("ArgumentValue", v)
	}
	return checkCustomerKeyHeaders(h)
}

// setObjectHeaders writes the headers GET and HEAD return for an object:
// validators, stored content headers, user metadata and, when asked for
// with x-amz-checksum-mode, sums: the checksums of the bytes answered
// (servedChecksums). q is r's parsed query.
func setObjectHeaders(h http.Header, o *object.Object, r *http.Request, q url.Values, sums []metadata.Checksum) {
	// The values share one backing array, each header's slice capped at
	// its one element: one allocation instead of one per header.
	vals := make(headerValues, 0, 8)
	vals.set(h, "ETag", `"`+o.ETag+`"`)
	vals.set(h, "Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	vals.set(h, "Accept-Ranges", "bytes")
	ct := o.ContentType
	if ct == "" {
		ct = "binary/octet-stream"
	}
	vals.set(h, "Content-Type", ct)
	vals.setIf(h, "Content-Encoding", o.ContentEncoding)
	vals.setIf(h, "Content-Disposition", o.ContentDisposition)
	vals.setIf(h, "Content-Language", o.ContentLanguage)
	vals.setIf(h, "Cache-Control", o.CacheControl)
	vals.setIf(h, "Expires", o.Expires)
	for _, kv := range o.UserMeta {
		vals.set(h, "X-Amz-Meta-"+kv.Key, metaHeaderValue(kv.Value))
	}
	if len(o.Tags) > 0 {
		vals.set(h, "X-Amz-Tagging-Count", itoa(int64(len(o.Tags))))
	}
	vals.setIf(h, "X-Amz-Website-Redirect-Location", o.WebsiteRedirect)
	if strings.EqualFold(r.Header.Get("X-Amz-Checksum-Mode"), "ENABLED") {
		for _, c := range sums {
			if alg, ok := checksum.ParseAlgorithm(c.Algorithm); ok {
				vals.set(h, http.CanonicalHeaderKey(alg.Header()), c.Value)
			}
			if c.Type != "" {
				vals.set(h, "X-Amz-Checksum-Type", c.Type)
			}
		}
	}
	// response-* query parameters override the stored headers (signed
	// requests only, which every request reaching here is).
	for _, ov := range responseOverrides {
		if v, ok := q[ov.param]; ok && len(v) > 0 {
			vals.set(h, ov.header, v[0])
		}
	}
}

// servedChecksums returns the checksums that describe what a GET or HEAD
// answers: the object's for the whole object, none for a byte range, and
// for part n (partNumber, 0 when not asked) the part's own checksum as
// S3 does: a COMPOSITE object's part keeps the checksum it was uploaded
// with; a FULL_OBJECT object's only part is the whole object, and a part
// of several has no full-object checksum of its own.
func servedChecksums(o *object.Object, n int, ranged bool) []metadata.Checksum {
	switch {
	case n == 0 && ranged:
		return nil
	case n == 0 || len(o.Parts) == 0:
		return o.Checksums
	case len(o.Checksums) == 0 || n > len(o.Parts) || o.Parts[n-1].Checksum == "":
		return nil
	}
	c := o.Checksums[0]
	if c.Type == object.ChecksumFullObject {
		if len(o.Parts) == 1 {
			return o.Checksums
		}
		return nil
	}
	return []metadata.Checksum{{Algorithm: c.Algorithm, Value: o.Parts[n-1].Checksum, Type: c.Type}}
}

// headerValues is the backing array of the response headers
// setObjectHeaders writes.
type headerValues []string

// set sets h[name] (a canonical name) to the one value v.
func (vs *headerValues) set(h http.Header, name, v string) {
	*vs = append(*vs, v)
	n := len(*vs)
	h[name] = (*vs)[n-1 : n : n]
}

// setIf sets h[name] to v unless v is empty.
func (vs *headerValues) setIf(h http.Header, name, v string) {
	if v != "" {
		vs.set(h, name, v)
	}
}

// responseOverrides are the response-* query parameters and the headers
// they replace.
var responseOverrides = [...]struct{ param, header string }{
	{"response-content-type", "Content-Type"},
	{"response-content-language", "Content-Language"},
	{"response-expires", "Expires"},
	{"response-cache-control", "Cache-Control"},
	{"response-content-disposition", "Content-Disposition"},
	{"response-content-encoding", "Content-Encoding"},
}

func setIf(h http.Header, name, v string) {
	if v != "" {
		h[name] = []string{v}
	}
}
