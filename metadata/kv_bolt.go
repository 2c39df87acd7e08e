package metadata

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The bbolt engine: the embedded default, one process per index file.
// Its adapters are structs of one pointer, so that converting them to the
// kv interfaces does not allocate.

type boltEngine struct {
	db *bolt.DB

	// commitFault, when set by a test, is asked after each write
	// transaction that bbolt completed, and makes it report the error it
	// returns: a commit whose meta page was written but whose fsync
	// failed.
	commitFault func() error

	// stop is called with the error of a write transaction that failed
	// but is visible all the same (see update); the index stops.
	stop func(err error)
}

func (e *boltEngine) view(fn func(tx kvTx) error) error {
	return e.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

// update runs fn in one bbolt write transaction. bbolt never has a
// serialization conflict, so fn runs once.
//
// bbolt writes the meta page and then fsyncs it; when that fsync fails,
// the rollback leaves the page in the page cache, readers see the
// transaction its callers were told had failed, and the next commit would
// build on pages that may never reach the disk. So a failed commit that
// is visible all the same stops the index (e.stop). A failure before the
// meta page (a write refused for lack of space) leaves the previous
// state, which bbolt's rollback has reloaded, and the index goes on. Only
// the group commit leader writes, so no other transaction can have taken
// the same id in between.
func (e *boltEngine) update(fn func(tx kvTx) error) error {
	txid := 0
	err := e.db.Update(func(tx *bolt.Tx) error {
		txid = tx.ID()
		return fn(boltTx{tx})
	})
	if err == nil && e.commitFault != nil {
		err = e.commitFault()
	}
	if err != nil && txid != 0 && e.stop != nil {
		visible := true
		_ = e.db.View(func(tx *bolt.Tx) error {
			visible = tx.ID() >= txid
			return nil
		})
		if visible {
			e.stop(err)
		}
	}
	return err
}

func (e *boltEngine) close() error { return e.db.Close() }

type boltTx struct{ tx *bolt.Tx }

func (t boltTx) Bucket(name []byte) kvBucket {
	if b := t.tx.Bucket(name); b != nil {
		return boltBucket{b}
	}
	return nil
}

func (t boltTx) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	b, err := t.tx.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	return boltBucket{b}, nil
}

func (t boltTx) Writable() bool { return t.tx.Writable() }

func (t boltTx) Cursor() kvCursor { return boltCursor{t.tx.Cursor()} }

type boltBucket struct{ b *bolt.Bucket }

func (b boltBucket) Get(key []byte) []byte { return b.b.Get(key) }

// Put keeps the contract's empty-value rule: bbolt keeps a nil value as
// nil until the transaction commits, and a reader in the same transaction
// would take it for an absent key; an empty value is stored as a non-nil
// empty slice instead (bbolt reads committed empty values back as such).
func (b boltBucket) Put(key, value []byte) error {
	if value == nil {
		value = emptyValue
	}
	return b.b.Put(key, value)
}

// emptyValue is the non-nil empty slice an empty value is stored as.
var emptyValue = []byte{}

func (b boltBucket) Delete(key []byte) error { return b.b.Delete(key) }

func (b boltBucket) Bucket(name []byte) kvBucket {
	if nb := b.b.Bucket(name); nb != nil {
		return boltBucket{nb}
	}
	return nil
}

func (b boltBucket) CreateBucket(name []byte) (kvBucket, error) {
	nb, err := b.b.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	return boltBucket{nb}, nil
}

func (b boltBucket) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	nb, err := b.b.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	return boltBucket{nb}, nil
}

func (b boltBucket) DeleteBucket(name []byte) error { return b.b.DeleteBucket(name) }

func (b boltBucket) Cursor() kvCursor { return boltCursor{b.b.Cursor()} }

func (b boltBucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }

func (b boltBucket) ForEachBucket(fn func(name []byte) error) error {
	return b.b.ForEachBucket(fn)
}

func (b boltBucket) NextSequence() (uint64, error) { return b.b.NextSequence() }

func (b boltBucket) Sequence() uint64 { return b.b.Sequence() }

// SetSequence never lowers the sequence, as the contract says; bbolt's
// own sets it to n whatever it was.
func (b boltBucket) SetSequence(n uint64) error { return b.b.SetSequence(max(n, b.b.Sequence())) }

type boltCursor struct{ c *bolt.Cursor }

func (c boltCursor) First() ([]byte, []byte)           { return c.c.First() }
func (c boltCursor) Next() ([]byte, []byte)            { return c.c.Next() }
func (c boltCursor) Seek(seek []byte) ([]byte, []byte) { return c.c.Seek(seek) }

// openBolt opens the bbolt file at path.
func openBolt(path string, o Options) (*boltEngine, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout: o.timeout(),
		NoSync:  o.NoSync,
		// The hashmap freelist stays fast when a large index is fragmented;
		// it is an in-memory choice and does not change the file format.
		FreelistType: bolt.FreelistMapType,
	})
	if err != nil {
		return nil, fmt.Errorf("metadata: open %s: %w", path, err)
	}
	return &boltEngine{db: db}, nil
}

// kvGet is b.Get(key) for a key held as a string, and kvSub is
// b.Bucket(name). Through the kv interfaces a key's bytes escape to the
// heap; on bbolt, the common case, these call bbolt directly so that the
// hot reads (the record of a GET or HEAD, an S3 bucket's nested bucket)
// convert their keys on the stack, as before the engines had interfaces.
func kvGet(b kvBucket, key string) []byte {
	if bb, ok := b.(boltBucket); ok {
		return bb.b.Get([]byte(key))
	}
	return b.Get([]byte(key))
}

func kvSub(b kvBucket, name string) kvBucket {
	if bb, ok := b.(boltBucket); ok {
		if nb := bb.b.Bucket([]byte(name)); nb != nil {
			return boltBucket{nb}
		}
		return nil
	}
	return b.Bucket([]byte(name))
}

// kvGetIn is kvSub(b, name) then kvGet of key in it: ok is false when
// the nested bucket does not exist. PostgreSQL reads both in one query.
func kvGetIn(b kvBucket, name, key string) (v []byte, ok bool) {
	if pb, isPG := b.(*pgBucket); isPG {
		return pb.getIn([]byte(name), []byte(key))
	}
	nb := kvSub(b, name)
	if nb == nil {
		return nil, false
	}
	return kvGet(nb, key), true
}
