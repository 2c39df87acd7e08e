package access

import "github.com/objectgateway/objectgateway/pkg/policy"

// Caller is who made a request.
type Caller struct {
	// Kind is policy.Root, policy.User or policy.Anonymous.
	Kind policy.PrincipalKind
	// AccessKey is the access key id that signed the request (empty for
	// an anonymous one).
	AccessKey string
}

// Bucket is what Decide needs of the addressed bucket.
type Bucket struct {
	Name string
	// Owner is the access key of the bucket's owner; empty means the root
	// user alone owns it.
	Owner string
	// Policy is the parsed bucket policy, nil for none.
	Policy *policy.Policy
	// ACL is the bucket's parsed ACL; nil is the owner's FULL_CONTROL
	// alone, an ACL without grants grants no one (the owner keeps what
	// Decide gives it without a grant).
	ACL *ACL
	// Ownership is the bucket's Object Ownership.
	Ownership Ownership
	// Block is the bucket's Block Public Access configuration.
	Block PublicAccessBlock
}

// PublicAccessBlock is S3's Block Public Access for one bucket. Decide
// enforces IgnorePublicAcls and RestrictPublicBuckets; BlockPublicAcls and
// BlockPublicPolicy refuse the writes that would make the bucket public,
// which the api checks (see RefusesPolicy and RefusesACL).
type PublicAccessBlock struct {
	BlockPublicAcls, IgnorePublicAcls, BlockPublicPolicy, RestrictPublicBuckets bool
}

// RefusesPolicy reports whether PutBucketPolicy of p must be refused:
// BlockPublicPolicy is set and p is public (policy.IsPublic).
func (b PublicAccessBlock) RefusesPolicy(p *policy.Policy) bool {
	return b.BlockPublicPolicy && p.IsPublic()
}

// RefusesACL reports whether the write of an ACL must be refused:
// BlockPublicAcls is set and the ACL is public (ACL.Public: it grants
// AllUsers or AuthenticatedUsers anything).
func (b PublicAccessBlock) RefusesACL(a *ACL) bool {
	return b.BlockPublicAcls && a != nil && a.Public()
}

// Input is one question: may Caller perform Action on Bucket (and Key)?
type Input struct {
	Caller Caller
	// Principal is Caller.Principal(), which the caller builds only when
	// the bucket has a policy (it allocates) and may keep for the
	// request's other questions.
	Principal policy.Principal
	// Action is the AWS action name, as "s3:GetObject"; see ActionOf.
	Action string
	Bucket *Bucket
	// Key is the object key for object actions, empty for bucket actions.
	Key string
	// Object is the addressed object's owner and ACL, for the object
	// actions an ACL decides (reading the object or its ACL) and for the
	// bucket owner's rights over objects others own; nil when the object
	// was not read (it does not exist yet, or the action is decided
	// without it).
	Object *Object
	// Conditions are the request's condition keys; nil has none.
	Conditions policy.Conditions
	// Identity is the caller's identity policy (a user's; see
	// policy.ParseIdentity), nil for none. It binds only a Caller of
	// Kind policy.User.
	Identity *policy.Policy
	// Initiator is the access key that initiated the multipart upload
	// an AbortMultipartUpload or ListParts addresses, "" when unknown
	// (or anonymous): as S3's initiator, it may abort the upload and
	// list its parts.
	Initiator string
}

// Decision is Decide's answer.
type Decision uint8

const (
	// ImplicitDeny means nothing allows the request.
	ImplicitDeny Decision = iota
	// Allowed means the request may proceed.
	Allowed
	// ExplicitDeny means a policy statement denies the request.
	ExplicitDeny
)

func (d Decision) String() string {
	switch d {
	case Allowed:
		return "Allowed"
	case ExplicitDeny:
		return "ExplicitDeny"
	}
	return "ImplicitDeny"
}

// Decide answers in, following the order in the package documentation.
func Decide(in *Input) Decision {
	c, b := in.Caller, in.Bucket
	if c.Kind == policy.Root {
		return Allowed
	}
	owner := c.Kind == policy.User && b.Owner != "" && b.Owner == c.AccessKey
	identity := in.Identity != nil && c.Kind == policy.User
	pd, id := policy.NoDecision, policy.NoDecision
	if b.Policy != nil || identity {
		r := policy.Request{Principal: in.Principal, Action: in.Action, Resource: resourceARN(b.Name, in.Key), Conditions: in.Conditions}
		pd = b.Policy.Evaluate(&r) // nil has no decision
		if identity {
			id = in.Identity.Evaluate(&r)
		}
	}
	switch {
	case id == policy.Deny:
		return ExplicitDeny
	case pd == policy.Deny && !(owner && isPolicyAction(in.Action)):
		return ExplicitDeny
	case owner && bucketOwnerMay(in), id == policy.Allow, initiatorMay(in):
		return Allowed
	case pd == policy.Allow && !foreignObject(in) && !(c.Kind == policy.Anonymous && b.Block.RestrictPublicBuckets && b.Policy.IsPublic()):
		return Allowed
	case aclAllows(in):
		return Allowed
	}
	return ImplicitDeny
}

// initiatorMay reports whether the caller initiated the multipart upload
// in addresses and asks to abort it or list its parts, which S3 lets an
// upload's initiator do without a grant.
func initiatorMay(in *Input) bool {
	switch in.Action {
	case "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts":
		return in.Caller.Kind == policy.User && in.Initiator != "" && in.Initiator == in.Caller.AccessKey
	}
	return false
}

// DecideAccount answers a question about an action on no bucket of the
// gateway: s3:CreateBucket of a bucket that does not exist (in.Bucket
// names it, with no Owner or policy) and s3:ListAllMyBuckets (in.Bucket
// nil). Root is allowed; anonymous callers are not. A user without an
// identity policy may (every user may create buckets and list its own, as
// before identity policies existed); a user with one is an IAM user as
// AWS has it: only its policy's Allow, and no Deny, lets it. The
// resource is the bucket's ARN, or "*" for ListAllMyBuckets.
func DecideAccount(in *Input) Decision {
	switch in.Caller.Kind {
	case policy.Root:
		return Allowed
	case policy.Anonymous:
		return ImplicitDeny
	}
	if in.Identity == nil {
		return Allowed
	}
	res := "*"
	if in.Bucket != nil {
		res = resourceARN(in.Bucket.Name, "")
	}
	r := policy.Request{Principal: in.Principal, Action: in.Action, Resource: res, Conditions: in.Conditions}
	switch in.Identity.Evaluate(&r) {
	case policy.Allow:
		return Allowed
	case policy.Deny:
		return ExplicitDeny
	}
	return ImplicitDeny
}

// resourceARN is the ARN a policy's Resource is matched against. It
// allocates; policies are evaluated only for buckets that have one.
func resourceARN(bucket, key string) string {
	if key == "" {
		return "arn:aws:s3:::" + bucket
	}
	return "arn:aws:s3:::" + bucket + "/" + key
}

// isPolicyAction reports whether action manages the bucket policy, which
// the owner may always do.
func isPolicyAction(action string) bool {
	switch action {
	case "s3:GetBucketPolicy", "s3:PutBucketPolicy", "s3:DeleteBucketPolicy":
		return true
	}
	return false
}
