// Package postpolicy parses the policy document of a browser POST upload
// (S3's PostObject) and checks a form against it.
//
// A policy is a JSON document with an "expiration" (ISO 8601) and a list
// of "conditions": {"field": "value"} and ["eq", "$field", "value"]
// (exact match), ["starts-with", "$field", "prefix"] and
// ["content-length-range", min, max]. Field names are case-insensitive.
//
// # Invariants
//
// Check accepts a form only if the policy has not expired, every
// condition holds, and every form field except file, policy,
// x-amz-signature and x-ignore-* is named by some condition, as S3
// requires. The content-length-range is not checked by Check (the file
// has not been read yet): callers enforce Range while streaming the file.
// Errors are *s3err.Error: InvalidPolicyDocument for a document that is
// not a valid policy, AccessDenied ("Invalid according to Policy: …") for
// a form that does not satisfy it.
package postpolicy
