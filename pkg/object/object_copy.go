package object

import (
	"encoding/hex"
	"io"
	"strings"

	"github.com/objectgateway/objectgateway/metadata"

	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// CopyInput is one CopyObject.
type CopyInput struct {
	SrcBucket, SrcKey string
	// SrcVersionID selects a version of the source ("" the current one).
	SrcVersionID      string
	DstBucket, DstKey string
	// Replace selects the REPLACE metadata directive: Headers replace the
	// source's. With COPY (false) the source's headers are kept.
	Replace bool
	// Headers are the destination's headers with REPLACE. Whatever the
	// directive, Headers.WebsiteRedirect is the destination's redirect:
	// S3 never copies the source's, and a new one is a change that makes
	// a copy of an object onto itself valid.
	Headers Headers
	// ReplaceTags selects the REPLACE tagging directive: Tags replace the
	// source's tags.
	ReplaceTags bool
	Tags        []metadata.KV
	// Check, when set, is called with the source's record before any byte
	// is copied (the x-amz-copy-source-if-* preconditions).
	Check func(src *Object) error
	// Conditions make the write of the destination conditional (If-Match,
	// If-None-Match "*"), checked as PutObject checks them.
	Conditions Conditions
	// Chown, when set, owns the new file (see ChownBucket).
	Chown *POSIXOwner
	// Lock is the new version's Object Lock state; a copy never takes
	// the source's.
	Lock Lock
	// Algorithm, unless None, is the checksum the copy must carry
	// (x-amz-checksum-algorithm): a full-object checksum of the bytes,
	// computed while they are copied unless the source has one already.
	Algorithm checksum.Algorithm
	// SrcCustomerKey is the SSE-C key of an SSE-C source
	// (x-amz-copy-source-server-side-encryption-customer-key), nil for none.
	SrcCustomerKey []byte
	// Encryption is the destination's encryption, as PutObject's: a copy
	// never takes the source's, so without it the copy is a plain file.
	Encryption sse.Request
	// Owner and ACL are the copy's, as PutInput's: a copy never takes the
	// source's.
	Owner, ACL string
}

// CopyObject copies an object. The bytes of a single-part plain source
// are copied file to file inside the kernel where the OS offers it
// (copy_file_range, reflinks on XFS/Btrfs); the ETag and checksums carry
// over because the bytes are the same. A copy asked for a checksum the
// source does not have as a full-object checksum (in.Algorithm) reads the
// bytes through the hash instead, and carries that checksum alone. An
// encrypted source or copy, and a source uploaded in parts, pass through
// the gateway (transcode).
// A copy onto itself must change something the request names (metadata,
// tags, redirect, encryption, checksum), else it is InvalidRequest; one
// of a single-part plain object in an unversioned bucket that asks for
// no new checksum only rewrites its record.
func (l *Layer) CopyObject(in CopyInput) (Object, error) {
	if err := s3name.ValidKey(in.DstKey); err != nil {
		return Object{}, err
	}
	id, err := l.identify(in.DstBucket, in.Conditions.BucketID)
	if err != nil {
		return Object{}, err
	}
	in.Conditions.BucketID = id
	src, err := l.openCopySource(in.SrcBucket, in.SrcKey, in.SrcVersionID)
	if err != nil {
		return Object{}, err
	}
	defer src.Close()
	if in.Check != nil {
		if err := in.Check(&src.Object); err != nil {
			return Object{}, err
		}
	}
	if src.Size > MaxPutSize {
		return Object{}, s3err.Newf(s3err.InvalidRequest, "The specified copy source is larger than the maximum allowable size for a copy source: %d", int64(MaxPutSize))
	}
	rec := src.Object
	rec.Key = in.DstKey
	if in.Replace {
		in.Headers.apply(&rec)
	}
	rec.WebsiteRedirect = in.Headers.WebsiteRedirect
	if in.ReplaceTags {
		rec.Tags = in.Tags
	}
	rec.Owner, rec.ACL = in.Owner, in.ACL
	// transcode decrypts the source or encrypts the copy (or both)
	// instead of copying the file. The copy of an object uploaded in
	// parts goes through it too: S3 writes a copy as one object in one
	// pass, so the copy has the MD5 of its content as ETag and no parts,
	// and a COMPOSITE checksum (of the parts) becomes the full-object
	// checksum of its algorithm.
	encrypts := src.SSE.Encrypted() || in.Encryption.Algorithm != ""
	transcode := encrypts || src.PartsCount > 0
	// rehash: the request names a checksum the source has no full-object
	// value of. Without one, a COMPOSITE checksum's algorithm stands in
	// for it; only a source uploaded in parts has one, and it transcodes.
	rehash := in.Algorithm != checksum.None && !hasFullChecksum(&src.Object, in.Algorithm)
	if in.Algorithm == checksum.None {
		in.Algorithm = compositeAlgorithm(&src.Object)
	}
	if err := l.CheckCustomerKey(&src.Object, in.SrcCustomerKey); err != nil {
		return Object{}, err
	}
	self := in.SrcBucket == in.DstBucket && in.SrcKey == in.DstKey && in.SrcVersionID == ""
	// A copy onto itself must change what the request can name: the
	// metadata, tags, redirect, encryption or checksum. That a source
	// uploaded in parts is rewritten as one object is no change S3
	// counts.
	if self && !encrypts && !rehash && !in.Replace && !in.ReplaceTags && in.Headers.WebsiteRedirect == "" {
		return Object{}, s3err.Newf(s3err.InvalidRequest, "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
	}
	if self && !rehash && !transcode {
		st, err := l.ix.BucketState(in.DstBucket)
		if err != nil {
			return Object{}, bucketErr(err, in.DstBucket)
		}
		if !st.Versioned() {
			return l.replaceHeaders(in.DstBucket, src.Object, rec, in.Conditions)
		}
		// In a versioned bucket a copy onto itself makes a new version,
		// with a file of its own: the copy below.
	}
	if l.onCopy != nil {
		l.onCopy()
	}
	up, err := l.fs.NewUpload()
	if err != nil {
		return Object{}, mapErr(err)
	}
	defer up.Abort()
	switch {
	case transcode:
		if rec, err = l.transcode(up, src, rec, in); err != nil {
			return Object{}, err
		}
	case rehash:
		dg, err := checksum.NewDigest(checksum.Expect{Algorithm: in.Algorithm})
		if err != nil {
			return Object{}, err
		}
		var body io.Reader = strings.NewReader("")
		if src.File != nil {
			body = io.LimitReader(src.File, src.Size)
		}
		n, err := copyBody(up, body, dg, src.Size)
		if err != nil {
			// A short read is the source changing under the copy, not a
			// client's short body.
			if s3err.As(err).Code == s3err.IncompleteBody {
				return Object{}, s3err.Newf(s3err.InternalError, "source changed during copy")
			}
			return Object{}, err
		}
		_, sum := dg.Checksum()
		rec.Size = n
		rec.Checksums = []metadata.Checksum{{Algorithm: in.Algorithm.String(), Value: sum, Type: "FULL_OBJECT"}}
	case src.File != nil:
		// *os.File to *os.File (through an io.LimitedReader, which the
		// runtime unwraps): io.Copy uses copy_file_range.
		n, err := io.Copy(up.File(), io.LimitReader(src.File, src.Size))
		if err != nil {
			return Object{}, mapErr(err)
		}
		if n != src.Size {
			return Object{}, s3err.Newf(s3err.InternalError, "source changed during copy")
		}
	}
	if err := chownStaged(up, in.Chown); err != nil {
		return Object{}, err
	}
	return l.commit(in.DstBucket, up, rec, publish{cond: in.Conditions, lock: in.Lock, store: l.putRecord(in.DstBucket)})
}

// transcode writes the copy of src into up as in asks, through the
// plaintext: decrypted when the source is encrypted, encrypted when the
// copy asks for it. The checksums are of the plaintext and carry over;
// with in.Algorithm the copy carries that checksum, computed on the way.
func (l *Layer) transcode(up io.Writer, src *Reader, rec Object, in CopyInput) (Object, error) {
	var body io.Reader = strings.NewReader("")
	var err error
	switch {
	case src.SSE.Encrypted():
		if body, err = l.Plaintext(src, in.SrcCustomerKey, 0, src.Size); err != nil {
			return rec, err
		}
	case src.File != nil:
		body = io.LimitReader(src.File, src.Size)
	}
	dg, err := checksum.NewDigest(checksum.Expect{Algorithm: in.Algorithm})
	if err != nil {
		return rec, err
	}
	n, enc, err := l.writeBody(up, body, dg, src.Size, in.Encryption)
	if err != nil {
		if s3err.As(err).Code == s3err.IncompleteBody {
			return rec, s3err.Newf(s3err.InternalError, "source changed during copy")
		}
		return rec, err
	}
	rec.Size, rec.SSE = n, enc
	// The copy is one file written in one pass: a single-part object,
	// whose part checksums (COMPOSITE) no longer apply.
	rec.PartsCount, rec.Parts = 0, nil
	var full []metadata.Checksum
	for _, c := range rec.Checksums {
		if c.Type == "FULL_OBJECT" {
			full = append(full, c)
		}
	}
	rec.Checksums = full
	rec.ETag = hex.EncodeToString(dg.MD5())
	if enc.Encrypted() && enc.Algorithm != sse.AES256 {
		rec.ETag = sealedETag(dg.MD5(), enc)
	}
	if in.Algorithm != checksum.None && !hasFullChecksum(&src.Object, in.Algorithm) {
		_, sum := dg.Checksum()
		rec.Checksums = []metadata.Checksum{{Algorithm: in.Algorithm.String(), Value: sum, Type: "FULL_OBJECT"}}
	}
	return rec, nil
}

// compositeAlgorithm is the algorithm of o's COMPOSITE checksum, None
// when it has none.
func compositeAlgorithm(o *Object) checksum.Algorithm {
	for _, c := range o.Checksums {
		if c.Type == "COMPOSITE" {
			if a, ok := checksum.ParseAlgorithm(c.Algorithm); ok {
				return a
			}
		}
	}
	return checksum.None
}

// hasFullChecksum reports whether o carries a full-object checksum of alg.
func hasFullChecksum(o *Object, alg checksum.Algorithm) bool {
	for _, c := range o.Checksums {
		if c.Algorithm == alg.String() && c.Type == "FULL_OBJECT" {
			return true
		}
	}
	return false
}

// replaceHeaders rewrites the metadata and tags of an object in place (to
// those of rec), as long as it is still the version that was checked and
// it meets the write's conditions (cond.BucketID included).
func (l *Layer) replaceHeaders(bucket string, src, rec Object, cond Conditions) (Object, error) {
	release, _, err := l.enter(bucket, cond.BucketID, src.Key)
	if err != nil {
		return Object{}, err
	}
	defer release()
	var out Object
	err = l.ix.UpdateObject(bucket, src.Key, func(o *Object) error {
		if err := cond.check(o); err != nil {
			return err
		}
		if o.ETag != src.ETag || o.FileInode != src.FileInode {
			return s3err.New(s3err.ConditionalRequestConflict)
		}
		HeadersOf(&rec).apply(o)
		o.Tags = rec.Tags
		o.Owner, o.ACL = rec.Owner, rec.ACL
		o.LastModified = l.now().UTC()
		out = *o
		return nil
	})
	if err != nil {
		return Object{}, keyErr(err, bucket, src.Key)
	}
	return out, nil
}

// openCopySource opens the source of a CopyObject or UploadPartCopy
// (OpenVersion). A version id that names a delete marker is S3's
// InvalidRequest: a copy may not name a marker as its source. The
// marker's headers describe the source, not the copy, and are not sent.
func (l *Layer) openCopySource(bucket, key, id string) (*Reader, error) {
	r, err := l.OpenVersion(bucket, key, id)
	if id != "" && err != nil && s3err.As(err).Code == s3err.MethodNotAllowed {
		return nil, s3err.Newf(s3err.InvalidRequest, "The source of a copy request may not specifically refer to a delete marker by version id.")
	}
	return r, err
}
