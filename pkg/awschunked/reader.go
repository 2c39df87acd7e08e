package awschunked

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"net/http"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Verifier checks chunk and trailer signatures; *sigv4.ChunkVerifier
// satisfies it.
type Verifier interface {
	// VerifyChunk checks the signature of a chunk whose SHA-256 is
	// chunkSHA256 and advances the signature chain.
	VerifyChunk(signature string, chunkSHA256 []byte) error
	// VerifyTrailer checks the signature of the trailer lines.
	VerifyTrailer(signature string, trailerBytes []byte) error
}

// Options configures a Reader.
type Options struct {
	// Verifier checks chunk signatures; nil means the chunks are unsigned
	// (STREAMING-UNSIGNED-PAYLOAD-TRAILER) and chunk extensions are ignored.
	Verifier Verifier
	// Trailer is set when a trailer section follows the final chunk (the
	// -TRAILER modes, whose names come from x-amz-trailer).
	Trailer bool
	// TrailerNames are the fields x-amz-trailer announced, matched without
	// regard to case. A trailer field that is not among them, or that is
	// sent twice, is MalformedTrailerError: the caller verifies only what
	// it announced, so anything else would be stored unverified or, for a
	// repeated checksum, verified against one line while another travelled
	// with it. The trailer signature line is not a field and needs no name.
	TrailerNames []string
	// DecodedLength is x-amz-decoded-content-length, or -1 when absent. A
	// body decoding to a different length is IncompleteBody.
	DecodedLength int64
}

// Limits on framing, so a hostile client cannot make the server buffer
// without bound.
const (
	maxHeaderLine  = 4 << 10
	maxTrailer     = 16 << 10
	maxSizeDigits  = 16
	signatureLen   = 64
	bufferSize     = maxHeaderLine
	trailerSigName = "x-amz-trailer-signature"
)

type state uint8

const (
	stHeader state = iota // expecting a chunk header line
	stData                // inside a chunk's data
	stDone                // io.EOF or an error is sticky
)

// Reader decodes an aws-chunked body. It is not safe for concurrent use.
type Reader struct {
	br  *bufio.Reader
	o   Options
	st  state
	err error

	remaining int64  // bytes left in the current chunk
	sig       string // the current chunk's signature
	h         hash.Hash
	sum       []byte
	decoded   int64
	trailer   http.Header
}

// NewReader returns a Reader decoding body. Its buffer is small (4 KiB):
// large reads bypass it and go straight into the caller's buffer.
func NewReader(body io.Reader, o Options) *Reader {
	r := &Reader{br: bufio.NewReaderSize(body, bufferSize), o: o}
	if o.Verifier != nil {
		r.h = sha256.New()
		r.sum = make([]byte, 0, sha256.Size)
	}
	return r
}

// Trailer returns the trailer fields, with canonical header keys (for
// example X-Amz-Checksum-Crc32). It is valid after Read returned io.EOF
// and empty before.
func (r *Reader) Trailer() http.Header {
	if r.trailer == nil {
		r.trailer = http.Header{}
	}
	return r.trailer
}

// Read returns decoded payload bytes. It returns io.EOF only after the
// whole message was read and verified; see the package documentation for
// the error contract.
func (r *Reader) Read(p []byte) (int, error) {
	for r.st == stHeader {
		if err := r.readHeader(); err != nil {
			return 0, r.fail(err)
		}
	}
	if r.st == stDone {
		return 0, r.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > r.remaining {
		p = p[:r.remaining]
	}
	n, err := r.br.Read(p)
	r.remaining -= int64(n)
	r.decoded += int64(n)
	if r.h != nil {
		r.h.Write(p[:n])
	}
	if r.remaining == 0 {
		// The chunk ended: check its CRLF and signature now, so a bad chunk
		// fails in this Read, before any byte of the next one.
		if err := r.endChunk(); err != nil {
			return n, r.fail(err)
		}
		return n, nil
	}
	if err != nil {
		return n, r.fail(truncated(err))
	}
	return n, nil
}

func (r *Reader) fail(err error) error {
	r.st, r.err = stDone, err
	return err
}

// truncated maps an end of input inside the message to IncompleteBody and
// passes other reader errors through.
func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return s3err.Wrap(s3err.IncompleteBody, io.ErrUnexpectedEOF)
	}
	return err
}

func malformed(detail string) error {
	return s3err.Wrap(s3err.IncompleteBody, errors.New("aws-chunked: "+detail))
}

// readLine reads one line of at most limit bytes and returns it without its
// line ending. A bare '\n' is accepted as well as "\r\n". atEOF reports a
// clean end of input before any byte of the line.
func (r *Reader) readLine(limit int) (line []byte, atEOF bool, err error) {
	line, err = r.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull || len(line) > limit:
		return nil, false, errTooLong
	case err == io.EOF && len(line) == 0:
		return nil, true, nil
	case err != nil:
		return nil, false, truncated(err)
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, false, nil
}

var errTooLong = errors.New("aws-chunked: line too long")

// readHeader parses "<hex-size>[;ext...]" and, for the final chunk, the
// trailer section.
func (r *Reader) readHeader() error {
	line, atEOF, err := r.readLine(maxHeaderLine)
	if err == errTooLong {
		return malformed("chunk header too long")
	}
	if err != nil {
		return err
	}
	if atEOF {
		return truncated(io.EOF)
	}
	sizeField, ext, _ := bytes.Cut(line, []byte{';'})
	size, ok := parseSize(sizeField)
	if !ok {
		return malformed("bad chunk size")
	}
	r.sig = ""
	if r.o.Verifier != nil {
		sig, ok := chunkSignature(ext)
		if !ok {
			return s3err.Newf(s3err.SignatureDoesNotMatch, "The chunk signature is missing or malformed.")
		}
		r.sig = sig
		r.h.Reset()
	}
	if r.o.DecodedLength >= 0 && size > r.o.DecodedLength-r.decoded {
		return malformed("chunks exceed x-amz-decoded-content-length")
	}
	if size > 0 {
		r.remaining = size
		r.st = stData
		return nil
	}
	if err := r.verifyChunk(); err != nil {
		return err
	}
	if err := r.readTrailer(); err != nil {
		return err
	}
	if r.o.DecodedLength >= 0 && r.decoded != r.o.DecodedLength {
		return malformed("body shorter than x-amz-decoded-content-length")
	}
	r.st, r.err = stDone, io.EOF
	return nil
}

// endChunk consumes the CRLF after a chunk's data and verifies it.
func (r *Reader) endChunk() error {
	line, atEOF, err := r.readLine(2)
	if err == errTooLong || (err == nil && !atEOF && len(line) != 0) {
		return malformed("chunk data not followed by CRLF")
	}
	if err != nil {
		return err
	}
	if atEOF {
		return truncated(io.EOF)
	}
	if err := r.verifyChunk(); err != nil {
		return err
	}
	r.st = stHeader
	return nil
}

func (r *Reader) verifyChunk() error {
	if r.o.Verifier == nil {
		return nil
	}
	r.sum = r.h.Sum(r.sum[:0])
	return r.o.Verifier.VerifyChunk(r.sig, r.sum)
}

// readTrailer reads what follows the final chunk: nothing but an empty
// line without a trailer, or "name:value" lines ended by an empty line.
// The final empty line may be missing at EOF, which some clients do.
func (r *Reader) readTrailer() error {
	var signed bytes.Buffer
	var sig string
	total, lines := 0, 0
	for {
		line, atEOF, err := r.readLine(maxTrailer)
		if err == errTooLong {
			return trailerError("trailer too long")
		}
		if err != nil {
			return err
		}
		if atEOF {
			// Only the final empty line may be missing: an announced
			// trailer with no lines, or a signed trailer cut before its
			// signature, is a truncated body.
			if r.o.Trailer && (lines == 0 || (r.o.Verifier != nil && sig == "")) {
				return truncated(io.EOF)
			}
			break
		}
		if len(line) == 0 {
			if r.o.Trailer && r.o.Verifier != nil && lines > 0 && sig == "" {
				// minio-go ends the fields with "\n", then sends an empty
				// line before the signature line: keep reading.
				continue
			}
			break
		}
		lines++
		total += len(line) + 2
		if total > maxTrailer {
			return trailerError("trailer too long")
		}
		if !r.o.Trailer {
			return trailerError("trailing data where no trailer was announced")
		}
		if sig != "" {
			return trailerError("trailer field after the trailer signature")
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok || len(bytes.TrimSpace(name)) == 0 {
			return trailerError("trailer line without a name")
		}
		if strings.EqualFold(string(bytes.TrimSpace(name)), trailerSigName) {
			if r.o.Verifier != nil {
				sig = string(bytes.TrimSpace(value))
				if sig == "" {
					return trailerError("empty trailer signature")
				}
			}
			continue
		}
		key := http.CanonicalHeaderKey(string(bytes.TrimSpace(name)))
		if !r.announced(key) {
			return trailerError("trailer field " + key + " was not announced in x-amz-trailer")
		}
		if _, dup := r.Trailer()[key]; dup {
			return trailerError("trailer field " + key + " sent twice")
		}
		signed.Write(line)
		signed.WriteByte('\n')
		r.Trailer()[key] = []string{string(bytes.TrimSpace(value))}
	}
	if r.o.Trailer && r.o.Verifier != nil {
		if sig == "" {
			return s3err.Newf(s3err.SignatureDoesNotMatch, "The trailer signature is missing.")
		}
		return r.o.Verifier.VerifyTrailer(sig, signed.Bytes())
	}
	return nil
}

// announced reports whether x-amz-trailer named the canonical field key.
func (r *Reader) announced(key string) bool {
	for _, n := range r.o.TrailerNames {
		if strings.EqualFold(strings.TrimSpace(n), key) {
			return true
		}
	}
	return false
}

func trailerError(detail string) error {
	return s3err.Wrap(s3err.MalformedTrailerError, errors.New("aws-chunked: "+detail))
}

// parseSize parses 1 to 16 hex digits into a non-negative int64.
func parseSize(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > maxSizeDigits {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(d)
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

// chunkSignature finds chunk-signature=<64 hex> among the extensions.
func chunkSignature(ext []byte) (string, bool) {
	for len(ext) > 0 {
		var e []byte
		e, ext, _ = bytes.Cut(ext, []byte{';'})
		k, v, _ := bytes.Cut(e, []byte{'='})
		if string(bytes.TrimSpace(k)) != "chunk-signature" {
			continue
		}
		v = bytes.TrimSpace(v)
		if len(v) != signatureLen {
			return "", false
		}
		return string(v), true
	}
	return "", false
}
