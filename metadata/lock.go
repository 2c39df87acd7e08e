package metadata

import (
	"context"

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
		return nil, err
	}
	return func() {
		if _, err := c.Exec(ctx, unlock, args...); err != nil {
			c.Conn().Close(ctx)
		}
		c.Release()
	}, nil
}
