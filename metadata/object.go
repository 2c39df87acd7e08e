package metadata

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Location says where an object's bytes live.
type Location uint8

const (
	// Natural means the bytes are in the file at the key's natural path
	// under the bucket's directory.
	Natural Location = iota
	// Shadow means the key cannot be held at its natural path and the
	// bytes are in the hidden shadow area.
	Shadow
	// Directory means the object is a zero-byte "folder/" marker kept as a
	// directory at the key's natural path. A noncurrent version of such a
	// key keeps it too: it has no bytes to keep.
	Directory
	// Noncurrent means the bytes are the version's file in the hidden
	// versions area (storage.VersionPath). Only noncurrent versions, and
	// the versions behind a delete marker, are there.
	Noncurrent
)

// KV is one name/value pair of user metadata or tags.
type KV struct{ Key, Value string }

// Checksum is one stored object checksum, for example
// {"CRC64NVME", "<base64>", "FULL_OBJECT"}.
type Checksum struct{ Algorithm, Value, Type string }

// PartInfo describes one part of a completed multipart object.
type PartInfo struct {
	Size int64
	// Checksum is the part's checksum value (base64) in the object's
	// algorithm, "" when none was kept.
	Checksum string
}

// Object is the record of one object.
type Object struct {
	// Key is the object key. It is the record's bbolt key and is not part
	// of the encoding; reads fill it in.
	Key  string
	Size int64
	// ETag is unquoted: the hex MD5, or "hex-N" for a multipart upload.
	ETag string
	// LastModified is stored with nanoseconds and read back in UTC.
	LastModified time.Time

	ContentType        string
	ContentEncoding    string
	ContentDisposition string
	ContentLanguage    string
	CacheControl       string
	Expires            string

	// UserMeta maps x-amz-meta-* names (lowercase, without the prefix) to
	// values. Writes store it sorted by Key.
	UserMeta  []KV
	Checksums []Checksum
	Tags      []KV

	Location Location
	// FileMtime and FileInode are the file's mtime (Unix nanoseconds) and
	// inode when the record was written; a stat that disagrees means the
	// file changed behind the index.
	FileMtime int64
	FileInode uint64

	// PartsCount is the number of parts of a multipart object, 0 for a
	// single-part one.
	PartsCount int
	// Parts are the sizes and checksums of a multipart object's parts, in
	// order (GetObject with partNumber, GetObjectAttributes).
	Parts []PartInfo
	// StorageClass is empty for STANDARD.
	StorageClass string
	// WebsiteRedirect is the object's x-amz-website-redirect-location,
	// returned on GET and HEAD.
	WebsiteRedirect string

	// VersionID is the version's id (see VersionID), "" for the null
	// version: every object of a bucket whose versioning was never
	// enabled, and the writes of a suspended bucket.
	VersionID string
	// Seq orders a key's versions: a later write has a greater Seq. It is
	// zero for a version written before the bucket was versioned, which
	// is older than every version after it.
	Seq uint64
	// DeleteMarker is set on a delete marker, which has no bytes.
	DeleteMarker bool
	// LockMode ("GOVERNANCE" or "COMPLIANCE") and LockUntil are the
	// version's Object Lock retention; zero for none.
	LockMode  string
	LockUntil time.Time
	// LegalHold is the version's Object Lock legal hold.
	LegalHold bool
	// SSE describes how the file's bytes are encrypted; its zero value
	// is a plain file. When SSE.Algorithm is set, Size is the plaintext
	// size and the file holds sse.EncryptedSize(Size) bytes.
	SSE Encryption
	// Owner is the access key id of the user who owns the object (its
	// writer, or the bucket's owner under Object Ownership's rules); ""
	// means the bucket's owner, as for every object written before
	// objects had owners.
	Owner string
	// ACL is the object's access control list in pkg/access's stored
	// form (access.ACL.String, access.NoGrants for a list without
	// grants), or "" for the owner's FULL_CONTROL alone.
	ACL string
	// Stamp is set by an index with a stamper (Index.SetStamper): a
	// fresh random value on every write of a key's current record, which
	// the stamper also marks on the record's file. Zero otherwise.
	Stamp uint64
}

// Encryption is what the gateway keeps of an encrypted object: enough to
// unseal its data key with a key that is not in the index (the master
// key ring, or the customer's key, which is never stored), nothing that
// reveals the data key or the customer key by itself.
type Encryption struct {
	// Algorithm is "AES256" (SSE-S3), "aws:kms" (SSE-KMS) or "SSE-C";
	// empty for a plain file.
	Algorithm string
	// KeyID and KeyVersion name the key-ring key that sealed the data
	// key (SSE-S3 and SSE-KMS).
	KeyID      string
	KeyVersion uint64
	// SealedKey is the object's data key, sealed (authenticated
	// encryption) by the key-ring key or by a key derived from the
	// customer key and the master key.
	SealedKey []byte
	// Context is the SSE-KMS encryption context, as sent (base64 JSON).
	Context string
	// BucketKey is x-amz-server-side-encryption-bucket-key-enabled as the
	// write (or the bucket's default) set it for an SSE-KMS object,
	// answered on reads; every object has its own data key either way.
	BucketKey bool
	// Parts is the layout of a multipart encrypted object: its file is
	// the parts' DARE streams one after the other, each sealed under its
	// own key derived from the data key and the part's Salt. Empty for a
	// single-stream object. It is kept here and not only in
	// Object.Parts, so that a record rewritten for a replaced file still
	// decrypts (and fails) as the object it was.
	Parts []EncryptedPart
}

// EncryptedPart is one part of a multipart encrypted object: its
// plaintext size and the salt its key is derived with.
type EncryptedPart struct {
	Size int64
	Salt []byte
}

// Encrypted reports whether the object's file is ciphertext.
func (e Encryption) Encrypted() bool { return e.Algorithm != "" }

// PutObject creates or replaces the record of o.Key in bucket. It returns
// ErrNoSuchBucket if the bucket does not exist. The record is durable when
// PutObject returns, unless Options.NoSync is set.
func (ix *Index) PutObject(bucket string, o Object) error {
	ix.newStamp(&o)
	fn, err := putObjectTx(bucket, o)
	if err != nil {
		return err
	}
	return ix.update(func(tx kvTx) error {
		if err := ix.mark(bucket, &o); err != nil {
			return err
		}
		return fn(tx)
	})
}

// putObjectTx encodes o and returns the transaction function that stores
// it, so benchmarks can compare commit strategies on the same work.
func putObjectTx(bucket string, o Object) (func(kvTx) error, error) {
	if err := checkKey(o.Key); err != nil {
		return nil, err
	}
	o.UserMeta = sortedKVs(o.UserMeta)
	v, err := o.MarshalBinary()
	if err != nil {
		return nil, err
	}
	key := []byte(o.Key)
	return func(tx kvTx) error {
		b, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		return written(b.Put(key, v))
	}, nil
}

// Object returns the record of key in bucket. It returns ErrNoSuchBucket
// or ErrNoSuchKey when either is missing.
func (ix *Index) Object(bucket, key string) (Object, error) {
	var o Object
	err := ix.viewOne(func(tx kvTx) error {
		v, ok := kvGetIn(tx.Bucket(objectsBucket), bucket, key)
		if !ok {
			return ErrNoSuchBucket
		}
		if v == nil {
			return ErrNoSuchKey
		}
		return decodeObject(&o, key, v)
	})
	if err != nil {
		return Object{}, err
	}
	return o, nil
}

// DeleteObject removes the record of key in bucket. It returns
// ErrNoSuchBucket or ErrNoSuchKey when either is missing; S3's idempotent
// DELETE is the object layer's concern.
func (ix *Index) DeleteObject(bucket, key string) error {
	k := []byte(key)
	return ix.update(func(tx kvTx) error {
		b, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		if b.Get(k) == nil {
			return ErrNoSuchKey
		}
		return written(b.Delete(k))
	})
}

// UpdateObject reads the record of key in bucket, passes it to fn, and
// stores what fn leaves in it, all in one write transaction. It returns
// ErrNoSuchBucket or ErrNoSuchKey when either is missing. If fn returns an
// error, nothing is written and that error is returned as is. Changes fn
// makes to o.Key are ignored. See the package Caveats for what fn must not
// do.
func (ix *Index) UpdateObject(bucket, key string, fn func(o *Object) error) error {
	k := []byte(key)
	return ix.update(func(tx kvTx) error {
		b, err := objects(tx, bucket)
		if err != nil {
			return err
		}
		v := b.Get(k)
		if v == nil {
			return ErrNoSuchKey
		}
		var o Object
		if err := decodeObject(&o, key, v); err != nil {
			return err
		}
		if err := fn(&o); err != nil {
			return err
		}
		ix.newStamp(&o)
		if err := ix.mark(bucket, &o); err != nil {
			return err
		}
		o.UserMeta = sortedKVs(o.UserMeta)
		nv, err := o.MarshalBinary()
		if err != nil {
			return err
		}
		return written(b.Put(k, nv))
	})
}

// decodeObject decodes the record v of key into o.
func decodeObject(o *Object, key string, v []byte) error {
	if err := o.UnmarshalBinary(v); err != nil {
		return fmt.Errorf("metadata: object %q: %w", key, err)
	}
	o.Key = key
	return nil
}

// checkKey rejects keys bbolt cannot store. S3's 1024-byte limit is the
// object layer's business.
func checkKey(key string) error {
	if key == "" || len(key) > maxKeySize {
		return fmt.Errorf("metadata: invalid object key of %d bytes", len(key))
	}
	return nil
}

// sortedKVs returns kvs sorted by Key, copying it only if it is not
// sorted already, so a caller's slice is never reordered.
func sortedKVs(kvs []KV) []KV {
	byKey := func(a, b KV) int { return cmp.Compare(a.Key, b.Key) }
	if slices.IsSortedFunc(kvs, byKey) {
		return kvs
	}
	kvs = slices.Clone(kvs)
	slices.SortStableFunc(kvs, byKey)
	return kvs
}
