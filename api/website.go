package api

import (
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/website"
)

// putBucketWebsite answers PutBucketWebsite. The canonical form of the
// configuration is stored in the bucket record and returned by
// GetBucketWebsite; the website endpoint (website_endpoint.go) serves it.
func (s *Server) putBucketWebsite(w http.ResponseWriter, r *http.Request, rq *request) error {
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	body, err := s.readBody(r, rq, website.MaxSize)
	if err != nil {
		return err
	}
	cfg, err := website.Parse(body)
	if err != nil {
		return err
	}
	doc := string(cfg.Marshal())
	err = s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.Website = doc
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// getBucketWebsite answers GetBucketWebsite, or NoSuchWebsiteConfiguration.
func (s *Server) getBucketWebsite(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.Website == "" {
		return s3err.New(s3err.NoSuchWebsiteConfiguration).With("BucketName", rq.bucket)
	}
	return writeRenderedXML(w, http.StatusOK, func(out []byte) []byte { return append(out, b.Website...) })
}

// deleteBucketWebsite answers DeleteBucketWebsite: 204 whether or not
// there was a configuration, as S3 does.
func (s *Server) deleteBucketWebsite(w http.ResponseWriter, r *http.Request, rq *request) error {
	err := s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.Website = ""
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
