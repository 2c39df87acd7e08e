package api

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/awschunked"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// The x-amz-content-sha256 values that name a payload mode rather than a
// digest.
const (
	unsignedPayload          = "UNSIGNED-PAYLOAD"
	streamingSigned          = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	streamingSignedTrailer   = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	streamingUnsignedTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
	streamingECDSA           = "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD"
	streamingECDSATrailer    = "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER"
)

// payload returns the request body decoded from its transfer mode, the
// number of bytes it must yield (-1 when the client did not say), and the
// digests to verify while it is read: Content-MD5, x-amz-checksum-* from a
// header or the trailer, and the signed payload hash.
func payload(r *http.Request, a *sigv4.Auth) (io.Reader, int64, checksum.Expect, error) {
	expect, err := checksum.FromHeader(r.Header)
	if err != nil {
		return nil, 0, expect, err
	}
	mode := a.PayloadHash
	if expect.InTrailer() && mode != streamingSignedTrailer && mode != streamingUnsignedTrailer {
		return nil, 0, expect, s3err.Newf(s3err.InvalidRequest, "The x-amz-trailer header requires a STREAMING-*-TRAILER payload.")
	}
	switch mode {
	case unsignedPayload, "":
		return r.Body, r.ContentLength, expect, nil
	case streamingSigned, streamingSignedTrailer, streamingUnsignedTrailer:
		decoded := int64(-1)
		if v := r.Header.Get("X-Amz-Decoded-Content-Length"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, 0, expect, s3err.Newf(s3err.InvalidArgument, "x-amz-decoded-content-length is not a valid length")
			}
			decoded = n
		}
		opts := awschunked.Options{DecodedLength: decoded, Trailer: mode != streamingSigned}
		if expect.InTrailer() {
			// FromHeader accepts exactly one checksum name in x-amz-trailer;
			// the reader refuses every other trailer field.
			opts.TrailerNames = []string{expect.Algorithm.Header()}
		}
		if mode != streamingUnsignedTrailer {
			opts.Verifier = a.ChunkVerifier()
		}
		cr := awschunked.NewReader(r.Body, opts)
		if opts.Trailer && expect.InTrailer() {
			name := expect.Algorithm.Header()
			expect.Trailer = func() string { return cr.Trailer().Get(name) }
		}
		return cr, decoded, expect, nil
	case streamingECDSA, streamingECDSATrailer:
		return nil, 0, expect, s3err.Newf(s3err.NotImplemented, "SigV4a (ECDSA) signed payloads are not supported.")
	default:
		// sigv4 accepted it, so it is a hex SHA-256 of the body.
		expect.SHA256Hex = strings.ToLower(mode)
		return r.Body, r.ContentLength, expect, nil
	}
}

// sizedPayload is payload for the bodies S3 needs the length of up front
// (PutObject, UploadPart): a body of unknown length is MissingContentLength,
// and so, as in S3, is a request that states no length at all, neither
// Content-Length nor Transfer-Encoding, which net/http reads as an empty
// body (curl -X PUT without a body sends one).
func sizedPayload(r *http.Request, a *sigv4.Auth) (io.Reader, int64, checksum.Expect, error) {
	body, size, expect, err := payload(r, a)
	if err == nil && (size < 0 || size == 0 && lengthUnstated(r)) {
		err = s3err.New(s3err.MissingContentLength)
	}
	return body, size, expect, err
}

// lengthUnstated reports whether r came without Content-Length and
// without Transfer-Encoding.
func lengthUnstated(r *http.Request) bool {
	return r.ContentLength == 0 && len(r.TransferEncoding) == 0 && len(r.Header.Values("Content-Length")) == 0
}

// storedContentEncoding removes the aws-chunked transfer coding, which
// describes the request, not the object.
func storedContentEncoding(v string) string {
	if !strings.Contains(v, "aws-chunked") {
		return v
	}
	var keep []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" && p != "aws-chunked" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, ",")
}
