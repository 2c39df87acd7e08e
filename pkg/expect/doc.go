// Package expect carries request Expect headers other than 100-continue
// past net/http to the handler.
//
// net/http answers 417 Expectation Failed, before any handler runs, to a
// request whose Expect header is anything but 100-continue. RFC 9110
// §10.1.1 allows that answer; S3 is not known to give it, and the proxies
// in front of S3 endpoints commonly drop such headers, so the gateway
// serves these requests as if the header were absent. A client may have
// signed the header, so it cannot simply be dropped: SigV4 verification
// needs its value. Listener therefore renames such a header on the wire,
// before net/http parses the request, to WireName, and Restore, called by
// the handler before it verifies a signature, gives it its name back.
//
// # Invariants
//
// Only the names of header lines are rewritten, in place and to a name
// of the same length, so no byte is added or removed. A connection's
// bytes are followed through the framing of each request (request line,
// header lines, a body of Content-Length bytes): body bytes are never
// looked at. When the framing is anything else (Transfer-Encoding, an
// invalid Content-Length, a header line longer than the buffer), the rest
// of the connection passes through untouched, as without Listener.
//
// # Caveats
//
// An Expect header folded over several lines (obs-fold) is judged by its
// first line.
package expect
