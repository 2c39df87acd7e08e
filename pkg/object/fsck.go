package object

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/storage"
)

// ProblemKind names one kind of inconsistency Fsck finds.
type ProblemKind string

// The kinds of problems Fsck reports. Those marked "repairable" are fixed
// by FsckOptions.Repair; the others are only reported.
const (
	// MissingFile is a record whose file (or folder directory) is gone.
	// Repairable: the record is dropped, as a read would drop it.
	MissingFile ProblemKind = "missing-file"
	// ChangedFile is a record whose file's size, mtime or inode differ.
	// Repairable: the record is refreshed, as a read would refresh it.
	ChangedFile ProblemKind = "changed-file"
	// UntrackedFile is a file under a bucket that no record describes.
	// Reported only: fsck never deletes user files; scan imports them.
	UntrackedFile ProblemKind = "untracked-file"
	// UnindexedBucket is a top-level directory with a valid bucket name
	// that the index does not know. Reported only; scan imports it.
	UnindexedBucket ProblemKind = "unindexed-bucket"
	// MissingBucketDir is a bucket record whose directory is missing.
	// Reported only: the directory may be an unmounted filesystem.
	MissingBucketDir ProblemKind = "missing-bucket-dir"
	// StagingLeftover is a temp file in the staging area, left by an
	// upload a crash interrupted. Repairable: it is removed.
	StagingLeftover ProblemKind = "staging-leftover"
	// OrphanParts is a multipart part directory whose upload has no
	// record. Repairable: it is removed.
	OrphanParts ProblemKind = "orphan-parts"
	// OrphanShadow is a file in the shadow area that no record points at.
	// Repairable: it is removed.
	OrphanShadow ProblemKind = "orphan-shadow"
	// MissingPart is a part record of an upload in progress whose file is
	// missing or has the wrong size. Reported only: aborting the upload
	// is the client's decision.
	MissingPart ProblemKind = "missing-part"
	// Unreadable is an entry fsck could not examine (permissions, a link
	// leaving its bucket, I/O errors). Reported only.
	Unreadable ProblemKind = "unreadable"
	// InterruptedMove is a versioned key whose current file is missing or
	// replaced while the current record's file is in the versions area: a
	// move between the two that a crash cut short (versions.go).
	// Repairable: the move is finished as the next read would finish it.
	InterruptedMove ProblemKind = "interrupted-move"
	// MissingVersion is a noncurrent version's record whose file is not
	// in the versions area. Repairable: the record is dropped, unless the
	// version is under retention or legal hold, whose records fsck never
	// drops (the problem then stays, reported as kept).
	MissingVersion ProblemKind = "missing-version"
	// ChangedVersion is a noncurrent version whose file's size or inode
	// differ from its record. Reported only: the bytes are not the
	// version's, and fsck cannot tell whose they are.
	ChangedVersion ProblemKind = "changed-version"
	// OrphanVersion is a file in the versions area that no record names:
	// a version whose record is gone, or a link a write left before its
	// rename. Repairable: it is removed, its immutable flag cleared first.
	OrphanVersion ProblemKind = "orphan-version"
	// VersionOrder is a key whose versions break an invariant of the
	// index: a delete marker or version newer than the current version,
	// or more than one null version. Reported only.
	VersionOrder ProblemKind = "version-order"
)

// repairable reports whether Fsck with Repair fixes problems of kind k.
func (k ProblemKind) repairable() bool {
	switch k {
	case MissingFile, ChangedFile, StagingLeftover, OrphanParts, OrphanShadow,
		InterruptedMove, MissingVersion, OrphanVersion:
		return true
	}
	return false
}

// Problem is one inconsistency.
type Problem struct {
	Kind ProblemKind
	// Bucket and Key name the object, or Bucket the bucket; Name is the
	// entry in the state directory (staging file, upload id, shadow file).
	Bucket, Key, Name string
	// Detail explains the problem in words.
	Detail string
	// Repaired is set when Repair fixed it.
	Repaired bool
}

func (p Problem) String() string {
	s := string(p.Kind)
	switch {
	case p.Key != "":
		s += fmt.Sprintf(" %s/%q", p.Bucket, p.Key)
	case p.Bucket != "" && p.Name != "":
		s += fmt.Sprintf(" %s %s", p.Bucket, p.Name)
	case p.Bucket != "":
		s += " " + p.Bucket
	case p.Name != "":
		s += " " + p.Name
	}
	if p.Detail != "" {
		s += ": " + p.Detail
	}
	if p.Repaired {
		s += " (repaired)"
	}
	return s
}

// FsckOptions configure Fsck. The zero value only reports.
type FsckOptions struct {
	// Repair fixes the repairable problems (see ProblemKind). Without it
	// Fsck changes nothing.
	Repair bool
}

// FsckReport is what Fsck found.
type FsckReport struct {
	Problems []Problem
	// Records, Files, Uploads and ShadowFiles count what was examined;
	// Versions counts the noncurrent versions and delete markers, and
	// VersionFiles the files in the versions area.
	Records, Files, Uploads, ShadowFiles int64
	Versions, VersionFiles               int64
	// Skipped counts entries under buckets that cannot be objects
	// (symbolic links leaving their bucket or to directories, FIFOs).
	Skipped int64
	Elapsed time.Duration
}

// Unrepaired counts the problems that remain: all of them without Repair,
// the reported-only ones and failed repairs with it.
func (r *FsckReport) Unrepaired() int {
	n := 0
	for _, p := range r.Problems {
		if !p.Repaired {
			n++
		}
	}
	return n
}

// Count returns how many problems of kind k were found.
func (r *FsckReport) Count(k ProblemKind) int {
	n := 0
	for _, p := range r.Problems {
		if p.Kind == k {
			n++
		}
	}
	return n
}

// OpenExclusive opens the layer for an offline tool (scan, fsck): the
// index first, so that a gateway running on the same root (which holds
// the index's lock) is detected before anything under the root is
// touched, then the root without clearing the staging area, so fsck can
// report its leftovers. The root and its index must exist.
//
// A shared catalogue (Options.Index) has no file lock: it is taken for
// the tool alone (metadata.Index.Exclusive), which fails while any
// gateway serves it.
func OpenExclusive(o Options) (*Layer, error) {
	ix, err := openIndex(o)
	if err != nil {
		return nil, err
	}
	if err := ix.Exclusive(); err != nil {
		ix.Close()
		return nil, err
	}
	abs, err := filepath.Abs(o.Root)
	if err != nil {
		ix.Close()
		return nil, err
	}
	fsys, err := storage.OpenInspect(abs)
	if err != nil {
		ix.Close()
		return nil, err
	}
	stamps, err := toolStamping(ix, fsys)
	if err != nil {
		ix.Close()
		fsys.Close()
		return nil, err
	}
	return assemble(o, fsys, ix, stamps), nil
}

// Fsck checks the index against the files and the state directory:
// records whose file is missing or changed, files no record describes,
// leftover staging files, part directories of uploads that do not exist,
// part records whose file is missing, shadow files no record points at,
// and in versioned buckets the versions (fsck_versions.go). Without Repair
// it changes nothing; with it, it fixes what it safely can and reports
// the rest. It never deletes a file under a bucket, nor the record of a
// version under retention or legal hold.
//
// Fsck must run without a gateway serving the same root (OpenExclusive
// ensures it): staging files of uploads in flight would look like
// leftovers.
func (l *Layer) Fsck(o FsckOptions) (FsckReport, error) {
	start := time.Now()
	f := fsck{l: l, o: o}
	steps := []func() error{f.staging, f.buckets, f.shadow, f.versionArea, f.multipart}
	for _, step := range steps {
		if err := step(); err != nil {
			return f.rep, err
		}
	}
	f.rep.Elapsed = time.Since(start)
	return f.rep, nil
}

type fsck struct {
	l   *Layer
	o   FsckOptions
	rep FsckReport
	// shadowed holds, per bucket, the shadow names of records stored in
	// the shadow area; nil for a bucket the index does not know.
	shadowed map[string]map[string]bool
	// vnames holds, per versioned bucket, what the records say of the
	// files in its versions area (fsck_versions.go).
	vnames map[string]*versionNames
	// pending are the repairs that move files into a bucket, run once its
	// walk is over so that the walk never meets a file twice.
	pending []pendingFix
}

// pendingFix is a problem whose repair waits for the end of a walk.
type pendingFix struct {
	p      Problem
	repair func() error
}

// fixLater is fix, run when the current bucket's walk is over.
func (f *fsck) fixLater(p Problem, repair func() error) {
	f.pending = append(f.pending, pendingFix{p, repair})
}

func (f *fsck) add(p Problem) {
	f.rep.Problems = append(f.rep.Problems, p)
}

// fix runs repair when Repair is set and records the outcome in p.
func (f *fsck) fix(p Problem, repair func() error) {
	if f.o.Repair && p.Kind.repairable() {
		if err := repair(); err != nil {
			p.Detail += "; repair failed: " + err.Error()
		} else {
			p.Repaired = true
		}
	}
	f.add(p)
}

func (f *fsck) staging() error {
	names, err := f.l.fs.StagingFiles()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	var cleared error
	if f.o.Repair {
		cleared = f.l.fs.ClearStaging()
	}
	for _, n := range names {
		f.fix(Problem{Kind: StagingLeftover, Name: n, Detail: "temp file of an interrupted upload"}, func() error { return cleared })
	}
	return nil
}

func (f *fsck) buckets() error {
	known, err := f.l.ix.Buckets()
	if err != nil {
		return err
	}
	dirs, err := f.l.fs.BucketDirs()
	if err != nil {
		return err
	}
	onDisk := map[string]bool{}
	for _, d := range dirs {
		onDisk[d] = true
	}
	indexed := map[string]bool{}
	f.shadowed = map[string]map[string]bool{}
	f.vnames = map[string]*versionNames{}
	for _, b := range known {
		indexed[b.Name] = true
		f.shadowed[b.Name] = map[string]bool{}
		if !onDisk[b.Name] {
			f.add(Problem{Kind: MissingBucketDir, Bucket: b.Name, Detail: "bucket directory missing; records kept"})
			continue
		}
		if err := f.bucket(b.Name); err != nil {
			return err
		}
	}
	for _, d := range dirs {
		if !indexed[d] && s3name.ValidExistingBucketName(d) == nil {
			f.add(Problem{Kind: UnindexedBucket, Bucket: d, Detail: "directory not in the index (run scan to import it)"})
		}
	}
	return nil
}

func (f *fsck) bucket(bucket string) error {
	st, err := f.l.ix.BucketState(bucket)
	if err != nil {
		return err
	}
	// Entries the walk does not yield (links that leave the bucket or
	// point at directories, FIFOs) are not objects and not problems.
	skip := func(string, error) { f.rep.Skipped++ }
	var names *versionNames
	if st.Versioned() {
		names = newVersionNames()
		f.vnames[bucket] = names
	}
	err = f.l.mergeBucket(bucket, skip, func(key string, rec *Object, fi *storage.FileInfo) error {
		if fi != nil {
			f.rep.Files++
		}
		if rec == nil {
			f.add(Problem{Kind: UntrackedFile, Bucket: bucket, Key: key, Detail: "no index record (run scan to import it)"})
			return nil
		}
		f.rep.Records++
		if rec.Location == metadata.Shadow {
			f.shadowed[bucket][storage.ShadowName(bucket, key)] = true
		}
		cur := fi
		if rec.Location != metadata.Natural || fi == nil {
			fi, err := f.l.fs.Stat(bucket, key, toStorage(rec.Location))
			switch {
			case errors.Is(err, storage.ErrNotFound):
				if names != nil {
					f.missingCurrent(bucket, key, rec, names)
					return nil
				}
				p := Problem{Kind: MissingFile, Bucket: bucket, Key: key, Detail: "the record's " + toStorage(rec.Location).String() + " file is missing"}
				f.fix(p, func() error { return f.l.ix.DeleteObject(bucket, key) })
				return nil
			case err != nil:
				f.add(Problem{Kind: Unreadable, Bucket: bucket, Key: key, Detail: err.Error()})
				return nil
			}
			cur = &fi
		}
		if rec.Location == metadata.Directory || matches(rec, *cur) {
			return nil
		}
		if names != nil && f.interruptedMove(bucket, key, rec, names, false) {
			return nil
		}
		p := Problem{Kind: ChangedFile, Bucket: bucket, Key: key,
			Detail: fmt.Sprintf("record size %d mtime %d inode %d, file size %d mtime %d inode %d",
				rec.Size, rec.FileMtime, rec.FileInode, cur.Size, cur.Mtime, cur.Inode)}
		fi2 := *cur
		f.fix(p, func() error { _, err := f.l.refresh(bucket, key, fi2); return err })
		return nil
	})
	if err != nil {
		return err
	}
	pending := f.pending
	f.pending = nil
	for _, pf := range pending {
		f.fix(pf.p, pf.repair)
	}
	if names != nil {
		return f.versions(bucket, names)
	}
	return nil
}

func (f *fsck) shadow() error {
	buckets, err := f.l.fs.ShadowBuckets()
	if err != nil {
		return err
	}
	for _, b := range buckets {
		names, known := f.shadowed[b]
		if !known {
			p := Problem{Kind: OrphanShadow, Bucket: b, Detail: "shadow directory of a bucket the index does not know"}
			f.fix(p, func() error { return f.l.fs.RemoveShadowBucket(b) })
			continue
		}
		err := f.l.fs.ShadowFiles(b, func(name string) error {
			f.rep.ShadowFiles++
			if names[name] {
				return nil
			}
			p := Problem{Kind: OrphanShadow, Bucket: b, Name: name, Detail: "no record points at this shadow file"}
			f.fix(p, func() error { return f.l.fs.RemoveShadowFile(b, name) })
			return nil
		})
		if err != nil {
			f.add(Problem{Kind: Unreadable, Bucket: b, Name: "shadow", Detail: err.Error()})
		}
	}
	return nil
}

func (f *fsck) multipart() error {
	ids, err := f.l.fs.PartDirs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if f.l.ix.UploadExists(id) {
			continue
		}
		p := Problem{Kind: OrphanParts, Name: id, Detail: "part directory of an upload that does not exist"}
		f.fix(p, func() error { return f.l.fs.RemoveParts(id) })
	}
	ups, err := f.l.ix.Uploads()
	if err != nil {
		return err
	}
	for _, u := range ups {
		f.rep.Uploads++
		after := 0
		for {
			parts, more, err := f.l.ix.Parts(u.Bucket, u.Key, u.ID, after, 1000)
			if err != nil {
				f.add(Problem{Kind: Unreadable, Bucket: u.Bucket, Key: u.Key, Name: u.ID, Detail: err.Error()})
				break
			}
			for _, part := range parts {
				after = part.Number
				if part.InRegion {
					fi, err := f.l.fs.StatRegion(u.ID)
					if err != nil || fi.Size < part.Offset+part.Size || fi.Inode != part.FileInode {
						f.add(Problem{Kind: MissingPart, Bucket: u.Bucket, Key: u.Key, Name: fmt.Sprintf("%s/%d", u.ID, part.Number), Detail: "region file is missing or too short"})
					}
					continue
				}
				file, err := f.l.fs.OpenPart(u.ID, part.Number)
				if err != nil {
					f.add(Problem{Kind: MissingPart, Bucket: u.Bucket, Key: u.Key, Name: fmt.Sprintf("%s/%d", u.ID, part.Number), Detail: err.Error()})
					continue
				}
				st, err := file.Stat()
				file.Close()
				if err != nil || st.Size() != partFileSize(part) {
					f.add(Problem{Kind: MissingPart, Bucket: u.Bucket, Key: u.Key, Name: fmt.Sprintf("%s/%d", u.ID, part.Number), Detail: "part file has the wrong size"})
				}
			}
			if !more || len(parts) == 0 {
				break
			}
		}
	}
	return nil
}
