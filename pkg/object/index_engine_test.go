package object

import (
	"os"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/pgtest"
)

// TestMain runs the package's tests through pgtest, which stops the
// throw-away PostgreSQL cluster when the suite ran on it.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// testIndex is the Options.Index of the layers the suite's helpers
// (newLayer, openVersioned) open: with OBJECTGATEWAY_TEST_INDEX=postgres
// a new PostgreSQL database, so that the object layer's tests run on the
// shared catalogue too (.ci/run does); otherwise "", the bbolt index.
func testIndex(t testing.TB) string {
	t.Helper()
	if os.Getenv("OBJECTGATEWAY_TEST_INDEX") == "postgres" {
		return pgtest.DSN(t)
	}
	return ""
}

// bboltOnly skips a test of what only the bbolt index does — one gateway
// per root, held by its file lock, which offline tools open after it —
// when the suite runs on PostgreSQL.
func bboltOnly(t testing.TB) {
	t.Helper()
	if os.Getenv("OBJECTGATEWAY_TEST_INDEX") == "postgres" {
		t.Skip("the bbolt index's one-gateway-per-root rule; the suite runs on PostgreSQL")
	}
}
