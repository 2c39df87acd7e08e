package metadata

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

var (
	// ErrNoSuchBucket is returned when an operation names a bucket that
	// does not exist.
	ErrNoSuchBucket = errors.New("metadata: no such bucket")

	// ErrBucketExists is returned by CreateBucket when a bucket of that
	// name already exists.
	ErrBucketExists = errors.New("metadata: bucket exists")

	// ErrBucketNotEmpty is returned by DeleteBucket when the bucket still
	// holds at least one object record.
	ErrBucketNotEmpty = errors.New("metadata: bucket not empty")

	// ErrNoSuchKey is returned when an operation names an object key that
	// has no record in its bucket.
	ErrNoSuchKey = errors.New("metadata: no such key")

	// ErrFailed is returned by every call after a write transaction that
	// bbolt reported as failed turned out to be visible: its meta page
	// was written, and the fsync after it failed. Its callers were told
	// it failed, and what the file holds on disk is unknown, so the index
	// serves nothing more until it is opened again. It wraps the commit's
	// error.
	ErrFailed = errors.New("metadata: index stopped after a failed commit that is visible; reopen it")
)

// formatVersion is the layout version stored under metaBucket. It changes
// only when the layout changes incompatibly; new record fields do not need
// it (see record.go).
const formatVersion = 1

var (
	metaBucket    = []byte("meta")
	bucketsBucket = []byte("buckets")
	objectsBucket = []byte("objects")
	formatKey     = []byte("format")
)

// Options configures Open. The zero value is durable and waits one second
// for the file lock.
type Options struct {
	// NoSync skips the fsync when a write transaction commits. Writes are
	// faster but a crash or power loss can lose acknowledged writes; see
	// the package Caveats. The default is to fsync every commit.
	NoSync bool

	// Timeout is how long Open waits for the file lock held by another
	// process. Zero means one second.
	Timeout time.Duration
}

// Index is an open catalogue. Its methods are safe for concurrent use.
type Index struct {
	// bolt is the key-value store under the catalogue (kv.go). The
	// catalogue calls it through kvView and kvUpdate, which name each
	// engine's concrete type rather than the engine interface: through an
	// interface, every transaction function (and what it captures, such
	// as the record a read returns) would escape to the heap.
	bolt *boltEngine
	// pg is the PostgreSQL engine instead, for an index opened with
	// OpenPostgres; exactly one of bolt and pg is set.
	pg *pgEngine

	// stamper marks the files of current records (stamp.go); nil
	// unless SetStamper set one.
	stamper Stamper

	// mu guards queue and leading, the group commit state (commit.go).
	mu      sync.Mutex
	queue   []*call
	leading bool

	// commits counts write transactions attempted by the group commit;
	// tests use it to observe batching.
	commits atomic.Uint64

	// failed holds ErrFailed, wrapping the commit's error, once the index
	// has stopped (see stop).
	failed atomic.Pointer[error]
}

// stop stops the index after a write transaction failed in a way that
// leaves the engine's state in doubt (a bbolt commit whose fsync failed
// after its meta page was written): every later call fails with
// ErrFailed wrapping err.
func (ix *Index) stop(err error) {
	stopped := fmt.Errorf("%w: %w", ErrFailed, err)
	ix.failed.Store(&stopped)
}

// failure returns ErrFailed (wrapping its cause) once the index has
// stopped, nil before.
func (ix *Index) failure() error {
	if p := ix.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// view runs fn in a read transaction, unless the index has stopped.
func (ix *Index) view(fn func(tx kvTx) error) error {
	if err := ix.failure(); err != nil {
		return err
	}
	return ix.kvView(fn)
}

// viewOne is view for a function that reads the store once at most (one
// Get, or one kvGetIn), which PostgreSQL then runs as one statement.
func (ix *Index) viewOne(fn func(tx kvTx) error) error {
	if err := ix.failure(); err != nil {
		return err
	}
	if ix.pg != nil {
		return ix.pg.viewOne(fn)
	}
	return ix.bolt.view(fn)
}

// kvView runs fn in a read transaction of the engine.
func (ix *Index) kvView(fn func(tx kvTx) error) error {
	if ix.pg != nil {
		return ix.pg.view(fn)
	}
	return ix.bolt.view(fn)
}

// kvUpdate runs fn in one write transaction of the engine, outside the
// group commit.
func (ix *Index) kvUpdate(fn func(tx kvTx) error) error {
	if ix.pg != nil {
		return ix.pg.update(fn)
	}
	return ix.bolt.update(fn)
}

// Open opens the index at path, creating the file (mode 0600) and its
// top-level buckets if they do not exist. Open does not read records, so
// it takes the same time for an empty index and one with millions of
// objects.
func Open(path string, o Options) (*Index, error) {
	eng, err := openBolt(path, o)
	if err != nil {
		return nil, err
	}
	ix := &Index{bolt: eng}
	eng.stop = ix.stop
	err = ix.init(true)
	if err != nil {
		eng.close()
		return nil, fmt.Errorf("metadata: open %s: %w", path, err)
	}
	if !o.NoSync {
		// bbolt fsyncs the file but not its directory: a new index's name
		// is durable only once the directory is.
		if err := syncDir(filepath.Dir(path)); err != nil {
			eng.close()
			return nil, fmt.Errorf("metadata: open %s: %w", path, err)
		}
	}
	return ix, nil
}

// PGOptions configures OpenPostgres. The zero value takes pgx's pool
// defaults (at most four connections per CPU, at least none kept open),
// or the pool_max_conns and pool_min_conns the DSN gives.
type PGOptions struct {
	// MaxConns is the most connections the index keeps to the database.
	MaxConns int
	// MinConns is how many it keeps open when idle.
	MinConns int
	// LockTimeout bounds the wait for a lock of LockWrite or LockBucket;
	// zero is DefaultLockTimeout.
	LockTimeout time.Duration
}

// OpenPostgres opens the catalogue in the PostgreSQL database named by
// dsn (a URL or keyword/value string, as libpq takes), creating or
// upgrading its tables first. Many gateways may open the same database at
// once: this is how they share one catalogue. The database is durable by
// its own settings (synchronous_commit); the index asks nothing less.
func OpenPostgres(ctx context.Context, dsn string, o PGOptions) (*Index, error) {
	eng, err := openPostgres(ctx, dsn, o)
	if err != nil {
		return nil, fmt.Errorf("metadata: open PostgreSQL catalogue: %w", err)
	}
	ix := &Index{pg: eng}
	if err := ix.init(false); err != nil {
		eng.close()
		return nil, fmt.Errorf("metadata: open PostgreSQL catalogue: %w", err)
	}
	return ix, nil
}

// timeout is how long opening waits for a lock another process holds.
func (o Options) timeout() time.Duration {
	if o.Timeout == 0 {
		return time.Second
	}
	return o.Timeout
}

// init creates the top-level buckets if they do not exist. exclusive
// says that no other process can have the index open (bbolt's file
// lock): the leases it holds are then of processes that are gone — a
// gateway killed while it held one —, and init drops them, so that the
// gateway starting now does not wait for them to run out.
func (ix *Index) init(exclusive bool) error {
	return ix.kvUpdate(func(tx kvTx) error {
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		switch v := meta.Get(formatKey); {
		case v == nil:
			if err := meta.Put(formatKey, []byte{formatVersion}); err != nil {
				return err
			}
		case len(v) != 1 || v[0] != formatVersion:
			return fmt.Errorf("unsupported index format %x (want %d)", v, formatVersion)
		}
		for _, name := range [][]byte{bucketsBucket, objectsBucket, versionsBucket, uploadsBucket, partsBucket, completedBucket} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		if exclusive {
			if err := dropLeases(tx); err != nil {
				return err
			}
		}
		return identify(tx)
	})
}

// syncDir fsyncs a directory.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// Close closes the index file. It waits for transactions in progress;
// calls made after Close return an error.
func (ix *Index) Close() error {
	if ix.pg != nil {
		return ix.pg.close()
	}
	return ix.bolt.close()
}
