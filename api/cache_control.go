package api

import (
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// setDefaultCacheControl gives a GET, HEAD or 304 response of an object
// stored without Cache-Control a default, so that an edge cache keeps and
// revalidates objects uploaded without caching headers instead of
// guessing a lifetime: the bucket's (metadata.Bucket.CacheControl, set
// with `objectgateway bucket cache-control`), else the server's
// (Options.DefaultCacheControl). A stored value, or a
// response-cache-control override already in h, wins.
//
// The bucket record is read (at most once per request; anonymous requests
// have read it already) only when some bucket had a default when the
// Server was made, or the layer has given one a default since (the
// control socket sets them while the gateway serves). New buckets have
// none, so a gateway without per-bucket defaults pays nothing for them.
func (s *Server) setDefaultCacheControl(h http.Header, rq *request) {
	if len(h["Cache-Control"]) > 0 {
		return
	}
	v := s.opts.DefaultCacheControl
	if s.bucketCacheControl || rq.bkt != nil || s.layer.BucketCacheControlSet() {
		// A bucket deleted since the object was opened has no default:
		// the server's applies.
		if b, err := s.bucketRecord(rq); err == nil && b.CacheControl != "" {
			v = b.CacheControl
		}
	}
	if v != "" {
		h["Cache-Control"] = []string{v}
	}
}

// bucketDefaults reports, in one read of the buckets, whether some bucket
// of layer has a default Cache-Control and whether some bucket is
// versioned. It answers true for both when the buckets cannot be read, so
// that the records are then read per request instead of ignored.
func bucketDefaults(layer *object.Layer) (cacheControl, versioning bool) {
	buckets, err := layer.Buckets()
	if err != nil {
		return true, true
	}
	for _, b := range buckets {
		cacheControl = cacheControl || b.CacheControl != ""
		versioning = versioning || b.Versioning != ""
	}
	return cacheControl, versioning
}
