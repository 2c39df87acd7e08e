package api

import (
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// This file answers the bucket-level operations of versioning and Object
// Lock. What a state means for the writes and deletes of the bucket is
// the object layer's; these handlers parse, call the layer and render.

// getBucketVersioning answers GetBucketVersioning: the bucket's state, or
// the empty document for a bucket whose versioning was never configured.
func (s *Server) getBucketVersioning(w http.ResponseWriter, r *http.Request, rq *request) error {
	st, err := s.layer.BucketState(rq.bucket)
	if err != nil {
		return err
	}
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte {
		return appendVersioningConfiguration(b, st.Versioning)
	})
}

// putBucketVersioning answers PutBucketVersioning. The layer refuses to
// suspend a bucket with Object Lock (InvalidBucketState).
func (s *Server) putBucketVersioning(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := s.bucketID(rq)
	body, err := s.readBody(r, rq, maxBucketConfigBody)
	if err != nil {
		return err
	}
	status, err := parseVersioningConfiguration(body)
	if err != nil {
		return err
	}
	if err := s.layer.SetVersioning(rq.bucket, id, status); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// getObjectLockConfiguration answers GetObjectLockConfiguration, which
// S3 answers ObjectLockConfigurationNotFoundError for a bucket without
// Object Lock.
func (s *Server) getObjectLockConfiguration(w http.ResponseWriter, r *http.Request, rq *request) error {
	st, err := s.layer.BucketState(rq.bucket)
	if err != nil {
		return err
	}
	if !st.ObjectLock {
		return s3err.New(s3err.ObjectLockConfigurationNotFoundError).With("BucketName", rq.bucket)
	}
	def := objectlock.Default{Mode: objectlock.Mode(st.LockMode), Days: st.LockDays, Years: st.LockYears}
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte {
		return appendObjectLockConfiguration(b, true, def)
	})
}

// putObjectLockConfiguration answers PutObjectLockConfiguration: it
// enables Object Lock on a bucket whose versioning is Enabled (else the
// layer answers InvalidBucketState) and sets its default retention, none
// when the document has no Rule.
func (s *Server) putObjectLockConfiguration(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := s.bucketID(rq)
	if err := requireBodyDigest(r.Header); err != nil {
		return err
	}
	body, err := s.readBody(r, rq, maxBucketConfigBody)
	if err != nil {
		return err
	}
	_, def, err := parseObjectLockConfiguration(body)
	if err != nil {
		return err
	}
	if err := s.layer.SetObjectLock(rq.bucket, id, def); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// requireBodyDigest refuses a request whose body carries neither
// Content-MD5 nor an x-amz-checksum-* value (in a header or named by
// x-amz-trailer), as S3 does for the operations whose integrity it
// insists on. Malformed digest headers are left to readBody, which
// reports them as it does for every body.
func requireBodyDigest(h http.Header) error {
	e, err := checksum.FromHeader(h)
	if err != nil || e.ContentMD5 != "" || e.Value != "" || e.InTrailer() {
		return nil
	}
	return s3err.Newf(s3err.InvalidRequest, "Missing required header for this request: Content-MD5 OR x-amz-checksum-*")
}
