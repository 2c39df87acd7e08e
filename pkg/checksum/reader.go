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

// Digest hashes a body written to it in pieces and, at Finish, verifies
// the expected digests. It is what Reader hashes with; a caller that wants
// to hash on another goroutine than the one reading the body (a pipelined
// copy) uses it directly. It is not safe for concurrent use.
type Digest struct {
	e   Expect
	alg Algorithm

	md5    hash.Hash
	sha256 hash.Hash // nil unless SHA256Hex is set or alg is SHA256
	sum    hash.Hash // the checksum algorithm's hash; may be md5 or sha256

	md5Sum []byte
	value  string
}

// NewDigest returns a Digest that verifies e. It returns InvalidDigest or
// InvalidRequest when e carries malformed values (an Expect built by
// FromHeader never does), InvalidArgument for a SHA256Hex that is not 64
// hex digits, and InternalError when x-amz-trailer named the checksum but
// no Trailer function was wired, because that would skip verification
// silently.
func NewDigest(e Expect) (*Digest, error) {
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
	d := &Digest{e: e, alg: e.Algorithm, md5: md5.New()}
	if d.alg == None {
		d.alg = CRC64NVME
	}
	if e.SHA256Hex != "" || d.alg == SHA256 {
		d.sha256 = sha256.New()
	}
	// The ETag's MD5 and the signed SHA-256 serve the checksum of the
	// same algorithm: each byte is hashed once per algorithm.
	switch d.alg {
	case SHA256:
		d.sum = d.sha256
	case MD5:
		d.sum = d.md5
	default:
		d.sum = d.alg.New()
	}
	return d, nil
}

// Write hashes b; it never fails.
func (d *Digest) Write(b []byte) (int, error) {
	d.md5.Write(b)
	if d.sha256 != nil {
		d.sha256.Write(b)
	}
	if d.sum != d.sha256 && d.sum != d.md5 {
		d.sum.Write(b)
	}
	return len(b), nil
}

// Finish computes the final digests once the whole body was written, and
// compares them with the expected ones in the order S3 reports them:
// Content-MD5, then the checksum (from its header, or from the trailer,
// which must have been read by now), then the signed SHA-256. It returns
// nil when all match.
func (d *Digest) Finish() error {
	d.md5Sum = d.md5.Sum(nil)
	sum := d.sum.Sum(nil)
	if d.sum == d.md5 {
		sum = d.md5Sum
	}
	d.value = base64.StdEncoding.EncodeToString(sum)

	if d.e.ContentMD5 != "" {
		want, _ := base64.StdEncoding.DecodeString(d.e.ContentMD5)
		if !bytes.Equal(want, d.md5Sum) {
			return s3err.Newf(s3err.BadDigest, "The Content-MD5 you specified did not match what we received.")
		}
	}

	want := d.e.Value
	if d.e.Trailer != nil {
		want = strings.TrimSpace(d.e.Trailer())
		if want == "" {
			return s3err.Newf(s3err.MalformedTrailerError,
				"The request contained trailing data that was not well-formed or did not conform to our published schema. Missing %s in the trailer.", d.alg.Header())
		}
		if !validBase64(want, d.alg.size()) {
			return s3err.Newf(s3err.InvalidRequest, "Value for %s trailing header is invalid.", d.alg.Header())
		}
	}
	if want != "" {
		wb, _ := base64.StdEncoding.DecodeString(want)
		if !bytes.Equal(wb, sum) {
			return s3err.Newf(s3err.BadDigest, "The %s you specified did not match the calculated checksum.", d.alg)
		}
	}

	if d.e.SHA256Hex != "" {
		wb, _ := hex.DecodeString(d.e.SHA256Hex)
		if !bytes.Equal(wb, d.sha256.Sum(nil)) {
			return s3err.New(s3err.XAmzContentSHA256Mismatch)
		}
	}
	return nil
}

// MD5 returns the MD5 digest of the body, or nil before Finish.
func (d *Digest) MD5() []byte { return d.md5Sum }

// Checksum returns the algorithm computed and its base64 value, valid after
// Finish: the requested algorithm, or CRC64NVME when none was requested.
// Before Finish the value is "".
func (d *Digest) Checksum() (Algorithm, string) { return d.alg, d.value }

// Reader hashes a body as it is read and verifies the expected digests at
// EOF. It is not safe for concurrent use.
type Reader struct {
	r   io.Reader
	d   *Digest
	err error // sticky: the final error (io.EOF or a verification error)
}

// NewReader returns a Reader over r that verifies e; its errors are
// NewDigest's.
func NewReader(r io.Reader, e Expect) (*Reader, error) {
	d, err := NewDigest(e)
	if err != nil {
		return nil, err
	}
	return &Reader{r: r, d: d}, nil
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
		r.d.Write(p[:n])
	}
	switch {
	case err == io.EOF:
		r.err = io.EOF
		if ferr := r.d.Finish(); ferr != nil {
			r.err = ferr
		}
		return n, r.err
	case err != nil:
		r.err = err
	}
	return n, err
}

// MD5 returns the MD5 digest of the body, or nil before EOF.
func (r *Reader) MD5() []byte { return r.d.MD5() }

// Checksum returns the algorithm computed and its base64 value, valid after
// EOF: the requested algorithm, or CRC64NVME when none was requested.
// Before EOF the value is "".
func (r *Reader) Checksum() (Algorithm, string) { return r.d.Checksum() }
