// Package byterange parses the HTTP Range request header the way Amazon S3
// interprets it for GetObject and HeadObject.
//
// S3 serves exactly one byte range per request. Parse therefore answers one of
// three things: serve the whole object (ok=false), serve one range
// (ok=true), or refuse with InvalidRange (416). The decision follows RFC 9110
// §14 and the behaviour S3 is observed to have:
//
//   - A missing header, a unit other than "bytes", a syntactically invalid
//     spec (for example "bytes=5-2" or "bytes=x") and any multi-range list
//     ("bytes=0-1,3-4") are ignored: the whole object is served with 200.
//   - "bytes=a-b" selects a..b with b clamped to size-1; "bytes=a-" selects a
//     to the end; "bytes=-n" selects the last n bytes (all of them if n ≥ size).
//   - A valid spec that selects nothing is unsatisfiable: a first byte at or
//     past the end, or a zero-length suffix "bytes=-0".
//
// # Invariants
//
// When ok is true the returned Range satisfies 0 ≤ Start, 1 ≤ Length and
// Start+Length ≤ size, so a caller can Seek to Start and copy Length bytes
// without further checks.
//
// # Caveats
//
// A suffix range on an empty object ("bytes=-5", size 0) is satisfiable by
// RFC 9110 §14.1.1, but no Content-Range can describe zero bytes; Parse
// answers ok=false so the empty object is served with 200, which is what
// S3-compatible clients reading a tail of an empty file expect.
package byterange
