// Package connlimit caps the connections an http.Server holds open at
// once, so that a flood of connections (a slow-loris: many clients that
// each send part of a request head and stall) holds a bounded amount of
// memory.
//
// # Use
//
//	lim := connlimit.NewListener(ln, connlimit.Options{Max: 1024, Grace: time.Second})
//	srv.ConnState = lim.ChainConnState(srv.ConnState)
//	srv.Serve(lim)
//
// The hook is required: net/http's connection states are what tell the
// Listener that a connection has ended, and which connections are
// waiting for a request.
//
// # Design
//
// Accept takes the next connection off the kernel's queue and returns
// it once fewer than the cap are open. At the cap it closes the open
// connection that has waited longest for a request (net/http's StateNew
// or StateIdle: a keep-alive connection between requests, or one whose
// request head has not all arrived), once that one has waited for
// Options.Grace, and returns the new one when it has ended; when every
// open connection is serving a request (StateActive) it waits until one
// ends or falls idle. The accepted connection is not read meanwhile, and
// the connections behind it stay in the kernel's listen queue, whose
// clients wait instead of being refused. nginx does the same at
// worker_connections (ngx_drain_connections closes the oldest keep-alive
// connections to make room); HAProxy at maxconn stops accepting and
// leaves clients in the queue.
//
// The grace is what keeps a client's new connection from being closed
// by a flood that reconnects as fast as it is closed: without it a
// connection is closed after as many accepts as the cap, which a flood
// on a busy machine makes in a fraction of a second, possibly before the
// connection's request head has been read; with it, a flood gets at most
// the cap's worth of connections per grace.
//
// Connections are not wrapped: Accept returns the inner listener's
// connection as it is, so net/http still finds its *tls.Conn, and
// wrappers such as pkg/httpintercept's still receive their own
// connections in the ConnState hook.
//
// # Invariants
//
// A connection counts from the return of Accept until the hook reports
// StateClosed or StateHijacked for it, once: net/http reports StateNew
// for every connection Accept returned and, unless it was hijacked,
// StateClosed when its serving goroutine ends, however it ended (the
// client, the server, a timeout, Shutdown, Close, a failed TLS
// handshake, or a wrapper that ended the connection itself and returned
// io.EOF). At most one connection above the cap is accepted and not yet
// returned.
//
// # Caveats
//
//   - A hijacked connection leaves the count when it is hijacked: it is
//     its handler's from then on, and net/http does not report its close.
//   - A keep-alive connection closed at the cap may have had a request
//     on its way; the client sees the connection closed before an
//     answer, as with net/http's own Shutdown and IdleTimeout, and HTTP
//     clients retry idempotent requests on a reused connection.
package connlimit
