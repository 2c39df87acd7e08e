package api

import (
	"bytes"
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// allUsers is the grantee URI of S3's everyone group.
const allUsers = "http://acs.amazonaws.com/groups/global/AllUsers"

const xsiNS = "http://www.w3.org/2001/XMLSchema-instance"

// bucketCannedACL reads the canned ACL of CreateBucket or PutBucketAcl:
// public-read makes the bucket readable by everyone (the same grant as the
// standard public-read bucket policy); private and the bucket-owner ACLs
// grant nothing beyond the owner. Every ACL the gateway would not enforce
// is NotImplemented.
func bucketCannedACL(h http.Header) (public bool, err error) {
	if h.Get("X-Amz-Acl") != "public-read" {
		return false, checkACL(h)
	}
	for _, g := range []string{"X-Amz-Grant-Read", "X-Amz-Grant-Write", "X-Amz-Grant-Read-Acp", "X-Amz-Grant-Write-Acp", "X-Amz-Grant-Full-Control"} {
		if h.Get(g) != "" {
			return false, s3err.Newf(s3err.InvalidRequest, "Specifying both Canned ACLs and Header Grants is not allowed")
		}
	}
	return true, nil
}

// bucketOwner is the access key that owns a bucket: its creator, or the
// caller for a bucket imported from the filesystem, which has none.
func bucketOwner(b object.Bucket, rq *request) string {
	if b.Owner != "" {
		return b.Owner
	}
	return rq.accessKey
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
	XMLName xml.Name   `xml:"AccessControlPolicy"`
	NS      string     `xml:"xmlns,attr"`
	Owner   owner      `xml:"Owner"`
	Grants  []aclGrant `xml:"AccessControlList>Grant"`
}

// getBucketACL answers GetBucketAcl: the owner has FULL_CONTROL and, on a
// public-read bucket, everyone has READ.
func (s *Server) getBucketACL(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, aclOf(ownerOf(bucketOwner(b, rq)), b.PublicRead))
}

// aclOf is the ACL of a resource owned by o: o's FULL_CONTROL and, when
// public, AllUsers READ.
func aclOf(o owner, public bool) accessControlPolicy {
	acl := accessControlPolicy{NS: s3NS, Owner: o, Grants: []aclGrant{{
		Grantee:    aclGrantee{XMLNSXSI: xsiNS, Type: "CanonicalUser", ID: o.ID, DisplayName: o.DisplayName},
		Permission: "FULL_CONTROL",
	}}}
	if public {
		acl.Grants = append(acl.Grants, aclGrant{
			Grantee:    aclGrantee{XMLNSXSI: xsiNS, Type: "Group", URI: allUsers},
			Permission: "READ",
		})
	}
	return acl
}

// requestedACL reads the ACL a PutBucketAcl or PutObjectAcl asks for,
// from the x-amz-acl header or an AccessControlPolicy body (not both), as
// whether it grants everyone READ; ownerID is the resource's owner, kind
// names it in errors ("a bucket", "an object"). Any grant the gateway
// could not enforce is NotImplemented.
func (s *Server) requestedACL(r *http.Request, rq *request, ownerID, kind string) (public bool, err error) {
	body, err := s.readBody(r, rq, maxSmallBody)
	if err != nil {
		return false, err
	}
	hasBody := len(bytes.TrimSpace(body)) > 0
	switch canned := r.Header.Get("X-Amz-Acl"); {
	case canned != "" && hasBody:
		return false, s3err.New(s3err.UnexpectedContent)
	case hasBody:
		return parseACLBody(body, ownerID, kind)
	case canned != "":
		return bucketCannedACL(r.Header)
	}
	if err := checkACL(r.Header); err != nil {
		return false, err
	}
	return false, s3err.New(s3err.MissingSecurityHeader).With("MissingHeaderName", "x-amz-acl")
}

// aclGrantIn is one Grant of an AccessControlPolicy body: the grantee's
// xsi:type and identity, and the permission.
type aclGrantIn struct {
	typ, id, uri, email, permission string
}

// parseACLBody reads an AccessControlPolicy that grants ownerID
// FULL_CONTROL and, optionally, AllUsers READ. It reports whether the
// bucket is then public; every other grant is NotImplemented, because the
// gateway could not enforce it. A policy of more than 100 grants, S3's
// limit, is MalformedACLError as soon as the 101st begins.
func parseACLBody(body []byte, ownerID, kind string) (public bool, err error) {
	owner, grants, err := readACLBody(body)
	if err != nil {
		return false, err
	}
	if owner != "" && owner != ownerID {
		return false, s3err.Newf(s3err.NotImplemented, "Changing the owner of %s is not supported.", kind)
	}
	ownerFull := false
	for _, g := range grants {
		switch {
		case g.typ == "CanonicalUser" && g.id == ownerID && g.permission == "FULL_CONTROL":
			ownerFull = true
		case g.typ == "Group" && g.uri == allUsers && g.permission == "READ":
			public = true
		case g.typ == "":
			return false, s3err.Newf(s3err.MalformedXML, "A Grantee must have an xsi:type.")
		default:
			who := g.id + g.uri + g.email
			return false, s3err.Newf(s3err.NotImplemented, "The grant of %s to %s %s is not supported; only the owner's FULL_CONTROL and AllUsers READ are.", g.permission, g.typ, who)
		}
	}
	if !ownerFull {
		return false, s3err.Newf(s3err.NotImplemented, "Removing the bucket owner's FULL_CONTROL grant is not supported.")
	}
	return public, nil
}

// readACLBody reads an AccessControlPolicy: the owner's ID it states ("" if
// none) and its grants, in order.
func readACLBody(body []byte) (owner string, grants []aclGrantIn, err error) {
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
func readACLGrant(x *xmlDoc) (g aclGrantIn, err error) {
	err = x.elements(func(e xml.StartElement) error {
		var err error
		switch e.Name.Local {
		case "Grantee":
			for _, a := range e.Attr {
				if a.Name.Local == "type" {
					g.typ = a.Value
				}
			}
			err = x.elements(func(e xml.StartElement) error {
				var err error
				switch e.Name.Local {
				case "ID":
					g.id, err = x.text()
				case "URI":
					g.uri, err = x.text()
				case "EmailAddress":
					g.email, err = x.text()
				default:
					err = x.skip()
				}
				return err
			})
		case "Permission":
			g.permission, err = x.text()
		default:
			err = x.skip()
		}
		return err
	})
	return g, err
}

// putBucketACL answers PutBucketAcl, from the x-amz-acl header or an
// AccessControlPolicy body (not both).
func (s *Server) putBucketACL(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	public, err := s.requestedACL(r, rq, ownerOf(bucketOwner(b, rq)).ID, "a bucket")
	if err != nil {
		return err
	}
	err = s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		// Block Public Access is checked against the record being
		// updated, so a configuration put meanwhile is not overtaken.
		if blockOf(*b).RefusesACL(public) {
			return s3err.New(s3err.AccessDenied)
		}
		b.PublicRead = public
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// objectACL is the access the gateway enforces on an object, as an ACL:
// objects carry none of their own, so it is the bucket owner's
// FULL_CONTROL and, when the bucket's policy or canned ACL lets everyone
// read the key, AllUsers READ. It fails like HeadObject for a key that
// does not exist.
func (s *Server) objectACL(r *http.Request, rq *request) (acl accessControlPolicy, public bool, err error) {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return acl, false, err
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		return acl, false, err
	}
	// Every version has its bucket's access, as the object does: the
	// version only has to exist.
	if _, err := s.layer.StatVersion(rq.bucket, rq.key, id); err != nil {
		return acl, false, err
	}
	public = s.access.policyOf(b).Allows(policy.GetObject, rq.key)
	return aclOf(ownerOf(bucketOwner(b, rq)), public), public, nil
}

// getObjectACL answers GetObjectAcl with objectACL.
func (s *Server) getObjectACL(w http.ResponseWriter, r *http.Request, rq *request) error {
	acl, _, err := s.objectACL(r, rq)
	if err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, acl)
}

// putObjectACL answers PutObjectAcl. An object's access is its bucket's,
// so an ACL that states exactly that (objectACL: "private" or the
// bucket-owner canned ACLs where the bucket grants no public read,
// "public-read" where it does, or the same as a body) changes nothing and
// is accepted; any other would have to change the object's access alone,
// which the gateway cannot do, and answers NotImplemented rather than a
// silent success.
func (s *Server) putObjectACL(w http.ResponseWriter, r *http.Request, rq *request) error {
	acl, public, err := s.objectACL(r, rq)
	if err != nil {
		return err
	}
	want, err := s.requestedACL(r, rq, acl.Owner.ID, "an object")
	if err != nil {
		return err
	}
	if want != public {
		return s3err.Newf(s3err.NotImplemented, "Objects have no ACL of their own: an object's access is its bucket's (bucket policy or bucket ACL).")
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
