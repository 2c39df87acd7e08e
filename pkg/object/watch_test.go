package object

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/objectgateway/objectgateway/metadata"
)

// startWatch runs watch mode over l until the test ends, and waits until
// the existing bucket directories are watched.
func startWatch(t *testing.T, l *Layer) *Watcher {
	t.Helper()
	w, err := l.Watch(WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	waitSynced(t, w)
	return w
}

// waitSynced waits until the watcher has watched and reconciled the
// existing buckets.
func waitSynced(t *testing.T, w *Watcher) {
	t.Helper()
	select {
	case <-w.synced:
	case <-time.After(30 * time.Second):
		t.Fatal("initial reconciliation did not finish")
	}
}

// eventually polls cond every 10 ms for up to 30 s: the deadline only
// bounds a failing test, and a loaded machine (CI's filesystem matrix)
// may take seconds to deliver and reconcile an event.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitRecord waits until key's record has the given size (-1: no record).
func waitRecord(t *testing.T, l *Layer, key string, size int64) Object {
	t.Helper()
	var rec Object
	eventually(t, fmt.Sprintf("record of %q with size %d", key, size), func() error {
		r, err := l.ix.Object("bkt", key)
		switch {
		case errors.Is(err, metadata.ErrNoSuchKey):
			if size < 0 {
				return nil
			}
			return errors.New("no record")
		case err != nil:
			return err
		case size < 0:
			return fmt.Errorf("record still there (size %d)", r.Size)
		case r.Size != size:
			return fmt.Errorf("size %d", r.Size)
		}
		rec = r
		return nil
	})
	return rec
}

// waitIdle waits until the watcher has nothing pending or running.
func waitIdle(t *testing.T, w *Watcher) {
	t.Helper()
	eventually(t, "watcher idle", func() error {
		w.pmu.Lock()
		defer w.pmu.Unlock()
		if len(w.pending) > 0 || w.busy {
			return errors.New("busy")
		}
		return nil
	})
}

func TestWatchOutOfBandChanges(t *testing.T) {
	l, root := newLayer(t)
	startWatch(t, l)
	bkt := filepath.Join(root, "bkt")

	// Create.
	writeTree(t, bkt, map[string]string{"a.txt": "hello"})
	rec := waitRecord(t, l, "a.txt", 5)
	if !strings.HasSuffix(rec.ETag, "-1") || rec.ContentType != "text/plain; charset=utf-8" || rec.Location != metadata.Natural {
		t.Errorf("imported record: ETag %q, content type %q, location %v", rec.ETag, rec.ContentType, rec.Location)
	}

	// Append.
	f, err := os.OpenFile(filepath.Join(bkt, "a.txt"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(", world"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	appended := waitRecord(t, l, "a.txt", 12)
	if appended.ETag == rec.ETag {
		t.Error("ETag unchanged after append")
	}

	// Replace by renaming over it, from outside the bucket.
	tmp := filepath.Join(root, "tmp-replace")
	if err := os.WriteFile(tmp, []byte("replaced!"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(bkt, "a.txt")); err != nil {
		t.Fatal(err)
	}
	replaced := waitRecord(t, l, "a.txt", 9)
	if replaced.FileInode == appended.FileInode {
		t.Error("inode unchanged after rename over")
	}
	if _, body := read(t, l, "a.txt"); body != "replaced!" {
		t.Errorf("body %q", body)
	}

	// Delete.
	if err := os.Remove(filepath.Join(bkt, "a.txt")); err != nil {
		t.Fatal(err)
	}
	waitRecord(t, l, "a.txt", -1)

	// Nested directories created with their files at once: files that
	// land before the new directory's watch are imported too.
	writeTree(t, bkt, map[string]string{"x/y/z/deep.bin": "0123456789", "x/top.json": "{}"})
	waitRecord(t, l, "x/y/z/deep.bin", 10)
	waitRecord(t, l, "x/top.json", 2)
	// A file written later in a directory that was created meanwhile.
	writeTree(t, bkt, map[string]string{"x/y/later": "abc"})
	waitRecord(t, l, "x/y/later", 3)

	// A directory moved out of the bucket takes its records along.
	out := filepath.Join(root, "outside")
	if err := os.Rename(filepath.Join(bkt, "x"), out); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"x/y/z/deep.bin", "x/top.json", "x/y/later"} {
		waitRecord(t, l, k, -1)
	}
	// Its old watches are gone: a file written there while it is outside
	// must not appear under its old name.
	writeTree(t, out, map[string]string{"y/stray": "s"})
	// Moved back in under another name, it is imported and watched.
	if err := os.Rename(out, filepath.Join(bkt, "moved")); err != nil {
		t.Fatal(err)
	}
	waitRecord(t, l, "moved/y/z/deep.bin", 10)
	waitRecord(t, l, "moved/top.json", 2)
	writeTree(t, bkt, map[string]string{"moved/y/z/new": "n"})
	waitRecord(t, l, "moved/y/z/new", 1)
	waitRecord(t, l, "moved/y/stray", 1)
	if got := allKeys(t, l, "bkt"); strings.Join(got, ",") != "moved/top.json,moved/y/later,moved/y/stray,moved/y/z/deep.bin,moved/y/z/new" {
		t.Errorf("keys %v", got)
	}

	// A recursive removal drops every record under it.
	if err := os.RemoveAll(filepath.Join(bkt, "moved")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "empty bucket", func() error {
		if got := allKeys(t, l, "bkt"); len(got) > 0 {
			return fmt.Errorf("keys %v", got)
		}
		return nil
	})
}

func TestWatchSkipsInvalidKeys(t *testing.T) {
	l, root := newLayer(t)
	w := startWatch(t, l)
	bkt := filepath.Join(root, "bkt")
	bad := "bad-\xff-name"
	long := strings.Repeat(strings.Repeat("d", 250)+"/", 5) + "f" // a key longer than 1024 bytes
	writeTree(t, bkt, map[string]string{bad: "x", long: "x"})
	// Links renamed into the bucket that lead out of it: to a file
	// outside the root, and to the index in the state directory.
	for name, target := range map[string]string{"escape": "/etc/passwd", "index": filepath.Join(root, ".objectgateway", IndexFile)} {
		tmp := filepath.Join(root, "link-"+name)
		if err := os.Symlink(target, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(bkt, name)); err != nil {
			t.Fatal(err)
		}
	}
	// Written last: once it is indexed, the events above were handled.
	writeTree(t, bkt, map[string]string{"good": "ok"})
	waitRecord(t, l, "good", 2)
	waitIdle(t, w)
	if got := allKeys(t, l, "bkt"); strings.Join(got, ",") != "good" {
		t.Errorf("keys %v", got)
	}
}

func TestWatchIgnoresOwnWrites(t *testing.T) {
	l, root := newLayer(t)
	w := startWatch(t, l)
	puts := map[string]Object{}
	for _, k := range []string{"p1", "dir/p2", "dir/sub/p3", "p1"} {
		puts[k] = put(t, l, k, "body of "+k)
	}
	if err := l.DeleteObject("bkt", "dir/sub/p3", Conditions{}); err != nil {
		t.Fatal(err)
	}
	// A file written behind the gateway's back after the PUTs: once its
	// record is there, the events of the PUTs have been read too.
	writeTree(t, filepath.Join(root, "bkt"), map[string]string{"barrier": "b"})
	waitRecord(t, l, "barrier", 1)
	waitIdle(t, w)
	if n := w.writes.Load(); n != 1 {
		t.Errorf("watcher changed the index %d times, want 1 (the barrier only)", n)
	}
	for _, k := range []string{"p1", "dir/p2"} {
		rec, err := l.ix.Object("bkt", k)
		if err != nil {
			t.Fatal(err)
		}
		if rec.ETag != puts[k].ETag || strings.HasSuffix(rec.ETag, "-1") {
			t.Errorf("%s: ETag %q, PUT returned %q", k, rec.ETag, puts[k].ETag)
		}
	}
	if _, err := l.ix.Object("bkt", "dir/sub/p3"); !errors.Is(err, metadata.ErrNoSuchKey) {
		t.Errorf("deleted key: %v", err)
	}
}

func TestWatchOverflowRescans(t *testing.T) {
	l, root := newLayer(t)
	w := startWatch(t, l)
	bkt := filepath.Join(root, "bkt")
	put(t, l, "gone", "will be removed behind the gateway's back")
	writeTree(t, bkt, map[string]string{"changed": "v1"})
	waitRecord(t, l, "changed", 2)
	waitIdle(t, w)

	// Lose every event from now on, as a full kernel queue would.
	rescans := w.rescans.Load()
	w.dropEvents.Store(true)
	writeTree(t, bkt, map[string]string{"lost/new.txt": "new file", "changed": "version 2"})
	if err := os.Remove(filepath.Join(bkt, "gone")); err != nil {
		t.Fatal(err)
	}
	w.overflow()
	waitRecord(t, l, "lost/new.txt", 8)
	waitRecord(t, l, "changed", 9)
	waitRecord(t, l, "gone", -1)
	if w.rescans.Load() == rescans {
		t.Error("no rescan ran")
	}
	// The rescan watched the directory created while events were lost.
	w.dropEvents.Store(false)
	writeTree(t, bkt, map[string]string{"lost/after": "a"})
	waitRecord(t, l, "lost/after", 1)
}

// syncBuffer is a log sink the watcher's goroutines may write to while
// the test reads it.
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

func TestWatchOutOfWatchesFallsBackToRescans(t *testing.T) {
	l, root := newLayer(t)
	bkt := filepath.Join(root, "bkt")
	writeTree(t, bkt, map[string]string{"full/old": "o"})
	var logs syncBuffer
	w, err := l.Watch(WatchOptions{
		RescanInterval: 50 * time.Millisecond,
		Log:            zerolog.New(&logs),
		addWatchErr: func(bucket, rel string) error {
			if rel == "full" {
				return unix.ENOSPC
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	waitSynced(t, w)
	rescans := w.rescans.Load()
	eventually(t, "warning", func() error {
		if !strings.Contains(logs.String(), "fs.inotify.max_user_watches") {
			return fmt.Errorf("logs: %s", logs.String())
		}
		return nil
	})
	// No watch on full/: the periodic rescan finds the new file.
	writeTree(t, bkt, map[string]string{"full/new": "new!"})
	waitRecord(t, l, "full/new", 4)
	waitRecord(t, l, "full/old", 1)
	if w.rescans.Load() == rescans {
		t.Error("found without a rescan")
	}
}

// TestWatchFileWrittenBeforeItsDirectoryIsWatched forces the interleaving
// in which a file is written and closed in a new directory after the
// watcher opened that directory but before its watch exists: no event
// ever names the file, so only the walk's listing can import it. On
// btrfs a listing read from the descriptor opened before the watch left
// such a file out.
func TestWatchFileWrittenBeforeItsDirectoryIsWatched(t *testing.T) {
	l, root := newLayer(t)
	bkt := filepath.Join(root, "bkt")
	var once sync.Once
	written := make(chan error, 1)
	w, err := l.Watch(WatchOptions{
		// The hook runs once new/ is open and before its watch is added.
		addWatchErr: func(bucket, rel string) error {
			if rel == "new" {
				once.Do(func() {
					written <- os.WriteFile(filepath.Join(bkt, "new", "late"), []byte("late"), 0o644)
				})
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	waitSynced(t, w)
	if err := os.Mkdir(filepath.Join(bkt, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-written:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the new directory was never walked")
	}
	waitRecord(t, l, "new/late", 4)
}

func TestWatchReconcilesAtStart(t *testing.T) {
	l, root := newLayer(t)
	bkt := filepath.Join(root, "bkt")
	put(t, l, "removed", "x")
	put(t, l, "kept", "kept")
	writeTree(t, bkt, map[string]string{"while-stopped/a": "abc"})
	if err := os.Remove(filepath.Join(bkt, "removed")); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, l)
	waitIdle(t, w)
	if got := allKeys(t, l, "bkt"); strings.Join(got, ",") != "kept,while-stopped/a" {
		t.Errorf("keys %v", got)
	}
	if rec, _ := read(t, l, "kept"); strings.HasSuffix(rec.ETag, "-1") {
		t.Errorf("unchanged object rewritten: ETag %q", rec.ETag)
	}
}

func TestWatchNewBucket(t *testing.T) {
	l, root := newLayer(t)
	w := startWatch(t, l)
	if err := l.CreateBucket(Bucket{Name: "fresh"}); err != nil {
		t.Fatal(err)
	}
	writeTree(t, filepath.Join(root, "fresh"), map[string]string{"k/v": "value"})
	eventually(t, "record in the new bucket", func() error {
		r, err := l.ix.Object("fresh", "k/v")
		if err != nil {
			return err
		}
		if r.Size != 5 {
			return fmt.Errorf("size %d", r.Size)
		}
		return nil
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// Watch mode can start again once stopped.
	w2, err := l.Watch(WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Watch(WatchOptions{}); err == nil {
		t.Error("a second watcher started")
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
}
