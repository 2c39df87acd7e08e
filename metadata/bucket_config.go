package metadata

import (
	"fmt"
)

// UpdateBucket changes the record of the named bucket in one write
// transaction: fn receives the current record and edits it in place. It
// returns ErrNoSuchBucket if there is no such bucket, and fn's error (with
// nothing written) if fn fails. The record's Name and ID cannot be changed.
func (ix *Index) UpdateBucket(name string, fn func(*Bucket) error) error {
	key := []byte(name)
	return ix.update(func(tx kvTx) error {
		records := tx.Bucket(bucketsBucket)
		v := records.Get(key)
		if v == nil {
			return ErrNoSuchBucket
		}
		var b Bucket
		if err := b.UnmarshalBinary(v); err != nil {
			return fmt.Errorf("metadata: bucket %q: %w", name, err)
		}
		b.Name = name
		id := b.ID
		if err := fn(&b); err != nil {
			return err
		}
		b.Name, b.ID = name, id
		enc, err := b.MarshalBinary()
		if err != nil {
			return err
		}
		return written(records.Put(key, enc))
	})
}
