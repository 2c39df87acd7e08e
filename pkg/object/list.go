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
