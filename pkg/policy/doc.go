// Package policy parses and evaluates access policies in the IAM policy
// language as S3 uses it: bucket policies (Parse) and identity policies
// attached to users (ParseIdentity). It is a pure package: it decides
// what one policy says about one request and knows nothing of HTTP, of
// ACLs, of bucket ownership or of how several policies combine; the
// caller supplies the principal, the action, the resource and the
// request's condition keys.
//
// # Grammar
//
// A document is a JSON object with Version ("2012-10-17" or
// "2008-10-17"; without one, "2008-10-17"), an optional Id and Statement,
// one statement object or a non-empty list. A statement has an optional
// Sid (unique in the document), Effect "Allow" or "Deny", and:
//
//   - Principal or NotPrincipal (bucket policies only; identity policies
//     must have neither): "*", or an object of "AWS" ("*", user ARNs
//     arn:aws:iam::ACCOUNT:user/[path/]NAME with ACCOUNT empty for any
//     account, arn:aws:iam::ACCOUNT:root or a bare 12-digit account id
//     for every principal of that account, a 64-hex canonical user id),
//     "CanonicalUser" (64-hex ids), "Service" and "Federated" (accepted,
//     never matched: no such principal reaches the gateway), each a
//     string or a list. Wildcards other than a lone "*" are refused, as
//     are role and other IAM ARNs. NotPrincipal is refused in an Allow
//     statement: IAM supports it with "Effect":"Deny" only.
//   - Action or NotAction: "*" or s3: action names with * and ?
//     wildcards, compared without regard to case. Each must name at
//     least one S3 action the package knows (actions.go); an identity
//     policy may also name other services' actions, which match nothing
//     the gateway does.
//   - Resource or NotResource: "*" or arn:aws:s3:::BUCKET[/KEY] with *
//     and ? wildcards (* crosses '/'), compared with case. In a bucket
//     policy the bucket part must match the policy's bucket.
//   - Condition: operator → key → value or list of values (strings,
//     numbers and booleans). The operators are String{Equals, NotEquals,
//     EqualsIgnoreCase, NotEqualsIgnoreCase, Like, NotLike},
//     Numeric{Equals, NotEquals, LessThan, LessThanEquals, GreaterThan,
//     GreaterThanEquals}, Date{the same six} (ISO 8601 or epoch seconds,
//     to the second), Bool, IpAddress and NotIpAddress (IPv4 and IPv6
//     CIDR blocks or addresses), Null, Arn{Equals, Like, NotEquals,
//     NotLike} (compared part by part between colons; ArnEquals behaves as
//     ArnLike, as in IAM), BinaryEquals (base64 text), each but Null with
//     an IfExists form, each with a ForAnyValue: or ForAllValues: prefix.
//     Key names are compared without regard to case, except the tag key
//     after the '/' of s3:ExistingObjectTag/KEY and its kin. s3: keys must
//     be keys S3 defines; any aws: key is accepted and, if the caller does
//     not supply it, is absent, as in AWS. A bucket policy may use no
//     other service's keys.
//
// Version 2012-10-17 documents may use policy variables in Resource and
// in the values of String and Arn conditions: ${KEY} for any condition
// key (its first value; aws:username and aws:userid fall back to the
// principal's), ${KEY, 'default'}, and the escapes ${*}, ${?} and ${$}. A
// variable's value is literal text, never a wildcard; a variable without
// a value or default matches nothing.
//
// Refusals are *s3err.Error values with code MalformedPolicy and S3's
// messages where S3 has one ("Policy has invalid resource", "Invalid
// principal in policy", "Policy has invalid action", "Action does not
// apply to any resource(s) in statement", "Policy has an invalid condition
// key", "Conditions do not apply to combination of actions and resources
// in statement" (s3:prefix, s3:delimiter and s3:max-keys on anything but
// the listing actions; s3:x-amz-acl and s3:x-amz-grant-* on anything but
// the writes that take an ACL; s3:x-amz-copy-source and
// s3:x-amz-metadata-directive on anything but s3:PutObject; wildcard
// actions are not checked), "Invalid IP address in Conditions", "Invalid
// Condition type : X", "Missing required field Principal", "This policy
// contains invalid Json"), prefixed with the statement's number. A bucket policy is at most MaxSize (20 KB, S3's limit); an
// identity policy at most MaxIdentitySize (2,048) characters not counting
// white space, IAM's limit for the inline policies of a user.
//
// # Evaluation
//
// Evaluate follows AWS's logic within one policy: a statement applies
// when its principal (bucket policies), action, resource and every
// condition match; any applying Deny gives Deny, else any applying Allow
// gives Allow, else NoDecision. Without the key, a positive condition
// operator fails and a negated one (StringNotEquals, NotIpAddress, ...)
// holds; IfExists and ForAllValues: hold, ForAnyValue: fails. Combining
// the Decision with other policies, ACLs and the owner's rights is the
// caller's. Evaluate compiles nothing and allocates nothing: wildcards,
// conditions, addresses and dates are compiled by Parse.
//
// IsPublic applies S3's definition of a public policy for
// GetBucketPolicyStatus and Block Public Access (see its comment).
//
// Allows answers the narrower question the anonymous read paths ask
// (may everyone GetObject this key or ListBucket?) without a condition
// context: an Allow with a Condition does not count, a Deny counts
// whatever its Condition says.
//
// # Invariants
//
// Parse, ParseIdentity, Evaluate, IsPublic and Allows are pure functions;
// a *Policy is immutable and safe for concurrent use. A bucket policy
// never matches a resource outside its own bucket, whatever its patterns
// say, so a policy cannot grant on a bucket its author does not own.
// Every wildcard match runs in O(len(pattern)·len(subject)) without
// recursion.
//
// # Caveats
//
// S3 checks that the principals a policy names exist; Parse checks only
// their form. Date conditions compare whole seconds. IsPublic does not
// weigh S3's "bad actions" nuance: a grant to everyone of any action is
// public.
package policy
