package metadata

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestGroupCommit holds one write open inside its transaction while other
// writers queue up, then checks that all the queued writes share a single
// further transaction.
func TestGroupCommit(t *testing.T) {
	// PostgreSQL runs each write in a transaction of its own (updateAlone).
	boltOnly(t)
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	mustPut(t, ix, "b", Object{Key: "held"})

	inside, release := make(chan struct{}), make(chan struct{})
	heldDone := make(chan error, 1)
	go func() {
		heldDone <- ix.UpdateObject("b", "held", func(o *Object) error {
			close(inside)
			<-release
			o.Size = 1
			return nil
		})
	}()
	<-inside
	before := ix.commits.Load()

	const writers = 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			errs <- ix.PutObject("b", Object{Key: fmt.Sprintf("k%02d", i), Size: int64(i)})
		})
	}
	// Wait until every writer is queued behind the held transaction.
	for {
		ix.mu.Lock()
		n := len(ix.queue)
		ix.mu.Unlock()
		if n == writers {
			break
		}
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := <-heldDone; err != nil {
		t.Fatal(err)
	}
	if n := ix.commits.Load() - before; n != 1 {
		t.Errorf("%d queued writers took %d commits, want 1", writers, n)
	}
	for i := range writers {
		if o, err := ix.Object("b", fmt.Sprintf("k%02d", i)); err != nil || o.Size != int64(i) {
			t.Errorf("k%02d: %+v, %v", i, o, err)
		}
	}
	if o, _ := ix.Object("b", "held"); o.Size != 1 {
		t.Errorf("held update lost: %+v", o)
	}
}

// TestGroupCommitFailures checks that, within one group, a write that
// fails before writing, a write that fails in bbolt and a write that
// panics each get their own outcome and do not disturb the others.
func TestGroupCommitFailures(t *testing.T) {
	// PostgreSQL runs each write in a transaction of its own (updateAlone).
	boltOnly(t)
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	mustPut(t, ix, "b", Object{Key: "held"})
	mustPut(t, ix, "b", Object{Key: "victim"})

	inside, release := make(chan struct{}), make(chan struct{})
	heldDone := make(chan error, 1)
	go func() {
		heldDone <- ix.UpdateObject("b", "held", func(o *Object) error {
			close(inside)
			<-release
			o.Size = 1
			return nil
		})
	}()
	<-inside

	errAbort := errors.New("abort")
	errWrite := errors.New("bbolt said no")
	var wg sync.WaitGroup
	var abortErr, writeErr, missingErr error
	var panicked any
	var goodErrs [4]error
	wg.Go(func() {
		abortErr = ix.UpdateObject("b", "victim", func(o *Object) error { o.Size = 99; return errAbort })
	})
	wg.Go(func() {
		// A write that fails after changing the transaction.
		writeErr = ix.update(func(tx kvTx) error {
			b, _ := objects(tx, "b")
			if err := b.Put([]byte("victim"), []byte{recordVersion, tagObjSize, 1, 77}); err != nil {
				return written(err)
			}
			return written(errWrite)
		})
	})
	wg.Go(func() {
		defer func() { panicked = recover() }()
		ix.UpdateObject("b", "victim", func(o *Object) error { o.Size = 55; panic("boom") })
	})
	wg.Go(func() { missingErr = ix.DeleteObject("b", "missing") })
	for i := range goodErrs {
		wg.Go(func() { goodErrs[i] = ix.PutObject("b", Object{Key: fmt.Sprintf("good%d", i)}) })
	}
	for {
		ix.mu.Lock()
		n := len(ix.queue)
		ix.mu.Unlock()
		if n == 4+len(goodErrs) {
			break
		}
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if err := <-heldDone; err != nil {
		t.Fatal(err)
	}

	if abortErr != errAbort {
		t.Errorf("aborted update = %v, want %v", abortErr, errAbort)
	}
	if writeErr != errWrite {
		t.Errorf("failed write = %v, want %v", writeErr, errWrite)
	}
	if panicked != "boom" {
		t.Errorf("panicking update: recovered %v, want boom", panicked)
	}
	if missingErr != ErrNoSuchKey {
		t.Errorf("DeleteObject(missing) = %v, want ErrNoSuchKey", missingErr)
	}
	for i, err := range goodErrs {
		if err != nil {
			t.Errorf("good%d: %v", i, err)
		}
		if _, err := ix.Object("b", fmt.Sprintf("good%d", i)); err != nil {
			t.Errorf("good%d not stored: %v", i, err)
		}
	}
	if o, _ := ix.Object("b", "victim"); o.Size != 0 {
		t.Errorf("a failed write left a trace: victim = %+v", o)
	}
	if o, _ := ix.Object("b", "held"); o.Size != 1 {
		t.Errorf("held update lost: %+v", o)
	}
}

// TestConcurrentWriters runs many writers and readers at once under the
// race detector.
func TestConcurrentWriters(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				key := fmt.Sprintf("w%d/%03d", w, i)
				if err := ix.PutObject("b", Object{Key: key, Size: int64(i)}); err != nil {
					t.Error(err)
					return
				}
				if err := ix.UpdateObject("b", key, func(o *Object) error { o.Size++; return nil }); err != nil {
					t.Error(err)
					return
				}
				if i%2 == 0 {
					if err := ix.DeleteObject("b", key); err != nil {
						t.Error(err)
						return
					}
				}
				if _, err := ix.List("b", ListQuery{Prefix: fmt.Sprintf("w%d/", w), Limit: 10}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for w := range workers {
		p, err := ix.List("b", ListQuery{Prefix: fmt.Sprintf("w%d/", w), Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Objects) != each/2 {
			t.Errorf("worker %d: %d objects, want %d", w, len(p.Objects), each/2)
		}
		for _, o := range p.Objects {
			var i int
			fmt.Sscanf(o.Key[len(fmt.Sprintf("w%d/", w)):], "%d", &i)
			if o.Size != int64(i)+1 {
				t.Errorf("%s: Size %d, want %d", o.Key, o.Size, i+1)
			}
		}
	}
}

func TestWriteAfterClose(t *testing.T) {
	ix, err := Open(t.TempDir()+"/index.db", Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateBucket(Bucket{Name: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.PutObject("b", Object{Key: "k"}); err == nil {
		t.Error("PutObject after Close succeeded")
	}
	if _, err := ix.Object("b", "k"); err == nil {
		t.Error("Object after Close succeeded")
	}
}

// TestLeaderGoexit checks that a leader whose fn calls runtime.Goexit
// (t.FailNow in a test) rolls back and leaves the index usable.
func TestLeaderGoexit(t *testing.T) {
	// PostgreSQL runs each write in a transaction of its own (updateAlone).
	boltOnly(t)
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	mustPut(t, ix, "b", Object{Key: "k"})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		ix.UpdateObject("b", "k", func(o *Object) error {
			o.Size = 9
			runtime.Goexit()
			return nil
		})
	}()
	<-exited
	mustPut(t, ix, "b", Object{Key: "after"})
	if o, _ := ix.Object("b", "k"); o.Size != 0 {
		t.Errorf("abandoned update was committed: %+v", o)
	}
}

// TestVisibleFailedCommitStopsTheIndex makes a commit report a failure
// after bbolt wrote it, as a failed fsync of the meta page does: the
// caller gets the error, and from then on every read and write of the
// index returns ErrFailed (wrapping it) rather than serve a transaction
// its caller was told had failed. Opening the index again reads the file
// as it is and works.
func TestVisibleFailedCommitStopsTheIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCreateBucket(t, ix, "b")
	mustPut(t, ix, "b", Object{Key: "before"})
	ix.bolt.commitFault = func() error { return syscall.EIO }
	if err := ix.PutObject("b", Object{Key: "failed"}); !errors.Is(err, syscall.EIO) {
		t.Fatalf("PutObject whose commit failed: %v, want EIO", err)
	}
	ix.bolt.commitFault = nil
	if _, err := ix.Object("b", "before"); !errors.Is(err, ErrFailed) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("read after the failed commit: %v, want ErrFailed wrapping EIO", err)
	}
	if err := ix.PutObject("b", Object{Key: "after"}); !errors.Is(err, ErrFailed) {
		t.Fatalf("write after the failed commit: %v, want ErrFailed", err)
	}
	if _, err := ix.List("b", ListQuery{Limit: 10}); !errors.Is(err, ErrFailed) {
		t.Fatalf("list after the failed commit: %v, want ErrFailed", err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	mustPut(t, ix, "b", Object{Key: "after"})
	for _, k := range []string{"before", "after"} {
		if _, err := ix.Object("b", k); err != nil {
			t.Fatalf("%s after reopening: %v", k, err)
		}
	}
	checkInvariants(t, ix)
}

// TestFailedGroupCommitFailsEveryCall queues 20 writers behind a held
// transaction and makes the commit of their shared group fail: each of
// them gets the error, none reports success.
func TestFailedGroupCommitFailsEveryCall(t *testing.T) {
	ix, err := Open(filepath.Join(t.TempDir(), "index.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	mustCreateBucket(t, ix, "b")
	mustPut(t, ix, "b", Object{Key: "held"})
	var commits atomic.Int32
	ix.bolt.commitFault = func() error {
		// The first commit is the held write's own; the second is the
		// queued writers' group.
		if commits.Add(1) == 2 {
			return syscall.EIO
		}
		return nil
	}
	inside, release := make(chan struct{}), make(chan struct{})
	heldDone := make(chan error, 1)
	go func() {
		heldDone <- ix.UpdateObject("b", "held", func(o *Object) error {
			close(inside)
			<-release
			o.Size = 1
			return nil
		})
	}()
	<-inside
	const writers = 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			errs <- ix.PutObject("b", Object{Key: fmt.Sprintf("k%02d", i)})
		})
	}
	// Wait until every writer is queued behind the held transaction.
	for {
		ix.mu.Lock()
		n := len(ix.queue)
		ix.mu.Unlock()
		if n == writers {
			break
		}
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	close(errs)
	if err := <-heldDone; err != nil {
		t.Fatalf("the held write: %v", err)
	}
	for err := range errs {
		if !errors.Is(err, syscall.EIO) {
			t.Fatalf("a write of the failed group: %v, want EIO", err)
		}
	}
}
