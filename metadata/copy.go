package metadata

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"slices"
)

// Copy moves a catalogue from one engine to another (bbolt to PostgreSQL
// and back): it copies the key-value tree under the catalogue, not its
// records, so it needs to know nothing of what the records mean, and
// what it copies is exactly what the catalogue code reads on either
// side.
//
// The tree is walked depth first with every bucket's keys in byte order
// (kv.go): the entries then come in the order of their paths (the names
// of the buckets above an entry, then its key), compared name by name. A
// position in that order, the path of the last entry copied, is all a
// copy needs to go on from where it stopped.

var (
	// ErrCopyNotEmpty is returned by Copy when the destination holds
	// records (an S3 bucket, an object, a user…) that no unfinished copy
	// into it wrote, or holds a completed copy: Copy never merges two
	// catalogues.
	ErrCopyNotEmpty = errors.New("metadata: the destination catalogue is not empty")

	// ErrCopyStopped is returned by Copy when CopyOptions.Stop was
	// closed: the destination holds the batches committed so far, and a
	// Copy into it from the same source goes on from there.
	ErrCopyStopped = errors.New("metadata: copy stopped")

	// ErrCopyMismatch is returned by Copy when the verification after the
	// copy finds the destination different from the source: an entry
	// that differs, is missing or is extra, or a sequence behind the
	// source's. Gateways that wrote to either side during the copy cause
	// it.
	ErrCopyMismatch = errors.New("metadata: the copy differs from its source")
)

// copyBucket is the destination's top-level bucket of the copy's marker
// (copyStateKey): it is not part of the catalogue, and neither copied
// nor compared. leasesBucket is not copied either: leases belong to the
// gateways running on the source.
var (
	copyBucket   = []byte("copy")
	copyStateKey = []byte("state")
)

// copySkipped reports whether the top-level bucket name stays out of a
// copy and its verification.
func copySkipped(name []byte) bool {
	return bytes.Equal(name, copyBucket) || bytes.Equal(name, leasesBucket)
}

// copySkippedValue reports whether the value k in the bucket at path is
// left out of a copy: the meta bucket's choice of stamping (stamp.go),
// which belongs to the gateways of each catalogue and is made by the
// first of them to serve it.
func copySkippedValue(path [][]byte, k []byte) bool {
	return len(path) == 1 && bytes.Equal(path[0], metaBucket) && bytes.Equal(k, stampsKey)
}

// CopyOptions configures Copy. The zero value copies in batches of 1,000
// entries and reports no progress.
type CopyOptions struct {
	// Batch is the most entries (values and nested buckets) one write
	// transaction on the destination takes, and one read of the source
	// reads; 0 means 1,000.
	Batch int

	// Progress, when set, is called after each batch is committed.
	Progress func(CopyProgress)

	// Stop, when closed, ends the copy (or its verification) before its
	// next batch, with ErrCopyStopped: what a copy killed between two
	// commits leaves, without the kill.
	Stop <-chan struct{}
}

// stopped reports whether o.Stop is closed.
func (o CopyOptions) stopped() bool {
	select {
	case <-o.Stop:
		return true
	default:
		return false
	}
}

func (o CopyOptions) batch() int {
	if o.Batch <= 0 {
		return 1000
	}
	return o.Batch
}

// CopyProgress is the state of a copy after one batch.
type CopyProgress struct {
	// Keys and Buckets count the values and the buckets (top-level and
	// nested) written to the destination, by this run and by the runs of
	// the copy that it resumes.
	Keys, Buckets uint64
	// Batches counts this run's write transactions.
	Batches int
	// Bucket is the top-level bucket the batch ended in.
	Bucket string
}

// CopyReport is what Copy did and what its verification found.
type CopyReport struct {
	// Keys and Buckets are CopyProgress's, at the end of the copy.
	Keys, Buckets uint64
	// Batches counts this run's write transactions.
	Batches int
	// Resumed is set when Copy went on from where an interrupted copy
	// into the same destination stopped.
	Resumed bool
	// Verified has one entry per top-level bucket copied, in name order;
	// after a mismatch, those walked until it.
	Verified []CopySum
}

// CopySum is the verification of one top-level bucket: what a walk of
// each side found in it.
type CopySum struct {
	Bucket              string
	Source, Destination CopyTally
}

// Match reports whether both sides counted and hashed the same.
func (s CopySum) Match() bool { return s.Source == s.Destination }

// CopyTally is what a walk of one top-level bucket found: its values and
// nested buckets (at any depth), and a SHA-256 over every entry in order
// (its path inside the top-level bucket, its key, and its value or the
// mark of a nested bucket). Sequences are not in the sum, since the
// destination's may rightly be ahead; the walk compares them entry by
// entry.
type CopyTally struct {
	Keys, Buckets uint64
	Sum           [sha256.Size]byte
}

// copyMarker is the destination's record of a copy (copyStateKey),
// written with every batch so that it always says what is committed.
type copyMarker struct {
	// Position is the path of the last entry copied; nil before the
	// first.
	Position [][]byte `json:"position"`
	// Keys and Buckets count what was written.
	Keys    uint64 `json:"keys"`
	Buckets uint64 `json:"buckets"`
	// Done is set once every entry was copied and verified.
	Done bool `json:"done"`
}

// Copy copies the catalogue src into dst, which must be empty (as Open
// and OpenPostgres leave a new one) or hold a copy from src that was
// interrupted, which Copy then finishes: it goes on after the last batch
// committed. Every value is copied byte for byte, every nested bucket as
// a nested bucket, and every bucket's sequence is raised on dst to src's
// at least, so that identities and version ids dst gives later were never
// given by src.
//
// Copy reads src and writes dst in transactions of o.Batch entries, and
// after the last one walks both sides and compares them entry by entry;
// a difference returns ErrCopyMismatch (wrapped, naming it) with the
// report. A verified copy is marked done in dst, and a Copy into it
// returns ErrCopyNotEmpty.
//
// Nothing may write to either catalogue during the copy: stop the
// gateways on both first. Copy writes only dst.
func Copy(dst, src *Index, o CopyOptions) (CopyReport, error) {
	var rep CopyReport
	if dst == src {
		return rep, errors.New("metadata: copy of a catalogue into itself")
	}
	m, resumed, err := startCopy(dst)
	if err != nil {
		return rep, err
	}
	rep.Resumed = resumed
	rep.Keys, rep.Buckets = m.Keys, m.Buckets
	n := o.batch()
	for {
		if o.stopped() {
			return rep, ErrCopyStopped
		}
		items, err := readCopyBatch(src, m.Position, n)
		if err != nil {
			return rep, fmt.Errorf("metadata: copy: reading the source: %w", err)
		}
		if len(items) == 0 {
			break
		}
		next := m
		for _, it := range items {
			if it.value != nil {
				next.Keys++
			} else {
				next.Buckets++
			}
		}
		last := items[len(items)-1]
		next.Position = last.fullPath()
		if err := writeCopyBatch(dst, items, next); err != nil {
			return rep, fmt.Errorf("metadata: copy: writing the destination at %s: %w", pathString(items[0].fullPath()), err)
		}
		m = next
		rep.Batches++
		rep.Keys, rep.Buckets = m.Keys, m.Buckets
		if o.Progress != nil {
			o.Progress(CopyProgress{Keys: m.Keys, Buckets: m.Buckets, Batches: rep.Batches, Bucket: string(next.Position[0])})
		}
		if len(items) < n {
			break
		}
	}
	rep.Verified, err = verifyCopy(dst, src, o)
	if err != nil {
		return rep, err
	}
	m.Done = true
	if err := writeCopyBatch(dst, nil, m); err != nil {
		return rep, fmt.Errorf("metadata: copy: marking it done: %w", err)
	}
	return rep, nil
}

// startCopy reads dst's marker: an unfinished copy's is returned with
// resumed set; a destination without one must hold no records, and gets
// the zero marker.
func startCopy(dst *Index) (m copyMarker, resumed bool, err error) {
	err = dst.view(func(tx kvTx) error {
		if b := tx.Bucket(copyBucket); b != nil {
			if v := b.Get(copyStateKey); v != nil {
				if err := json.Unmarshal(v, &m); err != nil {
					return fmt.Errorf("metadata: copy: the destination's marker: %w", err)
				}
				if m.Done {
					return fmt.Errorf("%w: it holds a completed copy", ErrCopyNotEmpty)
				}
				resumed = true
				return nil
			}
		}
		c := tx.Cursor()
		for name, _ := c.First(); name != nil; name, _ = c.Next() {
			if copySkipped(name) {
				continue
			}
			kc := tx.Bucket(name).Cursor()
			for k, _ := kc.First(); k != nil; k, _ = kc.Next() {
				// Open and OpenPostgres write the format version into a
				// new catalogue; the copy writes the source's. A gateway
				// that opened it has recorded its choice of stamping,
				// which is not copied.
				if !bytes.Equal(name, metaBucket) || !bytes.Equal(k, formatKey) && !bytes.Equal(k, stampsKey) {
					return fmt.Errorf("%w: %s holds %q", ErrCopyNotEmpty, name, k)
				}
			}
		}
		return nil
	})
	return m, resumed, err
}

// copyEntry is one entry of the tree: a value, or a nested bucket (value
// nil) and its sequence.
type copyEntry struct {
	// path is the names of the buckets above the entry, from the top;
	// empty for a top-level bucket.
	path  [][]byte
	key   []byte
	value []byte
	seq   uint64
}

// fullPath is the entry's position: its path, then its key.
func (e copyEntry) fullPath() [][]byte {
	return append(slices.Clip(e.path), e.key)
}

// pathString spells a position for an error message.
func pathString(p [][]byte) string {
	var b bytes.Buffer
	for i, name := range p {
		if i > 0 {
			b.WriteByte('/')
		}
		fmt.Fprintf(&b, "%q", name)
	}
	return b.String()
}

// kvDir is what the walk reads of a transaction (whose keys are the
// top-level buckets) and of a bucket.
type kvDir interface {
	Bucket(name []byte) kvBucket
	Cursor() kvCursor
}

// errBatchFull stops a walk whose batch is full.
var errBatchFull = errors.New("metadata: batch full")

// walkAfter calls fn for every entry under dir (at path) that comes after
// the position after (relative to dir; nil for every entry), in order. A
// nested bucket's entry comes before the entries in it. Keys and values
// are copies, valid after the transaction. An error from fn stops the
// walk and is returned.
func walkAfter(dir kvDir, path, after [][]byte, fn func(e copyEntry) error) error {
	c := dir.Cursor()
	var k, v []byte
	if len(after) == 0 {
		k, v = c.First()
	} else {
		k, v = c.Seek(after[0])
		if k != nil && bytes.Equal(k, after[0]) {
			// The entry at the position is copied; when it is a bucket,
			// what it holds after the rest of the position is not.
			if v == nil && (len(path) > 0 || !copySkipped(k)) {
				if err := walkAfter(dir.Bucket(k), append(slices.Clip(path), bytes.Clone(k)), after[1:], fn); err != nil {
					return err
				}
			}
			k, v = c.Next()
		}
	}
	for ; k != nil; k, v = c.Next() {
		if len(path) == 0 && copySkipped(k) || v != nil && copySkippedValue(path, k) {
			continue
		}
		e := copyEntry{path: path, key: bytes.Clone(k), value: bytes.Clone(v)}
		if v != nil {
			if err := fn(e); err != nil {
				return err
			}
			continue
		}
		sub := dir.Bucket(k)
		if sub == nil {
			return fmt.Errorf("metadata: %s: a nested bucket the cursor met cannot be opened", pathString(e.fullPath()))
		}
		e.seq = sub.Sequence()
		if err := fn(e); err != nil {
			return err
		}
		if err := walkAfter(sub, e.fullPath(), nil, fn); err != nil {
			return err
		}
	}
	return nil
}

// readCopyBatch reads the next n entries of ix after the position after,
// in one read transaction; fewer than n means the walk reached the end.
func readCopyBatch(ix *Index, after [][]byte, n int) ([]copyEntry, error) {
	var items []copyEntry
	err := ix.view(func(tx kvTx) error {
		items = items[:0]
		err := walkAfter(tx, nil, after, func(e copyEntry) error {
			items = append(items, e)
			if len(items) == n {
				return errBatchFull
			}
			return nil
		})
		if err == errBatchFull {
			return nil
		}
		return err
	})
	return items, err
}

// writeCopyBatch writes entries to ix, and the marker m, in one write
// transaction. The function may run more than once (PostgreSQL retries
// it after a conflict), so it keeps its state within the run.
func writeCopyBatch(ix *Index, entries []copyEntry, m copyMarker) error {
	if err := ix.failure(); err != nil {
		return err
	}
	mv, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return ix.kvUpdate(func(tx kvTx) error {
		// open holds the destination's buckets along the path of the
		// last entry written, so that entries of one bucket, which come
		// together, look it up once.
		var open []kvBucket
		var openPath [][]byte
		for _, e := range entries {
			same := 0
			for same < len(e.path) && same < len(openPath) && bytes.Equal(e.path[same], openPath[same]) {
				same++
			}
			open, openPath = open[:same], openPath[:same]
			for _, name := range e.path[same:] {
				var b kvBucket
				if len(open) == 0 {
					b = tx.Bucket(name)
				} else {
					b = open[len(open)-1].Bucket(name)
				}
				if b == nil {
					return fmt.Errorf("%s: the bucket is missing", pathString(append(slices.Clip(openPath), name)))
				}
				open, openPath = append(open, b), append(openPath, name)
			}
			if e.value != nil {
				if err := open[len(open)-1].Put(e.key, e.value); err != nil {
					return fmt.Errorf("%s: %w", pathString(e.fullPath()), err)
				}
				continue
			}
			var b kvBucket
			var err error
			if len(open) == 0 {
				b, err = tx.CreateBucketIfNotExists(e.key)
			} else {
				b, err = open[len(open)-1].CreateBucketIfNotExists(e.key)
			}
			if err == nil && e.seq > 0 {
				err = b.SetSequence(e.seq)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", pathString(e.fullPath()), err)
			}
			open, openPath = append(open, b), append(openPath, e.key)
		}
		mb, err := tx.CreateBucketIfNotExists(copyBucket)
		if err != nil {
			return err
		}
		return mb.Put(copyStateKey, mv)
	})
}

// verifyCopy walks src and dst side by side, n entries at a time, and
// compares them entry by entry; it tallies each side on its own.
func verifyCopy(dst, src *Index, o CopyOptions) ([]CopySum, error) {
	n := o.batch()
	var sums []CopySum
	var srcHash, dstHash hash.Hash
	done := func() {
		if len(sums) > 0 {
			s := &sums[len(sums)-1]
			srcHash.Sum(s.Source.Sum[:0])
			dstHash.Sum(s.Destination.Sum[:0])
		}
	}
	var after [][]byte
	for {
		if o.stopped() {
			return sums, ErrCopyStopped
		}
		a, err := readCopyBatch(src, after, n)
		if err != nil {
			return sums, fmt.Errorf("metadata: copy: verifying: reading the source: %w", err)
		}
		b, err := readCopyBatch(dst, after, n)
		if err != nil {
			return sums, fmt.Errorf("metadata: copy: verifying: reading the destination: %w", err)
		}
		for i := range max(len(a), len(b)) {
			if err := compareEntries(a, b, i); err != nil {
				done()
				return sums, err
			}
			e := a[i]
			if len(e.path) == 0 {
				done()
				sums = append(sums, CopySum{Bucket: string(e.key)})
				srcHash, dstHash = sha256.New(), sha256.New()
				continue
			}
			s := &sums[len(sums)-1]
			tallyEntry(&s.Source, srcHash, e)
			tallyEntry(&s.Destination, dstHash, b[i])
		}
		if len(a) < n {
			break
		}
		after = a[len(a)-1].fullPath()
	}
	done()
	return sums, nil
}

// compareEntries compares the i-th entries of a batch of the source (a)
// and of the destination (b); either may have run out.
func compareEntries(a, b []copyEntry, i int) error {
	switch {
	case i >= len(b):
		return fmt.Errorf("%w: %s is missing from the destination", ErrCopyMismatch, pathString(a[i].fullPath()))
	case i >= len(a):
		return fmt.Errorf("%w: %s is in the destination only", ErrCopyMismatch, pathString(b[i].fullPath()))
	}
	x, y := a[i], b[i]
	px, py := x.fullPath(), y.fullPath()
	switch slices.CompareFunc(px, py, bytes.Compare) {
	case -1:
		return fmt.Errorf("%w: %s is missing from the destination", ErrCopyMismatch, pathString(px))
	case 1:
		return fmt.Errorf("%w: %s is in the destination only", ErrCopyMismatch, pathString(py))
	}
	switch {
	case (x.value == nil) != (y.value == nil):
		return fmt.Errorf("%w: %s is a bucket on one side and a value on the other", ErrCopyMismatch, pathString(px))
	case !bytes.Equal(x.value, y.value):
		return fmt.Errorf("%w: %s has another value in the destination", ErrCopyMismatch, pathString(px))
	case y.seq < x.seq:
		return fmt.Errorf("%w: %s's sequence is %d in the destination, behind the source's %d", ErrCopyMismatch, pathString(px), y.seq, x.seq)
	}
	return nil
}

// tallyEntry counts e, an entry inside a top-level bucket, and adds it to
// the bucket's hash: its depth, the names of its path below the
// top-level bucket, its key, and its value or 'b' for a bucket, each
// name and value after its length.
func tallyEntry(t *CopyTally, h hash.Hash, e copyEntry) {
	var buf [binary.MaxVarintLen64]byte
	put := func(p []byte) {
		h.Write(binary.AppendUvarint(buf[:0], uint64(len(p))))
		h.Write(p)
	}
	h.Write(binary.AppendUvarint(buf[:0], uint64(len(e.path))))
	for _, name := range e.path[1:] {
		put(name)
	}
	put(e.key)
	if e.value == nil {
		t.Buckets++
		h.Write([]byte{'b'})
		return
	}
	t.Keys++
	h.Write([]byte{'v'})
	put(e.value)
}
