package edge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestMountRoot(t *testing.T) {
	if !kernelAtLeast(5, 8) {
		t.Skip("statx reports mount roots from Linux 5.8")
	}
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil && rootMounted(string(b)) && !mountRoot("/") {
		t.Error(`mountRoot("/") = false, but /proc/self/mountinfo lists a mount on /`)
	}
	if mountRoot(t.TempDir()) {
		t.Error("a test's temporary directory is a mount root")
	}
	if mountRoot(filepath.Join(t.TempDir(), "absent")) {
		t.Error("an absent directory is a mount root")
	}
}

// rootMounted reports whether a mountinfo listing has a mount on "/".
func rootMounted(mountinfo string) bool {
	for line := range strings.Lines(mountinfo) {
		if f := strings.Fields(line); len(f) > 4 && f[4] == "/" {
			return true
		}
	}
	return false
}

// TestOwnFS checks ownFS on a tree whose mount root the test chooses.
func TestOwnFS(t *testing.T) {
	root := t.TempDir()
	edge := filepath.Join(root, "ssd", "edge")
	for _, d := range []string{edge, filepath.Join(root, "ssd", "lost+found")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	isRoot := func(p string) bool { return p == filepath.Join(root, "ssd") }
	if !ownFS(edge, isRoot) {
		t.Error("the only directory under a mount's root (beside lost+found) does not have its file system to itself")
	}
	if ownFS(filepath.Join(root, "ssd"), isRoot) {
		t.Error("a mount's root holding a directory that is not the cache's is a cache of its own")
	}
	if err := os.WriteFile(filepath.Join(root, "ssd", "other"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if ownFS(edge, isRoot) {
		t.Error("a directory beside a file at the mount's root has its file system to itself")
	}
	if ownFS(edge, func(string) bool { return false }) {
		t.Error("a directory with no mount root above it has its file system to itself")
	}

	// Links are resolved: a cache directory on a disk of its own that is
	// a link into a shared file system does not have it to itself.
	shared := filepath.Join(root, "shared")
	if err := os.MkdirAll(filepath.Join(shared, "edge"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "other"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	disk := filepath.Join(root, "disk")
	if err := os.Mkdir(disk, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(shared, "edge"), filepath.Join(disk, "edge")); err != nil {
		t.Fatal(err)
	}
	isDisk := func(p string) bool { return p == disk || p == root }
	if ownFS(filepath.Join(disk, "edge"), isDisk) {
		t.Error("a link from a mount's root into a shared directory has its file system to itself")
	}
	// The cache directory holds only the cache's names.
	lone := filepath.Join(root, "lone")
	if err := os.Mkdir(lone, 0o700); err != nil {
		t.Fatal(err)
	}
	isLone := func(p string) bool { return p == lone }
	for _, n := range []string{"data", "catalog.db", ".probe", "lost+found"} {
		if err := os.WriteFile(filepath.Join(lone, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if !ownFS(lone, isLone) {
		t.Error("a mount's root holding the cache's names alone does not have its file system to itself")
	}
	if err := os.WriteFile(filepath.Join(lone, "backup.tar"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if ownFS(lone, isLone) {
		t.Error("a mount's root holding another file beside the cache has its file system to itself")
	}
}

func TestMountInfoRoot(t *testing.T) {
	const info = `22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda rw
35 22 7:0 / /mnt/ssd1 rw,relatime shared:15 - ext4 /dev/loop0 rw
41 22 253:1 /srv/volumes/edge /mnt/volume rw,relatime shared:1 - ext4 /dev/vda rw
`
	for _, tc := range []struct {
		id   uint64
		want string
	}{{22, "/"}, {35, "/"}, {41, "/srv/volumes/edge"}, {99, ""}} {
		if got := mountInfoRoot(info, tc.id); got != tc.want {
			t.Errorf("mountInfoRoot(%d) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

func TestReleaseAtLeast(t *testing.T) {
	for _, tc := range []struct {
		release string
		want    bool
	}{
		{"5.8.0", true},
		{"5.8", true},
		{"5.7.19-generic", false},
		{"5.10.0-28-amd64", true},
		{"6.1.0", true},
		{"6.18.44-fc-v1300", true},
		{"4.19.0", false},
		{"5.8-rc1", true},
		{"5", false},
		{"", false},
		{"x.y", false},
	} {
		if got := releaseAtLeast(tc.release, 5, 8); got != tc.want {
			t.Errorf("releaseAtLeast(%q, 5, 8) = %v, want %v", tc.release, got, tc.want)
		}
	}
}

// syncHooks replaces syncDirOK, syncFS and syncFile for a test: syncfs is
// allowed on any file system, and both kinds of sync are counted and
// fail as fsErr and fileErr say (fileErr by the file's base name).
type syncHooks struct {
	fsCalls, fileCalls atomic.Int64
	mu                 sync.Mutex
	fsErr              error
	fileErr            map[string]error
}

func hookSyncs(t *testing.T) *syncHooks {
	h := &syncHooks{}
	okDir, fs, file := syncDirOK, syncFS, syncFile
	t.Cleanup(func() { syncDirOK, syncFS, syncFile = okDir, fs, file })
	syncDirOK = func(string) bool { return true }
	syncFS = func(f *os.File) error {
		h.fsCalls.Add(1)
		h.mu.Lock()
		err := h.fsErr
		h.mu.Unlock()
		if err != nil {
			return err
		}
		return fs(f)
	}
	syncFile = func(f *os.File) error {
		h.fileCalls.Add(1)
		h.mu.Lock()
		err := h.fileErr[filepath.Base(f.Name())]
		h.mu.Unlock()
		if err != nil {
			return err
		}
		return file(f)
	}
	return h
}

// fillThree caches b/a, b/b and b/c in e, each waiting for a flush that
// is syncAge later.
func fillThree(t *testing.T, e *env) {
	for i, k := range []string{"b/a", "b/b", "b/c"} {
		data := randomBytes(uint64(200+i), 4000+i)
		e.origin.put(k, data)
		e.mustGet(k, data, xMiss)
		eventually(t, k+" queued", e.queued(k))
	}
}

// TestFlushSyncsFileSystemOnce checks that a flush of several entries
// makes their files durable with one syncfs and no fsync of each.
func TestFlushSyncsFileSystemOnce(t *testing.T) {
	h := hookSyncs(t)
	var syncs atomic.Int64
	e := lateSyncEnv(t, &syncs, nil)
	fillThree(t, e)
	c := e.c()
	if n := h.fsCalls.Load() + h.fileCalls.Load(); n != 0 {
		t.Fatalf("%d syncs before the entries were syncAge old", n)
	}
	e.clock.advance(time.Minute)
	c.flush()
	if got, want := e.recorded(), []string{"b/a", "b/b", "b/c"}; !slices.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	if fs, files := h.fsCalls.Load(), h.fileCalls.Load(); fs != 1 || files != 0 {
		t.Errorf("%d syncfs and %d fsync calls, want 1 and 0", fs, files)
	}
	c.mu.Lock()
	kept := c.syncFiles
	c.mu.Unlock()
	if kept != 0 {
		t.Errorf("%d kept descriptors after the flush, want 0", kept)
	}
	c.flush()
	if fs := h.fsCalls.Load(); fs != 1 {
		t.Errorf("a flush with nothing due called syncfs (%d calls in all)", fs)
	}
}

// TestFlushSyncfsErrorSyncsEachFile checks that when syncfs reports a
// writeback error (which may be another file's on the same file system),
// each file of the batch is synced: the entries are recorded and the disk
// stays healthy when their files sync, and the disk fails, recording
// nothing, when one does not.
func TestFlushSyncfsErrorSyncsEachFile(t *testing.T) {
	t.Run("files sync", func(t *testing.T) {
		h := hookSyncs(t)
		h.fsErr = syscall.EIO
		var syncs atomic.Int64
		e := lateSyncEnv(t, &syncs, nil)
		fillThree(t, e)
		c := e.c()
		e.clock.advance(time.Minute)
		c.flush()
		if got, want := e.recorded(), []string{"b/a", "b/b", "b/c"}; !slices.Equal(got, want) {
			t.Errorf("recorded %v, want %v", got, want)
		}
		if fs, files := h.fsCalls.Load(), h.fileCalls.Load(); fs != 1 || files != 3 {
			t.Errorf("%d syncfs and %d fsync calls, want 1 and 3", fs, files)
		}
		if !c.disks[0].healthy.Load() {
			t.Error("the disk failed although every file synced")
		}
		// syncfs reports an error once: a file of the cache whose
		// writeback failed may be among those not yet due, so later
		// flushes sync each file.
		h.mu.Lock()
		h.fsErr = nil
		h.mu.Unlock()
		d := randomBytes(210, 3000)
		e.origin.put("b/d", d)
		e.mustGet("b/d", d, xMiss)
		eventually(t, "b/d queued", e.queued("b/d"))
		e.clock.advance(time.Minute)
		c.flush()
		if got, want := e.recorded(), []string{"b/a", "b/b", "b/c", "b/d"}; !slices.Equal(got, want) {
			t.Errorf("recorded %v, want %v", got, want)
		}
		if fs, files := h.fsCalls.Load(), h.fileCalls.Load(); fs != 1 || files != 4 {
			t.Errorf("after a later flush: %d syncfs and %d fsync calls in all, want 1 and 4", fs, files)
		}
	})
	t.Run("no kept descriptors", func(t *testing.T) {
		// Every fill is due at the next flush, without a descriptor:
		// the files are opened only to be synced one by one.
		restore := maxSyncFiles
		t.Cleanup(func() { maxSyncFiles = restore })
		maxSyncFiles = 0
		h := hookSyncs(t)
		h.fsErr = syscall.EIO
		var syncs atomic.Int64
		e := lateSyncEnv(t, &syncs, nil)
		for i, k := range []string{"b/a", "b/b", "b/c"} {
			data := randomBytes(uint64(220+i), 3000)
			e.origin.put(k, data)
			e.mustGet(k, data, xMiss)
		}
		eventually(t, "all three recorded", func() bool { return len(e.recorded()) == 3 })
		if fs, files := h.fsCalls.Load(), h.fileCalls.Load(); fs != 1 || files != 3 {
			t.Errorf("%d syncfs and %d fsync calls, want 1 and 3", fs, files)
		}
	})
	t.Run("a file fails", func(t *testing.T) {
		h := hookSyncs(t)
		h.fsErr = syscall.EIO
		var syncs atomic.Int64
		e := lateSyncEnv(t, &syncs, nil)
		fillThree(t, e)
		c := e.c()
		c.mu.Lock()
		id := c.entries["b/b"].id
		c.mu.Unlock()
		h.mu.Lock()
		h.fileErr = map[string]error{id: syscall.EIO}
		h.mu.Unlock()
		e.clock.advance(time.Minute)
		c.flush()
		if c.disks[0].healthy.Load() {
			t.Fatal("the disk is healthy although b/b's file did not sync")
		}
		// The probe attaches the disk again: nothing of the batch was
		// recorded.
		eventually(t, "the disk to be reattached", func() bool { return c.disks[0].healthy.Load() })
		if got := e.recorded(); len(got) != 0 {
			t.Errorf("recorded %v, want nothing", got)
		}
	})
}
