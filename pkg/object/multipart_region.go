package object

import (
	"os"
	"sync"
	"syscall"

	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
)

// The region of a multipart upload is one staging file into which parts
// of the upload's regular part size S are written at (number-1)·S as
// they arrive, so that a completion of parts 1..N renames that file
// instead of copying every byte (docs/architecture.md, "Multipart
// uploads"). A part's bytes in the region count only once its record,
// which says InRegion and its Offset, is committed; until then the part
// record of that number, if any, is the older one and points elsewhere.
//
// Who writes which range is decided here, in memory, under the upload's
// regionGate:
//
//   - S is fixed by the first part claimed that is at least MinPartSize
//     (after a restart, by the region records already committed). A part
//     larger than S, of unknown size, or arriving before S is fixed with
//     less than MinPartSize goes to a file of its own, as every part did
//     before regions.
//   - The range of part n is claimed at most once per process: by the
//     first upload of number n while no record of n exists. A re-upload
//     of n, or a concurrent second upload, goes to a file of its own. So
//     the range of a committed region record is never written again,
//     except by a completion that copies the current (own-file) part n
//     into it.
//   - A completion or an abort seals the gate: it bumps the epoch, and a
//     writer whose claim is of an older epoch fails its next write and
//     never commits its record. The completion reads the part records
//     only after sealing, so no region record appears behind its back.
type regionGate struct {
	mu sync.RWMutex
	// loaded is set once size was recovered from the committed records.
	loaded bool
	// size is S, zero until fixed.
	size int64
	// claimed holds the part numbers whose range was claimed.
	claimed map[int]bool
	// epoch is bumped by every seal; sealed is set while a completion
	// runs and forever after an abort or a successful completion.
	epoch  uint64
	sealed bool
	// region is the open region file, nil until a part needs it.
	region *storage.Region
	// writers counts the claims whose parts are being written. The
	// region is closed when the last one ends and no completion holds
	// the gate (closeIdle): an upload whose parts are all written holds
	// no descriptor, so that uploads left incomplete, which live until
	// they expire, cannot use up the process's descriptors.
	writers int
	// completing counts the completions between their seal and their
	// unseal, which may read the region outside g.mu.
	completing int
}

// closeIdle closes the region when no part is being written into it and
// no completion uses it. The caller holds g.mu for writing.
func (g *regionGate) closeIdle() {
	if g.writers == 0 && g.completing == 0 && !g.sealed && g.region != nil {
		g.region.Close()
		g.region = nil
	}
}

// regionGates holds the gates of the uploads this process has touched.
type regionGates struct {
	mu sync.Mutex
	m  map[string]*regionGate
}

// gate returns the gate of upload id, creating it.
func (l *Layer) gate(id string) *regionGate {
	l.gates.mu.Lock()
	defer l.gates.mu.Unlock()
	g := l.gates.m[id]
	if g == nil {
		if l.gates.m == nil {
			l.gates.m = make(map[string]*regionGate)
		}
		g = &regionGate{claimed: make(map[int]bool)}
		l.gates.m[id] = g
	}
	return g
}

// dropGate seals the gate of upload id for good and forgets it, once the
// upload is gone from the index: a writer arriving later finds no upload
// and writes no region.
func (l *Layer) dropGate(id string) {
	l.gates.mu.Lock()
	g := l.gates.m[id]
	delete(l.gates.m, id)
	l.gates.mu.Unlock()
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sealed = true
	g.epoch++
	if g.region != nil {
		g.region.Close()
		g.region = nil
	}
}

// seal stops the region's writers of the current epoch and keeps new
// ones out until unseal.
func (g *regionGate) seal() {
	g.mu.Lock()
	g.sealed = true
	g.epoch++
	g.completing++
	g.mu.Unlock()
}

// unseal lets new writers in again after a completion that failed. The
// writers it stopped stay stopped: their epoch is gone.
func (g *regionGate) unseal() {
	g.mu.Lock()
	g.sealed = false
	g.completing--
	g.closeIdle()
	g.mu.Unlock()
}

// openRegion returns the gate's region file, opening it. The caller
// holds g.mu for writing.
func (l *Layer) openRegion(g *regionGate, id string) (*storage.Region, error) {
	if g.region == nil {
		r, err := l.fs.OpenRegion(id)
		if err != nil {
			return nil, err
		}
		g.region = r
	}
	return g.region, nil
}

// regionClaim is the right to write one part's range of the region.
type regionClaim struct {
	g      *regionGate
	number int
	epoch  uint64
	off    int64
	inode  uint64
	// n is how much was written so far.
	n int64
}

// errSealed is what a region writer gets once a completion or abort has
// sealed its claim.
var errSealed = s3err.Newf(s3err.ConditionalRequestConflict, "The upload is being completed or aborted.")

// claimRegion returns a claim on the range of part ref.Number, of size
// bytes, or nil when the part goes to a file of its own (see regionGate).
//
// On a catalogue other gateways share, every part goes to a file of its
// own: the region's part size and its claims are this process's, and a
// gateway writing parts of the same upload would lay them out by
// another size, over each other's ranges, and could go on writing into
// the region after another gateway's completion published it.
func (l *Layer) claimRegion(ref partRef, size int64) *regionClaim {
	if size <= 0 || l.ix.Shared() {
		return nil
	}
	g := l.gate(ref.UploadID)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sealed || g.claimed[ref.Number] || !l.ix.UploadExists(ref.UploadID) {
		return nil
	}
	if !g.loaded {
		stored, _, err := l.ix.Parts(ref.Bucket, ref.Key, ref.UploadID, 0, 0)
		if err != nil {
			return nil
		}
		for _, p := range stored {
			if !p.InRegion {
				continue
			}
			g.claimed[p.Number] = true
			if p.Number > 1 {
				g.size = p.Offset / int64(p.Number-1)
			} else if g.size == 0 {
				g.size = p.Size
			}
		}
		g.loaded = true
	}
	if ps, _, err := l.ix.Parts(ref.Bucket, ref.Key, ref.UploadID, ref.Number-1, 1); err != nil || len(ps) > 0 && ps[0].Number == ref.Number {
		return nil
	}
	if g.size == 0 {
		if size < MinPartSize {
			return nil
		}
		g.size = size
	}
	if size > g.size || int64(ref.Number-1)*g.size+size > MaxObjectSize {
		// Too large for its range, or at an offset no object reaches
		// (and the filesystem may refuse): a file of its own.
		return nil
	}
	r, err := l.openRegion(g, ref.UploadID)
	if err != nil {
		return nil
	}
	fi, links, err := r.Stat()
	if err != nil || links > 1 {
		// A completion that crashed after publishing the region left it
		// linked at its key: it is no longer the upload's to write.
		return nil
	}
	g.claimed[ref.Number] = true
	g.writers++
	return &regionClaim{g: g, number: ref.Number, epoch: g.epoch, off: int64(ref.Number-1) * g.size, inode: fi.Inode}
}

// Write writes p at the claim's next offset, unless the claim was sealed.
func (c *regionClaim) Write(p []byte) (int, error) {
	c.g.mu.RLock()
	defer c.g.mu.RUnlock()
	if c.g.epoch != c.epoch {
		return 0, errSealed
	}
	m, err := c.g.region.WriteAt(p, c.off+c.n)
	c.n += int64(m)
	return m, err
}

// sync makes the claim's bytes durable.
func (c *regionClaim) sync() (storage.FileInfo, error) {
	c.g.mu.RLock()
	defer c.g.mu.RUnlock()
	if c.g.epoch != c.epoch {
		return storage.FileInfo{}, errSealed
	}
	if err := c.g.region.Sync(); err != nil {
		return storage.FileInfo{}, err
	}
	return storage.FileInfo{Inode: c.inode}, nil
}

// record runs put, the commit of the part's record, unless the claim was
// sealed: a completion that sealed it never sees the record appear.
func (c *regionClaim) record(put func() error) error {
	c.g.mu.RLock()
	defer c.g.mu.RUnlock()
	if c.g.epoch != c.epoch {
		return errSealed
	}
	return put()
}

// done ends the claim's writing, whether its part was recorded or not;
// the last claim to end closes the region.
func (c *regionClaim) done() {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.g.writers--
	c.g.closeIdle()
}

// release gives the claim back after its part failed before its record
// was committed, so that a retry of the part may claim the range again:
// no record describes what it holds.
func (c *regionClaim) release() {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	if c.g.epoch == c.epoch {
		delete(c.g.claimed, c.number)
	}
}

// assemble makes the staged file of a completion of the chosen parts,
// whose files' sizes add up to size: the region itself when the chosen parts lay
// out as it holds them (regionLayout), with only the parts kept in files
// of their own copied into their ranges; otherwise a new file into which
// every chosen part is copied, from its file or its range of the region.
// The caller has sealed g and read stored after sealing.
func (l *Layer) assemble(g *regionGate, id string, chosen, stored []Part, size int64) (*storage.Upload, error) {
	var region *storage.Region
	var inode uint64
	anyRegion := false
	for _, p := range stored {
		anyRegion = anyRegion || p.InRegion
	}
	if anyRegion {
		g.mu.Lock()
		r, err := l.openRegion(g, id)
		g.mu.Unlock()
		if err != nil {
			return nil, mapErr(err)
		}
		fi, links, err := r.Stat()
		if err != nil {
			return nil, mapErr(err)
		}
		region, inode = r, fi.Inode
		if links == 1 && regionLayout(chosen, stored, inode) {
			return l.assembleInRegion(region, id, chosen, size)
		}
	}
	up, err := l.fs.NewUpload()
	if err != nil {
		return nil, mapErr(err)
	}
	for _, p := range chosen {
		if p.InRegion {
			if region == nil || p.FileInode != inode {
				up.Abort()
				return nil, s3err.New(s3err.InvalidPart).With("PartNumber", itoa(p.Number))
			}
			err = mapErr(up.AppendFrom(region, p.Offset, p.Size))
		} else {
			err = l.withPartFile(id, p, func(f *os.File) error { return mapErr(up.AppendFrom(f, 0, partFileSize(p))) })
		}
		if err != nil {
			up.Abort()
			return nil, err
		}
	}
	return up, nil
}

// regionLayout reports whether the region can become the object of the
// chosen parts: they are parts 1..N, each region part at the offset the
// parts before it add up to, and no region part beyond N, whose bytes the
// truncation to the object's size would cut.
func regionLayout(chosen, stored []Part, inode uint64) bool {
	var off int64
	for i, p := range chosen {
		if p.Number != i+1 || p.InRegion && (p.Offset != off || p.FileInode != inode) {
			return false
		}
		off += p.Size
	}
	for _, p := range stored {
		if p.InRegion && p.Number > len(chosen) {
			return false
		}
	}
	return true
}

// assembleInRegion copies the chosen parts that live in files of their
// own into their ranges of the region and stages the region, truncated
// to size, for publishing.
func (l *Layer) assembleInRegion(r *storage.Region, id string, chosen []Part, size int64) (*storage.Upload, error) {
	var off int64
	for _, p := range chosen {
		if !p.InRegion {
			err := l.withPartFile(id, p, func(f *os.File) error { return mapErr(r.CopyIn(f, off, p.Size)) })
			if err != nil {
				return nil, err
			}
		}
		off += p.Size
	}
	up, err := r.Stage(size)
	if err != nil {
		return nil, mapErr(err)
	}
	return up, nil
}

// withPartFile opens the file of part p and runs fn on it. The open
// descriptor pins the file: if it is not the one the part's record
// describes (the part number was uploaded again since the parts were
// listed), its bytes are not the listed part's, and the answer is
// InvalidPart.
func (l *Layer) withPartFile(id string, p Part, fn func(*os.File) error) error {
	f, err := l.fs.OpenPart(id, p.Number)
	if err != nil {
		return s3err.Wrap(s3err.InvalidPart, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return mapErr(err)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || st.Size() != partFileSize(p) || (p.FileInode != 0 && sys.Ino != p.FileInode) {
		return s3err.New(s3err.InvalidPart).With("PartNumber", itoa(p.Number))
	}
	return fn(f)
}
