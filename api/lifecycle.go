package api

import (
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/lifecycle"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// putBucketLifecycle answers PutBucketLifecycleConfiguration: the
// document is validated (pkg/lifecycle) and its canonical form replaces
// the bucket's configuration.
func (s *Server) putBucketLifecycle(w http.ResponseWriter, r *http.Request, rq *request) error {
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	body, err := s.readBody(r, rq, lifecycle.MaxSize)
	if err != nil {
		return err
	}
	cfg, err := lifecycle.Parse(body)
	if err != nil {
		return err
	}
	doc := string(lifecycle.Render(cfg))
	s.lifecycleSet.Store(true)
	if err := s.setBucketLifecycle(rq, doc); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// getBucketLifecycle answers GetBucketLifecycleConfiguration, or
// NoSuchLifecycleConfiguration.
func (s *Server) getBucketLifecycle(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.Lifecycle == "" {
		return s3err.New(s3err.NoSuchLifecycleConfiguration).With("BucketName", rq.bucket)
	}
	return writeRenderedXML(w, http.StatusOK, func(out []byte) []byte { return append(out, b.Lifecycle...) })
}

// deleteBucketLifecycle answers DeleteBucketLifecycle: 204 whether or not
// there was a configuration, as S3 does.
func (s *Server) deleteBucketLifecycle(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := s.setBucketLifecycle(rq, ""); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) setBucketLifecycle(rq *request, doc string) error {
	return s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.Lifecycle = doc
		return nil
	})
}

// setExpiration gives a PutObject, CopyObject, GetObject or HeadObject
// answer the x-amz-expiration of the object o of the request's bucket:
// when the earliest enabled Expiration rule that matches it expires it,
// and the rule's ID. The bucket record is read (once per request) only
// when some bucket had a configuration when the Server was made or this
// Server has stored one since, so a gateway without lifecycle rules pays
// nothing for them.
func (s *Server) setExpiration(h http.Header, rq *request, o *object.Object) {
	if !s.lifecycleSet.Load() {
		return
	}
	b, err := s.bucketRecord(rq)
	if err != nil || b.Lifecycle == "" {
		return
	}
	cfg := s.lifecycles.get(b.Lifecycle, func() *lifecycle.Configuration {
		c, err := lifecycle.Parse([]byte(b.Lifecycle))
		if err != nil {
			// The stored document was validated when it was put.
			return nil
		}
		return c
	})
	tags := func(k string) (string, bool) {
		for _, kv := range o.Tags {
			if kv.Key == k {
				return kv.Value, true
			}
		}
		return "", false
	}
	if at, id, ok := cfg.Expiration(o.Key, o.Size, tags, o.LastModified, s.opts.LifecycleDay); ok {
		h["X-Amz-Expiration"] = []string{lifecycle.ExpirationHeader(at, id)}
	}
}

// anyBucketLifecycle reports whether some bucket of layer has a lifecycle
// configuration; true when the buckets cannot be read, so that records
// are then read per request instead of ignored.
func anyBucketLifecycle(layer *object.Layer) bool {
	buckets, err := layer.Buckets()
	if err != nil {
		return true
	}
	for _, b := range buckets {
		if b.Lifecycle != "" {
			return true
		}
	}
	return false
}
