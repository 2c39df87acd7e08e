// Package precondition evaluates HTTP conditional request headers against an
// object's ETag and Last-Modified time, with the precedence Amazon S3
// documents for GetObject/HeadObject and for the x-amz-copy-source-if-*
// headers of CopyObject and UploadPartCopy.
//
// Check follows RFC 9110 §13.2.2:
//
//  1. If-Match present and false → 412 PreconditionFailed.
//  2. Else If-Unmodified-Since present and false → 412. When If-Match is
//     present and true, If-Unmodified-Since is not consulted: S3 documents that
//     If-Match true with If-Unmodified-Since false answers 200 with the data.
//  3. If-None-Match present and false (an ETag matches) → 304 NotModified.
//     When If-None-Match is present, If-Modified-Since is not consulted: S3
//     documents that If-None-Match false with If-Modified-Since true answers
//     304.
//  4. Else If-Modified-Since present and the object not modified since → 304.
//
// CheckCopySource applies the same order to the copy-source headers, but
// every failure is 412: S3 never answers 304 to a copy, and documents that
// copy-source-if-none-match false with copy-source-if-modified-since true
// answers 412, while copy-source-if-match true with
// copy-source-if-unmodified-since false copies the data.
//
// RangeApplies decides If-Range (RFC 9110 §13.1.5), which comes after the
// four headers above: a Range is honoured only while the validator still
// names the current object, and otherwise the whole object is sent.
//
// # Comparison rules
//
//   - ETag lists are comma-separated; "*" matches any existing object.
//   - If-Match uses the strong comparison (a W/ tag never matches, because
//     S3 ETags are strong); If-None-Match uses the weak comparison (W/"x"
//     matches "x"), as RFC 9110 §13.1.1 and §13.1.2 require.
//   - Tags are accepted quoted or unquoted, since S3 accepts both and the AWS
//     CLI passes the user's text through verbatim.
//   - Dates are HTTP-dates in any of the three RFC 9110 §5.6.7 formats. A
//     date that does not parse is ignored, as if the header were absent.
//   - Times compare at one-second granularity, because Last-Modified is sent
//     to clients in whole seconds and they echo it back.
//
// # Caveats
//
// The caller decides whether the object exists; these functions assume it
// does. A missing object with If-Match is a 404 (or 412) decided elsewhere.
package precondition
