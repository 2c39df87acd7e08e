// Package policy parses S3 bucket policies and evaluates them for requests
// that carry no credentials.
//
// The gateway enforces exactly the subset of the policy language that
// makes a bucket (or part of one) publicly readable: Allow statements for
// the anonymous principal ("*", {"AWS":"*"} or {"AWS":["*"]}) granting
// s3:GetObject on object resources of the bucket (with IAM's * and ?
// wildcards) and s3:ListBucket on the bucket itself.
//
// # Invariants
//
// Parse rejects, with an s3err MalformedPolicy error naming the element,
// every document that says something the evaluator would not enforce:
// Deny, Condition, NotPrincipal, NotAction, NotResource, any other action
// or principal, another bucket's resources and policy variables. A stored
// policy therefore never grants less, and never more, than it reads.
//
// Parse and Allows are pure functions; a *Policy is immutable and safe for
// concurrent use.
package policy
