package api

import (
	"net/http"
	"sync/atomic"

	"github.com/objectgateway/objectgateway/pkg/s3err"
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

// authenticate verifies r's SigV4 signature (header or presigned query;
// the body is never read) and admits the request to the budget the result
// calls for: the authenticated one for valid credentials, the anonymous
// one for none or invalid ones, whose error is then answered from that
// budget. A full budget is SlowDown, whatever the verification said.
func (s *Server) authenticate(r *http.Request, rq *request) (*sigv4.Auth, error) {
	auth, err := s.verify.Verify(r)
	b := &s.authenticated
	if err != nil || auth.Anonymous {
		b = &s.anonymous
	}
	if aerr := s.admit(rq, b); aerr != nil {
		return nil, aerr
	}
	return auth, err
}
