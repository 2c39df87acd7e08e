package api

import (
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// parseOwnershipControls reads an OwnershipControls document: one Rule
// with one ObjectOwnership. Anything else, an unknown value included, is
// MalformedXML, as S3 answers.
func parseOwnershipControls(body []byte) (access.Ownership, error) {
	x := newXMLDoc(body, maxConfigTokens)
	if err := x.root("OwnershipControls"); err != nil {
		return 0, err
	}
	var values []string
	err := x.elements(func(e xml.StartElement) error {
		if e.Name.Local != "Rule" {
			return x.skip()
		}
		return x.elements(func(e xml.StartElement) error {
			if e.Name.Local != "ObjectOwnership" {
				return x.skip()
			}
			v, err := x.text()
			values = append(values, v)
			return err
		})
	})
	if err != nil {
		return 0, err
	}
	if len(values) != 1 {
		return 0, s3err.New(s3err.MalformedXML)
	}
	o, ok := access.ParseOwnership(values[0])
	if !ok {
		return 0, s3err.New(s3err.MalformedXML)
	}
	return o, nil
}

// putBucketOwnershipControls answers PutBucketOwnershipControls.
// BucketOwnerEnforced on a bucket whose ACL grants anyone but its owner
// is InvalidBucketAclWithObjectOwnership: S3 disables ACLs only once they
// grant nothing.
func (s *Server) putBucketOwnershipControls(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := s.bucketID(rq)
	body, err := s.readBody(r, rq, maxBucketConfigBody)
	if err != nil {
		return err
	}
	o, err := parseOwnershipControls(body)
	if err != nil {
		return err
	}
	err = s.layer.UpdateBucket(rq.bucket, id, func(b *object.Bucket) error {
		if o == access.BucketOwnerEnforced && b.ACL != "" && !access.ParseStored(b.ACL).OnlyOwners(access.CanonicalID(bucketOwner(*b, rq))) {
			return s3err.New(s3err.InvalidBucketAclWithObjectOwnership)
		}
		b.Ownership = o.String()
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// getBucketOwnershipControls answers GetBucketOwnershipControls, or
// OwnershipControlsNotFoundError for a bucket that has none.
func (s *Server) getBucketOwnershipControls(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.Ownership == "" {
		return s3err.New(s3err.OwnershipControlsNotFoundError).With("BucketName", rq.bucket)
	}
	return writeRenderedXML(w, http.StatusOK, func(out []byte) []byte {
		out = append(out, `<OwnershipControls xmlns="`+s3NS+`"><Rule><ObjectOwnership>`...)
		out = appendXMLText(out, b.Ownership)
		return append(out, "</ObjectOwnership></Rule></OwnershipControls>"...)
	})
}

// deleteBucketOwnershipControls answers DeleteBucketOwnershipControls:
// 204 whether or not the bucket had them; the bucket then behaves as
// ObjectWriter.
func (s *Server) deleteBucketOwnershipControls(w http.ResponseWriter, r *http.Request, rq *request) error {
	err := s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.Ownership = ""
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
