// Package checksum owns payload integrity for uploads: the Content-MD5
// header, the x-amz-content-sha256 digest and the x-amz-checksum-*
// algorithms (CRC32, CRC32C, CRC64NVME, SHA1, SHA256, SHA512, MD5,
// XXHASH64, XXHASH3, XXHASH128).
//
// FromHeader turns request headers into an Expect, and NewReader wraps a
// decoded body so that every digest the request asks for is computed in the
// same pass that moves the bytes. The Reader verifies at EOF and replaces
// io.EOF with the S3 error when a digest does not match, so a caller that
// commits only after a clean io.EOF never stores a corrupted object.
//
// # Invariants
//
//   - MD5 is always computed, because S3 derives the ETag from it.
//   - SHA-256 is computed only when the request names a digest to check or
//     asks for the SHA256 checksum; one hash serves both.
//   - Exactly one x-amz-checksum-* algorithm is computed: the one requested,
//     or CRC64NVME when none was, since S3 stores CRC64NVME by default.
//   - Every error returned to a client is an *s3err.Error.
//
// # Caveats
//
// The Reader does not decode aws-chunked bodies; wrap the output of
// pkg/awschunked, and wire Expect.Trailer to that reader's trailer so the
// checksum that travels after the body can be checked at EOF.
package checksum
