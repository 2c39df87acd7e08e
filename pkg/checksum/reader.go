package checksum

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"io"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Reader hashes a body as it is read and verifies the expected digests at
// EOF. It is not safe for concurrent use.
type Reader struct {
	r   io.Reader
	e   Expect
	alg Algorithm

	md5    hash.Hash
	sha256 hash.Hash // nil unless SHA256Hex is set or alg is SHA256
	sum    hash.Hash // the checksum algorithm's hash; may be sha256

	md5Sum []byte
	value  string
	err    error // sticky: the final error (io.EOF or a verification error)
}

// NewReader returns a Reader over r that verifies e. It returns
// InvalidDigest or InvalidRequest when e carries malformed values (an Expect
// built by FromHeader never does), InvalidArgument for a SHA256Hex that is
// not 64 hex digits, and InternalError when x-amz-trailer named the
// checksum but no Trailer function was wired, because that would skip
// verification silently.
func NewReader(r io.Reader, e Expect) (*Reader, error) {
	if e.ContentMD5 != "" && !validBase64(e.ContentMD5, md5.Size) {
		return nil, s3err.New(s3err.InvalidDigest)
	}
	if e.SHA256Hex != "" && !validSHA256Hex(e.SHA256Hex) {
		return nil, s3err.Newf(s3err.InvalidArgument, "x-amz-content-sha256 must be a valid sha256 value.")
	}
	if e.Value != "" && !validBase64(e.Value, e.Algorithm.size()) {
		return nil, invalidValue(e.Algorithm)
	}
	if e.trailerNamed && e.Trailer == nil {
		return nil, s3err.Newf(s3err.InternalError, "checksum: x-amz-trailer named %s but no trailer reader was wired", e.Algorithm.Header())
	}
	cr := &Reader{r: r, e: e, alg: e.Algorithm, md5: md5.New()}
	if cr.alg == None {
		cr.alg = CRC64NVME
	}
	if e.SHA256Hex != "" || cr.alg == SHA256 {
		cr.sha256 = sha256.New()
	}
	if cr.alg == SHA256 {
		cr.sum = cr.sha256
	} else {
		cr.sum = cr.alg.New()
	}
	return cr, nil
}

// Read reads from the underlying reader, hashing what it returns. At EOF it
// verifies every expected digest and returns the first mismatch (BadDigest,
// XAmzContentSHA256Mismatch) instead of io.EOF. Errors are sticky.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.r.Read(p)
	if n > 0 {
		b := p[:n]
		r.md5.Write(b)
		if r.sha256 != nil {
			r.sha256.Write(b)
		}
		if r.sum != r.sha256 {
			r.sum.Write(b)
		}
	}
	switch {
	case err == io.EOF:
		r.err = r.finish()
		return n, r.err
	case err != nil:
		r.err = err
	}
	return n, err
}

// finish computes the final digests and compares them, in the order S3
// reports them: Content-MD5, then the checksum, then the signed SHA-256.
func (r *Reader) finish() error {
	r.md5Sum = r.md5.Sum(nil)
	sum := r.sum.Sum(nil)
	r.value = base64.StdEncoding.EncodeToString(sum)

	if r.e.ContentMD5 != "" {
		want, _ := base64.StdEncoding.DecodeString(r.e.ContentMD5)
		if !bytes.Equal(want, r.md5Sum) {
			return s3err.Newf(s3err.BadDigest, "The Content-MD5 you specified did not match what we received.")
		}
	}

	want := r.e.Value
	if r.e.Trailer != nil {
		want = strings.TrimSpace(r.e.Trailer())
		if want == "" {
			return s3err.Newf(s3err.MalformedTrailerError,
				"The request contained trailing data that was not well-formed or did not conform to our published schema. Missing %s in the trailer.", r.alg.Header())
		}
		if !validBase64(want, r.alg.size()) {
			return s3err.Newf(s3err.InvalidRequest, "Value for %s trailing header is invalid.", r.alg.Header())
		}
	}
	if want != "" {
		wb, _ := base64.StdEncoding.DecodeString(want)
		if !bytes.Equal(wb, sum) {
			return s3err.Newf(s3err.BadDigest, "The %s you specified did not match the calculated checksum.", r.alg)
		}
	}

	if r.e.SHA256Hex != "" {
		wb, _ := hex.DecodeString(r.e.SHA256Hex)
		if !bytes.Equal(wb, r.sha256.Sum(nil)) {
			return s3err.New(s3err.XAmzContentSHA256Mismatch)
		}
	}
	return io.EOF
}

// MD5 returns the MD5 digest of the body, or nil before EOF.
func (r *Reader) MD5() []byte { return r.md5Sum }

// Checksum returns the algorithm computed and its base64 value, valid after
// EOF: the requested algorithm, or CRC64NVME when none was requested.
// Before EOF the value is "".
func (r *Reader) Checksum() (Algorithm, string) { return r.alg, r.value }
