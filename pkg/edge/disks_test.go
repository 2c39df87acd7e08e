package edge

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// dirFaults fails the named operations of the disks whose directories
// are in it.
type dirFaults struct {
	mu  sync.Mutex
	ops map[string]map[string]bool
}

func (f *dirFaults) set(dir string, ops ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ops == nil {
		f.ops = map[string]map[string]bool{}
	}
	f.ops[dir] = map[string]bool{}
	for _, op := range ops {
		f.ops[dir][op] = true
	}
}

func (f *dirFaults) fault(dir, op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ops[dir][op] {
		return fmt.Errorf("injected I/O error in %s of %s", op, dir)
	}
	return nil
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newDisksEnv is newEnv with one cache disk per budget, each in its own
// directory.
func newDisksEnv(t *testing.T, budgets []int64, mod func(*Options)) *env {
	t.Helper()
	return newEnv(t, func(o *Options) {
		o.Dir, o.MaxBytes = "", 0
		for _, b := range budgets {
			o.Disks = append(o.Disks, Disk{Dir: t.TempDir(), MaxBytes: b})
		}
		if mod != nil {
			mod(o)
		}
	})
}

// diskOf is the index of the disk holding ck's entry, -1 when none.
func (e *env) diskOf(ck string) int {
	c := e.c()
	c.mu.Lock()
	defer c.mu.Unlock()
	if en := c.entries[ck]; en != nil {
		return slices.Index(c.disks, en.d)
	}
	return -1
}

// placedOn is the index of the disk a new object ck would go to, with
// every disk healthy.
func placedOn(t *testing.T, c *Cache, ck string) int {
	t.Helper()
	var best int
	var bestScore float64
	for i, d := range c.disks {
		if s := d.score(ck); i == 0 || s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// keysOn returns n keys "b/<prefix><i>" that placement puts on each disk.
func keysOn(t *testing.T, c *Cache, prefix string, n int) [][]string {
	t.Helper()
	out := make([][]string, len(c.disks))
	for i := 0; ; i++ {
		done := true
		for _, ks := range out {
			done = done && len(ks) >= n
		}
		if done {
			return out
		}
		if i > 10000 {
			t.Fatal("placement never picks some disk")
		}
		ck := fmt.Sprintf("b/%s%d", prefix, i)
		if d := placedOn(t, c, ck); len(out[d]) < n {
			out[d] = append(out[d], ck)
		}
	}
}

// TestPlacement checks rendezvous placement: the same disks place a key
// on the same disk every time, each disk gets a share of the keys in
// proportion to its budget, a failed disk's keys go to the others in
// proportion to theirs while every other key stays where it was, and an
// object too large for a disk goes to one that takes it.
func TestPlacement(t *testing.T) {
	dirs := []Disk{{Dir: "/ssd1/edge", MaxBytes: 200 << 30}, {Dir: "/ssd2/edge", MaxBytes: 100 << 30}, {Dir: "/ssd3/edge", MaxBytes: 100 << 30}}
	build := func() *Cache {
		c := &Cache{}
		for _, d := range dirs {
			dk := newDisk(d, false)
			dk.healthy.Store(true)
			c.disks = append(c.disks, dk)
		}
		return c
	}
	a, b := build(), build()
	const n = 30000
	count := make([]int, 3)
	before := make([]*disk, n)
	for i := range n {
		ck := fmt.Sprintf("bucket/videos/%d/segment.ts", i)
		da, db := a.place(ck, 1<<20), b.place(ck, 1<<20)
		if slices.Index(a.disks, da) != slices.Index(b.disks, db) {
			t.Fatalf("%s placed on disk %d, then on %d", ck, slices.Index(a.disks, da), slices.Index(b.disks, db))
		}
		before[i] = da
		count[slices.Index(a.disks, da)]++
	}
	checkShares(t, "three disks", count, []float64{0.5, 0.25, 0.25})

	// Disk 1 fails: only its keys move, two thirds of them to disk 0.
	a.disks[1].healthy.Store(false)
	moved := make([]int, 3)
	for i := range n {
		ck := fmt.Sprintf("bucket/videos/%d/segment.ts", i)
		d := a.place(ck, 1<<20)
		if d == a.disks[1] {
			t.Fatalf("%s placed on the failed disk", ck)
		}
		if before[i] != a.disks[1] {
			if d != before[i] {
				t.Fatalf("%s moved from disk %d to %d when another disk failed", ck, slices.Index(a.disks, before[i]), slices.Index(a.disks, d))
			}
			continue
		}
		moved[slices.Index(a.disks, d)]++
	}
	if moved[1] != 0 {
		t.Fatal("keys placed on the failed disk")
	}
	checkShares(t, "the failed disk's keys", []int{moved[0], moved[2]}, []float64{2.0 / 3, 1.0 / 3})

	// 60 GiB fits only the 200 GiB disk (at most half of a budget).
	a.disks[1].healthy.Store(true)
	for i := range 200 {
		if d := a.place(fmt.Sprintf("b/big%d", i), 60<<30); d != a.disks[0] {
			t.Fatalf("a 60 GiB object placed on disk %d", slices.Index(a.disks, d))
		}
	}
	for _, d := range a.disks {
		d.healthy.Store(false)
	}
	if d := a.place("b/k", 1); d != nil {
		t.Fatal("an object placed with every disk failed")
	}
}

// checkShares fails when count's shares are off want by more than 2
// points.
func checkShares(t *testing.T, what string, count []int, want []float64) {
	t.Helper()
	total := 0
	for _, n := range count {
		total += n
	}
	for i, n := range count {
		if got := float64(n) / float64(total); math.Abs(got-want[i]) > 0.02 {
			t.Errorf("%s: disk %d has %.3f of the keys, want %.3f (counts %v)", what, i, got, want[i], count)
		}
	}
}

// TestDiskFailureOfSeveral checks that one disk of two failing at create,
// write, sync, read or a catalogue commit costs only its share: the other disk's objects are
// hits without an origin request, the failed disk's keys are fetched
// again and stored on the other disk, and when the disk works again it is
// reattached with its recorded objects, served without an origin request.
func TestDiskFailureOfSeveral(t *testing.T) {
	for _, op := range []string{"create", "write", "sync", "read", "catalogue"} {
		t.Run(op, func(t *testing.T) {
			f := &dirFaults{}
			e := newDisksEnv(t, []int64{64 << 20, 64 << 20}, func(o *Options) {
				o.faultAt = f.fault
				o.NoSync = op != "sync"
			})
			c := e.c()
			// Per disk: three warm objects of three slices, and a fresh key.
			keys := keysOn(t, c, "obj", 4)
			data := map[string][]byte{}
			for d, ks := range keys {
				for i, ck := range ks {
					data[ck] = randomBytes(uint64(100*d+i), 2*testSlice+100*i+1)
					e.origin.put(ck, data[ck])
				}
			}
			for _, ks := range keys {
				for _, ck := range ks[:3] {
					e.mustGet(ck, data[ck], xMiss)
				}
			}
			e.settle()
			for d, ks := range keys {
				for _, ck := range ks[:3] {
					if got := e.diskOf(ck); got != d {
						t.Fatalf("%s on disk %d, placed on %d", ck, got, d)
					}
				}
			}
			failed := c.disks[0]
			f.set(failed.dir, op, "probe", "attach")

			// The request that meets the failure is answered all the same.
			trigger := keys[0][3]
			if op == "read" {
				trigger = keys[0][0]
			}
			r := e.get(trigger)
			checkBody(t, "GET meeting the failure", r, http.StatusOK, data[trigger])
			eventually(t, "the failure to be noticed", func() bool { return !c.Stats().Disks[0].Healthy })
			s := c.Stats()
			if s.Healthy || !s.Disks[1].Healthy || s.Disks[0].Failures == 0 || s.Disks[1].Failures != 0 {
				t.Fatalf("stats after the failure: %+v", s)
			}

			// The healthy disk's objects are hits from the cache.
			before := e.origin.all()
			for _, ck := range keys[1][:3] {
				e.mustGet(ck, data[ck], xHit)
			}
			if n := e.origin.all() - before; n != 0 {
				t.Errorf("%d origin requests for the healthy disk's objects, want 0", n)
			}
			// The failed disk's keys go to the healthy one.
			e.clock.advance(time.Minute)
			moved := keys[0][1]
			e.mustGet(moved, data[moved], xMiss)
			e.settle()
			if d := e.diskOf(moved); d != 1 {
				t.Fatalf("%s on disk %d while disk 0 is failed, want 1", moved, d)
			}
			before = e.origin.all()
			e.mustGet(moved, data[moved], xHit)
			if n := e.origin.all() - before; n != 0 {
				t.Errorf("%d origin requests for a re-placed object's hit, want 0", n)
			}
			e.settle()
			// Its three, the moved key, and the key that met the failure
			// where create (tried on the next disk) or read (fetched
			// again) failed; a failed write, sync or commit gave it up.
			want := map[string]int{"create": 5, "write": 4, "sync": 4, "read": 5, "catalogue": 4}[op]
			if s := c.Stats(); s.Disks[1].Objects != want || s.Disks[0].Objects != 0 {
				t.Errorf("disks hold %d and %d objects, want 0 and %d", s.Disks[0].Objects, s.Disks[1].Objects, want)
			}

			// The disk comes back: its untouched object is a hit again,
			// from the recorded slices.
			f.set(failed.dir)
			eventually(t, "the disk to be attached again", func() bool { return c.Stats().Disks[0].Healthy })
			kept := keys[0][2]
			before = e.origin.all()
			e.mustGet(kept, data[kept], xHit)
			r = e.get(kept, "Range", "bytes=70000-70009")
			checkBody(t, "range after the reattach", r, http.StatusPartialContent, data[kept][70000:70010])
			if n := e.origin.all() - before; n != 0 {
				t.Errorf("%d origin requests for a reattached disk's object, want 0", n)
			}
			if d := e.diskOf(kept); d != 0 {
				t.Errorf("%s on disk %d after the reattach, want 0", kept, d)
			}
			// The re-placed key stays on disk 1, a hit.
			e.mustGet(moved, data[moved], xHit)
			if d := e.diskOf(moved); d != 1 {
				t.Errorf("%s on disk %d after the reattach, want 1", moved, d)
			}
			if n := e.origin.all() - before; n != 0 {
				t.Errorf("%d origin requests after the reattach, want 0", n)
			}
			if s := c.Stats(); !s.Healthy || s.Disks[0].Hits == 0 || s.Disks[1].Hits < 4 || s.Disks[0].Misses < 3 {
				t.Errorf("stats after the reattach: %+v", s)
			}
		})
	}
}

// TestRestartWithDiskMissing checks that a cache whose disk directory is
// absent at start serves with the others and logs it, stores the missing
// disk's share on them, and reattaches the disk when it appears, its
// objects served without an origin request except those fetched
// meanwhile, whose older copy is removed.
func TestRestartWithDiskMissing(t *testing.T) {
	logs := &syncBuffer{}
	e := newDisksEnv(t, []int64{64 << 20, 64 << 20}, func(o *Options) {
		o.Logger = zerolog.New(logs)
	})
	c := e.c()
	keys := keysOn(t, c, "obj", 3)
	data := map[string][]byte{}
	for d, ks := range keys {
		for i, ck := range ks {
			data[ck] = randomBytes(uint64(200+10*d+i), testSlice+1000*i+3)
			e.origin.put(ck, data[ck])
			e.mustGet(ck, data[ck], xMiss)
		}
	}
	e.settle()
	missing := e.opts.Disks[1].Dir
	movedID := e.fileOf(keys[1][0])
	idOf := map[string]string{}
	for _, ck := range keys[1] {
		idOf[ck] = e.fileOf(ck)
	}
	if err := e.c().Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(missing, missing+".unmounted"); err != nil {
		t.Fatal(err)
	}
	c = e.open()
	if !strings.Contains(logs.String(), "edge cache disk unusable") || !strings.Contains(logs.String(), missing) {
		t.Errorf("no log line for the missing disk %s:\n%s", missing, logs.String())
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the missing disk's directory was created (%v)", err)
	}
	s := c.Stats()
	if !s.Disks[0].Healthy || s.Disks[1].Healthy || s.Objects != 3 {
		t.Fatalf("stats with disk 1 missing: %+v", s)
	}
	before := e.origin.all()
	for _, ck := range keys[0] {
		e.mustGet(ck, data[ck], xHit)
	}
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests for the present disk's objects, want 0", n)
	}
	e.clock.advance(time.Minute)
	moved := keys[1][0]
	e.mustGet(moved, data[moved], xMiss)
	if d := e.diskOf(moved); d != 0 {
		t.Fatalf("%s on disk %d with disk 1 missing, want 0", moved, d)
	}
	e.settle()

	// The disk is mounted again, one of its files truncated meanwhile.
	truncated := keys[1][2]
	if err := os.Truncate(dataPath(filepath.Join(missing+".unmounted", "data"), idOf[truncated]), 100); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(missing+".unmounted", missing); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the disk to be attached", func() bool { return c.Stats().Disks[1].Healthy })
	if d := e.diskOf(truncated); d != -1 {
		t.Fatalf("the truncated file's object is served from disk %d", d)
	}
	e.mustGet(truncated, data[truncated], xMiss)
	before = e.origin.all()
	for _, ck := range keys[1][1:] {
		e.mustGet(ck, data[ck], xHit)
		if d := e.diskOf(ck); d != placedOn(t, c, ck) {
			t.Errorf("%s on disk %d after the reattach, want %d", ck, d, placedOn(t, c, ck))
		}
	}
	e.mustGet(moved, data[moved], xHit)
	if d := e.diskOf(moved); d != 0 {
		t.Errorf("%s on disk %d after the reattach, want 0 (the newer copy)", moved, d)
	}
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests after the reattach, want 0", n)
	}
	// The older copy on disk 1 goes, file and record.
	eventually(t, "the older copy to be removed", func() bool {
		e.c().flush()
		_, err := os.Stat(dataPath(filepath.Join(missing, "data"), movedID))
		if !os.IsNotExist(err) {
			return false
		}
		var recorded bool
		c.mu.Lock()
		cat := c.disks[1].cat
		c.mu.Unlock()
		_ = cat.load(func(ck string, r record, _ bool) { recorded = recorded || r.ID == movedID })
		return !recorded
	})

	// A restart with both disks keeps every object where it is.
	c = e.restart()
	before = e.origin.all()
	for _, ks := range keys {
		for _, ck := range ks {
			e.mustGet(ck, data[ck], xHit)
		}
	}
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests after the restart, want 0", n)
	}
	if s := c.Stats(); s.Objects != 6 || !s.Healthy {
		t.Errorf("stats after the restart: %+v", s)
	}
}

// TestDiskBudgets checks that each disk evicts within its own budget:
// filling one disk past its budget evicts its own least recently used
// objects, never the other disk's.
func TestDiskBudgets(t *testing.T) {
	const size = testSlice
	e := newDisksEnv(t, []int64{4 * size, 64 * size}, nil)
	c := e.c()
	keys := keysOn(t, c, "obj", 6)
	data := map[string][]byte{}
	for d, ks := range keys {
		for i, ck := range ks {
			data[ck] = randomBytes(uint64(300+10*d+i), size)
			e.origin.put(ck, data[ck])
		}
	}
	for _, ck := range keys[1] {
		e.mustGet(ck, data[ck], xMiss)
	}
	for _, ck := range keys[0] {
		e.mustGet(ck, data[ck], xMiss)
	}
	e.settle()
	s := c.Stats()
	if s.Disks[0].Objects != 4 || s.Disks[0].Bytes != 4*size || s.Disks[1].Objects != 6 || s.Evictions != 2 {
		t.Fatalf("stats: %+v", s)
	}
	for _, ck := range keys[0][:2] {
		if e.diskOf(ck) != -1 {
			t.Errorf("%s kept on the full disk", ck)
		}
	}
	before := e.origin.all()
	for _, ck := range keys[1] {
		e.mustGet(ck, data[ck], xHit)
	}
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests for the other disk's objects, want 0", n)
	}
}

// TestDiskOptions checks the options of the disks: one directory (Dir or
// a single Disks entry) is created when absent, a directory of several is
// not; a directory given twice, both forms at once, or a budget that is
// not positive are refused.
func TestDiskOptions(t *testing.T) {
	base := t.TempDir()
	t.Run("dir", func(t *testing.T) {
		e := newEnv(t, func(o *Options) { o.Dir = filepath.Join(base, "sole", "edge") })
		if !e.c().Stats().Healthy {
			t.Fatal("the sole cache directory was not created")
		}
		if _, err := os.Stat(filepath.Join(base, "sole", "edge", "catalog.db")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("one disk", func(t *testing.T) {
		e := newDisksEnv(t, []int64{1 << 20}, func(o *Options) { o.Disks[0].Dir = filepath.Join(base, "one") })
		if s := e.c().Stats(); !s.Healthy || len(s.Disks) != 1 || s.MaxBytes != 1<<20 {
			t.Fatalf("one disk given as Disks: %+v", s)
		}
	})
	var good Options
	t.Run("absent disk", func(t *testing.T) {
		e := newDisksEnv(t, []int64{1 << 20, 3 << 20}, func(o *Options) { o.Disks[1].Dir = filepath.Join(base, "absent") })
		if s := e.c().Stats(); s.Healthy || !s.Disks[0].Healthy || s.Disks[1].Healthy || s.MaxBytes != 4<<20 {
			t.Fatalf("an absent disk of two: %+v", s)
		}
		if _, err := os.Stat(filepath.Join(base, "absent")); !os.IsNotExist(err) {
			t.Fatalf("the absent disk's directory was created (%v)", err)
		}
		good = e.opts
	})
	if good.Disks == nil {
		t.FailNow()
	}
	for name, mod := range map[string]func(o *Options){
		"twice":    func(o *Options) { o.Disks = []Disk{{Dir: base + "/x", MaxBytes: 1}, {Dir: base + "/x/", MaxBytes: 1}} },
		"both":     func(o *Options) { o.Dir = base },
		"no size":  func(o *Options) { o.Disks[1].MaxBytes = 0 },
		"no dir":   func(o *Options) { o.Disks[0].Dir = "" },
		"nothing":  func(o *Options) { o.Disks = nil },
		"negative": func(o *Options) { o.Disks[0].MaxBytes = -1 },
	} {
		o := good
		o.Disks = slices.Clone(good.Disks)
		mod(&o)
		if c, err := Open(o); err == nil {
			c.Close()
			t.Errorf("%s: Open accepted %+v", name, o.Disks)
		}
	}
}

// errWriter is a ResponseWriter whose body writes fail with err, as a
// sendfile from a failing disk (EIO) or to a gone client (EPIPE) does.
type errWriter struct {
	h   http.Header
	err error
}

func (w *errWriter) Header() http.Header                 { return w.h }
func (w *errWriter) WriteHeader(int)                     {}
func (w *errWriter) Write(p []byte) (int, error)         { return 0, w.err }
func (w *errWriter) ReadFrom(r io.Reader) (int64, error) { return 0, w.err }

// TestDiskReadErrorMidBody checks that an I/O error while a cached file
// is being sent drops its disk, while a client's broken connection does
// not, and that the object is then fetched onto the other disk.
func TestDiskReadErrorMidBody(t *testing.T) {
	f := &dirFaults{}
	e := newDisksEnv(t, []int64{64 << 20, 64 << 20}, func(o *Options) { o.faultAt = f.fault })
	c := e.c()
	// The probe fails: once dropped, disk 0 stays out.
	f.set(c.disks[0].dir, "probe")
	keys := keysOn(t, c, "obj", 1)
	ck := keys[0][0]
	data := randomBytes(400, 2*testSlice+5)
	e.origin.put(ck, data)
	e.mustGet(ck, data, xMiss)
	bucket, key, _ := strings.Cut(ck, "/")
	r := httptest.NewRequest(http.MethodGet, "/"+ck, nil)

	epipe := &os.SyscallError{Syscall: "write", Err: syscall.EPIPE}
	if err := c.Serve(&errWriter{h: http.Header{}, err: epipe}, r, bucket, key); err == nil {
		t.Fatal("Serve to a broken connection succeeded")
	}
	if s := c.Stats(); !s.Disks[0].Healthy || s.Disks[0].Failures != 0 {
		t.Fatalf("a client's broken connection failed the disk: %+v", s.Disks[0])
	}
	eio := &os.SyscallError{Syscall: "sendfile", Err: syscall.EIO}
	if err := c.Serve(&errWriter{h: http.Header{}, err: eio}, r, bucket, key); err == nil {
		t.Fatal("Serve with a failing read succeeded")
	}
	if s := c.Stats(); s.Disks[0].Healthy || s.Disks[0].Failures != 1 || !s.Disks[1].Healthy {
		t.Fatalf("stats after an EIO: %+v", s.Disks)
	}
	e.clock.advance(time.Minute)
	e.mustGet(ck, data, xMiss)
	if d := e.diskOf(ck); d != 1 {
		t.Errorf("%s on disk %d after disk 0 failed, want 1", ck, d)
	}
}

// TestDisksUnderLoad runs clients over the objects of three disks while
// one of them fails at write and read and comes back: every body is
// right, and afterwards every object is cached again and served from the
// cache.
func TestDisksUnderLoad(t *testing.T) {
	f := &dirFaults{}
	e := newDisksEnv(t, []int64{16 << 20, 16 << 20, 32 << 20}, func(o *Options) { o.faultAt = f.fault })
	c := e.c()
	const objects, clients, rounds = 24, 6, 40
	data := make(map[string][]byte, objects)
	var keys []string
	for i := range objects {
		ck := fmt.Sprintf("b/load/%d", i)
		data[ck] = randomBytes(uint64(500+i), testSlice/2+i*7919)
		e.origin.put(ck, data[ck])
		keys = append(keys, ck)
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients*rounds)
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if w == 0 && i == rounds/4 {
					f.set(c.disks[1].dir, "write", "read", "probe")
				}
				if w == 0 && i == rounds*3/4 {
					f.set(c.disks[1].dir)
				}
				ck := keys[(w*7+i*5)%objects]
				r := e.get(ck)
				if r.err != nil || r.status != http.StatusOK || !bytes.Equal(r.body, data[ck]) {
					errs <- fmt.Errorf("GET %s: %d, %d bytes, %v", ck, r.status, len(r.body), r.err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	eventually(t, "every disk to be healthy", func() bool { return c.Stats().Healthy })
	for _, ck := range keys {
		e.mustGet(ck, data[ck], "")
	}
	e.settle()
	before := e.origin.all()
	for _, ck := range keys {
		e.mustGet(ck, data[ck], xHit)
	}
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests for cached objects, want 0", n)
	}
	if s := c.Stats(); s.Objects != objects || s.Disks[0].Objects+s.Disks[1].Objects+s.Disks[2].Objects != objects || s.Disks[1].Failures == 0 {
		t.Errorf("stats: %+v", s)
	}
}

// TestDiskReadOutOfDescriptors checks that a cached file that cannot be
// opened for want of file descriptors (EMFILE) fails neither its disk nor
// its entry: the request is relayed, and the object is a hit again once
// descriptors are free.
func TestDiskReadOutOfDescriptors(t *testing.T) {
	var emfile atomic.Bool
	e := newEnv(t, func(o *Options) {
		o.faultAt = func(_, op string) error {
			if op == "read" && emfile.Load() {
				return &os.PathError{Op: "open", Path: "data", Err: syscall.EMFILE}
			}
			return nil
		}
	})
	data := randomBytes(600, testSlice+10)
	e.origin.put("b/obj", data)
	e.mustGet("b/obj", data, xMiss)
	e.settle()
	emfile.Store(true)
	e.mustGet("b/obj", data, xPass)
	emfile.Store(false)
	if s := e.c().Stats(); !s.Healthy || s.DiskErrors != 0 || s.Objects != 1 {
		t.Fatalf("stats after EMFILE: %+v", s)
	}
	before := e.origin.all()
	e.mustGet("b/obj", data, xHit)
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests after EMFILE, want 0", n)
	}
}

// TestUnmountedDiskStaysFailed checks that a disk of several whose
// directory goes away while the cache runs (unmounted) fails at its next
// create and stays failed, its directory not made again by a create or a
// probe, so that nothing is written where the disk was mounted.
func TestUnmountedDiskStaysFailed(t *testing.T) {
	e := newDisksEnv(t, []int64{64 << 20, 64 << 20}, func(o *Options) { o.ProbeInterval = time.Hour })
	c := e.c()
	keys := keysOn(t, c, "u", 3)
	gone := e.opts.Disks[1].Dir
	if err := os.Rename(gone, gone+".unmounted"); err != nil {
		t.Fatal(err)
	}
	for _, ks := range keys {
		for _, ck := range ks {
			data := randomBytes(uint64(len(ck)*7), 2000)
			e.origin.put(ck, data)
			if r := e.get(ck); r.status != http.StatusOK || !bytes.Equal(r.body, data) {
				t.Fatalf("GET %s: %d, %d bytes", ck, r.status, len(r.body))
			}
		}
	}
	for range 3 {
		c.probe()
	}
	if s := c.Stats(); !s.Disks[0].Healthy || s.Disks[1].Healthy {
		t.Errorf("disks after the unmount: %+v", s.Disks)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the unmounted disk's directory was made again (%v)", err)
	}
}
