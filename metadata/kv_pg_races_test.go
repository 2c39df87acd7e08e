package metadata

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/objectgateway/objectgateway/pkg/pgtest"
)

func openPGAt(t *testing.T, dsn string) *Index {
	t.Helper()
	ix, err := OpenPostgres(context.Background(), dsn, PGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func adminConn(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// Races and failures of several catalogues on one database that a review
// found or checked.

// A listening connection that stalls (a half-open TCP connection after a
// NAT or firewall drop, simulated by stopping its backend) is found out
// by its heartbeat: the cache goes off and comes back on a new
// connection, and a bucket record another gateway changed meanwhile is
// not served stale for longer than that takes.
func TestPGListenerStallIsFoundOut(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := openPGAt(t, dsn), openPGAt(t, dsn)
	if err := a.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	waitLive(t, b)
	if _, err := b.Bucket("bkt"); err != nil {
		t.Fatal(err)
	}
	adm := adminConn(t, dsn)
	rows, err := adm.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, listenerName)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil || len(pids) != 2 {
		t.Fatalf("listener pids: %v %v", pids, err)
	}
	for _, p := range pids {
		syscall.Kill(int(p), syscall.SIGSTOP)
	}
	defer func() {
		for _, p := range pids {
			syscall.Kill(int(p), syscall.SIGCONT)
		}
	}()
	// b's cache holds the record now that its listener can drop nothing
	// more (a notification read before the stop may have dropped it).
	for i := 0; ; i++ {
		if _, err := b.Bucket("bkt"); err != nil {
			t.Fatal(err)
		}
		if _, ok := b.pg.buckets.get("bkt"); ok {
			break
		}
		if i == 1000 {
			t.Fatal("b's cache never kept the record")
		}
	}
	if err := a.UpdateBucket("bkt", func(bk *Bucket) error { bk.Policy = "NEW"; return nil }); err != nil {
		t.Fatal(err)
	}
	// With a heartbeat of listenBeat the change is seen within a few.
	waitPolicy(t, b, "NEW")
}

// A connection killed in the middle of an update: nothing of it commits,
// and the error reaches the caller.
func TestPGConnKilledMidUpdate(t *testing.T) {
	dsn := pgtest.DSN(t)
	ix := openPGAt(t, dsn)
	adm := adminConn(t, dsn)
	if err := ix.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	err := ix.kvUpdate(func(tx kvTx) error {
		b, err := objects(tx, "bkt")
		if err != nil {
			return err
		}
		if err := b.Put([]byte("a"), []byte("1")); err != nil {
			return err
		}
		var pid uint32 = tx.(*pgTx).c.Conn().PgConn().PID()
		// pg_terminate_backend signals the backend; wait until it is
		// gone (pg_terminate_backend's timeout waits for that).
		if _, err := adm.Exec(context.Background(), `SELECT pg_terminate_backend($1, 30000)`, int(pid)); err != nil {
			t.Error(err)
		}
		_ = b.Get([]byte("zzz")) // fails: answered "absent"
		return nil               // fn ignores it
	})
	t.Logf("update after its connection was killed: %v", err)
	if err == nil {
		t.Error("update reported success")
	}
	if _, err := ix.Object("bkt", "a"); !errors.Is(err, ErrNoSuchKey) {
		t.Errorf("record of the killed update: %v", err)
	}
}

// contend writes per keys through each of three catalogues on one new
// database, with 16 writers each, all at once, into bucket bkt (versioned
// or not); write makes one key's write. It fails the test for every
// write that fails, and for every acknowledged key the other catalogues
// do not read back.
func contend(t *testing.T, versioned bool, per int, write func(ix *Index, key string) error) {
	t.Helper()
	dsn := pgtest.DSN(t)
	ixs := []*Index{openPGAt(t, dsn), openPGAt(t, dsn), openPGAt(t, dsn)}
	b := Bucket{Name: "bkt"}
	if versioned {
		b.Versioning = VersioningEnabled
	}
	if err := ixs[0].CreateBucket(b); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	fails := map[string]int{}
	var written []string
	start := time.Now()
	for g := range 3 {
		for w := range 16 {
			wg.Go(func() {
				for i := range per / 16 {
					key := fmt.Sprintf("k-%05d-%d-%d", i, g, w)
					err := write(ixs[g], key)
					mu.Lock()
					if err != nil {
						fails[err.Error()]++
					} else {
						written = append(written, key)
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	t.Logf("%d writes through 3 catalogues in %v; failures: %v", len(written), time.Since(start), fails)
	if len(fails) > 0 {
		t.Errorf("writes failed under cross-gateway contention: %v", fails)
	}
	for i, key := range written {
		if _, err := ixs[(i+1)%3].Object("bkt", key); err != nil {
			t.Fatalf("acknowledged %s read through another catalogue: %v", key, err)
		}
	}
}

// Versioned writes into one bucket from three catalogues at once: their
// sequence numbers come from one PostgreSQL sequence, outside the
// transactions, so none of them fails after its retries (with a counter
// row per bucket, under SERIALIZABLE, some did).
func TestPGVersionedContention(t *testing.T) {
	contend(t, true, 640, func(ix *Index, key string) error {
		return ix.EditVersions("bkt", key, func(v *Versions) error {
			seq, id, err := v.NewVersion()
			if err != nil {
				return err
			}
			return v.SetCurrent(Object{Key: key, Seq: seq, VersionID: id, Size: 1, LastModified: time.Now().UTC(), ETag: "x"})
		})
	})
}

// Unversioned PUT records into one bucket from three catalogues at once:
// none fails.
func TestPGPutContention(t *testing.T) {
	contend(t, false, 2000, func(ix *Index, key string) error {
		return ix.PutObject("bkt", Object{Key: key, Size: 1, LastModified: time.Now().UTC(), ETag: "x"})
	})
}

// The listener killed: the cache goes off, comes back, and a change made
// meanwhile is not served stale.
func TestPGListenerReconnect(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := openPGAt(t, dsn), openPGAt(t, dsn)
	if err := a.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	waitLive(t, b)
	b.Bucket("bkt")
	adm := adminConn(t, dsn)
	// Both catalogues' listeners go; each makes a new one.
	if _, err := adm.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, listenerName); err != nil {
		t.Fatal(err)
	}
	if err := a.UpdateBucket("bkt", func(bk *Bucket) error { bk.Policy = "P1"; return nil }); err != nil {
		t.Fatal(err)
	}
	waitPolicy(t, b, "P1")
	if err := a.UpdateBucket("bkt", func(bk *Bucket) error { bk.Policy = "P2"; return nil }); err != nil {
		t.Fatal(err)
	}
	waitPolicy(t, b, "P2")
}

// waitLive waits until ix's bucket cache listens (it connects after
// OpenPostgres returns), so that a test's reads fill it.
func waitLive(t *testing.T, ix *Index) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ix.pg.buckets.live.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the bucket cache's listener did not connect in 30 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// waitPolicy waits until ix reads bucket bkt's policy as want. The
// deadline only bounds a failing test.
func waitPolicy(t *testing.T, ix *Index, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		bk, err := ix.Bucket("bkt")
		if err == nil && bk.Policy == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("bucket policy %q (%v) 30 s on, want %q", bk.Policy, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A write's lock that another gateway holds past the lock timeout fails
// with ErrLockTimeout instead of waiting without end; the holder keeps
// it, and the lock is granted once it is let go.
func TestPGLockTimeout(t *testing.T) {
	dsn := pgtest.DSN(t)
	holder := openPGAt(t, dsn)
	waiter, err := OpenPostgres(context.Background(), dsn, PGOptions{LockTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { waiter.Close() })
	unlock, err := holder.LockWrite("bkt", "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waiter.LockWrite("bkt", "k"); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("a held key's lock: %v, want ErrLockTimeout", err)
	}
	if _, err := waiter.LockBucket("bkt"); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("a bucket with a write in flight: %v, want ErrLockTimeout", err)
	}
	unlock()
	again, err := waiter.LockWrite("bkt", "k")
	if err != nil {
		t.Fatalf("the lock once let go: %v", err)
	}
	again()
}
