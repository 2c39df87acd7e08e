package object

import (
	"errors"
	"syscall"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/storage"
)

// Bucket is a bucket as the API sees it.
type Bucket = metadata.Bucket

// CreateBucket creates the bucket's directory, then its index record. An
// existing record answers BucketAlreadyOwnedByYou.
func (l *Layer) CreateBucket(b Bucket) error {
	if err := s3name.ValidBucketName(b.Name); err != nil {
		return err
	}
	if _, err := l.ix.Bucket(b.Name); err == nil {
		return s3err.New(s3err.BucketAlreadyOwnedByYou).With("BucketName", b.Name)
	}
	if b.Created.IsZero() {
		b.Created = l.now().UTC()
	}
	if err := l.fs.MakeBucket(b.Name); err != nil {
		return mapErr(err)
	}
	if err := l.ix.CreateBucket(b); err != nil {
		if errors.Is(err, metadata.ErrBucketExists) {
			return s3err.New(s3err.BucketAlreadyOwnedByYou).With("BucketName", b.Name)
		}
		return mapErr(err)
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
// (written behind the gateway's back) is not empty either.
func (l *Layer) DeleteBucket(name string) error {
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
	// Uploads in progress die with the bucket: their parts go first, their
	// records with the bucket's record.
	uploads, err := l.ix.ListUploads(name, metadata.UploadQuery{Limit: MaxParts})
	if err != nil {
		return bucketErr(err, name)
	}
	for _, u := range uploads.Uploads {
		if err := l.fs.RemoveParts(u.ID); err != nil {
			return mapErr(err)
		}
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
	// The index decides: its DeleteBucket checks emptiness in the same
	// transaction. A PUT that commits after it finds no bucket and takes
	// its bytes back out, so the files are removed only now, when no
	// acknowledged object can be among them.
	if err := l.ix.DeleteBucket(name); err != nil {
		return bucketErr(err, name)
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
