package object

import (
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/pkg/sse"
	"github.com/objectgateway/objectgateway/storage"
)

// MaxPutSize is the largest object a single PutObject may store (5 GiB).
const MaxPutSize = 5 << 30

// Object is an object's index record.
type Object = metadata.Object

// Headers are the standard and user metadata stored with an object and
// returned on GET and HEAD.
type Headers struct {
	ContentType, ContentEncoding, ContentDisposition, ContentLanguage, CacheControl, Expires string
	// User holds x-amz-meta-* entries, names lowercase without the prefix.
	User []metadata.KV
	// WebsiteRedirect is x-amz-website-redirect-location.
	WebsiteRedirect string
}

func (h Headers) apply(o *Object) {
	o.ContentType = h.ContentType
	o.ContentEncoding = h.ContentEncoding
	o.ContentDisposition = h.ContentDisposition
	o.ContentLanguage = h.ContentLanguage
	o.CacheControl = h.CacheControl
	o.Expires = h.Expires
	o.UserMeta = h.User
	o.WebsiteRedirect = h.WebsiteRedirect
}

// HeadersOf returns the stored headers of a record.
func HeadersOf(o *Object) Headers {
	return Headers{ContentType: o.ContentType, ContentEncoding: o.ContentEncoding, ContentDisposition: o.ContentDisposition,
		ContentLanguage: o.ContentLanguage, CacheControl: o.CacheControl, Expires: o.Expires, User: o.UserMeta, WebsiteRedirect: o.WebsiteRedirect}
}

// PutInput is one PutObject.
type PutInput struct {
	Bucket, Key string
	// Body yields the object's bytes (already decoded from aws-chunked).
	Body io.Reader
	// Size is the number of bytes Body must yield, or -1 when unknown.
	Size int64
	// Expect lists the digests to verify; the body is rejected (and nothing
	// stored) when one does not match.
	Expect  checksum.Expect
	Headers Headers
	// Tags are the object's tags (x-amz-tagging), already validated.
	Tags []metadata.KV
	// Conditions make the write conditional (If-None-Match, If-Match).
	Conditions Conditions
	// Chown, when set, owns the new file (see ChownBucket).
	Chown *POSIXOwner
	// Lock is the new version's Object Lock state.
	Lock Lock
	// Encryption, when its Algorithm is set, stores the object encrypted.
	Encryption sse.Request
	// Owner and ACL are the new object's owner (an access key id, "" for
	// the bucket's owner) and ACL in pkg/access's stored form ("" for the
	// owner's FULL_CONTROL alone); see Object.Owner and Object.ACL.
	Owner, ACL string
}

// PutObject stores an object: the body is written to a staging file while
// it is hashed, verified, made durable, renamed into place, and then
// recorded in the index.
func (l *Layer) PutObject(in PutInput) (Object, error) {
	if err := s3name.ValidKey(in.Key); err != nil {
		return Object{}, err
	}
	id, err := l.identify(in.Bucket, in.Conditions.BucketID)
	if err != nil {
		return Object{}, err
	}
	in.Conditions.BucketID = id
	if in.Size > MaxPutSize {
		return Object{}, s3err.New(s3err.EntityTooLarge)
	}
	dg, err := checksum.NewDigest(in.Expect)
	if err != nil {
		return Object{}, err
	}
	up, err := l.fs.NewUpload()
	if err != nil {
		return Object{}, mapErr(err)
	}
	defer up.Abort()

	n, enc, err := l.writeBody(up, in.Body, dg, in.Size, in.Encryption)
	if err != nil {
		return Object{}, err
	}
	alg, sum := dg.Checksum()
	rec := Object{
		Key:  in.Key,
		Size: n,
		ETag: hex.EncodeToString(dg.MD5()),
		SSE:  enc,
	}
	if enc.Encrypted() && enc.Algorithm != sse.AES256 {
		rec.ETag = sealedETag(dg.MD5(), enc)
	}
	if alg != checksum.None {
		rec.Checksums = []metadata.Checksum{{Algorithm: alg.String(), Value: sum, Type: "FULL_OBJECT"}}
	}
	in.Headers.apply(&rec)
	rec.Tags = in.Tags
	rec.Owner, rec.ACL = in.Owner, in.ACL
	if err := chownStaged(up, in.Chown); err != nil {
		return Object{}, err
	}
	return l.commit(in.Bucket, up, rec, publish{cond: in.Conditions, lock: in.Lock, store: l.putRecord(in.Bucket)})
}

// bodyErr maps an error from reading a request body: a client that went
// away or sent too little is IncompleteBody, never an InternalError.
func bodyErr(err error) error {
	var e *s3err.Error
	if errors.As(err, &e) {
		return e
	}
	return s3err.Wrap(s3err.IncompleteBody, err)
}

// Conditions are the preconditions of a write, checked under the key's
// lock against the current record, so no other writer of the key can slip
// in between the check and the write.
type Conditions struct {
	// BucketID, unless zero, is the identity (Bucket.ID) of the bucket the
	// request was authorized against: the write answers NoSuchBucket, and
	// stores nothing, if the bucket of that name is now another one (it
	// was deleted, and perhaps created again by someone else). Zero takes
	// the bucket the write finds when it starts.
	BucketID uint64
	// IfNoneMatch "*" writes only if the key does not exist.
	IfNoneMatch string
	// IfMatch writes (or deletes) only if the current ETag matches.
	IfMatch string
	// IfMatchSize, when set, deletes only if the object has this size in
	// bytes (x-amz-if-match-size). A missing key satisfies it, as in S3.
	IfMatchSize *int64
	// IfMatchLastModified, unless zero, deletes only if the object was
	// last modified at this time, to the second, as HTTP dates carry it
	// (x-amz-if-match-last-modified-time). A missing key satisfies it.
	IfMatchLastModified time.Time
}

// check evaluates the conditions against the current record (nil when
// the key does not exist), as S3 does: 412 PreconditionFailed, or
// NoSuchKey for If-Match on a missing key.
func (c Conditions) check(cur *Object) error {
	if c.IfNoneMatch != "" && cur != nil {
		if c.IfNoneMatch == "*" || etagIn(cur.ETag, c.IfNoneMatch) {
			return s3err.New(s3err.PreconditionFailed)
		}
	}
	if c.IfMatch != "" {
		if cur == nil {
			return s3err.New(s3err.NoSuchKey)
		}
		if c.IfMatch != "*" && !etagIn(cur.ETag, c.IfMatch) {
			return s3err.New(s3err.PreconditionFailed)
		}
	}
	if cur == nil {
		return nil
	}
	if c.IfMatchSize != nil && cur.Size != *c.IfMatchSize {
		return s3err.New(s3err.PreconditionFailed)
	}
	if !c.IfMatchLastModified.IsZero() && !cur.LastModified.Truncate(time.Second).Equal(c.IfMatchLastModified.Truncate(time.Second)) {
		return s3err.New(s3err.PreconditionFailed)
	}
	return nil
}

// etagIn reports whether etag is in a header's comma-separated list of
// (quoted or bare) entity tags.
func etagIn(etag, list string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		t = strings.TrimPrefix(t, "W/")
		if strings.Trim(t, `"`) == etag {
			return true
		}
	}
	return false
}

// publish says how commit checks and records a new version.
type publish struct {
	cond Conditions
	// lock is the new version's Object Lock state.
	lock Lock
	// pre, when set, runs under the key's lock before the rename.
	pre func() error
	// store writes the index record (a PUT's, or a multipart completion's)
	// in an unversioned bucket.
	store func(rec Object) error
	// storeVersion, when set, commits edit, which makes the new version,
	// in a versioned bucket (a multipart completion's); nil commits it
	// with EditVersions.
	storeVersion func(key string, edit func(v *metadata.Versions) (Object, error)) error
	// vanished is set by commit when the version the write replaces has
	// no file any more (removed behind the gateway's back): it is dropped
	// instead of kept as a noncurrent version without bytes.
	vanished bool
	// changed is set by commit when the file of the version the write
	// replaces was replaced behind the gateway's back: the version keeps
	// those bytes, so its record describes them, as a read would have.
	changed *storage.FileInfo
}

// commit publishes a finished upload under rec.Key: it fences the bucket
// (which must still be the one of p.cond.BucketID), takes the key's lock,
// checks the conditions, renames the file into place and records it with
// p.store.
func (l *Layer) commit(bucket string, up *storage.Upload, rec Object, p publish) (Object, error) {
	// The bytes are flushed before the fence and the key's lock are
	// taken: a large file's fsync must not hold back a DeleteBucket, nor
	// the writers queued behind it.
	if err := up.Sync(); err != nil {
		return Object{}, mapErr(err)
	}
	release, st, err := l.enter(bucket, p.cond.BucketID, rec.Key)
	if err != nil {
		return Object{}, err
	}
	defer release()
	if p.pre != nil {
		if err := p.pre(); err != nil {
			return Object{}, err
		}
	}
	rec.LastModified = l.now().UTC()
	rec.VersionID, rec.Seq, rec.DeleteMarker = "", 0, false
	if err := applyLock(st, p.lock, &rec); err != nil {
		return Object{}, err
	}
	cond := p.cond
	prior := storage.Prior{Location: storage.Natural}
	old, err := l.ix.Object(bucket, rec.Key)
	switch {
	case err == nil:
		prior = storage.Prior{Location: toStorage(old.Location), Exists: true}
		if err := cond.check(&old); err != nil {
			return Object{}, err
		}
		if st.Versioned() && (st.Versioning == metadata.VersioningEnabled || old.VersionID != "") {
			// The current version stays, as a noncurrent one: its file
			// is linked into the versions area before the rename.
			prior.Demote, prior.Version, prior.Immutable = true, versionName(&old), locked(&old)
			if old.Location != metadata.Directory {
				fi, ok := l.fs.Identify(bucket, rec.Key, prior.Location)
				switch {
				case !ok:
					p.vanished = true
				case !matches(&old, fi):
					p.changed = &fi
				}
			}
		}
	case errors.Is(err, metadata.ErrNoSuchKey):
		if err := cond.check(nil); err != nil {
			return Object{}, err
		}
	default:
		return Object{}, bucketErr(err, bucket)
	}
	loc, fi, err := up.Publish(bucket, rec.Key, prior)
	if err != nil {
		return Object{}, mapErr(err)
	}
	rec.Location = toIndex(loc)
	rec.FileMtime = fi.Mtime
	rec.FileInode = fi.Inode
	var dropped []Object
	if st.Versioned() {
		err = l.storeVersioned(bucket, p, st, &rec, &dropped)
	} else {
		err = l.store(p, rec)
	}
	if err != nil {
		// The index still describes the previous version (or no version):
		// put its file back, or take the new bytes out, so that a failed
		// write leaves the key as it was. (The bucket cannot have been
		// deleted meanwhile: the fence keeps DeleteBucket out.)
		_ = up.Undo()
		return Object{}, bucketErr(err, bucket)
	}
	// The new version is recorded: the one it replaced can go (or stays
	// linked in the versions area). A failure here leaves only a staging
	// link, which Open clears.
	_ = up.Keep()
	l.removeDropped(bucket, rec.Key, dropped)
	l.protect(bucket, rec.Key, &rec, true)
	return rec, nil
}

// storeVersioned commits a new version of rec.Key in a versioned bucket,
// filling in its version id and sequence number.
func (l *Layer) storeVersioned(bucket string, p publish, st metadata.BucketState, rec *Object, dropped *[]Object) error {
	if l.failStore != nil {
		if err := l.failStore(*rec); err != nil {
			return err
		}
	}
	edit := newVersion(st, rec, dropped)
	switch {
	case p.vanished:
		edit = withoutCurrent(edit)
	case p.changed != nil:
		edit = withCurrentFile(*p.changed, edit)
	}
	if p.storeVersion != nil {
		return p.storeVersion(rec.Key, edit)
	}
	return l.ix.EditVersions(bucket, rec.Key, func(v *metadata.Versions) error {
		_, err := edit(v)
		return err
	})
}

// withoutCurrent runs edit once the key's current record is dropped: the
// record of a version whose file is gone, which edit must not keep.
func withoutCurrent(edit func(v *metadata.Versions) (Object, error)) func(v *metadata.Versions) (Object, error) {
	return func(v *metadata.Versions) (Object, error) {
		if err := v.DropCurrent(); err != nil {
			return Object{}, err
		}
		return edit(v)
	}
}

// withCurrentFile runs edit once the key's current record describes fi,
// the file found at the key's path, which edit keeps as a noncurrent
// version.
func withCurrentFile(fi storage.FileInfo, edit func(v *metadata.Versions) (Object, error)) func(v *metadata.Versions) (Object, error) {
	return func(v *metadata.Versions) (Object, error) {
		cur, ok, err := v.Current()
		if err != nil {
			return Object{}, err
		}
		if ok {
			describeFile(&cur, fi)
			if err := v.SetCurrent(cur); err != nil {
				return Object{}, err
			}
		}
		return edit(v)
	}
}

// store writes a commit's index record with p.store, unless a test's
// failStore refuses it first, as a full disk refuses the index's write.
func (l *Layer) store(p publish, rec Object) error {
	if l.failStore != nil {
		if err := l.failStore(rec); err != nil {
			return err
		}
	}
	return p.store(rec)
}

// putRecord is the store of a plain PUT or copy.
func (l *Layer) putRecord(bucket string) func(Object) error {
	return func(rec Object) error { return l.ix.PutObject(bucket, rec) }
}
