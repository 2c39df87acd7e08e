// Package sigv2 owns request authentication with AWS Signature Version 2
// as S3 speaks it: the "AWS AccessKeyId:Signature" Authorization header,
// query-string authentication (AWSAccessKeyId, Expires and Signature, the
// presigned URLs of older clients) and the signature of a V2 browser POST
// policy.
//
// A Verifier checks a request from its method, raw URL and headers; it
// never reads the body. Signature Version 2 signs no payload: the caller
// checks Content-MD5 (or a signed x-amz-content-sha256 digest) as it
// would for any unsigned body.
//
// # Invariants
//
//   - The string to sign is AWS's: the verb, Content-MD5, Content-Type,
//     Date (or Expires for a presigned URL; empty when x-amz-date is
//     given), the canonicalised x-amz-* headers and the canonicalised
//     resource, whose path is the raw path exactly as the client sent it.
//   - Signatures are HMAC-SHA1, base64, compared in constant time.
//   - Every error is an *s3err.Error carrying the code S3 answers in the
//     same situation. There is no package-level state.
//
// # Caveats
//
// HMAC-SHA1 is weaker than Version 4's HMAC-SHA256 with derived keys, and
// nothing binds the body to the signature. Operators who want only
// Version 4 turn this package off (the --sigv2=false flag of
// cmd/objectgateway); requests signed with Version 2 then get S3's own
// refusal.
//
// The set of signed sub-resources is the union of what S3 documents and
// what botocore, s3cmd and minio-go sign. A sub-resource one client signs
// and another does not cannot satisfy both; such a request fails with
// SignatureDoesNotMatch, as it would against S3.
package sigv2
