package metadata

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestLeases(t *testing.T) {
	ix := openTest(t)
	t0 := time.Unix(1_700_000_000, 0)
	ttl := time.Minute

	held, cur, err := ix.AcquireLease("lifecycle", "gw-a", t0, ttl)
	if err != nil || !held || cur.Holder != "gw-a" || !cur.Expires.Equal(t0.Add(ttl)) {
		t.Fatalf("first acquire: %v %+v %v", held, cur, err)
	}
	// Another holder is refused while the lease runs, and told who has it.
	held, cur, err = ix.AcquireLease("lifecycle", "gw-b", t0.Add(30*time.Second), ttl)
	if err != nil || held || cur.Holder != "gw-a" {
		t.Fatalf("acquire by another while held: %v %+v %v", held, cur, err)
	}
	// The holder renews.
	held, cur, err = ix.AcquireLease("lifecycle", "gw-a", t0.Add(50*time.Second), ttl)
	if err != nil || !held || !cur.Expires.Equal(t0.Add(50*time.Second+ttl)) {
		t.Fatalf("renew: %v %+v %v", held, cur, err)
	}
	// Still refused just before the renewed expiry; taken over at it.
	if held, _, _ := ix.AcquireLease("lifecycle", "gw-b", t0.Add(50*time.Second+ttl-time.Nanosecond), ttl); held {
		t.Fatal("a lease was taken over before it expired")
	}
	held, cur, err = ix.AcquireLease("lifecycle", "gw-b", t0.Add(50*time.Second+ttl), ttl)
	if err != nil || !held || cur.Holder != "gw-b" {
		t.Fatalf("take over an expired lease: %v %+v %v", held, cur, err)
	}
	// Leases are independent by name.
	if held, _, _ := ix.AcquireLease("sweep", "gw-a", t0, ttl); !held {
		t.Fatal("a second lease name is not free")
	}
	// Release by someone else leaves it; by the holder frees it.
	if err := ix.ReleaseLease("lifecycle", "gw-a"); err != nil {
		t.Fatal(err)
	}
	if l, ok, _ := ix.LeaseOf("lifecycle"); !ok || l.Holder != "gw-b" {
		t.Fatalf("a release by a non-holder changed the lease: %+v %v", l, ok)
	}
	if err := ix.ReleaseLease("lifecycle", "gw-b"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := ix.LeaseOf("lifecycle"); ok {
		t.Fatal("the lease is still there after its holder released it")
	}
	if held, _, _ := ix.AcquireLease("lifecycle", "gw-c", t0, ttl); !held {
		t.Fatal("a released lease cannot be taken")
	}
	if _, _, err := ix.AcquireLease("", "gw", t0, ttl); !errors.Is(err, ErrLeaseName) {
		t.Fatalf("empty name: %v", err)
	}
}

// Holders racing for a free lease: exactly one gets it.
func TestLeaseRace(t *testing.T) {
	ix := openTest(t)
	now := time.Unix(1_700_000_000, 0)
	const n = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			held, _, err := ix.AcquireLease("lifecycle", fmt.Sprintf("gw-%d", i), now, time.Minute)
			if err != nil {
				t.Error(err)
			}
			if held {
				mu.Lock()
				winners++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if winners != 1 {
		t.Fatalf("%d holders got one lease", winners)
	}
}

// A bbolt index is open in one process only, so a lease found in it when
// it opens was held by a process that is gone (a gateway killed with
// kill -9): opening drops it, and the next gateway, under another name,
// does not wait for it to run out.
func TestLeasesOfAGoneProcessAreDroppedAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if held, _, err := ix.AcquireLease("lifecycle", "gw-killed", now, time.Hour); err != nil || !held {
		t.Fatalf("acquire: %v %v", held, err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if l, ok, err := ix.LeaseOf("lifecycle"); err != nil || ok {
		t.Fatalf("the lease of the closed index's holder is still there: %+v %v %v", l, ok, err)
	}
	if held, cur, err := ix.AcquireLease("lifecycle", "gw-next", now, time.Hour); err != nil || !held {
		t.Fatalf("the next holder waits for a gone process's lease: %v %+v %v", held, cur, err)
	}
}
