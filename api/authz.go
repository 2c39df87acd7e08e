package api

import (
	"net/http"
	"strings"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// This file asks pkg/access whether a request may do what it asks and
// runs it if so. The rules themselves (root, the bucket's owner, the
// bucket policy's Deny and Allow, the ACLs, Object Ownership) are
// pkg/access's.

// Principals is an optional interface of Options.Credentials that tells
// the root user from the others. Credentials without it make every
// authenticated caller an administrator, as when the gateway had a single
// user.
type Principals interface {
	// IsRoot reports whether an access key is the root user's.
	IsRoot(accessKey string) bool
}

// IdentityPolicies is an optional interface of Options.Credentials
// giving a user's identity policy (policy.ParseIdentity), nil for a user
// without one. Credentials without it give every user none.
type IdentityPolicies interface {
	IdentityPolicy(accessKey string) *policy.Policy
}

// FileOwners is an optional interface of Options.Credentials mapping an
// access key to the POSIX owner of the files and directories its requests
// create; ok is false when the key has none.
type FileOwners interface {
	FileOwner(accessKey string) (owner object.POSIXOwner, ok bool)
}

// isAdmin reports whether an authenticated access key administers every
// bucket.
func (s *Server) isAdmin(accessKey string) bool {
	p, ok := s.opts.Credentials.(Principals)
	return !ok || p.IsRoot(accessKey)
}

// owns reports whether the caller owns a bucket. Buckets with no owner
// (created before users existed, or imported from the tree) and buckets of
// the root user or of removed users belong to root alone.
func (s *Server) owns(rq *request, b object.Bucket) bool {
	return rq.accessKey != "" && (s.isAdmin(rq.accessKey) || (b.Owner != "" && b.Owner == rq.accessKey))
}

// callerOf returns who made the request.
func (s *Server) callerOf(rq *request) access.Caller {
	return access.NewCaller(rq.accessKey, rq.accessKey != "" && s.isAdmin(rq.accessKey))
}

// identityOf returns the caller's identity policy, asked of the
// credentials once per request: a policy replaced while the request runs
// does not change the answers it already got.
func (s *Server) identityOf(rq *request) *policy.Policy {
	if !rq.identitySet {
		rq.identitySet = true
		if ip, ok := s.opts.Credentials.(IdentityPolicies); ok && rq.accessKey != "" && !s.isAdmin(rq.accessKey) {
			rq.identity = ip.IdentityPolicy(rq.accessKey)
		}
	}
	return rq.identity
}

// decide asks pkg/access whether the request may perform action on key
// (or on the bucket, for an empty key) of bucket b. The principal is made
// once per request, and only for a bucket with a policy or a caller with
// an identity policy; the condition keys likewise, and only for a policy
// that consults them.
func (s *Server) decide(r *http.Request, rq *request, b object.Bucket, action, key string) access.Decision {
	in := s.accessInput(r, rq, b, action, key)
	return access.Decide(&in)
}

// decideObject is decide for an action on an object (version versionID,
// "" the current one) whose owner and ACL may decide it: the object's
// record is read only when they may change the answer
// (access.NeedsObject).
//
// For an action that carries the s3:ExistingObjectTag/KEY condition keys
// (existingTagActions), under a policy that consults them, the record is
// read first and its tags become those keys; an object that does not
// exist has none.
//
// With deferOwner (a GetObject or HeadObject, whose handler reads the
// record itself), an Allow that holds only if the object is not another
// user's is given at once and asked again on the handler's record
// (rq.ownerCheck, checkObjectOwner).
//
// A record that cannot be read for a reason other than its absence (an
// I/O error, a catalogue that stopped) fails the request with that error
// before anything is allowed: the decision without the record lacks what
// the record would have added (its tags, which a Deny may name; its owner,
// whose object a bucket policy does not grant), and the handler's own read
// of it may succeed. A missing object, version or delete marker
// (recordMissing) has nothing to add, and its error is the handler's to
// answer, as before.
func (s *Server) decideObject(r *http.Request, rq *request, b object.Bucket, action, key, versionID string, deferOwner bool) (access.Decision, error) {
	in := s.accessInput(r, rq, b, action, key)
	var (
		o    object.Object
		oErr error
		read bool
	)
	if existingTagActions[action] && (in.Bucket.Policy.UsesExistingObjectTags() || in.Identity.UsesExistingObjectTags()) {
		o, oErr = s.recordOf(b.Name, key, versionID)
		read = true
		if oErr != nil && !recordMissing(oErr) {
			return access.ImplicitDeny, oErr
		}
		if oErr == nil && len(o.Tags) > 0 {
			in.Conditions = withExistingObjectTags(in.Conditions, o.Tags)
		}
	}
	d := access.Decide(&in)
	if !access.NeedsObject(&in, d) {
		return d, nil
	}
	if deferOwner && !read && d == access.Allowed {
		rq.ownerCheck = &in
		return d, nil
	}
	if !read {
		o, oErr = s.recordOf(b.Name, key, versionID)
	}
	if oErr != nil {
		if !recordMissing(oErr) {
			return access.ImplicitDeny, oErr
		}
		return d, nil
	}
	return s.decideOn(&in, &o), nil
}

// recordMissing reports whether err, from reading an object's record,
// says only that there is no such record to decide by: no such key or
// version, a delete marker (MethodNotAllowed), or a malformed version id.
func recordMissing(err error) bool {
	c, ok := s3err.CodeOf(err)
	if !ok {
		return false
	}
	switch c {
	case s3err.NoSuchKey, s3err.NoSuchVersion, s3err.MethodNotAllowed, s3err.InvalidArgument:
		return true
	}
	return false
}

// decideOn asks in again with the owner and ACL of the object o.
func (s *Server) decideOn(in *access.Input, o *object.Object) access.Decision {
	in.Object = &access.Object{Owner: o.Owner}
	if o.ACL != "" {
		in.Object.ACL = s.access.acls.get(o.ACL, func() *access.ACL { return access.ParseStored(o.ACL) })
	}
	return access.Decide(in)
}

// checkObjectOwner is the rest of a GetObject's or HeadObject's
// authorization (rq.ownerCheck) on the record o its handler read: a
// bucket policy's Allow of an object another user owns is AccessDenied
// unless the object's ACL grants the read.
func (s *Server) checkObjectOwner(rq *request, o *object.Object) error {
	in := rq.ownerCheck
	if in == nil {
		return nil
	}
	rq.ownerCheck = nil
	if s.decideOn(in, o) != access.Allowed {
		return s3err.New(s3err.AccessDenied)
	}
	return nil
}

// existingTagActions are the actions whose requests carry the
// s3:ExistingObjectTag/KEY condition keys, as AWS's "Actions, resources,
// and condition keys for Amazon S3" lists them. PutObject and DeleteObject
// (and DeleteObjects' keys) do not carry them, in AWS as here.
var existingTagActions = map[string]bool{
	"s3:GetObject": true, "s3:GetObjectVersion": true,
	"s3:GetObjectAcl": true, "s3:GetObjectVersionAcl": true,
	"s3:PutObjectAcl": true, "s3:PutObjectVersionAcl": true,
	"s3:GetObjectTagging": true, "s3:GetObjectVersionTagging": true,
	"s3:PutObjectTagging": true, "s3:PutObjectVersionTagging": true,
	"s3:DeleteObjectTagging": true, "s3:DeleteObjectVersionTagging": true,
	"s3:GetObjectAttributes": true, "s3:GetObjectVersionAttributes": true,
	"s3:GetObjectRetention": true, "s3:PutObjectRetention": true,
	"s3:GetObjectLegalHold": true, "s3:PutObjectLegalHold": true,
}

// withExistingObjectTags returns a copy of cs (the request's keys, shared
// by its questions) with the s3:ExistingObjectTag/KEY keys of tags.
func withExistingObjectTags(cs policy.Conditions, tags []metadata.KV) policy.Conditions {
	out := make(policy.Conditions, len(cs)+len(tags))
	for k, v := range cs {
		out[k] = v
	}
	for _, t := range tags {
		out.Set("s3:ExistingObjectTag/"+t.Key, t.Value)
	}
	return out
}

// accessInput is the question decide asks pkg/access.
func (s *Server) accessInput(r *http.Request, rq *request, b object.Bucket, action, key string) access.Input {
	in := access.Input{Caller: s.callerOf(rq), Action: action, Bucket: s.access.bucketOf(b), Key: key, Identity: s.identityOf(rq), Initiator: rq.initiator}
	s.policyContext(r, rq, &in)
	return in
}

// policyContext fills in the principal and the condition keys of a
// question that a policy (the bucket's or the caller's) will evaluate.
func (s *Server) policyContext(r *http.Request, rq *request, in *access.Input) {
	var bp *policy.Policy
	if in.Bucket != nil {
		bp = in.Bucket.Policy
	}
	if bp == nil && in.Identity == nil {
		return
	}
	if !rq.principalSet {
		rq.principal, rq.principalSet = in.Caller.Principal(), true
	}
	in.Principal = rq.principal
	if bp.UsesContext() || in.Identity.UsesContext() {
		// Gathering the keys allocates; the common public-read policy
		// has no Condition and needs none.
		if rq.conditions == nil {
			rq.conditions = s.conditionsOf(r, rq, in.Caller)
		}
		in.Conditions = rq.conditions
	}
}

// decideAccount asks pkg/access about an action on no existing bucket:
// s3:CreateBucket of bucket, or s3:ListAllMyBuckets (bucket "").
func (s *Server) decideAccount(r *http.Request, rq *request, action, bucket string) access.Decision {
	in := access.Input{Caller: s.callerOf(rq), Action: action, Identity: s.identityOf(rq)}
	if bucket != "" {
		in.Bucket = &access.Bucket{Name: bucket}
	}
	s.policyContext(r, rq, &in)
	return access.DecideAccount(&in)
}

// serveAuthorized runs a request that pkg/access allows, authenticated
// or anonymous; anything it does not allow is AccessDenied.
func (s *Server) serveAuthorized(w http.ResponseWriter, r *http.Request, rq *request, op operation) error {
	anonymous := rq.accessKey == ""
	if !anonymous && s.isAdmin(rq.accessKey) {
		if rq.bucket != "" && r.Method != http.MethodGet && r.Method != http.MethodHead {
			// A write is authorized against the bucket as it is now, before
			// any of its body is read (see bucketID); reads need no record.
			s.bucketID(rq)
		}
		return op.handler(w, r, rq)
	}
	if rq.bucket == "" {
		if anonymous {
			return s3err.New(s3err.AccessDenied)
		}
		// ListBuckets, which lists only the caller's buckets (see
		// listBuckets), or NotImplemented.
		if op.name == "ListBuckets" && s.decideAccount(r, rq, "s3:ListAllMyBuckets", "") != access.Allowed {
			return s3err.New(s3err.AccessDenied)
		}
		return op.handler(w, r, rq)
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		if anonymous {
			// A missing bucket is not told apart from a forbidden one.
			return s3err.Wrap(s3err.AccessDenied, err)
		}
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchBucket {
			// Nothing to protect: the handler answers NoSuchBucket, or
			// CreateBucket creates it with the caller as owner, if the
			// caller's identity policy lets it.
			if op.name == "CreateBucket" && s.decideAccount(r, rq, "s3:CreateBucket", rq.bucket) != access.Allowed {
				return s3err.New(s3err.AccessDenied)
			}
			return op.handler(w, r, rq)
		}
		return err
	}
	owner := s.owns(rq, b)
	switch {
	case op.name == "CreateBucket" && anonymous:
		return s3err.New(s3err.AccessDenied)
	case op.name == "CreateBucket" && !owner:
		return s3err.New(s3err.BucketAlreadyExists).With("BucketName", rq.bucket)
	case op.name == "DeleteObjects":
		// Each key is one DeleteObject, decided by deleteObjects.
		return op.handler(w, r, rq)
	}
	switch op.name {
	case "PutObjectTagging", "PutObjectRetention", "PutObjectLegalHold":
		s.readBodyFirst(r, rq, b)
	case "AbortMultipartUpload", "ListParts":
		if !owner {
			// The upload's initiator may abort it and list its parts; an
			// upload that does not exist has none, and the handler
			// answers NoSuchUpload to whoever may ask.
			rq.initiator, _ = s.layer.UploadInitiator(rq.bucket, rq.key, rq.queryOf(r).Get("uploadId"))
		}
	}
	vids, byID := rq.queryOf(r)["versionId"]
	action, _ := access.ActionOf(op.name, byID)
	var vid string
	if len(vids) > 0 {
		vid = vids[0]
	}
	read := op.name == "GetObject" || op.name == "HeadObject"
	d, err := s.decideObject(r, rq, b, action, rq.key, vid, read)
	if err != nil {
		return err
	}
	if d != access.Allowed {
		if read && !byID && d == access.ImplicitDeny {
			if err := s.missingKey(r, rq, b); err != nil {
				return err
			}
		}
		return s3err.New(s3err.AccessDenied)
	}
	if read && anonymous {
		for k := range rq.queryOf(r) {
			if strings.HasPrefix(k, "response-") {
				return s3err.Newf(s3err.InvalidRequest, "Request specific response headers cannot be used for anonymous GET requests.")
			}
		}
	}
	switch op.name {
	case "PutObject", "CopyObject", "CreateMultipartUpload":
		if err := s.mayLock(r, rq, b); err != nil {
			return err
		}
		if err := s.mayDecorate(r, rq, b); err != nil {
			return err
		}
	}
	if op.name == "CopyObject" || op.name == "UploadPartCopy" {
		if err := s.mayReadSource(r, rq, b); err != nil {
			return err
		}
	}
	err = op.handler(w, r, rq)
	if read && !owner {
		// Like S3: without s3:ListBucket, a missing key must not be told
		// apart from a forbidden one.
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchKey && s.decide(r, rq, b, policy.ListBucket, "") != access.Allowed {
			return s3err.Wrap(s3err.AccessDenied, err)
		}
	}
	return err
}

// missingKey is the answer to a read of a key that nothing allows the
// caller to read: S3 decides whether a key that does not exist is told
// apart from a forbidden one by s3:ListBucket alone (a missing object has
// no ACL to grant its read), so a caller who may list the bucket, as
// everyone may a public-read one, learns NoSuchKey, as a listing would
// tell. It returns nil when the key exists or the caller may not list.
func (s *Server) missingKey(r *http.Request, rq *request, b object.Bucket) error {
	_, err := s.layer.StatObject(b.Name, rq.key)
	if c, ok := s3err.CodeOf(err); !ok || c != s3err.NoSuchKey {
		return nil
	}
	if s.decide(r, rq, b, policy.ListBucket, "") != access.Allowed {
		return nil
	}
	return err
}

// earlyBody is the document of a request read before the request was
// authorized (readBodyFirst): PutObjectTagging's tag set,
// PutObjectRetention's retention or PutObjectLegalHold's status; or the
// error reading or parsing it gave, which the handler answers if the
// request is allowed.
type earlyBody struct {
	tags      []metadata.KV
	retention objectlock.Retention
	hold      bool
	err       error
}

// readBodyFirst reads the document of a PutObjectTagging,
// PutObjectRetention or PutObjectLegalHold before the request is
// authorized when the bucket's policy or the caller's identity policy
// has conditions: what the document asks for is condition keys of the
// request, as S3 has them (s3:RequestObjectTag/KEY and
// s3:RequestObjectTagKeys; s3:object-lock-mode and
// s3:object-lock-retain-until-date; s3:object-lock-legal-hold), and a
// policy that denies some values or allows only some must see them. A
// document that cannot be read or parsed gives no keys.
func (s *Server) readBodyFirst(r *http.Request, rq *request, b object.Bucket) {
	if rq.early != nil || (!s.access.bucketOf(b).Policy.UsesContext() && !s.identityOf(rq).UsesContext()) {
		return
	}
	e := &earlyBody{}
	switch rq.op {
	case "PutObjectTagging":
		e.tags, e.err = s.readTaggingBody(r, rq)
	case "PutObjectRetention":
		e.retention, e.err = s.readRetentionBody(r, rq)
	case "PutObjectLegalHold":
		e.hold, e.err = s.readLegalHoldBody(r, rq)
	}
	rq.early = e
}

// mayDelete decides one key of a DeleteObjects request: s3:DeleteObject,
// or s3:DeleteObjectVersion for an entry with a version id.
func (s *Server) mayDelete(r *http.Request, rq *request, key, versionID string) error {
	if rq.accessKey != "" && s.isAdmin(rq.accessKey) {
		return nil
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		return err
	}
	action, _ := access.ActionOf("DeleteObject", versionID != "")
	if s.decide(r, rq, b, action, key) != access.Allowed {
		return s3err.New(s3err.AccessDenied)
	}
	return nil
}

// mayReadSource checks that the caller may read the source object of a
// copy (s3:GetObject, or s3:GetObjectVersion for a source version) into
// the bucket dst, and prepares the check of the source's tags a
// CopyObject that keeps them needs (mayCopyTags). A malformed or missing
// source is left to the handler to report.
func (s *Server) mayReadSource(r *http.Request, rq *request, dst object.Bucket) error {
	src, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return nil
	}
	b, err := s.layer.Bucket(src.bucket)
	if err != nil {
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchBucket {
			return nil
		}
		return err
	}
	action, _ := access.ActionOf("GetObject", src.versionID != "")
	d, err := s.decideObject(r, rq, b, action, src.key, src.versionID, false)
	if err != nil {
		return err
	}
	if d != access.Allowed {
		return s3err.New(s3err.AccessDenied)
	}
	if rq.op == "CopyObject" {
		s.mayCopyTags(r, rq, b, src, dst)
	}
	return nil
}

// copyTagsCheck is what a CopyObject that keeps the source's tags needs
// to copy them: source asks whether the caller may read them
// (s3:GetObjectTagging, or s3:GetObjectVersionTagging for a source
// version), decided on the source's record; write whether it may put
// them on the copy (s3:PutObjectTagging, as mayDecorate asks it of
// x-amz-tagging).
type copyTagsCheck struct {
	source access.Input
	write  bool
}

// mayCopyTags prepares, for a CopyObject with the tagging directive COPY
// (the default), the check of the tags the copy takes from its source,
// in the bucket src: "If you're copying objects that have object tags,
// then your IAM identity must have s3:GetObjectTagging and
// s3:PutObjectTagging permissions. You must have s3:GetObjectTagging
// permission for the source object and s3:PutObjectTagging permission
// for objects in the destination bucket" (AWS knowledge center,
// s3-troubleshoot-copy-between-buckets). S3 asks them only of a source
// that has tags, which only the record the copy reads tells, so the
// question is asked there (checkCopyTags): a source without tags, or a
// copy with REPLACE, needs neither. The source's tags are asked of every
// caller but root, as reading them is (a grant to read the object is not
// one to read its tags, in S3 as here, and a copy into the caller's own
// bucket would show them); writing them on the copy of those mayDecorate
// asks it of.
func (s *Server) mayCopyTags(r *http.Request, rq *request, src object.Bucket, cs copySource, dst object.Bucket) {
	if r.Header.Get("X-Amz-Tagging-Directive") == "REPLACE" {
		return
	}
	action, _ := access.ActionOf("GetObjectTagging", cs.versionID != "")
	rq.copyTags = &copyTagsCheck{source: s.accessInput(r, rq, src, action, cs.key), write: s.mayTag(r, rq, dst)}
}

// checkCopyTags is the rest of a CopyObject's authorization
// (rq.copyTags) on the source's record o the copy read: a source with
// tags is AccessDenied unless the caller may read them and write them on
// the copy.
func (s *Server) checkCopyTags(rq *request, o *object.Object) error {
	c := rq.copyTags
	if c == nil || len(o.Tags) == 0 {
		return nil
	}
	if !c.write {
		return s3err.New(s3err.AccessDenied)
	}
	in := c.source
	if in.Bucket.Policy.UsesExistingObjectTags() || in.Identity.UsesExistingObjectTags() {
		in.Conditions = withExistingObjectTags(in.Conditions, o.Tags)
	}
	if s.decideOn(&in, o) != access.Allowed {
		return s3err.New(s3err.AccessDenied)
	}
	return nil
}

// mayPost checks that the signer of a browser POST upload, or everyone
// for an anonymous one, may write the key to the addressed bucket
// (s3:PutObject). r carries the form's fields as headers
// (postConditionRequest), for the condition keys. A missing bucket is
// left to the handler, but for an anonymous upload, which is refused
// alike in a bucket that does not exist (see serveAuthorized).
func (s *Server) mayPost(r *http.Request, rq *request) error {
	anonymous := rq.accessKey == ""
	if !anonymous && s.isAdmin(rq.accessKey) {
		return nil
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		if anonymous {
			return s3err.Wrap(s3err.AccessDenied, err)
		}
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchBucket {
			return nil
		}
		return err
	}
	if s.decide(r, rq, b, "s3:PutObject", rq.key) != access.Allowed {
		return s3err.New(s3err.AccessDenied)
	}
	if err := s.mayLock(r, rq, b); err != nil {
		return err
	}
	return s.mayDecorate(r, rq, b)
}

// mayDecorate checks the ACL and tags a write asks for (r's headers; a
// POST upload's fields, see postConditionRequest) when the writer is a
// user with an identity policy, whose object will be the bucket owner's
// (newObjectAccess). An ACL that grants anyone but the bucket's owner
// needs s3:PutObjectAcl on the key, x-amz-tagging s3:PutObjectTagging, as
// S3 asks of an IAM user's PutObject: else a user whose policy lets it
// only write would publish the bucket owner's new object, or grant itself
// the reading of it. A CopyObject's x-amz-tagging counts only with the
// tagging directive REPLACE; the tags it copies from its source are
// mayCopyTags's. A writer that owns what it writes may set its ACL
// then as afterwards. An anonymous writer, whose write the gateway also
// gives the bucket's owner, is not asked either: S3 takes an anonymous
// upload's ACL and tags into a bucket everyone may write to, whose
// anonymous writer owns its object there (s3-tests'
// test_post_object_anonymous_request and
// test_post_object_tags_anonymous_request;
// TestConformancePostObjectAnonymous). Malformed ACL headers are left to
// the handler.
func (s *Server) mayDecorate(r *http.Request, rq *request, b object.Bucket) error {
	if !s.decoratesForOwner(rq, b) {
		return nil
	}
	h := r.Header
	owner := bucketOwner(b, rq)
	if acl, _, err := s.headerACL(h, owner, owner); err == nil && acl != nil && !acl.OnlyOwners(access.CanonicalID(owner)) {
		if s.decide(r, rq, b, "s3:PutObjectAcl", rq.key) != access.Allowed {
			return s3err.New(s3err.AccessDenied)
		}
	}
	tags := h.Get("X-Amz-Tagging") != ""
	if rq.op == "CopyObject" && h.Get("X-Amz-Tagging-Directive") != "REPLACE" {
		tags = false
	}
	if tags && !s.mayTag(r, rq, b) {
		return s3err.New(s3err.AccessDenied)
	}
	return nil
}

// decoratesForOwner reports whether the caller's write into bucket b
// needs s3:PutObjectAcl and s3:PutObjectTagging for the ACL and tags it
// gives its new object (mayDecorate): it is a user with an identity
// policy writing into a bucket it does not own.
func (s *Server) decoratesForOwner(rq *request, b object.Bucket) bool {
	return rq.accessKey != "" && rq.accessKey != b.Owner && s.identityOf(rq) != nil
}

// mayTag reports whether the caller may give the object its request
// writes into bucket b tags: s3:PutObjectTagging on the key, for a
// writer mayDecorate asks it of.
func (s *Server) mayTag(r *http.Request, rq *request, b object.Bucket) bool {
	return !s.decoratesForOwner(rq, b) || s.decide(r, rq, b, "s3:PutObjectTagging", rq.key) == access.Allowed
}

// mayLock checks that a write whose headers (r's; a POST upload's
// fields, see postConditionRequest) ask for Object Lock state may set
// it, as S3 checks: x-amz-object-lock-mode or -retain-until-date needs
// s3:PutObjectRetention on the key, x-amz-object-lock-legal-hold
// s3:PutObjectLegalHold. s3:PutObject alone lets a user write an object
// into a bucket, not lock it there against the bucket's owner and root.
func (s *Server) mayLock(r *http.Request, rq *request, b object.Bucket) error {
	h := r.Header
	if h.Get(objectlock.HeaderMode) != "" || h.Get(objectlock.HeaderRetainUntil) != "" {
		if s.decide(r, rq, b, "s3:PutObjectRetention", rq.key) != access.Allowed {
			return s3err.New(s3err.AccessDenied)
		}
	}
	if h.Get(objectlock.HeaderLegalHold) != "" {
		if s.decide(r, rq, b, "s3:PutObjectLegalHold", rq.key) != access.Allowed {
			return s3err.New(s3err.AccessDenied)
		}
	}
	return nil
}

// fileOwner returns the POSIX owner the caller's new files get, or nil.
func (s *Server) fileOwner(rq *request) *object.POSIXOwner {
	f, ok := s.opts.Credentials.(FileOwners)
	if !ok || rq.accessKey == "" {
		return nil
	}
	if o, ok := f.FileOwner(rq.accessKey); ok {
		return &o
	}
	return nil
}
