package metadata

import (
	"bytes"
)

// ListQuery selects one page of a listing, in S3's terms.
type ListQuery struct {
	// Prefix limits the listing to keys that start with it.
	Prefix string
	// Delimiter, if not empty, rolls every key whose remainder after
	// Prefix contains it up into one common prefix: Prefix plus the
	// remainder up to and including the first Delimiter. It may be any
	// string, not only "/".
	Delimiter string
	// After is the exclusive start: the marker, start-after or decoded
	// continuation token. Keys and common prefixes that sort at or before
	// it are not returned.
	After string
	// Limit is the maximum number of entries, objects and common prefixes
	// together. Callers pass 1 to 1000; 0 or less gives an empty page that
	// is not truncated.
	Limit int
	// Brief, when true, fills only Key, Size, ETag, LastModified and
	// Checksums of each Object of the page (what a ListObjects answer
	// shows) and leaves the other fields zero; it saves a listing most of
	// its decoding. Callers that reconcile records with files leave it
	// false.
	Brief bool
}

// ListPage is one page of a listing.
type ListPage struct {
	// Objects are the records of the listed keys, in key order.
	Objects []Object
	// CommonPrefixes are the rolled-up prefixes, in order.
	CommonPrefixes []string
	// Truncated is true only if at least one more entry follows the page.
	Truncated bool
	// Last is the last entry of the page, a key or a common prefix; it is
	// S3's NextMarker, and the After of the next page. It is empty for an
	// empty page.
	Last string
}

// List returns one page of the keys in bucket selected by q, in S3 order
// (UTF-8 byte order). It returns ErrNoSuchBucket if the bucket does not
// exist. The work done follows q.Limit, not the number of keys in the
// bucket or under a common prefix.
func (ix *Index) List(bucket string, q ListQuery) (ListPage, error) {
	var page ListPage
	err := ix.view(func(tx kvTx) error {
		b, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		page, err = list(b.Cursor(), q)
		return err
	})
	if err != nil {
		return ListPage{}, err
	}
	return page, nil
}

// cursor is the part of kvCursor a listing uses; tests wrap it to
// count steps.
type cursor interface {
	Seek(seek []byte) (key, value []byte)
	Next() (key, value []byte)
}

// list walks c from max(Prefix, After) and builds one page. After a
// common prefix it seeks to the prefix's successor, skipping every key
// under it in one step.
func list(c cursor, q ListQuery) (ListPage, error) {
	var page ListPage
	if q.Limit <= 0 {
		return page, nil
	}
	// The page is sized for Limit up front: growing a slice of records
	// (each a few hundred bytes) by doubling allocated twice a full page's
	// size per 1,000-key page. A delimiter listing mostly yields common
	// prefixes, so it starts small.
	if len(q.Delimiter) == 0 {
		page.Objects = make([]Object, 0, min(q.Limit, 1000))
	}
	prefix, delim, after := []byte(q.Prefix), []byte(q.Delimiter), []byte(q.After)
	start := prefix
	if bytes.Compare(after, prefix) > 0 {
		start = after
	}
	k, v := c.Seek(start)
	if k != nil && bytes.Equal(k, after) {
		k, v = c.Next()
	}
	n := 0
	for k != nil && bytes.HasPrefix(k, prefix) {
		if len(delim) > 0 {
			if i := bytes.Index(k[len(prefix):], delim); i >= 0 {
				cp := k[:len(prefix)+i+len(delim)]
				// A common prefix at or before After was returned on an
				// earlier page (After is that prefix, or a key under it).
				if bytes.Compare(cp, after) > 0 {
					if n == q.Limit {
						page.Truncated = true
						break
					}
					page.CommonPrefixes = append(page.CommonPrefixes, string(cp))
					page.Last = string(cp)
					n++
				}
				next := successor(cp)
				if next == nil {
					break
				}
				k, v = c.Seek(next)
				continue
			}
		}
		if n == q.Limit {
			page.Truncated = true
			break
		}
		page.Objects = append(page.Objects, Object{})
		o := &page.Objects[len(page.Objects)-1]
		decodeFn := decodeObject
		if q.Brief {
			decodeFn = decodeBrief
		}
		if err := decodeFn(o, string(k), v); err != nil {
			return ListPage{}, err
		}
		page.Last = o.Key
		n++
		k, v = c.Next()
	}
	return page, nil
}

// successor returns the smallest byte string greater than every string
// that starts with p, or nil if there is none (p is all 0xFF bytes).
func successor(p []byte) []byte {
	s := bytes.Clone(p)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 0xFF {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}
