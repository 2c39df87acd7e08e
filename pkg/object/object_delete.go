package object

// DeleteObject is Remove of the key's latest version (see Remove).
func (l *Layer) DeleteObject(bucket, key string, cond Conditions) error {
	_, err := l.Remove(RemoveInput{Bucket: bucket, Key: key, Conditions: cond})
	return err
}
