package api

import (
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// checkExpectedOwners answers AccessDenied, as S3 does, when a request
// names an expected owner (x-amz-expected-bucket-owner for the addressed
// bucket, x-amz-source-expected-bucket-owner for a copy's source bucket)
// other than the bucket's. The owner is compared as the gateway reports
// it in the Owner ID of GetBucketAcl and ListBuckets (see ownerOf). A
// missing bucket, or a malformed copy source, is left to the handler to
// report.
func (s *Server) checkExpectedOwners(r *http.Request, rq *request) error {
	if want := r.Header.Get("X-Amz-Expected-Bucket-Owner"); want != "" && rq.bucket != "" {
		b, err := s.bucketRecord(rq)
		if err == nil && !s.ownedBy(b, rq, want) {
			return s3err.New(s3err.AccessDenied)
		}
	}
	want := r.Header.Get("X-Amz-Source-Expected-Bucket-Owner")
	if want == "" || r.Header.Get("X-Amz-Copy-Source") == "" {
		return nil
	}
	src, err := parseCopySource(r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return nil
	}
	b, err := s.layer.Bucket(src.bucket)
	if err == nil && !s.ownedBy(b, rq, want) {
		return s3err.New(s3err.AccessDenied)
	}
	return nil
}

// ownedBy reports whether id is the owner id of b. A bucket without an
// owner belongs to the root user, whose id the gateway reports to root
// callers as their own (bucketOwner); to any other caller such a bucket
// has no id it could expect.
func (s *Server) ownedBy(b object.Bucket, rq *request, id string) bool {
	if b.Owner == "" && (rq.accessKey == "" || !s.isAdmin(rq.accessKey)) {
		return false
	}
	return ownerOf(bucketOwner(b, rq)).ID == id
}
