package object

import (
	"errors"
	iofs "io/fs"
	"syscall"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/storage"
)

// Bucket is a bucket as the API sees it.
type Bucket = metadata.Bucket

// CreateBucket creates the bucket's directory, then its index record,
// which gives the bucket a new identity. An existing record answers
// BucketAlreadyOwnedByYou. A directory of that name that the index does
// not know is somebody else's (an operator's files, which only scan
// imports): it answers BucketAlreadyExists and is left as it is, unless
// it holds no file.
func (l *Layer) CreateBucket(b Bucket) error {
	if err := s3name.ValidBucketName(b.Name); err != nil {
		return err
	}
	// The fence keeps a DeleteBucket of the same name from interleaving
	// between the record check and the directory.
	m := l.fence.stripe(b.Name)
	m.Lock()
	defer m.Unlock()
	// On a shared catalogue, the catalogue's lock of the bucket does the
	// same among gateways: of two creating it at once, the second finds
	// the first's record here, and never removes the directory the first
	// made and recorded; a DeleteBucket elsewhere finishes first. The
	// record is read from the catalogue itself, not a cache.
	unlock, err := l.ix.LockBucket(b.Name)
	if err != nil {
		return mapErr(err)
	}
	defer unlock()
	if _, err := l.ix.FreshBucketState(b.Name); err == nil {
		return s3err.New(s3err.BucketAlreadyOwnedByYou).With("BucketName", b.Name)
	}
	if b.Created.IsZero() {
		b.Created = l.now().UTC()
	}
	made, err := l.fs.MakeBucket(b.Name)
	if errors.Is(err, iofs.ErrExist) {
		return s3err.Wrap(s3err.BucketAlreadyExists, err).With("BucketName", b.Name)
	}
	if err != nil {
		return mapErr(err)
	}
	if err := l.ix.CreateBucket(b); err != nil {
		if made {
			// Leave no directory the index does not know.
			_ = l.fs.UnmakeBucket(b.Name)
		}
		if errors.Is(err, metadata.ErrBucketExists) {
			return s3err.New(s3err.BucketAlreadyOwnedByYou).With("BucketName", b.Name)
		}
		return mapErr(err)
	}
	if b.Versioning != "" {
		l.versioningSet.Store(true)
	}
	l.bucketCreated(b.Name)
	return nil
}

// Bucket returns a bucket's record, or NoSuchBucket.
func (l *Layer) Bucket(name string) (Bucket, error) {
	b, err := l.ix.Bucket(name)
	if err != nil {
		return Bucket{}, bucketErr(err, name)
	}
	return b, nil
}

// Buckets returns every bucket, sorted by name.
func (l *Layer) Buckets() ([]Bucket, error) {
	bs, err := l.ix.Buckets()
	return bs, mapErr(err)
}

// DeleteBucket removes an empty bucket: its index record and its directory.
// A bucket whose directory still holds files the index does not know about
// (written behind the gateway's back) is not empty either. It holds the
// bucket's fence throughout, so no write commits into the bucket while it
// runs, and every write that was authorized against it and commits later
// finds it gone (see bucketFence).
func (l *Layer) DeleteBucket(name string) error {
	m := l.fence.stripe(name)
	m.Lock()
	defer m.Unlock()
	// On a shared catalogue the writes of other gateways are fenced by
	// the catalogue's lock of the bucket.
	unlock, err := l.ix.LockBucket(name)
	if err != nil {
		return mapErr(err)
	}
	defer unlock()
	if _, err := l.ix.Bucket(name); err != nil {
		return bucketErr(err, name)
	}
	page, err := l.ix.List(name, metadata.ListQuery{Limit: 1})
	if err != nil {
		return bucketErr(err, name)
	}
	if len(page.Objects)+len(page.CommonPrefixes) > 0 {
		return s3err.New(s3err.BucketNotEmpty).With("BucketName", name)
	}
	// Files written behind the gateway's back make the bucket non-empty
	// too. A missing directory is a DeleteBucket that a crash interrupted
	// after removing it, or a directory removed behind the gateway's back:
	// the record goes too, so the retry finishes the job.
	if err := l.fs.BucketEmpty(name); err != nil && !errors.Is(err, storage.ErrNotFound) {
		if errors.Is(err, syscall.ENOTEMPTY) {
			return s3err.Wrap(s3err.BucketNotEmpty, err).With("BucketName", name)
		}
		return mapErr(err)
	}
	// Uploads in progress die with the bucket. Their parts are removed
	// only once the index has dropped their records with the bucket's: a
	// DeleteBucket that answers BucketNotEmpty leaves them intact.
	uploads, err := l.ix.ListUploads(name, metadata.UploadQuery{Limit: MaxParts})
	if err != nil {
		return bucketErr(err, name)
	}
	// The index decides: its DeleteBucket checks emptiness in the same
	// transaction.
	if err := l.ix.DeleteBucket(name); err != nil {
		return bucketErr(err, name)
	}
	for _, u := range uploads.Uploads {
		// An error leaves an orphaned part directory, which the sweep of
		// SweepUploads removes later; the bucket is deleted either way.
		l.dropGate(u.ID)
		_ = l.fs.RemoveParts(u.ID)
	}
	if err := l.fs.RemoveBucket(name); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, syscall.ENOTEMPTY) {
		return mapErr(err)
	}
	return nil
}

func bucketErr(err error, name string) error {
	if err == nil {
		return nil
	}
	e := s3err.As(mapErr(err))
	if e.Code == s3err.NoSuchBucket || e.Code == s3err.BucketNotEmpty {
		return e.With("BucketName", name)
	}
	return e
}
