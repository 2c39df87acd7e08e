package metadata

import ()

// ApplyObjects stores the records in put and removes the records of the
// keys in del, all in one write transaction, so importing a tree costs one
// commit (and one fsync) per batch rather than per file. Keys in del that
// have no record are ignored. It returns ErrNoSuchBucket if the bucket
// does not exist; on any error nothing is written.
func (ix *Index) ApplyObjects(bucket string, put []Object, del []string) error {
	type kv struct {
		k, v []byte
		o    Object
	}
	enc := make([]kv, 0, len(put))
	for i := range put {
		o := put[i]
		if err := checkKey(o.Key); err != nil {
			return err
		}
		ix.newStamp(&o)
		o.UserMeta = sortedKVs(o.UserMeta)
		v, err := o.MarshalBinary()
		if err != nil {
			return err
		}
		enc = append(enc, kv{[]byte(o.Key), v, o})
	}
	return ix.update(func(tx kvTx) error {
		b, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		for i := range enc {
			e := &enc[i]
			if err := ix.mark(bucket, &e.o); err != nil {
				return written(err)
			}
			if err := b.Put(e.k, e.v); err != nil {
				return written(err)
			}
		}
		for _, k := range del {
			if err := b.Delete([]byte(k)); err != nil {
				return written(err)
			}
		}
		return nil
	})
}

// Uploads returns every multipart upload in progress, across all buckets.
// Unlike StaleUploads it changes nothing; fsck calls it.
func (ix *Index) Uploads() ([]UploadRef, error) {
	var out []UploadRef
	err := ix.view(func(tx kvTx) error {
		top := tx.Bucket(uploadsBucket)
		return top.ForEachBucket(func(bucket []byte) error {
			return top.Bucket(bucket).ForEach(func(k, v []byte) error {
				key, id, ok := splitUploadKey(k)
				if !ok {
					return nil
				}
				var u Upload
				if err := u.UnmarshalBinary(v); err != nil {
					return err
				}
				out = append(out, UploadRef{Bucket: string(bucket), Key: key, ID: id, Initiated: u.Initiated})
				return nil
			})
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
