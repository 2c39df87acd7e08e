package access

import (
	"strings"

	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Permission is an ACL permission, as S3 names them.
type Permission uint8

// The ACL permissions. FullControl is all four others.
const (
	Read Permission = 1 + iota
	Write
	ReadACP
	WriteACP
	FullControl
)

var permissionNames = [...]string{Read: "READ", Write: "WRITE", ReadACP: "READ_ACP", WriteACP: "WRITE_ACP", FullControl: "FULL_CONTROL"}

// permissionLetters are the permissions in an ACL's stored form.
var permissionLetters = [...]byte{Read: 'R', Write: 'W', ReadACP: 'r', WriteACP: 'w', FullControl: 'F'}

func (p Permission) String() string {
	if int(p) < len(permissionNames) {
		return permissionNames[p]
	}
	return ""
}

// ParsePermission reads an S3 permission name; ok is false for anything
// else.
func ParsePermission(s string) (Permission, bool) {
	for p, n := range permissionNames {
		if n != "" && n == s {
			return Permission(p), true
		}
	}
	return 0, false
}

// covers reports whether a grant of p gives want.
func (p Permission) covers(want Permission) bool {
	return p == want || p == FullControl
}

// The group grantees S3 knows, by URI.
const (
	AllUsers           = "http://acs.amazonaws.com/groups/global/AllUsers"
	AuthenticatedUsers = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"
	LogDelivery        = "http://acs.amazonaws.com/groups/s3/LogDelivery"
)

// MaxGrants is the most grants an ACL may hold, S3's limit.
const MaxGrants = 100

// Grantee kinds. An EmailAddress grantee is resolved to the canonical id
// of the user who has that email when the ACL is written, as S3 does, and
// stored (and shown) as that CanonicalUser.
const (
	CanonicalUser = "CanonicalUser"
	Group         = "Group"
	EmailAddress  = "AmazonCustomerByEmail"
)

// Grant is one grant of an ACL: a permission to a canonical user (ID is
// its canonical id, see CanonicalID) or to a group (ID is its URI).
type Grant struct {
	Group      bool
	ID         string
	Permission Permission
}

// ACL is the access control list of a bucket or an object, without its
// owner (the record's owner is kept beside it). Its zero value grants
// nothing, as an AccessControlPolicy with an empty AccessControlList
// asks; a resource without a stored ACL is treated as the canned private
// one (the owner's FULL_CONTROL).
type ACL struct {
	Grants []Grant
}

// Public reports whether the ACL grants anything to AllUsers or
// AuthenticatedUsers, which is what S3's Block Public Access calls a
// public ACL.
func (a *ACL) Public() bool {
	for _, g := range a.Grants {
		if g.Group && (g.ID == AllUsers || g.ID == AuthenticatedUsers) {
			return true
		}
	}
	return false
}

// OnlyOwners reports whether the ACL grants nothing but to the given
// canonical ids: the form of bucket-owner-full-control, private and
// equivalent bodies that BucketOwnerEnforced still accepts.
func (a *ACL) OnlyOwners(ids ...string) bool {
	for _, g := range a.Grants {
		if g.Group || !contains(ids, g.ID) || g.Permission != FullControl {
			return false
		}
	}
	return true
}

func contains(ids []string, id string) bool {
	for _, s := range ids {
		if s == id {
			return true
		}
	}
	return false
}

// NoGrants is the stored form of an ACL that grants nothing. A record
// without an ACL ("") has always meant the owner's FULL_CONTROL alone
// (Private), so an empty list needs a form of its own: NoGrants is a line
// ParseStored skips, which reads back as no grant here and in the
// versions before this form existed alike.
const NoGrants = "-"

// String is the ACL's stored form: one "Pu<id>" or "Pg<uri>" per grant,
// separated by newlines, P the permission's letter; NoGrants for an ACL
// without grants. It is never "", which a record without an ACL holds.
func (a *ACL) String() string {
	if len(a.Grants) == 0 {
		return NoGrants
	}
	var b strings.Builder
	for i, g := range a.Grants {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteByte(permissionLetters[g.Permission])
		if g.Group {
			b.WriteByte('g')
		} else {
			b.WriteByte('u')
		}
		b.WriteString(g.ID)
	}
	return b.String()
}

// ParseStored reads an ACL's stored form (String), NoGrants included.
// Lines it cannot read (a record written by a later version) are
// skipped: they grant nothing. "", a record without an ACL, is Private's
// to decide: the caller knows the owner.
func ParseStored(s string) *ACL {
	a := &ACL{}
	for line := range strings.SplitSeq(s, "\n") {
		if len(line) < 3 {
			continue
		}
		var p Permission
		for i, l := range permissionLetters {
			if l != 0 && l == line[0] {
				p = Permission(i)
			}
		}
		if p == 0 || (line[1] != 'g' && line[1] != 'u') {
			continue
		}
		a.Grants = append(a.Grants, Grant{Group: line[1] == 'g', ID: line[2:], Permission: p})
	}
	return a
}

// Private is the ACL that grants ownerID FULL_CONTROL, every resource's
// ACL unless another was asked for.
func Private(ownerID string) *ACL {
	return &ACL{Grants: []Grant{{ID: ownerID, Permission: FullControl}}}
}

// Canned expands a canned ACL (x-amz-acl) as S3 documents it, for a
// resource owned by ownerID in a bucket owned by bucketOwnerID (the same
// for a bucket). aws-exec-read's grant to Amazon EC2 has no grantee here:
// it is the owner's FULL_CONTROL alone. The bucket-owner ACLs on a bucket
// are private. An unknown name is InvalidArgument.
func Canned(name, ownerID, bucketOwnerID string) (*ACL, error) {
	a := Private(ownerID)
	add := func(group bool, id string, p Permission) {
		a.Grants = append(a.Grants, Grant{Group: group, ID: id, Permission: p})
	}
	switch name {
	case "private", "aws-exec-read":
	case "public-read":
		add(true, AllUsers, Read)
	case "public-read-write":
		add(true, AllUsers, Read)
		add(true, AllUsers, Write)
	case "authenticated-read":
		add(true, AuthenticatedUsers, Read)
	case "bucket-owner-read":
		if bucketOwnerID != ownerID {
			add(false, bucketOwnerID, Read)
		}
	case "bucket-owner-full-control":
		if bucketOwnerID != ownerID {
			add(false, bucketOwnerID, FullControl)
		}
	case "log-delivery-write":
		add(true, LogDelivery, Write)
		add(true, LogDelivery, ReadACP)
	default:
		return nil, s3err.Newf(s3err.InvalidArgument, "Invalid canned ACL %q.", name).With("ArgumentName", "x-amz-acl").With("ArgumentValue", name)
	}
	return a, nil
}

// GrantHeaders are the x-amz-grant-* headers, in the order of their
// permissions.
var GrantHeaders = [...]struct {
	Name       string
	Permission Permission
}{
	{"X-Amz-Grant-Read", Read},
	{"X-Amz-Grant-Write", Write},
	{"X-Amz-Grant-Read-Acp", ReadACP},
	{"X-Amz-Grant-Write-Acp", WriteACP},
	{"X-Amz-Grant-Full-Control", FullControl},
}

// Resolver turns the email address of an EmailAddress grantee into the
// canonical id of the user who has it; ok is false when no user does.
type Resolver func(email string) (canonicalID string, ok bool)

// FromHeaders builds the ACL of the x-amz-grant-* headers: header gets a
// header's value ("" when absent). Each is a comma-separated list of
// grantees, id="canonical id", uri="group URI" or emailAddress="...".
// present is false when none of the headers is set. A grantee that does
// not read is InvalidArgument, an unknown email
// UnresolvableGrantByEmailAddress.
func FromHeaders(header func(string) string, resolve Resolver) (a *ACL, present bool, err error) {
	a = &ACL{}
	for _, h := range GrantHeaders {
		v := header(h.Name)
		if v == "" {
			continue
		}
		present = true
		for item := range strings.SplitSeq(v, ",") {
			typ, val, ok := strings.Cut(strings.TrimSpace(item), "=")
			val = strings.TrimSpace(val)
			if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
				val = val[1 : len(val)-1]
			}
			if !ok || val == "" {
				return nil, true, badGrantHeader(h.Name, v)
			}
			var g Grant
			switch strings.ToLower(strings.TrimSpace(typ)) {
			case "id":
				g = Grant{ID: val}
			case "uri":
				g = Grant{Group: true, ID: val}
			case "emailaddress":
				g = Grant{ID: val}
				if g.ID, err = resolveEmail(val, resolve); err != nil {
					return nil, true, err
				}
			default:
				return nil, true, badGrantHeader(h.Name, v)
			}
			g.Permission = h.Permission
			if err := checkGrantee(g); err != nil {
				return nil, true, err
			}
			if len(a.Grants) == MaxGrants {
				return nil, true, s3err.New(s3err.MalformedACLError)
			}
			a.Grants = append(a.Grants, g)
		}
	}
	return a, present, nil
}

func badGrantHeader(name, value string) error {
	return s3err.Newf(s3err.InvalidArgument, "Invalid grant header %s.", strings.ToLower(name)).
		With("ArgumentName", strings.ToLower(name)).With("ArgumentValue", value)
}

func resolveEmail(email string, resolve Resolver) (string, error) {
	if resolve != nil {
		if id, ok := resolve(email); ok {
			return id, nil
		}
	}
	return "", s3err.New(s3err.UnresolvableGrantByEmailAddress)
}

// checkGrantee checks a grant's grantee as S3 does: a canonical id is 64
// lowercase hex digits, a group one of the three S3 knows.
func checkGrantee(g Grant) error {
	if g.Group {
		switch g.ID {
		case AllUsers, AuthenticatedUsers, LogDelivery:
			return nil
		}
		return s3err.Newf(s3err.InvalidArgument, "Invalid group uri").With("ArgumentName", "uri").With("ArgumentValue", g.ID)
	}
	if len(g.ID) != 64 || strings.Trim(g.ID, "0123456789abcdef") != "" {
		return s3err.Newf(s3err.InvalidArgument, "Invalid id").With("ArgumentName", "CanonicalUser/ID").With("ArgumentValue", g.ID)
	}
	return nil
}

// BodyGrant is one Grant of an AccessControlPolicy document as read: the
// grantee's xsi:type and identity, and the permission's name.
type BodyGrant struct {
	Type, ID, URI, Email, Permission string
}

// FromBody builds the ACL of an AccessControlPolicy's grants. A grantee
// without a type, or a permission S3 does not know, is MalformedACLError;
// a grantee that does not read is InvalidArgument; an unknown email
// UnresolvableGrantByEmailAddress.
func FromBody(grants []BodyGrant, resolve Resolver) (*ACL, error) {
	if len(grants) > MaxGrants {
		return nil, s3err.New(s3err.MalformedACLError)
	}
	a := &ACL{Grants: make([]Grant, 0, len(grants))}
	for _, bg := range grants {
		p, ok := ParsePermission(bg.Permission)
		if !ok {
			return nil, s3err.New(s3err.MalformedACLError)
		}
		g := Grant{Permission: p}
		switch bg.Type {
		case CanonicalUser:
			g.ID = bg.ID
		case Group:
			g.Group, g.ID = true, bg.URI
		case EmailAddress:
			id, err := resolveEmail(bg.Email, resolve)
			if err != nil {
				return nil, err
			}
			g.ID = id
		default:
			return nil, s3err.New(s3err.MalformedACLError)
		}
		if err := checkGrantee(g); err != nil {
			return nil, err
		}
		a.Grants = append(a.Grants, g)
	}
	return a, nil
}

// allows reports whether the ACL gives the caller (whose canonical id
// cid returns) the permission want. Group grants to everyone
// (AllUsers, AuthenticatedUsers) count only when public is set (Block
// Public Access's IgnorePublicAcls clears it); LogDelivery is no caller
// of the gateway.
func (a *ACL) allows(c Caller, cid func() string, want Permission, public bool) bool {
	for _, g := range a.Grants {
		if !g.Permission.covers(want) {
			continue
		}
		switch {
		case g.Group && g.ID == AllUsers:
			if public {
				return true
			}
		case g.Group && g.ID == AuthenticatedUsers:
			if public && c.Kind != policy.Anonymous {
				return true
			}
		case !g.Group && c.Kind != policy.Anonymous && g.ID == cid():
			return true
		}
	}
	return false
}

// bucketPermission is the permission of a bucket ACL that allows action:
// READ lists, WRITE writes and deletes objects, READ_ACP and WRITE_ACP
// read and write the bucket's ACL. ok is false for an action no bucket
// ACL grants. WRITE does not grant s3:DeleteObjectVersion: S3 lets it
// remove a version only for the bucket's owner, who needs no grant, so
// that a grantee's deletes leave delete markers over versions it cannot
// destroy. Nor does it grant aborting other users' multipart uploads or
// listing their parts (s3:AbortMultipartUpload,
// s3:ListMultipartUploadParts): S3 gives those to the bucket's owner and
// the upload's initiator (Input.Initiator) only.
func bucketPermission(action string) (Permission, bool) {
	switch action {
	case "s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads":
		return Read, true
	case "s3:PutObject", "s3:DeleteObject":
		return Write, true
	case "s3:GetBucketAcl":
		return ReadACP, true
	case "s3:PutBucketAcl":
		return WriteACP, true
	}
	return 0, false
}

// objectPermission is the permission of an object ACL that allows
// action: READ reads the object (and its versions), READ_ACP and
// WRITE_ACP its ACL.
func objectPermission(action string) (Permission, bool) {
	switch action {
	case "s3:GetObject", "s3:GetObjectVersion", "s3:GetObjectTorrent":
		return Read, true
	case "s3:GetObjectAcl", "s3:GetObjectVersionAcl":
		return ReadACP, true
	case "s3:PutObjectAcl", "s3:PutObjectVersionAcl":
		return WriteACP, true
	}
	return 0, false
}

// bucketOwnerObjectAction reports whether the bucket's owner may perform
// an object action on an object another user owns, as S3 lets it:
// overwrite, delete, and manage uploads and Object Lock state. Reading
// the object or its ACL needs a grant of its ACL.
func bucketOwnerObjectAction(action string) bool {
	switch action {
	case "s3:PutObject", "s3:DeleteObject", "s3:DeleteObjectVersion", "s3:AbortMultipartUpload",
		"s3:ListMultipartUploadParts", "s3:PutObjectRetention", "s3:PutObjectLegalHold",
		"s3:GetObjectRetention", "s3:GetObjectLegalHold", "s3:BypassGovernanceRetention":
		return true
	}
	return false
}
