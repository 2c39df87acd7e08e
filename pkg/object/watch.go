package object

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/storage"
)

// WatchOptions configure Watch. The zero value debounces for 100 ms,
// rescans buckets that could not be watched whole every minute, and logs
// nothing.
type WatchOptions struct {
	// Debounce is how long after the first event for a path the path is
	// reconciled; further events for it within that time are merged.
	// 0 means 100 ms.
	Debounce time.Duration
	// RescanInterval is how often a bucket that could not be watched
	// whole (out of inotify watches) is rescanned instead. 0 means one
	// minute.
	RescanInterval time.Duration
	// Log receives warnings (out of watches, queue overflow) and errors.
	Log zerolog.Logger

	// addWatchErr, set by tests, fails the watch of a directory with the
	// error it returns (ENOSPC to simulate running out of watches). It
	// runs while the directory is open and its watch not yet added, so
	// tests also use it to change the directory in that window.
	addWatchErr func(bucket, rel string) error
}

// watchMask is what every watched directory reports: files written and
// closed, renamed in or out, deleted or touched; directories created; the
// directory itself going away.
const watchMask = unix.IN_CLOSE_WRITE | unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE |
	unix.IN_CREATE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// Watcher keeps the index in step with files changed behind the
// gateway's back, from inotify events (see Layer.Watch). Close stops it.
type Watcher struct {
	l    *Layer
	o    WatchOptions
	fd   int      // the inotify descriptor, for add and rm watch (under mu)
	file *os.File // the same descriptor, read through the runtime poller

	mu       sync.Mutex
	closed   bool
	wds      map[int32]watchDir
	byDir    map[watchDir]int32
	degraded map[string]bool // buckets not watched whole: rescanned periodically

	pmu     sync.Mutex
	pending map[watchItem]time.Time // item → when it is due
	wake    chan struct{}

	done   chan struct{}
	synced chan struct{} // closed once every bucket was watched and reconciled at start
	wg     sync.WaitGroup

	// dropEvents, set by tests, discards every event but overflows, as
	// if the kernel queue had lost them.
	dropEvents atomic.Bool
	// rescans counts bucket rescans and writes the reconciliations that
	// changed the index, for tests.
	rescans, writes atomic.Int64
	// busy is set (under pmu) while items taken from pending run, so that
	// tests can tell when the watcher is idle.
	busy bool
}

// watcherSlot holds a Layer's running Watcher, for CreateBucket.
type watcherSlot = atomic.Pointer[Watcher]

// watchDir is a watched directory: its path relative to the bucket
// directory ("" for the bucket directory).
type watchDir struct{ bucket, rel string }

// watchItem is a unit of reconciliation work.
type watchItem struct {
	kind   itemKind
	bucket string
	key    string // a key, or a prefix ending in "/"
}

type itemKind uint8

const (
	itemKey    itemKind = iota // reconcile one key
	itemPrefix                 // reconcile every record under a prefix (a directory went away)
	itemRescan                 // reconcile the whole bucket
)

// Watch starts watch mode: every bucket directory is watched recursively
// with inotify, and files created, rewritten, renamed or deleted behind
// the gateway's back get their records added, refreshed or dropped
// within about Debounce, without a scan. Buckets created later through
// CreateBucket are watched too.
//
// Events only say where to look: each path is reconciled from its
// current stat under the key's lock, with the same rules as Scan, so the
// gateway's own writes (whose records already describe their files) are
// never rewritten. A kernel queue overflow rescans every watched bucket;
// a bucket that runs out of watches (fs.inotify.max_user_watches) is
// rescanned every RescanInterval instead. Changes made by other hosts on
// network filesystems produce no events: use Scan there.
//
// Watching the existing directories needs a walk of every bucket, which
// also reconciles it (so changes made while the gateway was stopped show
// up too); it runs in the background, so Watch returns at once. Events
// arriving meanwhile are handled once it is done.
func (l *Layer) Watch(o WatchOptions) (*Watcher, error) {
	if o.Debounce <= 0 {
		o.Debounce = 100 * time.Millisecond
	}
	if o.RescanInterval <= 0 {
		o.RescanInterval = time.Minute
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, os.NewSyscallError("inotify_init1", err)
	}
	w := &Watcher{
		l: l, o: o, fd: fd,
		file:     os.NewFile(uintptr(fd), "inotify"),
		wds:      map[int32]watchDir{},
		byDir:    map[watchDir]int32{},
		degraded: map[string]bool{},
		pending:  map[watchItem]time.Time{},
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		synced:   make(chan struct{}),
	}
	if !l.watcher.CompareAndSwap(nil, w) {
		w.file.Close()
		return nil, errors.New("object: watch mode is already running")
	}
	buckets, err := l.ix.Buckets()
	if err != nil {
		l.watcher.Store(nil)
		w.file.Close()
		return nil, mapErr(err)
	}
	w.wg.Add(2)
	go w.read()
	go func() {
		defer w.wg.Done()
		for _, b := range buckets {
			if err := w.rescan(b.Name); err != nil && !errors.Is(err, errWatchClosed) {
				w.o.Log.Warn().Err(err).Str("bucket", b.Name).Msg("watch: initial reconciliation")
			}
		}
		close(w.synced)
		w.work()
	}()
	return w, nil
}

// Close stops watching: it closes the inotify descriptor and waits for
// the watcher's goroutines. Pending reconciliations are abandoned (a read
// or a scan still reconciles those files).
func (w *Watcher) Close() error {
	w.l.watcher.CompareAndSwap(w, nil)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	close(w.done)
	err := w.file.Close()
	w.mu.Unlock()
	w.wg.Wait()
	return err
}

// bucketCreated is called by CreateBucket once the bucket exists.
func (l *Layer) bucketCreated(name string) {
	if w := l.watcher.Load(); w != nil {
		w.watchTree(name, "", true)
	}
}

// watchTree adds watches for dir and every directory below it, then
// queues its files for reconciliation, since they may have landed before
// the watch was added. Files are queued only when importFiles is set.
func (w *Watcher) watchTree(bucket, dir string, importFiles bool) {
	var keys []string
	// w.mu is held per directory, not for the whole walk, so that events
	// and CreateBucket never wait for the walk of a large bucket.
	err := w.l.fs.WalkDirs(bucket, dir, func(rel string, d *os.File) error {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.addWatch(bucket, rel, d)
	}, func(key string) error {
		if importFiles {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errWatchClosed) {
		w.o.Log.Warn().Err(err).Str("bucket", bucket).Str("dir", dir).Msg("watch: cannot watch directory")
	}
	for _, k := range keys {
		w.enqueue(watchItem{kind: itemKey, bucket: bucket, key: k}, w.o.Debounce)
	}
}

var errWatchClosed = errors.New("object: watcher closed")

// addWatch watches the open directory d; the caller holds w.mu. The
// watch is added through /proc/self/fd, so it is on the very directory
// the confined walk opened, whatever happens to the path meanwhile.
func (w *Watcher) addWatch(bucket, rel string, d *os.File) error {
	if w.closed {
		return errWatchClosed
	}
	if w.degraded[bucket] {
		return nil // out of watches: the periodic rescan covers it
	}
	rc, err := d.SyscallConn()
	if err != nil {
		return err
	}
	var wd int
	var aerr error
	if err := rc.Control(func(fd uintptr) {
		if w.o.addWatchErr != nil {
			if aerr = w.o.addWatchErr(bucket, rel); aerr != nil {
				return
			}
		}
		wd, aerr = unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(int(fd)), watchMask)
	}); err != nil {
		return err
	}
	switch {
	case errors.Is(aerr, unix.ENOSPC):
		w.degraded[bucket] = true
		w.o.Log.Warn().Str("bucket", bucket).Dur("rescan_interval", w.o.RescanInterval).
			Msg("watch: out of inotify watches (raise fs.inotify.max_user_watches); falling back to periodic rescans of this bucket")
		return nil
	case errors.Is(aerr, unix.ENOENT):
		// The open directory is always there: /proc is not mounted.
		w.degraded[bucket] = true
		w.o.Log.Warn().Str("bucket", bucket).Dur("rescan_interval", w.o.RescanInterval).
			Msg("watch: cannot add inotify watches (is /proc mounted?); falling back to periodic rescans of this bucket")
		return nil
	}
	if aerr != nil {
		return os.NewSyscallError("inotify_add_watch", aerr)
	}
	wdir := watchDir{bucket, rel}
	if old, ok := w.wds[int32(wd)]; ok {
		delete(w.byDir, old)
	}
	w.wds[int32(wd)] = wdir
	w.byDir[wdir] = int32(wd)
	return nil
}

// unwatchTree removes the watches of dir and the directories below it,
// which moved away or were deleted; the caller holds w.mu.
func (w *Watcher) unwatchTree(bucket, dir string) {
	for wdir, wd := range w.byDir {
		if wdir.bucket != bucket || (dir != "" && wdir.rel != dir && !strings.HasPrefix(wdir.rel, dir+"/")) {
			continue
		}
		if !w.closed {
			// EINVAL when the kernel already dropped it (deleted directory).
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
		}
		delete(w.byDir, wdir)
		delete(w.wds, wd)
	}
}

// read decodes inotify events until the descriptor is closed.
func (w *Watcher) read() {
	defer w.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, err := w.file.Read(buf)
		if err != nil {
			select {
			case <-w.done:
			default:
				w.o.Log.Error().Err(err).Msg("watch: reading inotify events; watch mode stopped")
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if off+unix.SizeofInotifyEvent+int(ev.Len) > n {
				break // the kernel never splits an event; be safe anyway
			}
			name := ""
			if ev.Len > 0 {
				raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				if i := bytes.IndexByte(raw, 0); i >= 0 {
					raw = raw[:i]
				}
				name = string(raw)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			w.event(ev.Wd, ev.Mask, name)
		}
	}
}

// event handles one inotify event. Watches are added and removed at once,
// so that no event of a new directory is missed; files are queued for a
// debounced reconciliation from their current stat.
func (w *Watcher) event(wd int32, mask uint32, name string) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.overflow()
		return
	}
	if w.dropEvents.Load() {
		return
	}
	w.mu.Lock()
	dir, ok := w.wds[wd]
	if !ok {
		w.mu.Unlock()
		return // a watch already removed
	}
	if mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 {
		if dir.rel == "" {
			// The records stay, as with scan: the directory may be an
			// unmounted filesystem, or the bucket is being deleted.
			w.unwatchTree(dir.bucket, "")
			w.o.Log.Warn().Str("bucket", dir.bucket).Msg("watch: bucket directory went away; no longer watched")
		} else if mask&unix.IN_IGNORED != 0 {
			delete(w.byDir, dir)
			delete(w.wds, wd)
		}
		w.mu.Unlock()
		return
	}
	key := name
	if dir.rel != "" {
		key = dir.rel + "/" + name
	}
	isDir := mask&unix.IN_ISDIR != 0
	switch {
	case isDir && mask&(unix.IN_MOVED_FROM|unix.IN_DELETE) != 0:
		w.unwatchTree(dir.bucket, key)
		w.mu.Unlock()
		w.enqueue(watchItem{kind: itemPrefix, bucket: dir.bucket, key: key + "/"}, w.o.Debounce)
	case isDir && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		w.mu.Unlock()
		w.watchTree(dir.bucket, key, true)
	case isDir:
		w.mu.Unlock()
	case mask&unix.IN_CREATE != 0:
		// A file being created: its IN_CLOSE_WRITE follows when it is
		// complete, which is when it is reconciled.
		w.mu.Unlock()
	default:
		w.mu.Unlock()
		w.enqueue(watchItem{kind: itemKey, bucket: dir.bucket, key: key}, w.o.Debounce)
	}
}

// overflow handles a lost event queue: every watched bucket is rescanned.
func (w *Watcher) overflow() {
	w.mu.Lock()
	buckets := map[string]bool{}
	for d := range w.byDir {
		buckets[d.bucket] = true
	}
	for b := range w.degraded {
		buckets[b] = true
	}
	w.mu.Unlock()
	w.o.Log.Warn().Int("buckets", len(buckets)).Msg("watch: inotify queue overflowed (raise fs.inotify.max_queued_events); rescanning")
	for b := range buckets {
		w.enqueue(watchItem{kind: itemRescan, bucket: b}, 0)
	}
}

// enqueue schedules it after delay, unless it is already scheduled.
func (w *Watcher) enqueue(it watchItem, delay time.Duration) {
	w.pmu.Lock()
	if _, ok := w.pending[it]; !ok {
		w.pending[it] = time.Now().Add(delay)
	}
	w.pmu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// work runs due items until Close.
func (w *Watcher) work() {
	tick := time.NewTicker(w.o.RescanInterval)
	defer tick.Stop()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next := w.runDue()
		if next > 0 {
			timer.Reset(next)
		}
		select {
		case <-w.done:
			return
		case <-w.wake:
		case <-timer.C:
		case <-tick.C:
			w.mu.Lock()
			var bs []string
			for b := range w.degraded {
				bs = append(bs, b)
			}
			w.mu.Unlock()
			for _, b := range bs {
				w.enqueue(watchItem{kind: itemRescan, bucket: b}, 0)
			}
		}
	}
}

// runDue runs the items that are due and returns how long until the next
// one is (0 if none is pending).
func (w *Watcher) runDue() time.Duration {
	now := time.Now()
	var due []watchItem
	var next time.Duration
	w.pmu.Lock()
	for it, t := range w.pending {
		if d := t.Sub(now); d > 0 {
			if next == 0 || d < next {
				next = d
			}
			continue
		}
		due = append(due, it)
		delete(w.pending, it)
	}
	w.busy = len(due) > 0
	w.pmu.Unlock()
	defer func() {
		w.pmu.Lock()
		w.busy = false
		w.pmu.Unlock()
	}()
	for _, it := range due {
		select {
		case <-w.done:
			return 0
		default:
		}
		w.run(it)
	}
	if len(due) > 0 {
		return time.Millisecond // look again: items may have become due meanwhile
	}
	return next
}

func (w *Watcher) run(it watchItem) {
	var err error
	switch it.kind {
	case itemKey:
		err = w.reconcileKey(it.bucket, it.key)
	case itemPrefix:
		err = w.reconcilePrefix(it.bucket, it.key)
	case itemRescan:
		err = w.rescan(it.bucket)
	}
	if err != nil {
		w.o.Log.Error().Err(err).Str("bucket", it.bucket).Str("key", it.key).Msg("watch: reconciling")
	}
}

// reconcilePrefix reconciles every record under prefix: their directory
// was deleted or moved away, and no event names its files.
func (w *Watcher) reconcilePrefix(bucket, prefix string) error {
	q := metadata.ListQuery{Prefix: prefix, Limit: 1000}
	for {
		p, err := w.l.ix.List(bucket, q)
		if err != nil {
			return mapErr(err)
		}
		for _, rec := range p.Objects {
			w.reconcileLogged(bucket, rec.Key)
		}
		if !p.Truncated {
			return nil
		}
		q.After = p.Last
	}
}

// rescan re-adds the watches of a bucket and reconciles it the way Scan
// does. The merge only finds the keys whose record and file disagree;
// each is then decided under its lock, so a PUT in flight is never
// recorded with a stale view of its file.
func (w *Watcher) rescan(bucket string) error {
	w.rescans.Add(1)
	w.watchTree(bucket, "", false)
	return w.l.mergeBucket(bucket, nil, func(key string, rec *Object, fi *storage.FileInfo) error {
		select {
		case <-w.done:
			return errWatchClosed
		default:
		}
		if rec != nil && (rec.Location != metadata.Natural || (fi != nil && matches(rec, *fi))) {
			return nil
		}
		w.reconcileLogged(bucket, key)
		return nil
	})
}

// reconcileLogged reconciles one key of a batch, logging a failure so
// that one unreadable file does not stop the rest.
func (w *Watcher) reconcileLogged(bucket, key string) {
	if err := w.reconcileKey(bucket, key); err != nil {
		w.o.Log.Error().Err(err).Str("bucket", bucket).Str("key", key).Msg("watch: reconciling")
	}
}

func (w *Watcher) reconcileKey(bucket, key string) error {
	changed, err := w.l.reconcileKey(bucket, key)
	if changed {
		w.writes.Add(1)
	}
	return err
}

// reconcileKey brings the record of one key in step with the file at its
// natural path, under the key's lock, with Scan's rules: a new file gets
// a record (FileETag, size, mtime, inode, content type by extension), a
// changed file a refreshed one, a vanished file loses its record. A
// record that matches its file is not rewritten, which is what keeps the
// gateway's own writes from feeding back. Records of shadowed or folder
// keys are left alone: events only speak of natural paths.
//
// It reports whether the index changed.
func (l *Layer) reconcileKey(bucket, key string) (bool, error) {
	unlock, err := l.lockKey(bucket, key)
	if err != nil {
		return false, err
	}
	defer unlock()
	var rec *Object
	r, err := l.ix.Object(bucket, key)
	switch {
	case err == nil:
		if r.Location != metadata.Natural {
			return false, nil
		}
		rec = &r
	case !errors.Is(err, metadata.ErrNoSuchKey):
		return false, mapErr(err)
	}
	var fi *storage.FileInfo
	cur, err := l.fs.Stat(bucket, key, storage.Natural)
	switch {
	case err == nil:
		fi = &cur
	case !errors.Is(err, storage.ErrNotFound):
		if errors.Is(err, storage.ErrEscape) {
			return false, nil // a link leaving the bucket: never an object
		}
		return false, err
	}
	var rep ScanReport
	s := scanner{l: l, rep: &rep, bucketName: bucket, keyLocked: true}
	if err := s.reconcile(key, rec, fi); err != nil {
		return false, err
	}
	changed := len(s.put)+len(s.del) > 0
	return changed, s.flush()
}
