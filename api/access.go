package api

import (
	"net/http"
	"strings"
	"sync"

	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/cors"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// This file decides what requests without credentials may do, and routes
// the operations of the access features (bucket policy, ACL, CORS, browser
// POST upload).

// Operation names of requests that carry their own authentication (or
// none) and therefore bypass SigV4 header/query verification.
const (
	opPostObject    = "PostObject"
	opCORSPreflight = "CORSPreflight"
)

// routeAccess names the operations of bucket policies, ACLs, CORS and
// browser POST uploads; ok is false for every other request. It is pure,
// and part of route's table.
func (s *Server) routeAccess(method string, lv level, sub string, h http.Header) (operation, bool) {
	switch {
	case method == http.MethodOptions && (lv == levelBucket || lv == levelObject):
		return operation{opCORSPreflight, s.corsPreflight}, true
	case lv != levelBucket:
		return operation{}, false
	case sub == "":
		if method == http.MethodPost && isFormData(h.Get("Content-Type")) {
			return operation{opPostObject, s.postObject}, true
		}
		return operation{}, false
	}
	switch sub {
	case "policy":
		switch method {
		case http.MethodGet:
			return operation{"GetBucketPolicy", s.getBucketPolicy}, true
		case http.MethodPut:
			return operation{"PutBucketPolicy", s.putBucketPolicy}, true
		case http.MethodDelete:
			return operation{"DeleteBucketPolicy", s.deleteBucketPolicy}, true
		}
	case "policyStatus":
		if method == http.MethodGet {
			return operation{"GetBucketPolicyStatus", s.getBucketPolicyStatus}, true
		}
	case "acl":
		switch method {
		case http.MethodGet:
			return operation{"GetBucketAcl", s.getBucketACL}, true
		case http.MethodPut:
			return operation{"PutBucketAcl", s.putBucketACL}, true
		}
	case "publicAccessBlock":
		switch method {
		case http.MethodGet:
			return operation{"GetPublicAccessBlock", s.getPublicAccessBlock}, true
		case http.MethodPut:
			return operation{"PutPublicAccessBlock", s.putPublicAccessBlock}, true
		case http.MethodDelete:
			return operation{"DeletePublicAccessBlock", s.deletePublicAccessBlock}, true
		}
	case "ownershipControls":
		switch method {
		case http.MethodGet:
			return operation{"GetBucketOwnershipControls", s.getBucketOwnershipControls}, true
		case http.MethodPut:
			return operation{"PutBucketOwnershipControls", s.putBucketOwnershipControls}, true
		case http.MethodDelete:
			return operation{"DeleteBucketOwnershipControls", s.deleteBucketOwnershipControls}, true
		}
	case "cors":
		switch method {
		case http.MethodGet:
			return operation{"GetBucketCors", s.getBucketCORS}, true
		case http.MethodPut:
			return operation{"PutBucketCors", s.putBucketCORS}, true
		case http.MethodDelete:
			return operation{"DeleteBucketCors", s.deleteBucketCORS}, true
		}
	}
	return operation{}, false
}

// isFormData reports whether a Content-Type is multipart/form-data.
func isFormData(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "multipart/form-data")
}

// selfAuthenticated reports whether an operation is served without SigV4
// verification: a CORS preflight (browsers never sign it) and a browser
// POST upload (whose signature is a form field, checked by the handler).
func selfAuthenticated(op string) bool {
	return op == opPostObject || op == opCORSPreflight
}

// bucketRecord returns the record of the addressed bucket, reading the
// index at most once per request.
func (s *Server) bucketRecord(rq *request) (object.Bucket, error) {
	if rq.bkt != nil {
		return *rq.bkt, nil
	}
	if rq.bktMissing {
		return object.Bucket{}, s3err.New(s3err.NoSuchBucket).With("BucketName", rq.bucket)
	}
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		// A bucket missing when the request was authorized stays missing
		// for it: one created meanwhile, perhaps by another user, is not
		// the bucket the request may write (see bucketID).
		if c, ok := s3err.CodeOf(err); ok && c == s3err.NoSuchBucket {
			rq.bktMissing = true
		}
		return b, err
	}
	rq.bkt = &b
	return b, nil
}

// accessCache caches parsed bucket policies and CORS configurations.
type accessCache struct {
	// unreadable is told of a stored bucket policy that cannot be
	// parsed, once per text (the server logs it).
	unreadable func(bucket string, err error)
	policies   parsedCache[*policy.Policy]
	cors       parsedCache[*cors.Config]
	// acls holds parsed bucket and object ACLs by stored form.
	acls parsedCache[*access.ACL]
}

const maxAccessCache = 1024

// parsedCache maps the stored text of a bucket configuration to its parsed
// form, so that a request parses nothing the previous one parsed. Keys are
// the text itself (a changed configuration is a new key, so no entry goes
// stale); the map is dropped whole when it holds maxAccessCache entries.
type parsedCache[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

// get returns the parsed form of key, calling parse on a miss.
func (c *parsedCache[T]) get(key string, parse func() T) T {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = parse()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxAccessCache {
		c.m = make(map[string]T)
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}

// policyOf returns the evaluator of a bucket policy's grants to
// everyone, or nil (nothing), as Block Public Access lets them grant
// (RestrictPublicBuckets). The website endpoint asks it; ACLs do not
// publish objects there.
func (c *accessCache) policyOf(b object.Bucket) *policy.Policy {
	block := blockOf(b)
	if b.Policy == "" {
		return nil
	}
	p := c.parsedPolicy(b)
	if block.RestrictPublicBuckets && p.IsPublic() {
		// Everyone is anonymous to the callers of policyOf, which a
		// public policy of such a bucket grants nothing.
		return nil
	}
	return p
}

// bucketOf returns what pkg/access needs of a bucket: its owner, its
// parsed bucket policy and ACL, its Object Ownership and Block Public
// Access.
func (c *accessCache) bucketOf(b object.Bucket) *access.Bucket {
	ab := &access.Bucket{Name: b.Name, Owner: b.Owner, Block: blockOf(b), Ownership: ownershipOf(b)}
	if b.Policy != "" {
		ab.Policy = c.parsedPolicy(b)
	}
	if b.ACL != "" {
		ab.ACL = c.acls.get(b.ACL, func() *access.ACL { return access.ParseStored(b.ACL) })
	}
	return ab
}

// parsedPolicy returns a bucket's parsed policy, parsing each stored text
// once.
func (c *accessCache) parsedPolicy(b object.Bucket) *policy.Policy {
	return c.policies.get(b.Name+"\x00"+b.Policy, func() *policy.Policy {
		// The text was validated before it was stored; ParseStored
		// reads what an earlier version accepted and this one refuses
		// (an Allow with NotPrincipal) as granting nothing, keeping the
		// other statements. A text it still cannot read (from a later
		// version, or damaged) denies everything but the owner's policy
		// operations: read as no policy, its Denies would be lost.
		p, err := policy.ParseStored([]byte(b.Policy), b.Name)
		if err != nil {
			if c.unreadable != nil {
				c.unreadable(b.Name, err)
			}
			return policy.Unreadable(b.Name)
		}
		return p
	})
}

// corsOf returns a bucket's parsed CORS configuration, or nil.
func (c *accessCache) corsOf(b object.Bucket) *cors.Config {
	if b.CORS == "" {
		return nil
	}
	return c.cors.get(b.CORS, func() *cors.Config {
		cfg, _ := cors.Parse([]byte(b.CORS))
		return cfg
	})
}

// bucketID returns the identity (Bucket.ID) of the addressed bucket as the
// request was authorized against it, for the layer to check when the
// write commits. A bucket that did not exist then is object.NoBucket: a
// bucket created under that name while the request's body arrives is not
// the one it was authorized against either.
func (s *Server) bucketID(rq *request) uint64 {
	// The first identity read for the request is the one it was
	// authorized against; a record read later may be a newer bucket's.
	switch {
	case rq.bktID != 0:
		return rq.bktID
	case rq.bkt != nil:
		return rq.bkt.ID
	case rq.bktMissing:
		return object.NoBucket
	}
	id, err := s.layer.BucketID(rq.bucket)
	if c, ok := s3err.CodeOf(err); err != nil && ok && c == s3err.NoSuchBucket {
		rq.bktMissing = true
		return object.NoBucket
	}
	if err != nil {
		// A record that could not be read (the index stopped after a
		// failed commit, an I/O error) is not a missing bucket: zero
		// makes the layer read the record itself and answer that error
		// rather than NoSuchBucket.
		return 0
	}
	rq.bktID = id
	return id
}
