package api

import (
	"bytes"
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// This file reads and writes bucket and object ACLs (x-amz-acl, the
// x-amz-grant-* headers, AccessControlPolicy documents) and decides the
// owner and ACL of new objects. What the grants allow is pkg/access's.

const xsiNS = "http://www.w3.org/2001/XMLSchema-instance"

// Emails is an optional interface of Options.Credentials that resolves
// the email address of an EmailAddress grantee to the access key of the
// user who has it.
type Emails interface {
	UserByEmail(email string) (accessKey string, ok bool)
}

// resolver returns the EmailAddress resolver of the server's users: an
// email resolves to its user's canonical id.
func (s *Server) resolver() access.Resolver {
	e, ok := s.opts.Credentials.(Emails)
	if !ok {
		return nil
	}
	return func(email string) (string, bool) {
		k, ok := e.UserByEmail(email)
		if !ok {
			return "", false
		}
		return access.CanonicalID(k), true
	}
}

// bucketOwner is the access key that owns a bucket: its creator, or the
// caller for a bucket imported from the filesystem, which has none.
func bucketOwner(b object.Bucket, rq *request) string {
	if b.Owner != "" {
		return b.Owner
	}
	return rq.accessKey
}

// ownershipOf returns a bucket's Object Ownership for pkg/access.
func ownershipOf(b object.Bucket) access.Ownership {
	o, _ := access.ParseOwnership(b.Ownership)
	return o
}

// headerACL is the ACL a request's headers ask for: canned is x-amz-acl
// ("" when absent), acl its expansion or the x-amz-grant-* headers' ACL;
// nil when the request asks for none. ownerKey owns the resource,
// bucketOwnerKey its bucket. Both forms at once are InvalidRequest, as in
// S3.
func (s *Server) headerACL(h http.Header, ownerKey, bucketOwnerKey string) (acl *access.ACL, canned string, err error) {
	grants, present, err := access.FromHeaders(h.Get, s.resolver())
	if err != nil {
		return nil, "", err
	}
	canned = h.Get("X-Amz-Acl")
	switch {
	case canned != "" && present:
		return nil, "", s3err.Newf(s3err.InvalidRequest, "Specifying both Canned ACLs and Header Grants is not allowed")
	case canned != "":
		acl, err = access.Canned(canned, access.CanonicalID(ownerKey), access.CanonicalID(bucketOwnerKey))
		return acl, canned, err
	case present:
		return grants, "", nil
	}
	return nil, "", nil
}

// storedACL is the stored form of an ACL for a resource owned by
// ownerKey: "" for none or the owner's FULL_CONTROL alone, which is what
// "" means, and access.NoGrants for an ACL without grants (an
// AccessControlPolicy whose AccessControlList is empty), which removes
// the owner's grant too.
func storedACL(acl *access.ACL, ownerKey string) string {
	if acl == nil || (len(acl.Grants) == 1 && acl.OnlyOwners(access.CanonicalID(ownerKey))) {
		return ""
	}
	return acl.String()
}

// newObjectAccess decides the owner (an access key, "" for the bucket's
// owner) and the stored ACL of an object the request writes into bucket
// b, from its ACL headers and the bucket's Object Ownership and Block
// Public Access:
//   - under BucketOwnerEnforced the bucket's owner owns it and it has no
//     ACL; an ACL header other than one granting only the owners full
//     control (bucket-owner-full-control) is AccessControlListNotSupported;
//   - a public ACL under BlockPublicAcls is AccessDenied;
//   - under BucketOwnerPreferred, bucket-owner-full-control gives the
//     object to the bucket's owner; otherwise the writer owns it, unless
//     the writer has an identity policy (its objects are the bucket
//     owner's, as an IAM user's are its account's).
func (s *Server) newObjectAccess(h http.Header, rq *request, b object.Bucket) (owner, acl string, err error) {
	writer := rq.accessKey
	if writer == "" || writer == b.Owner || (b.Owner == "" && s.isAdmin(writer)) || s.identityOf(rq) != nil {
		// Anonymous writes (a bucket that grants everyone WRITE) and the
		// owner's own are the bucket owner's objects. So are those of a
		// user with an identity policy, an IAM user of the gateway's one
		// account, whose objects S3 gives to the account: owning them
		// would let a user its policy confines to writing read them back.
		writer = ""
	}
	bucketKey := bucketOwner(b, rq)
	writerKey := writer
	if writerKey == "" {
		writerKey = bucketKey
	}
	a, canned, err := s.headerACL(h, writerKey, bucketKey)
	if err != nil {
		return "", "", err
	}
	switch ownershipOf(b) {
	case access.BucketOwnerEnforced:
		if a != nil && canned != "bucket-owner-full-control" && !a.OnlyOwners(access.CanonicalID(writerKey), access.CanonicalID(bucketKey)) {
			return "", "", s3err.New(s3err.AccessControlListNotSupported)
		}
		return "", "", nil
	case access.BucketOwnerPreferred:
		if canned == "bucket-owner-full-control" {
			writer, writerKey = "", bucketKey
			a = access.Private(access.CanonicalID(bucketKey))
		}
	}
	if blockOf(b).RefusesACL(a) {
		return "", "", s3err.New(s3err.AccessDenied)
	}
	return writer, storedACL(a, writerKey), nil
}

// writeAccess is newObjectAccess for the addressed bucket. A bucket that
// does not exist has no rules: the write answers NoSuchBucket.
func (s *Server) writeAccess(h http.Header, rq *request) (owner, acl string, err error) {
	b, err := s.bucketRecord(rq)
	if err != nil {
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchBucket {
			return "", "", nil
		}
		return "", "", err
	}
	return s.newObjectAccess(h, rq, b)
}

type aclGrantee struct {
	XMLNSXSI    string `xml:"xmlns:xsi,attr"`
	Type        string `xml:"xsi:type,attr"`
	ID          string `xml:"ID,omitempty"`
	DisplayName string `xml:"DisplayName,omitempty"`
	URI         string `xml:"URI,omitempty"`
}

type aclGrant struct {
	Grantee    aclGrantee `xml:"Grantee"`
	Permission string     `xml:"Permission"`
}

type accessControlPolicy struct {
	XMLName xml.Name          `xml:"AccessControlPolicy"`
	NS      string            `xml:"xmlns,attr"`
	Owner   owner             `xml:"Owner"`
	ACL     accessControlList `xml:"AccessControlList"`
}

// accessControlList is an AccessControlPolicy's list, written even when
// it holds no grant, as S3 writes it.
type accessControlList struct {
	Grants []aclGrant `xml:"Grant"`
}

// aclDocument renders the ACL of a resource owned by ownerKey: stored is
// its stored ACL ("" for the owner's FULL_CONTROL alone, access.NoGrants
// for none). The owner's grants carry its display name; other users are
// shown by canonical id.
func aclDocument(ownerKey, stored string) accessControlPolicy {
	o := ownerOf(ownerKey)
	a := access.Private(o.ID)
	if stored != "" {
		a = access.ParseStored(stored)
	}
	doc := accessControlPolicy{NS: s3NS, Owner: o, ACL: accessControlList{Grants: make([]aclGrant, 0, len(a.Grants))}}
	for _, g := range a.Grants {
		ge := aclGrantee{XMLNSXSI: xsiNS, Type: access.CanonicalUser, ID: g.ID}
		if g.Group {
			ge = aclGrantee{XMLNSXSI: xsiNS, Type: access.Group, URI: g.ID}
		} else if g.ID == o.ID {
			ge.DisplayName = o.DisplayName
		}
		doc.ACL.Grants = append(doc.ACL.Grants, aclGrant{Grantee: ge, Permission: g.Permission.String()})
	}
	return doc
}

// requestedACL reads the ACL a PutBucketAcl or PutObjectAcl asks for,
// from the x-amz-acl or x-amz-grant-* headers or an AccessControlPolicy
// body (not both: UnexpectedContent, as S3). ownerKey owns the resource,
// bucketOwnerKey its bucket. A request with neither is
// MissingSecurityHeader.
func (s *Server) requestedACL(r *http.Request, rq *request, ownerKey, bucketOwnerKey string) (*access.ACL, error) {
	body, err := s.readBody(r, rq, maxSmallBody)
	if err != nil {
		return nil, err
	}
	hasBody := len(bytes.TrimSpace(body)) > 0
	a, _, err := s.headerACL(r.Header, ownerKey, bucketOwnerKey)
	switch {
	case err != nil:
		return nil, err
	case a != nil && hasBody:
		return nil, s3err.New(s3err.UnexpectedContent)
	case a != nil:
		return a, nil
	case hasBody:
		return s.parseACLBody(body, access.CanonicalID(ownerKey))
	}
	return nil, s3err.New(s3err.MissingSecurityHeader).With("MissingHeaderName", "x-amz-acl")
}

// parseACLBody reads an AccessControlPolicy for a resource whose owner
// has canonical id ownerID. An Owner other than the resource's is
// AccessDenied (the owner of a bucket or object never changes through
// its ACL); a policy of more than 100 grants, S3's limit, is
// MalformedACLError as soon as the 101st begins.
func (s *Server) parseACLBody(body []byte, ownerID string) (*access.ACL, error) {
	owner, grants, err := readACLBody(body)
	if err != nil {
		return nil, err
	}
	if owner != "" && owner != ownerID {
		return nil, s3err.New(s3err.AccessDenied)
	}
	return access.FromBody(grants, s.resolver())
}

// readACLBody reads an AccessControlPolicy: the owner's ID it states ("" if
// none) and its grants, in order.
func readACLBody(body []byte) (owner string, grants []access.BodyGrant, err error) {
	x := newXMLDoc(body, maxACLTokens)
	if err := x.root("AccessControlPolicy"); err != nil {
		return "", nil, err
	}
	err = x.elements(func(e xml.StartElement) error {
		switch e.Name.Local {
		case "Owner":
			return x.elements(func(e xml.StartElement) error {
				if e.Name.Local != "ID" {
					return x.skip()
				}
				var err error
				owner, err = x.text()
				return err
			})
		case "AccessControlList":
			return x.elements(func(e xml.StartElement) error {
				if e.Name.Local != "Grant" {
					return x.skip()
				}
				if len(grants) == maxACLGrants {
					return s3err.New(s3err.MalformedACLError)
				}
				g, err := readACLGrant(x)
				grants = append(grants, g)
				return err
			})
		}
		return x.skip()
	})
	return owner, grants, err
}

// readACLGrant reads the Grant element just opened. The grantee's type is
// its last attribute named type, in any namespace (xsi:type).
func readACLGrant(x *xmlDoc) (g access.BodyGrant, err error) {
	err = x.elements(func(e xml.StartElement) error {
		var err error
		switch e.Name.Local {
		case "Grantee":
			for _, a := range e.Attr {
				if a.Name.Local == "type" {
					g.Type = a.Value
				}
			}
			err = x.elements(func(e xml.StartElement) error {
				var err error
				switch e.Name.Local {
				case "ID":
					g.ID, err = x.text()
				case "URI":
					g.URI, err = x.text()
				case "EmailAddress":
					g.Email, err = x.text()
				default:
					err = x.skip()
				}
				return err
			})
		case "Permission":
			g.Permission, err = x.text()
		default:
			err = x.skip()
		}
		return err
	})
	return g, err
}

// getBucketACL answers GetBucketAcl. Under BucketOwnerEnforced it is the
// owner's FULL_CONTROL, as S3 shows a bucket whose ACLs are disabled; the
// stored ACL (one without grants, which the switch to BucketOwnerEnforced
// accepts) is in force again when ACLs are.
func (s *Server) getBucketACL(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	stored := b.ACL
	if ownershipOf(b) == access.BucketOwnerEnforced {
		stored = ""
	}
	return writeXML(w, http.StatusOK, aclDocument(bucketOwner(b, rq), stored))
}

// putBucketACL answers PutBucketAcl, from the ACL headers or an
// AccessControlPolicy body (not both). Under BucketOwnerEnforced it is
// AccessControlListNotSupported; a public ACL under BlockPublicAcls is
// AccessDenied.
func (s *Server) putBucketACL(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if ownershipOf(b) == access.BucketOwnerEnforced {
		return s3err.New(s3err.AccessControlListNotSupported)
	}
	ownerKey := bucketOwner(b, rq)
	a, err := s.requestedACL(r, rq, ownerKey, ownerKey)
	if err != nil {
		return err
	}
	err = s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		// Block Public Access and Object Ownership are checked against
		// the record being updated, so a configuration put meanwhile is
		// not overtaken.
		switch {
		case ownershipOf(*b) == access.BucketOwnerEnforced:
			return s3err.New(s3err.AccessControlListNotSupported)
		case blockOf(*b).RefusesACL(a):
			return s3err.New(s3err.AccessDenied)
		}
		b.ACL = storedACL(a, ownerKey)
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// objectOwnerKey is the access key of the owner of object o in bucket b:
// its writer, or the bucket's owner under BucketOwnerEnforced and for
// objects that name none.
func objectOwnerKey(b object.Bucket, o *object.Object, rq *request) string {
	if o.Owner == "" || ownershipOf(b) == access.BucketOwnerEnforced {
		return bucketOwner(b, rq)
	}
	return o.Owner
}

// getObjectACL answers GetObjectAcl, of the version named by versionId
// or the current one. Under BucketOwnerEnforced it is the bucket owner's
// FULL_CONTROL.
func (s *Server) getObjectACL(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return err
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		return err
	}
	o, err := s.layer.StatVersion(rq.bucket, rq.key, id)
	if err != nil {
		return err
	}
	stored := o.ACL
	if ownershipOf(b) == access.BucketOwnerEnforced {
		stored = ""
	}
	s.setVersionID(w.Header(), rq, o.VersionID)
	return writeXML(w, http.StatusOK, aclDocument(objectOwnerKey(b, &o, rq), stored))
}

// putObjectACL answers PutObjectAcl, of the version named by versionId
// or the current one: the ACL replaces the version's, its owner stays.
// Under BucketOwnerEnforced it is AccessControlListNotSupported; a public
// ACL under BlockPublicAcls is AccessDenied.
func (s *Server) putObjectACL(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return err
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		return err
	}
	if ownershipOf(b) == access.BucketOwnerEnforced {
		return s3err.New(s3err.AccessControlListNotSupported)
	}
	cur, err := s.layer.StatVersion(rq.bucket, rq.key, id)
	if err != nil {
		return err
	}
	ownerKey := objectOwnerKey(b, &cur, rq)
	a, err := s.requestedACL(r, rq, ownerKey, bucketOwner(b, rq))
	if err != nil {
		return err
	}
	if blockOf(b).RefusesACL(a) {
		return s3err.New(s3err.AccessDenied)
	}
	o, err := s.layer.UpdateVersion(rq.bucket, rq.key, id, object.Conditions{BucketID: s.bucketID(rq)}, func(_ metadata.BucketState, o *object.Object) error {
		if o.Owner != cur.Owner {
			// The version was overwritten by another writer meanwhile:
			// the ACL was asked for the one before.
			return s3err.New(s3err.ConditionalRequestConflict)
		}
		o.ACL = storedACL(a, ownerKey)
		return nil
	})
	if err != nil {
		return err
	}
	s.setVersionID(w.Header(), rq, o.VersionID)
	w.WriteHeader(http.StatusOK)
	return nil
}

// newBucketAccess decides the stored ACL, Object Ownership and Block
// Public Access bits of a bucket CreateBucket makes: the ACL headers,
// x-amz-object-ownership, and Options.NewBucketDefaults for what the
// request does not say. An ACL that grants anyone but the owner on a
// BucketOwnerEnforced bucket is InvalidBucketAclWithObjectOwnership, a
// public ACL under BlockPublicAcls AccessDenied, as in S3.
func (s *Server) newBucketAccess(h http.Header, rq *request) (acl, ownership string, pab uint8, err error) {
	if s.opts.NewBucketDefaults == DefaultsAWS2023 {
		ownership = access.BucketOwnerEnforced.String()
		pab = metadata.PublicAccessBlockSet | metadata.BlockPublicAcls | metadata.IgnorePublicAcls | metadata.BlockPublicPolicy | metadata.RestrictPublicBuckets
	}
	if v := h.Get("X-Amz-Object-Ownership"); v != "" {
		if _, ok := access.ParseOwnership(v); !ok {
			return "", "", 0, s3err.Newf(s3err.InvalidArgument, "Invalid x-amz-object-ownership header: %s", v).
				With("ArgumentName", "x-amz-object-ownership").With("ArgumentValue", v)
		}
		ownership = v
	}
	a, _, err := s.headerACL(h, rq.accessKey, rq.accessKey)
	if err != nil {
		return "", "", 0, err
	}
	if ownership == access.BucketOwnerEnforced.String() && a != nil && !a.OnlyOwners(access.CanonicalID(rq.accessKey)) {
		return "", "", 0, s3err.New(s3err.InvalidBucketAclWithObjectOwnership)
	}
	if pab&metadata.BlockPublicAcls != 0 && a != nil && a.Public() {
		return "", "", 0, s3err.New(s3err.AccessDenied)
	}
	return storedACL(a, rq.accessKey), ownership, pab, nil
}
