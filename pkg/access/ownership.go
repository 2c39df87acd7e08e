package access

import "github.com/objectgateway/objectgateway/pkg/policy"

// Ownership is a bucket's Object Ownership setting
// (PutBucketOwnershipControls).
type Ownership uint8

// The Object Ownership settings. ObjectWriter, the zero value, is also
// what a bucket without ownership controls does.
const (
	// ObjectWriter: the user who writes an object owns it, and ACLs are
	// in force.
	ObjectWriter Ownership = iota
	// BucketOwnerPreferred: as ObjectWriter, but an object written with
	// the canned ACL bucket-owner-full-control is owned by the bucket's
	// owner.
	BucketOwnerPreferred
	// BucketOwnerEnforced: ACLs are disabled. The bucket's owner owns
	// every object, ACLs grant nothing, and writes of ACLs other than
	// the owner's own full control are refused.
	BucketOwnerEnforced
)

var ownershipNames = [...]string{ObjectWriter: "ObjectWriter", BucketOwnerPreferred: "BucketOwnerPreferred", BucketOwnerEnforced: "BucketOwnerEnforced"}

func (o Ownership) String() string {
	if int(o) < len(ownershipNames) {
		return ownershipNames[o]
	}
	return ""
}

// ParseOwnership reads an ObjectOwnership value; ok is false for anything
// else.
func ParseOwnership(s string) (Ownership, bool) {
	for i, n := range ownershipNames {
		if n == s {
			return Ownership(i), true
		}
	}
	return 0, false
}

// Object is what Decide needs of the addressed object, for the actions
// its ACL decides: its owner and its ACL.
type Object struct {
	// Owner is the access key of the user who owns the object; empty
	// means the bucket's owner (objects written before objects had
	// owners, and imported files).
	Owner string
	// ACL is the object's parsed ACL; nil is the owner's FULL_CONTROL
	// alone, an ACL without grants grants no one (the owner keeps what
	// Decide gives it without a grant).
	ACL *ACL
}

// objectOwner is the access key of the owner of in's object: the
// bucket's owner under BucketOwnerEnforced or when the object names none.
func objectOwner(in *Input) string {
	if in.Object == nil || in.Object.Owner == "" || in.Bucket.Ownership == BucketOwnerEnforced {
		return in.Bucket.Owner
	}
	return in.Object.Owner
}

// bucketOwnerMay reports whether the bucket's owner may perform in's
// action (a policy's Deny aside): anything on its bucket and on the
// objects it owns, and on objects other users own what S3 lets the
// bucket owner do (bucketOwnerObjectAction).
func bucketOwnerMay(in *Input) bool {
	if in.Key == "" || in.Object == nil || objectOwner(in) == in.Bucket.Owner {
		return true
	}
	return bucketOwnerObjectAction(in.Action)
}

// foreignObject reports whether in asks for an object action that S3
// decides in the object's context (reading the object, its ACL, tags or
// attributes, or writing its ACL or tags) on an object another user than
// the bucket's owner owns. The bucket policy is the bucket owner's: it
// may deny such an action, but its Allow grants only on the owner's own
// objects; an object someone else owns is granted by its ACL (and its
// owner's rights), as S3 has it for an object of another account.
func foreignObject(in *Input) bool {
	return in.Key != "" && in.Object != nil && objectOwner(in) != in.Bucket.Owner && !bucketOwnerObjectAction(in.Action)
}

// aclAllows reports whether the bucket's or the object's ACL grants in's
// action to the caller. Under BucketOwnerEnforced ACLs grant nothing;
// under IgnorePublicAcls their grants to everyone count for nothing. An
// object's owner may always read and write its ACL, as S3's resource
// owners may.
func aclAllows(in *Input) bool {
	b := in.Bucket
	if b.Ownership == BucketOwnerEnforced {
		return false
	}
	c := in.Caller
	var id string
	cid := func() string {
		if id == "" {
			id = CanonicalID(c.AccessKey)
		}
		return id
	}
	public := !b.Block.IgnorePublicAcls
	if p, ok := bucketPermission(in.Action); ok && (in.Key == "" || p == Write) {
		acl := b.ACL
		if acl == nil {
			return false
		}
		return acl.allows(c, cid, p, public)
	}
	p, ok := objectPermission(in.Action)
	if !ok || in.Key == "" || in.Object == nil {
		return false
	}
	if c.Kind != policy.Anonymous && c.AccessKey != "" && c.AccessKey == objectOwner(in) {
		if p == ReadACP || p == WriteACP || in.Object.ACL == nil {
			return true
		}
	}
	if in.Object.ACL == nil {
		return false
	}
	return in.Object.ACL.allows(c, cid, p, public)
}

// NeedsObject reports whether Decide's answer d to in, asked without
// in.Object, may change once the object's owner and ACL are given: a
// denied read of an object or its ACL, which the object's ACL (or its
// owner's rights) may allow, and the reads that the bucket's owner, or
// its bucket policy, may allow only on objects that are not another
// user's (foreignObject). The caller then reads the object and asks
// again; objects that do not exist stay decided by d.
func NeedsObject(in *Input, d Decision) bool {
	b := in.Bucket
	if in.Key == "" || in.Object != nil || d == ExplicitDeny || b.Ownership == BucketOwnerEnforced {
		return false
	}
	if d == Allowed {
		if in.Caller.Kind == policy.Root || bucketOwnerObjectAction(in.Action) {
			return false
		}
		return (in.Caller.Kind == policy.User && in.Caller.AccessKey == b.Owner) || b.Policy != nil
	}
	_, ok := objectPermission(in.Action)
	return ok
}
