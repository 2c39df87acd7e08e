// Package object is the object layer of ObjectGateway: S3 semantics over the
// two stores below it, without HTTP. It owns the order in which bytes and
// catalogue entries are committed, per-key serialisation of writers, and the
// reconciliation of index records with the files they describe.
//
// Invariants:
//
//   - A PUT commits the bytes durably (storage.Upload.Commit) before the index
//     record that describes them; a crash in between leaves at worst a file
//     with a stale or missing record, which a read or fsck reconciles, never a
//     record pointing at bytes that were not written.
//   - Writers of one key are serialised by a striped lock held across the
//     rename and the index commit, so the record in the index always
//     describes the file that won the rename.
//   - Every read compares the open file's size, mtime and inode with the
//     record. A file changed behind the gateway's back is served with a
//     refreshed record (and an ETag that is not an MD5), never a stale one; a
//     file that vanished answers NoSuchKey and its record is dropped.
//   - Errors are *s3err.Error values; sentinel errors of the stores are
//     mapped here and nowhere else.
package object
