// Package httpintercept lets a caller answer some HTTP/1.1 requests
// itself, on the raw connection, before net/http sees them, while
// net/http keeps serving everything else on the same connection with all
// of its rules (keep-alive, pipelining, HEAD, Connection: close, request
// bodies, timeouts, the client's close cancelling a request's context,
// its own error answers).
//
// # Use
//
//	ln := httpintercept.NewListener(tcpListener, httpintercept.Options{
//		Handler:     answerHits,
//		IdleTimeout: srv.IdleTimeout,
//		...
//	})
//	srv.ConnState = httpintercept.ChainConnState(srv.ConnState)
//	srv.RegisterOnShutdown(ln.Shutdown)
//	srv.Serve(ln)
//	...
//	srv.Shutdown(ctx); ln.Wait(ctx) // or ln.Cut(); srv.Close()
//
// The hook is required: net/http's connection states are what tell a
// Conn when it may read requests itself. A Conn whose hook is not wired
// notices it at its first Read and passes every byte through, answering
// nothing.
//
// # Design
//
// net/http reads a connection only through Conn.Read, on one of two
// occasions, which the ConnState hook tells apart:
//
//   - Between requests (StateNew, StateIdle), net/http reads the next
//     request head. Conn.Read then reads heads itself into its own buffer.
//     A complete plain head (HTTP/1.1, GET or HEAD, no body header: no
//     Content-Length other than 0, no Transfer-Encoding, Expect or
//     Upgrade; one Host; an origin-form target) is offered to the Handler.
//     If the Handler answers it, Read loops for the next head, with the
//     read deadline refreshed from Options.IdleTimeout; if the Handler
//     wants the connection closed, Read half-closes it, reads and drops
//     what the client still sends for up to half a second (a close with
//     unread bytes would make the kernel reset the connection and drop
//     the answer's queued bytes) and returns io.EOF, on which net/http
//     closes it without writing. The same goes for a connection ended at
//     Shutdown. A head the Handler declines, or a
//     complete well-formed body-less HTTP/1.1 head of another method, is
//     handed to net/http: exactly that head, and nothing after it, which
//     stays in the Conn's buffer. So is the head that follows a POST's,
//     unanswered: net/http skips CR and LF bytes before a request line
//     only after a POST, judged by the last request it read itself.
//   - While net/http serves a request (StateActive), its only read is
//     its background read of one byte, started once the request has no
//     body left to read, which exists to notice the client closing.
//     Conn.Read then reads the raw connection into its own buffer and
//     returns only errors: the timeout that net/http provokes (by setting
//     a past read deadline, passed straight to the raw connection) to end
//     the background read when the answer is done, or the client's EOF or
//     reset, which net/http turns into the cancellation of the request's
//     context, as without this package.
//
// Everything else switches the connection to pass-through for good: the
// buffered bytes and then the raw connection go to net/http as they came,
// so it answers as it does today (400, 431, 501, 505, request bodies,
// HTTP/1.0, Expect, upgrades, a head over Options.MaxHeadBytes, more than
// Options.MaxBufferedBytes read ahead during a request, a read error with
// bytes buffered, hijacking).
//
// # Invariants
//
// net/http's read buffer is empty whenever it reports StateNew or
// StateIdle. StateNew is reported before the connection is read at all
// (Server.Serve calls setState(StateNew) before starting conn.serve).
// StateIdle is reported after an answer, and net/http only ever got from
// the Conn whole heads of requests without a body, one per request: its
// bufio.Reader consumed each head exactly (textproto stops at the empty
// line) and had nothing else to read, since such a request's body is
// http.NoBody. The background read never got a byte from the Conn (below),
// so net/http holds no byte of the next request either. So when net/http
// reads in those states, the next request's bytes are all in the Conn,
// and the Conn may answer them itself.
//
// Bytes are never handed to net/http while a request is active. Without
// this package, the background read of a pipelined request's first byte
// puts that byte in net/http's connReader (hasByte), where the next
// readRequest finds it. Here that byte would be a byte the Conn can no
// longer answer itself, and the head around it would be split between
// net/http and the Conn. By returning only errors during StateActive, the
// Conn keeps the stream whole: the next head is entirely in its buffer
// when net/http reports StateIdle and reads again. When it must give up
// (read-ahead over the limit, or EOF after pipelined bytes, where
// returning EOF would cancel the connection's context and so every later
// pipelined request's) it switches to pass-through and returns one byte,
// which is exactly what net/http gets without this package.
//
// A head handed to net/http is followed by StateActive before net/http
// reads again (conn.serve calls setState(StateActive) after readRequest
// returns and before startBackgroundRead). Read checks it: after handing a
// head the Conn's state is a private "handed" value that only the hook's
// StateActive replaces, and a Read seeing it switches to pass-through
// instead of guessing.
//
// # Concurrency
//
// Read runs on net/http's serve goroutine, or on its background-read
// goroutine; the ConnState hook on the serve goroutine (StateNew on the
// accept goroutine, before serve starts). The state is an atomic; Read
// holds a mutex (uncontended: net/http never reads concurrently) for the
// buffer. The deadline methods and Close are the raw connection's and
// take no lock, so net/http can abort a blocked Read.
//
// # Limits
//
//   - Plain TCP only: a TLS listener must not be wrapped (its Conn would
//     read ciphertext), and TLS connections are not *net.TCPConn, which
//     Listener.Accept returns unwrapped.
//   - net/http does not know of the Handler's answers: a connection on
//     which the Handler answered every request is StateNew to it, and
//     one that waits between the Handler's answers is StateIdle.
//     Listener.Shutdown (registered with the server's RegisterOnShutdown)
//     starts no answer after it and ends such connections at their next
//     pause; a Close by net/http's Shutdown during an answer is left to
//     the answer's end, which Listener.Wait (called after the server's
//     Shutdown) waits for; Listener.Cut ends everything when the
//     server's Close must.
//   - The server's ReadTimeout must be zero: net/http counts it from the
//     start of a read the Conn may hold through many of its own answers,
//     so the first request it is handed would get a deadline long past.
//   - Server.SetKeepAlivesEnabled(false) is not seen: the Handler's
//     answers keep connections open unless the client asks otherwise.
//   - Deadlines while the Conn reads heads itself follow Options, not the
//     http.Server: set them to the server's values.
package httpintercept
