package object

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/pkg/sse"
	"github.com/objectgateway/objectgateway/storage"
)

// S3's multipart limits.
const (
	MinPartSize = 5 << 20
	MaxPartSize = 5 << 30
	MaxParts    = 10000
	// MaxObjectSize is the largest object a completion may assemble.
	MaxObjectSize = 5 << 40
)

// Upload is a multipart upload in progress.
type Upload = metadata.Upload

// Part is one uploaded part.
type Part = metadata.Part

// The checksum types of a multipart object.
const (
	ChecksumComposite  = "COMPOSITE"
	ChecksumFullObject = "FULL_OBJECT"
)

// CreateUploadInput is one CreateMultipartUpload.
type CreateUploadInput struct {
	Bucket, Key string
	// BucketID is the identity of the bucket the request was authorized
	// against (see Conditions.BucketID); zero takes the current one.
	BucketID uint64
	Owner    string
	Headers  Headers
	Tags     []metadata.KV
	// Algorithm and Type are x-amz-checksum-algorithm and
	// x-amz-checksum-type; Type "" takes the algorithm's default.
	Algorithm checksum.Algorithm
	Type      string
	// Lock is the Object Lock state the completed object gets.
	Lock Lock
	// Encryption, when its Algorithm is set, encrypts every part as it
	// arrives and the completed object (see uploadKey).
	Encryption sse.Request
	// ObjectOwner and ACL are the completed object's owner and ACL, as
	// PutInput's Owner and ACL.
	ObjectOwner, ACL string
}

// CreateMultipartUpload starts a multipart upload. The checksum type
// follows S3: CRC64NVME is always FULL_OBJECT, the digests (SHA1, SHA256,
// SHA512, MD5 and the xxhashes) are always COMPOSITE, CRC32 and CRC32C
// default to COMPOSITE and may be FULL_OBJECT.
func (l *Layer) CreateMultipartUpload(in CreateUploadInput) (Upload, error) {
	if err := s3name.ValidKey(in.Key); err != nil {
		return Upload{}, err
	}
	typ, err := checksumType(in.Algorithm, in.Type)
	if err != nil {
		return Upload{}, err
	}
	now := l.now().UTC()
	u := Upload{
		Key: in.Key, ID: newUploadID(now), Initiated: now, Owner: in.Owner,
		ContentType: in.Headers.ContentType, ContentEncoding: in.Headers.ContentEncoding,
		ContentDisposition: in.Headers.ContentDisposition, ContentLanguage: in.Headers.ContentLanguage,
		CacheControl: in.Headers.CacheControl, Expires: in.Headers.Expires,
		UserMeta: in.Headers.User, Tags: in.Tags, ChecksumType: typ, WebsiteRedirect: in.Headers.WebsiteRedirect,
		ObjectOwner: in.ObjectOwner, ACL: in.ACL,
	}
	if in.Algorithm != checksum.None {
		u.ChecksumAlgorithm = in.Algorithm.String()
	}
	u.LockMode, u.LockUntil, u.LegalHold = string(in.Lock.Retention.Mode), in.Lock.Retention.Until, in.Lock.LegalHold
	release, st, err := l.enter(in.Bucket, in.BucketID, "")
	if err != nil {
		return Upload{}, err
	}
	defer release()
	if err := applyLock(st, in.Lock, &Object{}); err != nil {
		return Upload{}, err
	}
	if in.Encryption.Algorithm != "" {
		// The upload's data key is made now and kept sealed in its
		// record; every part's stream has a key derived from it.
		dk, enc, err := l.newDataKey(in.Encryption)
		sse.Wipe(dk)
		if err != nil {
			return Upload{}, err
		}
		u.SSE = enc
	}
	if err := l.ix.CreateUpload(in.Bucket, u); err != nil {
		return Upload{}, bucketErr(err, in.Bucket)
	}
	return u, nil
}

// checksumType applies S3's rules for x-amz-checksum-type.
func checksumType(alg checksum.Algorithm, typ string) (string, error) {
	switch typ {
	case "", ChecksumComposite, ChecksumFullObject:
	default:
		return "", s3err.Newf(s3err.InvalidRequest, "Value for x-amz-checksum-type header is invalid.")
	}
	switch alg {
	case checksum.None:
		if typ != "" {
			return "", s3err.Newf(s3err.InvalidRequest, "The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.")
		}
		return "", nil
	case checksum.CRC64NVME:
		if typ == ChecksumComposite {
			return "", s3err.Newf(s3err.InvalidRequest, "The COMPOSITE checksum type cannot be used with the crc64nvme checksum algorithm.")
		}
		return ChecksumFullObject, nil
	}
	if !alg.CanCombine() {
		// Only a CRC of the whole object can be made from its parts'
		// CRCs; the digests (SHAs, MD5, xxhashes) are COMPOSITE only.
		if typ == ChecksumFullObject {
			return "", s3err.Newf(s3err.InvalidRequest, "The FULL_OBJECT checksum type cannot be used with the %s checksum algorithm.", strings.ToLower(alg.String()))
		}
		return ChecksumComposite, nil
	}
	if typ == "" {
		return ChecksumComposite, nil
	}
	return typ, nil
}

// newUploadID returns an unguessable upload id, safe as a path segment,
// that sorts by initiation time (S3 lists the uploads of one key in that
// order): the time in hex, then 18 random bytes.
func newUploadID(now time.Time) string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%016x", uint64(now.UnixNano())) + base64.RawURLEncoding.EncodeToString(b[:])
}

// upload returns an upload in progress, or NoSuchUpload.
func (l *Layer) upload(bucket, key, id string) (Upload, error) {
	u, err := l.ix.Upload(bucket, key, id)
	if err != nil {
		if errors.Is(err, metadata.ErrNoSuchUpload) {
			return Upload{}, s3err.New(s3err.NoSuchUpload).With("UploadId", id)
		}
		return Upload{}, bucketErr(err, bucket)
	}
	return u, nil
}

// PartInput is one UploadPart.
type PartInput struct {
	Bucket, Key, UploadID string
	// BucketID is the identity of the bucket the request was authorized
	// against (see Conditions.BucketID); zero takes the current one.
	BucketID uint64
	Number   int
	Body     io.Reader
	Size     int64
	Expect   checksum.Expect
	// CustomerKey is the SSE-C key the request sent (nil for none): an
	// SSE-C upload needs the key it was created with on every part.
	CustomerKey []byte
}

func checkPartNumber(n int) error {
	if n < 1 || n > MaxParts {
		return s3err.Newf(s3err.InvalidArgument, "Part number must be an integer between 1 and 10000, inclusive").With("ArgumentName", "partNumber")
	}
	return nil
}

// partExpect reconciles a part's checksum with the upload's algorithm:
// the part is hashed with the upload's algorithm (a part that comes
// without a checksum, which requirePartChecksum allows for FULL_OBJECT
// uploads and UploadPartCopy, gets it computed), and a part that names
// another one is refused, as S3 does.
func partExpect(u *Upload, e checksum.Expect) (checksum.Expect, error) {
	if u.ChecksumAlgorithm == "" {
		return e, nil
	}
	alg, _ := checksum.ParseAlgorithm(u.ChecksumAlgorithm)
	switch e.Algorithm {
	case checksum.None:
		e.Algorithm = alg
	case alg:
	default:
		return e, s3err.Newf(s3err.InvalidRequest, "Checksum Type mismatch occurred, expected checksum Type: %s, actual checksum Type: %s",
			strings.ToLower(alg.String()), strings.ToLower(e.Algorithm.String()))
	}
	return e, nil
}

// requirePartChecksum applies S3's rule for a part of an upload created
// with a COMPOSITE checksum: the part must carry its checksum (a header,
// or a trailer), since the object's checksum will be made of the parts'
// stated ones. A part of a FULL_OBJECT upload may come without one: its
// checksum is computed from its bytes, as it is for an upload without an
// algorithm. UploadPartCopy is not bound by this: the gateway reads the
// bytes it copies.
func requirePartChecksum(u *Upload, e checksum.Expect) error {
	if u.ChecksumAlgorithm == "" || u.ChecksumType == ChecksumFullObject || e.Algorithm != checksum.None {
		return nil
	}
	return s3err.Newf(s3err.InvalidRequest, "Checksum Type mismatch occurred, expected checksum Type: %s, actual checksum Type: null",
		strings.ToLower(u.ChecksumAlgorithm))
}

// UploadInitiator returns the access key that initiated an upload in
// progress ("" for an anonymous one), or NoSuchUpload.
func (l *Layer) UploadInitiator(bucket, key, id string) (string, error) {
	u, err := l.upload(bucket, key, id)
	return u.Owner, err
}

// UploadPart stores one part of a multipart upload, replacing an earlier
// upload of the same number.
func (l *Layer) UploadPart(in PartInput) (Part, error) {
	if err := checkPartNumber(in.Number); err != nil {
		return Part{}, err
	}
	id, err := l.identify(in.Bucket, in.BucketID)
	if err != nil {
		return Part{}, err
	}
	u, err := l.upload(in.Bucket, in.Key, in.UploadID)
	if err != nil {
		return Part{}, err
	}
	if in.Size > MaxPartSize {
		return Part{}, s3err.New(s3err.EntityTooLarge)
	}
	if err := requirePartChecksum(&u, in.Expect); err != nil {
		return Part{}, err
	}
	expect, err := partExpect(&u, in.Expect)
	if err != nil {
		return Part{}, err
	}
	dk, err := l.uploadKey(&u, in.CustomerKey)
	if err != nil {
		return Part{}, err
	}
	defer sse.Wipe(dk)
	return l.writePart(partRef{in.Bucket, id, in.Key, in.UploadID, in.Number}, in.Body, in.Size, expect, partEncryption{u.SSE, dk})
}

// partRef names the part a write makes: part Number of upload UploadID of
// Key in the bucket of identity BucketID.
type partRef struct {
	Bucket   string
	BucketID uint64
	Key      string
	UploadID string
	Number   int
}

// writePart hashes body while copying it, then stores it as part
// ref.Number of its upload: into the upload's region when the part may
// go there (claimRegion), else into a staged file of its own.
//
// A part of an encrypted upload (pe.key set) is always a file of its own,
// holding the part's DARE stream (writeEncryptedPart): its file size is
// not its plaintext size, which the region's offsets are.
func (l *Layer) writePart(ref partRef, body io.Reader, size int64, expect checksum.Expect, pe partEncryption) (Part, error) {
	dg, err := checksum.NewDigest(expect)
	if err != nil {
		return Part{}, err
	}
	if pe.key != nil {
		return l.writeEncryptedPart(ref, body, size, dg, pe)
	}
	if c := l.claimRegion(ref, size); c != nil {
		defer c.done()
		p, err := l.writeRegionPart(ref, c, body, size, dg)
		if err != nil {
			c.release()
		}
		return p, err
	}
	up, err := l.fs.NewUpload()
	if err != nil {
		return Part{}, mapErr(err)
	}
	defer up.Abort()
	written, err := copyBody(up, body, dg, size)
	if err != nil {
		return Part{}, err
	}
	// Flushed before storePart takes the bucket's fence (see commit).
	if err := up.Sync(); err != nil {
		return Part{}, mapErr(err)
	}
	return l.storePart(ref, up.CommitPart, l.partRecord(ref, written, dg), nil)
}

// writeRegionPart writes a part into its claimed range of the region,
// makes it durable and records it.
func (l *Layer) writeRegionPart(ref partRef, c *regionClaim, body io.Reader, size int64, dg *checksum.Digest) (Part, error) {
	written, err := copyBody(c, body, dg, size)
	if err != nil {
		return Part{}, err
	}
	p := l.partRecord(ref, written, dg)
	p.InRegion, p.Offset = true, c.off
	// Flushed before storePart takes the bucket's fence (see commit); a
	// failure is storePart's to answer, as a failed commit of a part's
	// own file is.
	fi, serr := c.sync()
	synced := func(string, int) (storage.FileInfo, error) { return fi, serr }
	return l.storePart(ref, synced, p, c.record)
}

// partRecord is the record of a part of written bytes hashed by dg.
func (l *Layer) partRecord(ref partRef, written int64, dg *checksum.Digest) Part {
	alg, sum := dg.Checksum()
	p := Part{Number: ref.Number, Size: written, ETag: hex.EncodeToString(dg.MD5()), LastModified: l.now().UTC()}
	if alg != checksum.None {
		p.Checksum = metadata.Checksum{Algorithm: alg.String(), Value: sum}
	}
	return p
}

// storePart commits a part's bytes (commit) and then its record, fenced
// against the deletion of its bucket; guard, when set, runs the record's
// commit (a region claim refuses it once sealed). If the upload was
// aborted meanwhile, the part's files are removed again.
func (l *Layer) storePart(ref partRef, commit func(string, int) (storage.FileInfo, error), p Part, guard func(func() error) error) (Part, error) {
	bucket, key, id := ref.Bucket, ref.Key, ref.UploadID
	release, _, err := l.enter(bucket, ref.BucketID, "")
	if err != nil {
		return Part{}, err
	}
	defer release()
	fi, err := commit(id, p.Number)
	if err != nil {
		if !l.ix.UploadExists(id) {
			// An abort removed the upload's directory under our feet.
			_ = l.fs.RemoveParts(id)
			return Part{}, s3err.New(s3err.NoSuchUpload).With("UploadId", id)
		}
		return Part{}, mapErr(err)
	}
	p.FileInode = fi.Inode
	put := func() error { return l.ix.PutPart(bucket, key, id, p) }
	if guard != nil {
		err = guard(put)
	} else {
		err = put()
	}
	if err != nil {
		if errors.Is(err, metadata.ErrNoSuchUpload) || !l.ix.UploadExists(id) {
			_ = l.fs.RemoveParts(id)
			return Part{}, s3err.New(s3err.NoSuchUpload).With("UploadId", id)
		}
		return Part{}, bucketErr(err, bucket)
	}
	return p, nil
}

// CopyPartInput is one UploadPartCopy.
type CopyPartInput struct {
	Bucket, Key, UploadID string
	// BucketID is the identity of the bucket the request was authorized
	// against (see Conditions.BucketID); zero takes the current one.
	BucketID          uint64
	Number            int
	SrcBucket, SrcKey string
	// SrcVersionID selects a version of the source ("" the current one).
	SrcVersionID string
	// Range selects a byte range of the source (x-amz-copy-source-range);
	// nil copies the whole source.
	Range func(size int64) (start, length int64, err error)
	// Check is called with the source's record before copying
	// (x-amz-copy-source-if-*).
	Check func(src *Object) error
	// SrcCustomerKey is the SSE-C key of an SSE-C source
	// (x-amz-copy-source-server-side-encryption-customer-*); CustomerKey
	// is the SSE-C key of an SSE-C upload, as UploadPart's.
	SrcCustomerKey, CustomerKey []byte
}

// UploadPartCopy makes a part from a range of an existing object. The
// bytes are hashed as they are copied: a part's ETag is its MD5.
func (l *Layer) UploadPartCopy(in CopyPartInput) (Part, error) {
	if err := checkPartNumber(in.Number); err != nil {
		return Part{}, err
	}
	id, err := l.identify(in.Bucket, in.BucketID)
	if err != nil {
		return Part{}, err
	}
	u, err := l.upload(in.Bucket, in.Key, in.UploadID)
	if err != nil {
		return Part{}, err
	}
	src, err := l.openCopySource(in.SrcBucket, in.SrcKey, in.SrcVersionID)
	if err != nil {
		return Part{}, err
	}
	defer src.Close()
	if in.Check != nil {
		if err := in.Check(&src.Object); err != nil {
			return Part{}, err
		}
	}
	if err := l.CheckCustomerKey(&src.Object, in.SrcCustomerKey); err != nil {
		return Part{}, err
	}
	dk, err := l.uploadKey(&u, in.CustomerKey)
	if err != nil {
		return Part{}, err
	}
	defer sse.Wipe(dk)
	start, length := int64(0), src.Size
	if in.Range != nil {
		if start, length, err = in.Range(src.Size); err != nil {
			return Part{}, err
		}
	}
	if length > MaxPartSize {
		return Part{}, s3err.New(s3err.EntityTooLarge)
	}
	expect, _ := partExpect(&u, checksum.Expect{})
	var body io.Reader = strings.NewReader("")
	switch {
	case src.SSE.Encrypted() && length > 0:
		// An encrypted source is decrypted, and the part written with
		// the upload's own encryption (or as plaintext): never its
		// ciphertext copied file to file.
		if body, err = l.Plaintext(src, in.SrcCustomerKey, start, length); err != nil {
			return Part{}, err
		}
	case src.File != nil && !src.SSE.Encrypted():
		body = io.NewSectionReader(src.File, start, length)
	}
	return l.writePart(partRef{in.Bucket, id, in.Key, in.UploadID, in.Number}, body, length, expect, partEncryption{u.SSE, dk})
}

// ListParts returns up to max parts after marker, and whether more follow.
func (l *Layer) ListParts(bucket, key, id string, marker, max int) (Upload, []Part, bool, error) {
	u, err := l.upload(bucket, key, id)
	if err != nil {
		return Upload{}, nil, false, err
	}
	parts, more, err := l.ix.Parts(bucket, key, id, marker, max)
	if err != nil {
		if errors.Is(err, metadata.ErrNoSuchUpload) {
			return Upload{}, nil, false, s3err.New(s3err.NoSuchUpload).With("UploadId", id)
		}
		return Upload{}, nil, false, bucketErr(err, bucket)
	}
	return u, parts, more, nil
}

// ListUploads lists the uploads in progress of a bucket.
func (l *Layer) ListUploads(bucket string, q metadata.UploadQuery) (metadata.UploadPage, error) {
	if _, err := l.Bucket(bucket); err != nil {
		return metadata.UploadPage{}, err
	}
	page, err := l.ix.ListUploads(bucket, q)
	return page, bucketErr(err, bucket)
}

// AbortMultipartUpload removes an upload and its parts. The record goes
// first, so a completion racing with the abort fails cleanly.
func (l *Layer) AbortMultipartUpload(bucket, key, id string) error {
	if _, err := l.Bucket(bucket); err != nil {
		return err
	}
	unlock, err := l.lockKey(bucket, key)
	if err != nil {
		return err
	}
	defer unlock()
	if err := l.ix.DeleteUpload(bucket, key, id); err != nil {
		if errors.Is(err, metadata.ErrNoSuchUpload) {
			return s3err.New(s3err.NoSuchUpload).With("UploadId", id)
		}
		return bucketErr(err, bucket)
	}
	// Region writers of this upload stop at their next write.
	l.dropGate(id)
	if err := l.fs.RemoveParts(id); err != nil && !errors.Is(err, syscall.ENOTEMPTY) {
		return mapErr(err)
	}
	// The upload is gone from the index: it is aborted. A part still being
	// renamed into its directory is removed by its writer, which finds the
	// record gone, or else by the sweep of orphaned part directories.
	return nil
}

// CheckCompletion returns the error CompleteMultipartUpload would answer
// for the upload itself, whatever the parts listed: NoSuchUpload (or the
// bucket's error) unless the upload is in progress or was completed into
// the object that bucket and key still hold. The API checks it before it
// reads the list of parts, so a wrong upload id costs no parsing. With
// no error it also returns the encryption the object will have (the
// upload's), which an answer sent before the completion ends carries.
func (l *Layer) CheckCompletion(bucket, key, id string) (metadata.Encryption, error) {
	u, err := l.upload(bucket, key, id)
	if err != nil {
		if o, ok := l.completed(bucket, key, id); ok {
			return o.SSE, nil
		}
		return metadata.Encryption{}, err
	}
	return u.SSE, nil
}

// completed returns the object a completed upload produced when bucket
// and key still hold it, which is what completing it again answers.
func (l *Layer) completed(bucket, key, id string) (Object, bool) {
	done, ok := l.ix.Completed(id)
	if !ok || done.Bucket != bucket || done.Key != key {
		return Object{}, false
	}
	cur, err := l.ix.Object(bucket, key)
	if err != nil || cur.ETag != done.ETag || cur.VersionID != done.VersionID {
		return Object{}, false
	}
	return cur, true
}

// CompletePart is one entry of a CompleteMultipartUpload request.
type CompletePart struct {
	Number int
	ETag   string
	// Checksums are the part checksums the client states, by algorithm.
	Checksums map[string]string
}

// CompleteInput is one CompleteMultipartUpload.
type CompleteInput struct {
	Bucket, Key, UploadID string
	Parts                 []CompletePart
	// Expect, when set, is the full-object checksum the client states
	// (x-amz-checksum-<alg> on the request).
	ExpectAlgorithm checksum.Algorithm
	ExpectValue     string
	// ExpectType, when set, is the checksum type the client states
	// (x-amz-checksum-type): COMPOSITE or FULL_OBJECT, which must be the
	// upload's (see checkCompleteType).
	ExpectType string
	// ExpectSize is x-amz-mp-object-size, or -1.
	ExpectSize int64
	Conditions Conditions
	// Chown, when set, owns the new file (see ChownBucket).
	Chown *POSIXOwner
	// CustomerKey is the SSE-C key the request sent, if any: S3 does not
	// need it to complete an SSE-C upload, but one that is sent must be
	// the upload's (uploadKey).
	CustomerKey []byte
}

// CompleteMultipartUpload assembles the listed parts into the object and
// publishes it like a single PUT (fsync, rename, index); the upload's
// record and parts go in the same index transaction as the new object's
// record. When the parts are 1..N of the upload's regular size the
// object is the upload's region file, renamed: nothing is copied but the
// parts that live in files of their own (see multipart_region.go);
// otherwise every part is copied file to file inside the kernel.
//
// Completions of one upload are coalesced: one that arrives while another
// runs waits for it and gets its answer, so a client that gave up waiting
// and retried never makes a second assembly. Completing an upload that
// was already completed answers as the first completion did.
func (l *Layer) CompleteMultipartUpload(in CompleteInput) (Object, error) {
	return l.completions.do(completionKey(in), func() (Object, error) {
		return l.completeMultipartUpload(in)
	})
}

// completionKey names a completion by everything that decides its
// answer, so that only a retry of the same request joins one in flight:
// another list of parts, other conditions or another owner waits for its
// own run (which then finds the upload completed, or not).
func completionKey(in CompleteInput) string {
	h := sha256.New()
	var owner POSIXOwner
	if in.Chown != nil {
		owner = *in.Chown
	}
	fmt.Fprintf(h, "%q %q %q %q %q %d %+v %t %+v|", in.Bucket, in.Key, in.UploadID, in.ExpectAlgorithm.String()+":"+in.ExpectValue, in.ExpectType, in.ExpectSize, in.Conditions, in.Chown != nil, owner)
	// Only a retry with the same SSE-C key (or none) joins: the key is
	// checked by the run that completes.
	fmt.Fprintf(h, "%t %x|", in.CustomerKey != nil, in.CustomerKey)
	for _, p := range in.Parts {
		fmt.Fprintf(h, "%d %q", p.Number, p.ETag)
		for _, alg := range checksum.Algorithms() {
			if v, ok := p.Checksums[alg.String()]; ok {
				fmt.Fprintf(h, " %s=%q", alg, v)
			}
		}
		h.Write([]byte{'|'})
	}
	return string(h.Sum(nil))
}

// completionCalls coalesces the concurrent completions of one upload, as
// singleflight does, with a seam for tests.
type completionCalls struct {
	mu sync.Mutex
	m  map[string]*completionCall
	// onJoin, when set by a test, runs when a completion joins one in
	// flight instead of running its own.
	onJoin func()
}

type completionCall struct {
	done chan struct{}
	o    Object
	err  error
}

// do runs fn for key unless a call for key is in flight, in which case
// it waits for that one and returns its result.
func (c *completionCalls) do(key string, fn func() (Object, error)) (Object, error) {
	c.mu.Lock()
	if call, ok := c.m[key]; ok {
		c.mu.Unlock()
		if c.onJoin != nil {
			c.onJoin()
		}
		<-call.done
		return call.o, call.err
	}
	if c.m == nil {
		c.m = make(map[string]*completionCall)
	}
	// A completion that panics leaves its waiters this error, not an
	// empty success; the panic itself goes on to the caller's recovery.
	call := &completionCall{done: make(chan struct{}), err: s3err.Newf(s3err.InternalError, "the completion failed")}
	c.m[key] = call
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.m, key)
		c.mu.Unlock()
		close(call.done)
	}()
	call.o, call.err = fn()
	return call.o, call.err
}

func (l *Layer) completeMultipartUpload(in CompleteInput) (Object, error) {
	id, err := l.identify(in.Bucket, in.Conditions.BucketID)
	if err != nil {
		return Object{}, err
	}
	in.Conditions.BucketID = id
	u, err := l.upload(in.Bucket, in.Key, in.UploadID)
	if err != nil {
		if cur, ok := l.completed(in.Bucket, in.Key, in.UploadID); ok {
			return cur, nil
		}
		return Object{}, err
	}
	if err := checkCompleteType(&u, in.ExpectType); err != nil {
		return Object{}, err
	}
	if in.CustomerKey != nil || u.SSE.Algorithm != sse.Customer {
		dk, err := l.uploadKey(&u, in.CustomerKey)
		sse.Wipe(dk)
		if err != nil {
			return Object{}, err
		}
	}
	// Sealing the region before the parts are read means no region
	// writer can commit a record this completion does not see.
	g := l.gate(in.UploadID)
	g.seal()
	done := false
	defer func() {
		if !done {
			g.unseal()
		}
	}()
	stored, _, err := l.ix.Parts(in.Bucket, in.Key, in.UploadID, 0, 0)
	if err != nil {
		return Object{}, keyErr(err, in.Bucket, in.Key)
	}
	if err := requirePartChecksums(&u, in.Parts); err != nil {
		return Object{}, err
	}
	chosen, err := choosePartsFrom(stored, in.Parts)
	if err != nil {
		return Object{}, err
	}
	rec := Object{Key: in.Key, PartsCount: len(chosen)}
	Headers{ContentType: u.ContentType, ContentEncoding: u.ContentEncoding, ContentDisposition: u.ContentDisposition,
		ContentLanguage: u.ContentLanguage, CacheControl: u.CacheControl, Expires: u.Expires, User: u.UserMeta,
		WebsiteRedirect: u.WebsiteRedirect}.apply(&rec)
	rec.Tags = u.Tags
	rec.Owner, rec.ACL = u.ObjectOwner, u.ACL
	etags := make([]string, len(chosen))
	for i, p := range chosen {
		etags[i] = p.ETag
		rec.Size += p.Size
		info := metadata.PartInfo{Size: p.Size}
		if u.ChecksumAlgorithm != "" {
			// Only an upload created with a checksum algorithm keeps its
			// part checksums: the CRC64NVME every part gets by default was
			// not asked for, and S3 lists the parts of an object
			// (GetObjectAttributes) only when it was.
			info.Checksum = p.Checksum.Value
		}
		rec.Parts = append(rec.Parts, info)
	}
	if in.ExpectSize >= 0 && in.ExpectSize != rec.Size {
		return Object{}, s3err.Newf(s3err.InvalidRequest, "The provided 'x-amz-mp-object-size' header value %d does not match what was computed: %d", in.ExpectSize, rec.Size)
	}
	if rec.ETag, err = checksum.MultipartETag(etags); err != nil {
		return Object{}, err
	}
	if rec.SSE, err = completedEncryption(&u, chosen); err != nil {
		return Object{}, err
	}
	sum, err := objectChecksum(&u, chosen)
	if err != nil {
		return Object{}, err
	}
	if in.ExpectAlgorithm != checksum.None && (sum == nil || sum.Algorithm != in.ExpectAlgorithm.String()) {
		// The stated checksum can only be checked against one computed
		// from the parts' checksums of the same algorithm; without those
		// it is refused, never stored unchecked.
		have := "null"
		if sum != nil {
			have = strings.ToLower(sum.Algorithm)
		}
		return Object{}, s3err.Newf(s3err.InvalidRequest, "Checksum Type mismatch occurred, expected checksum Type: %s, actual checksum Type: %s",
			have, strings.ToLower(in.ExpectAlgorithm.String()))
	}
	if sum != nil {
		if in.ExpectAlgorithm != checksum.None {
			// Clients state a composite checksum with or without its
			// "-N" part count; the digest is what must match.
			suffix := "-" + itoa(len(chosen))
			if in.ExpectAlgorithm.String() != sum.Algorithm || strings.TrimSuffix(in.ExpectValue, suffix) != strings.TrimSuffix(sum.Value, suffix) {
				return Object{}, s3err.Newf(s3err.BadDigest, "The %s you specified did not match the calculated checksum.", strings.ToLower(in.ExpectAlgorithm.String()))
			}
		}
		rec.Checksums = []metadata.Checksum{*sum}
	}

	if l.onAssemble != nil {
		l.onAssemble()
	}
	up, err := l.assemble(g, in.UploadID, chosen, stored, fileSize(&rec))
	if err != nil {
		return l.completedMeanwhile(in, err)
	}
	defer up.Abort()
	if err := chownStaged(up, in.Chown); err != nil {
		return Object{}, err
	}
	out, err := l.commit(in.Bucket, up, rec, publish{
		cond: in.Conditions,
		lock: Lock{Retention: objectlock.Retention{Mode: objectlock.Mode(u.LockMode), Until: u.LockUntil}, LegalHold: u.LegalHold},
		// An abort takes the key's lock too: once the upload is seen
		// under the lock, it is still there when the index commits.
		pre: func() error {
			_, err := l.upload(in.Bucket, in.Key, in.UploadID)
			return err
		},
		store: func(rec Object) error {
			return l.ix.CompleteUpload(in.Bucket, in.UploadID, rec, l.now().UTC(), nil)
		},
		storeVersion: func(key string, edit func(v *metadata.Versions) (Object, error)) error {
			return l.ix.CompleteUploadVersions(in.Bucket, key, in.UploadID, l.now().UTC(), edit)
		},
	})
	if err != nil {
		return l.completedMeanwhile(in, err)
	}
	done = true
	l.dropGate(in.UploadID)
	_ = l.fs.RemoveParts(in.UploadID)
	return out, nil
}

// completedMeanwhile answers a completion whose assembly or commit
// failed with err: if the upload was completed meanwhile by another
// completion of it, one that this process did not coalesce with (it ran
// on another gateway of a shared catalogue), its parts are gone (err is
// InvalidPart) or its record is (NoSuchUpload), and the answer is that
// completion's object, as a retry's is (completed). Any other error is
// returned as it is.
func (l *Layer) completedMeanwhile(in CompleteInput, err error) (Object, error) {
	if c, ok := s3err.CodeOf(err); ok && (c == s3err.InvalidPart || c == s3err.NoSuchUpload) {
		if cur, ok := l.completed(in.Bucket, in.Key, in.UploadID); ok {
			return cur, nil
		}
	}
	return Object{}, err
}

// checkCompleteType applies S3's rule for the x-amz-checksum-type of a
// completion: when the request states one, it must be the type the
// upload was created with. An upload created without an algorithm gets
// S3's default, a FULL_OBJECT CRC64NVME (objectChecksum), so FULL_OBJECT
// is its type and COMPOSITE is refused.
func checkCompleteType(u *Upload, stated string) error {
	typ := u.ChecksumType
	if u.ChecksumAlgorithm == "" {
		typ = ChecksumFullObject
	}
	if stated == "" || stated == typ {
		return nil
	}
	return s3err.Newf(s3err.InvalidRequest, "The upload was created using the %s checksum mode. The complete request must use the same checksum mode.", typ)
}

// requirePartChecksums applies S3's rule for the completion of an upload
// created with a COMPOSITE checksum: the object's checksum is made of the
// part checksums the request names, so every part must name its checksum
// of the upload's algorithm (one of another algorithm does not count).
// A FULL_OBJECT upload's parts need not: its checksum is combined from
// the checksums stored with the parts.
func requirePartChecksums(u *Upload, req []CompletePart) error {
	if u.ChecksumAlgorithm == "" || u.ChecksumType == ChecksumFullObject {
		return nil
	}
	for _, r := range req {
		if r.Checksums[u.ChecksumAlgorithm] == "" {
			return s3err.Newf(s3err.InvalidRequest, "The upload was created using a %s checksum. The complete request must include the checksum for each part. It was missing for part %d in the request.",
				strings.ToLower(u.ChecksumAlgorithm), r.Number)
		}
	}
	return nil
}

// choosePartsFrom checks a completion's part list against the stored parts
// with S3's rules: numbers from 1, ascending, every part present with its
// ETag, every part but the last at least 5 MiB.
func choosePartsFrom(stored []Part, req []CompletePart) ([]Part, error) {
	if len(req) == 0 {
		return nil, s3err.Newf(s3err.MalformedXML, "You must specify at least one part")
	}
	if len(req) > MaxParts {
		return nil, s3err.Newf(s3err.InvalidArgument, "Part number must be an integer between 1 and 10000, inclusive")
	}
	for _, r := range req {
		// A number below 1 is refused as S3 refuses it
		// (versity/versitygw#1072), not taken for a missing part.
		if r.Number < 1 {
			return nil, s3err.Newf(s3err.InvalidArgument, "PartNumber must be >= 1")
		}
	}
	byNumber := make(map[int]Part, len(stored))
	for _, p := range stored {
		byNumber[p.Number] = p
	}
	out := make([]Part, 0, len(req))
	for i, r := range req {
		if i > 0 && r.Number <= req[i-1].Number {
			return nil, s3err.New(s3err.InvalidPartOrder)
		}
		p, ok := byNumber[r.Number]
		if !ok || strings.Trim(strings.TrimSpace(r.ETag), `"`) != p.ETag {
			return nil, s3err.New(s3err.InvalidPart).With("PartNumber", itoa(r.Number))
		}
		if v, ok := r.Checksums[p.Checksum.Algorithm]; ok && v != p.Checksum.Value {
			return nil, s3err.New(s3err.InvalidPart).With("PartNumber", itoa(r.Number))
		}
		out = append(out, p)
	}
	var total int64
	for _, p := range out {
		if total += p.Size; total > MaxObjectSize {
			return nil, s3err.Newf(s3err.EntityTooLarge, "Your proposed upload exceeds the maximum allowed object size of 5 TiB.")
		}
	}
	for i, p := range out[:len(out)-1] {
		if p.Size < MinPartSize {
			return nil, s3err.New(s3err.EntityTooSmall).
				With("ProposedSize", itoa(int(p.Size))).With("MinSizeAllowed", itoa(MinPartSize)).
				With("PartNumber", itoa(out[i].Number)).With("ETag", p.ETag)
		}
	}
	return out, nil
}

// objectChecksum computes the multipart object's checksum from its parts'
// checksums: composite (a digest of the part digests, "-N") or full-object
// (the CRCs combined). An upload that named no algorithm gets S3's
// default, a full-object CRC64NVME, when every part carries one.
func objectChecksum(u *Upload, parts []Part) (*metadata.Checksum, error) {
	algName, typ := u.ChecksumAlgorithm, u.ChecksumType
	if algName == "" {
		algName, typ = checksum.CRC64NVME.String(), ChecksumFullObject
	}
	alg, ok := checksum.ParseAlgorithm(algName)
	if !ok {
		return nil, nil
	}
	values := make([]string, len(parts))
	for i, p := range parts {
		if p.Checksum.Algorithm != alg.String() || p.Checksum.Value == "" {
			return nil, nil
		}
		values[i] = p.Checksum.Value
	}
	if typ == ChecksumFullObject {
		c, err := checksum.NewCombiner(alg)
		if err != nil {
			return nil, s3err.Wrap(s3err.InvalidRequest, err)
		}
		for i, p := range parts {
			if err := c.Add(values[i], p.Size); err != nil {
				return nil, s3err.Wrap(s3err.InvalidPart, err)
			}
		}
		return &metadata.Checksum{Algorithm: alg.String(), Value: c.Sum(), Type: ChecksumFullObject}, nil
	}
	v, err := checksum.Composite(alg, values)
	if err != nil {
		return nil, s3err.Wrap(s3err.InvalidPart, err)
	}
	return &metadata.Checksum{Algorithm: alg.String(), Value: v, Type: ChecksumComposite}, nil
}

// PartRange returns the byte range of part n (1-based) of an object: a
// single-part object has one part, the whole object.
func PartRange(o *Object, n int) (start, length int64, err error) {
	if len(o.Parts) == 0 {
		if n != 1 {
			return 0, 0, s3err.New(s3err.InvalidPartNumber)
		}
		return 0, o.Size, nil
	}
	if n < 1 || n > len(o.Parts) {
		return 0, 0, s3err.New(s3err.InvalidPartNumber)
	}
	for _, p := range o.Parts[:n-1] {
		start += p.Size
	}
	return start, o.Parts[n-1].Size, nil
}

// SweepUploads aborts uploads initiated more than maxAge ago and removes
// part directories whose upload no longer exists (left by a crash between
// an abort's index commit and its file removal). It returns how many
// uploads it aborted.
func (l *Layer) SweepUploads(maxAge time.Duration) (int, error) {
	cutoff := l.now().Add(-maxAge)
	stale, err := l.ix.StaleUploads(cutoff, 1000)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, u := range stale {
		err := l.AbortMultipartUpload(u.Bucket, u.Key, u.ID)
		if err == nil {
			n++
		} else if s3err.As(err).Code != s3err.NoSuchUpload {
			return n, err
		}
	}
	return n, l.RemoveOrphanParts()
}

// RemoveDeadStaging removes the staging files of the gateways on this
// root that are gone, while this one serves (storage.FS.ClearDeadStaging):
// a gateway killed beside others that keep running left them, and only a
// gateway's start removed them before.
func (l *Layer) RemoveDeadStaging() error {
	return mapErr(l.fs.ClearDeadStaging())
}

// RemoveOrphanParts removes the part directories whose upload no longer
// exists. A part directory without an upload record is garbage: records
// are created before any part is written and removed before the parts
// are, so only a crash (or a lost race with an abort) leaves one.
func (l *Layer) RemoveOrphanParts() error {
	ids, err := l.fs.PartDirs()
	if err != nil {
		return mapErr(err)
	}
	for _, id := range ids {
		if !l.ix.UploadExists(id) {
			if err := l.fs.RemoveParts(id); err != nil {
				return mapErr(err)
			}
		}
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }
