package api

import (
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/cors"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// putBucketCORS answers PutBucketCors. The canonical form of the
// configuration is stored and returned by GetBucketCors.
func (s *Server) putBucketCORS(w http.ResponseWriter, r *http.Request, rq *request) error {
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	body, err := s.readBody(r, rq, cors.MaxSize)
	if err != nil {
		return err
	}
	cfg, err := cors.Parse(body)
	if err != nil {
		return err
	}
	doc := string(cfg.Marshal())
	err = s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.CORS = doc
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// getBucketCORS answers GetBucketCors, or NoSuchCORSConfiguration.
func (s *Server) getBucketCORS(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.CORS == "" {
		return s3err.New(s3err.NoSuchCORSConfiguration).With("BucketName", rq.bucket)
	}
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", itoa(int64(len(b.CORS))))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write([]byte(b.CORS))
	return err
}

// deleteBucketCORS answers DeleteBucketCors: 204 whether or not there was
// a configuration.
func (s *Server) deleteBucketCORS(w http.ResponseWriter, r *http.Request, rq *request) error {
	err := s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.CORS = ""
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// corsPreflight answers a browser's preflight OPTIONS request from the
// bucket's CORS rules. It is unauthenticated, as in S3.
func (s *Server) corsPreflight(w http.ResponseWriter, r *http.Request, rq *request) error {
	origin := r.Header.Get("Origin")
	method := r.Header.Get("Access-Control-Request-Method")
	resource := "BUCKET"
	if rq.key != "" {
		resource = "OBJECT"
	}
	forbidden := func(msg string) error {
		e := s3err.New(s3err.AccessForbidden)
		if msg != "" {
			e = s3err.Newf(s3err.AccessForbidden, "%s", msg)
		}
		return e.With("Method", method).With("ResourceType", resource)
	}
	if origin == "" {
		return s3err.New(s3err.BadRequest)
	}
	switch method {
	case "GET", "PUT", "POST", "DELETE", "HEAD":
	default:
		return s3err.Newf(s3err.BadRequest, "Invalid Access-Control-Request-Method: %s", method)
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		return forbidden("CORSResponse: Bucket not found")
	}
	cfg := s.access.corsOf(b)
	if cfg == nil {
		return forbidden("CORSResponse: CORS is not enabled for this bucket.")
	}
	requested := cors.RequestHeaders(r.Header.Get("Access-Control-Request-Headers"))
	rule := cfg.Match(origin, method, requested)
	if rule == nil {
		return forbidden("")
	}
	h := w.Header()
	setCORSHeaders(h, rule.Response(origin, requested))
	h.Set("Vary", "Origin, Access-Control-Request-Headers, Access-Control-Request-Method")
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
	return nil
}

// corsActual adds the CORS response headers to a request to a bucket
// carrying Origin when the bucket has a CORS rule for that origin and
// method. Requests without an Origin header never pay for the bucket
// lookup, and it is called only once the request holds a slot, so that
// the lookup is never work for an unadmitted client. Errors are ignored:
// the request itself reports them.
func (s *Server) corsActual(w http.ResponseWriter, r *http.Request, rq *request) {
	if len(r.Header["Origin"]) == 0 || rq.bucket == "" {
		return
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		return
	}
	cfg := s.access.corsOf(b)
	if cfg == nil {
		return
	}
	h := w.Header()
	h.Set("Vary", "Origin, Access-Control-Request-Headers, Access-Control-Request-Method")
	origin := r.Header.Get("Origin")
	// A request that is not a preflight but carries a preflight's
	// Access-Control-Request-Method is matched, and answered, as that
	// preflight would be, with its Access-Control-Request-Headers: S3
	// does so.
	method, requested := r.Method, []string(nil)
	if m := r.Header.Get("Access-Control-Request-Method"); m != "" {
		method = m
		requested = cors.RequestHeaders(r.Header.Get("Access-Control-Request-Headers"))
	}
	if rule := cfg.Match(origin, method, requested); rule != nil {
		setCORSHeaders(h, rule.Response(origin, requested))
	}
}

func setCORSHeaders(h http.Header, c cors.Headers) {
	h.Set("Access-Control-Allow-Origin", c.AllowOrigin)
	if c.AllowCredentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	if c.AllowMethods != "" {
		h.Set("Access-Control-Allow-Methods", c.AllowMethods)
	}
	if c.AllowHeaders != "" {
		h.Set("Access-Control-Allow-Headers", c.AllowHeaders)
	}
	if c.ExposeHeaders != "" {
		h.Set("Access-Control-Expose-Headers", c.ExposeHeaders)
	}
	if c.MaxAge != "" {
		h.Set("Access-Control-Max-Age", c.MaxAge)
	}
}
