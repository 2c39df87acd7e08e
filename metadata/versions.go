package metadata

import (
	"bytes"
	"encoding/base32"
	"encoding/binary"
	"errors"
)

// A versioned bucket keeps each key's versions in two places. The current
// version, when it is an object, is the key's record in the objects
// bucket, as in an unversioned bucket: List walks only those, so a
// listing costs the same however many noncurrent versions a key has. The
// noncurrent versions and the delete markers, including a delete marker
// that is the latest version, live under the top-level "versions" bucket:
// one nested bbolt bucket per S3 bucket, in it one nested bucket per key
// (named by the key's bytes), in that one record per version keyed by
// the version's inverted sequence number (8 bytes, big-endian, ^Seq), so
// a cursor meets a key's versions newest first.
//
// Invariant: a key with a current record in objects has no delete marker
// newer than it; a key without one has either no versions at all or a
// delete marker as its newest noncurrent entry. EditVersions keeps it.
var versionsBucket = []byte("versions")

// ErrNoSuchVersion is returned when a version id names no version of the
// key.
var ErrNoSuchVersion = errors.New("metadata: no such version")

// NullVersion is how S3 spells the null version's id.
const NullVersion = "null"

// versionEncoding spells version ids: base32 with the "extended hex"
// alphabet in lower case keeps their byte order the order of the bytes
// they encode, and uses only characters that are safe in URLs and file
// names.
var versionEncoding = base32.NewEncoding("0123456789abcdefghijklmnopqrstuv").WithPadding(base32.NoPadding)

// VersionID returns the version id of the version with sequence number
// seq in the bucket with identity bucketID: 26 characters that encode
// both, so an id is never given twice in one index, even to a bucket
// created again under the same name.
func VersionID(bucketID, seq uint64) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], bucketID)
	binary.BigEndian.PutUint64(b[8:], seq)
	return versionEncoding.EncodeToString(b[:])
}

// ParseVersionID decodes a version id made by VersionID. It reports false
// for anything else, "null" included.
func ParseVersionID(id string) (bucketID, seq uint64, ok bool) {
	if len(id) != 26 {
		return 0, 0, false
	}
	var b [16]byte
	n, err := versionEncoding.Decode(b[:], []byte(id))
	if err != nil || n != 16 || versionEncoding.EncodeToString(b[:]) != id {
		return 0, 0, false
	}
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:]), true
}

// seqKey is the key of a noncurrent version's record in its key's bucket.
func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], ^seq)
	return k[:]
}

// Versions is one key's versions inside an EditVersions transaction. Its
// methods read and change the transaction; write errors they return must
// be returned by the function given to EditVersions as they are.
type Versions struct {
	tx       kvTx
	bucket   []byte
	key      []byte
	bucketID uint64
	objects  kvBucket
	// keyed is the key's bucket of noncurrent versions, nil until one is
	// needed.
	keyed kvBucket
	// ix is the index of an edit, whose stamper SetCurrent runs; nil in
	// a read transaction.
	ix *Index
}

// Key returns the key being edited.
func (v *Versions) Key() string { return string(v.key) }

// Current returns the key's current record, if it has one.
func (v *Versions) Current() (Object, bool, error) {
	raw := v.objects.Get(v.key)
	if raw == nil {
		return Object{}, false, nil
	}
	var o Object
	if err := decodeObject(&o, string(v.key), raw); err != nil {
		return Object{}, false, err
	}
	return o, true, nil
}

// SetCurrent stores o as the key's current record.
func (v *Versions) SetCurrent(o Object) error {
	o.Key = string(v.key)
	o.DeleteMarker = false
	if v.ix != nil {
		v.ix.newStamp(&o)
		if err := v.ix.mark(string(v.bucket), &o); err != nil {
			return err
		}
	}
	o.UserMeta = sortedKVs(o.UserMeta)
	raw, err := o.MarshalBinary()
	if err != nil {
		return err
	}
	return written(v.objects.Put(v.key, raw))
}

// DropCurrent removes the key's current record, if any.
func (v *Versions) DropCurrent() error {
	return written(v.objects.Delete(v.key))
}

// NewVersion returns the sequence number and id of a new version of the
// key: the next sequence number of its bucket, greater than that of every
// version before it.
func (v *Versions) NewVersion() (seq uint64, id string, err error) {
	vb, err := v.bucketVersions()
	if err != nil {
		return 0, "", err
	}
	seq, err = vb.NextSequence()
	if err != nil {
		return 0, "", written(err)
	}
	return seq, VersionID(v.bucketID, seq), nil
}

// bucketVersions returns the S3 bucket's bucket of keys with noncurrent
// versions, creating it on first use.
func (v *Versions) bucketVersions() (kvBucket, error) {
	vb, err := v.tx.Bucket(versionsBucket).CreateBucketIfNotExists(v.bucket)
	return vb, written(err)
}

// keyVersions returns the key's bucket of noncurrent versions, nil if it
// has none and create is false.
func (v *Versions) keyVersions(create bool) (kvBucket, error) {
	if v.keyed != nil {
		return v.keyed, nil
	}
	if !create {
		if vb := v.tx.Bucket(versionsBucket).Bucket(v.bucket); vb != nil {
			v.keyed = vb.Bucket(v.key)
		}
		return v.keyed, nil
	}
	vb, err := v.bucketVersions()
	if err != nil {
		return nil, err
	}
	kb, err := vb.CreateBucketIfNotExists(v.key)
	if err != nil {
		return nil, written(err)
	}
	v.keyed = kb
	return kb, nil
}

// PutNoncurrent stores o, a noncurrent version or a delete marker, under
// its Seq, replacing a record of the same Seq.
func (v *Versions) PutNoncurrent(o Object) error {
	kb, err := v.keyVersions(true)
	if err != nil {
		return err
	}
	o.Key = string(v.key)
	o.UserMeta = sortedKVs(o.UserMeta)
	raw, err := o.MarshalBinary()
	if err != nil {
		return err
	}
	return written(kb.Put(seqKey(o.Seq), raw))
}

// DropNoncurrent removes the noncurrent version with sequence number seq,
// and the key's bucket of versions when it was the last one.
func (v *Versions) DropNoncurrent(seq uint64) error {
	kb, err := v.keyVersions(false)
	if err != nil || kb == nil {
		return err
	}
	if err := kb.Delete(seqKey(seq)); err != nil {
		return written(err)
	}
	if k, _ := kb.Cursor().First(); k == nil {
		v.keyed = nil
		return written(v.tx.Bucket(versionsBucket).Bucket(v.bucket).DeleteBucket(v.key))
	}
	return nil
}

// Noncurrent returns the key's noncurrent versions and delete markers,
// newest first, at most limit of them (all when limit <= 0).
func (v *Versions) Noncurrent(limit int) ([]Object, error) {
	kb, err := v.keyVersions(false)
	if err != nil || kb == nil {
		return nil, err
	}
	var out []Object
	c := kb.Cursor()
	for k, raw := c.First(); k != nil && (limit <= 0 || len(out) < limit); k, raw = c.Next() {
		var o Object
		if err := decodeObject(&o, string(v.key), raw); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// Find returns the version with the given id ("null" or "" for the null
// version), current or not, and whether it is the current one. It returns
// ErrNoSuchVersion when there is none. Finding a non-null version is one
// lookup; finding the null version walks the key's noncurrent versions.
func (v *Versions) Find(id string) (o Object, current bool, err error) {
	null := id == "" || id == NullVersion
	cur, ok, err := v.Current()
	if err != nil {
		return Object{}, false, err
	}
	if ok && ((null && cur.VersionID == "") || (!null && cur.VersionID == id)) {
		return cur, true, nil
	}
	kb, err := v.keyVersions(false)
	if err != nil {
		return Object{}, false, err
	}
	if kb == nil {
		return Object{}, false, ErrNoSuchVersion
	}
	if null {
		c := kb.Cursor()
		for k, raw := c.First(); k != nil; k, raw = c.Next() {
			if !hasVersionID(raw) {
				err := decodeObject(&o, string(v.key), raw)
				return o, false, err
			}
		}
		return Object{}, false, ErrNoSuchVersion
	}
	bid, seq, ok := ParseVersionID(id)
	if !ok || bid != v.bucketID {
		return Object{}, false, ErrNoSuchVersion
	}
	raw := kb.Get(seqKey(seq))
	if raw == nil {
		return Object{}, false, ErrNoSuchVersion
	}
	if err := decodeObject(&o, string(v.key), raw); err != nil {
		return Object{}, false, err
	}
	if o.VersionID != id {
		return Object{}, false, ErrNoSuchVersion
	}
	return o, false, nil
}

// hasVersionID reports whether an encoded record carries a version id,
// without decoding the rest of it.
func hasVersionID(raw []byte) bool {
	found := false
	_ = decode(raw, func(tag uint64, p []byte) error {
		if tag == tagObjVersionID && len(p) > 0 {
			found = true
		}
		return nil
	})
	return found
}

// EditVersions runs fn on the versions of key in bucket inside one write
// transaction: whatever fn changes is committed together, or not at all.
// When fn returns an error, nothing it changed is written. It returns
// ErrNoSuchBucket if the bucket does not exist, and fn's error as it is.
// The package Caveats for UpdateObject apply to fn.
func (ix *Index) EditVersions(bucket, key string, fn func(v *Versions) error) error {
	if err := checkKey(key); err != nil {
		return err
	}
	name, k := []byte(bucket), []byte(key)
	return ix.update(func(tx kvTx) error {
		v, err := newVersions(tx, ix, name, k)
		if err != nil {
			return err
		}
		return asWrite(fn(v))
	})
}

// ViewVersions runs fn on the versions of key in bucket in a read
// transaction; fn must only read.
func (ix *Index) ViewVersions(bucket, key string, fn func(v *Versions) error) error {
	name, k := []byte(bucket), []byte(key)
	return ix.view(func(tx kvTx) error {
		v, err := newVersions(tx, nil, name, k)
		if err != nil {
			return err
		}
		return fn(v)
	})
}

// asWrite marks an error of a function that edits versions as a write
// error: it changes the transaction as it goes, so an error of its own (a
// refusal, a record that does not encode) may follow changes, and marking
// it rolls them back; the group commit still returns it as it is.
func asWrite(err error) error {
	if _, isWrite := err.(*writeError); err != nil && !isWrite {
		return written(err)
	}
	return err
}

// newVersions returns the Versions of key in bucket within tx, or
// ErrNoSuchBucket; ix is the index of an edit (whose stamper SetCurrent
// runs), nil for a read.
func newVersions(tx kvTx, ix *Index, bucket, key []byte) (*Versions, error) {
	ob := tx.Bucket(objectsBucket).Bucket(bucket)
	rec := tx.Bucket(bucketsBucket).Get(bucket)
	if ob == nil || rec == nil {
		return nil, ErrNoSuchBucket
	}
	id, err := bucketIDOf(rec)
	if err != nil {
		return nil, err
	}
	return &Versions{tx: tx, bucket: bucket, key: key, bucketID: id, objects: ob, ix: ix}, nil
}

// hasVersions reports whether the named S3 bucket holds any noncurrent
// version or delete marker.
func hasVersions(tx kvTx, bucket []byte) bool {
	vb := tx.Bucket(versionsBucket).Bucket(bucket)
	if vb == nil {
		return false
	}
	k, _ := vb.Cursor().First()
	return k != nil
}

// VersionQuery selects one page of ListObjectVersions.
type VersionQuery struct {
	// Prefix and Delimiter are as in ListQuery.
	Prefix, Delimiter string
	// KeyMarker and VersionMarker are S3's key-marker and
	// version-id-marker: the page starts after that version of that key,
	// or, with no VersionMarker, after every version of KeyMarker (or
	// after the common prefix KeyMarker).
	KeyMarker, VersionMarker string
	// Limit is the maximum number of entries, versions and common
	// prefixes together (1 to 1000).
	Limit int
}

// VersionPage is one page of ListObjectVersions.
type VersionPage struct {
	// Entries are the versions and delete markers, keys ascending and each
	// key's versions newest first, with the common prefixes in their
	// place.
	Entries []VersionEntry
	// Truncated is true only if at least one more entry follows.
	Truncated bool
	// NextKeyMarker and NextVersionMarker continue the listing when it is
	// truncated: the last entry's key (or common prefix) and version id
	// ("null" for the null version; "" after a common prefix).
	NextKeyMarker, NextVersionMarker string
}

// VersionEntry is a version (Object, with IsLatest) or a common prefix
// (Prefix set).
type VersionEntry struct {
	Object
	IsLatest bool
	Prefix   string
}

// ListVersions returns one page of the versions of the keys in bucket
// selected by q. It walks the current records and the keys with
// noncurrent versions side by side in key order, seeking past common
// prefixes in both, so its work follows the page, not the bucket.
func (ix *Index) ListVersions(bucket string, q VersionQuery) (VersionPage, error) {
	var page VersionPage
	err := ix.view(func(tx kvTx) error {
		ob, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		src := versionSource{objects: ob.Cursor(), versions: noVersions}
		if vb := tx.Bucket(versionsBucket).Bucket([]byte(bucket)); vb != nil {
			src.keys = vb.Cursor()
			src.versions = func(key []byte) versionCursor {
				if kb := vb.Bucket(key); kb != nil {
					return kb.Cursor()
				}
				return nil
			}
		}
		page, err = listVersions(src, q)
		return err
	})
	return page, err
}

// versionCursor is the part of kvCursor that walking one key's
// noncurrent versions uses.
type versionCursor interface {
	cursor
	First() (key, value []byte)
}

// versionSource is what a version listing reads: kvCursor values in
// ListVersions, which tests wrap to count steps.
type versionSource struct {
	// objects walks the bucket's current records.
	objects cursor
	// keys walks the keys with noncurrent versions; nil when the bucket
	// has none.
	keys cursor
	// versions opens a cursor on the noncurrent versions of a key from
	// keys, nil if it has none.
	versions func(key []byte) versionCursor
}

func noVersions([]byte) versionCursor { return nil }

// mergeCursor walks the keys of the objects bucket and of the bucket's
// keys with noncurrent versions together, in key order.
type mergeCursor struct {
	oc     cursor
	vc     cursor // nil when the bucket has no noncurrent versions
	ok, ov []byte // objects cursor: key, value
	vk     []byte // versions cursor: key
}

func (m *mergeCursor) seek(k []byte) {
	m.ok, m.ov = m.oc.Seek(k)
	if m.vc != nil {
		m.vk, _ = m.vc.Seek(k)
	}
}

// key returns the smallest key of the two cursors, nil at the end.
func (m *mergeCursor) key() []byte {
	switch {
	case m.ok == nil:
		return m.vk
	case m.vk == nil:
		return m.ok
	case bytes.Compare(m.ok, m.vk) <= 0:
		return m.ok
	}
	return m.vk
}

// next steps past key k in both cursors.
func (m *mergeCursor) next(k []byte) {
	if m.ok != nil && bytes.Equal(m.ok, k) {
		m.ok, m.ov = m.oc.Next()
	}
	if m.vk != nil && bytes.Equal(m.vk, k) {
		m.vk, _ = m.vc.Next()
	}
}

// afterMarker tells, for the versions of the key-marker, which follow
// q.VersionMarker. A version id encodes its sequence number, and a key's
// versions are ordered by it, so the page starts at the first version
// older than the marker's whether or not that version still exists (it
// may have been deleted since the last page). The null version's place
// is known only while it exists; when it is gone, or the marker is no
// version id at all, no version of the key follows it. seek, when not
// nil, is where the key's noncurrent versions after the marker begin.
func afterMarker(versionMarker string) (follows func(o *Object) bool, seek []byte) {
	if versionMarker == NullVersion {
		passed := false
		return func(o *Object) bool {
			if passed {
				return true
			}
			passed = o.VersionID == ""
			return false
		}, nil
	}
	_, seq, ok := ParseVersionID(versionMarker)
	if !ok {
		return func(*Object) bool { return false }, nil
	}
	return func(o *Object) bool { return o.Seq < seq }, seqKey(seq)
}

func listVersions(src versionSource, q VersionQuery) (VersionPage, error) {
	var page VersionPage
	if q.Limit <= 0 {
		return page, nil
	}
	// The page is sized for Limit up front, as list does: an entry holds
	// a whole record, and growing the slice by doubling copied about a
	// page's worth of entries again and allocated twice its size, a fifth
	// of a 1,000-entry page's CPU time. A delimiter listing mostly yields
	// common prefixes, so it starts small.
	if len(q.Delimiter) == 0 {
		page.Entries = make([]VersionEntry, 0, min(q.Limit, 1000))
	}
	prefix, delim := []byte(q.Prefix), []byte(q.Delimiter)
	marker := []byte(q.KeyMarker)
	m := &mergeCursor{oc: src.objects, vc: src.keys}
	start := prefix
	if bytes.Compare(marker, prefix) > 0 {
		start = marker
	}
	m.seek(start)
	n := 0
	last := func(key, id string) {
		page.NextKeyMarker, page.NextVersionMarker = key, id
	}
	for k := m.key(); k != nil && bytes.HasPrefix(k, prefix); k = m.key() {
		if len(delim) > 0 {
			if i := bytes.Index(k[len(prefix):], delim); i >= 0 {
				cp := k[:len(prefix)+i+len(delim)]
				if bytes.Compare(cp, marker) > 0 {
					if n == q.Limit {
						page.Truncated = true
						return page, nil
					}
					page.Entries = append(page.Entries, VersionEntry{Prefix: string(cp)})
					last(string(cp), "")
					n++
				}
				next := successor(cp)
				if next == nil {
					break
				}
				m.seek(next)
				continue
			}
		}
		follows := func(*Object) bool { return true }
		var seek []byte
		if bytes.Equal(k, marker) {
			if q.VersionMarker == "" {
				m.next(k)
				continue
			}
			follows, seek = afterMarker(q.VersionMarker)
		}
		key := string(k)
		// The versions of key, newest first: the current record, then the
		// noncurrent ones. The first of them is the latest.
		latest := true
		emit := func(o *Object) bool {
			isLatest := latest
			latest = false
			if !follows(o) {
				return true
			}
			if n == q.Limit {
				page.Truncated = true
				return false
			}
			page.Entries = append(page.Entries, VersionEntry{Object: *o, IsLatest: isLatest})
			last(key, versionIDOf(o))
			n++
			return true
		}
		if m.ok != nil && bytes.Equal(m.ok, k) {
			var cur Object
			if err := decodeObject(&cur, key, m.ov); err != nil {
				return VersionPage{}, err
			}
			if !emit(&cur) {
				return page, nil
			}
		}
		var kc versionCursor
		if m.vk != nil && bytes.Equal(m.vk, k) {
			kc = src.versions(k)
		}
		if kc != nil {
			kk, raw := kc.First()
			if seek != nil {
				// Skip the versions newer than the marker in one step;
				// the first of them, if any, was the latest.
				if bytes.Compare(kk, seek) < 0 {
					latest = false
				}
				kk, raw = kc.Seek(seek)
			}
			for ; kk != nil; kk, raw = kc.Next() {
				var o Object
				if err := decodeObject(&o, key, raw); err != nil {
					return VersionPage{}, err
				}
				if !emit(&o) {
					return page, nil
				}
			}
		}
		m.next(k)
	}
	return page, nil
}

// versionIDOf is the id S3 shows for a version: "null" for the null one.
func versionIDOf(o *Object) string {
	if o.VersionID == "" {
		return NullVersion
	}
	return o.VersionID
}
