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

// PutObjectTagging replaces the tags of an object's current version
// (already validated); nil removes them. Only the index record changes,
// never the file. cond's BucketID is checked as for a write.
func (l *Layer) PutObjectTagging(bucket, key string, tags []metadata.KV, cond Conditions) error {
	_, err := l.PutVersionTagging(bucket, key, "", tags, cond)
	return err
}

// PutVersionTagging is PutObjectTagging of one version ("" the current
// one); it returns the version's record.
func (l *Layer) PutVersionTagging(bucket, key, id string, tags []metadata.KV, cond Conditions) (Object, error) {
	return l.UpdateVersion(bucket, key, id, cond, func(_ metadata.BucketState, o *Object) error {
		o.Tags = tags
		return nil
	})
}
