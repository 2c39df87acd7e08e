package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// emptySHA256 is the hex SHA-256 of no bytes; the chunk string to sign
// carries it in place of the (absent) chunk headers.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// ChunkVerifier checks the chained signatures of a
// STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER] body. Each chunk's string to
// sign includes the previous signature, starting from the request's seed
// signature, so chunks cannot be dropped, reordered or replayed. It is not
// safe for concurrent use; one body is decoded by one goroutine.
//
// A nil *ChunkVerifier rejects everything, so a caller that wires the
// verifier of an anonymous request fails closed.
type ChunkVerifier struct {
	key     []byte
	amzDate string
	scope   string
	prev    string // hex signature of the previous chunk (or the seed)
	failed  bool
}

// ChunkVerifier returns a verifier for the signed chunks and trailer of a
// streaming body, chained from the seed signature. It returns nil for an
// anonymous Auth; the nil verifier rejects every chunk.
func (a *Auth) ChunkVerifier() *ChunkVerifier {
	if a == nil || a.key == nil {
		return nil
	}
	return &ChunkVerifier{key: a.key, amzDate: a.amzDate, scope: a.scope, prev: a.seed}
}

// VerifyChunk checks signature against the AWS4-HMAC-SHA256-PAYLOAD string
// to sign for a chunk whose SHA-256 is chunkSHA256, and advances the chain.
// It returns SignatureDoesNotMatch on a mismatch; after a mismatch every
// later call fails too, since the chain is broken.
func (c *ChunkVerifier) VerifyChunk(signature string, chunkSHA256 []byte) error {
	if c == nil || c.failed {
		return s3err.New(s3err.SignatureDoesNotMatch)
	}
	var b strings.Builder
	b.Grow(256)
	b.WriteString("AWS4-HMAC-SHA256-PAYLOAD\n")
	c.writePrefix(&b)
	b.WriteString(emptySHA256)
	b.WriteByte('\n')
	b.WriteString(hex.EncodeToString(chunkSHA256))
	return c.check(signature, b.String())
}

// VerifyTrailer checks signature against the AWS4-HMAC-SHA256-TRAILER
// string to sign over trailerBytes: the trailer lines as sent, each
// "name:value" ended by '\n', without the x-amz-trailer-signature line.
func (c *ChunkVerifier) VerifyTrailer(signature string, trailerBytes []byte) error {
	if c == nil || c.failed {
		return s3err.New(s3err.SignatureDoesNotMatch)
	}
	sum := sha256.Sum256(trailerBytes)
	var b strings.Builder
	b.Grow(256)
	b.WriteString("AWS4-HMAC-SHA256-TRAILER\n")
	c.writePrefix(&b)
	b.WriteString(hex.EncodeToString(sum[:]))
	return c.check(signature, b.String())
}

func (c *ChunkVerifier) writePrefix(b *strings.Builder) {
	b.WriteString(c.amzDate)
	b.WriteByte('\n')
	b.WriteString(c.scope)
	b.WriteByte('\n')
	b.WriteString(c.prev)
	b.WriteByte('\n')
}

func (c *ChunkVerifier) check(signature, stringToSign string) error {
	want := hex.EncodeToString(hmacSHA256(c.key, stringToSign))
	if !hmac.Equal([]byte(signature), []byte(want)) {
		c.failed = true
		return s3err.New(s3err.SignatureDoesNotMatch)
	}
	c.prev = want
	return nil
}
