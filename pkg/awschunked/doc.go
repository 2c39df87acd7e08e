// Package awschunked owns decoding of aws-chunked request bodies, the
// framing S3 clients use for streaming uploads:
//
//	<hex-size>[;chunk-signature=<64 hex>]\r\n<data>\r\n ... 0[;chunk-signature=...]\r\n
//	[<name>:<value>\r\n ... [x-amz-trailer-signature:<64 hex>\r\n]]\r\n
//
// It covers the three streaming modes of x-amz-content-sha256:
// STREAMING-AWS4-HMAC-SHA256-PAYLOAD (signed chunks),
// STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER (signed chunks and a signed
// trailer) and STREAMING-UNSIGNED-PAYLOAD-TRAILER (plain chunks and an
// unsigned trailer).
//
// # Invariants
//
//   - Data streams through: chunks are hashed as they pass and never
//     buffered whole, so memory is bounded whatever the chunk size.
//   - A chunk's signature is checked as soon as its last byte has been
//     read, and a failure is returned by that same Read, before any byte of
//     the next chunk. io.EOF is returned only after the final chunk, the
//     trailer and the trailer signature were all verified, and the decoded
//     length matched x-amz-decoded-content-length.
//   - The Reader never returns more bytes than the body holds, and never
//     reads past the end of the aws-chunked message.
//   - Framing is bounded: a chunk header line is at most 4 KiB, the trailer
//     section at most 16 KiB, a chunk size at most 16 hex digits.
//   - A trailer carries only the fields x-amz-trailer announced
//     (Options.TrailerNames), each once; any other field, or a repeated
//     one, is MalformedTrailerError, so no trailer value goes unverified.
//   - Every error is an *s3err.Error, except errors of the underlying
//     reader other than EOF (a network timeout, say), which pass through
//     unchanged so the caller can map them.
//
// # Caveats
//
// Bytes of a chunk whose signature turns out to be wrong have already been
// returned when the error arrives: callers must commit data only after a
// clean io.EOF, which they do anyway for the checksum checks.
//
// The trailer signature is computed over the trailer lines as sent, each
// "name:value" ended by '\n' rather than "\r\n", which is what the AWS SDKs
// sign.
package awschunked
