package api

import (
	"net/http"
	"net/url"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// maxBucketTags is S3's limit on a bucket's tag set.
const maxBucketTags = 50

// getBucketTagging answers GetBucketTagging: the stored tag set, or
// NoSuchTagSet when the bucket has none.
func (s *Server) getBucketTagging(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.Tags == "" {
		return s3err.New(s3err.NoSuchTagSet).With("BucketName", rq.bucket)
	}
	q, err := url.ParseQuery(b.Tags)
	if err != nil {
		return s3err.Wrap(s3err.InternalError, err)
	}
	out := tagging{NS: s3NS, TagSet: []tagXML{}}
	for _, kv := range queryKVs(q) {
		out.TagSet = append(out.TagSet, tagXML{kv.Key, kv.Value})
	}
	return writeXML(w, http.StatusOK, out)
}

// putBucketTagging answers PutBucketTagging: up to 50 tags, with the
// rules of object tags; an empty TagSet removes the tags.
func (s *Server) putBucketTagging(w http.ResponseWriter, r *http.Request, rq *request) error {
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	body, err := s.readBody(r, rq, maxBucketTaggingBody)
	if err != nil {
		return err
	}
	tags, err := parseTags(body, maxBucketTags, "Bucket")
	if err != nil {
		return err
	}
	q := url.Values{}
	for _, kv := range tags {
		q.Set(kv.Key, kv.Value)
	}
	if err := s.setBucketTags(rq, q.Encode()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteBucketTagging answers DeleteBucketTagging: 204 whether or not the
// bucket had tags.
func (s *Server) deleteBucketTagging(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := s.setBucketTags(rq, ""); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) setBucketTags(rq *request, tags string) error {
	return s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.Tags = tags
		return nil
	})
}

// queryKVs returns the pairs of q, stored tags (one value per key, as
// putBucketTagging wrote them), sorted by key.
func queryKVs(q url.Values) []metadata.KV {
	kvs := make([]metadata.KV, 0, len(q))
	for k, vs := range q {
		kvs = append(kvs, metadata.KV{Key: k, Value: vs[0]})
	}
	sortKVs(kvs)
	return kvs
}

// unsetConfig is a bucket subresource the gateway has no way to configure
// (replication, encryption, …): reading it answers what S3
// answers for a bucket where it was never set, and deleting it succeeds,
// as there is nothing to delete. Setting it stays NotImplemented.
type unsetConfig struct {
	get, del string     // the operations' names; del "" if S3 has none
	missing  s3err.Code // the GET's error, when S3 answers one
	empty    string     // else the GET's document: an empty configuration
}

// unsetConfigs are keyed by subresource.
var unsetConfigs = map[string]unsetConfig{
	"replication":    {get: "GetBucketReplication", del: "DeleteBucketReplication", missing: s3err.ReplicationConfigurationNotFoundError},
	"logging":        {get: "GetBucketLogging", empty: `<BucketLoggingStatus xmlns="` + s3NS + `"></BucketLoggingStatus>`},
	"notification":   {get: "GetBucketNotificationConfiguration", empty: `<NotificationConfiguration xmlns="` + s3NS + `"></NotificationConfiguration>`},
	"accelerate":     {get: "GetBucketAccelerateConfiguration", empty: `<AccelerateConfiguration xmlns="` + s3NS + `"></AccelerateConfiguration>`},
	"requestPayment": {get: "GetBucketRequestPayment", empty: `<RequestPaymentConfiguration xmlns="` + s3NS + `"><Payer>BucketOwner</Payer></RequestPaymentConfiguration>`},
}

// routeUnset names the GET or DELETE of an unset configuration; ok is
// false for anything else.
func (s *Server) routeUnset(method, sub string) (operation, bool) {
	c, ok := unsetConfigs[sub]
	switch {
	case !ok:
		return operation{}, false
	case method == http.MethodGet:
		return operation{c.get, func(w http.ResponseWriter, r *http.Request, rq *request) error {
			return s.getUnset(w, rq, c)
		}}, true
	case method == http.MethodDelete && c.del != "":
		return operation{c.del, s.deleteUnset}, true
	}
	return operation{}, false
}

func (s *Server) getUnset(w http.ResponseWriter, rq *request, c unsetConfig) error {
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	if c.empty == "" {
		return s3err.New(c.missing).With("BucketName", rq.bucket)
	}
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte { return append(b, c.empty...) })
}

func (s *Server) deleteUnset(w http.ResponseWriter, r *http.Request, rq *request) error {
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
