package api

import (
	"encoding/hex"
	"net/http"
	"sync/atomic"

	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sigv2"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// This file admits requests to the two budgets of requests served at
// once. A request holds no slot while net/http reads its headers and while
// its signature is verified, which needs the headers alone; it is then
// admitted to the authenticated budget (Options.MaxInFlight) or, when it
// carries no valid credentials, to the anonymous one
// (Options.MaxAnonymousInFlight). Clients without credentials can
// therefore fill only their own budget, never take a slot an
// authenticated request needs.

// The default of Options.MaxAnonymousInFlight.
const (
	// anonymousShare is the fraction of MaxInFlight (1/anonymousShare)
	// the anonymous budget gets by default, and minAnonymous its floor,
	// so that a small MaxInFlight still leaves room for CORS preflights
	// and public reads.
	anonymousShare = 8
	minAnonymous   = 16
)

// slots is a budget of requests served at once. A limit of zero or less
// is no bound; the count is kept either way.
type slots struct {
	limit int64
	n     atomic.Int64
}

// take reserves a slot, reporting false (and reserving nothing) when all
// are taken.
func (b *slots) take() bool {
	if n := b.n.Add(1); b.limit > 0 && n > b.limit {
		b.n.Add(-1)
		return false
	}
	return true
}

func (b *slots) release() { b.n.Add(-1) }

// anonymousLimit is Options.MaxAnonymousInFlight with its default
// applied: an eighth of MaxInFlight, at least minAnonymous, and no bound
// when MaxInFlight has none.
func anonymousLimit(o Options) int {
	switch {
	case o.MaxAnonymousInFlight > 0:
		return o.MaxAnonymousInFlight
	case o.MaxInFlight <= 0:
		return 0
	}
	return max(o.MaxInFlight/anonymousShare, minAnonymous)
}

// admit moves rq into budget b: it gives back the slot rq holds, if any,
// and takes one of b. A full budget is SlowDown, which SDKs retry with
// backoff.
func (s *Server) admit(rq *request, b *slots) error {
	if rq.slot == b {
		return nil
	}
	s.leave(rq)
	if !b.take() {
		return s3err.New(s3err.SlowDown)
	}
	rq.slot = b
	return nil
}

// isSlowDown reports whether err is a refusal by a full budget.
func isSlowDown(err error) bool {
	c, ok := s3err.CodeOf(err)
	return ok && c == s3err.SlowDown
}

// leave gives back the slot rq holds, if any.
func (s *Server) leave(rq *request) {
	if rq.slot != nil {
		rq.slot.release()
		rq.slot = nil
	}
}

// authenticate verifies r's signature (SigV4 or, when enabled, SigV2;
// header or presigned query; the body is never read) and admits the request to the budget the result
// calls for: the authenticated one for valid credentials, the anonymous
// one for none or invalid ones, whose error is then answered from that
// budget. A full budget is SlowDown, whatever the verification said.
func (s *Server) authenticate(r *http.Request, rq *request) (*sigv4.Auth, error) {
	auth, err := s.verifyRequest(r, rq)
	b := &s.authenticated
	if err != nil || auth.Anonymous {
		b = &s.anonymous
	}
	if aerr := s.admit(rq, b); aerr != nil {
		return nil, aerr
	}
	return auth, err
}

// verifyRequest sends r to the verifier of its signature version. A
// Version 2 signature yields the same Auth a Version 4 one does, so the
// principal and every access decision after it are the same; its body
// is unsigned. Requests sigv2 does not claim, and all of them when SigV2
// is off, go to the Version 4 verifier, which refuses Version 2 as S3
// does where only Version 4 is accepted.
func (s *Server) verifyRequest(r *http.Request, rq *request) (*sigv4.Auth, error) {
	if s.verifyV2 == nil || !sigv2.Claims(r) {
		return s.verify.Verify(r)
	}
	bucket := ""
	if rq.virtualHost {
		// A Version 2 signature covers "/bucket/key" whichever way the
		// bucket was addressed.
		bucket = rq.bucket
	}
	a, err := s.verifyV2.Verify(r, bucket)
	if err != nil {
		return nil, err
	}
	rq.sigV2 = true
	ph, err := v2PayloadHash(r.Header.Get("X-Amz-Content-Sha256"))
	if err != nil {
		return nil, err
	}
	return &sigv4.Auth{AccessKeyID: a.AccessKeyID, Presigned: a.Presigned, PayloadHash: ph}, nil
}

// v2PayloadHash is the payload mode of a Version 2 request. Version 2
// signs no body, but an x-amz-content-sha256 digest is signed among the
// x-amz-* headers and is verified like Version 4's; the unsigned
// trailer mode needs no signature either. Signed aws-chunked bodies
// chain Version 4 signatures and cannot follow a Version 2 one.
func v2PayloadHash(v string) (string, error) {
	switch {
	case v == "" || v == sigv4.UnsignedPayload:
		return sigv4.UnsignedPayload, nil
	case v == sigv4.StreamingUnsignedTrailer:
		return v, nil
	case len(v) == 64:
		if _, err := hex.DecodeString(v); err == nil {
			return v, nil
		}
	}
	return "", s3err.Newf(s3err.InvalidRequest, "x-amz-content-sha256 %q needs an AWS4-HMAC-SHA256 signature.", v).
		With("ArgumentName", "x-amz-content-sha256")
}
