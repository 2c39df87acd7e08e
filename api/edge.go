package api

import (
	"net/http"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/edge"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
)

// EdgeOptions put the server in edge mode: GET and HEAD of objects are
// answered by an edge cache in front of a remote S3 origin, and every
// other operation is refused with NotImplemented.
type EdgeOptions struct {
	Cache *edge.Cache
	// Public lets anonymous clients read through the edge (public
	// content). Without it every request must be signed with one of the
	// edge's own users.
	Public bool
}

// serveEdge authenticates a request of edge mode and hands GET and HEAD
// of objects to the cache.
func (s *Server) serveEdge(w http.ResponseWriter, r *http.Request, rq *request, op operation) error {
	if op.name != "GetObject" && op.name != "HeadObject" {
		return s3err.Newf(s3err.NotImplemented, "This ObjectGateway is an edge cache: it serves GetObject and HeadObject only.")
	}
	if err := edgeAddress(rq.bucket, rq.key); err != nil {
		return err
	}
	auth, err := s.authenticate(r, rq)
	if err != nil {
		return err
	}
	rq.auth = auth
	if auth.Anonymous && !s.opts.Edge.Public {
		return s3err.New(s3err.AccessDenied)
	}
	rq.accessKey = auth.AccessKeyID
	for k := range rq.queryOf(r) {
		// Authentication has run first, so that SigV2 and malformed
		// signatures get the answer they get from the gateway itself.
		// Subresources and response overrides would be cached under the
		// object's name; the edge serves plain object reads only.
		if !strings.HasPrefix(k, "X-Amz-") && k != "x-id" && !sigv2QueryParam(k) {
			return s3err.Newf(s3err.NotImplemented, "The edge cache does not serve the %q query parameter.", k)
		}
	}
	return s.opts.Edge.Cache.Serve(w, r, rq.bucket, rq.key)
}

// edgeAddress refuses what the edge must not pass on to its origin: a
// bucket name S3 would not accept, and keys with "." or ".." segments,
// which a proxy in front of the origin could resolve into another bucket
// or out of the origin's base path (and which would also alias cache
// entries, so that a purge misses them).
func edgeAddress(bucket, key string) error {
	if err := s3name.ValidExistingBucketName(bucket); err != nil {
		return err
	}
	if err := s3name.ValidKey(key); err != nil {
		return err
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "." || seg == ".." {
			return s3err.Newf(s3err.InvalidArgument, "The edge cache does not serve keys with \".\" or \"..\" path segments.")
		}
	}
	return nil
}

// sigv2QueryParam reports whether k is a parameter of Signature Version 2
// query authentication, which authenticate has verified (or refused).
func sigv2QueryParam(k string) bool {
	return k == "AWSAccessKeyId" || k == "Signature" || k == "Expires"
}
