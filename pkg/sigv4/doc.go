// Package sigv4 owns request authentication with AWS Signature Version 4 as
// S3 speaks it: the Authorization header, presigned URLs (query
// authentication) and the chained signatures of aws-chunked streaming
// bodies.
//
// A Verifier checks a request from its method, raw URL, Host and headers;
// it never reads the body. Payload integrity is the caller's job: Auth
// reports the x-amz-content-sha256 value so the caller can verify a signed
// payload hash (pkg/checksum) or decode a streaming body whose chunks are
// checked by Auth.ChunkVerifier (pkg/awschunked).
//
// # Invariants
//
//   - The canonical URI is derived from the path exactly as the client sent
//     it: never cleaned, percent-decoded once and re-encoded with S3's rule,
//     so "//", "/./" and ".." segments are signed as sent.
//   - Signatures are compared in constant time.
//   - Every error is an *s3err.Error carrying the code S3 answers in the
//     same situation. No path returns success for a request that was not
//     signed with AWS4-HMAC-SHA256, except Auth.Anonymous, which the
//     caller must authorise itself.
//   - Derived signing keys are cached per Verifier (bounded, safe for
//     concurrent use); there is no package-level state.
//
// # Caveats
//
// Go's HTTP server moves the Host header to Request.Host and the
// Transfer-Encoding header to Request.TransferEncoding; the Verifier
// reconstructs both, and content-length from Request.ContentLength when
// the header is absent. A proxy in front of the gateway that rewrites Host
// or the path breaks signatures, exactly as it would against S3.
//
// SignRequest and Presign are small signers for tests and tools; they share
// the canonicalisation code with the Verifier, so tests against an
// independent client (aws-sdk-go-v2) are the real check of correctness.
package sigv4
