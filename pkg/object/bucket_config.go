package object

import "github.com/objectgateway/objectgateway/metadata"

// UpdateBucket changes a bucket's configuration (policy, CORS, canned
// ACL) in one index transaction: fn edits the current record in place. It
// returns NoSuchBucket when there is no such bucket, or when id is not
// zero and the bucket of that name is not the one of identity id (the one
// the request was authorized against), and fn's error, with nothing
// changed, when fn fails. fn cannot change the name or the ID.
func (l *Layer) UpdateBucket(name string, id uint64, fn func(*Bucket) error) error {
	var cacheControl, versioning bool
	err := l.ix.UpdateBucket(name, func(b *Bucket) error {
		if id != 0 && b.ID != id {
			return metadata.ErrNoSuchBucket
		}
		if err := fn(b); err != nil {
			return err
		}
		cacheControl = b.CacheControl != ""
		versioning = b.Versioning != ""
		return nil
	})
	if err != nil {
		return bucketErr(err, name)
	}
	if cacheControl {
		l.cacheControlSet.Store(true)
	}
	if versioning {
		l.versioningSet.Store(true)
	}
	return nil
}

// BucketVersioningSet reports whether CreateBucket or UpdateBucket has
// given some bucket a versioning state since the layer was opened. A
// server that answers its unversioned buckets without reading their state
// (none was versioned at start-up) asks it, so that a bucket versioned
// while the gateway serves is answered as one from the next request on.
//
// On a shared catalogue another gateway may have done so: it reports true.
func (l *Layer) BucketVersioningSet() bool {
	return l.versioningSet.Load() || l.ix.Shared()
}

// BucketCacheControlSet reports whether UpdateBucket has given some
// bucket a default Cache-Control since the layer was opened. A server
// that skips reading bucket records for defaults none had at start-up
// asks it, so that a default set while the gateway serves applies from
// the next request on.
//
// On a shared catalogue another gateway may have done so: it reports true.
func (l *Layer) BucketCacheControlSet() bool {
	return l.cacheControlSet.Load() || l.ix.Shared()
}
