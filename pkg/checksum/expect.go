package checksum

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Expect describes the digests a request asks the server to verify or
// compute. The zero value verifies nothing and computes MD5 and CRC64NVME.
type Expect struct {
	// ContentMD5 is the Content-MD5 header as sent (base64), "" if absent.
	ContentMD5 string
	// SHA256Hex is the x-amz-content-sha256 hex digest to verify, "" if
	// the payload is unsigned or streamed.
	SHA256Hex string
	// Algorithm is the x-amz-checksum-* algorithm requested through a
	// header, x-amz-sdk-checksum-algorithm or x-amz-trailer; None if none.
	Algorithm Algorithm
	// Value is the expected base64 value from a header; "" when it travels
	// in the trailer or was not given.
	Value string
	// Trailer, when set, is called at body EOF to fetch the value sent in
	// the trailer. It is nil when the value is not in a trailer.
	Trailer func() string
	// trailerNamed records that x-amz-trailer named the checksum, so that a
	// Reader can insist on a Trailer function being wired.
	trailerNamed bool
}

// InTrailer reports whether x-amz-trailer named the checksum, which means
// the caller must set Trailer before calling NewReader.
func (e Expect) InTrailer() bool { return e.trailerNamed }

// FromHeader builds an Expect from request headers. It reads Content-MD5,
// the x-amz-checksum-<alg> headers (at most one may be present),
// x-amz-sdk-checksum-algorithm and x-amz-trailer. It leaves Trailer nil: the
// caller wires it to the aws-chunked reader's trailer.
//
// FromHeader returns InvalidDigest for a malformed Content-MD5 and
// InvalidRequest for a malformed or conflicting checksum header. It does not
// read x-amz-content-sha256, which pkg/sigv4 validates and the caller copies
// into SHA256Hex when the payload is signed.
func FromHeader(h http.Header) (Expect, error) {
	var e Expect
	if v, ok := h["Content-Md5"]; ok {
		md := strings.Join(v, ",")
		if !validBase64(md, md5.Size) {
			return Expect{}, s3err.New(s3err.InvalidDigest)
		}
		e.ContentMD5 = md
	}

	for _, a := range Algorithms() {
		v, ok := h[http.CanonicalHeaderKey(a.Header())]
		if !ok {
			continue
		}
		if e.Algorithm != None {
			return Expect{}, s3err.Newf(s3err.InvalidRequest,
				"Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
		}
		val := strings.Join(v, ",")
		if !validBase64(val, a.size()) {
			return Expect{}, invalidValue(a)
		}
		e.Algorithm, e.Value = a, val
	}

	if v := h.Get("X-Amz-Sdk-Checksum-Algorithm"); v != "" {
		a, ok := ParseAlgorithm(strings.TrimSpace(v))
		if !ok {
			return Expect{}, s3err.Newf(s3err.InvalidRequest,
				"Value for x-amz-sdk-checksum-algorithm header is invalid.")
		}
		if e.Algorithm != None && e.Algorithm != a {
			return Expect{}, s3err.Newf(s3err.InvalidRequest,
				"Value for x-amz-sdk-checksum-algorithm header is invalid.")
		}
		e.Algorithm = a
	}

	if v := h.Get("X-Amz-Trailer"); v != "" {
		a, err := trailerAlgorithm(v)
		if err != nil {
			return Expect{}, err
		}
		if e.Value != "" {
			return Expect{}, s3err.Newf(s3err.InvalidRequest,
				"Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
		}
		if e.Algorithm != None && e.Algorithm != a {
			return Expect{}, s3err.Newf(s3err.InvalidRequest,
				"Value for x-amz-sdk-checksum-algorithm header is invalid.")
		}
		e.Algorithm = a
		e.trailerNamed = true
	}
	if e.Algorithm != None && e.Value == "" && !e.trailerNamed {
		// Only x-amz-sdk-checksum-algorithm named the algorithm: the
		// client believes it sent a value to verify, and S3 refuses to
		// store the object unverified.
		return Expect{}, s3err.Newf(s3err.InvalidRequest,
			"x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.")
	}
	return e, nil
}

// trailerAlgorithm parses x-amz-trailer. S3 accepts a single checksum name
// there; anything else is refused rather than silently not verified.
func trailerAlgorithm(v string) (Algorithm, error) {
	name := strings.ToLower(strings.TrimSpace(v))
	for _, a := range Algorithms() {
		if name == a.Header() {
			return a, nil
		}
	}
	return None, s3err.Newf(s3err.InvalidRequest,
		"The value specified in the x-amz-trailer header is not supported")
}

// invalidValue is the error S3 answers for a checksum header whose value
// is not base64 of the algorithm's digest length.
func invalidValue(a Algorithm) *s3err.Error {
	return s3err.Newf(s3err.InvalidRequest, "Value for %s header is invalid.", a.Header())
}

// validBase64 reports whether s is standard padded base64 of exactly n bytes.
func validBase64(s string, n int) bool {
	if len(s) != base64.StdEncoding.EncodedLen(n) {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(s)
	return err == nil && len(b) == n
}

// validSHA256Hex reports whether s is 64 hex digits.
func validSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
