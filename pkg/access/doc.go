// Package access decides whether a request may do what it asks, with
// AWS's evaluation logic over the things the gateway knows about a
// bucket and an object: who owns them, the bucket policy, the caller's
// identity policy, the bucket's and the object's ACLs, Object Ownership
// and Block Public Access. It is the one place the S3 rules of who may
// do what live; api asks it once per request (and once per key of a
// DeleteObjects and for the source of a copy) and knows nothing of the
// rules themselves. It also owns the ACL model (acl.go): permissions,
// grantees, the canned ACLs, the grant headers and an ACL's stored form.
//
// # Evaluation
//
// Decide takes the caller (root, a user or anonymous), the AWS action
// name of the operation (ActionOf), the bucket and key, the object's
// owner and ACL when they matter (NeedsObject says when), the request's
// condition keys and the bucket's state, and answers:
//
//  1. Root, the gateway's administrator, is allowed everything. No bucket
//     policy binds it, so that no policy can lock the operator out of a
//     bucket (AWS's account root likewise keeps the right to change a
//     bucket policy that denies it).
//  2. An explicit Deny of the user's identity policy (Input.Identity)
//     denies it, on every bucket, the user's own included: the operator
//     who attached the policy confines the user everywhere.
//  3. An explicit Deny of the bucket policy that applies to the request
//     denies it, whoever the caller is, the bucket's owner included —
//     except the bucket policy operations themselves for the owner, who
//     can always read, replace or delete a policy that denies it.
//  4. The bucket's owner is allowed everything else on its bucket and on
//     the objects it owns — on an object another user owns (Object
//     Ownership ObjectWriter or BucketOwnerPreferred) only what S3 lets a
//     bucket owner do (overwrite, delete, uploads, Object Lock): reading
//     it or its ACL needs a grant of the object's ACL. An Allow of the
//     user's identity policy allows the request on any bucket (the
//     gateway is one account, and in one account an Allow of either the
//     identity or the resource policy suffices).
//  5. An Allow of the bucket policy allows the request — but not an
//     anonymous one when Block Public Access's RestrictPublicBuckets is
//     set and the policy is public (policy.IsPublic): every signed user
//     is an authorized user of the gateway's one account, whom S3's
//     RestrictPublicBuckets still lets the policy grant to; and not an
//     action S3 decides in the object's context (reading an object, its
//     ACL, tags or attributes, writing its ACL or tags) on an object
//     another user than the bucket's owner owns: the policy is the
//     bucket owner's and grants on its objects only (foreignObject).
//  6. An ACL grant allows the request: the bucket's ACL for bucket
//     actions and object writes (READ lists, WRITE writes and deletes,
//     READ_ACP and WRITE_ACP the bucket's ACL), the object's for reading
//     the object and its ACL; an object's owner may always read and
//     write its ACL. AllUsers is anyone, AuthenticatedUsers any signed
//     caller; grants to them count for nothing under IgnorePublicAcls,
//     and no grant counts under BucketOwnerEnforced.
//  7. Anything else is denied (implicitly).
//
// DecideAccount answers the actions on no existing bucket
// (s3:CreateBucket of a new name, s3:ListAllMyBuckets): a user with an
// identity policy needs its Allow; one without keeps the gateway's
// default of creating buckets and listing its own.
//
// # Invariants
//
// Decide is a pure function of its Input; it allocates only the
// resource's ARN, and only for a bucket that has a policy or a caller
// that has an identity policy (and computes the caller's canonical id
// only for an ACL that grants a user). A bucket policy never matches a
// resource outside its bucket (see policy.Evaluate), so a user's policy
// cannot grant on another user's bucket. Every operation the api routes
// has a row in ActionOf's table (TestEveryOperationHasAnAction in api
// checks it). An ACL holds at most MaxGrants grants; its stored form
// reads back unchanged (ParseStored), and lines a later version might
// add are skipped, granting nothing. An ACL without grants is stored as
// NoGrants, never as "", which is a resource that has no ACL of its own
// and is the owner's FULL_CONTROL.
package access
