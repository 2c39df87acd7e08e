package metadata

import (
	"fmt"
	"math"
)

// decodeBrief decodes the fields of record v that a ListObjects answer
// shows (Size, ETag, LastModified, Checksums, Owner) into o, for ListQuery.Brief.
// It checks those fields as UnmarshalBinary does and skips the others
// unparsed: content headers, user metadata, tags and parts cost a listing
// several allocations per key and are never shown.
func decodeBrief(o *Object, key string, v []byte) error {
	o.Key = key
	err := decode(v, func(tag uint64, p []byte) error {
		var err error
		switch tag {
		case tagObjSize:
			var n uint64
			n, err = parseUint(p)
			if err == nil && n > math.MaxInt64 {
				err = fmt.Errorf("size %d out of range", n)
			}
			o.Size = int64(n)
		case tagObjETag:
			o.ETag = string(p)
		case tagObjLastModified:
			o.LastModified, err = parseTime(p)
		case tagObjOwner:
			// Objects of the bucket's owner (most) have none; others
			// share a few access keys.
			o.Owner = string(p)
		case tagObjChecksum:
			var c Checksum
			c, err = parseChecksum(p)
			o.Checksums = append(o.Checksums, c)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("metadata: object %q: %w", key, err)
	}
	return nil
}
