package expire

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/lifecycle"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Options configures a Worker.
type Options struct {
	// Layer is the object layer the worker reads and removes through.
	Layer *object.Layer
	// Day is the length of a lifecycle day; zero is 24 hours. Tests and
	// compatibility suites shorten it (--lifecycle-day).
	Day time.Duration
	// DefaultUploadExpiry is how long an upload no rule matches is kept;
	// zero keeps it until a rule matches.
	DefaultUploadExpiry time.Duration
	// RoundSize is the number of index entries a round examines at most;
	// zero (and more than 10,000) is 10,000. A round of an unversioned
	// bucket reads its entries in one read transaction of the index, a
	// few milliseconds for 10,000; listings of versions and uploads are
	// read 1,000 entries at a time.
	RoundSize int
	// Busy is the share of one CPU a pass uses on average: after a round
	// whose work took c of CPU time it waits c×(1−Busy)/Busy before the
	// next, so that a long pass leaves the request path most of the
	// machine. c is the CPU time of the threads that ran the round's walk
	// and removals, as Linux counts it per thread; time a round spends
	// waiting (for the index's commits, or for a CPU the machine gives
	// to other work) is not work, so a loaded machine stretches a pass
	// by the pass's own cost, not by the load's. Where the system does
	// not count a thread's CPU time, c is the round's wall time. Zero (or
	// 1 and more) does not wait; tests, which drive rounds themselves,
	// leave it so.
	Busy float64
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Holder is the worker's identity in the index's lifecycle lease;
	// empty is a random one. Gateways sharing an index run lifecycle
	// passes one at a time: each round first takes or renews the lease
	// (LeaseName), and a worker that another holds it from skips the
	// pass. When the holder dies, its lease runs out after LeaseTTL and
	// the next worker to ask resumes the pass from the cursor, which the
	// index keeps.
	Holder string
	// LeaseTTL is how long a round's lease lasts; zero is 5 minutes. A
	// round takes far less (it is bounded by RoundSize), and the clocks
	// of gateways sharing an index must agree to well within it.
	LeaseTTL time.Duration
	// Log receives a line per pass and the errors of removals.
	Log zerolog.Logger
}

// maxRoundSize is the default and largest Options.RoundSize. A round
// costs, besides its entries, the reading of the cursor and the bucket
// records and the writing of the cursor (a commit of the index); at
// 10,000 entries those are a few percent of a round's work.
const maxRoundSize = 10_000

// pageSize is the most entries a listing of versions or uploads reads at
// once: a round asks for several pages rather than one of 10,000 copied
// entries.
const pageSize = 1000

// Stats are the worker's counters since it started, for the metrics.
type Stats struct {
	Examined, Expired, Aborted, Locked, Errors atomic.Uint64
	// Deferred counts rounds not run because another gateway sharing
	// the index held the lifecycle lease.
	Deferred atomic.Uint64
	// LastPass is the Unix time the last complete pass ended (0 before
	// the first), LastPassNanos its duration.
	LastPass, LastPassNanos atomic.Int64
	// CPUNanos is the CPU time the rounds of Pass used (Options.Busy
	// says how it is counted); rounds run by Round alone are not
	// counted.
	CPUNanos atomic.Int64
}

// Worker applies lifecycle rules. Its methods must not be called
// concurrently: one goroutine runs it.
type Worker struct {
	o     Options
	stats Stats
	// measured is set while Pass counts its rounds' CPU time: removals
	// that run on goroutines of their own then add theirs to removalCPU
	// (nanoseconds).
	measured   bool
	removalCPU atomic.Int64
	// doc and cfg are the last lifecycle document parsed and its
	// configuration: a round parses a bucket's document only when it
	// changed, not once per round.
	doc string
	cfg *lifecycle.Configuration
}

// New returns a worker with o's defaults filled in.
func New(o Options) *Worker {
	if o.Day <= 0 {
		o.Day = 24 * time.Hour
	}
	if o.RoundSize <= 0 || o.RoundSize > maxRoundSize {
		o.RoundSize = maxRoundSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Holder == "" {
		var b [8]byte
		rand.Read(b[:])
		o.Holder = "lifecycle-" + hex.EncodeToString(b[:])
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 5 * time.Minute
	}
	return &Worker{o: o}
}

// LeaseName is the name of the index lease lifecycle passes run under.
const LeaseName = "lifecycle"

// Stats returns the worker's counters.
func (w *Worker) Stats() *Stats { return &w.stats }

// The phases of a bucket's walk (metadata.LifecycleCursor.Phase).
const (
	phaseRules   = 0 // the rules' listings, one rule after another
	phaseUploads = 1 // the bucket's multipart uploads
)

// Run starts a pass at once and then every interval, until ctx ends; a
// pass interrupted by ctx is resumed by the next Run from its cursor.
func (w *Worker) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	// A worker that stops hands its lease back, so that another gateway
	// sharing the index goes on at its next pass rather than after the
	// lease's TTL.
	defer func() {
		if err := w.o.Layer.ReleaseLease(LeaseName, w.o.Holder); err != nil {
			w.o.Log.Error().Err(err).Msg("lifecycle: releasing the lease")
		}
	}()
	for {
		if err := w.Pass(ctx); err != nil && ctx.Err() == nil {
			w.o.Log.Error().Err(err).Msg("lifecycle pass")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Pass runs rounds until the pass in progress (or a new one) completes,
// or ctx ends (the cursor then keeps the pass's position).
func (w *Worker) Pass(ctx context.Context) error { return w.pass(ctx) }

func (w *Worker) pass(ctx context.Context) error {
	b := w.o.Busy
	paced := b > 0 && b < 1
	w.measured = true
	defer func() { w.measured = false }()
	for ctx.Err() == nil {
		var done bool
		var err error
		cost := w.cost(func() { done, err = w.Round() })
		w.stats.CPUNanos.Add(int64(cost))
		if err != nil || done {
			return err
		}
		if paced {
			rest := time.Duration(float64(cost) * (1 - b) / b)
			t := time.NewTimer(rest)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C:
			}
		}
	}
	return ctx.Err()
}

// cost runs fn, a round, and returns the CPU time it used: that of the
// calling goroutine's thread, held for the round, and that of the
// removals it ran on other goroutines (parallel). Without a per-thread
// CPU clock it is fn's wall time.
func (w *Worker) cost(fn func()) time.Duration {
	start := time.Now()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := threadCPU()
	w.removalCPU.Store(0)
	fn()
	c1, ok1 := threadCPU()
	if !ok || !ok1 {
		return time.Since(start)
	}
	return time.Duration(c1 - c0 + w.removalCPU.Load())
}

// Round does one bounded round of the pass in progress, starting one if
// none is, and stores the cursor. done is true when the round ended the
// pass.
//
// A round runs only under the lifecycle lease (Options.Holder): when
// another worker holds it, Round does nothing and reports done.
func (w *Worker) Round() (done bool, err error) {
	l := w.o.Layer
	held, cur, err := l.AcquireLease(LeaseName, w.o.Holder, w.o.Now(), w.o.LeaseTTL)
	if err != nil {
		return false, err
	}
	if !held {
		w.stats.Deferred.Add(1)
		w.o.Log.Debug().Str("holder", cur.Holder).Time("until", cur.Expires).Msg("lifecycle: another gateway holds the lease")
		return true, nil
	}
	c, err := l.LifecycleCursor()
	if err != nil {
		return false, err
	}
	if c.Started.IsZero() {
		c = metadata.LifecycleCursor{Started: w.o.Now()}
	}
	budget := w.o.RoundSize
	for budget > 0 {
		b, ok, err := w.bucketAt(c.Bucket)
		if err != nil {
			return false, err
		}
		if !ok {
			w.finish(c)
			return true, l.SetLifecycleCursor(metadata.LifecycleCursor{})
		}
		if b.Name != c.Bucket {
			c = metadata.LifecycleCursor{Started: c.Started, Bucket: b.Name, Examined: c.Examined, Acted: c.Acted}
		}
		next, err := w.bucketRound(&b, &c, &budget)
		if err != nil {
			return false, err
		}
		if next {
			// The bucket is done: the next round starts with the
			// following one.
			c = metadata.LifecycleCursor{Started: c.Started, Bucket: b.Name + "\x00", Examined: c.Examined, Acted: c.Acted}
		}
	}
	return false, l.SetLifecycleCursor(c)
}

// finish reports a completed pass.
func (w *Worker) finish(c metadata.LifecycleCursor) {
	now := w.o.Now()
	d := now.Sub(c.Started)
	w.stats.LastPass.Store(now.Unix())
	w.stats.LastPassNanos.Store(int64(d))
	// The orphaned part directories are the sweep's other half; an error
	// is only logged, as the next pass retries it.
	if err := w.o.Layer.RemoveOrphanParts(); err != nil {
		w.o.Log.Error().Err(err).Msg("lifecycle: removing orphaned upload parts")
	}
	// So are the staging files of gateways on this root that died while
	// this one runs.
	if err := w.o.Layer.RemoveDeadStaging(); err != nil {
		w.o.Log.Error().Err(err).Msg("lifecycle: removing dead gateways' staging files")
	}
	w.o.Log.Info().Uint64("examined", c.Examined).Uint64("acted", c.Acted).Dur("duration", d).Msg("lifecycle pass complete")
}

// bucketAt returns the first bucket whose name is name or after it.
func (w *Worker) bucketAt(name string) (object.Bucket, bool, error) {
	bs, err := w.o.Layer.Buckets()
	if err != nil {
		return object.Bucket{}, false, err
	}
	for _, b := range bs {
		if b.Name >= name {
			return b, true, nil
		}
	}
	return object.Bucket{}, false, nil
}

// bucketRound spends up to *budget examinations on bucket b from cursor
// c. next is true when the bucket's walk is complete.
func (w *Worker) bucketRound(b *object.Bucket, c *metadata.LifecycleCursor, budget *int) (next bool, err error) {
	cfg := w.config(b)
	for *budget > 0 {
		switch c.Phase {
		case phaseRules:
			r := nextRule(cfg, c.Rule, b.Versioned())
			if r == nil {
				*c = metadata.LifecycleCursor{Started: c.Started, Bucket: c.Bucket, Phase: phaseUploads, Examined: c.Examined, Acted: c.Acted}
				continue
			}
			if r.ID != c.Rule {
				*c = metadata.LifecycleCursor{Started: c.Started, Bucket: c.Bucket, Rule: r.ID, Examined: c.Examined, Acted: c.Acted}
			}
			var more bool
			if b.Versioned() {
				more, err = w.versionsRound(b, r, c, budget)
			} else {
				more, err = w.objectsRound(b, r, c, budget)
			}
			if err != nil {
				return false, err
			}
			if !more {
				// The rule's walk is done; ruleAfter finds the next one.
				*c = metadata.LifecycleCursor{Started: c.Started, Bucket: c.Bucket, Rule: r.ID + doneSuffix, Examined: c.Examined, Acted: c.Acted}
			}
		default:
			more, err := w.uploadsRound(b, cfg, c, budget)
			if err != nil || !more {
				return err == nil, err
			}
		}
	}
	return false, nil
}

// config returns the parsed lifecycle configuration of b, nil when it has
// none.
func (w *Worker) config(b *object.Bucket) *lifecycle.Configuration {
	if b.Lifecycle == "" {
		return nil
	}
	if b.Lifecycle == w.doc {
		return w.cfg
	}
	cfg, err := lifecycle.Parse([]byte(b.Lifecycle))
	if err != nil {
		// The stored document was validated when it was put; one that no
		// longer parses is skipped, not fatal to the pass.
		w.o.Log.Error().Err(err).Str("bucket", b.Name).Msg("lifecycle: stored configuration does not parse")
		cfg = nil
	}
	w.doc, w.cfg = b.Lifecycle, cfg
	return cfg
}

// doneSuffix marks a cursor's Rule as the rule whose walk just ended.
const doneSuffix = "\x00done"

// nextRule returns the rule the cursor's Rule names (or, when it says
// that rule is done, the rule after it) among the rules that need a walk
// of the bucket's listing, or nil when none is left. A rule no longer in
// the configuration (it was replaced during the pass) restarts the walk
// at the first rule.
func nextRule(cfg *lifecycle.Configuration, at string, versioned bool) *lifecycle.Rule {
	if cfg == nil {
		return nil
	}
	id, done := at, false
	if len(at) > len(doneSuffix) && at[len(at)-len(doneSuffix):] == doneSuffix {
		id, done = at[:len(at)-len(doneSuffix)], true
	}
	start := 0
	if id != "" {
		for i := range cfg.Rules {
			if cfg.Rules[i].ID == id {
				start = i
				if done {
					start = i + 1
				}
				break
			}
		}
	}
	for i := start; i < len(cfg.Rules); i++ {
		if walks(&cfg.Rules[i], versioned) {
			return &cfg.Rules[i]
		}
	}
	return nil
}

// walks reports whether the rule needs a walk of the bucket's listing:
// it is enabled and expires current versions, or, in a versioned bucket,
// noncurrent versions or delete markers.
func walks(r *lifecycle.Rule, versioned bool) bool {
	if !r.Enabled {
		return false
	}
	e := r.Expiration
	if e.Days > 0 || !e.Date.IsZero() {
		return true
	}
	return versioned && (e.ExpiredObjectDeleteMarker || !r.NoncurrentVersionExpiration.IsZero())
}

// tagsOf is a lifecycle.TagLookup over a record's tags.
func tagsOf(kvs []metadata.KV) lifecycle.TagLookup {
	return func(k string) (string, bool) {
		for _, kv := range kvs {
			if kv.Key == k {
				return kv.Value, true
			}
		}
		return "", false
	}
}

// objectsRound walks an unversioned bucket's keys under the rule's
// prefix, removing those it expires. more is false when the walk ended.
//
// The walk reads the records in place (Layer.WalkObjects): a record the
// rule does not expire costs the decoding of its size and last-modified
// time (and a look at its tags when the rule asks for tags), and no
// allocation; only the records that are due are decoded whole, for the
// conditions of their removal.
func (w *Worker) objectsRound(b *object.Bucket, r *lifecycle.Rule, c *metadata.LifecycleCursor, budget *int) (more bool, err error) {
	now := w.o.Now()
	needsTags := r.NeedsTags()
	var due []object.Object
	n := 0
	last, more, err := w.o.Layer.WalkObjects(b.Name, object.WalkQuery{
		Prefix: r.Filter.Prefix, After: c.KeyMarker, Limit: *budget,
	}, func(rec *object.WalkRecord) error {
		n++
		var tags lifecycle.TagSet
		if needsTags {
			tags = rec
		}
		at, ok := r.CurrentExpirySet(rec.Key, rec.Size, tags, rec.LastModified, w.o.Day)
		if !ok || now.Before(at) {
			return nil
		}
		o, err := rec.Object()
		if err != nil {
			return err
		}
		due = append(due, o)
		return nil
	})
	if err != nil {
		return false, err
	}
	*budget -= n
	c.Examined += uint64(n)
	w.stats.Examined.Add(uint64(n))
	if last != "" {
		c.KeyMarker = last
	}
	// The keys of a page are distinct, so their removals are independent:
	// they run a few at once, sharing the index's group commits instead
	// of each waiting for its own.
	errs := make([]error, len(due))
	w.parallel(len(due), func(i int) {
		errs[i] = w.removeCurrent(b, &due[i])
	})
	for i := range due {
		w.acted(b.Name, due[i].Key, "", errs[i], c, &w.stats.Expired)
	}
	return more, nil
}

// removers is the number of removals of one round that run at once. A
// removal mostly waits (for its key's lock, the index's group commit, the
// filesystem), and under load for a CPU; the more run at once, the more
// share one commit and the shorter a pass, at the same CPU cost.
const removers = 16

// parallel runs fn(0) … fn(n-1), removers at a time, and returns when all
// have.
func (w *Worker) parallel(n int, fn func(i int)) {
	if n <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for k := 0; k < removers && k < n; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w.measured {
				// The removals' CPU time counts towards the round's.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				if c0, ok := threadCPU(); ok {
					defer func() {
						if c1, ok := threadCPU(); ok {
							w.removalCPU.Add(c1 - c0)
						}
					}()
				}
			}
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// expireCurrent removes a current version, or in a versioned bucket hides
// it behind a delete marker, if it is still the version the walk saw.
func (w *Worker) expireCurrent(b *object.Bucket, o *object.Object, c *metadata.LifecycleCursor) {
	w.acted(b.Name, o.Key, "", w.removeCurrent(b, o), c, &w.stats.Expired)
}

// removeCurrent is expireCurrent's removal, without the counting.
func (w *Worker) removeCurrent(b *object.Bucket, o *object.Object) error {
	_, err := w.o.Layer.Remove(object.RemoveInput{Bucket: b.Name, Key: o.Key, Conditions: object.Conditions{
		BucketID: b.ID, IfMatch: o.ETag, IfMatchLastModified: o.LastModified,
	}})
	return err
}

// acted counts the outcome of one removal.
func (w *Worker) acted(bucket, key, version string, err error, c *metadata.LifecycleCursor, done *atomic.Uint64) {
	if err == nil {
		done.Add(1)
		c.Acted++
		return
	}
	switch s3err.As(err).Code {
	case s3err.AccessDenied:
		// Object Lock refused: the version stays until its lock ends.
		w.stats.Locked.Add(1)
	case s3err.PreconditionFailed, s3err.NoSuchKey, s3err.NoSuchVersion, s3err.NoSuchUpload, s3err.NoSuchBucket:
		// The version changed or went since the walk saw it.
	default:
		w.stats.Errors.Add(1)
		w.o.Log.Error().Err(err).Str("bucket", bucket).Str("key", key).Str("versionId", version).Msg("lifecycle: removal failed")
	}
}

func (w *Worker) examined(c *metadata.LifecycleCursor, budget *int) {
	*budget--
	c.Examined++
	w.stats.Examined.Add(1)
}

// versionsRound walks a versioned bucket's versions under the rule's
// prefix, key by key, newest first. The cursor carries the state of the
// key the walk is in: the noncurrent versions seen (Newer), when the next
// one became noncurrent (Since: the previous version's last-modified
// time), and, when the key's latest version is a delete marker, its id
// and how many of the key's other versions stay (Marker, Kept).
func (w *Worker) versionsRound(b *object.Bucket, r *lifecycle.Rule, c *metadata.LifecycleCursor, budget *int) (more bool, err error) {
	l := w.o.Layer
	page, err := l.ListVersions(b.Name, metadata.VersionQuery{
		Prefix: r.Filter.Prefix, KeyMarker: c.KeyMarker, VersionMarker: c.VersionMarker, Limit: min(*budget, pageSize),
	})
	if err != nil {
		return false, err
	}
	now := w.o.Now()
	for i := range page.Entries {
		e := &page.Entries[i]
		if e.Prefix != "" {
			continue
		}
		w.examined(c, budget)
		if e.Key != c.KeyMarker || e.IsLatest {
			w.endKey(b, r, c)
			c.Newer, c.Since, c.Marker, c.Kept = 0, time.Time{}, "", 0
		}
		id := e.VersionID
		if id == "" {
			id = metadata.NullVersion
		}
		switch {
		case e.IsLatest && e.DeleteMarker:
			c.Marker = id
		case e.IsLatest:
			at, ok := r.CurrentExpiry(e.Key, e.Size, tagsOf(e.Tags), e.LastModified, w.o.Day)
			if ok && !now.Before(at) {
				w.expireCurrent(b, &e.Object, c)
			}
		default:
			removed := false
			if r.NoncurrentDue(e.Key, e.Size, tagsOf(e.Tags), c.Since, c.Newer, now, w.o.Day) {
				_, err := l.Remove(object.RemoveInput{Bucket: b.Name, Key: e.Key, VersionID: id, Conditions: object.Conditions{BucketID: b.ID}})
				w.acted(b.Name, e.Key, id, err, c, &w.stats.Expired)
				removed = err == nil
			}
			if !e.DeleteMarker {
				c.Newer++
			}
			if !removed {
				c.Kept++
			}
		}
		c.Since = e.LastModified
		c.KeyMarker, c.VersionMarker = e.Key, id
	}
	if !page.Truncated {
		w.endKey(b, r, c)
	}
	return page.Truncated, nil
}

// endKey ends the walk of the cursor's key: a delete marker that is its
// latest version and that no version stays behind is expired, if the
// rule says so. A rule that expires by age reads the marker's
// last-modified time, which the cursor does not carry.
func (w *Worker) endKey(b *object.Bucket, r *lifecycle.Rule, c *metadata.LifecycleCursor) {
	if c.Marker == "" || c.Kept > 0 {
		return
	}
	var at time.Time
	if r.MarkerAged() {
		m, _, err := w.o.Layer.Version(b.Name, c.KeyMarker, c.Marker)
		if err != nil {
			w.acted(b.Name, c.KeyMarker, c.Marker, err, c, &w.stats.Expired)
			c.Marker = ""
			return
		}
		at = m.LastModified
	}
	if !r.MarkerDue(c.KeyMarker, at, w.o.Now(), w.o.Day) {
		return
	}
	_, err := w.o.Layer.Remove(object.RemoveInput{Bucket: b.Name, Key: c.KeyMarker, VersionID: c.Marker, Conditions: object.Conditions{BucketID: b.ID}})
	w.acted(b.Name, c.KeyMarker, c.Marker, err, c, &w.stats.Expired)
	c.Marker = ""
}

// uploadsRound walks the bucket's uploads, aborting those a rule (or the
// default expiry) says are abandoned. more is false when the walk ended.
func (w *Worker) uploadsRound(b *object.Bucket, cfg *lifecycle.Configuration, c *metadata.LifecycleCursor, budget *int) (more bool, err error) {
	l := w.o.Layer
	page, err := l.ListUploads(b.Name, metadata.UploadQuery{KeyMarker: c.KeyMarker, UploadIDMarker: c.VersionMarker, Limit: min(*budget, pageSize)})
	if err != nil {
		return false, err
	}
	now := w.o.Now()
	var due []metadata.Upload
	for _, u := range page.Uploads {
		w.examined(c, budget)
		if w.uploadDue(cfg, u.Key, u.Initiated, now) {
			due = append(due, u)
		}
		c.KeyMarker, c.VersionMarker = u.Key, u.ID
	}
	errs := make([]error, len(due))
	w.parallel(len(due), func(i int) {
		errs[i] = l.AbortMultipartUpload(b.Name, due[i].Key, due[i].ID)
	})
	for i, u := range due {
		w.acted(b.Name, u.Key, u.ID, errs[i], c, &w.stats.Aborted)
	}
	return page.Truncated, nil
}

// uploadDue reports whether an upload of key initiated then is to be
// aborted now: when a rule matches it, as soon as any matching rule says
// so; otherwise after the default expiry.
func (w *Worker) uploadDue(cfg *lifecycle.Configuration, key string, initiated, now time.Time) bool {
	matched := false
	if cfg != nil {
		for i := range cfg.Rules {
			applies, due := cfg.Rules[i].AbortDue(key, initiated, now, w.o.Day)
			if due {
				return true
			}
			matched = matched || applies
		}
	}
	return !matched && w.o.DefaultUploadExpiry > 0 && !now.Before(initiated.Add(w.o.DefaultUploadExpiry))
}
