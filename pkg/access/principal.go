package access

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/objectgateway/objectgateway/pkg/policy"
)

// CanonicalID is the canonical user id S3 shows for an access key: the
// hex SHA-256 of the key id, so that it is stable and reveals nothing.
func CanonicalID(accessKey string) string {
	sum := sha256.Sum256([]byte(accessKey))
	return hex.EncodeToString(sum[:])
}

// NewCaller returns the caller that signed with accessKey, root or not;
// an empty key is anonymous.
func NewCaller(accessKey string, root bool) Caller {
	switch {
	case accessKey == "":
		return Caller{Kind: policy.Anonymous}
	case root:
		return Caller{Kind: policy.Root, AccessKey: accessKey}
	}
	return Caller{Kind: policy.User, AccessKey: accessKey}
}

// Principal returns the caller in the terms a policy's Principal element
// names it. A user is named by its access key id, the one name of a user
// that is unique and never changes: arn:aws:iam:::user/ACCESSKEY (the
// gateway has no account id, so an ARN that names one matches no user);
// aws:username and aws:userid are the access key id, and the canonical
// user id is CanonicalID's.
func (c Caller) Principal() policy.Principal {
	switch c.Kind {
	case policy.Root:
		return policy.Principal{Kind: policy.Root, ARN: "arn:aws:iam:::root", CanonicalID: CanonicalID(c.AccessKey)}
	case policy.User:
		return policy.Principal{
			Kind:        policy.User,
			ARN:         "arn:aws:iam:::user/" + c.AccessKey,
			CanonicalID: CanonicalID(c.AccessKey),
			Username:    c.AccessKey,
			UserID:      c.AccessKey,
		}
	}
	return policy.Principal{Kind: policy.Anonymous}
}

// PrincipalType is the value of aws:PrincipalType for the caller.
func (c Caller) PrincipalType() string {
	switch c.Kind {
	case policy.Root:
		return "Account"
	case policy.User:
		return "User"
	}
	return "Anonymous"
}
