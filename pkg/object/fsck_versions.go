package object

import (
	"errors"
	"fmt"
	"strings"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/storage"
)

// This file is fsck of versioned buckets: the current versions whose move
// to or from the versions area a crash cut short, the noncurrent versions'
// records against their files, the order of each key's versions, and the
// files in the versions area no record names.

// versionNames is what one bucket's records say of the files in its
// versions area, by the name storage.FS.VersionFiles reports.
type versionNames struct {
	// noncurrent names the files of noncurrent versions' records.
	noncurrent map[string]bool
	// current names, for each current record, the file its version would
	// have in the versions area, with the key and record.
	current map[string]Object
	// moving names the files of current versions whose move a crash cut
	// short: the repair of the InterruptedMove takes care of them.
	moving map[string]bool
	// keys maps the hash part of a name to its key, for the reports.
	keys map[string]string
}

func newVersionNames() *versionNames {
	return &versionNames{noncurrent: map[string]bool{}, current: map[string]Object{}, moving: map[string]bool{}, keys: map[string]string{}}
}

// name returns the versions-area name of version o of key and records the
// key it belongs to.
func (n *versionNames) name(bucket, key string, o *Object) string {
	name, err := storage.VersionName(bucket, key, versionName(o))
	if err != nil {
		return ""
	}
	if h, _, ok := strings.Cut(name, "."); ok {
		n.keys[h] = key
	}
	return name
}

// protected reports whether a version's record must survive a repair: its
// retention or legal hold holds.
func (f *fsck) protected(o *Object) bool {
	return objectlock.Protected(retentionOf(o), o.LegalHold, f.l.now())
}

// interruptedMove reports an InterruptedMove when the current record's
// file is in the versions area with the record's inode while the key's
// path has no file (missing) or another one, and says whether it did.
func (f *fsck) interruptedMove(bucket, key string, rec *Object, names *versionNames, missing bool) bool {
	if rec.Location == metadata.Directory {
		return false
	}
	vfi, ok := f.l.fs.IdentifyVersion(bucket, key, versionName(rec))
	if !ok || vfi.Inode != rec.FileInode {
		return false
	}
	names.moving[names.name(bucket, key, rec)] = true
	what := "another file is at the key's path"
	if missing {
		what = "the key's path has no file"
	}
	p := Problem{Kind: InterruptedMove, Bucket: bucket, Key: key, Name: shownID(rec),
		Detail: fmt.Sprintf("the current version %s is in the versions area and %s: a move a crash cut short", shownID(rec), what)}
	f.fixLater(p, func() error { return f.finishMove(bucket, key, missing) })
	return true
}

// finishMove repairs an InterruptedMove as a read would: recoverCurrent,
// under the key's lock, on the record as it is now.
func (f *fsck) finishMove(bucket, key string, missing bool) error {
	unlock := f.l.locks.lock(bucket, key)
	defer unlock()
	rec, err := f.l.ix.Object(bucket, key)
	if err != nil {
		return err
	}
	ok, err := f.l.recoverCurrent(bucket, key, &rec, missing)
	if err == nil && !ok {
		err = errors.New("the key no longer matches the interrupted move")
	}
	return err
}

// missingCurrent handles a versioned key's current record whose file is
// missing: an interrupted move, or a file gone, whose repair drops the
// record and makes the newest noncurrent version current, as a read does
// (vanished). The record of a version under retention or legal hold is
// kept.
func (f *fsck) missingCurrent(bucket, key string, rec *Object, names *versionNames) {
	if f.interruptedMove(bucket, key, rec, names, true) {
		return
	}
	p := Problem{Kind: MissingFile, Bucket: bucket, Key: key, Name: shownID(rec),
		Detail: "the record's " + toStorage(rec.Location).String() + " file is missing"}
	if f.protected(rec) {
		p.Detail += "; the record is kept: the version is under retention or legal hold"
		f.add(p)
		return
	}
	f.fixLater(p, func() error {
		unlock := f.l.locks.lock(bucket, key)
		defer unlock()
		err := f.l.vanished(bucket, key)
		if errors.Is(err, metadata.ErrNoSuchKey) {
			// vanished answers as a read: the key is gone, which is the
			// repair.
			return nil
		}
		return err
	})
}

// versions checks the versions of every key of a versioned bucket, in one
// walk of its ListObjectVersions, and notes the files the records name.
func (f *fsck) versions(bucket string, names *versionNames) error {
	q := metadata.VersionQuery{Limit: 1000}
	var k keyVersions
	for {
		page, err := f.l.ix.ListVersions(bucket, q)
		if err != nil {
			return err
		}
		for _, e := range page.Entries {
			if e.Prefix != "" {
				continue
			}
			if e.Key != k.key {
				f.checkOrder(bucket, &k)
				k = keyVersions{key: e.Key}
			}
			f.version(bucket, e, &k, names)
		}
		if !page.Truncated || len(page.Entries) == 0 {
			break
		}
		q.KeyMarker, q.VersionMarker = page.NextKeyMarker, page.NextVersionMarker
	}
	f.checkOrder(bucket, &k)
	return nil
}

// keyVersions is what versions gathered of one key's versions.
type keyVersions struct {
	key string
	// current is the key's current record, if it has one.
	current *Object
	// newer are the noncurrent versions and markers newer than it.
	newer []string
	// nulls counts the null versions, current and noncurrent.
	nulls int
}

// version checks one entry of the listing.
func (f *fsck) version(bucket string, e metadata.VersionEntry, k *keyVersions, names *versionNames) {
	o := e.Object
	if o.VersionID == "" {
		k.nulls++
	}
	if e.IsLatest && !o.DeleteMarker && o.Location != metadata.Noncurrent {
		k.current = &o
		if o.Location != metadata.Directory {
			names.current[names.name(bucket, o.Key, &o)] = o
		}
		return
	}
	f.rep.Versions++
	if k.current != nil && o.Seq > k.current.Seq {
		what := "version"
		if o.DeleteMarker {
			what = "delete marker"
		}
		k.newer = append(k.newer, what+" "+shownID(&o))
	}
	if o.DeleteMarker || o.Location != metadata.Noncurrent {
		return
	}
	names.noncurrent[names.name(bucket, o.Key, &o)] = true
	fi, ok := f.l.fs.IdentifyVersion(bucket, o.Key, versionName(&o))
	switch {
	case !ok:
		p := Problem{Kind: MissingVersion, Bucket: bucket, Key: o.Key, Name: shownID(&o),
			Detail: "the file of noncurrent version " + shownID(&o) + " is missing"}
		if f.protected(&o) {
			p.Detail += "; the record is kept: the version is under retention or legal hold"
			f.add(p)
			return
		}
		f.fix(p, func() error { return f.dropVersion(bucket, o) })
	case fi.Size != fileSize(&o) || fi.Inode != o.FileInode:
		f.add(Problem{Kind: ChangedVersion, Bucket: bucket, Key: o.Key, Name: shownID(&o),
			Detail: fmt.Sprintf("version %s: record size %d inode %d, file size %d inode %d", shownID(&o), o.Size, o.FileInode, fi.Size, fi.Inode)})
	}
}

// checkOrder reports a key whose versions break the index's invariants.
func (f *fsck) checkOrder(bucket string, k *keyVersions) {
	if k.key == "" {
		return
	}
	if len(k.newer) > 0 {
		f.add(Problem{Kind: VersionOrder, Bucket: bucket, Key: k.key,
			Detail: fmt.Sprintf("the current version %s is older than %s", shownID(k.current), strings.Join(k.newer, ", "))})
	}
	if k.nulls > 1 {
		f.add(Problem{Kind: VersionOrder, Bucket: bucket, Key: k.key,
			Detail: fmt.Sprintf("%d null versions; a key has at most one", k.nulls)})
	}
}

// dropVersion removes the record of noncurrent version o, if it is still
// the one fsck saw.
func (f *fsck) dropVersion(bucket string, o Object) error {
	unlock := f.l.locks.lock(bucket, o.Key)
	defer unlock()
	return f.l.ix.EditVersions(bucket, o.Key, func(v *metadata.Versions) error {
		got, current, err := v.Find(shownID(&o))
		if err != nil {
			return err
		}
		if current || got.Seq != o.Seq {
			return errors.New("the version changed meanwhile")
		}
		return v.DropNoncurrent(o.Seq)
	})
}

// versionArea reports the files in the versions area that no record
// names, and with Repair removes them. The files of noncurrent versions'
// records are never touched.
func (f *fsck) versionArea() error {
	buckets, err := f.l.fs.VersionBuckets()
	if err != nil {
		return err
	}
	for _, b := range buckets {
		names := f.vnames[b]
		_, indexed := f.shadowed[b]
		err := f.l.fs.VersionFiles(b, func(name string) error {
			f.rep.VersionFiles++
			if names != nil && (names.noncurrent[name] || names.moving[name]) {
				return nil
			}
			p := Problem{Kind: OrphanVersion, Bucket: b, Name: name, Detail: "no record names this version file"}
			if names != nil {
				if h, _, ok := strings.Cut(name, "."); ok {
					p.Key = names.keys[h]
				}
			}
			switch {
			case !indexed:
				p.Detail = "version file of a bucket the index does not know"
			case names == nil:
				p.Detail = "version file of a bucket that is not versioned"
			}
			if cur, ok := names.currentOf(name); ok {
				// A write linked the current file here and a crash came
				// before its rename: the link shares the current file's
				// inode, whose immutable flag goes back once the link is
				// gone.
				p.Detail = "a link to the current version's file that a write left before its rename"
				f.fix(p, func() error {
					err := f.l.fs.RemoveVersionFile(b, name)
					f.l.protect(b, cur.Key, &cur, true)
					return err
				})
				return nil
			}
			f.fix(p, func() error { return f.l.fs.RemoveVersionFile(b, name) })
			return nil
		})
		if err != nil {
			f.add(Problem{Kind: Unreadable, Bucket: b, Name: "versions", Detail: err.Error()})
			continue
		}
		if !indexed && f.o.Repair {
			_ = f.l.fs.RemoveVersionBucket(b)
		}
	}
	return nil
}

// currentOf returns the current record whose version file would be name.
func (n *versionNames) currentOf(name string) (Object, bool) {
	if n == nil {
		return Object{}, false
	}
	o, ok := n.current[name]
	return o, ok
}
