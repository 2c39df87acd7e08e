package metadata

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/pgtest"
)

// TestMain runs the package's tests through pgtest, which stops the
// throw-away PostgreSQL cluster of the PostgreSQL engine's tests.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

func init() {
	kvEngineMakers = append(kvEngineMakers, kvEngineMaker{name: "postgres", open: openPGTestEngine, shared: sharePGTestEngine})
}

// openPGTestEngine opens the PostgreSQL engine on a new database; it
// skips the test where PostgreSQL cannot run (pgtest).
func openPGTestEngine(t *testing.T) engine {
	t.Helper()
	return openPGEngineAt(t, pgtest.DSN(t))
}

// sharePGTestEngine opens a second engine on e's database, as a second
// gateway would.
func sharePGTestEngine(t *testing.T, e engine) engine {
	t.Helper()
	return openPGEngineAt(t, e.(*pgEngine).dsn)
}

func openPGEngineAt(t testing.TB, dsn string) *pgEngine {
	t.Helper()
	e, err := openPostgres(context.Background(), dsn, PGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.close() })
	return e
}

// openPGTest opens a catalogue on a new PostgreSQL database, closed at
// cleanup.
func openPGTest(t testing.TB) *Index {
	t.Helper()
	ix, err := OpenPostgres(context.Background(), pgtest.DSN(t), PGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		checkInvariants(t, ix)
		if err := ix.Close(); err != nil {
			t.Error(err)
		}
	})
	return ix
}

// On PostgreSQL every write runs in a transaction of its own
// (updateAlone), and a write's outcome is what the group commit gives it:
// an error before writing is returned and leaves nothing, a write error is
// unwrapped and rolls back what the write had changed, a panic reaches the
// caller; the writes around them are unaffected.
func TestUpdateAloneOutcomes(t *testing.T) {
	ix := openPGTest(t)
	mustCreateBucket(t, ix, "b")
	one := Object{Size: 1}
	rec, err := one.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	early := errors.New("refused before writing")
	if err := ix.update(func(tx kvTx) error { return early }); err != early {
		t.Fatalf("an error before writing = %v", err)
	}
	err = ix.update(func(tx kvTx) error {
		b := tx.Bucket(objectsBucket).Bucket([]byte("b"))
		if err := b.Put([]byte("half"), rec); err != nil {
			return written(err)
		}
		return written(b.Put([]byte("half2"), rec))
	})
	if err != nil {
		t.Fatal(err)
	}
	broken := errors.New("broken mid-write")
	err = ix.update(func(tx kvTx) error {
		b := tx.Bucket(objectsBucket).Bucket([]byte("b"))
		if err := b.Put([]byte("lost"), rec); err != nil {
			return written(err)
		}
		return written(broken)
	})
	if err != broken {
		t.Fatalf("a write error = %v, want it unwrapped", err)
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the write's panic", r)
			}
		}()
		_ = ix.update(func(tx kvTx) error {
			b := tx.Bucket(objectsBucket).Bucket([]byte("b"))
			_ = b.Put([]byte("panicked"), rec)
			panic("boom")
		})
	}()
	err = ix.view(func(tx kvTx) error {
		b := tx.Bucket(objectsBucket).Bucket([]byte("b"))
		for k, want := range map[string]bool{"half": true, "half2": true, "lost": false, "panicked": false} {
			if got := b.Get([]byte(k)) != nil; got != want {
				t.Errorf("%s present: %v, want %v", k, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A gateway from before the stamps (which knew three migrations) is
// refused by a catalogue this release served: it would write records
// without stamping their files, and other gateways' cached records would
// outlive its changes.
func TestPGOlderGatewayRefusedAfterStamps(t *testing.T) {
	dsn := pgtest.DSN(t)
	openPGEngineAt(t, dsn)
	all := pgSchema
	t.Cleanup(func() { pgSchema = all })
	pgSchema = all[:3]
	e, err := openPostgres(context.Background(), dsn, PGOptions{})
	if err == nil {
		e.close()
		t.Fatal("a gateway of three migrations opened a catalogue of this release")
	}
	if !strings.Contains(err.Error(), "newer than this gateway's 3") {
		t.Fatalf("refused with %v", err)
	}
}
