// Package metadata is the gateway's catalogue: an index of S3 buckets and
// object records, listed in S3 order, kept in an ordered key-value store
// with nested buckets (kv.go) — an embedded bbolt file (kv_bolt.go, Open),
// or a PostgreSQL database several gateways share (kv_pg.go,
// OpenPostgres; the locks of writes among them in lock.go, the bucket
// records each caches in bucket_cache.go). The layout and invariants
// below are the catalogue's whatever the engine; the caveats name the
// engine they are about.
//
// The package owns the index file and nothing else. The bytes of an
// object live in the storage layer; a record here says where they are
// (Location) and what the gateway knows about them (size, ETag, headers,
// user metadata, checksums, tags) together with the file's mtime and inode
// when the record was written, so a reader whose stat disagrees can tell
// that the record is stale. The package knows nothing about HTTP: it
// returns the sentinel errors declared in index.go and the object layer
// maps them to S3 errors.
//
// # Layout
//
// The bbolt file holds these top-level buckets (and those of multipart
// state, multipart.go):
//
//   - "meta": the on-disk format version of the index, the lifecycle
//     cursor, and, on a shared catalogue, whether its gateways stamp
//     object files (stamp.go).
//   - "buckets": one record per S3 bucket, keyed by the bucket name.
//   - "objects": one nested bbolt bucket per S3 bucket, keyed by the
//     bucket name, holding one record per object keyed by the object key's
//     bytes.
//   - "versions": for versioned buckets, the noncurrent versions and
//     delete markers, one nested bbolt bucket per S3 bucket and in it one
//     per key, newest version first (versions.go). The current version of
//     a key stays its record in "objects", so listings never walk the
//     noncurrent ones.
//
// bbolt orders keys by unsigned byte comparison, which is exactly the
// order S3 lists keys in (UTF-8 binary order), so a listing is a cursor
// walk. With a delimiter the walk seeks past every key under a common
// prefix, so a page costs work in proportion to the page size, never to
// the number of keys in the bucket or under one prefix.
//
// Records use a small versioned binary encoding (see Object.MarshalBinary):
// a version byte, then fields as (tag, length, bytes) with zero values
// omitted. A reader skips tags it does not know, so later versions add
// fields without a migration.
//
// # Invariants
//
//   - A bucket record exists if and only if its nested objects bucket
//     exists; CreateBucket and DeleteBucket change both in one transaction.
//   - Every write is one committed bbolt transaction. A method that
//     writes returns only after that transaction is durable (fsynced),
//     unless Options.NoSync is set.
//   - Writes arriving together are group-committed: the first writer
//     commits at once; writers that arrive while a commit is in flight share
//     the next transaction and its single fsync. A write that fails leaves
//     no trace; the others in its group are unaffected.
//   - Values returned by any method are copies; nothing aliases bbolt's
//     memory map after a transaction ends.
//   - Open never scans records: it opens the file and creates the
//     top-level buckets if they are missing, so start-up time does not
//     depend on the size of the index.
//
// # Caveats
//
// Only one process may open a bbolt index at a time; bbolt holds an
// exclusive file lock, and Open gives up after Options.Timeout. A
// PostgreSQL catalogue takes any number, and runs each write in a
// transaction of its own instead of the group commit (commit.go,
// updateAlone): the database shares WAL flushes among concurrent commits.
//
// With Options.NoSync a crash or power loss can lose recently
// acknowledged writes, and bbolt may need the file to be rebuilt; use it
// only for tests, benchmarks and caches that can be rebuilt.
//
// The function given to UpdateObject runs inside the write transaction,
// possibly on another goroutine's stack (the group commit leader). It must
// not call methods of the same Index (that deadlocks) nor runtime.Goexit
// (t.FailNow: it would end the leader's goroutine), and it may run more
// than once if another write in the same group fails in bbolt itself, so
// it should have no side effects other than changing the record it is
// given.
//
// A write whose commit fails fails every call of its group, and none of
// them is reported as done. A commit refused before bbolt wrote its meta
// page (a full disk refuses the pages first) leaves the previous state,
// which bbolt's rollback reloads, and the index goes on. A commit that
// fails after the meta page was written (its fsync failed) is visible
// although its callers were told it failed; the index then returns
// ErrFailed for every call until it is opened again, rather than serve
// that state or build on pages the disk may not hold.
//
// Deleting a bucket requires it to be empty; the check is a single cursor
// step, but there is no recursive delete. ObjectCount is not provided:
// bbolt has no cheap key count for a large nested bucket.
//
// The index trusts the filesystem for bytes. It does not notice files
// written or removed behind the gateway's back; the object layer
// reconciles a record when a stat disagrees with FileMtime or FileInode,
// and the scan command imports trees wholesale.
package metadata
