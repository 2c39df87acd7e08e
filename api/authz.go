package api

import (
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// This file decides what an authenticated caller may do. The root user
// administers every bucket. Any other user sees and uses only the buckets
// it owns (it created them); on a bucket it does not own it has exactly
// the grants everyone has — the bucket policy or canned ACL, evaluated by
// serveAnonymous — and no more.

// Principals is an optional interface of Options.Credentials that tells
// the root user from the others. Credentials without it make every
// authenticated caller an administrator, as when the gateway had a single
// user.
type Principals interface {
	// IsRoot reports whether an access key is the root user's.
	IsRoot(accessKey string) bool
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
	return s.isAdmin(rq.accessKey) || (b.Owner != "" && b.Owner == rq.accessKey)
}

// serveAuthorized runs an authenticated request: as itself when the caller
// owns the addressed bucket (or is root), else with the grants everyone
// has.
func (s *Server) serveAuthorized(w http.ResponseWriter, r *http.Request, rq *request, op operation) error {
	if s.isAdmin(rq.accessKey) {
		if rq.bucket != "" && r.Method != http.MethodGet && r.Method != http.MethodHead {
			// A write is authorized against the bucket as it is now, before
			// any of its body is read (see bucketID); reads need no record.
			s.bucketID(rq)
		}
		return op.handler(w, r, rq)
	}
	if rq.bucket == "" {
		// ListBuckets, which lists only the caller's buckets (see
		// listBuckets), or NotImplemented.
		return op.handler(w, r, rq)
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchBucket {
			// Nothing to protect: the handler answers NoSuchBucket, or
			// CreateBucket creates it with the caller as owner.
			return op.handler(w, r, rq)
		}
		return err
	}
	if !s.owns(rq, b) {
		if op.name == "CreateBucket" {
			return s3err.New(s3err.BucketAlreadyExists).With("BucketName", rq.bucket)
		}
		return s.serveAnonymous(w, r, rq, op)
	}
	if op.name == "CopyObject" || op.name == "UploadPartCopy" {
		if err := s.mayReadSource(r, rq); err != nil {
			return err
		}
	}
	return op.handler(w, r, rq)
}

// mayReadSource checks that the caller may read the source object of a
// copy: it owns the source bucket, or everyone may read the object. A
// malformed or missing source is left to the handler to report.
func (s *Server) mayReadSource(r *http.Request, rq *request) error {
	src, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return nil
	}
	bucket, key := src.bucket, src.key
	b, err := s.layer.Bucket(bucket)
	if err != nil {
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchBucket {
			return nil
		}
		return err
	}
	if s.owns(rq, b) || s.access.policyOf(b).Allows(policy.GetObject, key) {
		return nil
	}
	return s3err.New(s3err.AccessDenied)
}

// mayPost checks that the signer of a browser POST upload may write to the
// addressed bucket: only its owner may (the gateway never grants writes
// to everyone). A missing bucket is left to the handler.
func (s *Server) mayPost(rq *request) error {
	if s.isAdmin(rq.accessKey) {
		return nil
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchBucket {
			return nil
		}
		return err
	}
	if !s.owns(rq, b) {
		return s3err.New(s3err.AccessDenied)
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
