package object

import (
	"errors"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/storage"
)

// DeleteObject removes an object. Deleting a key that does not exist
// succeeds, as in S3, unless an If-Match condition asks for it to exist.
// The file goes first: a crash in between leaves a record whose file is
// missing, which the next read drops.
func (l *Layer) DeleteObject(bucket, key string, cond Conditions) error {
	release, err := l.enter(bucket, cond.BucketID)
	if err != nil {
		return err
	}
	defer release()
	unlock := l.locks.lock(bucket, key)
	defer unlock()
	rec, err := l.ix.Object(bucket, key)
	if errors.Is(err, metadata.ErrNoSuchKey) {
		return keyErr(cond.check(nil), bucket, key)
	}
	if err != nil {
		return keyErr(err, bucket, key)
	}
	if err := cond.check(&rec); err != nil {
		return err
	}
	if err := l.fs.Remove(bucket, key, toStorage(rec.Location)); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return mapErr(err)
	}
	if err := l.ix.DeleteObject(bucket, key); err != nil && !errors.Is(err, metadata.ErrNoSuchKey) {
		return keyErr(err, bucket, key)
	}
	return nil
}
