package api

import (
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// putBucketPolicy answers PutBucketPolicy. The document is validated by
// pkg/policy and stored as sent; a public one is AccessDenied when the
// bucket's Block Public Access has BlockPublicPolicy, as in S3.
func (s *Server) putBucketPolicy(w http.ResponseWriter, r *http.Request, rq *request) error {
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	body, err := s.readBody(r, rq, maxPolicyBody)
	if err != nil {
		return err
	}
	p, err := policy.Parse(body, rq.bucket)
	if err != nil {
		return err
	}
	err = s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		// Block Public Access is checked against the record being
		// updated, so a configuration put meanwhile is not overtaken.
		if blockOf(*b).RefusesPolicy(p) {
			return s3err.New(s3err.AccessDenied)
		}
		b.Policy = string(body)
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// getBucketPolicy answers GetBucketPolicy: the stored document, or
// NoSuchBucketPolicy.
func (s *Server) getBucketPolicy(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.Policy == "" {
		return s3err.New(s3err.NoSuchBucketPolicy).With("BucketName", rq.bucket)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", itoa(int64(len(b.Policy))))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write([]byte(b.Policy))
	return err
}

// deleteBucketPolicy answers DeleteBucketPolicy: 204 whether or not the
// bucket had a policy, as S3 does.
func (s *Server) deleteBucketPolicy(w http.ResponseWriter, r *http.Request, rq *request) error {
	err := s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.Policy = ""
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type policyStatus struct {
	XMLName  xml.Name `xml:"PolicyStatus"`
	NS       string   `xml:"xmlns,attr"`
	IsPublic bool     `xml:"IsPublic"`
}

// getBucketPolicyStatus answers GetBucketPolicyStatus: whether the bucket
// policy is public by S3's definition (policy.IsPublic).
func (s *Server) getBucketPolicyStatus(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.Policy == "" {
		return s3err.New(s3err.NoSuchBucketPolicy).With("BucketName", rq.bucket)
	}
	return writeXML(w, http.StatusOK, policyStatus{NS: s3NS, IsPublic: s.access.parsedPolicy(b).IsPublic()})
}
