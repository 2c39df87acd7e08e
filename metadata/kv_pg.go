package metadata

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	berrors "go.etcd.io/bbolt/errors"
)

// The PostgreSQL engine: one catalogue shared by many gateways.
//
// The whole tree of nested buckets lives in one table, og_kv(b, k, v): b
// is the path of the bucket a key is in, k the key, v its value — or NULL
// when k names a nested bucket (a "marker" row). A path is the names of
// the buckets from the top, each escaped (0x00 → 0x00 0xff) and ended by
// 0x00 0x01, so no path is a prefix of another's encoding except its
// descendants': a bucket and everything under it are the rows whose b lies
// in [path, succ(path)), which DeleteBucket removes with one range delete.
// bytea compares by memcmp, so (b, k) — the primary key, a btree — keeps
// every bucket's keys in byte order, and a cursor is an index range scan.
// Sequence numbers come from one PostgreSQL sequence, og_ids (og_seq, the
// per-bucket rows of the first schema, is no longer written).
//
// Transactions: a view is REPEATABLE READ READ ONLY (one snapshot, taken
// at its first query); an update is SERIALIZABLE, and a serialization
// failure or deadlock runs the update's function again in a new
// transaction, as the engine contract allows. BEGIN is sent in one round
// trip with a transaction's first query, and a transaction that queried
// nothing sends neither BEGIN nor COMMIT.
//
// The kv methods that return no error (Get, Bucket, cursors) keep the
// first error of their transaction (pgTx.err): they answer "absent" from
// then on, and the transaction ends with that error instead of fn's — a
// view reports it, an update rolls back (or retries, for a serialization
// failure) — so nothing decided on a failed read is committed.

// pgMaxRetries bounds the runs of one update after serialization
// failures; each retry waits a little longer, with jitter, so that
// conflicting gateways fall out of step.
const pgMaxRetries = 50

// The sizes of a cursor's batches: the first is small, for the point
// lookups and short walks that most cursors are, and each next one
// doubles up to the last, for long walks.
const (
	pgFirstBatch = 16
	pgMaxBatch   = 1024
)

// pgSchema is the migrations, in order: migration i+1 is pgSchema[i].
// The gateway runs the missing ones at open, under an advisory lock, so
// that gateways starting together migrate once.
var pgSchema = []string{
	`CREATE TABLE og_kv (
		b bytea NOT NULL,
		k bytea NOT NULL,
		v bytea,
		PRIMARY KEY (b, k)
	);
	CREATE TABLE og_seq (
		b bytea PRIMARY KEY,
		n bigint NOT NULL
	);`,
	// Changes to bucket records (the top-level bucket "buckets", whose
	// path is 'buckets' 0x00 0x01) are announced to every gateway's
	// cache (bucket_cache.go), with the bucket's name in hex.
	`CREATE FUNCTION og_notify_bucket() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF TG_OP = 'DELETE' THEN
			PERFORM pg_notify('og_buckets', encode(OLD.k, 'hex'));
		ELSE
			PERFORM pg_notify('og_buckets', encode(NEW.k, 'hex'));
		END IF;
		RETURN NULL;
	END $$;
	CREATE TRIGGER og_bucket_inserted AFTER INSERT ON og_kv FOR EACH ROW
		WHEN (NEW.b = '\x6275636b6574730001'::bytea) EXECUTE FUNCTION og_notify_bucket();
	CREATE TRIGGER og_bucket_updated AFTER UPDATE ON og_kv FOR EACH ROW
		WHEN (NEW.b = '\x6275636b6574730001'::bytea) EXECUTE FUNCTION og_notify_bucket();
	CREATE TRIGGER og_bucket_deleted AFTER DELETE ON og_kv FOR EACH ROW
		WHEN (OLD.b = '\x6275636b6574730001'::bytea) EXECUTE FUNCTION og_notify_bucket();`,
	// Sequence numbers come from one PostgreSQL sequence (NextSequence),
	// which starts past every number the per-bucket rows gave.
	`CREATE SEQUENCE og_ids AS bigint;
	SELECT setval('og_ids', GREATEST(1, (SELECT coalesce(max(n), 0) FROM og_seq)), (SELECT count(*) > 0 FROM og_seq));`,
	// Gateways from here on stamp the files of the records they write,
	// and may answer reads from records their stamps confirm
	// (stamp.go). A gateway from before would write records without
	// stamping their files, leaving other gateways' cached records
	// standing: this version, newer than it knows, makes it refuse the
	// catalogue.
	`COMMENT ON TABLE og_kv IS 'ObjectGateway catalogue: object files carry the stamps of their records';`,
}

// pgMigrationLock is the key of the advisory lock migrations run under.
const pgMigrationLock = 0x6f67_6d69_6772 // "ogmigr"

type pgEngine struct {
	pool *pgxpool.Pool
	// locks is the pool of the connections that hold advisory locks
	// (lock.go): apart from pool, so that the holders of locks, waiting
	// for a connection to commit with, never keep it from them.
	locks *pgxpool.Pool
	// dsn is the database's, as the engine was opened with.
	dsn string

	// buckets caches bucket records (bucket_cache.go); stopListen ends
	// its listening connection, and listening is closed once it has.
	buckets    *bucketCache
	stopListen context.CancelFunc
	listening  chan struct{}

	// connConfig is the database's connection settings, for the
	// connections outside the pools; serving holds those of Serve and
	// Exclusive (lock.go), closed with the engine.
	connConfig *pgx.ConnConfig
	serving    []*pgx.Conn

	// tops caches the names of top-level buckets known to exist: the
	// contract has no way to delete one, so once committed a top-level
	// bucket exists for good, and its lookup costs no round trip.
	tops sync.Map // string → struct{}
}

// openPostgres connects to the database named by dsn and brings its
// schema up to date.
func openPostgres(ctx context.Context, dsn string, o PGOptions) (*pgEngine, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = int32(o.MaxConns)
	}
	if o.MinConns > 0 {
		cfg.MinConns = int32(o.MinConns)
	}
	lcfg := cfg.Copy()
	lcfg.MinConns = 0
	wait := o.LockTimeout
	if wait <= 0 {
		wait = DefaultLockTimeout
	}
	lcfg.ConnConfig.RuntimeParams["lock_timeout"] = fmt.Sprintf("%dms", max(wait.Milliseconds(), 1))
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	locks, err := pgxpool.NewWithConfig(ctx, lcfg)
	if err != nil {
		pool.Close()
		return nil, err
	}
	e := &pgEngine{pool: pool, locks: locks, dsn: dsn, connConfig: cfg.ConnConfig.Copy(), buckets: &bucketCache{records: map[string][]byte{}}, listening: make(chan struct{})}
	if err := e.migrate(ctx); err != nil {
		pool.Close()
		locks.Close()
		return nil, err
	}
	lctx, stop := context.WithCancel(context.Background())
	e.stopListen = stop
	lconf := cfg.ConnConfig.Copy()
	lconf.RuntimeParams["application_name"] = listenerName
	go e.listen(lctx, lconf, e.buckets)
	return e, nil
}

// migrate applies the migrations the database has not had yet, in one
// transaction under a transaction-scoped advisory lock: a gateway that
// waited for the lock finds them applied.
func (e *pgEngine) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgMigrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS og_migrations (
			version integer PRIMARY KEY,
			applied timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return err
		}
		var have int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM og_migrations`).Scan(&have); err != nil {
			return err
		}
		if have > len(pgSchema) {
			return fmt.Errorf("the database's catalogue schema is version %d, newer than this gateway's %d: upgrade the gateway", have, len(pgSchema))
		}
		for v := have + 1; v <= len(pgSchema); v++ {
			if _, err := tx.Exec(ctx, pgSchema[v-1]); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO og_migrations (version) VALUES ($1)`, v); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *pgEngine) close() error {
	e.stopListen()
	<-e.listening
	for _, c := range e.serving {
		// The serving lock goes before the connection does: closing it
		// only asks the server to end the session, which drops its
		// locks a moment later, and an fsck (or a gateway, after fsck)
		// started as soon as Close returned would find the catalogue
		// still in use. A server that does not answer in time drops
		// them with the session.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = c.Exec(ctx, `SELECT pg_advisory_unlock_all()`)
		cancel()
		c.Close(context.Background())
	}
	e.locks.Close()
	e.pool.Close()
	return nil
}

// view runs fn in a read-only snapshot.
func (e *pgEngine) view(fn func(tx kvTx) error) error {
	return e.read(fn, false)
}

// viewOne runs fn, which reads the store once at most, as a single
// statement outside a transaction: a statement is its own snapshot, and
// the read costs one round trip instead of three (BEGIN, the read,
// COMMIT). A second read in fn fails with errPGSecondRead.
func (e *pgEngine) viewOne(fn func(tx kvTx) error) error {
	return e.read(fn, true)
}

func (e *pgEngine) read(fn func(tx kvTx) error, one bool) error {
	ctx := context.Background()
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	tx := &pgTx{e: e, c: c, ctx: ctx, one: one, begin: `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`}
	ferr := fn(tx)
	return tx.end(ferr, false)
}

// errPGSecondRead is a single-read view's second read: a defect of the
// catalogue's code, which the contract suite would show.
var errPGSecondRead = errors.New("metadata: a single-read view read the store twice")

// update runs fn in a serializable transaction and commits it, running fn
// again after a serialization failure or deadlock.
func (e *pgEngine) update(fn func(tx kvTx) error) error {
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		err := e.updateOnce(ctx, fn)
		if !retryable(err) || attempt == pgMaxRetries {
			return err
		}
		backoff := time.Duration(attempt+1) * 200 * time.Microsecond
		time.Sleep(backoff/2 + rand.N(backoff))
	}
}

func (e *pgEngine) updateOnce(ctx context.Context, fn func(tx kvTx) error) error {
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	tx := &pgTx{e: e, c: c, ctx: ctx, writable: true, begin: `BEGIN ISOLATION LEVEL SERIALIZABLE`}
	ferr := fn(tx)
	err = tx.end(ferr, true)
	if err == nil {
		for _, name := range tx.created {
			e.tops.Store(name, struct{}{})
		}
	}
	if tx.bucketsChanged {
		// Also after a failed commit: whether it took is not always
		// known (a connection lost during COMMIT).
		e.buckets.dropAll()
	}
	return err
}

// retryable reports whether err is a serialization failure or a deadlock,
// after which the transaction may succeed when run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// pgTx is one transaction on one pooled connection.
type pgTx struct {
	e        *pgEngine
	c        *pgxpool.Conn
	ctx      context.Context
	writable bool
	// begin is the BEGIN statement, sent with the first query; begun is
	// set once it was.
	begin string
	begun bool
	// err is the first error of a method that cannot return one.
	err error
	// one is set for a view of one read (viewOne), and read once that
	// read was made.
	one, read bool
	// created holds the top-level buckets this transaction created, which
	// join the engine's cache only if it commits.
	created []string
	// bucketsChanged is set when the transaction wrote a bucket record:
	// the engine's bucket cache is dropped after it.
	bucketsChanged bool
}

// end finishes the transaction: it commits when commit is set and
// nothing failed, and rolls back otherwise. The error of a failed read
// wins over fn's (fn decided on an answer that was not the store's).
func (tx *pgTx) end(ferr error, commit bool) error {
	if tx.err != nil {
		ferr = tx.err
	}
	if !tx.begun {
		return ferr
	}
	if ferr != nil || !commit {
		if _, err := tx.c.Exec(tx.ctx, `ROLLBACK`); err != nil {
			// A connection that could not roll back is not reused.
			tx.c.Conn().Close(tx.ctx)
		}
		return ferr
	}
	if _, err := tx.c.Exec(tx.ctx, `COMMIT`); err != nil {
		// A server's refusal (a serialization failure) leaves the
		// connection usable; anything else may have broken it.
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			tx.c.Conn().Close(tx.ctx)
		}
		return err
	}
	return nil
}

// fail records the transaction's first error.
func (tx *pgTx) fail(err error) {
	if tx.err == nil {
		tx.err = err
	}
}

// exec runs a statement that returns no rows, with BEGIN before it if the
// transaction has not begun.
func (tx *pgTx) exec(sql string, args ...any) (pgconn.CommandTag, error) {
	if tx.err != nil {
		return pgconn.CommandTag{}, tx.err
	}
	if tx.begun {
		return tx.c.Exec(tx.ctx, sql, args...)
	}
	var b pgx.Batch
	b.Queue(tx.begin)
	b.Queue(sql, args...)
	br := tx.c.SendBatch(tx.ctx, &b)
	tx.begun = true
	_, err := br.Exec()
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = br.Exec()
	}
	return tag, errors.Join(err, br.Close())
}

// query runs a statement and calls scan for each row, with BEGIN before
// it if the transaction has not begun. An error is kept as the
// transaction's.
func (tx *pgTx) query(scan func(rows pgx.Rows) error, sql string, args ...any) error {
	if tx.err != nil {
		return tx.err
	}
	var rows pgx.Rows
	var br pgx.BatchResults
	var err error
	switch {
	case tx.one && tx.read:
		err = errPGSecondRead
	case tx.one:
		tx.read = true
		rows, err = tx.c.Query(tx.ctx, sql, args...)
	case tx.begun:
		rows, err = tx.c.Query(tx.ctx, sql, args...)
	default:
		var b pgx.Batch
		b.Queue(tx.begin)
		b.Queue(sql, args...)
		br = tx.c.SendBatch(tx.ctx, &b)
		tx.begun = true
		if _, err = br.Exec(); err == nil {
			rows, err = br.Query()
		}
	}
	if err == nil {
		for rows.Next() {
			if err = scan(rows); err != nil {
				break
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if br != nil {
		err = errors.Join(err, br.Close())
	}
	if err != nil {
		tx.fail(err)
	}
	return err
}

// lookup reads the row of key in the bucket at path: found is false when
// there is none, and isBucket true when the key names a nested bucket.
func (tx *pgTx) lookup(path, key []byte) (v []byte, found, isBucket bool) {
	tx.query(func(rows pgx.Rows) error {
		found = true
		return rows.Scan(&v, &isBucket)
	}, `SELECT v, v IS NULL FROM og_kv WHERE b = $1 AND k = $2`, path, key)
	if tx.err != nil {
		return nil, false, false
	}
	if found && !isBucket && v == nil {
		v = []byte{}
	}
	return v, found, isBucket
}

func (tx *pgTx) Writable() bool { return tx.writable }

func (tx *pgTx) Bucket(name []byte) kvBucket {
	if _, ok := tx.e.tops.Load(string(name)); ok {
		return &pgBucket{tx: tx, path: childPath(nil, name)}
	}
	return tx.root().Bucket(name)
}

func (tx *pgTx) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	if _, ok := tx.e.tops.Load(string(name)); ok {
		return &pgBucket{tx: tx, path: childPath(nil, name)}, nil
	}
	b, err := tx.root().CreateBucketIfNotExists(name)
	if err == nil {
		tx.created = append(tx.created, string(name))
	}
	return b, err
}

// root is the bucket that holds the top-level buckets.
func (tx *pgTx) root() *pgBucket { return &pgBucket{tx: tx, path: []byte{}} }

func (tx *pgTx) Cursor() kvCursor { return tx.root().Cursor() }

// childPath returns the path of the nested bucket name in the bucket at
// path.
func childPath(path, name []byte) []byte {
	p := make([]byte, 0, len(path)+len(name)+2)
	p = append(p, path...)
	for _, c := range name {
		if c == 0 {
			p = append(p, 0, 0xff)
		} else {
			p = append(p, c)
		}
	}
	return append(p, 0, 1)
}

// pathEnd returns the least byte string greater than every path that
// starts with path (which ends in 0x00 0x01): path with its last byte
// made 0x02.
func pathEnd(path []byte) []byte {
	end := append([]byte(nil), path...)
	end[len(end)-1]++
	return end
}

// pgBucket is a bucket of a pgTx, named by its path.
type pgBucket struct {
	tx   *pgTx
	path []byte
}

// The engine answers a bucket created over an existing key, a value put
// over a nested bucket's name and a missing bucket deleted with bbolt's
// errors, as the contract asks (kv.go).
var (
	errPGBucketExists = fmt.Errorf("metadata: %w", berrors.ErrBucketExists)
	errPGIncompatible = fmt.Errorf("metadata: %w", berrors.ErrIncompatibleValue)
	errPGNoBucket     = fmt.Errorf("metadata: %w", berrors.ErrBucketNotFound)
	errPGReadOnly     = fmt.Errorf("metadata: %w", berrors.ErrTxNotWritable)
	errPGKey          = fmt.Errorf("metadata: %w", berrors.ErrKeyRequired)
	errPGKeyTooLarge  = fmt.Errorf("metadata: %w", berrors.ErrKeyTooLarge)
)

func (b *pgBucket) Get(key []byte) []byte {
	v, found, isBucket := b.tx.lookup(b.path, key)
	if !found || isBucket {
		return nil
	}
	return v
}

// getIn is b.Bucket(name).Get(key) in one query: ok is false when the
// nested bucket does not exist. The query is two primary-key lookups
// joined by UNION ALL, which PostgreSQL plans as cheaply as one.
func (b *pgBucket) getIn(name, key []byte) (v []byte, ok bool) {
	var found bool
	b.tx.query(func(rows pgx.Rows) error {
		var which int16
		var val []byte
		var isBucket bool
		if err := rows.Scan(&which, &val, &isBucket); err != nil {
			return err
		}
		switch {
		case which == 0:
			ok = isBucket
		case !isBucket:
			found, v = true, val
		}
		return nil
	}, `SELECT 0::int2, v, v IS NULL FROM og_kv WHERE b = $1 AND k = $2
		UNION ALL SELECT 1::int2, v, v IS NULL FROM og_kv WHERE b = $3 AND k = $4`, b.path, name, childPath(b.path, name), key)
	if b.tx.err != nil || !ok || !found {
		return nil, ok && b.tx.err == nil
	}
	if v == nil {
		v = []byte{}
	}
	return v, true
}

func (b *pgBucket) Put(key, value []byte) error {
	if err := b.writable(key); err != nil {
		return err
	}
	if value == nil {
		value = []byte{}
	}
	b.noteWrite()
	tag, err := b.tx.exec(`INSERT INTO og_kv (b, k, v) VALUES ($1, $2, $3)
		ON CONFLICT (b, k) DO UPDATE SET v = excluded.v WHERE og_kv.v IS NOT NULL`, b.path, key, value)
	if err != nil {
		b.tx.fail(err)
		return err
	}
	if tag.RowsAffected() == 0 {
		return errPGIncompatible
	}
	return nil
}

// noteWrite marks the transaction as one that changes bucket records when
// b is the top-level bucket of them.
func (b *pgBucket) noteWrite() {
	if string(b.path) == string(bucketsPath) {
		b.tx.bucketsChanged = true
	}
}

// writable checks that the transaction may write and key is one the
// contract allows.
func (b *pgBucket) writable(key []byte) error {
	if !b.tx.writable {
		return errPGReadOnly
	}
	if len(key) == 0 {
		return errPGKey
	}
	if len(key) > maxKeySize {
		return errPGKeyTooLarge
	}
	return nil
}

func (b *pgBucket) Delete(key []byte) error {
	if err := b.writable(key); err != nil {
		return err
	}
	b.noteWrite()
	tag, err := b.tx.exec(`DELETE FROM og_kv WHERE b = $1 AND k = $2 AND v IS NOT NULL`, b.path, key)
	if err != nil {
		b.tx.fail(err)
		return err
	}
	if tag.RowsAffected() == 0 {
		if _, found, isBucket := b.tx.lookup(b.path, key); found && isBucket {
			return errPGIncompatible
		}
	}
	return b.tx.err
}

func (b *pgBucket) Bucket(name []byte) kvBucket {
	if _, found, isBucket := b.tx.lookup(b.path, name); found && isBucket {
		return &pgBucket{tx: b.tx, path: childPath(b.path, name)}
	}
	return nil
}

func (b *pgBucket) CreateBucket(name []byte) (kvBucket, error) {
	if err := b.writable(name); err != nil {
		return nil, err
	}
	tag, err := b.tx.exec(`INSERT INTO og_kv (b, k, v) VALUES ($1, $2, NULL) ON CONFLICT DO NOTHING`, b.path, name)
	if err != nil {
		b.tx.fail(err)
		return nil, err
	}
	if tag.RowsAffected() == 0 {
		if _, _, isBucket := b.tx.lookup(b.path, name); !isBucket && b.tx.err == nil {
			return nil, errPGIncompatible
		}
		return nil, errors.Join(errPGBucketExists, b.tx.err)
	}
	return &pgBucket{tx: b.tx, path: childPath(b.path, name)}, nil
}

func (b *pgBucket) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	if err := b.writable(name); err != nil {
		return nil, err
	}
	_, found, isBucket := b.tx.lookup(b.path, name)
	if b.tx.err != nil {
		return nil, b.tx.err
	}
	switch {
	case found && isBucket:
		return &pgBucket{tx: b.tx, path: childPath(b.path, name)}, nil
	case found:
		return nil, errPGIncompatible
	}
	return b.CreateBucket(name)
}

func (b *pgBucket) DeleteBucket(name []byte) error {
	if err := b.writable(name); err != nil {
		return err
	}
	tag, err := b.tx.exec(`DELETE FROM og_kv WHERE b = $1 AND k = $2 AND v IS NULL`, b.path, name)
	if err != nil {
		b.tx.fail(err)
		return err
	}
	if tag.RowsAffected() == 0 {
		if _, found, _ := b.tx.lookup(b.path, name); found {
			return errPGIncompatible
		}
		if b.tx.err != nil {
			return b.tx.err
		}
		return errPGNoBucket
	}
	child := childPath(b.path, name)
	end := pathEnd(child)
	for _, sql := range []string{
		`DELETE FROM og_kv WHERE b >= $1 AND b < $2`,
		`DELETE FROM og_seq WHERE b >= $1 AND b < $2`,
	} {
		if _, err := b.tx.exec(sql, child, end); err != nil {
			b.tx.fail(err)
			return err
		}
	}
	return nil
}

func (b *pgBucket) Cursor() kvCursor { return &pgCursor{b: b} }

func (b *pgBucket) ForEach(fn func(k, v []byte) error) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return b.tx.err
}

func (b *pgBucket) ForEachBucket(fn func(name []byte) error) error {
	return b.ForEach(func(k, v []byte) error {
		if v != nil {
			return nil
		}
		return fn(k)
	})
}

// NextSequence takes a number of og_ids, one sequence for every bucket:
// a PostgreSQL sequence is outside transactions, so writers of one bucket
// on several gateways never conflict over a counter row (with a row per
// bucket, every versioned write of a bucket updated the same row, and
// under SERIALIZABLE all but one of them failed and ran again). The
// numbers of one bucket have gaps, and grow: what the contract asks.
func (b *pgBucket) NextSequence() (uint64, error) {
	if !b.tx.writable {
		return 0, errPGReadOnly
	}
	var n int64
	err := b.tx.query(func(rows pgx.Rows) error { return rows.Scan(&n) }, `SELECT nextval('og_ids')`)
	if err != nil {
		return 0, err
	}
	return uint64(n), nil
}

// Sequence is the last number og_ids gave, to any bucket: at least the
// last this one was given.
func (b *pgBucket) Sequence() uint64 {
	var n int64
	b.tx.query(func(rows pgx.Rows) error { return rows.Scan(&n) },
		`SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM og_ids`)
	return uint64(n)
}

// SetSequence raises og_ids to n, which bigint bounds to MaxInt64.
func (b *pgBucket) SetSequence(n uint64) error {
	if !b.tx.writable {
		return errPGReadOnly
	}
	if n > math.MaxInt64 {
		return fmt.Errorf("metadata: sequence %d is beyond PostgreSQL's bigint", n)
	}
	if n == 0 || n <= b.Sequence() {
		return b.tx.err
	}
	_, err := b.tx.exec(`SELECT setval('og_ids', $1)`, int64(n))
	if err != nil {
		b.tx.fail(err)
	}
	return err
}

// pgCursor walks a bucket in batches of rows, fetched as it goes.
type pgCursor struct {
	b *pgBucket
	// rows is the batch fetched last and i the position in it.
	rows []pgRow
	i    int
	// more is set when the last batch was full: rows after it may follow.
	more bool
	// batch is the size of the next batch.
	batch int
}

type pgRow struct{ k, v []byte }

func (c *pgCursor) First() ([]byte, []byte) {
	c.batch = pgFirstBatch
	c.fetch(`SELECT k, v, v IS NULL FROM og_kv WHERE b = $1 ORDER BY k LIMIT $2`, c.b.path, c.batch)
	return c.at()
}

func (c *pgCursor) Seek(seek []byte) ([]byte, []byte) {
	c.batch = pgFirstBatch
	c.fetch(`SELECT k, v, v IS NULL FROM og_kv WHERE b = $1 AND k >= $3 ORDER BY k LIMIT $2`, c.b.path, c.batch, seek)
	return c.at()
}

func (c *pgCursor) Next() ([]byte, []byte) {
	if c.i < len(c.rows) {
		c.i++
	}
	if c.i == len(c.rows) && c.more {
		last := c.rows[len(c.rows)-1].k
		c.batch = min(2*c.batch, pgMaxBatch)
		c.fetch(`SELECT k, v, v IS NULL FROM og_kv WHERE b = $1 AND k > $3 ORDER BY k LIMIT $2`, c.b.path, c.batch, last)
	}
	return c.at()
}

// fetch replaces the batch with the rows of sql.
func (c *pgCursor) fetch(sql string, args ...any) {
	c.rows, c.i, c.more = c.rows[:0], 0, false
	c.b.tx.query(func(rows pgx.Rows) error {
		var r pgRow
		var isBucket bool
		if err := rows.Scan(&r.k, &r.v, &isBucket); err != nil {
			return err
		}
		if !isBucket && r.v == nil {
			r.v = []byte{}
		}
		c.rows = append(c.rows, r)
		return nil
	}, sql, args...)
	if c.b.tx.err != nil {
		c.rows = c.rows[:0]
		return
	}
	c.more = len(c.rows) == c.batch
}

func (c *pgCursor) at() ([]byte, []byte) {
	if c.i >= len(c.rows) {
		return nil, nil
	}
	r := c.rows[c.i]
	return r.k, r.v
}
