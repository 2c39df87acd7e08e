package metadata

import "math/rand/v2"

// A Stamper marks the file of a key's current record with the record's
// Stamp. An index with a stamper (SetStamper) gives every current record
// it writes a fresh Stamp and calls the stamper inside the write's
// transaction, before the commit, so that by the time a change of a record
// is acknowledged its file carries the new stamp and no longer the stamp
// of any record before it. A reader that holds a record and finds the
// record's stamp on the file (with the record's size, mtime and inode) then
// knows the record is still the key's current one without asking the
// catalogue: the object layer's record cache on a shared catalogue.
//
// The stamper runs once per attempt of the transaction (PostgreSQL
// retries serialization failures) with the same Stamp; an error of its
// own fails the write. It must not call the index.
type Stamper func(bucket string, o *Object) error

// SetStamper sets the index's stamper; nil (the default) writes records
// without stamps. Call it before the index serves.
func (ix *Index) SetStamper(fn Stamper) { ix.stamper = fn }

// Stamping reports whether the index stamps current records.
func (ix *Index) Stamping() bool { return ix.stamper != nil }

// newStamp gives o a fresh stamp when the index stamps; encode o after.
func (ix *Index) newStamp(o *Object) {
	if ix.stamper == nil {
		return
	}
	// A record made from another one (an update, a promoted version)
	// never keeps the stamp it had.
	s := rand.Uint64()
	for s == 0 || s == o.Stamp {
		s = rand.Uint64()
	}
	o.Stamp = s
}

// mark runs the stamper on o, inside the write transaction.
func (ix *Index) mark(bucket string, o *Object) error {
	if ix.stamper == nil {
		return nil
	}
	return ix.stamper(bucket, o)
}
