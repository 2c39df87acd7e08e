package object

import (
	"errors"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/storage"
)

// Versioning, as S3 defines it, on plain files. In a versioned bucket the
// current version of a key is its plain file and its record in the index's
// objects bucket, exactly as in an unversioned bucket; noncurrent
// versions and the versions behind a delete marker have their files in the
// versions area (storage.VersionPath) and their records in the index's
// versions bucket (metadata.Versions). Every change of a key's versions
// happens under the key's lock and in this order:
//
//   - a write that makes a version (PUT, POST, copy, completion): the new
//     file is staged and synced; the current file is linked into the
//     versions area (Publish with Prior.Demote); the new file is renamed
//     over the key's path; one index transaction demotes the current
//     record and records the new one. A crash before the index commit
//     leaves the old record, its file still linked in the versions area,
//     and perhaps the new file at the key's path: recoverCurrent keeps the
//     old version as noncurrent and adopts the new file.
//   - a delete that writes a marker: the current file is renamed into the
//     versions area (storage.FS.Demote); then one index transaction demotes
//     the record and adds the marker. A crash in between leaves a record
//     whose file is in the versions area: recoverCurrent moves it back. In
//     a suspended bucket the marker replaces a current null version: its
//     file is moved the same way, and removed from the versions area only
//     once the index no longer names it, so a crash before the commit
//     leaves the null version current (never a record without a file,
//     which a read would drop, making an older version current), and one
//     after it an orphan file that fsck removes.
//   - a version becoming current again (its successor or marker deleted by
//     id): one index transaction promotes its record, then its file is
//     renamed back to the key's path (storage.FS.Restore). A crash in
//     between is the same case as the one above, and recoverCurrent
//     finishes the move.
//
// So the index is the truth, and a file that disagrees with it is brought
// back to what the index says by the first read that notices, under the
// key's lock.

// demoted is where a version's bytes are once it is no longer current: a
// folder marker keeps no bytes, any other version's file is in the
// versions area.
func demoted(loc metadata.Location) metadata.Location {
	if loc == metadata.Directory {
		return metadata.Directory
	}
	return metadata.Noncurrent
}

// locked reports whether a version carries Object Lock state, so that its
// file may bear the immutable flag.
func locked(o *Object) bool { return o.LockMode != "" || o.LegalHold }

// retentionOf returns a version's retention.
func retentionOf(o *Object) objectlock.Retention {
	return objectlock.Retention{Mode: objectlock.Mode(o.LockMode), Until: o.LockUntil}
}

// versionName is the id a version's file is named by in the versions
// area: "" for the null version.
func versionName(o *Object) string { return o.VersionID }

// shownID is the version id S3 shows for a version: "null" for the null
// version.
func shownID(o *Object) string {
	if o.VersionID == "" {
		return metadata.NullVersion
	}
	return o.VersionID
}

// checkVersionID validates a version id from a request: "null", or an id
// the index gives. Anything else is S3's InvalidArgument.
func checkVersionID(id string) error {
	if id == metadata.NullVersion {
		return nil
	}
	if _, _, ok := metadata.ParseVersionID(id); !ok {
		return s3err.Newf(s3err.InvalidArgument, "Invalid version id specified").
			With("ArgumentName", "versionId").With("ArgumentValue", id)
	}
	return nil
}

// versionErr is the error of a version id that names no version of key.
func versionErr(key, id string) error {
	if err := checkVersionID(id); err != nil {
		return err
	}
	return s3err.New(s3err.NoSuchVersion).With("Key", key).With("VersionId", id)
}

// httpDate is the layout of an HTTP-date (RFC 9110), net/http's
// TimeFormat: time.RFC1123 would name the zone "UTC", which HTTP date
// parsers refuse.
const httpDate = "Mon, 02 Jan 2006 15:04:05 GMT"

// markerErr is the answer to a request for a delete marker's bytes:
// 405 MethodNotAllowed by id, with the marker's headers.
func markerErr(m *Object) error {
	return s3err.New(s3err.MethodNotAllowed).
		WithHeader("x-amz-delete-marker", "true").
		WithHeader("x-amz-version-id", shownID(m)).
		WithHeader("Last-Modified", m.LastModified.UTC().Format(httpDate))
}

// noSuchKey is NoSuchKey for a key without a current version; when its
// latest version is a delete marker it carries the marker's headers, as S3
// answers a GET or HEAD of a deleted key.
func (l *Layer) noSuchKey(bucket, key string, err error) error {
	if !errors.Is(err, metadata.ErrNoSuchKey) {
		return keyErr(err, bucket, key)
	}
	e := s3err.As(keyErr(err, bucket, key))
	_ = l.ix.ViewVersions(bucket, key, func(v *metadata.Versions) error {
		if _, ok, err := v.Current(); err != nil || ok {
			return err
		}
		newest, err := v.Noncurrent(1)
		if err == nil && len(newest) == 1 && newest[0].DeleteMarker {
			e = e.WithHeader("x-amz-delete-marker", "true").WithHeader("x-amz-version-id", shownID(&newest[0]))
		}
		return err
	})
	return e
}

// newVersion returns the edit that makes rec the current version of its
// key in a versioned bucket of state st, and the record as stored. The
// current record, if any, becomes noncurrent, except the null version of
// a suspended bucket, which rec replaces; a suspended bucket's write also
// replaces a noncurrent null version, which it appends to *dropped so its
// file can be removed once the edit is committed.
func newVersion(st metadata.BucketState, rec *Object, dropped *[]Object) func(v *metadata.Versions) (Object, error) {
	return func(v *metadata.Versions) (Object, error) {
		*dropped = (*dropped)[:0]
		cur, ok, err := v.Current()
		if err != nil {
			return Object{}, err
		}
		seq, id, err := v.NewVersion()
		if err != nil {
			return Object{}, err
		}
		rec.Seq, rec.VersionID = seq, ""
		enabled := st.Versioning == metadata.VersioningEnabled
		if enabled {
			rec.VersionID = id
		}
		if ok && (enabled || cur.VersionID != "") {
			cur.Location = demoted(cur.Location)
			if err := v.PutNoncurrent(cur); err != nil {
				return Object{}, err
			}
		}
		if !enabled {
			if err := dropNull(v, dropped); err != nil {
				return Object{}, err
			}
		}
		if err := v.SetCurrent(*rec); err != nil {
			return Object{}, err
		}
		return *rec, nil
	}
}

// dropNull removes the key's noncurrent null version, if it has one, and
// appends it to *dropped.
func dropNull(v *metadata.Versions, dropped *[]Object) error {
	o, current, err := v.Find(metadata.NullVersion)
	if errors.Is(err, metadata.ErrNoSuchVersion) || (err == nil && current) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := v.DropNoncurrent(o.Seq); err != nil {
		return err
	}
	*dropped = append(*dropped, o)
	return nil
}

// removeDropped removes the files of versions an edit removed from the
// index. A failure leaves an orphan file in the versions area, which fsck
// reports; the versions are gone either way.
func (l *Layer) removeDropped(bucket, key string, dropped []Object) {
	for i := range dropped {
		if dropped[i].Location == metadata.Noncurrent {
			_ = l.fs.RemoveVersion(bucket, key, versionName(&dropped[i]))
		}
	}
}

// promote makes the key's newest noncurrent version current again when
// the key has no current version and that version is not a delete
// marker. It returns the promoted record (its Location is the natural
// path, where the caller moves its file once the edit is committed), or
// nil.
func promote(v *metadata.Versions) (*Object, error) {
	if _, ok, err := v.Current(); err != nil || ok {
		return nil, err
	}
	newest, err := v.Noncurrent(1)
	if err != nil || len(newest) == 0 || newest[0].DeleteMarker {
		return nil, err
	}
	p := newest[0]
	if err := v.DropNoncurrent(p.Seq); err != nil {
		return nil, err
	}
	if p.Location == metadata.Noncurrent {
		p.Location = metadata.Natural
	}
	if err := v.SetCurrent(p); err != nil {
		return nil, err
	}
	return &p, nil
}

// restore moves the file of a version just promoted in the index back to
// the key's path, and records where it landed when that is not the
// natural path (a key that collides now is shadowed). A folder marker has
// no file to move.
func (l *Layer) restore(bucket, key string, p *Object) error {
	var loc storage.Location
	var fi storage.FileInfo
	var err error
	if p.Location == metadata.Directory {
		// A folder marker has no bytes to move: its directory is made
		// again, as a PUT of the key would (the marker's delete may have
		// removed it).
		loc, fi, err = l.remakeDirectory(bucket, key)
	} else {
		loc, fi, err = l.fs.Restore(bucket, key, versionName(p), locked(p))
	}
	if err != nil {
		return mapErr(err)
	}
	// On a stamping index the record is written again even when it
	// still describes the file: the move took the file's stamp away
	// (storage.FS.Restore), and the write gives it the record's.
	if toIndex(loc) == p.Location && fi.Inode == p.FileInode && fi.Mtime == p.FileMtime && !l.ix.Stamping() {
		return nil
	}
	return l.ix.EditVersions(bucket, key, func(v *metadata.Versions) error {
		cur, ok, err := v.Current()
		if err != nil || !ok || cur.Seq != p.Seq {
			return err
		}
		cur.Location, cur.FileInode, cur.FileMtime = toIndex(loc), fi.Inode, fi.Mtime
		return v.SetCurrent(cur)
	})
}

// remakeDirectory makes the directory of a folder marker ("dir/") that
// became current again, as a PUT of zero bytes does.
func (l *Layer) remakeDirectory(bucket, key string) (storage.Location, storage.FileInfo, error) {
	up, err := l.fs.NewUpload()
	if err != nil {
		return 0, storage.FileInfo{}, err
	}
	defer up.Abort()
	return up.Commit(bucket, key, storage.Directory)
}

// RemoveInput is one DeleteObject.
type RemoveInput struct {
	Bucket, Key string
	// VersionID, when set, removes that version ("null" included) instead
	// of writing a delete marker in a versioned bucket.
	VersionID string
	// Conditions make the delete conditional (If-Match and the
	// x-amz-if-match-* headers) and fence it (BucketID).
	Conditions Conditions
	// BypassGovernance is x-amz-bypass-governance-retention from a caller
	// allowed to use it: a version under GOVERNANCE retention may go.
	BypassGovernance bool
}

// Removed says what a DeleteObject did, for its x-amz-version-id and
// x-amz-delete-marker headers.
type Removed struct {
	// VersionID is the version removed or the delete marker written
	// ("null" for the null version), "" in an unversioned bucket.
	VersionID string
	// DeleteMarker is set when a delete marker was written, or the version
	// removed was one.
	DeleteMarker bool
}

// Remove is DeleteObject: in an unversioned bucket it removes the object;
// in a versioned one, without a version id it writes a delete marker (the
// current version, if any, becomes noncurrent; in a suspended bucket the
// null version is replaced), and with one it removes that version, which
// Object Lock may refuse with AccessDenied. Removing a key or a version
// that does not exist succeeds, as in S3, unless a condition asks for it.
// A key S3 could not hold (s3name.ValidKey) is refused without a version
// id.
func (l *Layer) Remove(in RemoveInput) (Removed, error) {
	if in.VersionID != "" {
		if err := checkVersionID(in.VersionID); err != nil {
			return Removed{}, err
		}
	} else if err := s3name.ValidKey(in.Key); err != nil {
		// A delete without a version id writes a delete marker in a
		// versioned bucket, so its key must be one S3 could hold, as a
		// PUT's must (S3 answers KeyTooLongError). A delete by id removes
		// a record the index already holds, whatever its key.
		return Removed{}, err
	}
	release, st, err := l.enter(in.Bucket, in.Conditions.BucketID, in.Key)
	if err != nil {
		return Removed{}, err
	}
	defer release()
	switch {
	case in.VersionID != "" && (st.Versioned() || in.VersionID != metadata.NullVersion):
		return l.removeVersion(in)
	case st.Versioned():
		return l.writeMarker(st, in)
	}
	return Removed{}, l.removeCurrent(in.Bucket, in.Key, in.Conditions)
}

// removeCurrent removes an unversioned bucket's object. The file goes
// first: a crash in between leaves a record whose file is missing, which
// the next read drops.
func (l *Layer) removeCurrent(bucket, key string, cond Conditions) error {
	rec, err := l.ix.Object(bucket, key)
	if errors.Is(err, metadata.ErrNoSuchKey) {
		return keyErr(cond.check(nil), bucket, key)
	}
	if err != nil {
		return keyErr(err, bucket, key)
	}
	if err := cond.check(&rec); err != nil {
		return err
	}
	if err := l.fs.Remove(bucket, key, toStorage(rec.Location)); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return mapErr(err)
	}
	if err := l.ix.DeleteObject(bucket, key); err != nil && !errors.Is(err, metadata.ErrNoSuchKey) {
		return keyErr(err, bucket, key)
	}
	return nil
}

// writeMarker is DeleteObject without a version id in a versioned bucket.
func (l *Layer) writeMarker(st metadata.BucketState, in RemoveInput) (Removed, error) {
	bucket, key := in.Bucket, in.Key
	cur, err := l.ix.Object(bucket, key)
	has := err == nil
	switch {
	case errors.Is(err, metadata.ErrNoSuchKey):
		if err := in.Conditions.check(nil); err != nil {
			return Removed{}, keyErr(err, bucket, key)
		}
	case err != nil:
		return Removed{}, keyErr(err, bucket, key)
	default:
		if err := in.Conditions.check(&cur); err != nil {
			return Removed{}, err
		}
	}
	enabled := st.Versioning == metadata.VersioningEnabled
	demote := has && (enabled || cur.VersionID != "")
	// found is the current file as it is when a demotion keeps bytes
	// replaced behind the gateway's back: the noncurrent version
	// describes them as a read would (refresh).
	var found *storage.FileInfo
	if demote && cur.Location != metadata.Directory {
		if fi, ok := l.fs.Identify(bucket, key, toStorage(cur.Location)); ok && !matches(&cur, fi) {
			found = &fi
		}
	}
	// moved is the error of the file's move alone: a key without a
	// current version (none yet, or a marker on top) has no file to move,
	// and still gets its marker, as in S3.
	var moved error
	switch {
	case demote:
		moved = l.fs.Demote(bucket, key, toStorage(cur.Location), versionName(&cur), locked(&cur))
	case has:
		// A suspended bucket's null version is replaced by the marker. Its
		// file leaves the key's path the same way, and goes only once the
		// index no longer names it (below).
		moved = l.fs.Demote(bucket, key, toStorage(cur.Location), versionName(&cur), locked(&cur))
	}
	if moved != nil && !errors.Is(moved, storage.ErrNotFound) {
		return Removed{}, mapErr(moved)
	}
	if demote && moved != nil && cur.Location != metadata.Directory {
		// The current file was removed behind the gateway's back: its
		// version has no bytes to keep and goes, as a read would drop it
		// (vanished), instead of staying as a noncurrent version no GET
		// can serve.
		demote = false
	}
	var marker Object
	var dropped []Object
	err = l.ix.EditVersions(bucket, key, func(v *metadata.Versions) error {
		dropped = dropped[:0]
		c, ok, err := v.Current()
		if err != nil {
			return err
		}
		if ok {
			if demote {
				if found != nil {
					describeFile(&c, *found)
				}
				c.Location = demoted(c.Location)
				if err := v.PutNoncurrent(c); err != nil {
					return err
				}
			}
			if err := v.DropCurrent(); err != nil {
				return err
			}
		}
		if !enabled {
			if err := dropNull(v, &dropped); err != nil {
				return err
			}
		}
		seq, id, err := v.NewVersion()
		if err != nil {
			return err
		}
		marker = Object{Key: key, DeleteMarker: true, Seq: seq, LastModified: l.now().UTC()}
		if enabled {
			marker.VersionID = id
		}
		if l.failStore != nil {
			if err := l.failStore(marker); err != nil {
				return err
			}
		}
		return v.PutNoncurrent(marker)
	})
	if err != nil {
		if has && moved == nil && cur.Location != metadata.Directory {
			// The index still holds the version as current: its file goes
			// back to the key's path.
			_, _, _ = l.fs.Restore(bucket, key, versionName(&cur), locked(&cur))
		}
		return Removed{}, keyErr(err, bucket, key)
	}
	if has && !demote && moved == nil {
		replaced := cur
		replaced.Location = demoted(cur.Location)
		dropped = append(dropped, replaced)
	}
	l.removeDropped(bucket, key, dropped)
	return Removed{VersionID: shownID(&marker), DeleteMarker: true}, nil
}

// removeVersion is DeleteObject with a version id.
func (l *Layer) removeVersion(in RemoveInput) (Removed, error) {
	bucket, key, id := in.Bucket, in.Key, in.VersionID
	var target Object
	var current bool
	err := l.ix.ViewVersions(bucket, key, func(v *metadata.Versions) error {
		var err error
		target, current, err = v.Find(id)
		return err
	})
	if errors.Is(err, metadata.ErrNoSuchVersion) {
		// S3 answers the delete of a version that is not there (any
		// more) as done.
		return Removed{VersionID: id}, nil
	}
	if err != nil {
		return Removed{}, keyErr(err, bucket, key)
	}
	if err := in.Conditions.check(&target); err != nil {
		return Removed{}, err
	}
	if err := objectlock.CheckRemove(retentionOf(&target), target.LegalHold, in.BypassGovernance, l.now()); err != nil {
		return Removed{}, err
	}
	out := Removed{VersionID: shownID(&target), DeleteMarker: target.DeleteMarker}
	if current {
		// The file goes first, as in an unversioned bucket; then the
		// record, and the newest noncurrent version, if it is not a
		// marker, becomes current again.
		if locked(&target) {
			_ = l.fs.SetImmutable(bucket, key, toStorage(target.Location), "", false)
		}
		if err := l.fs.Remove(bucket, key, toStorage(target.Location)); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return Removed{}, mapErr(err)
		}
	}
	var promoted *Object
	err = l.ix.EditVersions(bucket, key, func(v *metadata.Versions) error {
		promoted = nil
		o, cur, err := v.Find(id)
		if errors.Is(err, metadata.ErrNoSuchVersion) {
			return nil
		}
		if err != nil {
			return err
		}
		if cur {
			err = v.DropCurrent()
		} else {
			err = v.DropNoncurrent(o.Seq)
		}
		if err != nil {
			return err
		}
		promoted, err = promote(v)
		return err
	})
	if err != nil {
		return Removed{}, keyErr(err, bucket, key)
	}
	if !current && !target.DeleteMarker && target.Location == metadata.Noncurrent {
		// The version is gone from the index; a file that cannot be
		// removed is an orphan that fsck reports.
		_ = l.fs.RemoveVersion(bucket, key, versionName(&target))
	}
	if promoted != nil {
		// A promoted version whose file is gone behind the gateway's
		// back does not undo the delete: the next read drops it
		// (vanished).
		if err := l.restore(bucket, key, promoted); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return Removed{}, err
		}
	}
	return out, nil
}

// Version returns the record of one version of a key ("null" included),
// and whether it is the current one: NoSuchVersion when there is none, a
// delete marker's record as it is.
func (l *Layer) Version(bucket, key, id string) (Object, bool, error) {
	if err := checkVersionID(id); err != nil {
		return Object{}, false, err
	}
	var o Object
	var current bool
	err := l.ix.ViewVersions(bucket, key, func(v *metadata.Versions) error {
		var err error
		o, current, err = v.Find(id)
		return err
	})
	if errors.Is(err, metadata.ErrNoSuchVersion) {
		return Object{}, false, versionErr(key, id)
	}
	if err != nil {
		return Object{}, false, keyErr(err, bucket, key)
	}
	return o, current, nil
}

// OpenVersion is OpenObject for one version of a key: id "" is the
// current version. A delete marker answers MethodNotAllowed with its
// headers.
func (l *Layer) OpenVersion(bucket, key, id string) (*Reader, error) {
	if id == "" {
		return l.OpenObject(bucket, key)
	}
	o, current, err := l.Version(bucket, key, id)
	if err != nil {
		return nil, err
	}
	if current {
		r, err := l.OpenObject(bucket, key)
		if err == nil && r.VersionID == o.VersionID {
			return r, nil
		}
		if err == nil {
			r.Close()
		}
	} else {
		r, err := l.openNoncurrentRecord(bucket, key, o)
		if err == nil || s3err.As(err).Code != s3err.NoSuchVersion {
			return r, err
		}
	}
	// The version moved between current and noncurrent while it was
	// opened without the key's lock (a delete marker written or removed,
	// a successor deleted by id), which made it look missing: it is
	// opened again under the lock, when no move is under way.
	return l.openVersionLocked(bucket, key, id)
}

// openVersionLocked is OpenVersion under the key's lock. A current
// version whose file disagrees with its record is left to OpenObject,
// which takes the lock itself to bring the two back together.
func (l *Layer) openVersionLocked(bucket, key, id string) (*Reader, error) {
	unlock, err := l.lockKey(bucket, key)
	if err != nil {
		return nil, err
	}
	o, current, err := l.Version(bucket, key, id)
	if err != nil || !current || o.Location == metadata.Directory {
		defer unlock()
		switch {
		case err != nil:
			return nil, err
		case !current:
			return l.openNoncurrentRecord(bucket, key, o)
		}
		return &Reader{Object: o}, nil
	}
	f, fi, err := l.fs.Open(bucket, key, toStorage(o.Location))
	if err == nil && matches(&o, fi) {
		unlock()
		return &Reader{Object: o, File: f}, nil
	}
	if err == nil {
		f.Close()
	}
	unlock()
	r, err := l.OpenObject(bucket, key)
	if err != nil {
		return nil, err
	}
	if r.VersionID != o.VersionID {
		r.Close()
		return nil, versionErr(key, id)
	}
	return r, nil
}

// openNoncurrentRecord opens the file of a noncurrent version.
func (l *Layer) openNoncurrentRecord(bucket, key string, o Object) (*Reader, error) {
	if o.DeleteMarker {
		return nil, markerErr(&o)
	}
	if o.Location == metadata.Directory {
		return &Reader{Object: o}, nil
	}
	f, fi, err := l.fs.OpenVersion(bucket, key, versionName(&o))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, versionErr(key, shownID(&o))
	}
	if err != nil {
		return nil, mapErr(err)
	}
	if fi.Size != fileSize(&o) {
		f.Close()
		return nil, s3err.Newf(s3err.InternalError, "the file of version %s of %q changed behind the gateway", shownID(&o), key)
	}
	return &Reader{Object: o, File: f}, nil
}

// StatVersion is StatObject for one version of a key (HeadObject,
// GetObjectAttributes with a versionId).
func (l *Layer) StatVersion(bucket, key, id string) (Object, error) {
	if id == "" {
		return l.StatObject(bucket, key)
	}
	o, current, err := l.Version(bucket, key, id)
	if err != nil {
		return Object{}, err
	}
	if current {
		c, err := l.StatObject(bucket, key)
		if err == nil && c.VersionID == o.VersionID {
			return c, nil
		}
		if o, current, err = l.Version(bucket, key, id); err != nil {
			return Object{}, err
		}
		if current {
			return o, nil
		}
	}
	if o.DeleteMarker {
		return Object{}, markerErr(&o)
	}
	if o.Location == metadata.Noncurrent {
		if _, ok := l.fs.IdentifyVersion(bucket, key, versionName(&o)); !ok {
			// The version may have become current meanwhile, its file
			// moved back to the key's path: decided again under the
			// key's lock.
			return l.statVersionLocked(bucket, key, id)
		}
	}
	return o, nil
}

// statVersionLocked is StatVersion under the key's lock, when no move of
// the key's files is under way.
func (l *Layer) statVersionLocked(bucket, key, id string) (Object, error) {
	unlock, err := l.lockKey(bucket, key)
	if err != nil {
		return Object{}, err
	}
	defer unlock()
	o, current, err := l.Version(bucket, key, id)
	switch {
	case err != nil:
		return Object{}, err
	case o.DeleteMarker:
		return Object{}, markerErr(&o)
	case current || o.Location != metadata.Noncurrent:
		return o, nil
	}
	if _, ok := l.fs.IdentifyVersion(bucket, key, versionName(&o)); !ok {
		return Object{}, versionErr(key, shownID(&o))
	}
	return o, nil
}

// UpdateVersion changes the record of one version of a key ("" for the
// current one) in one index transaction, under the key's lock: fn edits
// it in place and may refuse with an error. A delete marker answers
// MethodNotAllowed. It returns the record as stored.
func (l *Layer) UpdateVersion(bucket, key, id string, cond Conditions, fn func(st metadata.BucketState, o *Object) error) (Object, error) {
	return l.updateVersion(bucket, key, id, cond, fn, nil)
}

// updateVersion is UpdateVersion; after, when set, runs once the record
// is stored, still under the key's lock, with the record and whether it
// is the current version: no other write of the key can move or replace
// the version's file before it is done.
func (l *Layer) updateVersion(bucket, key, id string, cond Conditions, fn func(st metadata.BucketState, o *Object) error, after func(o *Object, current bool)) (Object, error) {
	if id != "" {
		if err := checkVersionID(id); err != nil {
			return Object{}, err
		}
	}
	release, st, err := l.enter(bucket, cond.BucketID, key)
	if err != nil {
		return Object{}, err
	}
	defer release()
	var out Object
	var outCurrent bool
	err = l.ix.EditVersions(bucket, key, func(v *metadata.Versions) error {
		var o Object
		var current bool
		var err error
		if id == "" {
			o, current, err = v.Current()
			if err == nil && !current {
				err = metadata.ErrNoSuchKey
			}
		} else {
			o, current, err = v.Find(id)
		}
		if err != nil {
			return err
		}
		if o.DeleteMarker {
			return markerErr(&o)
		}
		if err := fn(st, &o); err != nil {
			return err
		}
		out, outCurrent = o, current
		if current {
			return v.SetCurrent(o)
		}
		return v.PutNoncurrent(o)
	})
	switch {
	case errors.Is(err, metadata.ErrNoSuchVersion):
		return Object{}, versionErr(key, id)
	case errors.Is(err, metadata.ErrNoSuchKey):
		return Object{}, l.noSuchKey(bucket, key, err)
	case err != nil:
		return Object{}, keyErr(err, bucket, key)
	}
	if after != nil {
		after(&out, outCurrent)
	}
	return out, nil
}

// PutRetention sets the retention of one version ("" the current one)
// (PutObjectRetention) under S3's rules (objectlock.CheckChange): a
// COMPLIANCE retention is only ever extended; a GOVERNANCE one is
// shortened, removed or made COMPLIANCE only with bypassGovernance. The
// bucket must have Object Lock (InvalidRequest otherwise). The version's
// file gets or loses the immutable flag to match.
func (l *Layer) PutRetention(bucket, key, id string, r objectlock.Retention, bypassGovernance bool, cond Conditions) (Object, error) {
	return l.updateVersion(bucket, key, id, cond, func(st metadata.BucketState, o *Object) error {
		if !st.ObjectLock {
			return s3err.Newf(s3err.InvalidRequest, "Bucket is missing Object Lock Configuration")
		}
		if err := objectlock.CheckChange(retentionOf(o), r, bypassGovernance, l.now()); err != nil {
			return err
		}
		o.LockMode, o.LockUntil = string(r.Mode), r.Until.UTC()
		if r.Mode == "" {
			o.LockUntil = time.Time{}
		}
		return nil
	}, l.flagFunc(bucket, key))
}

// PutLegalHold sets or clears the legal hold of one version ("" the
// current one) (PutObjectLegalHold). The bucket must have Object Lock.
func (l *Layer) PutLegalHold(bucket, key, id string, on bool, cond Conditions) (Object, error) {
	return l.updateVersion(bucket, key, id, cond, func(st metadata.BucketState, o *Object) error {
		if !st.ObjectLock {
			return s3err.Newf(s3err.InvalidRequest, "Bucket is missing Object Lock Configuration")
		}
		o.LegalHold = on
		return nil
	}, l.flagFunc(bucket, key))
}

// flagFunc is flag of bucket/key as updateVersion's after: the flag is
// set or cleared under the key's lock. Set after the lock is released, a
// write of the key that came in between could have moved the version's
// file away and put its own at the key's path, which would then bear the
// flag its record does not have (and refuse every later move with EPERM).
func (l *Layer) flagFunc(bucket, key string) func(o *Object, current bool) {
	return func(o *Object, current bool) {
		if l.beforeFlag != nil {
			l.beforeFlag()
		}
		l.flag(bucket, key, o, current)
	}
}

// flag gives a version's file the immutable flag while its retention or
// legal hold protects it, and takes it off otherwise. A version whose
// retention expires keeps the flag until the gateway next changes or
// removes it: retention is lifted lazily, without timers.
func (l *Layer) flag(bucket, key string, o *Object, current bool) {
	if objectlock.Protected(retentionOf(o), o.LegalHold, l.now()) {
		l.protect(bucket, key, o, current)
		return
	}
	l.unprotect(bucket, key, o, current)
}

// ImmutableSupport reports whether the files of locked versions get the
// filesystem's immutable flag, and if not, why.
func (l *Layer) ImmutableSupport() (bool, string) { return l.fs.ImmutableSupport() }

// BucketState returns what writes read of a bucket: its identity,
// versioning state and Object Lock configuration.
func (l *Layer) BucketState(bucket string) (metadata.BucketState, error) {
	st, err := l.ix.BucketState(bucket)
	return st, bucketErr(err, bucket)
}

// ListVersions returns one page of ListObjectVersions.
func (l *Layer) ListVersions(bucket string, q metadata.VersionQuery) (metadata.VersionPage, error) {
	page, err := l.ix.ListVersions(bucket, q)
	return page, bucketErr(err, bucket)
}

// SetVersioning sets a bucket's versioning state (PutBucketVersioning):
// metadata.VersioningEnabled or metadata.VersioningSuspended. A bucket
// with Object Lock cannot be suspended (InvalidBucketState).
func (l *Layer) SetVersioning(bucket string, id uint64, status string) error {
	return l.UpdateBucket(bucket, id, func(b *Bucket) error {
		if b.ObjectLock && status != metadata.VersioningEnabled {
			return s3err.Newf(s3err.InvalidBucketState, "An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.")
		}
		b.Versioning = status
		return nil
	})
}

// SetObjectLock enables Object Lock on a bucket whose versioning is
// Enabled, with a default retention (zero for none)
// (PutObjectLockConfiguration). Object Lock is never disabled again.
func (l *Layer) SetObjectLock(bucket string, id uint64, d objectlock.Default) error {
	return l.UpdateBucket(bucket, id, func(b *Bucket) error {
		if !b.ObjectLock && b.Versioning != metadata.VersioningEnabled {
			return s3err.Newf(s3err.InvalidBucketState, "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration")
		}
		b.ObjectLock = true
		b.LockMode, b.LockDays, b.LockYears = string(d.Mode), d.Days, d.Years
		return nil
	})
}

// Lock is the Object Lock state a write gives its new version
// (x-amz-object-lock-* headers); zero takes the bucket's default
// retention.
type Lock struct {
	Retention objectlock.Retention
	LegalHold bool
}

// applyLock gives rec the lock of a write to a bucket of state st: the
// write's own, or the bucket's default retention. Lock headers on a bucket
// without Object Lock are refused, as S3 does.
func applyLock(st metadata.BucketState, lock Lock, rec *Object) error {
	if lock.Retention.Mode != "" || lock.LegalHold {
		if !st.ObjectLock {
			return s3err.Newf(s3err.InvalidRequest, "Bucket is missing Object Lock Configuration")
		}
	}
	rec.LockMode, rec.LockUntil, rec.LegalHold = "", time.Time{}, lock.LegalHold
	switch {
	case lock.Retention.Mode != "":
		rec.LockMode, rec.LockUntil = string(lock.Retention.Mode), lock.Retention.Until.UTC()
	case st.ObjectLock && st.LockMode != "":
		d := objectlock.Default{Mode: objectlock.Mode(st.LockMode), Days: st.LockDays, Years: st.LockYears}
		rec.LockMode, rec.LockUntil = st.LockMode, d.Until(rec.LastModified).UTC()
	}
	return nil
}

// protect sets the immutable flag on the file of a version under Object
// Lock, where the filesystem and the gateway's privilege allow it; a
// failure leaves the index's protection, which every path checks.
func (l *Layer) protect(bucket, key string, o *Object, current bool) {
	if locked(o) {
		l.setImmutable(bucket, key, o, current, true)
	}
}

// unprotect clears the immutable flag of a version whose retention and
// legal hold no longer hold.
func (l *Layer) unprotect(bucket, key string, o *Object, current bool) {
	l.setImmutable(bucket, key, o, current, false)
}

// setImmutable sets or clears the immutable flag of a version's file
// (current: at the key's path; otherwise in the versions area). A folder
// marker has no file, and without ImmutableSupport nothing is tried.
func (l *Layer) setImmutable(bucket, key string, o *Object, current, on bool) {
	if o.Location == metadata.Directory {
		return
	}
	if ok, _ := l.fs.ImmutableSupport(); !ok {
		return
	}
	loc, vid := toStorage(o.Location), ""
	if !current {
		loc, vid = storage.Noncurrent, versionName(o)
	}
	_ = l.fs.SetImmutable(bucket, key, loc, vid, on)
}

// recoverCurrent brings a versioned key's files back to what its current
// record says, when a read found the record's file missing or replaced
// (see the order of moves above). The caller holds the key's lock. It
// reports whether it changed anything; the caller then reads again.
func (l *Layer) recoverCurrent(bucket, key string, rec *Object, missing bool) (bool, error) {
	if rec.Location == metadata.Directory {
		return false, nil
	}
	fi, ok := l.fs.IdentifyVersion(bucket, key, versionName(rec))
	if !ok || fi.Inode != rec.FileInode {
		return false, nil
	}
	if missing {
		// A delete that moved the file away did not commit, or a
		// promotion did and its move did not happen: the file goes back,
		// and the record says where it landed, which is the shadow path
		// for a key the natural path cannot hold (a promotion records the
		// natural path until its move).
		if err := l.restore(bucket, key, rec); err != nil {
			return false, err
		}
		return true, nil
	}
	// A write linked the current file into the versions area and renamed
	// its own over it, and did not commit: the version it replaced stays
	// as noncurrent, and the file at the key's path is adopted as a new
	// version, as any file written behind the gateway's back.
	st, err := l.ix.BucketState(bucket)
	if err != nil {
		return false, bucketErr(err, bucket)
	}
	cfi, ok := l.fs.Identify(bucket, key, toStorage(rec.Location))
	if !ok {
		return false, nil
	}
	fresh := *rec
	fresh.Size, fresh.FileMtime, fresh.FileInode = plainSize(rec, cfi.Size), cfi.Mtime, cfi.Inode
	fresh.LastModified = time.Unix(0, cfi.Mtime).UTC()
	fresh.ETag = FileETag(cfi)
	fresh.Checksums, fresh.PartsCount, fresh.Parts = nil, 0, nil
	fresh.LockMode, fresh.LockUntil, fresh.LegalHold = "", time.Time{}, false
	var dropped []Object
	err = l.ix.EditVersions(bucket, key, func(v *metadata.Versions) error {
		_, err := newVersion(st, &fresh, &dropped)(v)
		return err
	})
	if err != nil {
		return false, keyErr(err, bucket, key)
	}
	l.removeDropped(bucket, key, dropped)
	return true, nil
}
