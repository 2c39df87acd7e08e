// Package objectlock owns the rules of S3 Object Lock that do not depend on
// HTTP or XML: the retention modes, an object version's retention and a
// bucket's default retention, which changes of retention are allowed, when
// a version may be removed, and the x-amz-object-lock-* headers of an
// upload.
//
// Every function is pure: the current time is passed in, nothing is read
// from or written to storage, and every refusal is an *s3err.Error with the
// code, status and message S3 answers, ready to be rendered by the api
// package.
//
// # Invariants
//
// A zero Retention (no mode) and a Retention whose Until is not after now
// protect nothing: S3 treats an expired retention as none. A legal hold
// protects a version whatever its retention, and bypassing governance mode
// never lifts it.
//
// # Caveats
//
// The package decides only; recording a version's retention and legal
// hold, and refusing a request that an Object Lock operation is not
// allowed on (a bucket without Object Lock, a delete marker), belong to
// the object layer.
package objectlock
