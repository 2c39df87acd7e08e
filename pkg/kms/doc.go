// Package kms is the gateway's own key ring: named 256-bit master keys,
// each with versions, kept in one file in the state directory and never in
// the index or under a bucket. It seals and unseals the per-object data
// keys of SSE-S3 and SSE-KMS objects, and derives the key that seals an
// SSE-C object's data key from the customer's key.
//
// The ring file is created 0600 on first use with the key DefaultKey
// (SSE-S3's key). Rotate adds a version to a key: new seals use the
// newest version, and every sealed data key names its version, so old
// objects stay readable and no data is re-encrypted. Disable refuses seals
// and unseals under a key, as AWS KMS refuses a disabled key.
//
// # Caveats
//
// The ring file is the only copy of the master keys: losing it loses every
// encrypted object. It must be backed up with, but stored apart from, the
// data. The ring is re-read when its file changes (the kms command edits
// it while a gateway runs).
package kms
