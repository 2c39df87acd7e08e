// Package expire is the lifecycle worker: it applies the buckets'
// lifecycle rules (pkg/lifecycle) in the background, expiring current
// versions, removing noncurrent versions and expired delete markers, and
// aborting abandoned multipart uploads.
//
// It walks the index, never the filesystem: for each enabled rule a
// walk by the rule's prefix (Layer.WalkObjects in an unversioned bucket,
// which reads the records in place and decodes whole only those a rule
// expires; ListVersions in a versioned one), then the bucket's uploads. It removes
// only through the object layer's own operations (Layer.Remove, with a
// version id or without, and Layer.AbortMultipartUpload), so Object Lock
// is checked where every delete checks it: a version under retention or
// legal hold is skipped, counted as locked, and stays. An expired current
// version is removed (or, in a versioned bucket, hidden by a delete
// marker) only if it is still the one the walk saw: the removal carries
// its ETag and last-modified time as conditions.
//
// # Rounds and the cursor
//
// A pass is a series of rounds, each examining at most Options.RoundSize
// index entries, so that no round holds the index or a key's lock for
// long (an unversioned bucket's round reads its entries in one read
// transaction, a few milliseconds for 10,000). After every round the
// worker stores its position (bucket, rule, markers, and the state of a
// key a round boundary split) in the index (metadata.LifecycleCursor); a
// gateway restarted in the middle of a pass resumes it where the last
// round ended. A crash in the middle of a round repeats at most that
// round's examinations: every action is idempotent (a version already
// removed is gone, a condition no longer met is a skip).
//
// # Pacing
//
// Pass waits between rounds so that a pass takes on average Options.Busy
// of one CPU: the wait follows the CPU time the round's threads used (its
// walk and its removals), not the round's wall time, which under load is
// mostly waiting and would stretch a pass by the load rather than by its
// own cost.
//
// # Uploads
//
// An upload that an enabled AbortIncompleteMultipartUpload rule matches
// is aborted when the rule says; one no rule matches is aborted after
// Options.DefaultUploadExpiry (the gateway's --multipart-expiry), so that
// the gateway's old sweep of abandoned uploads and the rules are one
// mechanism. At the end of a pass the worker removes part directories
// that no upload owns (left by a crash during an abort).
package expire
