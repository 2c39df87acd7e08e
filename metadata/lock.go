package metadata

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cespare/xxhash/v2"
)

// Locks of a shared catalogue. The object layer orders the writers of a
// key, and the writes into a bucket against its deletion, with locks of
// its own process; gateways sharing a catalogue need the same order
// among them, because a write renames its file into place before it
// commits the file's record, and a conditional write checks the record
// it replaces before both. With PostgreSQL these are the database's
// advisory locks, held on a connection of their own (the engine's lock
// pool) from LockWrite or LockBucket to the unlock they return; a
// gateway that dies loses its connection and with it its locks. With
// bbolt one process has the index, and the locks are its own alone: the
// calls do nothing.
//
// A lock names a bucket, or a key of a bucket, by a 64-bit hash: two
// names that share a hash only wait for each other. The order is the
// object layer's: a goroutine holds one LockWrite or one LockBucket at a
// time, so the lock pool cannot run dry under its holders.

// Shared reports whether other gateways may share the catalogue
// (PostgreSQL): what the process knows of it may then change under it.
func (ix *Index) Shared() bool { return ix.pg != nil }

// LockWrite takes the catalogue's lock of a write into bucket: a shared
// lock of the bucket, which a LockBucket of it waits for, and, when key
// is not empty, the exclusive lock of the key. It waits as long as
// another gateway holds them. unlock must be called once.
func (ix *Index) LockWrite(bucket, key string) (unlock func(), err error) {
	if ix.pg == nil {
		return noUnlock, nil
	}
	b := lockHash("b", bucket, "")
	if key == "" {
		return ix.pg.advisory(`SELECT pg_advisory_lock_shared($1)`, `SELECT pg_advisory_unlock_shared($1)`, b)
	}
	k := lockHash("k", bucket, key)
	return ix.pg.advisory(`SELECT pg_advisory_lock_shared($1), pg_advisory_lock($2)`,
		`SELECT pg_advisory_unlock($2), pg_advisory_unlock_shared($1)`, b, k)
}

// LockBucket takes the exclusive lock of bucket, which waits for every
// LockWrite into it to be unlocked and keeps new ones out: DeleteBucket's.
func (ix *Index) LockBucket(bucket string) (unlock func(), err error) {
	if ix.pg == nil {
		return noUnlock, nil
	}
	return ix.pg.advisory(`SELECT pg_advisory_lock($1)`, `SELECT pg_advisory_unlock($1)`, lockHash("b", bucket, ""))
}

func noUnlock() {}

// ErrCatalogueInUse is returned by Serve and Exclusive when the other
// kind of user holds the shared catalogue: an offline tool (fsck, scan)
// while a gateway starts, or a gateway while an offline tool starts.
var ErrCatalogueInUse = errors.New("metadata: the shared catalogue is in use")

// servingLock is the advisory lock key gateways hold shared, and offline
// tools exclusively.
const servingLock = 0x6f67_7365_7276 // "ogserv"

// Serve marks the catalogue as served by this process until Close: on a
// shared catalogue it holds the serving lock shared, which any number of
// gateways (and admin commands) may, and which keeps fsck and scan from
// starting; it fails with ErrCatalogueInUse while one of them runs. On
// bbolt it does nothing: the file lock already makes the index this
// process's alone.
func (ix *Index) Serve() error {
	if ix.pg == nil {
		return nil
	}
	return ix.pg.holdServing(`SELECT pg_try_advisory_lock_shared($1)`, "an offline tool (fsck or scan) is working on it")
}

// Exclusive makes the catalogue this process's alone until Close, for an
// offline tool: on a shared catalogue it takes the serving lock
// exclusively, and fails with ErrCatalogueInUse while any gateway serves
// it. On bbolt it does nothing (the file lock).
func (ix *Index) Exclusive() error {
	if ix.pg == nil {
		return nil
	}
	return ix.pg.holdServing(`SELECT pg_try_advisory_lock($1)`, "gateways are serving it; stop them first")
}

// holdServing runs the try-lock statement lock on a connection of its
// own, kept open until the engine closes: the lock lasts as long as it.
func (e *pgEngine) holdServing(lock, busy string) error {
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, e.connConfig.Copy())
	if err != nil {
		return err
	}
	var got bool
	if err := conn.QueryRow(ctx, lock, int64(servingLock)).Scan(&got); err != nil {
		conn.Close(ctx)
		return err
	}
	if !got {
		conn.Close(ctx)
		return fmt.Errorf("%w: %s", ErrCatalogueInUse, busy)
	}
	e.serving = append(e.serving, conn)
	return nil
}

// ErrLockTimeout is returned by LockWrite and LockBucket when the lock
// was not granted within PGOptions.LockTimeout (DefaultLockTimeout):
// another gateway holds it that long (a write stuck on its filesystem, a
// gateway stopped but not dead). The request fails, to be retried, rather
// than wait without end and hold a connection of the lock pool meanwhile.
var ErrLockTimeout = errors.New("metadata: a lock of the shared catalogue was not granted in time")

// DefaultLockTimeout is how long LockWrite and LockBucket wait for a lock
// unless PGOptions.LockTimeout says otherwise (PostgreSQL's lock_timeout
// of the lock pool's sessions).
const DefaultLockTimeout = 30 * time.Second

// lockHash is the advisory lock key of a bucket ("b") or a key ("k").
func lockHash(kind, bucket, key string) int64 {
	var d xxhash.Digest
	d.WriteString(kind)
	d.WriteString(bucket)
	if kind == "k" {
		d.Write([]byte{0})
		d.WriteString(key)
	}
	return int64(d.Sum64())
}

// advisory runs lock on a connection of the lock pool and returns the
// function that runs unlock on it and gives it back. A connection whose
// unlock fails is closed: the server then drops its locks.
func (e *pgEngine) advisory(lock, unlock string, args ...any) (func(), error) {
	ctx := context.Background()
	c, err := e.locks.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.Exec(ctx, lock, args...); err != nil {
		c.Conn().Close(ctx)
		c.Release()
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "55P03" {
			return nil, fmt.Errorf("%w: %w", ErrLockTimeout, err)
		}
		return nil, err
	}
	return func() {
		if _, err := c.Exec(ctx, unlock, args...); err != nil {
			c.Conn().Close(ctx)
		}
		c.Release()
	}, nil
}
