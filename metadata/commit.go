package metadata

import (
	"errors"
)

// maxBatch caps how many writes share one transaction, so one commit's
// latency stays bounded under a flood of writers.
const maxBatch = 1000

// call is one write waiting for, or taking part in, a group commit.
type call struct {
	fn func(tx kvTx) error

	// err and panicked are the call's outcome, written by the leader that
	// ran it and read by the caller after done delivers.
	err      error
	panicked any

	// done receives false when the call has finished, or true when the
	// caller has been promoted to lead the next group.
	done chan bool
}

// writeError marks an error from a bbolt write (Put, Delete, bucket
// creation) made after the call may already have changed the transaction.
// Such a failure rolls back the whole group; any other error from a call
// is returned before it writes anything, so the group continues.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// written wraps a bbolt write error as a writeError; nil stays nil.
func written(err error) error {
	if err == nil {
		return nil
	}
	return &writeError{err}
}

// update runs fn in a write transaction and returns once it is committed.
// Calls arriving while a commit is in flight queue up and share the next
// transaction; see lead.
//
// fn may return a plain error only before it changes the transaction; an
// error after a change must be wrapped by written, so that the group is
// rolled back rather than committed half-done. If fn panics, update panics
// in the caller's goroutine with the same value.
func (ix *Index) update(fn func(tx kvTx) error) error {
	if ix.pg != nil {
		return ix.updateAlone(fn)
	}
	c := &call{fn: fn, done: make(chan bool, 1)}
	ix.mu.Lock()
	ix.queue = append(ix.queue, c)
	lead := !ix.leading
	ix.leading = true
	ix.mu.Unlock()
	if !lead {
		lead = <-c.done
	}
	if lead {
		ix.lead()
	}
	if c.panicked != nil {
		panic(c.panicked)
	}
	return c.err
}

// updateAlone is update on PostgreSQL: fn runs in a transaction of its
// own, concurrently with others. The group commit exists to share one
// fsync among the writes that arrive together, which PostgreSQL does by
// itself for concurrent commits (one WAL flush covers them); a group
// would instead make every write of the process wait for one leader's
// transaction, whose statements each cost a round trip. fn's errors keep
// their meaning: a plain error rolls back and is returned, a written one
// is unwrapped, a panic is re-raised in the caller.
func (ix *Index) updateAlone(fn func(tx kvTx) error) error {
	if err := ix.failure(); err != nil {
		return err
	}
	ix.commits.Add(1)
	c := &call{fn: fn}
	err := ix.kvUpdate(func(tx kvTx) error {
		if !c.run(tx) {
			return errRollback
		}
		return c.err
	})
	if c.panicked != nil {
		panic(c.panicked)
	}
	if err == errRollback {
		// fn failed while writing: its own error.
		return c.err
	}
	// fn's plain error, or the engine's: a failed commit, or a read that
	// failed in the transaction, which wins over what fn made of its
	// "absent" answer (a NoSuchKey for a key that is there).
	return err
}

// lead commits one group taken from the head of the queue, then hands
// leadership to the oldest waiting call, if any. The caller's own call is
// at the head of the queue, so it is in the group.
//
// Invariant: the queue is non-empty only while some goroutine leads.
func (ix *Index) lead() {
	ix.mu.Lock()
	group := ix.queue
	if len(group) > maxBatch {
		group = group[:maxBatch:maxBatch]
		ix.queue = append([]*call(nil), ix.queue[maxBatch:]...)
	} else {
		ix.queue = nil
	}
	ix.mu.Unlock()

	// If the commit never returns (bbolt panics, or fn calls
	// runtime.Goexit), bbolt has rolled the transaction back; the group
	// still gets an answer and the queue a leader, so no caller hangs.
	committed := false
	defer func() {
		if !committed {
			for _, c := range group {
				if c.err == nil && c.panicked == nil {
					c.err = errAbandoned
				}
			}
		}
		ix.handOff(group)
	}()
	ix.commit(group)
	committed = true
}

// handOff passes leadership to the oldest waiting call, if any, and
// wakes the members of group other than the leader's own call.
func (ix *Index) handOff(group []*call) {
	ix.mu.Lock()
	var next *call
	if len(ix.queue) > 0 {
		next = ix.queue[0]
	} else {
		ix.leading = false
	}
	ix.mu.Unlock()
	if next != nil {
		next.done <- true
	}
	// group[0] is the leader's own call; it reads its outcome directly.
	for _, c := range group[1:] {
		c.done <- false
	}
}

// errAbandoned is the outcome of calls whose group's commit was cut short
// by a panic or runtime.Goexit in the leader.
var errAbandoned = errors.New("metadata: write abandoned: the group commit did not complete")

// errRollback aborts a group transaction after a call failed mid-write.
var errRollback = errors.New("metadata: group rolled back")

// commit runs the calls of group in one transaction and commits it. A call
// that fails before writing just reports its error. A call that fails
// while writing (or panics) rolls the transaction back; it keeps its
// outcome and the rest of the group is retried without it.
func (ix *Index) commit(group []*call) {
	pending := group
	for len(pending) > 0 {
		if err := ix.failure(); err != nil {
			for _, c := range pending {
				c.err = err
			}
			return
		}
		failed := -1
		ix.commits.Add(1)
		// The engine may run this more than once (a serialization
		// conflict); each run starts over, and only the last one commits.
		err := ix.kvUpdate(func(tx kvTx) error {
			failed = -1
			for i, c := range pending {
				if !c.run(tx) {
					failed = i
					return errRollback
				}
			}
			return nil
		})
		if failed >= 0 {
			rest := make([]*call, 0, len(pending)-1)
			rest = append(rest, pending[:failed]...)
			pending = append(rest, pending[failed+1:]...)
			continue
		}
		if err != nil {
			// The transaction could not begin or commit: every call that
			// had succeeded has in fact failed.
			for _, c := range pending {
				if c.err == nil && c.panicked == nil {
					c.err = err
				}
			}
		}
		return
	}
}

// run calls c.fn in tx and records its outcome. It reports false when the
// transaction must be rolled back: fn panicked or failed while writing.
func (c *call) run(tx kvTx) (ok bool) {
	c.err, c.panicked = nil, nil
	defer func() {
		if r := recover(); r != nil {
			c.panicked = r
			ok = false
		}
	}()
	err := c.fn(tx)
	if we, isWrite := err.(*writeError); isWrite {
		c.err = we.err
		return false
	}
	c.err = err
	return true
}
