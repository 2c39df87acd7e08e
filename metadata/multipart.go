package metadata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// ErrNoSuchUpload is returned when an operation names a multipart upload
// that does not exist (never created, aborted or completed).
var ErrNoSuchUpload = errors.New("metadata: no such upload")

var (
	// uploadsBucket holds, per S3 bucket, one record per multipart upload
	// in progress, keyed by object key, NUL, upload id: S3's listing order.
	uploadsBucket = []byte("uploads")
	// partsBucket holds, per upload id, one record per part, keyed by the
	// big-endian part number so a cursor walks parts in order.
	partsBucket = []byte("parts")
	// completedBucket remembers recently completed uploads, so a retried
	// CompleteMultipartUpload gets the same answer instead of NoSuchUpload.
	completedBucket = []byte("completed")
)

// Upload is the record of a multipart upload in progress: what the object
// will be once completed.
type Upload struct {
	// Key and ID are the record's bbolt key, not part of the encoding.
	Key, ID   string
	Initiated time.Time
	Owner     string

	ContentType        string
	ContentEncoding    string
	ContentDisposition string
	ContentLanguage    string
	CacheControl       string
	Expires            string
	UserMeta           []KV
	Tags               []KV
	StorageClass       string
	// WebsiteRedirect is the x-amz-website-redirect-location the
	// completed object gets.
	WebsiteRedirect string

	// ChecksumAlgorithm and ChecksumType are what CreateMultipartUpload
	// asked for ("" when nothing was asked).
	ChecksumAlgorithm string
	ChecksumType      string

	// LockMode, LockUntil and LegalHold are the Object Lock state
	// CreateMultipartUpload asked for (x-amz-object-lock-*).
	LockMode  string
	LockUntil time.Time
	LegalHold bool

	// SSE is the encryption the upload's parts are written with and the
	// completed object gets: its data key, sealed, shared by every part
	// (each part's stream has its own key derived from it, see
	// Part.Salt). Its Parts are always empty.
	SSE Encryption
	// ObjectOwner and ACL are the completed object's Object.Owner and
	// Object.ACL, decided when the upload was created.
	ObjectOwner string
	ACL         string
}

// Part is the record of one uploaded part.
type Part struct {
	// Number is the record's bbolt key, not part of the encoding.
	Number       int
	Size         int64
	ETag         string // hex MD5 of the part, unquoted
	LastModified time.Time
	// Checksum is the part's checksum in the upload's algorithm, or
	// CRC64NVME when the upload named none.
	Checksum Checksum
	// FileInode is the inode of the part's file, so that completion can
	// tell the file it opens is the one this record describes and not a
	// re-upload of the same part number that replaced it meanwhile.
	FileInode uint64
	// InRegion says the part's bytes are in its upload's region file (see
	// storage.Region) at Offset, and not in a file of their own; FileInode
	// is then the region file's inode.
	InRegion bool
	Offset   int64
	// Salt is set on a part of an encrypted upload: the salt its stream's
	// key is derived with from the upload's data key. Its file then holds
	// the DARE stream of Size bytes of plaintext.
	Salt []byte
}

// Completion is what a completed upload produced, kept so that a retried
// CompleteMultipartUpload gets the same answer.
type Completion struct {
	Bucket, Key string
	ETag        string
	Checksums   []Checksum
	Completed   time.Time
	// VersionID is the id of the version the completion made ("" for the
	// null version).
	VersionID string
}

// Upload field tags.
const (
	tagUpInitiated = 1
	tagUpOwner     = 2
	tagUpCT        = 3
	tagUpCE        = 4
	tagUpCD        = 5
	tagUpCL        = 6
	tagUpCC        = 7
	tagUpExpires   = 8
	tagUpUserMeta  = 9
	tagUpTag       = 10
	tagUpClass     = 11
	tagUpAlg       = 12
	tagUpType      = 13
	tagUpRedirect  = 14
	// tagUpLockMode, tagUpLockUntil and tagUpLegalHold are the Object Lock
	// state the completed object gets.
	tagUpLockMode  = 15
	tagUpLockUntil = 16
	tagUpLegalHold = 17
	// tagUpSSE..tagUpSSE+6 are the upload's encryption, laid out as the
	// object record's (encoder.encryption).
	tagUpSSE = 40
	// tagUpObjectOwner and tagUpACL are the owner and ACL the completed
	// object gets. They start at 50, leaving 18 to 49 to fields added
	// meanwhile on other lines of work.
	tagUpObjectOwner = 50
	tagUpACL         = 51
)

// Part field tags.
const (
	tagPartSize     = 1
	tagPartETag     = 2
	tagPartModified = 3
	tagPartChecksum = 4
	tagPartInode    = 5
	tagPartRegion   = 6
	tagPartSalt     = 7
)

// Completion field tags.
const (
	tagDoneBucket    = 1
	tagDoneKey       = 2
	tagDoneETag      = 3
	tagDoneChecksum  = 4
	tagDoneTime      = 5
	tagDoneVersionID = 6
)

// MarshalBinary encodes the upload record without Key and ID.
func (u *Upload) MarshalBinary() ([]byte, error) {
	if err := checkTime(u.Initiated); err != nil {
		return nil, err
	}
	e := encoder{b: make([]byte, 0, 96)}
	e.b = append(e.b, recordVersion)
	e.time(tagUpInitiated, u.Initiated)
	e.str(tagUpOwner, u.Owner)
	e.str(tagUpCT, u.ContentType)
	e.str(tagUpCE, u.ContentEncoding)
	e.str(tagUpCD, u.ContentDisposition)
	e.str(tagUpCL, u.ContentLanguage)
	e.str(tagUpCC, u.CacheControl)
	e.str(tagUpExpires, u.Expires)
	for _, kv := range u.UserMeta {
		e.kv(tagUpUserMeta, kv)
	}
	for _, kv := range u.Tags {
		e.kv(tagUpTag, kv)
	}
	e.str(tagUpClass, u.StorageClass)
	e.str(tagUpAlg, u.ChecksumAlgorithm)
	e.str(tagUpType, u.ChecksumType)
	e.str(tagUpRedirect, u.WebsiteRedirect)
	e.str(tagUpLockMode, u.LockMode)
	e.str(tagUpObjectOwner, u.ObjectOwner)
	e.str(tagUpACL, u.ACL)
	e.time(tagUpLockUntil, u.LockUntil)
	if u.LegalHold {
		e.uint(tagUpLegalHold, 1)
	}
	e.encryption(tagUpSSE, u.SSE)
	return e.b, nil
}

// UnmarshalBinary decodes an upload record; unknown fields are skipped.
func (u *Upload) UnmarshalBinary(data []byte) error {
	var r Upload
	err := decode(data, func(tag uint64, p []byte) error {
		var err error
		var kv KV
		switch tag {
		case tagUpInitiated:
			r.Initiated, err = parseTime(p)
		case tagUpOwner:
			r.Owner = string(p)
		case tagUpCT:
			r.ContentType = string(p)
		case tagUpCE:
			r.ContentEncoding = string(p)
		case tagUpCD:
			r.ContentDisposition = string(p)
		case tagUpCL:
			r.ContentLanguage = string(p)
		case tagUpCC:
			r.CacheControl = string(p)
		case tagUpExpires:
			r.Expires = string(p)
		case tagUpUserMeta:
			kv, err = parseKV(p)
			r.UserMeta = append(r.UserMeta, kv)
		case tagUpTag:
			kv, err = parseKV(p)
			r.Tags = append(r.Tags, kv)
		case tagUpClass:
			r.StorageClass = string(p)
		case tagUpAlg:
			r.ChecksumAlgorithm = string(p)
		case tagUpType:
			r.ChecksumType = string(p)
		case tagUpRedirect:
			r.WebsiteRedirect = string(p)
		case tagUpObjectOwner:
			r.ObjectOwner = string(p)
		case tagUpACL:
			r.ACL = string(p)
		case tagUpLockMode:
			r.LockMode = string(p)
		case tagUpLockUntil:
			r.LockUntil, err = parseTime(p)
		case tagUpLegalHold:
			r.LegalHold, err = parseFlag(p)
		default:
			_, err = parseEncryption(tagUpSSE, tag, p, &r.SSE)
		}
		return err
	})
	if err != nil {
		return err
	}
	*u = r
	return nil
}

// MarshalBinary encodes the part record without its number.
func (p *Part) MarshalBinary() ([]byte, error) {
	if p.Size < 0 {
		return nil, fmt.Errorf("metadata: negative part size %d", p.Size)
	}
	if err := checkTime(p.LastModified); err != nil {
		return nil, err
	}
	e := encoder{b: make([]byte, 0, 80)}
	e.b = append(e.b, recordVersion)
	e.uint(tagPartSize, uint64(p.Size))
	e.str(tagPartETag, p.ETag)
	e.time(tagPartModified, p.LastModified)
	if p.Checksum != (Checksum{}) {
		e.checksum(tagPartChecksum, p.Checksum)
	}
	e.uint(tagPartInode, p.FileInode)
	if p.InRegion {
		if p.Offset < 0 {
			return nil, fmt.Errorf("metadata: negative part offset %d", p.Offset)
		}
		// One more than the offset: the encoder leaves zeros out.
		e.uint(tagPartRegion, uint64(p.Offset)+1)
	}
	e.str(tagPartSalt, string(p.Salt))
	return e.b, nil
}

// UnmarshalBinary decodes a part record; unknown fields are skipped.
func (p *Part) UnmarshalBinary(data []byte) error {
	var r Part
	err := decode(data, func(tag uint64, b []byte) error {
		var err error
		switch tag {
		case tagPartSize:
			var v uint64
			v, err = parseUint(b)
			if err == nil && v > math.MaxInt64 {
				err = fmt.Errorf("size %d out of range", v)
			}
			r.Size = int64(v)
		case tagPartETag:
			r.ETag = string(b)
		case tagPartModified:
			r.LastModified, err = parseTime(b)
		case tagPartChecksum:
			r.Checksum, err = parseChecksum(b)
		case tagPartInode:
			r.FileInode, err = parseUint(b)
		case tagPartRegion:
			var v uint64
			v, err = parseUint(b)
			if err == nil && (v == 0 || v > math.MaxInt64) {
				err = fmt.Errorf("offset %d out of range", v)
			}
			r.InRegion, r.Offset = true, int64(v)-1
		case tagPartSalt:
			r.Salt = append([]byte(nil), b...)
		}
		return err
	})
	if err != nil {
		return err
	}
	*p = r
	return nil
}

// MarshalBinary encodes a completion record.
func (c *Completion) MarshalBinary() ([]byte, error) {
	if err := checkTime(c.Completed); err != nil {
		return nil, err
	}
	e := encoder{b: make([]byte, 0, 96)}
	e.b = append(e.b, recordVersion)
	e.str(tagDoneBucket, c.Bucket)
	e.str(tagDoneKey, c.Key)
	e.str(tagDoneETag, c.ETag)
	for _, cs := range c.Checksums {
		e.checksum(tagDoneChecksum, cs)
	}
	e.time(tagDoneTime, c.Completed)
	e.str(tagDoneVersionID, c.VersionID)
	return e.b, nil
}

// UnmarshalBinary decodes a completion record.
func (c *Completion) UnmarshalBinary(data []byte) error {
	var r Completion
	err := decode(data, func(tag uint64, p []byte) error {
		var err error
		switch tag {
		case tagDoneBucket:
			r.Bucket = string(p)
		case tagDoneKey:
			r.Key = string(p)
		case tagDoneETag:
			r.ETag = string(p)
		case tagDoneChecksum:
			var cs Checksum
			cs, err = parseChecksum(p)
			r.Checksums = append(r.Checksums, cs)
		case tagDoneTime:
			r.Completed, err = parseTime(p)
		case tagDoneVersionID:
			r.VersionID = string(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	*c = r
	return nil
}

// uploadKey is the bbolt key of an upload: object key, NUL, upload id.
func uploadKey(key, id string) []byte {
	b := make([]byte, 0, len(key)+1+len(id))
	b = append(b, key...)
	b = append(b, 0)
	return append(b, id...)
}

// splitUploadKey undoes uploadKey. Upload ids never contain NUL, so the
// last NUL separates them even from keys that contain one.
func splitUploadKey(k []byte) (key, id string, ok bool) {
	i := bytes.LastIndexByte(k, 0)
	if i < 0 {
		return "", "", false
	}
	return string(k[:i]), string(k[i+1:]), true
}

func partKey(n int) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	return b[:]
}

// uploads returns the uploads bucket of an S3 bucket, creating it when
// create is set; it checks that the S3 bucket exists.
func uploads(tx kvTx, bucket string, create bool) (kvBucket, error) {
	if tx.Bucket(bucketsBucket).Get([]byte(bucket)) == nil {
		return nil, ErrNoSuchBucket
	}
	top := tx.Bucket(uploadsBucket)
	if b := top.Bucket([]byte(bucket)); b != nil || !create {
		return b, nil
	}
	b, err := top.CreateBucket([]byte(bucket))
	return b, written(err)
}

func checkUploadID(id string) error {
	if id == "" || len(id) > 128 || strings.IndexByte(id, 0) >= 0 {
		return ErrNoSuchUpload
	}
	return nil
}

// CreateUpload records a new multipart upload. It returns ErrNoSuchBucket
// if the bucket does not exist.
func (ix *Index) CreateUpload(bucket string, u Upload) error {
	if err := checkKey(u.Key); err != nil {
		return err
	}
	if err := checkUploadID(u.ID); err != nil {
		return fmt.Errorf("metadata: invalid upload id %q", u.ID)
	}
	u.UserMeta = sortedKVs(u.UserMeta)
	v, err := u.MarshalBinary()
	if err != nil {
		return err
	}
	k := uploadKey(u.Key, u.ID)
	return ix.update(func(tx kvTx) error {
		b, err := uploads(tx, bucket, true)
		if err != nil {
			return err
		}
		if _, err := tx.Bucket(partsBucket).CreateBucketIfNotExists([]byte(u.ID)); err != nil {
			return written(err)
		}
		return written(b.Put(k, v))
	})
}

// getUpload reads an upload record inside tx.
func getUpload(tx kvTx, bucket, key, id string) (Upload, error) {
	b, err := uploads(tx, bucket, false)
	if err != nil {
		return Upload{}, err
	}
	if b == nil {
		return Upload{}, ErrNoSuchUpload
	}
	v := b.Get(uploadKey(key, id))
	if v == nil {
		return Upload{}, ErrNoSuchUpload
	}
	var u Upload
	if err := u.UnmarshalBinary(v); err != nil {
		return Upload{}, fmt.Errorf("metadata: upload %q: %w", id, err)
	}
	u.Key, u.ID = key, id
	return u, nil
}

// Upload returns the record of an upload in progress, or ErrNoSuchUpload
// (ErrNoSuchBucket when the bucket is missing).
func (ix *Index) Upload(bucket, key, id string) (Upload, error) {
	if checkUploadID(id) != nil || checkKey(key) != nil {
		return Upload{}, ErrNoSuchUpload
	}
	var u Upload
	err := ix.view(func(tx kvTx) (err error) {
		u, err = getUpload(tx, bucket, key, id)
		return err
	})
	return u, err
}

// PutPart records (or replaces) a part of an upload in progress. It
// returns ErrNoSuchUpload if the upload was completed or aborted meanwhile.
func (ix *Index) PutPart(bucket, key, id string, p Part) error {
	if checkUploadID(id) != nil || checkKey(key) != nil {
		return ErrNoSuchUpload
	}
	if p.Number < 1 || p.Number > math.MaxInt32 {
		return fmt.Errorf("metadata: invalid part number %d", p.Number)
	}
	v, err := p.MarshalBinary()
	if err != nil {
		return err
	}
	return ix.update(func(tx kvTx) error {
		if _, err := getUpload(tx, bucket, key, id); err != nil {
			return err
		}
		parts := tx.Bucket(partsBucket).Bucket([]byte(id))
		if parts == nil {
			return ErrNoSuchUpload
		}
		return written(parts.Put(partKey(p.Number), v))
	})
}

// Parts returns up to limit parts of an upload with numbers above after,
// in order, and whether more follow. limit ≤ 0 returns every part.
func (ix *Index) Parts(bucket, key, id string, after, limit int) ([]Part, bool, error) {
	if checkUploadID(id) != nil || checkKey(key) != nil {
		return nil, false, ErrNoSuchUpload
	}
	var out []Part
	truncated := false
	err := ix.view(func(tx kvTx) error {
		if _, err := getUpload(tx, bucket, key, id); err != nil {
			return err
		}
		parts := tx.Bucket(partsBucket).Bucket([]byte(id))
		if parts == nil {
			return ErrNoSuchUpload
		}
		c := parts.Cursor()
		for k, v := c.Seek(partKey(after + 1)); k != nil; k, v = c.Next() {
			if limit > 0 && len(out) == limit {
				truncated = true
				break
			}
			var p Part
			if err := p.UnmarshalBinary(v); err != nil {
				return fmt.Errorf("metadata: part of %q: %w", id, err)
			}
			p.Number = int(binary.BigEndian.Uint32(k))
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, truncated, nil
}

// deleteUploadTx removes an upload and its parts inside tx.
func deleteUploadTx(tx kvTx, bucket, key, id string) error {
	b, err := uploads(tx, bucket, false)
	if err != nil {
		return err
	}
	k := uploadKey(key, id)
	if b == nil || b.Get(k) == nil {
		return ErrNoSuchUpload
	}
	if err := b.Delete(k); err != nil {
		return written(err)
	}
	if tx.Bucket(partsBucket).Bucket([]byte(id)) != nil {
		if err := tx.Bucket(partsBucket).DeleteBucket([]byte(id)); err != nil {
			return written(err)
		}
	}
	return nil
}

// DeleteUpload removes an upload and its part records (AbortMultipartUpload).
func (ix *Index) DeleteUpload(bucket, key, id string) error {
	if checkUploadID(id) != nil || checkKey(key) != nil {
		return ErrNoSuchUpload
	}
	return ix.update(func(tx kvTx) error { return deleteUploadTx(tx, bucket, key, id) })
}

// CompleteUpload replaces the upload by the object record o in one
// transaction, and remembers the completion. check, when not nil, runs
// inside the transaction with the object's current record (nil when
// there is none) and may refuse the completion with an error (conditional
// writes).
func (ix *Index) CompleteUpload(bucket, id string, o Object, now time.Time, check func(cur *Object) error) error {
	ix.newStamp(&o)
	fn, err := putObjectTx(bucket, o)
	if err != nil {
		return err
	}
	done := Completion{Bucket: bucket, Key: o.Key, ETag: o.ETag, Checksums: o.Checksums, Completed: now}
	dv, err := done.MarshalBinary()
	if err != nil {
		return err
	}
	return ix.update(func(tx kvTx) error {
		if check != nil {
			objs, err := objects(tx, bucket)
			if err != nil {
				return err
			}
			var cur *Object
			if v := objs.Get([]byte(o.Key)); v != nil {
				cur = new(Object)
				if err := decodeObject(cur, o.Key, v); err != nil {
					return err
				}
			}
			if err := check(cur); err != nil {
				return err
			}
		}
		if err := deleteUploadTx(tx, bucket, o.Key, id); err != nil {
			return err
		}
		if err := ix.mark(bucket, &o); err != nil {
			return written(err)
		}
		if err := fn(tx); err != nil {
			return err
		}
		return written(tx.Bucket(completedBucket).Put([]byte(id), dv))
	})
}

// CompleteUploadVersions is CompleteUpload for a versioned bucket: in the
// same transaction that removes the upload, edit makes the new version
// (see EditVersions) and returns its record, which the completion
// remembers.
func (ix *Index) CompleteUploadVersions(bucket, key, id string, now time.Time, edit func(v *Versions) (Object, error)) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return ix.update(func(tx kvTx) error {
		v, err := newVersions(tx, ix, []byte(bucket), []byte(key))
		if err != nil {
			return err
		}
		if err := deleteUploadTx(tx, bucket, key, id); err != nil {
			return err
		}
		o, err := edit(v)
		if err != nil {
			return asWrite(err)
		}
		done := Completion{Bucket: bucket, Key: key, ETag: o.ETag, Checksums: o.Checksums, Completed: now, VersionID: o.VersionID}
		dv, err := done.MarshalBinary()
		if err != nil {
			return written(err)
		}
		return written(tx.Bucket(completedBucket).Put([]byte(id), dv))
	})
}

// Completed returns what a completed upload produced, if it is still
// remembered.
func (ix *Index) Completed(id string) (Completion, bool) {
	var c Completion
	ok := false
	_ = ix.view(func(tx kvTx) error {
		if v := tx.Bucket(completedBucket).Get([]byte(id)); v != nil {
			ok = c.UnmarshalBinary(v) == nil
		}
		return nil
	})
	return c, ok
}

// UploadQuery selects one page of ListMultipartUploads.
type UploadQuery struct {
	Prefix, Delimiter string
	// KeyMarker and UploadIDMarker are S3's exclusive start: uploads of
	// KeyMarker with ids after UploadIDMarker, then later keys; without
	// UploadIDMarker, keys after KeyMarker.
	KeyMarker, UploadIDMarker string
	Limit                     int
}

// UploadPage is one page of ListMultipartUploads.
type UploadPage struct {
	Uploads        []Upload
	CommonPrefixes []string
	Truncated      bool
	// NextKeyMarker and NextUploadIDMarker continue the listing.
	NextKeyMarker, NextUploadIDMarker string
}

// ListUploads lists the uploads in progress of a bucket in key order, then
// upload-id order, rolling keys up into common prefixes like List.
func (ix *Index) ListUploads(bucket string, q UploadQuery) (UploadPage, error) {
	var page UploadPage
	err := ix.view(func(tx kvTx) error {
		b, err := uploads(tx, bucket, false)
		if err != nil || b == nil || q.Limit <= 0 {
			return err
		}
		c := b.Cursor()
		var k, v []byte
		switch {
		case q.UploadIDMarker != "" && q.KeyMarker != "":
			start := uploadKey(q.KeyMarker, q.UploadIDMarker)
			k, v = c.Seek(start)
			if k != nil && bytes.Equal(k, start) {
				k, v = c.Next()
			}
		case q.KeyMarker != "":
			k, v = c.Seek(append([]byte(q.KeyMarker), 1))
		default:
			k, v = c.Seek([]byte(q.Prefix))
		}
		n := 0
		for k != nil {
			key, id, ok := splitUploadKey(k)
			if !ok {
				k, v = c.Next()
				continue
			}
			if !strings.HasPrefix(key, q.Prefix) {
				if key > q.Prefix {
					break
				}
				k, v = c.Next()
				continue
			}
			if q.Delimiter != "" {
				if i := strings.Index(key[len(q.Prefix):], q.Delimiter); i >= 0 {
					cp := key[:len(q.Prefix)+i+len(q.Delimiter)]
					if cp > q.KeyMarker || q.KeyMarker == "" {
						if n == q.Limit {
							page.Truncated = true
							break
						}
						page.CommonPrefixes = append(page.CommonPrefixes, cp)
						page.NextKeyMarker, page.NextUploadIDMarker = cp, ""
						n++
					}
					next := successor([]byte(cp))
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
			var u Upload
			if err := u.UnmarshalBinary(v); err != nil {
				return fmt.Errorf("metadata: upload %q: %w", id, err)
			}
			u.Key, u.ID = key, id
			page.Uploads = append(page.Uploads, u)
			page.NextKeyMarker, page.NextUploadIDMarker = key, id
			n++
			k, v = c.Next()
		}
		return nil
	})
	return page, err
}

// UploadRef names one upload in progress.
type UploadRef struct {
	Bucket, Key, ID string
	Initiated       time.Time
}

// StaleUploads returns up to limit uploads initiated before t, across all
// buckets, and forgets completions older than t. The background sweep of
// abandoned uploads calls it; uploads in progress are few, so it walks
// them all.
func (ix *Index) StaleUploads(t time.Time, limit int) ([]UploadRef, error) {
	var out []UploadRef
	err := ix.view(func(tx kvTx) error {
		return tx.Bucket(uploadsBucket).ForEachBucket(func(bucket []byte) error {
			b := tx.Bucket(uploadsBucket).Bucket(bucket)
			return b.ForEach(func(k, v []byte) error {
				if len(out) >= limit {
					return nil
				}
				key, id, ok := splitUploadKey(k)
				if !ok {
					return nil
				}
				var u Upload
				if err := u.UnmarshalBinary(v); err != nil || !u.Initiated.Before(t) {
					return nil
				}
				out = append(out, UploadRef{Bucket: string(bucket), Key: key, ID: id, Initiated: u.Initiated})
				return nil
			})
		})
	})
	if err != nil {
		return nil, err
	}
	var old [][]byte
	_ = ix.view(func(tx kvTx) error {
		return tx.Bucket(completedBucket).ForEach(func(k, v []byte) error {
			var c Completion
			if c.UnmarshalBinary(v) != nil || c.Completed.Before(t) {
				old = append(old, bytes.Clone(k))
			}
			return nil
		})
	})
	if len(old) > 0 {
		err = ix.update(func(tx kvTx) error {
			for _, k := range old {
				if err := tx.Bucket(completedBucket).Delete(k); err != nil {
					return written(err)
				}
			}
			return nil
		})
	}
	return out, err
}

// dropUploads removes the upload and part records of a bucket being
// deleted; the object layer has removed their files.
func dropUploads(tx kvTx, bucket []byte) error {
	top := tx.Bucket(uploadsBucket)
	b := top.Bucket(bucket)
	if b == nil {
		return nil
	}
	var ids [][]byte
	err := b.ForEach(func(k, _ []byte) error {
		if _, id, ok := splitUploadKey(k); ok {
			ids = append(ids, []byte(id))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if tx.Bucket(partsBucket).Bucket(id) != nil {
			if err := tx.Bucket(partsBucket).DeleteBucket(id); err != nil {
				return written(err)
			}
		}
	}
	return written(top.DeleteBucket(bucket))
}

// UploadExists reports whether an upload id names an upload in progress.
func (ix *Index) UploadExists(id string) bool {
	if checkUploadID(id) != nil {
		return false
	}
	ok := false
	_ = ix.view(func(tx kvTx) error {
		ok = tx.Bucket(partsBucket).Bucket([]byte(id)) != nil
		return nil
	})
	return ok
}
