package metadata

// The index keeps its records in an ordered key-value store with nested
// buckets: bbolt's model. The catalogue's logic (records, listings,
// versions, multipart state, users) is written once against the
// interfaces below, and each engine implements them: bbolt (kv_bolt.go),
// the embedded default, and PostgreSQL (kv_pg.go), for many gateways
// sharing one catalogue. Because both engines run the same catalogue
// code, one contract suite checks both, and a behaviour cannot exist in
// one and not in the other.
//
// The contract every engine keeps:
//
//   - A bucket holds keys in byte order (memcmp of the key bytes); a key
//     names either a value or a nested bucket, never both. Keys are 1 to
//     maxKeySize bytes.
//   - Get returns nil for a key that is absent or names a nested bucket,
//     and a non-nil slice (possibly empty) for a value. A cursor returns
//     v == nil for a nested bucket's name. Slices returned are valid until
//     the transaction ends and must not be modified.
//   - Bucket returns nil (an untyped nil interface) when the nested bucket
//     does not exist.
//   - A read transaction (view) sees one consistent snapshot. Write
//     transactions are serializable: the result is as if they ran one at a
//     time, in some order, also across processes sharing the engine. An
//     engine may run a write transaction's function more than once (after
//     a serialization conflict); only the last run's changes are
//     committed, so the function must not act outside the transaction.
//   - When update returns nil, the transaction is durable (unless the
//     index was opened with NoSync); when it returns an error, nothing of
//     it is visible — except where the engine cannot know (a connection
//     lost during commit), which it reports as an error all the same.
//   - Errors are bbolt's (go.etcd.io/bbolt/errors), whatever the engine:
//     ErrBucketExists for CreateBucket over an existing key,
//     ErrIncompatibleValue for Put or Delete of a nested bucket's name or
//     a bucket made over a value, ErrBucketNotFound for DeleteBucket of a
//     missing one, ErrTxNotWritable for a write in a view.
//   - NextSequence returns a number greater than every number it returned
//     before for that bucket, also across processes, and never 0.
//     Numbers may skip: an engine may take every bucket's from one
//     counter (PostgreSQL does, so that writers of one bucket never
//     conflict over it). Sequence returns at least the last number
//     NextSequence gave the bucket (bbolt: exactly it, 0 for none);
//     SetSequence raises it, and never lowers it, so that a copy of a
//     catalogue (copy.go) cannot give again a number its source gave.

// maxKeySize is the longest key any engine must store: bbolt's limit.
// PostgreSQL's btree keys are shorter (about 2.7 KB with the bucket path);
// the catalogue's own keys stay far below (S3 keys are at most 1,024
// bytes).
const maxKeySize = 32768

// kvTx is a transaction of the store.
type kvTx interface {
	// Bucket returns a top-level bucket, nil if it does not exist.
	Bucket(name []byte) kvBucket
	// CreateBucketIfNotExists returns a top-level bucket, creating it.
	CreateBucketIfNotExists(name []byte) (kvBucket, error)
	// Writable reports whether the transaction may write.
	Writable() bool
	// Cursor returns a cursor over the names of the top-level buckets in
	// byte order; its values are nil.
	Cursor() kvCursor
}

// kvBucket is a bucket of keys inside a transaction.
type kvBucket interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error

	// Bucket returns the nested bucket name, nil if it does not exist.
	Bucket(name []byte) kvBucket
	// CreateBucket creates the nested bucket name; it is an error if the
	// key exists.
	CreateBucket(name []byte) (kvBucket, error)
	CreateBucketIfNotExists(name []byte) (kvBucket, error)
	// DeleteBucket deletes the nested bucket name with everything in it.
	DeleteBucket(name []byte) error

	// Cursor returns a cursor over the bucket's keys in byte order.
	Cursor() kvCursor
	// ForEach calls fn for every key in order (v nil for nested buckets);
	// an error from fn stops it and is returned.
	ForEach(fn func(k, v []byte) error) error
	// ForEachBucket calls fn for the name of every nested bucket in order.
	ForEachBucket(fn func(name []byte) error) error

	// NextSequence returns the bucket's next sequence number.
	NextSequence() (uint64, error)
	// Sequence returns the bucket's current sequence number: the last
	// NextSequence gave, or SetSequence set.
	Sequence() uint64
	// SetSequence raises the bucket's sequence number to n; when it is
	// already n or more, it stays.
	SetSequence(n uint64) error
}

// kvCursor walks a bucket's keys in byte order. Each method returns the
// key and value it lands on, or a nil key past the last one.
type kvCursor interface {
	First() (k, v []byte)
	Next() (k, v []byte)
	// Seek moves to the first key ≥ seek.
	Seek(seek []byte) (k, v []byte)
}

// engine is an open store: bbolt or PostgreSQL.
type engine interface {
	// view runs fn in a read transaction.
	view(fn func(tx kvTx) error) error
	// update runs fn in one write transaction and commits it, retrying fn
	// on a serialization conflict. An error from fn rolls the transaction
	// back and is returned as it is.
	update(fn func(tx kvTx) error) error
	close() error
}
