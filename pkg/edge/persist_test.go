package edge

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestRestartKeepsCache checks that complete objects are served after a
// restart without asking the origin.
func TestRestartKeepsCache(t *testing.T) {
	e := newEnv(t, nil)
	small := randomBytes(5, 1000)
	big := randomBytes(6, 3*testSlice+17)
	e.origin.put("b/small", small, func(o *object) { o.meta = map[string]string{"Color": "blue"} })
	e.origin.put("b/dir/big", big)
	e.mustGet("b/small", small, xMiss)
	e.mustGet("b/dir/big", big, xMiss)
	e.settle()
	files := e.dataFiles()
	if len(files) != 2 {
		t.Fatalf("data files %v, want 2", files)
	}

	e.restart()
	before := e.origin.all()
	r := e.mustGet("b/small", small, xHit)
	if r.header.Get("X-Amz-Meta-Color") != "blue" || r.header.Get("ETag") == "" || r.header.Get("Last-Modified") == "" {
		t.Errorf("headers after a restart: %v", r.header)
	}
	e.mustGet("b/dir/big", big, xHit)
	r = e.get("b/dir/big", "Range", "bytes=150000-150009")
	checkBody(t, "range after a restart", r, http.StatusPartialContent, big[150000:150010])
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests after the restart, want 0", n)
	}
	if s := e.c().Stats(); s.Objects != 2 || s.Bytes != int64(len(small)+len(big)) || !s.Healthy {
		t.Errorf("stats after a restart: %+v", s)
	}
	if got := e.dataFiles(); !slices.Equal(got, files) {
		t.Errorf("data files %v, want %v", got, files)
	}
}

// TestRestartAfterCutFill checks that a slice whose origin body was cut is
// not recorded: after a restart it is fetched again and the bytes are
// right, while the complete slices are not fetched again; an object whose
// first slice was cut has no record and its file goes at Open.
func TestRestartAfterCutFill(t *testing.T) {
	// b/first's reader follows its fill, as with objects larger than
	// defaultSmallObject.
	e := newEnv(t, func(o *Options) { o.smallObject = -1 })
	size := int64(3*testSlice + 100)
	data := randomBytes(7, int(size))
	first := randomBytes(17, testSlice-5)
	e.origin.put("b/obj", data)
	e.origin.put("b/first", first)

	// Slice 0 complete, then slice 1 cut half-way under its only reader.
	r := e.get("b/obj", "Range", "bytes=0-99")
	checkBody(t, "slice 0", r, http.StatusPartialContent, data[:100])
	e.origin.cut("b/obj", testSlice+testSlice/2)
	r = e.get("b/obj", "Range", fmt.Sprintf("bytes=%d-%d", testSlice, 2*testSlice-1))
	if r.err == nil {
		t.Fatalf("the cut slice arrived whole (%d bytes, status %d)", len(r.body), r.status)
	}
	if !slices.Equal(r.body, data[testSlice:testSlice+len(r.body)]) {
		t.Fatalf("the cut body's first %d bytes are wrong", len(r.body))
	}
	// The first slice of b/first cut under its reader: no record, a file.
	g := e.origin.pause("b/first", 1000)
	resp := e.stream("b/first")
	g.wait(t)
	readN(t, resp.Body, 1000)
	g.abort()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatalf("the cut body of b/first arrived whole")
	}
	e.settle()
	c := e.c()
	c.mu.Lock()
	if en := c.entries["b/obj"]; en == nil || en.has(1) || !en.has(0) {
		t.Errorf("after the cut: entry %v, want slice 0 and not slice 1", en)
	}
	c.mu.Unlock()
	objID, firstID := e.fileOf("b/obj"), e.fileOf("b/first")
	if firstID == "" {
		t.Fatal("no entry for b/first")
	}
	if got, want := e.recorded(), []string{"b/obj"}; !slices.Equal(got, want) {
		t.Errorf("catalogue %v, want %v", got, want)
	}

	e.restart()
	if got := e.dataFiles(); !slices.Equal(got, []string{objID}) {
		t.Errorf("data files after Open %v, want only %v (not %v)", got, objID, firstID)
	}
	e.mustGet("b/obj", data, xMiss) // slice 1 comes from the origin again
	if n := e.origin.fetches("b/obj", 0); n != 1 {
		t.Errorf("slice 0 fetched %d times, want 1", n)
	}
	if n := e.origin.fetches("b/obj", 1); n != 2 {
		t.Errorf("slice 1 fetched %d times, want 2 (the cut one and again)", n)
	}
	e.mustGet("b/first", first, xMiss)
	e.mustGet("b/first", first, xHit)
}

// TestRestartDuringFill checks that a fill in flight at Close is not
// served after the restart (its file is removed at Open, as is any file
// without a record), and that the object is then fetched whole.
func TestRestartDuringFill(t *testing.T) {
	// The client follows the fill, as with objects larger than
	// defaultSmallObject.
	e := newEnv(t, func(o *Options) { o.smallObject = -1 })
	kept := randomBytes(8, 5000)
	data := randomBytes(9, testSlice-10)
	e.origin.put("b/kept", kept)
	e.origin.put("b/obj", data)
	e.mustGet("b/kept", kept, xMiss)
	e.settle()
	g := e.origin.pause("b/obj", 20000)
	first := e.stream("b/obj")
	g.wait(t)
	id := e.fileOf("b/obj")
	if id == "" {
		t.Fatal("no entry for the fill in flight")
	}
	// Left by a crash: a file no record names, in its subdirectory, in
	// the wrong one, and in data itself (where files were kept before
	// the subdirectories).
	dataDir := filepath.Join(e.opts.Dir, "data")
	for _, stray := range []string{
		dataPath(dataDir, "0123456789abcdef0123456789abcdef"),
		filepath.Join(dataDir, "ab", "0123456789abcdef0123456789abcdee"),
		filepath.Join(dataDir, "0123456789abcdef0123456789abcded"),
	} {
		if err := os.WriteFile(stray, []byte("left by a crash"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	keptID := e.fileOf("b/kept")
	e.restart()
	if got := e.dataFiles(); !slices.Equal(got, []string{keptID}) {
		t.Errorf("data files after Open %v, want only %v", got, keptID)
	}
	// The client of the old cache still gets its body.
	g.open()
	rest := readN(t, first.Body, len(data))
	if !slices.Equal(rest, data) {
		t.Error("the client of the closed cache got wrong bytes")
	}

	e.mustGet("b/obj", data, xMiss)
	e.mustGet("b/obj", data, xHit)
	e.mustGet("b/kept", kept, xHit)
	if n := e.origin.fetches("b/obj", 0); n != 2 {
		t.Errorf("b/obj fetched %d times, want 2", n)
	}
}

// TestEviction checks the byte budget: the least recently used objects
// are evicted (files and records), and objects larger than half the
// budget are passed through without being stored.
func TestEviction(t *testing.T) {
	const budget = 1 << 20
	e := newEnv(t, func(o *Options) { o.MaxBytes = budget })
	const size = 200 << 10
	objs := make([][]byte, 7)
	ids := make([]string, 7)
	key := func(i int) string { return "b/o" + string(rune('0'+i)) }
	get := func(i int, x string) {
		t.Helper()
		e.clock.advance(time.Second)
		e.mustGet(key(i), objs[i], x)
	}
	for i := range objs {
		objs[i] = randomBytes(uint64(10+i), size)
		e.origin.put(key(i), objs[i])
	}
	for i := range 4 {
		get(i, xMiss)
		ids[i] = e.fileOf(key(i))
	}
	get(0, xHit) // o0 is now the most recently used
	for i := 4; i < 7; i++ {
		get(i, xMiss)
		ids[i] = e.fileOf(key(i))
		if s := e.c().Stats(); s.Bytes > budget {
			t.Fatalf("after o%d: %d bytes cached, over the budget of %d", i, s.Bytes, budget)
		}
	}
	// 7 × 200 KiB against 1 MiB: two evicted, the least recently used
	// (o1, o2), not o0.
	s := e.c().Stats()
	if s.Evictions != 2 || s.Objects != 5 || s.Bytes != 5*size {
		t.Errorf("stats %+v, want 2 evictions and 5 objects", s)
	}
	gone := map[string]bool{ids[1]: true, ids[2]: true}
	eventually(t, "evicted files to be removed", func() bool {
		for _, f := range e.dataFiles() {
			if gone[f] {
				return false
			}
		}
		return true
	})
	e.settle()
	if got, want := e.recorded(), []string{"b/o0", "b/o3", "b/o4", "b/o5", "b/o6"}; !slices.Equal(got, want) {
		t.Errorf("catalogue %v, want %v", got, want)
	}

	e.restart()
	if got, want := e.recorded(), []string{"b/o0", "b/o3", "b/o4", "b/o5", "b/o6"}; !slices.Equal(got, want) {
		t.Errorf("catalogue after a restart %v, want %v", got, want)
	}
	// The order survived the restart: o3 is the least recently used
	// (o0 was read after it), so o1 coming back evicts it.
	get(1, xMiss)
	if e.fileOf("b/o3") != "" || e.fileOf("b/o0") == "" {
		t.Errorf("after a restart, o3 should have been evicted, not o0")
	}
	before := e.origin.all()
	for _, i := range []int{0, 4, 5, 6, 1} {
		get(i, xHit)
	}
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests for cached objects after a restart", n)
	}

	// Larger than half the budget: relayed, never stored.
	large := randomBytes(20, budget/2+1)
	e.origin.put("b/large", large)
	files := e.dataFiles()
	for range 2 {
		e.clock.advance(time.Second)
		e.mustGet("b/large", large, xPass)
	}
	r := e.get("b/large", "Range", "bytes=10-19")
	checkBody(t, "range of a passed object", r, http.StatusPartialContent, large[10:20])
	if e.fileOf("b/large") != "" {
		t.Error("the large object has an entry")
	}
	if got := e.dataFiles(); !slices.Equal(got, files) {
		t.Errorf("data files changed by a pass-through: %v, want %v", got, files)
	}
	if s := e.c().Stats(); s.Passes != 3 {
		t.Errorf("%d passes, want 3", s.Passes)
	}
}

// TestRestartWithoutFile checks that a record whose file is gone (removed
// behind the cache's back, or an eviction whose record removal did not
// reach the catalogue before a shutdown) is dropped at Open rather than
// counted against the budget.
func TestRestartWithoutFile(t *testing.T) {
	e := newEnv(t, nil)
	a, b := randomBytes(100, 5000), randomBytes(101, 6000)
	e.origin.put("b/a", a)
	e.origin.put("b/b", b)
	e.mustGet("b/a", a, xMiss)
	e.mustGet("b/b", b, xMiss)
	e.settle()
	if err := os.Remove(dataPath(filepath.Join(e.opts.Dir, "data"), e.fileOf("b/a"))); err != nil {
		t.Fatal(err)
	}
	e.restart()
	if s := e.c().Stats(); s.Objects != 1 || s.Bytes != int64(len(b)) {
		t.Errorf("after a restart: %d objects of %d bytes, want 1 of %d", s.Objects, s.Bytes, len(b))
	}
	if got := e.recorded(); !slices.Equal(got, []string{"b/b"}) {
		t.Errorf("catalogue %v, want [b/b]", got)
	}
	e.mustGet("b/a", a, xMiss)
	e.mustGet("b/b", b, xHit)
}

// TestRestartMovesFlatLayout checks that a cache written when every file
// lay in data itself is served after a restart with its files moved into
// their subdirectories, without asking the origin, and that the layout
// holds each file under the subdirectory of its id's first two digits.
func TestRestartMovesFlatLayout(t *testing.T) {
	logs := &syncBuffer{}
	e := newEnv(t, func(o *Options) { o.Logger = zerolog.New(logs) })
	objs := map[string][]byte{}
	for i := range 5 {
		ck := fmt.Sprintf("b/k%d", i)
		objs[ck] = randomBytes(uint64(40+i), 2*testSlice+i)
		e.origin.put(ck, objs[ck])
		e.mustGet(ck, objs[ck], xMiss)
	}
	e.settle()
	dataDir := filepath.Join(e.opts.Dir, "data")
	ids := map[string]string{}
	for ck := range objs {
		id := e.fileOf(ck)
		if _, err := os.Stat(filepath.Join(dataDir, id[:2], id)); err != nil {
			t.Fatalf("%s: file not in its subdirectory: %v", ck, err)
		}
		ids[ck] = id
	}
	if err := e.c().Close(); err != nil {
		t.Fatal(err)
	}
	// The layout of earlier caches: the files in data, no subdirectories.
	for _, id := range ids {
		if err := os.Rename(dataPath(dataDir, id), filepath.Join(dataDir, id)); err != nil {
			t.Fatal(err)
		}
	}
	removeSubdirectories(t, dataDir)

	e.open()
	if !strings.Contains(logs.String(), `"files":5,`) {
		t.Errorf("no log line of the 5 files moved:\n%s", logs.String())
	}
	before := e.origin.all()
	for ck, want := range objs {
		e.mustGet(ck, want, xHit)
	}
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests after the move, want 0", n)
	}
	for ck, id := range ids {
		if _, err := os.Stat(filepath.Join(dataDir, id)); !os.IsNotExist(err) {
			t.Errorf("%s: still in data itself (%v)", ck, err)
		}
		if _, err := os.Stat(dataPath(dataDir, id)); err != nil {
			t.Errorf("%s: not moved: %v", ck, err)
		}
	}
	// A new object goes to the layout too, and a restart keeps it all.
	e.origin.put("b/new", objs["b/k0"])
	e.mustGet("b/new", objs["b/k0"], xMiss)
	e.settle()
	id := e.fileOf("b/new")
	if _, err := os.Stat(dataPath(dataDir, id)); err != nil {
		t.Errorf("new object's file: %v", err)
	}
	e.restart()
	if got := e.dataFiles(); len(got) != 6 {
		t.Errorf("data files after a second restart %v, want 6", got)
	}
}

// TestCreateRemakesSubdirectory checks that subdirectories removed behind
// the cache's back are made again when an object's file goes there, and
// that a create does not make a data directory removed whole: the disk
// fails (the probe, off here, makes a sole disk's directory again; one
// of several disks must exist, see TestUnmountedDiskStaysFailed).
func TestCreateRemakesSubdirectory(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.ProbeInterval = time.Hour })
	dataDir := filepath.Join(e.opts.Dir, "data")
	removeSubdirectories(t, dataDir)
	data := randomBytes(50, 1000)
	e.origin.put("b/obj", data)
	e.mustGet("b/obj", data, xMiss)
	e.mustGet("b/obj", data, xHit)
	if s := e.c().Stats(); !s.Healthy {
		t.Errorf("stats %+v: the disk failed", s)
	}
	if _, err := os.Stat(dataPath(dataDir, e.fileOf("b/obj"))); err != nil {
		t.Error(err)
	}

	if err := os.RemoveAll(dataDir); err != nil {
		t.Fatal(err)
	}
	e.origin.put("b/other", data)
	e.mustGet("b/other", data, xPass)
	if s := e.c().Stats(); s.Healthy {
		t.Errorf("stats %+v: the disk works without its data directory", s)
	}
	if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
		t.Errorf("data directory made again: %v", err)
	}
}

// TestStrayFileNamedLikeSubdirectory checks that a file where a
// subdirectory of the layout belongs is removed like any other stray
// rather than making the disk unusable.
func TestStrayFileNamedLikeSubdirectory(t *testing.T) {
	e := newEnv(t, nil)
	data := randomBytes(51, 1000)
	e.origin.put("b/obj", data)
	e.mustGet("b/obj", data, xMiss)
	e.settle()
	dataDir := filepath.Join(e.opts.Dir, "data")
	if err := e.c().Close(); err != nil {
		t.Fatal(err)
	}
	stray := "ab"
	if e.fileOf("b/obj")[:2] == stray {
		stray = "cd"
	}
	if err := os.RemoveAll(filepath.Join(dataDir, stray)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, stray), []byte("stray"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.open()
	if s := e.c().Stats(); !s.Healthy {
		t.Fatalf("stats %+v: a stray file named %s fails the disk", s, stray)
	}
	e.mustGet("b/obj", data, xHit)
	if fi, err := os.Stat(filepath.Join(dataDir, stray)); err != nil || !fi.IsDir() {
		t.Errorf("%s after Open: %v, %v; want a directory", stray, fi, err)
	}
}

// removeSubdirectories checks that dataDir has the layout's 256
// subdirectories and removes them, which must be empty.
func removeSubdirectories(t *testing.T, dataDir string) {
	t.Helper()
	subs, err := filepath.Glob(filepath.Join(dataDir, "??"))
	if err != nil || len(subs) != 256 {
		t.Fatalf("%d subdirectories (%v), want 256", len(subs), err)
	}
	for _, s := range subs {
		if err := os.Remove(s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordWaitsForWriteback checks that a finished slice is synced and
// recorded only once it is syncAge old, so that the kernel has written
// its pages out by then and the sync only confirms it, and that Close
// records every finished slice however recent.
func TestRecordWaitsForWriteback(t *testing.T) {
	var syncs atomic.Int64
	e := lateSyncEnv(t, &syncs, nil)
	old := randomBytes(90, 2*testSlice+3)
	young := randomBytes(91, 1000)
	e.origin.put("b/old", old)
	e.origin.put("b/young", young)
	c := e.c()
	finished := func(ck string) func() bool {
		return func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			en := c.entries[ck]
			return en != nil && len(en.fills) == 0 && en.complete() && en.queued
		}
	}

	e.mustGet("b/old", old, xMiss)
	eventually(t, "b/old to be filled", finished("b/old"))
	c.flush()
	if got := e.recorded(); len(got) != 0 {
		t.Errorf("recorded %v before syncAge passed, want none", got)
	}
	if n := syncs.Load(); n != 0 {
		t.Errorf("%d syncs before syncAge passed, want 0", n)
	}

	e.clock.advance(time.Minute)
	e.mustGet("b/young", young, xMiss)
	eventually(t, "b/young to be filled", finished("b/young"))
	c.flush()
	if got, want := e.recorded(), []string{"b/old"}; !slices.Equal(got, want) {
		t.Errorf("recorded %v once b/old is syncAge old, want %v", got, want)
	}
	if n := syncs.Load(); n != 1 {
		t.Errorf("%d syncs, want 1 (b/old's file)", n)
	}

	// Close syncs and records b/young, a minute short of syncAge.
	e.restart()
	if got, want := e.recorded(), []string{"b/old", "b/young"}; !slices.Equal(got, want) {
		t.Errorf("recorded %v after a restart, want %v", got, want)
	}
	if n := syncs.Load(); n != 2 {
		t.Errorf("%d syncs after Close, want 2", n)
	}
	before := e.origin.all()
	e.mustGet("b/old", old, xHit)
	e.mustGet("b/young", young, xHit)
	if n := e.origin.all() - before; n != 0 {
		t.Errorf("%d origin requests after the restart, want 0", n)
	}
}

// TestWritebackAge checks the reading of the kernel's writeback delays.
func TestWritebackAge(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		path string
		want time.Duration
	}{
		{write("ok", "3000\n"), 30 * time.Second},
		{write("zero", "0\n"), 0},
		{write("junk", "lots\n"), 7 * time.Second},
		{write("negative", "-5\n"), 7 * time.Second},
		{filepath.Join(dir, "absent"), 7 * time.Second},
	} {
		if got := centisecs(tc.path, 700); got != tc.want {
			t.Errorf("centisecs(%s) = %v, want %v", filepath.Base(tc.path), got, tc.want)
		}
	}
	for _, tc := range []struct {
		expire, period string
		want           time.Duration
	}{
		{write("e1", "3000\n"), write("p1", "500\n"), 40 * time.Second}, // Linux's defaults
		{write("e2", "3000\n"), write("p2", "0\n"), 0},                  // periodic writeback off
		{write("e3", "360000\n"), write("p3", "500\n"), maxSyncAge},     // an hour: capped
		{filepath.Join(dir, "absent"), filepath.Join(dir, "absent"), 40 * time.Second},
	} {
		if got := writebackAgeOf(tc.expire, tc.period); got != tc.want {
			t.Errorf("writebackAgeOf(%s, %s) = %v, want %v", filepath.Base(tc.expire), filepath.Base(tc.period), got, tc.want)
		}
	}
}

// lateSyncEnv is newEnv with syncAge a minute by the fake clock, syncs,
// counted in *syncs.
func lateSyncEnv(t *testing.T, syncs *atomic.Int64, mod func(*Options)) *env {
	return newEnv(t, func(o *Options) {
		o.NoSync = false
		o.syncAge = time.Minute
		o.fault = func(op string) error {
			if op == "sync" {
				syncs.Add(1)
			}
			return nil
		}
		if mod != nil {
			mod(o)
		}
	})
}

// queued reports whether ck's entry has no fill running and waits for a
// flush.
func (e *env) queued(ck string) func() bool {
	return func() bool {
		c := e.c()
		c.mu.Lock()
		defer c.mu.Unlock()
		en := c.entries[ck]
		return en != nil && len(en.fills) == 0 && en.queued
	}
}

// TestSyncFileKept checks that a fill's descriptor is kept for the
// flush's sync while the record waits (so the inode, and any writeback
// error with it, stays in memory), is closed when the entry is dropped,
// and that beyond maxSyncFiles an entry does not wait: it is synced and
// recorded by the next flush.
func TestSyncFileKept(t *testing.T) {
	restore := maxSyncFiles
	t.Cleanup(func() { maxSyncFiles = restore })
	maxSyncFiles = 1
	var syncs atomic.Int64
	e := lateSyncEnv(t, &syncs, nil)
	a, b, x := randomBytes(92, 5000), randomBytes(93, 6000), randomBytes(94, 7000)
	e.origin.put("b/a", a)
	e.origin.put("b/b", b)
	e.origin.put("b/x", x)
	c := e.c()
	kept := func() (int, *os.File, *os.File) {
		c.mu.Lock()
		defer c.mu.Unlock()
		var fa, fb *os.File
		if en := c.entries["b/a"]; en != nil {
			fa = en.syncFile
		}
		if en := c.entries["b/b"]; en != nil {
			fb = en.syncFile
		}
		return c.syncFiles, fa, fb
	}

	e.mustGet("b/a", a, xMiss)
	eventually(t, "b/a queued", e.queued("b/a"))
	// b/b, past the limit, keeps no descriptor and does not wait: the
	// flushes every 5 ms record it, with the fake clock standing still.
	e.mustGet("b/b", b, xMiss)
	eventually(t, "b/b to be recorded", func() bool { return slices.Contains(e.recorded(), "b/b") })
	if n, fa, fb := kept(); n != 1 || fa == nil || fb != nil {
		t.Fatalf("kept descriptors: %d, b/a's %v, b/b's %v; want 1, b/a's only", n, fa != nil, fb != nil)
	}
	c.flush()
	if got, want := e.recorded(), []string{"b/b"}; !slices.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}

	// Dropping b/a closes its descriptor; b/x can then keep one.
	e.c().Purge("b", "a", false)
	if n, _, _ := kept(); n != 0 {
		t.Errorf("%d kept descriptors after b/a was purged, want 0", n)
	}
	e.mustGet("b/x", x, xMiss)
	eventually(t, "b/x queued", e.queued("b/x"))
	if n, _, _ := kept(); n != 1 {
		t.Errorf("%d kept descriptors after b/x's fill, want 1", n)
	}
	e.clock.advance(time.Minute)
	c.flush()
	if got, want := e.recorded(), []string{"b/b", "b/x"}; !slices.Equal(got, want) {
		t.Errorf("recorded %v once b/x is syncAge old, want %v", got, want)
	}
	if n, _, _ := kept(); n != 0 {
		t.Errorf("%d kept descriptors after the flush, want 0", n)
	}
	if n := syncs.Load(); n != 2 {
		t.Errorf("%d syncs, want 2 (b/b, b/x; b/a was purged)", n)
	}
}

// TestQueueDropsEvicted checks that entries evicted while queued behind a
// young one do not stay in the queue until it is old.
func TestQueueDropsEvicted(t *testing.T) {
	const size = 200 << 10
	var syncs atomic.Int64
	e := lateSyncEnv(t, &syncs, func(o *Options) { o.MaxBytes = 2 * size })
	// b/hot is hit after each miss: it stays cached, at the queue's
	// head, young; the others are evicted behind it.
	hot := randomBytes(99, size)
	e.origin.put("b/hot", hot)
	e.mustGet("b/hot", hot, xMiss)
	const n = 40
	for i := range n {
		ck := fmt.Sprintf("b/o%d", i)
		obj := randomBytes(uint64(100+i), size)
		e.origin.put(ck, obj)
		e.mustGet(ck, obj, xMiss)
		e.mustGet("b/hot", hot, xHit)
	}
	eventually(t, "the last fill to be queued", e.queued(fmt.Sprintf("b/o%d", n-1)))
	c := e.c()
	c.flush()
	c.mu.Lock()
	queued, dropped := len(c.disks[0].dirty), 0
	for _, en := range c.disks[0].dirty {
		if en.removed.Load() {
			dropped++
		}
	}
	c.mu.Unlock()
	if dropped > queued/2 {
		t.Errorf("after a flush the queue holds %d entries, %d of them evicted", queued, dropped)
	}
	e.clock.advance(time.Minute)
	c.flush()
	c.mu.Lock()
	left := len(c.disks[0].dirty) + len(c.disks[0].due)
	files := c.syncFiles
	c.mu.Unlock()
	if left != 0 || files != 0 {
		t.Errorf("after a flush a minute later: %d queued, %d kept descriptors; want none", left, files)
	}
}

// TestQueueAfterReattach checks that entries queued when their disk
// fails go with it, and that after the probe reattaches the disk new
// fills are queued afresh and recorded once syncAge old.
func TestQueueAfterReattach(t *testing.T) {
	f := &faults{}
	e := newEnv(t, func(o *Options) {
		o.NoSync = false
		o.syncAge = time.Minute
		o.fault = f.fault
	})
	a := randomBytes(1, 3000)
	x := randomBytes(2, 3000)
	e.origin.put("b/a", a)
	e.origin.put("b/x", x)
	c := e.c()
	e.mustGet("b/a", a, xMiss)
	eventually(t, "b/a queued", e.queued("b/a"))
	old := func() *entry { c.mu.Lock(); defer c.mu.Unlock(); return c.entries["b/a"] }()

	f.set("create", "probe", "attach")
	e.mustGet("b/x", x, xPass) // create fails: the disk is detached
	eventually(t, "the disk to fail", func() bool { return !c.disks[0].healthy.Load() })
	c.mu.Lock()
	if n := len(c.disks[0].dirty) + len(c.disks[0].due); n != 0 || !old.removed.Load() || c.syncFiles != 0 {
		t.Errorf("after the failure: %d queued, old entry removed %v, %d kept descriptors", n, old.removed.Load(), c.syncFiles)
	}
	c.mu.Unlock()
	f.set()
	eventually(t, "the disk to be reattached", func() bool { return c.disks[0].healthy.Load() })

	e.mustGet("b/a", a, xMiss)
	eventually(t, "b/a queued again", e.queued("b/a"))
	e.clock.advance(time.Minute)
	e.mustGet("b/x", x, xMiss)
	eventually(t, "b/x queued", e.queued("b/x"))
	c.flush()
	if got, want := e.recorded(), []string{"b/a"}; !slices.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	e.restart()
	if got, want := e.recorded(), []string{"b/a", "b/x"}; !slices.Equal(got, want) {
		t.Errorf("recorded %v after Close, want %v", got, want)
	}
}

// TestOutOfFilesIsNotADiskFailure checks that running out of file
// descriptors (EMFILE) when a miss creates its file, a fill opens one, or
// a flush opens one to sync it, leaves the disk healthy: the miss is
// relayed without being stored, the fill goes through memory, the
// flush's entry waits for the next flush.
func TestOutOfFilesIsNotADiskFailure(t *testing.T) {
	for _, op := range []string{"create", "write", "sync"} {
		t.Run(op, func(t *testing.T) {
			var out atomic.Bool
			restore := maxSyncFiles
			t.Cleanup(func() { maxSyncFiles = restore })
			maxSyncFiles = 0 // every fill is due at the next flush: the flush opens its file
			e := newEnv(t, func(o *Options) {
				o.NoSync = false
				o.syncAge = time.Minute
				o.fault = func(o string) error {
					if o == op && out.Load() {
						return syscall.EMFILE
					}
					return nil
				}
			})
			data := randomBytes(95, 5000)
			e.origin.put("b/obj", data)
			c := e.c()
			if op == "sync" {
				c.flushMu.Lock() // the fill is queued before a flush sees it
			}
			out.Store(true)
			if op == "create" {
				e.mustGet("b/obj", data, xPass) // relayed, not stored
			} else {
				e.mustGet("b/obj", data, xMiss)
			}
			if op == "sync" {
				eventually(t, "b/obj queued", e.queued("b/obj"))
				c.flushMu.Unlock()
				c.flush()
				c.flushMu.Lock() // no flush half-way
				queued := e.queued("b/obj")()
				c.flushMu.Unlock()
				if !queued {
					t.Error("b/obj left the queue although its sync could not open the file")
				}
			}
			if !c.disks[0].healthy.Load() {
				t.Fatalf("the disk failed on EMFILE in %s", op)
			}
			if got := e.recorded(); len(got) != 0 {
				t.Errorf("recorded %v while out of descriptors, want none", got)
			}
			out.Store(false)
			if op != "sync" {
				e.mustGet("b/obj", data, xMiss) // nothing was stored
			}
			eventually(t, "b/obj to be recorded", func() bool { return slices.Equal(e.recorded(), []string{"b/obj"}) })
			e.mustGet("b/obj", data, xHit)
		})
	}
}

// TestDataFileSizes: a recorded entry's file has its object's size (attach
// checks it when a disk comes back). An object fetched whole gets it from
// its fill's writes, with no truncate at create; one whose first fill is
// one slice of several is made sparse at that size when created.
func TestDataFileSizes(t *testing.T) {
	e := newEnv(t, nil)
	small := randomBytes(7, 1000)
	big := randomBytes(8, 3*testSlice+17)
	e.origin.put("b/small", small)
	e.origin.put("b/big", big)
	e.mustGet("b/small", small, xMiss)
	r := e.get("b/big", "Range", fmt.Sprintf("bytes=%d-%d", testSlice+10, testSlice+19))
	checkBody(t, "a range in the second slice", r, http.StatusPartialContent, big[testSlice+10:testSlice+20])
	e.settle()
	for ck, want := range map[string]int{"b/small": len(small), "b/big": len(big)} {
		c := e.c()
		c.mu.Lock()
		en := c.entries[ck]
		c.mu.Unlock()
		if en == nil {
			t.Fatalf("%s not cached", ck)
		}
		if fi, err := os.Stat(en.path()); err != nil || fi.Size() != int64(want) {
			t.Errorf("%s: data file %v, err %v; want %d bytes", ck, fi, err, want)
		}
	}
	if got := e.recorded(); len(got) != 2 {
		t.Fatalf("recorded %v, want both", got)
	}
	e.restart()
	e.mustGet("b/small", small, xHit)
	r = e.get("b/big", "Range", fmt.Sprintf("bytes=%d-%d", testSlice+10, testSlice+19))
	checkBody(t, "the range after a restart", r, http.StatusPartialContent, big[testSlice+10:testSlice+20])
	if r.xcache() != xHit {
		t.Errorf("the range after a restart: X-Cache %q, want %q", r.xcache(), xHit)
	}
}
