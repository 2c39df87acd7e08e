package pgtest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/objectgateway/objectgateway/pkg/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// connect opens a connection to dsn that the test's cleanup closes.
func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatalf("connecting to %q: %v", dsn, err)
	}
	t.Cleanup(func() {
		// The error is that of a connection the forced drop of its
		// database has closed already, when the drop ran first.
		conn.Close(context.Background())
	})
	return conn
}

// tables returns the names of the tables in conn's public schema.
func tables(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(t.Context(), "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestDSN(t *testing.T) {
	conn := connect(t, pgtest.DSN(t))
	var one int
	if err := conn.QueryRow(t.Context(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	if got := tables(t, conn); len(got) != 0 {
		t.Fatalf("a new database has tables %q", got)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE objects (key text PRIMARY KEY, size bigint)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "INSERT INTO objects VALUES ('b', 2), ('a', 1), ('B', 3)"); err != nil {
		t.Fatal(err)
	}
	// The database's C collation orders keys by their bytes.
	rows, err := conn.Query(t.Context(), "SELECT key FROM objects ORDER BY key")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"B", "a", "b"}; !slices.Equal(keys, want) {
		t.Errorf("keys in order %q, want %q", keys, want)
	}
	var encoding string
	if err := conn.QueryRow(t.Context(), "SHOW server_encoding").Scan(&encoding); err != nil || encoding != "UTF8" {
		t.Errorf("server_encoding %q, %v; want UTF8", encoding, err)
	}
}

func TestDSNsAreSeparateDatabases(t *testing.T) {
	dsn1, dsn2 := pgtest.DSN(t), pgtest.DSN(t)
	if dsn1 == dsn2 {
		t.Fatalf("two calls returned the same DSN %q", dsn1)
	}
	conn1, conn2 := connect(t, dsn1), connect(t, dsn2)
	var db1, db2 string
	if err := conn1.QueryRow(t.Context(), "SELECT current_database()").Scan(&db1); err != nil {
		t.Fatal(err)
	}
	if err := conn2.QueryRow(t.Context(), "SELECT current_database()").Scan(&db2); err != nil {
		t.Fatal(err)
	}
	if db1 == db2 {
		t.Fatalf("both DSNs connect to database %s", db1)
	}
	if _, err := conn1.Exec(t.Context(), "CREATE TABLE buckets (name text)"); err != nil {
		t.Fatal(err)
	}
	if got := tables(t, conn2); len(got) != 0 {
		t.Errorf("the second database has tables %q after the first made one", got)
	}
}

func TestTCPDSN(t *testing.T) {
	dsn := pgtest.TCPDSN(t)
	if !strings.Contains(dsn, "host=127.0.0.1 ") {
		t.Errorf("TCPDSN %q does not name 127.0.0.1", dsn)
	}
	conn := connect(t, dsn)
	// inet_server_addr is NULL on a unix socket connection.
	var addr *string
	if err := conn.QueryRow(t.Context(), "SELECT host(inet_server_addr())").Scan(&addr); err != nil {
		t.Fatal(err)
	}
	if addr == nil || *addr != "127.0.0.1" {
		t.Errorf("server address %v, want 127.0.0.1", addr)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
}

func TestDatabaseDroppedAtCleanup(t *testing.T) {
	var dsn string
	t.Run("use", func(t *testing.T) {
		dsn = pgtest.DSN(t)
		// The connection stays open until after the drop (cleanups run
		// last-registered first), which the drop must force.
		conn := connect(t, dsn)
		if _, err := conn.Exec(t.Context(), "CREATE TABLE t (x int)"); err != nil {
			t.Fatal(err)
		}
	})
	if dsn == "" {
		t.Skip("the subtest skipped")
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err == nil {
		conn.Close(t.Context())
		t.Fatalf("connected to %q after its test's cleanup", dsn)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" { // invalid_catalog_name
		t.Fatalf("connecting to %q after its test's cleanup: %v, want SQLSTATE 3D000 (no such database)", dsn, err)
	}
}

// TestUnavailable runs TestDSN in a child test binary whose PGTEST_BIN_DIR
// holds no PostgreSQL, and checks that it skips, or fails under CI=true.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		ci       string
		wantFail bool
		want     string
	}{
		{ci: "", wantFail: false, want: "--- SKIP: TestDSN"},
		{ci: "true", wantFail: true, want: "--- FAIL: TestDSN"},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestDSN$", "-test.v", "-test.count=1")
			env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
				return strings.HasPrefix(kv, "CI=") || strings.HasPrefix(kv, "PGTEST_BIN_DIR=")
			})
			env = append(env, "PGTEST_BIN_DIR="+t.TempDir())
			if tc.ci != "" {
				env = append(env, "CI="+tc.ci)
			}
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			switch {
			case tc.wantFail && !errors.As(err, &exit):
				t.Errorf("child exited with %v, want a failure", err)
			case !tc.wantFail && err != nil:
				t.Errorf("child exited with %v, want success", err)
			}
			for _, want := range []string{tc.want, "no initdb in", "apt-get install postgresql"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("child's output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
