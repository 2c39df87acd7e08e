package object

import (
	"hash/maphash"
	"sync"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// NoBucket is the identity of a bucket that did not exist when a request
// was authorized: a write against it answers NoSuchBucket, whatever
// bucket of that name exists when it commits. No bucket has it.
const NoBucket = ^uint64(0)

// bucketFence orders the commits of writes against the deletion of their
// bucket. A write holds a stripe's read lock from the moment it checks that
// its bucket is still the one it was authorized against until its index
// record is committed; DeleteBucket holds the stripe's write lock from its
// emptiness check until the bucket's record and directory are gone. So a
// write either commits into the bucket it was authorized against, before
// the bucket is deleted, or finds the bucket gone (or another bucket of the
// same name, with another ID) and stores nothing: it can never land in a
// bucket that took the name later.
//
// Buckets hash onto a fixed set of stripes, as keys do onto keyLocks. The
// lock order is fence, then key lock; a goroutine holds at most one
// stripe, and takes it once (a pending DeleteBucket would block a second
// read lock of the same stripe).
type bucketFence struct {
	seed    maphash.Seed
	stripes [256]sync.RWMutex
}

func (f *bucketFence) stripe(bucket string) *sync.RWMutex {
	return &f.stripes[maphash.String(f.seed, bucket)%uint64(len(f.stripes))]
}

// enter fences a write into bucket, which must be the bucket of identity
// id (Bucket.ID; zero accepts the bucket of that name, whichever it is),
// and, when key is not empty, takes the key's lock (lockKey) after the
// fence. On a catalogue other gateways share it also takes the
// catalogue's lock of the write (metadata.LockWrite: the bucket shared,
// the key exclusive), which orders it against their DeleteBucket and
// their writers of the key; the bucket's state is read once every lock
// is held. It returns the release of all of them and the bucket's state
// (identity, versioning, Object Lock), or NoSuchBucket when there is no
// such bucket. The caller calls release once its index commit is done.
func (l *Layer) enter(bucket string, id uint64, key string) (func(), metadata.BucketState, error) {
	if l.beforeCommit != nil {
		l.beforeCommit()
	}
	m := l.fence.stripe(bucket)
	m.RLock()
	release := m.RUnlock
	if key != "" {
		unlock := l.locks.lock(bucket, key)
		release = func() { unlock(); m.RUnlock() }
	}
	if l.ix.Shared() {
		shared, err := l.ix.LockWrite(bucket, key)
		if err != nil {
			release()
			return nil, metadata.BucketState{}, mapErr(err)
		}
		local := release
		release = func() { shared(); local() }
	}
	st, err := l.ix.FreshBucketState(bucket)
	if err == nil && id != 0 && st.ID != id {
		err = s3err.New(s3err.NoSuchBucket)
	}
	if err != nil {
		release()
		return nil, metadata.BucketState{}, bucketErr(err, bucket)
	}
	return release, st, nil
}

// BucketID returns the identity (Bucket.ID) of the named bucket, or
// NoSuchBucket, reading nothing else of its record.
func (l *Layer) BucketID(name string) (uint64, error) {
	id, err := l.ix.BucketID(name)
	return id, bucketErr(err, name)
}

// identify returns the identity of the bucket a write starts in: id as
// the caller authorized it (NoBucket answers NoSuchBucket at once), or the
// current bucket's when id is zero. The write passes it to enter when it commits.
func (l *Layer) identify(bucket string, id uint64) (uint64, error) {
	if id == NoBucket {
		return 0, s3err.New(s3err.NoSuchBucket).With("BucketName", bucket)
	}
	if id != 0 {
		// The caller read the record when it authorized the request;
		// enter checks it again when the write commits.
		return id, nil
	}
	b, err := l.Bucket(bucket)
	if err != nil {
		return 0, err
	}
	if id != 0 && b.ID != id {
		return 0, s3err.New(s3err.NoSuchBucket).With("BucketName", bucket)
	}
	return b.ID, nil
}
