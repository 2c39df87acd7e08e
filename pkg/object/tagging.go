package object

import (
	"github.com/objectgateway/objectgateway/metadata"
)

// ObjectTagging returns an object's tags.
func (l *Layer) ObjectTagging(bucket, key string) ([]metadata.KV, error) {
	o, err := l.ix.Object(bucket, key)
	if err != nil {
		return nil, keyErr(err, bucket, key)
	}
	return o.Tags, nil
}

// PutObjectTagging replaces an object's tags (already validated); nil
// removes them. Only the index record changes, never the file. cond's
// BucketID is checked as for a write.
func (l *Layer) PutObjectTagging(bucket, key string, tags []metadata.KV, cond Conditions) error {
	release, err := l.enter(bucket, cond.BucketID)
	if err != nil {
		return err
	}
	defer release()
	err = l.ix.UpdateObject(bucket, key, func(o *Object) error {
		o.Tags = tags
		return nil
	})
	return keyErr(err, bucket, key)
}
