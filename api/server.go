package api

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/expect"
	"github.com/objectgateway/objectgateway/pkg/lifecycle"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/policy"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sigv2"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// Options configure a Server.
type Options struct {
	// AllowInsecureSSEC accepts SSE-C keys over plain HTTP, which S3 and
	// the default refuse: for test setups only, as the key then crosses
	// the network in clear.
	AllowInsecureSSEC bool
	// Region is the region requests are signed for and buckets report.
	// Default "us-east-1".
	Region string
	// Domain is the base domain of virtual-hosted-style requests
	// (bucket.Domain). Empty means path-style only.
	Domain string
	// Credentials resolve access keys to secrets for SigV4 and, when
	// SigV2 is set, Signature Version 2.
	Credentials sigv4.Credentials
	// SigV2 accepts requests and browser POST uploads signed with
	// Signature Version 2 (pkg/sigv2); they authenticate the same
	// principal a Version 4 signature with the same access key does.
	// False refuses them with S3's answer in the regions that accept only
	// Version 4 (400 InvalidRequest). cmd/objectgateway sets it unless
	// --sigv2=false.
	SigV2 bool
	// Logger receives one access-log line per request. The zero Logger
	// writes nothing.
	Logger zerolog.Logger
	// Now is the clock, used for signature skew and expiry; nil is time.Now.
	Now func() time.Time
	// Metrics, when set, records Prometheus metrics of every request.
	Metrics *Metrics
	// MaxInFlight bounds the authenticated requests served at once; the
	// ones beyond it are refused at once with 503 SlowDown, which SDKs
	// retry with backoff, instead of piling up until the process falls
	// over. A request takes its slot only once its signature has been
	// verified (see admit.go). Zero means no bound.
	MaxInFlight int
	// MaxAnonymousInFlight bounds, separately, the requests without valid
	// credentials served at once: anonymous reads, CORS preflights,
	// browser POST uploads while their form fields are read and
	// verified, and the answers to missing, malformed or wrong
	// signatures. The ones beyond it get 503 SlowDown too, so clients
	// without credentials can never take the slots of authenticated
	// ones. Zero means the default: MaxInFlight/8, at least 16, and no
	// bound when MaxInFlight is zero.
	MaxAnonymousInFlight int
	// PostFieldTimeout is how long the form fields of a browser POST
	// upload (everything before its file) may take to arrive, in total,
	// however steadily they trickle in: they are read before the upload
	// is authenticated. The request then fails with RequestTimeout.
	// Zero means the default, 10 s; a negative value means no limit.
	PostFieldTimeout time.Duration
	// BodyTimeout is how long a request body may stop arriving before
	// the request fails with RequestTimeout and nothing is stored; each
	// byte received restarts it. Zero means no limit.
	BodyTimeout time.Duration
	// DefaultCacheControl is the Cache-Control sent with GET, HEAD and 304
	// responses of objects stored without one, for edge caches (see
	// docs/cdn.md). Empty means none: such objects carry no Cache-Control.
	DefaultCacheControl string
	// LifecycleDay is the length of a day in lifecycle rules, for the
	// x-amz-expiration of objects; zero is 24 hours (see pkg/lifecycle).
	LifecycleDay time.Duration
	// Edge, when set, is edge mode (see EdgeOptions).
	Edge *EdgeOptions
	// DocumentMemory bounds the bytes of request documents (the XML and
	// JSON bodies of DeleteObjects, CompleteMultipartUpload, ACLs,
	// tagging, CORS, policies and CreateBucket) held at once across
	// requests; a request whose document does not fit waits until it does
	// or its client goes away. Zero means DefaultDocumentMemory (64 MiB);
	// a smaller value than the largest document limit (4 MiB) is raised
	// to it.
	DocumentMemory int64
	// CompleteKeepAlive is how long a CompleteMultipartUpload or a
	// CopyObject may run before the response starts: then it answers 200
	// at once and sends a space every CompleteKeepAlive until the result
	// (or the Error document) follows in the body, as S3 does, so that no
	// client read timeout fires during a long assembly or copy. Zero
	// means the default, 2 s.
	CompleteKeepAlive time.Duration
	// NewBucketDefaults is the access configuration CreateBucket gives a
	// new bucket: DefaultsLegacy ("", S3's before April 2023: no Block
	// Public Access, no ownership controls — objects owned by their
	// writer —, ACLs in force) or DefaultsAWS2023 (Block Public Access's
	// four settings on and Object Ownership BucketOwnerEnforced, ACLs
	// disabled). An x-amz-object-ownership header of the CreateBucket
	// overrides the ownership either way.
	NewBucketDefaults string
}

// The values of Options.NewBucketDefaults.
const (
	DefaultsLegacy  = ""
	DefaultsAWS2023 = "aws2023"
)

// defaultCompleteKeepAlive is Options.CompleteKeepAlive's default: well
// below the read timeouts of clients (the AWS CLI's is 60 s, and users
// set 5 s).
const defaultCompleteKeepAlive = 2 * time.Second

// Server is the S3 HTTP handler.
type Server struct {
	layer  *object.Layer
	opts   Options
	verify *sigv4.Verifier
	// verifyV2 is nil unless Options.SigV2 is set.
	verifyV2 *sigv2.Verifier
	now      func() time.Time
	// router is the gorilla/mux route table of the three levels; see
	// resolve.
	router *mux.Router
	// pathStyleOnly is set without a Domain: resolve then reads path-style
	// addresses without the router (pathAddress).
	pathStyleOnly bool

	// ids makes request ids: a random start, then a counter, so ids are
	// unique per process without a syscall per request.
	ids atomic.Uint64
	// authenticated and anonymous are the budgets of requests served at
	// once, Options.MaxInFlight and Options.MaxAnonymousInFlight; see
	// admit.go.
	authenticated slots
	anonymous     slots

	// access caches parsed bucket policies and CORS configurations.
	access accessCache
	// documents is the budget of Options.DocumentMemory.
	documents *documentBudget
	// bucketCacheControl is set when some bucket has a default
	// Cache-Control; see setDefaultCacheControl.
	bucketCacheControl bool
	// lifecycleSet is set when some bucket may have a lifecycle
	// configuration, and lifecycles caches the parsed ones; see
	// setExpiration.
	lifecycleSet atomic.Bool
	lifecycles   parsedCache[*lifecycle.Configuration]
	// bucketVersioning is set when some bucket was versioned when the
	// server started; see versioned.
	bucketVersioning bool
	// flights are the requests being served; see Cut.
	flights flights
	// recordOf reads an object's record for an access decision
	// (decideObject): the layer's StatVersion, which a test replaces to
	// make the read fail (SetAuthzRecordRead).
	recordOf func(bucket, key, versionID string) (object.Object, error)
}

// New returns the S3 handler for a layer.
func New(layer *object.Layer, o Options) *Server {
	if o.Region == "" {
		o.Region = "us-east-1"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.DocumentMemory == 0 {
		o.DocumentMemory = DefaultDocumentMemory
	}
	if o.CompleteKeepAlive <= 0 {
		o.CompleteKeepAlive = defaultCompleteKeepAlive
	}
	if o.PostFieldTimeout == 0 {
		o.PostFieldTimeout = defaultPostFieldTimeout
	}
	s := &Server{layer: layer, opts: o, now: o.Now, documents: newDocumentBudget(o.DocumentMemory), recordOf: layer.StatVersion}
	s.authenticated.limit = int64(max(o.MaxInFlight, 0))
	s.anonymous.limit = int64(anonymousLimit(o))
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	s.ids.Store(binary.BigEndian.Uint64(seed[:]))
	s.access.unreadable = func(bucket string, err error) {
		s.opts.Logger.Error().Str("bucket", bucket).Err(err).
			Msg("the bucket's stored policy cannot be read: every request on the bucket is denied but root's and the owner's policy operations until the policy is replaced or deleted")
	}
	s.verify = sigv4.NewVerifier(sigv4.Options{Region: o.Region, Credentials: o.Credentials, Now: o.Now})
	if o.SigV2 {
		s.verifyV2 = sigv2.NewVerifier(sigv2.Options{Credentials: o.Credentials, Now: o.Now})
	}
	s.router = newRouter(o.Domain)
	s.pathStyleOnly = o.Domain == ""
	s.bucketCacheControl, s.bucketVersioning = bucketDefaults(layer)
	s.lifecycleSet.Store(anyBucketLifecycle(layer))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(hw http.ResponseWriter, r *http.Request) {
	start := s.now()
	// An Expect header net/http would have refused was renamed on the
	// wire (pkg/expect); its name comes back before the signature, which
	// may cover it, is verified.
	expect.Restore(r.Header)
	w := newResponseWriter(hw)
	rq := &request{id: s.nextID()}
	h := w.Header()
	h["X-Amz-Request-Id"] = []string{rq.id}
	h["X-Amz-Id-2"] = []string{rq.id}
	h["Server"] = []string{"ObjectGateway"}

	s.opts.Metrics.begin()
	// The slot is held until the answer, error or not, has been written,
	// and given back even if a handler panics; so is the request's place
	// among those in flight (inflight.go).
	defer s.leave(rq)
	fl := &rq.flight
	s.flights.begin(fl)
	defer fl.done()
	r = countBody(r, rq)
	err := s.serve(w, r, rq, s.resolve(r))
	if err != nil && rq.slot == nil && !isSlowDown(err) {
		// An error found before the request was admitted (a malformed
		// address, an operation edge mode does not serve) is answered
		// from the anonymous budget: nothing has been authenticated.
		if aerr := s.admit(rq, &s.anonymous); aerr != nil {
			err = aerr
		}
	}
	s.documents.give(rq.document)
	var answered *answeredError
	// A failure after the status line went out is a cut (abortCut); it
	// is decided before writeError, which starts the error's own answer.
	cut := err != nil && w.started && !errors.As(err, &answered)
	if err != nil && !errors.As(err, &answered) {
		s.writeError(w, r, rq, err)
	}
	s.opts.Metrics.end(rq.op, w.status, r.ContentLength, w.written, s.now().Sub(start))
	if fl.leave() {
		s.logCut(r, rq, w, err, s.now().Sub(start))
		abortCut(cut)
		return
	}
	s.logAccess(r, rq, w, err, start)
	abortCut(cut)
}

// abortCut aborts the connection of a response that failed after its
// status line went out (a GET whose file failed to read mid-body, an edge
// whose origin died mid-object): returning would end a chunked body as
// if it were complete, and a client could take a truncated object for
// the whole one. net/http closes the connection (HTTP/1.x) or resets the
// stream (HTTP/2) on http.ErrAbortHandler, without logging it. An error
// whose answer a handler sent on purpose (answeredError) is not a cut.
func abortCut(cut bool) {
	if cut {
		panic(http.ErrAbortHandler)
	}
}

// request is what the handlers know about one request beyond *http.Request.
type request struct {
	id        string
	op        string
	bucket    string
	key       string
	accessKey string
	// virtualHost is set when the request addressed its bucket by the
	// Host header; see address.
	virtualHost bool
	auth        *sigv4.Auth
	// sigV2 is set when the request (or a browser POST upload's policy)
	// was signed with Signature Version 2; see conditionsOf.
	sigV2 bool
	// initiator is the access key that initiated the multipart upload an
	// AbortMultipartUpload or ListParts addresses; see serveAuthorized.
	initiator string
	// slot is the budget the request holds a slot of, nil before it is
	// admitted; see admit.
	slot *slots
	// body is the request's body watch, nil when it has none; see
	// watchBody.
	body *idleBody
	// bkt is the bucket's record once read (anonymous and CORS requests,
	// and the default Cache-Control); see bucketRecord.
	bkt *object.Bucket
	// bktMissing is set once bucketRecord or bucketID found no such
	// bucket; bktID is the bucket's identity once bucketID read it alone.
	bktMissing bool
	bktID      uint64
	// principal and conditions are the caller and the request's
	// condition keys as bucket policies see them, made by decide for the
	// first bucket with a policy the request is decided against.
	principal    policy.Principal
	principalSet bool
	conditions   policy.Conditions
	// identity is the caller's identity policy, read once per request
	// (identitySet) so that every question of the request is decided
	// against the same one, even while the policy is being replaced.
	identity    *policy.Policy
	identitySet bool
	// ownerCheck, set by authorize for a GetObject or HeadObject that a
	// bucket policy (or the bucket's owner's rights) allowed, is the
	// question to ask again once the handler has read the object: the
	// Allow stands only on an object the bucket's owner owns, and is
	// checked on the record the handler reads anyway rather than on one
	// more read of it (checkObjectOwner).
	ownerCheck *access.Input
	// copyTags, set by authorize for a CopyObject that keeps the source's
	// tags, is what copying them needs, checked on the source's record
	// the copy reads (checkCopyTags).
	copyTags *copyTagsCheck
	// query is the parsed query string; see queryOf.
	query url.Values
	// early is set when the request's document was read before the
	// request was authorized, its contents being condition keys of a
	// policy; see readBodyFirst.
	early *earlyBody
	// document is the share of the document budget the request holds;
	// see readBodyOpt.
	document int64
	// received counts the body bytes read so far; see countBody.
	received int64
	// flight is the request's place among those in flight; see Cut.
	flight flight
}

// queryOf returns r's parsed query, parsing it once per request: a
// presigned GET's long query string was parsed three times, 5% of the
// request's CPU.
func (rq *request) queryOf(r *http.Request) url.Values {
	if rq.query == nil {
		rq.query = r.URL.Query()
	}
	return rq.query
}

// handlerFunc is an S3 operation. It returns an error instead of writing
// one; see writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request, rq *request) error

// serve resolves, authenticates and runs one request. Until the request
// is admitted to a budget (see admit.go) it uses nothing but its headers.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, rq *request, a address) error {
	if err := checkHeaderFields(r.Header); err != nil {
		return err
	}
	if err := rq.setAddress(r, a); err != nil {
		return err
	}
	op := s.route(r.Method, a.lv, rq.queryOf(r), r.Header)
	rq.op = op.name
	r = s.watchBody(w, r, rq)
	if s.opts.Edge != nil {
		return s.serveEdge(w, r, rq, op)
	}
	if selfAuthenticated(op.name) {
		// A CORS preflight has no credentials, and a browser POST upload
		// carries its own in form fields that must be read first: both
		// start in the anonymous budget. postObject moves an upload to
		// the authenticated one once its policy signature is verified.
		if err := s.admit(rq, &s.anonymous); err != nil {
			return err
		}
		if op.name == opPostObject {
			s.corsActual(w, r, rq)
		}
		return op.handler(w, r, rq)
	}

	auth, err := s.authenticate(r, rq)
	if rq.slot != nil {
		s.corsActual(w, r, rq)
	}
	if err != nil {
		return err
	}
	rq.auth = auth
	if !auth.Anonymous {
		rq.accessKey = auth.AccessKeyID
	}
	if op.name == opMethodNotAllowed || op.name == opNotImplemented {
		// A request no operation takes is refused alike to every caller:
		// the answer says nothing about the bucket, so it need not be
		// hidden behind AccessDenied.
		return op.handler(w, r, rq)
	}
	if err := s.checkExpectedOwners(r, rq); err != nil {
		return err
	}
	return s.serveAuthorized(w, r, rq, op)
}

// setAddress sets rq's bucket and key from the resolved address a.
func (rq *request) setAddress(r *http.Request, a address) error {
	var err error
	if rq.bucket, err = url.PathUnescape(a.bucket); err != nil {
		return s3err.New(s3err.InvalidURI)
	}
	if rq.key, err = url.PathUnescape(a.key); err != nil {
		return s3err.New(s3err.InvalidURI)
	}
	rq.virtualHost = a.virtualHost
	if a.lv == levelService && r.URL.EscapedPath() != "/" {
		return s3err.New(s3err.InvalidURI)
	}
	return nil
}

func (s *Server) nextID() string {
	var b [16]byte
	v := s.ids.Add(1)
	const digits = "0123456789ABCDEF"
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xF]
		v >>= 4
	}
	return string(b[:])
}

func (s *Server) notImplemented(http.ResponseWriter, *http.Request, *request) error {
	return s3err.New(s3err.NotImplemented)
}

// logAccess writes the request's access-log line. It never logs the
// Authorization header, signatures or presigned query strings: only the
// path and the access key id.
func (s *Server) logAccess(r *http.Request, rq *request, w *responseWriter, err error, start time.Time) {
	ev := s.opts.Logger.Info()
	if !ev.Enabled() {
		return
	}
	ev = ev.Str("request_id", rq.id).
		Str("op", rq.op).
		Str("method", r.Method).
		Str("bucket", rq.bucket).
		Str("key", rq.key).
		Int("status", w.status).
		Int64("bytes_in", max(r.ContentLength, 0)).
		Int64("bytes_out", w.written).
		Int64("duration_us", s.now().Sub(start).Microseconds()).
		Str("remote", r.RemoteAddr).
		Str("access_key", rq.accessKey)
	if err != nil {
		e := s3err.As(err)
		ev = ev.Str("error", e.Code.String())
		if e.Code == s3err.InternalError {
			ev = ev.AnErr("cause", err)
		}
	}
	ev.Msg("request")
}

// itoa is strconv.FormatInt for headers.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// maxHeaderFields bounds the header fields of a request. net/http bounds
// their bytes (64 KiB, cmd/objectgateway's maxHeaderBytes), but a field
// costs about 140 bytes of the request's header map besides its bytes,
// held for as long as the request is served: 5,000 fields of "X-Fn: v"
// in 60 KB made 700 KB per request, and 300 authenticated uploads whose
// bodies trickled took the RSS to 233 MB. S3's 8 KiB header section
// holds fewer fields than this; SDKs send about 15.
const maxHeaderFields = 1024

// checkHeaderFields is RequestHeaderSectionTooLarge when h has more than
// maxHeaderFields fields, found before the request is authenticated or
// admitted, so that it is answered and its headers freed at once.
func checkHeaderFields(h http.Header) error {
	if len(h) <= maxHeaderFields {
		n := 0
		for _, v := range h {
			n += len(v)
		}
		if n <= maxHeaderFields {
			return nil
		}
	}
	return s3err.New(s3err.RequestHeaderSectionTooLarge).With("MaxHeaderFields", strconv.Itoa(maxHeaderFields))
}
