package main

import (
	"net"
	"net/http"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/connlimit"
	"github.com/objectgateway/objectgateway/pkg/expect"
	"github.com/objectgateway/objectgateway/pkg/httpintercept"
	"github.com/objectgateway/objectgateway/pkg/rawread"
)

// maxHeaderBytes bounds the request line and headers. S3 allows 8 KiB of
// headers (2 KiB of them user metadata); 16 KiB, Node.js's limit and
// twice nginx's longest line (large_client_header_buffers 8k), leaves room
// for a presigned URL of a 1,024-byte key, percent-encoded, with a long
// session token (8 KB of request line: TestServePresignedLongKeyAndToken).
// A connection holds what it has received of its head until the head is
// complete, so the limit is also what a connection stalled in its head
// costs beside its own 20 KB, --max-connections times (docs/security.md).
// Beyond it, and the 4 KiB net/http reads past it, net/http answers 431
// Request Header Fields Too Large itself, before any handler runs, so
// that answer carries no S3 error body.
const maxHeaderBytes = 16 << 10

// newHTTPServer returns the S3 listener's server with the connection
// limits of cfg: slow request headers (headerTimeout) close the
// connection, idle keep-alive connections are closed after idleTimeout.
// Slow bodies are the handler's business (api.Options.BodyTimeout),
// because only the handler can answer them with an S3 error; a whole-
// request ReadTimeout would also cut off large uploads on slow links.
func newHTTPServer(cfg config, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.headerTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// plainListener is what serve reads plaintext requests through when
// the S3 listener is not TLS: pkg/expect's listener, which lets requests
// with an Expect header other than 100-continue reach the handler, which
// serves them as S3 does, instead of net/http's 417 (it reads the
// plaintext of a connection, so it cannot sit under TLS, and above it
// net/http would no longer see a *tls.Conn: over TLS such requests keep
// net/http's 417); under it, when the edge answers hits on the
// connection, pkg/rawread's, whose raw reads with the hits' raw sends
// leave a hit no system call the scheduler must watch.
func plainListener(ln net.Listener, plaintext, fastHits bool) net.Listener {
	if !plaintext {
		return ln
	}
	if fastHits {
		ln = rawread.Listener(ln)
	}
	return expect.Listener(ln)
}

// fastHitListener wraps ln, a plain-HTTP listener of an edge, so that
// the handler's EdgeHit answers the hits it takes on the connection
// itself (pkg/httpintercept); srv's ConnState is chained, the
// listener's Shutdown registered with srv, and the interceptor's
// deadlines and head limit are srv's. ln's connections may be wrappers
// of TCP connections (pkg/expect's): they carry plaintext.
func fastHitListener(ln net.Listener, srv *http.Server, h *api.Server) *httpintercept.Listener {
	idle := srv.IdleTimeout
	if idle == 0 {
		idle = srv.ReadTimeout
	}
	header := srv.ReadHeaderTimeout
	if header == 0 {
		header = srv.ReadTimeout
	}
	srv.ConnState = httpintercept.ChainConnState(srv.ConnState)
	fl := httpintercept.NewListener(ln, httpintercept.Options{
		Handler:           h.EdgeHit,
		IdleTimeout:       idle,
		ReadHeaderTimeout: header,
		WriteTimeout:      srv.WriteTimeout,
		// A longer head goes to net/http, which applies its own limit.
		MaxHeadBytes: srv.MaxHeaderBytes,
		Plaintext:    true,
	})
	srv.RegisterOnShutdown(fl.Shutdown)
	return fl
}

// defaultMaxConnections is --max-connections' default: the connections a
// listener holds open at once. A connection waiting for its request head
// holds about 20 KB (its goroutine and buffers) besides the head's bytes,
// and a flood that is closed at the cap and reconnects leaves as much
// again to the garbage collector (docs/security.md has the figures), so
// the cap is what bounds the memory of a flood. 1,024 is nginx's
// worker_connections in its sample configuration (HAProxy's maxconn was
// 2,000 before it was derived from the descriptor limit) and
// --max-requests' default: enough for the connection pools of the
// applications beside the gateway, and for an edge whose idle keep-alive
// connections are closed at the cap for new clients rather than
// refusing them.
const defaultMaxConnections = 1024

// connectionGrace is how long a connection may wait for a request before
// it can be closed at --max-connections for a new one: a client's request
// head, sent at once after the connect, takes a round trip, and a flood
// that reconnects as fast as it is closed must not push a client's new
// connection out before its head is read (connlimit.Options.Grace).
const connectionGrace = time.Second

// limitConnections caps srv's open connections on ln at max (0: no cap,
// and nil stats). Give srv the returned listener: it must be the last
// wrapper, whose connections net/http serves, because its ConnState hook,
// chained to srv's, counts them.
func limitConnections(ln net.Listener, srv *http.Server, max int) (net.Listener, *connlimit.Stats) {
	if max <= 0 {
		return ln, nil
	}
	lim := connlimit.NewListener(ln, connlimit.Options{Max: max, Grace: connectionGrace})
	srv.ConnState = lim.ChainConnState(srv.ConnState)
	return lim, lim.Stats()
}
