package object

import (
	"github.com/objectgateway/objectgateway/metadata"
)

// ListQuery selects one page of a bucket listing; see metadata.ListQuery.
type ListQuery = metadata.ListQuery

// ListPage is one page of a bucket listing; see metadata.ListPage.
type ListPage = metadata.ListPage

// ListObjects returns one page of a bucket's keys in S3 order. Its cost
// follows the page size, not the bucket size.
func (l *Layer) ListObjects(bucket string, q ListQuery) (ListPage, error) {
	page, err := l.ix.List(bucket, q)
	if err != nil {
		return ListPage{}, bucketErr(err, bucket)
	}
	return page, nil
}

// WalkQuery selects the records of one WalkObjects; see
// metadata.WalkQuery.
type WalkQuery = metadata.WalkQuery

// WalkRecord is one record of a WalkObjects, valid only during the call
// that receives it; see metadata.WalkRecord.
type WalkRecord = metadata.WalkRecord

// WalkObjects calls fn with the records of a bucket's current versions
// that q selects, in key order, reading them in place (metadata.Index.Walk):
// the lifecycle worker's scan. It returns the last key read and whether
// more follow. fn must not write through the layer.
func (l *Layer) WalkObjects(bucket string, q WalkQuery, fn func(r *WalkRecord) error) (last string, more bool, err error) {
	last, more, err = l.ix.Walk(bucket, q, fn)
	if err != nil {
		return "", false, bucketErr(err, bucket)
	}
	return last, more, nil
}
