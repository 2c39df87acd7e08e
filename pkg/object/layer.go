package object

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
	"golang.org/x/sync/singleflight"
)

// IndexFile is the name of the index inside the state directory.
const IndexFile = "index.db"

// Options configure a Layer.
type Options struct {
	// Root is the data root: one directory per bucket, one file per object.
	Root string
	// Index is the catalogue's PostgreSQL database (a libpq URL or
	// keyword/value DSN), shared by every gateway on the same root; empty,
	// the default, is the bbolt file in the root's state directory, which
	// one gateway has at a time.
	Index string
	// IndexConns bounds the connections to Index's database: as many for
	// the catalogue's transactions, and as many again for the locks of
	// writes in progress. Zero takes pgx's default (four per CPU).
	IndexConns int
	// NoSync skips fsync of files, directories and the index. Acknowledged
	// writes may then be lost on power failure or kernel crash (not on a
	// process crash). The default, false, is durable.
	NoSync bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// LazyMD5 gives objects the gateway did not hash itself (found on disk
	// or changed behind its back) their real MD5 as ETag in the background
	// after their first read. Their ETag changes once, from the
	// file-identity one to the MD5. Off by default.
	LazyMD5 bool
	// HotCache keeps small hot objects in memory for ReadObject; nil: off.
	// The Layer stops it on Close.
	HotCache *hotcache.Cache
	// RecordCache is how many current records a layer on a shared
	// catalogue (Index) keeps to answer reads without a round trip to the
	// database, each confirmed by its file's stamp (record_cache.go): 0
	// is DefaultRecordCache, negative is off. The bbolt index needs none.
	RecordCache int
	// OnAssemble, when set, runs when a CompleteMultipartUpload has
	// checked its parts and is about to assemble the object: the seam a
	// test uses to hold a completion while it observes what clients see.
	OnAssemble func()
	// OnCopy, when set, runs when a CopyObject has opened and checked
	// its source and is about to copy the bytes: the seam a test uses to
	// hold a copy while it observes what clients see.
	OnCopy func()
}

// Layer is the object layer over one data root.
type Layer struct {
	fs    *storage.FS
	ix    *metadata.Index
	now   func() time.Time
	locks keyLocks
	// migrated is what Open's MigratePublicRead changed.
	migrated []Migrated
	// fence orders writes against DeleteBucket (fence.go).
	fence bucketFence
	// watcher is the running watch mode, if any (watch.go).
	watcher watcherSlot
	// md5 hashes files found on disk after their first read, when
	// Options.LazyMD5 is set (md5_lazy.go); nil otherwise.
	md5 *lazyMD5
	// hot is Options.HotCache; fills coalesces its concurrent misses
	// (object_get_hot.go).
	hot   *hotcache.Cache
	fills singleflight.Group
	// onFill, when set by a test, runs at the start of every fill.
	onFill func()
	// beforeCommit, when set by a test, runs when a write's bytes are
	// staged and it is about to fence its bucket and commit.
	beforeCommit func()
	// beforeFlag, when set by a test, runs when PutRetention or
	// PutLegalHold has stored its record and is about to set or clear
	// the file's immutable flag.
	beforeFlag func()
	// failStore, when set by a test, is asked before each commit's index
	// write, after the rename (for a delete marker, after the current
	// file left the key's path), and fails the write with its error.
	failStore func(rec Object) error
	// cacheControlSet is set once UpdateBucket gives a bucket a default
	// Cache-Control (BucketCacheControlSet).
	cacheControlSet atomic.Bool
	// versioningSet is set once CreateBucket or UpdateBucket gives a
	// bucket a versioning state (BucketVersioningSet).
	versioningSet atomic.Bool
	// gates coordinate the writers of each upload's region with its
	// completion and abort (multipart_region.go).
	gates regionGates
	// completions coalesces the concurrent completions of one upload: a
	// retry that arrives while the first still runs gets its answer.
	completions completionCalls
	// onAssemble is Options.OnAssemble.
	onAssemble func()
	// onCopy is Options.OnCopy.
	onCopy func()
	// keys is the key ring of encrypted objects, opened on first use
	// (sse.go).
	keys keyRing
	// recs caches current records on a shared catalogue
	// (record_cache.go); nil when off.
	recs *recordCache
}

// Open opens the data root and its index. It never walks the tree, so it is
// as fast with a million objects as with none. The index is opened first:
// its file lock makes a second gateway on the same root fail before it
// could clear the first one's staging area.
func Open(o Options) (*Layer, error) {
	ix, err := openIndex(o)
	if err != nil {
		return nil, err
	}
	if err := ix.Serve(); err != nil {
		ix.Close()
		return nil, err
	}
	fsys, err := storage.Open(o.Root, storage.Options{NoSync: o.NoSync, KeepDir: folderMarker(ix)})
	if err != nil {
		ix.Close()
		return nil, err
	}
	stamps, err := stamping(ix, fsys)
	if err != nil {
		ix.Close()
		fsys.Close()
		return nil, err
	}
	l := assemble(o, fsys, ix, stamps)
	if l.migrated, err = l.MigratePublicRead(); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Migrations returns what Open migrated (MigratePublicRead), for the
// server to log.
func (l *Layer) Migrations() []Migrated { return l.migrated }

// folderMarker reports whether a directory is a zero-byte "dir/" object,
// which pruning must keep.
func folderMarker(ix *metadata.Index) func(bucket, dir string) bool {
	return func(bucket, dir string) bool {
		o, err := ix.Object(bucket, dir+"/")
		return err == nil && o.Location == metadata.Directory
	}
}

// SharedCatalogueFile is the file in a root's state directory that says
// the root's catalogue is a shared one in PostgreSQL: a gateway opening
// the root with Options.Index writes it, and opening the root's bbolt
// index is refused while it is there, so that a command run without
// --index does not make a catalogue of its own beside the shared one
// (and an `index import` back into the root removes it,
// UseEmbeddedIndex).
const SharedCatalogueFile = "catalogue-postgresql"

// ErrSharedCatalogue is returned when a root whose catalogue is shared in
// PostgreSQL is opened without Options.Index.
var ErrSharedCatalogue = errors.New("this root's catalogue is in PostgreSQL: give its --index (or OBJECTGATEWAY_INDEX)")

// UseEmbeddedIndex removes the root's SharedCatalogueFile, once its
// catalogue was copied back into its bbolt index.
func UseEmbeddedIndex(root string) error {
	err := os.Remove(filepath.Join(root, storage.StateDir, SharedCatalogueFile))
	if errors.Is(err, iofs.ErrNotExist) {
		return nil
	}
	return err
}

// openIndex opens (creating it and the state directory if needed) the
// index of a data root: the bbolt file in its state directory, or the
// PostgreSQL catalogue of Options.Index.
func openIndex(o Options) (*metadata.Index, error) {
	abs, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, err
	}
	state := filepath.Join(abs, storage.StateDir)
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, err
	}
	marker := filepath.Join(state, SharedCatalogueFile)
	if o.Index != "" {
		ix, err := metadata.OpenPostgres(context.Background(), o.Index, metadata.PGOptions{MaxConns: o.IndexConns})
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(marker); errors.Is(err, iofs.ErrNotExist) {
			err = os.WriteFile(marker, []byte("The catalogue of this root is in a PostgreSQL database (serve --index).\n"), 0o600)
			if err != nil {
				ix.Close()
				return nil, err
			}
		}
		return ix, nil
	}
	if _, err := os.Stat(marker); err == nil {
		return nil, fmt.Errorf("%w (%s)", ErrSharedCatalogue, marker)
	}
	ix, err := metadata.Open(filepath.Join(state, IndexFile), metadata.Options{NoSync: o.NoSync, Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("%w (is another gateway running on this root?)", err)
	}
	return ix, nil
}

// stamping settles whether a layer stamps the files of the records it
// writes and caches records (record_cache.go): on a shared catalogue,
// as every gateway of the catalogue does (metadata.Index.AgreeStamps);
// never on bbolt, which is one process's and answers in microseconds.
func stamping(ix *metadata.Index, fsys *storage.FS) (bool, error) {
	if !ix.Shared() {
		return false, nil
	}
	return ix.AgreeStamps(fsys.Stamps())
}

// toolStamping is stamping for an offline tool (OpenExclusive), which
// follows the gateways' choice and never makes it: on a catalogue no
// gateway served yet it writes records without stamps, which no record
// cache trusts.
func toolStamping(ix *metadata.Index, fsys *storage.FS) (bool, error) {
	if !ix.Shared() {
		return false, nil
	}
	on, _, err := ix.StampsChoice()
	if err != nil || !on {
		return false, err
	}
	if !fsys.Stamps() {
		return false, metadata.ErrStampsRequired
	}
	return true, nil
}

// assemble builds a Layer over an opened root and index; stamps is
// stamping's (or toolStamping's) answer.
func assemble(o Options, fsys *storage.FS, ix *metadata.Index, stamps bool) *Layer {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	l := &Layer{fs: fsys, ix: ix, now: now, hot: o.HotCache, onAssemble: o.OnAssemble, onCopy: o.OnCopy}
	l.locks.seed = maphash.MakeSeed()
	l.fence.seed = maphash.MakeSeed()
	if o.LazyMD5 {
		l.md5 = startLazyMD5(l)
	}
	// Every gateway of a shared catalogue that stamps stamps the files
	// of the records it writes, whether it caches records or not:
	// another one may (record_cache.go).
	if stamps {
		ix.SetStamper(func(bucket string, o *metadata.Object) error {
			if o.DeleteMarker {
				return nil
			}
			return fsys.SetStamp(bucket, o.Key, toStorage(o.Location), o.Stamp)
		})
		if n := o.RecordCache; n >= 0 {
			if n == 0 {
				n = DefaultRecordCache
			}
			l.recs = newRecordCache(n, fsys.StampTick())
		}
	}
	return l
}

// Close closes the index and the root. In-flight requests must have ended.
func (l *Layer) Close() error {
	l.md5.stop()
	l.hot.Close()
	return errors.Join(l.ix.Close(), l.fs.Close())
}

// SharedIndex reports whether the layer's catalogue is one other
// gateways may share (Options.Index): then several gateways serve the
// root, each with its own process-local state.
func (l *Layer) SharedIndex() bool { return l.ix.Shared() }

// StatePath returns the absolute path of a file in the state directory.
func (l *Layer) StatePath(name string) string { return l.fs.StatePath(name) }

// keyLocks serialises writers of one key without a map of mutexes: keys hash
// onto a fixed set of stripes. Two keys sharing a stripe only wait for each
// other; they never deadlock because a caller holds one stripe at a time.
type keyLocks struct {
	seed    maphash.Seed
	stripes [256]sync.Mutex
}

func (k *keyLocks) lock(bucket, key string) func() {
	var h maphash.Hash
	h.SetSeed(k.seed)
	h.WriteString(bucket)
	h.WriteByte(0)
	h.WriteString(key)
	m := &k.stripes[h.Sum64()%uint64(len(k.stripes))]
	m.Lock()
	return m.Unlock
}

// lockKey serialises the writers of one key: those of this process by
// its key locks, and, on a catalogue other gateways share, those of
// every gateway by the catalogue's lock of the key (metadata.LockWrite),
// taken second so that one gateway's writers of a key queue in the
// process and hold one database connection between them.
func (l *Layer) lockKey(bucket, key string) (func(), error) {
	unlock := l.locks.lock(bucket, key)
	if !l.ix.Shared() {
		return unlock, nil
	}
	shared, err := l.ix.LockWrite(bucket, key)
	if err != nil {
		unlock()
		return nil, mapErr(err)
	}
	return func() { shared(); unlock() }, nil
}

// mapErr maps the stores' sentinel errors to S3 errors. It is the one place
// where that mapping is made.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, metadata.ErrNoSuchBucket):
		return s3err.Wrap(s3err.NoSuchBucket, err)
	case errors.Is(err, metadata.ErrNoSuchVersion):
		return s3err.Wrap(s3err.NoSuchVersion, err)
	case errors.Is(err, metadata.ErrLockTimeout):
		return s3err.Wrap(s3err.SlowDown, err)
	case errors.Is(err, metadata.ErrNoSuchKey), errors.Is(err, storage.ErrNotFound):
		return s3err.Wrap(s3err.NoSuchKey, err)
	case errors.Is(err, metadata.ErrBucketExists):
		return s3err.Wrap(s3err.BucketAlreadyOwnedByYou, err)
	case errors.Is(err, metadata.ErrNoSuchUpload):
		return s3err.Wrap(s3err.NoSuchUpload, err)
	case errors.Is(err, metadata.ErrBucketNotEmpty):
		return s3err.Wrap(s3err.BucketNotEmpty, err)
	case errors.Is(err, storage.ErrEscape), errors.Is(err, os.ErrPermission):
		return s3err.Wrap(s3err.AccessDenied, err)
	}
	return s3err.As(err)
}

func toStorage(l metadata.Location) storage.Location { return storage.Location(l) }
func toIndex(l storage.Location) metadata.Location   { return metadata.Location(l) }
