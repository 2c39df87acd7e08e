package metadata

import (
	"context"
	"os"
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
