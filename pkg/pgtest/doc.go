// Package pgtest gives tests a throw-away PostgreSQL cluster, so that code
// that keeps its catalogue in PostgreSQL is tested against a real server
// without a shared, hand-made one.
//
// It owns the life of one cluster per test binary: the first DSN or TCPDSN
// makes it (initdb) in a new temporary directory and starts its postmaster,
// which listens on a unix socket in that directory and on 127.0.0.1 only,
// on a port picked free; Run stops it after the binary's tests, whether
// they passed or not, and removes the directory. Each DSN call creates a
// new, empty database (UTF-8, C collation) that only its test uses, and
// drops it, with any connections still open to it, at the test's cleanup.
// A test binary that uses pgtest must run its tests through Run:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
//
// pgtest never uses the machine's PostgreSQL service, its clusters or its
// port: only the programs initdb and postgres, from $PGTEST_BIN_DIR when it
// is set (and only from there), or else the newest
// /usr/lib/postgresql/<version>/bin (Debian's place for them), or else
// PATH. The server trusts every connection (initdb --auth=trust), which is
// safe because its socket is in a directory only its user can enter and
// its TCP port is on the loopback address.
//
// The server runs with fsync, synchronous_commit and full_page_writes off,
// since tests check what a commit does, not whether it survives a power
// cut; PGTEST_FSYNC=1 keeps PostgreSQL's durable defaults, for benchmarks.
//
// # Skips and failures
//
// When the binaries are missing, or the cluster cannot start, DSN skips the
// test with a message saying why and how to install PostgreSQL. With
// CI=true in the environment it fails the test instead, so that a CI
// machine cannot pass by skipping the tests that need PostgreSQL; .ci/run
// installs the postgresql package for them.
//
// # Running as root
//
// initdb and postgres refuse to run as root. When the test binary runs as
// root, pgtest runs them as the user nobody, gives the cluster's directory
// to nobody, and names the cluster's superuser nobody; otherwise they run
// as the current user, after whom the superuser is named. A DSN names
// that superuser. As nobody cannot enter a TMPDIR under a directory only
// root can (pkg/testfs/onfs makes one), the cluster's directory is then
// made in /tmp.
//
// # Caveats
//
// A test binary killed before Run stops the cluster (a panic, a -timeout,
// SIGKILL) cannot stop it itself. The postmaster is the binary's child and
// is started with a parent-death signal (Linux's PR_SET_PDEATHSIG), so the
// kernel sends it SIGQUIT, PostgreSQL's immediate shutdown, when the
// binary dies; it does not outlive the binary. Its directory does:
// $TMPDIR/pgtest-* (or /tmp/pgtest-*) left behind by such a run can be
// removed. The parent-death signal is why pgtest builds on Linux only, as
// the storage layer and pkg/testfs do.
package pgtest
