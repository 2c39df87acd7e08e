package metadata

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// Records are encoded as one version byte followed by fields. A field is
// a tag (uvarint), a payload length (uvarint) and the payload. Fields with
// zero values are omitted; list fields (user metadata, checksums, tags)
// repeat their tag once per element, in order. A decoder skips tags it
// does not know, so a later version adds fields under new tags without
// changing recordVersion; recordVersion changes only if an existing field
// changes meaning. Tags are never reused.
//
// Payloads: strings are their bytes; unsigned integers a uvarint; signed
// integers a varint; a time a varint of Unix seconds then a uvarint of
// nanoseconds; a key/value pair the key's length (uvarint), the key, then
// the value; a checksum the algorithm and value each as length and bytes,
// then the type.
//
// A record re-encoded by an older reader (UpdateObject after a downgrade)
// loses the fields that reader did not know.
const recordVersion = 1

var (
	_ encoding.BinaryMarshaler   = (*Object)(nil)
	_ encoding.BinaryUnmarshaler = (*Object)(nil)
	_ encoding.BinaryMarshaler   = (*Bucket)(nil)
	_ encoding.BinaryUnmarshaler = (*Bucket)(nil)
)

// Object field tags.
const (
	tagObjSize               = 1
	tagObjETag               = 2
	tagObjLastModified       = 3
	tagObjContentType        = 4
	tagObjContentEncoding    = 5
	tagObjContentDisposition = 6
	tagObjContentLanguage    = 7
	tagObjCacheControl       = 8
	tagObjExpires            = 9
	tagObjUserMeta           = 10
	tagObjChecksum           = 11
	tagObjTag                = 12
	tagObjLocation           = 13
	tagObjFileMtime          = 14
	tagObjFileInode          = 15
	tagObjPartsCount         = 16
	tagObjStorageClass       = 17
	tagObjPart               = 18
	tagObjWebsiteRedirect    = 19
	// tagObjVersionID is the version id; absent for the null version.
	tagObjVersionID = 20
	// tagObjSeq is the version's sequence number (its order among the
	// key's versions); absent for a version written before versioning.
	tagObjSeq = 21
	// tagObjDeleteMarker is present (payload 1) on a delete marker.
	tagObjDeleteMarker = 22
	// tagObjLockMode, tagObjLockUntil and tagObjLegalHold are the
	// version's Object Lock retention and legal hold.
	tagObjLockMode  = 23
	tagObjLockUntil = 24
	tagObjLegalHold = 25
	// tagObjSSEAlgorithm, tagObjSSEKeyID, tagObjSSEKeyVersion,
	// tagObjSSESealedKey and tagObjSSEContext are the object's
	// server-side encryption (Object.SSE). They start at 40, leaving
	// 26 to 39 to fields added meanwhile on other lines of work.
	tagObjSSEAlgorithm  = 40
	tagObjSSEKeyID      = 41
	tagObjSSEKeyVersion = 42
	tagObjSSESealedKey  = 43
	tagObjSSEContext    = 44
	// tagObjSSEPart is one part of SSE.Parts (uvarint size, then the
	// salt); tagObjSSEBucketKey is SSE.BucketKey.
	tagObjSSEPart      = 45
	tagObjSSEBucketKey = 46
	// tagObjOwner and tagObjACL are the object's owner and ACL
	// (Object.Owner, Object.ACL). They start at 50, leaving 45 to 49 to
	// fields added meanwhile on other lines of work.
	tagObjOwner = 50
	tagObjACL   = 51
	// tagObjStamp is Object.Stamp, absent when zero.
	tagObjStamp = 52
)

// Bucket field tags.
const (
	tagBktCreated = 1
	tagBktOwner   = 2
	tagBktRegion  = 3
	tagBktPolicy  = 4
	tagBktCORS    = 5
	// tagBktPublicRead is present (payload uvarint 1) when PublicRead is set.
	tagBktPublicRead = 6
	// tagBktCacheControl is the bucket's default Cache-Control.
	tagBktCacheControl = 7
	// tagBktTags is the bucket's tag set, URL-query encoded.
	tagBktTags = 8
	// tagBktID is the bucket's identity (Bucket.ID).
	tagBktID = 9
	// tagBktWebsite is the bucket's website configuration.
	tagBktWebsite = 10
	// tagBktVersioning is the versioning state, "Enabled" or "Suspended".
	tagBktVersioning = 11
	// tagBktObjectLock is present (payload 1) when Object Lock is enabled.
	tagBktObjectLock = 12
	// tagBktLockMode, tagBktLockDays and tagBktLockYears are the default
	// retention of new objects.
	tagBktLockMode  = 13
	tagBktLockDays  = 14
	tagBktLockYears = 15
	// tagBktLifecycle is the bucket's lifecycle configuration.
	tagBktLifecycle = 16
	// tagBktPublicAccessBlock holds PublicAccessBlock's bits (16 is the
	// lifecycle configuration's).
	tagBktPublicAccessBlock = 17
	// tagBktSSEAlgorithm, tagBktSSEKeyID and tagBktSSEBucketKey are the
	// bucket's default encryption. They start at 40, leaving 16 to 39 to
	// fields added meanwhile on other lines of work.
	tagBktSSEAlgorithm = 40
	tagBktSSEKeyID     = 41
	tagBktSSEBucketKey = 42
	// tagBktACL and tagBktOwnership are the bucket's ACL and Object
	// Ownership (Bucket.ACL, Bucket.Ownership). They start at 50, leaving
	// 43 to 49 to fields added meanwhile on other lines of work.
	tagBktACL       = 50
	tagBktOwnership = 51
)

// Times are limited to years 1 through 9999, the range HTTP dates and
// RFC 3339 can express.
const (
	minUnixSec = -62135596800 // 0001-01-01T00:00:00Z
	maxUnixSec = 253402300799 // 9999-12-31T23:59:59Z
)

// errCorrupt is wrapped by every decoding error.
var errCorrupt = errors.New("metadata: corrupt record")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// MarshalBinary encodes the record. Key is not part of the encoding: the
// index stores it as the bbolt key. It fails for values the encoding
// cannot represent: a negative Size or PartsCount, an unknown Location, or
// a LastModified outside years 1–9999.
func (o *Object) MarshalBinary() ([]byte, error) {
	if o.Size < 0 {
		return nil, fmt.Errorf("metadata: negative object size %d", o.Size)
	}
	if o.PartsCount < 0 || o.PartsCount > math.MaxInt32 {
		return nil, fmt.Errorf("metadata: invalid parts count %d", o.PartsCount)
	}
	if o.Location > Noncurrent {
		return nil, fmt.Errorf("metadata: unknown location %d", o.Location)
	}
	if err := checkTime(o.LastModified); err != nil {
		return nil, err
	}
	e := encoder{b: make([]byte, 0, 128)}
	e.b = append(e.b, recordVersion)
	e.uint(tagObjSize, uint64(o.Size))
	e.str(tagObjETag, o.ETag)
	e.time(tagObjLastModified, o.LastModified)
	e.str(tagObjContentType, o.ContentType)
	e.str(tagObjContentEncoding, o.ContentEncoding)
	e.str(tagObjContentDisposition, o.ContentDisposition)
	e.str(tagObjContentLanguage, o.ContentLanguage)
	e.str(tagObjCacheControl, o.CacheControl)
	e.str(tagObjExpires, o.Expires)
	for _, kv := range o.UserMeta {
		e.kv(tagObjUserMeta, kv)
	}
	for _, c := range o.Checksums {
		e.checksum(tagObjChecksum, c)
	}
	for _, kv := range o.Tags {
		e.kv(tagObjTag, kv)
	}
	e.uint(tagObjLocation, uint64(o.Location))
	e.int(tagObjFileMtime, o.FileMtime)
	e.uint(tagObjFileInode, o.FileInode)
	e.uint(tagObjPartsCount, uint64(o.PartsCount))
	e.str(tagObjStorageClass, o.StorageClass)
	e.str(tagObjWebsiteRedirect, o.WebsiteRedirect)
	e.str(tagObjVersionID, o.VersionID)
	e.uint(tagObjSeq, o.Seq)
	if o.DeleteMarker {
		e.uint(tagObjDeleteMarker, 1)
	}
	e.str(tagObjLockMode, o.LockMode)
	e.time(tagObjLockUntil, o.LockUntil)
	if o.LegalHold {
		e.uint(tagObjLegalHold, 1)
	}
	e.str(tagObjSSEAlgorithm, o.SSE.Algorithm)
	e.str(tagObjSSEKeyID, o.SSE.KeyID)
	e.uint(tagObjSSEKeyVersion, o.SSE.KeyVersion)
	e.str(tagObjSSESealedKey, string(o.SSE.SealedKey))
	e.str(tagObjSSEContext, o.SSE.Context)
	if o.SSE.BucketKey {
		e.uint(tagObjSSEBucketKey, 1)
	}
	for _, p := range o.SSE.Parts {
		if err := e.encryptedPart(tagObjSSEPart, p); err != nil {
			return nil, err
		}
	}
	e.str(tagObjOwner, o.Owner)
	e.str(tagObjACL, o.ACL)
	e.uint(tagObjStamp, o.Stamp)
	for _, p := range o.Parts {
		if p.Size < 0 {
			return nil, fmt.Errorf("metadata: negative part size %d", p.Size)
		}
		var n [binary.MaxVarintLen64]byte
		m := binary.PutUvarint(n[:], uint64(p.Size))
		e.header(tagObjPart, m+len(p.Checksum))
		e.b = append(e.b, n[:m]...)
		e.b = append(e.b, p.Checksum...)
	}
	return e.b, nil
}

// UnmarshalBinary replaces *o with the record encoded in data. Key is not
// part of the encoding and is left empty. Unknown fields are skipped. It
// returns an error, and leaves *o unchanged, if data is not a valid
// record; it copies everything it keeps out of data.
func (o *Object) UnmarshalBinary(data []byte) error {
	var r Object
	err := decode(data, func(tag uint64, p []byte) error {
		var err error
		switch tag {
		case tagObjSize:
			var v uint64
			v, err = parseUint(p)
			if err == nil && v > math.MaxInt64 {
				err = fmt.Errorf("size %d out of range", v)
			}
			r.Size = int64(v)
		case tagObjETag:
			r.ETag = string(p)
		case tagObjLastModified:
			r.LastModified, err = parseTime(p)
		case tagObjContentType:
			r.ContentType = intern(p)
		case tagObjContentEncoding:
			r.ContentEncoding = string(p)
		case tagObjContentDisposition:
			r.ContentDisposition = string(p)
		case tagObjContentLanguage:
			r.ContentLanguage = string(p)
		case tagObjCacheControl:
			r.CacheControl = string(p)
		case tagObjExpires:
			r.Expires = string(p)
		case tagObjUserMeta:
			var kv KV
			kv, err = parseKV(p)
			r.UserMeta = append(r.UserMeta, kv)
		case tagObjChecksum:
			var c Checksum
			c, err = parseChecksum(p)
			r.Checksums = append(r.Checksums, c)
		case tagObjTag:
			var kv KV
			kv, err = parseKV(p)
			r.Tags = append(r.Tags, kv)
		case tagObjLocation:
			var v uint64
			v, err = parseUint(p)
			if err == nil && v > uint64(Noncurrent) {
				err = fmt.Errorf("unknown location %d", v)
			}
			r.Location = Location(v)
		case tagObjFileMtime:
			r.FileMtime, err = parseInt(p)
		case tagObjFileInode:
			r.FileInode, err = parseUint(p)
		case tagObjPartsCount:
			var v uint64
			v, err = parseUint(p)
			if err == nil && v > math.MaxInt32 {
				err = fmt.Errorf("parts count %d out of range", v)
			}
			r.PartsCount = int(v)
		case tagObjStorageClass:
			r.StorageClass = intern(p)
		case tagObjWebsiteRedirect:
			r.WebsiteRedirect = string(p)
		case tagObjVersionID:
			r.VersionID = string(p)
		case tagObjSeq:
			r.Seq, err = parseUint(p)
		case tagObjDeleteMarker:
			r.DeleteMarker, err = parseFlag(p)
		case tagObjLockMode:
			r.LockMode = intern(p)
		case tagObjLockUntil:
			r.LockUntil, err = parseTime(p)
		case tagObjLegalHold:
			r.LegalHold, err = parseFlag(p)
		case tagObjSSEAlgorithm:
			r.SSE.Algorithm = intern(p)
		case tagObjSSEKeyID:
			r.SSE.KeyID = string(p)
		case tagObjSSEKeyVersion:
			r.SSE.KeyVersion, err = parseUint(p)
		case tagObjSSESealedKey:
			r.SSE.SealedKey = append([]byte(nil), p...)
		case tagObjOwner:
			r.Owner = intern(p)
		case tagObjACL:
			r.ACL = intern(p)
		case tagObjStamp:
			r.Stamp, err = parseUint(p)
		case tagObjSSEContext:
			r.SSE.Context = string(p)
		case tagObjSSEBucketKey:
			r.SSE.BucketKey, err = parseFlag(p)
		case tagObjSSEPart:
			var ep EncryptedPart
			ep, err = parseEncryptedPart(p)
			r.SSE.Parts = append(r.SSE.Parts, ep)
		case tagObjPart:
			size, n := binary.Uvarint(p)
			if n <= 0 || size > math.MaxInt64 {
				err = fmt.Errorf("bad part size")
				break
			}
			r.Parts = append(r.Parts, PartInfo{Size: int64(size), Checksum: string(p[n:])})
		}
		return err
	})
	if err != nil {
		return err
	}
	*o = r
	return nil
}

// MarshalBinary encodes the bucket record. Name is not part of the
// encoding: the index stores it as the bbolt key. It fails for a Created
// time outside years 1–9999.
func (b *Bucket) MarshalBinary() ([]byte, error) {
	if err := checkTime(b.Created); err != nil {
		return nil, err
	}
	e := encoder{b: make([]byte, 0, 32)}
	e.b = append(e.b, recordVersion)
	e.time(tagBktCreated, b.Created)
	e.str(tagBktOwner, b.Owner)
	e.str(tagBktRegion, b.Region)
	e.str(tagBktPolicy, b.Policy)
	e.str(tagBktCORS, b.CORS)
	if b.PublicRead {
		e.uint(tagBktPublicRead, 1)
	}
	e.str(tagBktCacheControl, b.CacheControl)
	e.str(tagBktTags, b.Tags)
	e.uint(tagBktID, b.ID)
	e.str(tagBktWebsite, b.Website)
	e.str(tagBktVersioning, b.Versioning)
	if b.ObjectLock {
		e.uint(tagBktObjectLock, 1)
	}
	e.str(tagBktLockMode, b.LockMode)
	e.uint(tagBktLockDays, uint64(b.LockDays))
	e.uint(tagBktLockYears, uint64(b.LockYears))
	e.str(tagBktLifecycle, b.Lifecycle)
	e.uint(tagBktPublicAccessBlock, uint64(b.PublicAccessBlock))
	e.str(tagBktSSEAlgorithm, b.SSEAlgorithm)
	e.str(tagBktACL, b.ACL)
	e.str(tagBktOwnership, b.Ownership)
	e.str(tagBktSSEKeyID, b.SSEKeyID)
	if b.SSEBucketKey {
		e.uint(tagBktSSEBucketKey, 1)
	}
	return e.b, nil
}

// UnmarshalBinary replaces *b with the bucket record encoded in data.
// Name is not part of the encoding and is left empty. Unknown fields are
// skipped. It returns an error, and leaves *b unchanged, if data is not a
// valid record.
func (b *Bucket) UnmarshalBinary(data []byte) error {
	var r Bucket
	err := decode(data, func(tag uint64, p []byte) error {
		var err error
		switch tag {
		case tagBktCreated:
			r.Created, err = parseTime(p)
		case tagBktOwner:
			r.Owner = string(p)
		case tagBktRegion:
			r.Region = string(p)
		case tagBktPolicy:
			r.Policy = string(p)
		case tagBktCORS:
			r.CORS = string(p)
		case tagBktPublicRead:
			var v uint64
			v, err = parseUint(p)
			if err == nil && v != 1 {
				err = fmt.Errorf("public-read flag %d", v)
			}
			r.PublicRead = err == nil
		case tagBktCacheControl:
			r.CacheControl = string(p)
		case tagBktTags:
			r.Tags = string(p)
		case tagBktID:
			r.ID, err = parseUint(p)
		case tagBktWebsite:
			r.Website = string(p)
		case tagBktVersioning:
			r.Versioning = string(p)
		case tagBktObjectLock:
			r.ObjectLock, err = parseFlag(p)
		case tagBktLockMode:
			r.LockMode = string(p)
		case tagBktPublicAccessBlock:
			var v uint64
			if v, err = parseUint(p); err == nil && (v == 0 || v >= uint64(RestrictPublicBuckets)<<1 || v&uint64(PublicAccessBlockSet) == 0) {
				err = fmt.Errorf("public access block %d", v)
			}
			r.PublicAccessBlock = uint8(v)
		case tagBktLockDays:
			r.LockDays, err = parseSmall(p)
		case tagBktLockYears:
			r.LockYears, err = parseSmall(p)
		case tagBktLifecycle:
			r.Lifecycle = string(p)
		case tagBktSSEAlgorithm:
			r.SSEAlgorithm = string(p)
		case tagBktACL:
			r.ACL = string(p)
		case tagBktOwnership:
			r.Ownership = intern(p)
		case tagBktSSEKeyID:
			r.SSEKeyID = string(p)
		case tagBktSSEBucketKey:
			r.SSEBucketKey, err = parseFlag(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	*b = r
	return nil
}

func checkTime(t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if s := t.Unix(); s < minUnixSec || s > maxUnixSec {
		return fmt.Errorf("metadata: time %v out of range", t)
	}
	return nil
}

// encoder appends fields to b.
type encoder struct{ b []byte }

func (e *encoder) header(tag uint64, n int) {
	e.b = binary.AppendUvarint(e.b, tag)
	e.b = binary.AppendUvarint(e.b, uint64(n))
}

func (e *encoder) str(tag uint64, s string) {
	if s == "" {
		return
	}
	e.header(tag, len(s))
	e.b = append(e.b, s...)
}

func (e *encoder) uint(tag uint64, v uint64) {
	if v == 0 {
		return
	}
	var p [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(p[:], v)
	e.header(tag, n)
	e.b = append(e.b, p[:n]...)
}

func (e *encoder) int(tag uint64, v int64) {
	if v == 0 {
		return
	}
	var p [binary.MaxVarintLen64]byte
	n := binary.PutVarint(p[:], v)
	e.header(tag, n)
	e.b = append(e.b, p[:n]...)
}

func (e *encoder) time(tag uint64, t time.Time) {
	if t.IsZero() {
		return
	}
	var p [2 * binary.MaxVarintLen64]byte
	n := binary.PutVarint(p[:], t.Unix())
	n += binary.PutUvarint(p[n:], uint64(t.Nanosecond()))
	e.header(tag, n)
	e.b = append(e.b, p[:n]...)
}

func (e *encoder) kv(tag uint64, kv KV) {
	var p [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(p[:], uint64(len(kv.Key)))
	e.header(tag, n+len(kv.Key)+len(kv.Value))
	e.b = append(e.b, p[:n]...)
	e.b = append(e.b, kv.Key...)
	e.b = append(e.b, kv.Value...)
}

// encryptedPart encodes one part of a multipart encrypted object: its
// size as a uvarint, then its salt.
func (e *encoder) encryptedPart(tag uint64, p EncryptedPart) error {
	if p.Size < 0 {
		return fmt.Errorf("metadata: negative part size %d", p.Size)
	}
	var n [binary.MaxVarintLen64]byte
	m := binary.PutUvarint(n[:], uint64(p.Size))
	e.header(tag, m+len(p.Salt))
	e.b = append(e.b, n[:m]...)
	e.b = append(e.b, p.Salt...)
	return nil
}

func parseEncryptedPart(p []byte) (EncryptedPart, error) {
	size, n := binary.Uvarint(p)
	if n <= 0 || size > math.MaxInt64 {
		return EncryptedPart{}, fmt.Errorf("bad encrypted part size")
	}
	return EncryptedPart{Size: int64(size), Salt: append([]byte(nil), p[n:]...)}, nil
}

// encryption encodes e's fields other than its parts at tags base..base+4
// and base+6 (the object record's layout, shared by the upload record).
func (e *encoder) encryption(base uint64, enc Encryption) {
	e.str(base, enc.Algorithm)
	e.str(base+1, enc.KeyID)
	e.uint(base+2, enc.KeyVersion)
	e.str(base+3, string(enc.SealedKey))
	e.str(base+4, enc.Context)
	if enc.BucketKey {
		e.uint(base+6, 1)
	}
}

// parseEncryption decodes a field encoded by encoder.encryption into enc;
// it reports whether tag was one of them.
func parseEncryption(base, tag uint64, p []byte, enc *Encryption) (bool, error) {
	var err error
	switch tag {
	case base:
		enc.Algorithm = intern(p)
	case base + 1:
		enc.KeyID = string(p)
	case base + 2:
		enc.KeyVersion, err = parseUint(p)
	case base + 3:
		enc.SealedKey = append([]byte(nil), p...)
	case base + 4:
		enc.Context = string(p)
	case base + 6:
		enc.BucketKey, err = parseFlag(p)
	default:
		return false, nil
	}
	return true, err
}

func (e *encoder) checksum(tag uint64, c Checksum) {
	var p [2 * binary.MaxVarintLen64]byte
	na := binary.PutUvarint(p[:], uint64(len(c.Algorithm)))
	nv := binary.PutUvarint(p[na:], uint64(len(c.Value)))
	e.header(tag, na+len(c.Algorithm)+nv+len(c.Value)+len(c.Type))
	e.b = append(e.b, p[:na]...)
	e.b = append(e.b, c.Algorithm...)
	e.b = append(e.b, p[na:na+nv]...)
	e.b = append(e.b, c.Value...)
	e.b = append(e.b, c.Type...)
}

// decode checks the version byte and calls field for each field in data.
// Every length is checked against the remaining input before it is used,
// so corrupt input cannot cause a large allocation.
func decode(data []byte, field func(tag uint64, p []byte) error) error {
	if len(data) == 0 {
		return corrupt("empty")
	}
	if data[0] != recordVersion {
		return corrupt("unsupported version %d", data[0])
	}
	rest := data[1:]
	for len(rest) > 0 {
		tag, n := binary.Uvarint(rest)
		if n <= 0 {
			return corrupt("bad tag")
		}
		rest = rest[n:]
		size, n := binary.Uvarint(rest)
		if n <= 0 {
			return corrupt("bad length for tag %d", tag)
		}
		rest = rest[n:]
		if size > uint64(len(rest)) {
			return corrupt("tag %d: length %d exceeds the %d bytes left", tag, size, len(rest))
		}
		if err := field(tag, rest[:size]); err != nil {
			return corrupt("tag %d: %v", tag, err)
		}
		rest = rest[size:]
	}
	return nil
}

func parseUint(p []byte) (uint64, error) {
	v, n := binary.Uvarint(p)
	if n <= 0 || n != len(p) {
		return 0, fmt.Errorf("bad uvarint")
	}
	return v, nil
}

func parseInt(p []byte) (int64, error) {
	v, n := binary.Varint(p)
	if n <= 0 || n != len(p) {
		return 0, fmt.Errorf("bad varint")
	}
	return v, nil
}

func parseTime(p []byte) (time.Time, error) {
	sec, n := binary.Varint(p)
	if n <= 0 {
		return time.Time{}, fmt.Errorf("bad time seconds")
	}
	nsec, m := binary.Uvarint(p[n:])
	if m <= 0 || n+m != len(p) {
		return time.Time{}, fmt.Errorf("bad time nanoseconds")
	}
	if sec < minUnixSec || sec > maxUnixSec || nsec >= 1e9 {
		return time.Time{}, fmt.Errorf("time %d.%09d out of range", sec, nsec)
	}
	return time.Unix(sec, int64(nsec)).UTC(), nil
}

// prefixed splits a length-prefixed string off the front of p.
func prefixed(p []byte) (s string, rest []byte, err error) {
	b, rest, err := prefixedBytes(p)
	return string(b), rest, err
}

// prefixedBytes is prefixed without the copy: b aliases p.
func prefixedBytes(p []byte) (b, rest []byte, err error) {
	n, m := binary.Uvarint(p)
	if m <= 0 || n > uint64(len(p)-m) {
		return nil, nil, fmt.Errorf("bad length prefix")
	}
	p = p[m:]
	return p[:n], p[n:], nil
}

func parseKV(p []byte) (KV, error) {
	k, rest, err := prefixed(p)
	if err != nil {
		return KV{}, err
	}
	return KV{Key: k, Value: string(rest)}, nil
}

func parseChecksum(p []byte) (Checksum, error) {
	alg, rest, err := prefixedBytes(p)
	if err != nil {
		return Checksum{}, err
	}
	val, rest, err := prefixed(rest)
	if err != nil {
		return Checksum{}, err
	}
	return Checksum{Algorithm: intern(alg), Value: val, Type: intern(rest)}, nil
}

// parseFlag decodes a flag field, present only when set (payload 1).
func parseFlag(p []byte) (bool, error) {
	v, err := parseUint(p)
	if err == nil && v != 1 {
		err = fmt.Errorf("flag %d", v)
	}
	return err == nil, err
}

// parseSmall decodes a count that fits an int32 (days, years).
func parseSmall(p []byte) (int, error) {
	v, err := parseUint(p)
	if err == nil && v > math.MaxInt32 {
		err = fmt.Errorf("count %d out of range", v)
	}
	return int(v), err
}
