package api

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// This file holds what the object operations share about versions and
// Object Lock: the versionId parameter, the x-amz-version-id answer, the
// lock headers of uploads and reads, and the retention and legal hold
// operations of one version.

// headerVersionID is the header S3 answers an object operation of a
// versioned bucket with: the version read, written or removed.
const headerVersionID = "X-Amz-Version-Id"

// maxLockBody bounds a Retention or LegalHold document, a few hundred
// bytes in any client.
const maxLockBody = 16 << 10

// versionParam returns the versionId query parameter of a request, "" when
// it has none. A parameter sent empty is InvalidArgument, as S3 answers;
// the layer checks that any other value is an id it could have given.
func versionParam(q url.Values) (string, error) {
	v, ok := q["versionId"]
	if !ok {
		return "", nil
	}
	if len(v) == 0 || v[0] == "" {
		return "", s3err.Newf(s3err.InvalidArgument, "Version id cannot be the empty string").
			With("ArgumentName", "versionId").With("ArgumentValue", "")
	}
	return v[0], nil
}

// versioned reports whether the addressed bucket is versioned (Enabled or
// Suspended). It answers from the bucket record the request already read
// for its authorization or defaults when there is one; without a read at
// all while no bucket of the gateway has been versioned (the GET of an
// unversioned bucket's object stays one index read); and reads the
// bucket's state otherwise. A bucket that cannot be read is taken as
// unversioned, since the operation itself has answered for it by then.
func (s *Server) versioned(rq *request) bool {
	if rq.bkt != nil {
		return rq.bkt.Versioning != ""
	}
	if !s.bucketVersioning && !s.layer.BucketVersioningSet() {
		return false
	}
	st, err := s.layer.BucketState(rq.bucket)
	return err == nil && st.Versioned()
}

// setVersionID sets x-amz-version-id to the version id of an answer in a
// versioned bucket. A version with an id is only ever in a versioned
// bucket, so the bucket's state is read only for the null version.
func (s *Server) setVersionID(h http.Header, rq *request, id string) {
	if id == "" {
		if !s.versioned(rq) {
			return
		}
		id = metadata.NullVersion
	}
	h[headerVersionID] = []string{id}
}

// setWrittenVersionID sets x-amz-version-id on the answer to a write
// (PutObject, CopyObject, CompleteMultipartUpload, a POST upload) to the
// id of the version it made. A write while versioning is suspended makes
// the null version and is answered without the header, as S3 answers it
// (its PutObject reference shows the header in the versioning-enabled
// example and not in the suspended one); GET and HEAD of that version
// name it "null".
func setWrittenVersionID(h http.Header, id string) {
	if id != "" && id != metadata.NullVersion {
		h[headerVersionID] = []string{id}
	}
}

// setLockHeaders sets the Object Lock headers of a GET or HEAD of a version
// that carries retention or a legal hold.
func setLockHeaders(h http.Header, o *object.Object) {
	if o.LockMode != "" {
		h[objectlock.HeaderMode] = []string{o.LockMode}
		h[objectlock.HeaderRetainUntil] = []string{o.LockUntil.UTC().Format(s3Time)}
	}
	if o.LegalHold {
		h[objectlock.HeaderLegalHold] = []string{objectlock.LegalHoldOn}
	}
}

// uploadLock reads the Object Lock headers of an upload (PutObject,
// CopyObject, CreateMultipartUpload) into the new version's lock.
func (s *Server) uploadLock(h http.Header) (object.Lock, error) {
	r, hold, err := objectlock.ParseHeaders(h.Get(objectlock.HeaderMode), h.Get(objectlock.HeaderRetainUntil), h.Get(objectlock.HeaderLegalHold), s.now())
	return object.Lock{Retention: r, LegalHold: hold}, err
}

// hasLockHeaders reports whether an upload sent any Object Lock header.
func hasLockHeaders(h http.Header) bool {
	return h.Get(objectlock.HeaderMode) != "" || h.Get(objectlock.HeaderRetainUntil) != "" || h.Get(objectlock.HeaderLegalHold) != ""
}

// requireIntegrity refuses a PutObject with Object Lock headers whose body
// carries neither Content-MD5 nor an x-amz-checksum-* (in a header or the
// trailer): S3 will not lock bytes it could not verify.
func requireIntegrity(h http.Header, expect checksum.Expect) error {
	if !hasLockHeaders(h) || expect.ContentMD5 != "" || expect.Algorithm != checksum.None {
		return nil
	}
	return s3err.Newf(s3err.InvalidRequest, "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object Lock parameters")
}

// bypassGovernance reports whether a request may override GOVERNANCE
// retention of key: it asks to with x-amz-bypass-governance-retention, and
// pkg/access allows the caller s3:BypassGovernanceRetention on the key
// (root and the bucket's owner always, anyone else by the bucket policy).
// A request that asks without the permission is treated as one that did
// not ask, so the retention refuses it, as in S3.
func (s *Server) bypassGovernance(r *http.Request, rq *request, key string) bool {
	if !strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Amz-Bypass-Governance-Retention")), "true") {
		return false
	}
	if rq.accessKey != "" && s.isAdmin(rq.accessKey) {
		return true
	}
	b, err := s.bucketRecord(rq)
	return err == nil && s.decide(r, rq, b, "s3:BypassGovernanceRetention", key) == access.Allowed
}

// lockVersion returns the version a retention or legal hold request
// addresses, after checking the bucket has Object Lock: S3 answers
// InvalidRequest on any other bucket, before looking for the version.
func (s *Server) lockVersion(r *http.Request, rq *request) (object.Object, error) {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return object.Object{}, err
	}
	st, err := s.layer.BucketState(rq.bucket)
	if err != nil {
		return object.Object{}, err
	}
	if !st.ObjectLock {
		return object.Object{}, s3err.Newf(s3err.InvalidRequest, "Bucket is missing Object Lock Configuration")
	}
	return s.layer.StatVersion(rq.bucket, rq.key, id)
}

// getObjectRetention answers GetObjectRetention. A version without
// retention is NoSuchObjectLockConfiguration, as in S3.
func (s *Server) getObjectRetention(w http.ResponseWriter, r *http.Request, rq *request) error {
	o, err := s.lockVersion(r, rq)
	if err != nil {
		return err
	}
	if o.LockMode == "" {
		return s3err.Newf(s3err.NoSuchObjectLockConfiguration, "The specified object does not have a ObjectLock configuration")
	}
	ret := objectlock.Retention{Mode: objectlock.Mode(o.LockMode), Until: o.LockUntil}
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte { return appendRetention(b, ret) })
}

// putObjectRetention answers PutObjectRetention.
func (s *Server) putObjectRetention(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return err
	}
	var ret objectlock.Retention
	if e := rq.early; e != nil {
		ret, err = e.retention, e.err
	} else {
		ret, err = s.readRetentionBody(r, rq)
	}
	if err != nil {
		return err
	}
	// S3 answers with no header naming the version: the request named it.
	if _, err := s.layer.PutRetention(rq.bucket, rq.key, id, ret, s.bypassGovernance(r, rq, rq.key), object.Conditions{BucketID: s.bucketID(rq)}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// readRetentionBody reads and parses a PutObjectRetention body.
func (s *Server) readRetentionBody(r *http.Request, rq *request) (objectlock.Retention, error) {
	body, err := s.readBody(r, rq, maxLockBody)
	if err != nil {
		return objectlock.Retention{}, err
	}
	return parseRetentionBody(body, s.now())
}

// readLegalHoldBody reads and parses a PutObjectLegalHold body.
func (s *Server) readLegalHoldBody(r *http.Request, rq *request) (bool, error) {
	body, err := s.readBody(r, rq, maxLockBody)
	if err != nil {
		return false, err
	}
	return parseLegalHoldBody(body)
}

// getObjectLegalHold answers GetObjectLegalHold. S3 answers a version
// never put under a legal hold with OFF once the bucket has Object Lock.
func (s *Server) getObjectLegalHold(w http.ResponseWriter, r *http.Request, rq *request) error {
	o, err := s.lockVersion(r, rq)
	if err != nil {
		return err
	}
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte { return appendLegalHold(b, o.LegalHold) })
}

// putObjectLegalHold answers PutObjectLegalHold.
func (s *Server) putObjectLegalHold(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
		return err
	}
	var on bool
	if e := rq.early; e != nil {
		on, err = e.hold, e.err
	} else {
		on, err = s.readLegalHoldBody(r, rq)
	}
	if err != nil {
		return err
	}
	if _, err := s.layer.PutLegalHold(rq.bucket, rq.key, id, on, object.Conditions{BucketID: s.bucketID(rq)}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
