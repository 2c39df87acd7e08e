package metadata

import (
	"errors"
	"math/rand/v2"
)

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

// newStamp gives o a fresh stamp when the index stamps, and none when it
// does not (a record made from a stamped one must not keep a stamp its
// file may still carry); encode o after.
func (ix *Index) newStamp(o *Object) {
	if ix.stamper == nil {
		o.Stamp = 0
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

// stampsKey, under metaBucket, records whether the gateways of a shared
// catalogue stamp ("on" or "off"): the first gateway to serve it decides.
var stampsKey = []byte("stamps")

// ErrStampsRequired is returned by AgreeStamps to a gateway whose
// filesystem keeps no stamps when the catalogue's gateways stamp.
var ErrStampsRequired = errors.New("metadata: the gateways of this catalogue stamp object files (user extended attributes), and this gateway's filesystem keeps none")

// AgreeStamps settles whether this process stamps the files of the
// records it writes: every writer of a catalogue must, or none, since a
// reader's record cache trusts a stamp only if every change of a record
// replaces its file's stamp. can is whether the process's filesystem
// keeps stamps. The first caller records its answer in the catalogue;
// later ones get it, and ErrStampsRequired when it is "on" and they
// cannot. With "off", nobody stamps and nobody caches records.
func (ix *Index) AgreeStamps(can bool) (bool, error) {
	var on bool
	err := ix.update(func(tx kvTx) error {
		meta := tx.Bucket(metaBucket)
		if v := meta.Get(stampsKey); v != nil {
			on = string(v) == "on"
			return nil
		}
		on = can
		v := "off"
		if can {
			v = "on"
		}
		return written(meta.Put(stampsKey, []byte(v)))
	})
	if err != nil {
		return false, err
	}
	if on && !can {
		return false, ErrStampsRequired
	}
	return on, nil
}

// StampsChoice reads what AgreeStamps recorded, without recording
// anything: whether the catalogue's gateways stamp, and whether any
// decided. Offline tools use it: they must stamp as the gateways do, and
// must not make the choice for gateways that have not served yet.
func (ix *Index) StampsChoice() (on, decided bool, err error) {
	err = ix.view(func(tx kvTx) error {
		v := tx.Bucket(metaBucket).Get(stampsKey)
		on, decided = string(v) == "on", v != nil
		return nil
	})
	return on, decided, err
}
