package object

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"path"
	"time"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
	"github.com/objectgateway/objectgateway/pkg/sse"
	"github.com/objectgateway/objectgateway/storage"
)

// DefaultContentType is the content type of imported files whose
// extension names none, as S3 answers for objects stored without one.
const DefaultContentType = "binary/octet-stream"

// ScanOptions configure Scan. The zero value reconciles every bucket,
// with file-identity ETags, 1000 records per index transaction and no
// progress reports.
type ScanOptions struct {
	// Bucket limits the scan to one bucket ("" means all). Its directory
	// must exist; it becomes a bucket if the index has none of that name.
	Bucket string
	// MD5 reads every new or changed file (and every unchanged one whose
	// ETag is still the file-identity one) to give it its real MD5 as
	// ETag. Without it, imported files get FileETag, which ends in "-1" so
	// that no client mistakes it for an MD5 it could verify.
	MD5 bool
	// BatchSize is how many record changes share one index transaction;
	// 0 means 1000.
	BatchSize int
	// Progress, when set, is called with the work done so far at most
	// once per ProgressInterval, and once more at the end. A quick first
	// pass counts the files so that Total is known.
	Progress func(ScanProgress)
	// ProgressInterval is 250 ms when zero.
	ProgressInterval time.Duration
}

// ScanProgress is a progress report of Scan.
type ScanProgress struct {
	// Files is how many files have been examined so far.
	Files int64
	// Total is the number of files the first pass counted, 0 if unknown.
	Total int64
	// Elapsed is the time since the scan started.
	Elapsed time.Duration
	// Done is set on the final report.
	Done bool
}

// ScanReport says what Scan changed.
type ScanReport struct {
	// BucketsCreated lists the directories that became buckets.
	BucketsCreated []string
	// Added, Updated, Removed and Unchanged count object records: new
	// files, files whose size, mtime or inode changed, records whose file
	// vanished, and records left as they were.
	Added, Updated, Removed, Unchanged int64
	// Skipped counts files that cannot be objects: names that are not
	// valid UTF-8 or longer than 1024 bytes, symbolic links that leave
	// their bucket or point at directories, FIFOs, sockets, devices.
	Skipped int64
	// SkippedDirs lists top-level directories whose names are not valid
	// bucket names; their contents were not examined.
	SkippedDirs []string
	// Errors lists problems that left a record unchanged (a file that
	// could not be read, a bucket directory that is missing).
	Errors []string
	// Files is how many files were examined; Elapsed how long it took.
	Files   int64
	Elapsed time.Duration
}

// maxReportedErrors bounds ScanReport.Errors and Fsck's detail lists.
const maxReportedErrors = 100

func (r *ScanReport) errorf(format string, args ...any) {
	if len(r.Errors) < maxReportedErrors {
		r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
	}
}

// Scan imports or reconciles the tree under the root with the index: each
// top-level directory with a valid bucket name becomes a bucket if it is
// not one, each regular file an object record, records whose file vanished
// are dropped and records of changed files are refreshed. Unchanged records
// are left alone, so a second Scan changes nothing, and an interrupted Scan
// is resumed by running it again: every batch it committed stays.
//
// Scan must not run while the layer serves writes: it does not take the
// per-key locks, so a PUT racing with it could be recorded with the
// scan's view of the file. The scan command opens the root exclusively,
// and serve imports before it starts listening.
func (l *Layer) Scan(o ScanOptions) (ScanReport, error) {
	start := time.Now()
	var rep ScanReport
	buckets, err := l.scanBuckets(o.Bucket, &rep)
	if err != nil {
		return rep, err
	}
	s := scanner{l: l, o: o, rep: &rep, start: start, last: start}
	if s.o.BatchSize <= 0 {
		s.o.BatchSize = 1000
	}
	if s.o.ProgressInterval <= 0 {
		s.o.ProgressInterval = 250 * time.Millisecond
	}
	if o.Progress != nil {
		for _, b := range buckets {
			_ = l.fs.Walk(b, storage.WalkOptions{NoStat: true}, func(string, storage.FileInfo) error {
				s.total++
				return nil
			})
		}
	}
	for _, b := range buckets {
		if err := s.bucket(b); err != nil {
			return rep, err
		}
	}
	rep.Elapsed = time.Since(start)
	if o.Progress != nil {
		o.Progress(ScanProgress{Files: rep.Files, Total: s.total, Elapsed: rep.Elapsed, Done: true})
	}
	return rep, nil
}

// scanBuckets returns the buckets to reconcile, creating index records for
// directories that have none.
func (l *Layer) scanBuckets(only string, rep *ScanReport) ([]string, error) {
	dirs, err := l.fs.BucketDirs()
	if err != nil {
		return nil, mapErr(err)
	}
	known, err := l.ix.Buckets()
	if err != nil {
		return nil, mapErr(err)
	}
	indexed := make(map[string]bool, len(known))
	for _, b := range known {
		indexed[b.Name] = true
	}
	onDisk := make(map[string]bool, len(dirs))
	var out []string
	for _, d := range dirs {
		if only != "" && d != only {
			continue
		}
		if s3name.ValidExistingBucketName(d) != nil {
			rep.SkippedDirs = append(rep.SkippedDirs, d)
			continue
		}
		onDisk[d] = true
		if !indexed[d] {
			err := l.ix.CreateBucket(metadata.Bucket{Name: d, Created: l.now().UTC()})
			if err != nil && !errors.Is(err, metadata.ErrBucketExists) {
				return nil, mapErr(err)
			}
			rep.BucketsCreated = append(rep.BucketsCreated, d)
		}
		out = append(out, d)
	}
	if only != "" && !onDisk[only] {
		if s3name.ValidExistingBucketName(only) != nil {
			return nil, fmt.Errorf("scan: %q is not a valid bucket name", only)
		}
		return nil, fmt.Errorf("scan: bucket directory %q not found under the root", only)
	}
	for _, b := range known {
		if (only == "" || b.Name == only) && !onDisk[b.Name] {
			// The directory may be an unmounted filesystem: keep the
			// records rather than drop a whole bucket.
			rep.errorf("bucket %q: directory missing; its records were kept", b.Name)
		}
	}
	return out, nil
}

// scanner is the state of one Scan.
type scanner struct {
	l     *Layer
	o     ScanOptions
	rep   *ScanReport
	start time.Time
	total int64
	last  time.Time // last progress report

	bucketName string
	put        []Object
	del        []string
	// keyLocked is set when the caller holds the lock of the only key
	// being reconciled (watch mode).
	keyLocked bool
}

func (s *scanner) bucket(bucket string) error {
	s.bucketName = bucket
	skip := func(key string, reason error) { s.rep.Skipped++ }
	err := s.l.mergeBucket(bucket, skip, func(key string, rec *Object, fi *storage.FileInfo) error {
		if fi != nil {
			s.rep.Files++
			s.tick()
		}
		if err := s.reconcile(key, rec, fi); err != nil {
			return err
		}
		if len(s.put)+len(s.del) >= s.o.BatchSize {
			return s.flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.flush()
}

func (s *scanner) tick() {
	if s.o.Progress == nil {
		return
	}
	now := time.Now()
	if now.Sub(s.last) < s.o.ProgressInterval {
		return
	}
	s.last = now
	s.o.Progress(ScanProgress{Files: s.rep.Files, Total: s.total, Elapsed: now.Sub(s.start)})
}

func (s *scanner) flush() error {
	if len(s.put)+len(s.del) == 0 {
		return nil
	}
	st, err := s.l.ix.BucketState(s.bucketName)
	if err != nil {
		return bucketErr(err, s.bucketName)
	}
	if st.Versioned() {
		err = s.applyVersioned(st)
	} else {
		err = s.l.ix.ApplyObjects(s.bucketName, s.put, s.del)
	}
	if err != nil {
		return mapErr(err)
	}
	s.put, s.del = s.put[:0], s.del[:0]
	return nil
}

// applyVersioned applies a batch to a versioned bucket key by key, as the
// object layer changes versions: a vanished current version gives way to
// the newest noncurrent one (vanished), and a file found at a key without
// a current version (never written, or deleted with a marker) becomes a
// new version. A changed file refreshes its current record in place: the
// gateway cannot keep the bytes it never saw.
func (s *scanner) applyVersioned(st metadata.BucketState) error {
	b := s.bucketName
	for _, key := range s.del {
		unlock := s.lockKey(b, key)
		err := s.vanishedVersion(b, key)
		unlock()
		if err != nil && !errors.Is(err, s3err.New(s3err.NoSuchKey)) {
			return err
		}
	}
	for i := range s.put {
		o := s.put[i]
		unlock := s.lockKey(b, o.Key)
		var dropped []Object
		err := s.l.ix.EditVersions(b, o.Key, func(v *metadata.Versions) error {
			if _, ok, err := v.Current(); err != nil || ok {
				if err != nil {
					return err
				}
				return v.SetCurrent(o)
			}
			fresh := o
			fresh.LockMode, fresh.LockUntil, fresh.LegalHold = "", time.Time{}, false
			_, err := newVersion(st, &fresh, &dropped)(v)
			return err
		})
		if err == nil {
			s.l.removeDropped(b, o.Key, dropped)
		}
		unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// vanishedVersion drops a versioned key's current version whose file the
// walk did not find, if it is still missing now that the caller holds the
// key's lock (a request may have changed the key since the walk).
func (s *scanner) vanishedVersion(bucket, key string) error {
	rec, err := s.l.ix.Object(bucket, key)
	if err != nil {
		return nil
	}
	if _, err := s.l.fs.Stat(bucket, key, toStorage(rec.Location)); !errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if ok, err := s.l.recoverCurrent(bucket, key, &rec, true); err != nil || ok {
		return err
	}
	return s.l.vanished(bucket, key)
}

// lockKey takes the key's lock unless the caller holds it already.
func (s *scanner) lockKey(bucket, key string) func() {
	if s.keyLocked {
		return func() {}
	}
	return s.l.locks.lock(bucket, key)
}

// reconcile decides one key: rec is its record (nil if none), fi the file
// the walk found at its natural path (nil if none).
func (s *scanner) reconcile(key string, rec *Object, fi *storage.FileInfo) error {
	b := s.bucketName
	if rec != nil && (rec.Location != metadata.Natural || fi == nil) {
		// The record's bytes are not (or no longer seen) where the walk
		// looks: check its own path. A Natural file reached through a
		// link to a directory, which the walk does not follow, is found
		// here too.
		cur, err := s.l.fs.Stat(b, key, toStorage(rec.Location))
		switch {
		case errors.Is(err, storage.ErrNotFound):
			if fi == nil {
				s.del = append(s.del, key)
				s.rep.Removed++
				return nil
			}
			// The shadowed bytes are gone but a natural file is there.
			s.put = append(s.put, s.fresh(key, rec, *fi))
			s.rep.Updated++
			return nil
		case err != nil:
			s.rep.errorf("%s/%s: %v", b, key, err)
			s.rep.Unchanged++
			return nil
		}
		if rec.Location == metadata.Directory || matches(rec, cur) {
			s.unchanged(key, rec, cur)
			return nil
		}
		s.put = append(s.put, s.freshAt(key, rec, cur, rec.Location))
		s.rep.Updated++
		return nil
	}
	if fi == nil {
		return nil
	}
	if !validImportKey(key) {
		s.rep.Skipped++
		return nil
	}
	if rec == nil {
		if s.looksEncrypted(key, *fi) {
			// Ciphertext whose record (and sealed key) is gone: imported,
			// it would be served as if it were the object's bytes.
			s.rep.Skipped++
			s.rep.errorf("%s/%s: looks like an encrypted object without its index record; not imported", b, key)
			return nil
		}
		s.put = append(s.put, s.fresh(key, nil, *fi))
		s.rep.Added++
		return nil
	}
	if matches(rec, *fi) {
		s.unchanged(key, rec, *fi)
		return nil
	}
	s.put = append(s.put, s.fresh(key, rec, *fi))
	s.rep.Updated++
	return nil
}

// looksEncrypted reads the first bytes of a file the index does not know
// and reports whether they are a DARE stream's (sse.LooksEncrypted).
func (s *scanner) looksEncrypted(key string, fi storage.FileInfo) bool {
	if fi.Size < 33 {
		return false
	}
	f, _, err := s.l.fs.Open(s.bucketName, key, storage.Natural)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [sse.HeaderSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	return sse.LooksEncrypted(h[:], fi.Size)
}

// unchanged counts a record that matches its file, giving it its real MD5
// first when MD5 is asked for and its ETag is still the file-identity one.
func (s *scanner) unchanged(key string, rec *Object, fi storage.FileInfo) {
	if s.o.MD5 && rec.Location != metadata.Directory && rec.ETag == FileETag(fi) {
		if sum, ok := s.md5(key, rec.Location, fi); ok {
			o := *rec
			o.ETag = sum
			s.put = append(s.put, o)
			s.rep.Updated++
			return
		}
	}
	s.rep.Unchanged++
}

// fresh returns the record of the natural file key described by fi,
// keeping the stored headers, user metadata and tags of rec if any.
func (s *scanner) fresh(key string, rec *Object, fi storage.FileInfo) Object {
	return s.freshAt(key, rec, fi, metadata.Natural)
}

func (s *scanner) freshAt(key string, rec *Object, fi storage.FileInfo, loc metadata.Location) Object {
	var o Object
	if rec != nil {
		o = *rec
		o.Checksums, o.PartsCount, o.Parts = nil, 0, nil
	} else {
		o = Object{Key: key, ContentType: contentTypeOf(key)}
	}
	o.Size = plainSize(&o, fi.Size)
	o.FileMtime = fi.Mtime
	o.FileInode = fi.Inode
	o.LastModified = time.Unix(0, fi.Mtime).UTC()
	o.Location = loc
	o.ETag = FileETag(fi)
	// The MD5 of an encrypted file would be of its ciphertext.
	if s.o.MD5 && !o.SSE.Encrypted() {
		if sum, ok := s.md5(key, loc, fi); ok {
			o.ETag = sum
		}
	}
	return o
}

// md5 hashes the object's file. It reports false when the file cannot be
// read or is not the one fi describes (it changed during the scan); the
// caller keeps the file-identity ETag then.
func (s *scanner) md5(key string, loc metadata.Location, fi storage.FileInfo) (string, bool) {
	f, open, err := s.l.fs.Open(s.bucketName, key, toStorage(loc))
	if err != nil {
		s.rep.errorf("%s/%s: %v", s.bucketName, key, err)
		return "", false
	}
	defer f.Close()
	if open != fi {
		return "", false
	}
	sum, ok := md5File(f, fi)
	if !ok {
		s.rep.errorf("%s/%s: could not hash the file (it changed or could not be read)", s.bucketName, key)
	}
	return sum, ok
}

// validImportKey reports whether a file name found on disk can be an S3
// key: valid UTF-8 and at most 1024 bytes.
func validImportKey(key string) bool {
	return len(key) <= s3name.MaxKeyLen && utf8.ValidString(key)
}

// contentTypeOf guesses a content type from the key's extension.
func contentTypeOf(key string) string {
	if t := mime.TypeByExtension(path.Ext(key)); t != "" {
		return t
	}
	return DefaultContentType
}

// mergeBucket walks the bucket's files and its records together in key
// order and calls fn once per key that has a file at its natural path, a
// record, or both: rec is nil when the key has no record, fi nil when the
// walk found no file for it. Entries the walk cannot yield go to skip.
func (l *Layer) mergeBucket(bucket string, skip storage.SkipFunc, fn func(key string, rec *Object, fi *storage.FileInfo) error) error {
	it := recordIter{ix: l.ix, bucket: bucket}
	err := l.fs.Walk(bucket, storage.WalkOptions{Skip: skip}, func(key string, fi storage.FileInfo) error {
		for {
			rec, err := it.peek()
			if err != nil {
				return err
			}
			if rec == nil || rec.Key >= key {
				break
			}
			it.next()
			if err := fn(rec.Key, rec, nil); err != nil {
				return err
			}
		}
		rec, err := it.peek()
		if err != nil {
			return err
		}
		if rec != nil && rec.Key == key {
			it.next()
		} else {
			rec = nil
		}
		return fn(key, rec, &fi)
	})
	if err != nil {
		return err
	}
	for {
		rec, err := it.peek()
		if err != nil || rec == nil {
			return err
		}
		it.next()
		if err := fn(rec.Key, rec, nil); err != nil {
			return err
		}
	}
}

// recordIter walks a bucket's records in key order, a page at a time, so
// that no read transaction stays open while the caller writes.
type recordIter struct {
	ix     *metadata.Index
	bucket string
	page   []Object
	after  string
	done   bool
}

// peek returns the next record without consuming it, nil at the end.
func (it *recordIter) peek() (*Object, error) {
	if len(it.page) == 0 && !it.done {
		p, err := it.ix.List(it.bucket, metadata.ListQuery{After: it.after, Limit: 1000})
		if err != nil {
			return nil, mapErr(err)
		}
		it.page = p.Objects
		it.done = !p.Truncated
		if len(p.Objects) > 0 {
			it.after = p.Objects[len(p.Objects)-1].Key
		}
	}
	if len(it.page) == 0 {
		return nil, nil
	}
	return &it.page[0], nil
}

func (it *recordIter) next() { it.page = it.page[1:] }

// NeedsImport reports whether the root looks like an existing tree the
// index has never seen: the index has no bucket, and at least one
// top-level directory has a valid bucket name. serve imports such a root
// on its first start; once a bucket is known a restart never rescans.
func (l *Layer) NeedsImport() (bool, error) {
	known, err := l.ix.Buckets()
	if err != nil || len(known) > 0 {
		return false, mapErr(err)
	}
	dirs, err := l.fs.BucketDirs()
	if err != nil {
		return false, mapErr(err)
	}
	for _, d := range dirs {
		if s3name.ValidExistingBucketName(d) == nil {
			return true, nil
		}
	}
	return false, nil
}
