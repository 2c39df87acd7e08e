// Package lifecycle owns the model of an S3 bucket lifecycle
// configuration and its pure evaluation: parsing and validating a
// LifecycleConfiguration document with S3's errors and messages,
// rendering it back in canonical form, deciding which rules apply to an
// object, version or upload, and computing when they act.
//
// It knows nothing of the index, the files or HTTP: the api stores the
// canonical document in the bucket record and answers x-amz-expiration
// from Configuration.Expiration; the lifecycle worker (pkg/expire) walks
// the index and removes what the rules say is due.
//
// # Days
//
// S3 counts a rule's days from the object's creation (or, for a
// noncurrent version, from when it became noncurrent) and rounds the
// result up to the next midnight UTC (Expiry). Every function that
// counts days takes the length of a day, so that tests and compatibility
// suites can shorten it (the gateway's --lifecycle-day); a "midnight" is
// then a multiple of that length since the Unix epoch, as Ceph RGW does
// for rgw_lc_debug_interval.
//
// # Caveats
//
// Transitions and NoncurrentVersionTransitions are refused: the gateway
// has one storage class, and a rule that could never act would mislead.
package lifecycle
