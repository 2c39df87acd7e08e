package metadata

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// WalkQuery selects the records of one Walk.
type WalkQuery struct {
	// Prefix limits the walk to keys that start with it.
	Prefix string
	// After is the exclusive start: the walk begins with the first key
	// after it.
	After string
	// Limit is the most records the walk reads; 0 or less reads none.
	Limit int
}

// WalkRecord is one record of a Walk, read in place: only Size and
// LastModified are decoded, the rest of the record is left in the index's
// memory and read on demand (HasTag, Object). Key and the record's bytes
// alias that memory, so a WalkRecord is valid only during the call of the
// walk's function that received it, and Key must be copied to be kept.
type WalkRecord struct {
	Key          []byte
	Size         int64
	LastModified time.Time
	v            []byte
	// tags is the offset in v of the record's first tag field, 0 when it
	// has none.
	tags int
}

// HasTag reports whether the object has the tag key with the given value.
// It reads the record's tag fields in place and allocates nothing.
func (r *WalkRecord) HasTag(key, value string) bool {
	if r.tags == 0 {
		return false
	}
	// Walk checked the framing of every field from there on, and that of
	// the tag fields' payloads, so nothing here can fail.
	for rest := r.v[r.tags:]; len(rest) > 0; {
		tag, p, next := field(rest)
		rest = next
		if tag != tagObjTag {
			continue
		}
		k, v, _ := prefixedBytes(p)
		if string(k) == key && string(v) == value {
			return true
		}
	}
	return false
}

// field splits the first field off rest, whose framing was checked.
func field(rest []byte) (tag uint64, p, next []byte) {
	tag, n := uvarint(rest)
	rest = rest[n:]
	size, n := uvarint(rest)
	rest = rest[n:]
	return tag, rest[:size], rest[size:]
}

// uvarint is binary.Uvarint with a fast path for one byte, which every
// tag and most lengths of a record are.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// Object decodes the whole record, as a listing returns it: a copy that
// outlives the walk.
func (r *WalkRecord) Object() (Object, error) {
	var o Object
	err := decodeObject(&o, string(r.Key), r.v)
	return o, err
}

// Walk calls fn, in key order, with the records of the current versions
// of bucket's keys that q selects, all in one read transaction, and
// returns the last key it read and whether more keys under q.Prefix
// follow it. It is the lifecycle worker's scan: unlike List it copies
// nothing and decodes only what every rule reads (Size and LastModified),
// so a walk over keys a rule does not match allocates nothing per record.
// It returns ErrNoSuchBucket if the bucket does not exist, an error
// wrapping errCorrupt for a record that does not decode, and fn's error,
// which ends the walk.
//
// fn runs inside the read transaction: it must not call methods of ix
// that write (a write that grows the file waits for the transaction to
// end), and it should be quick, since the transaction pins the pages it
// reads.
func (ix *Index) Walk(bucket string, q WalkQuery, fn func(r *WalkRecord) error) (last string, more bool, err error) {
	if q.Limit <= 0 {
		return "", false, nil
	}
	err = ix.view(func(tx kvTx) error {
		b, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		c := b.Cursor()
		prefix, after := []byte(q.Prefix), []byte(q.After)
		start := prefix
		if bytes.Compare(after, prefix) > 0 {
			start = after
		}
		k, v := c.Seek(start)
		if k != nil && bytes.Equal(k, after) {
			k, v = c.Next()
		}
		var r WalkRecord
		var lastKey []byte
		for n := 0; k != nil && bytes.HasPrefix(k, prefix); n++ {
			if n == q.Limit {
				more = true
				break
			}
			r = WalkRecord{Key: k, v: v}
			if err := decodeWalk(&r); err != nil {
				return fmt.Errorf("metadata: object %q: %w", k, err)
			}
			if err := fn(&r); err != nil {
				return err
			}
			lastKey = k
			k, v = c.Next()
		}
		last = string(lastKey)
		return nil
	})
	if err != nil {
		return "", false, err
	}
	return last, more, nil
}

// decodeWalk decodes r's Size and LastModified, checking them as
// UnmarshalBinary does, checks the framing of every field and the payload
// of the tag fields, which HasTag then reads without checks, and notes
// where the first tag field is. It is decode without the function call per
// field, as a walk runs it for every record it reads.
func decodeWalk(r *WalkRecord) error {
	data := r.v
	if len(data) == 0 {
		return corrupt("empty")
	}
	if data[0] != recordVersion {
		return corrupt("unsupported version %d", data[0])
	}
	at := 1
	for at < len(data) {
		start := at
		tag, n := uvarint(data[at:])
		if n <= 0 {
			return corrupt("bad tag")
		}
		at += n
		size, n := uvarint(data[at:])
		if n <= 0 {
			return corrupt("bad length for tag %d", tag)
		}
		at += n
		if size > uint64(len(data)-at) {
			return corrupt("tag %d: length %d exceeds the %d bytes left", tag, size, len(data)-at)
		}
		p := data[at : at+int(size)]
		at += int(size)
		var err error
		switch tag {
		case tagObjSize:
			var n uint64
			n, err = parseUint(p)
			if err == nil && n > math.MaxInt64 {
				err = fmt.Errorf("size %d out of range", n)
			}
			r.Size = int64(n)
		case tagObjLastModified:
			r.LastModified, err = parseTime(p)
		case tagObjTag:
			if r.tags == 0 {
				r.tags = start
			}
			_, _, err = prefixedBytes(p)
		}
		if err != nil {
			return corrupt("tag %d: %v", tag, err)
		}
	}
	return nil
}
