package object

// UpdateBucket changes a bucket's configuration (policy, CORS, canned
// ACL) in one index transaction: fn edits the current record in place. It
// returns NoSuchBucket when there is no such bucket and fn's error, with
// nothing changed, when fn fails. fn must not change the name.
func (l *Layer) UpdateBucket(name string, fn func(*Bucket) error) error {
	if err := l.ix.UpdateBucket(name, fn); err != nil {
		return bucketErr(err, name)
	}
	return nil
}
