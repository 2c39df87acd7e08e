package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The environment variables pgtest reads.
const (
	// envBinDir, when set, is the only directory searched for initdb and
	// postgres, so that a run can choose a PostgreSQL version, or point at
	// an empty directory to see how the tests behave without one.
	envBinDir = "PGTEST_BIN_DIR"
	// envFsync=1 keeps PostgreSQL's durable defaults (fsync,
	// synchronous_commit, full_page_writes) for benchmarks, where the cost
	// of a commit is part of what is measured.
	envFsync = "PGTEST_FSYNC"
)

// Timeouts for the steps of starting and stopping a cluster. They are far
// above what the steps take (well under a second each on a laptop), so
// that only a hung step trips them.
const (
	initdbTimeout = 2 * time.Minute
	startTimeout  = time.Minute
	stopTimeout   = 30 * time.Second
	// sqlTimeout bounds creating or dropping one test's database.
	sqlTimeout = time.Minute
)

// startAttempts is how many free ports start tries: another process can
// take the port between pickPort closing its listener and the postmaster
// binding it.
const startAttempts = 5

// maxSocketDir is the longest directory the postmaster's socket can live
// in: a socket path (dir + "/.s.PGSQL." + a five-digit port) must fit in
// sun_path's 108 bytes with its terminating NUL.
const maxSocketDir = 107 - len("/.s.PGSQL.65535")

// The binary's one cluster. It is package state, unlike everything else in
// the module, because its lifetime is the test binary's: the first DSN
// starts it and Run stops it.
var (
	// inRun is set while Run runs the tests, so that DSN can refuse to
	// start a cluster no one will stop.
	inRun      atomic.Bool
	startOnce  sync.Once
	theCluster *cluster
	startErr   error
)

// Run runs the package's tests (m.Run) and then stops the cluster if one
// was started, and removes its directory; a test binary that uses pgtest
// calls os.Exit(pgtest.Run(m)) from its TestMain. A cluster that cannot
// be stopped makes a passing run fail, since it would outlive the binary.
func Run(m *testing.M) int {
	inRun.Store(true)
	code := m.Run()
	inRun.Store(false)
	if theCluster != nil {
		if err := theCluster.stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// DSN returns the connection string (keyword form, for pgx or libpq) of a
// new, empty database made for this test on the binary's cluster, which
// the first call starts. It connects over the cluster's unix socket. The
// database is dropped, with any connections still open to it, when the
// test's cleanup runs.
//
// When PostgreSQL's binaries are missing or the cluster cannot start, DSN
// skips the test, saying why and how to install PostgreSQL; with CI=true
// in the environment it fails the test instead.
func DSN(t testing.TB) string {
	t.Helper()
	c := clusterFor(t)
	return c.dsn(c.dir, c.newDatabase(t))
}

// TCPDSN is DSN, but the connection string connects over TCP to
// 127.0.0.1, for tests where processes connect as a remote gateway would.
func TCPDSN(t testing.TB) string {
	t.Helper()
	c := clusterFor(t)
	return c.dsn("127.0.0.1", c.newDatabase(t))
}

// clusterFor returns the binary's cluster, starting it on first use, or
// ends the test: it skips it (fails it under CI=true) when the cluster
// cannot start, and fails it when the binary's TestMain does not call Run.
func clusterFor(t testing.TB) *cluster {
	t.Helper()
	if !inRun.Load() {
		t.Fatal("pgtest: DSN needs the test binary to run its tests through pgtest.Run, which stops the cluster: " +
			"add func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }")
	}
	startOnce.Do(func() { theCluster, startErr = start() })
	if startErr != nil {
		msg := fmt.Sprintf("pgtest: no PostgreSQL cluster for this test: %v\n"+
			"Install PostgreSQL's server (Debian: apt-get install postgresql; pgtest never uses its system service), "+
			"or set %s to the directory holding initdb and postgres.", startErr, envBinDir)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "\n(CI=true: the tests that need PostgreSQL must run, so this is a failure, not a skip.)")
		}
		t.Skip(msg)
	}
	return theCluster
}

// cluster is a running PostgreSQL cluster in a directory of its own: the
// data directory (data/), the unix socket and the server's log.
type cluster struct {
	dir  string
	port int
	// user is the cluster's superuser, named after the OS user the
	// server runs as.
	user string

	postmaster *exec.Cmd
	// exited is closed when the postmaster has exited and been waited
	// for; waitErr is its exit status.
	exited  chan struct{}
	waitErr error

	// lastDB numbers the databases made by newDatabase.
	lastDB atomic.Uint64
}

// binaries are the PostgreSQL programs pgtest runs.
type binaries struct {
	initdb, postgres string
}

// findBinaries returns initdb and postgres from $PGTEST_BIN_DIR when it is
// set, or else from the newest /usr/lib/postgresql/<version>/bin (where
// Debian puts them, outside PATH), or else from PATH.
func findBinaries() (binaries, error) {
	if dir := os.Getenv(envBinDir); dir != "" {
		b, err := binariesIn(dir)
		if err != nil {
			return binaries{}, fmt.Errorf("%s=%s: %w", envBinDir, dir, err)
		}
		return b, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, dir := range dirs {
		if b, err := binariesIn(dir); err == nil {
			return b, nil
		}
	}
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		return binaries{}, errors.New("initdb is in neither /usr/lib/postgresql/*/bin nor PATH")
	}
	// postgres beside initdb is the server of the same version, which
	// initdb's data directory needs.
	if b, err := binariesIn(filepath.Dir(initdb)); err == nil {
		return b, nil
	}
	return binaries{}, fmt.Errorf("found %s, but no postgres beside it", initdb)
}

// binariesIn returns initdb and postgres from dir, or an error naming the
// one that is missing.
func binariesIn(dir string) (binaries, error) {
	var b binaries
	for _, p := range []struct {
		name string
		path *string
	}{{"initdb", &b.initdb}, {"postgres", &b.postgres}} {
		path, err := exec.LookPath(filepath.Join(dir, p.name))
		if err != nil {
			return binaries{}, fmt.Errorf("no %s in %s", p.name, dir)
		}
		*p.path = path
	}
	return b, nil
}

// versionOf returns the major version of a /usr/lib/postgresql/<version>/bin
// directory, as a number so that 10 sorts above 9.6, or 0 for a name that
// is not a version.
func versionOf(binDir string) float64 {
	v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	if err != nil {
		return 0
	}
	return v
}

// serverUser is the OS user the cluster runs as.
type serverUser struct {
	name string
	uid  int
	gid  int
	// cred is nil when that user is the process's own, and otherwise makes
	// initdb and postgres run as it.
	cred *syscall.Credential
}

// userForServer returns the user to run the server as: the current user,
// or nobody when the process runs as root, since initdb and postgres
// refuse to run as root.
func userForServer() (serverUser, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return serverUser{}, fmt.Errorf("looking up the current user, whose name the cluster's superuser takes: %w", err)
		}
		return serverUser{name: u.Username, uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return serverUser{}, fmt.Errorf("running as root, where PostgreSQL must run as another user, and looking up nobody: %w", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return serverUser{}, fmt.Errorf("user nobody: uid %q: %w", u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return serverUser{}, fmt.Errorf("user nobody: gid %q: %w", u.Gid, err)
	}
	return serverUser{
		name: u.Username,
		uid:  uid,
		gid:  gid,
		cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)},
	}, nil
}

// start makes a cluster in a new temporary directory and starts its
// postmaster. On failure it leaves nothing behind.
func start() (*cluster, error) {
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	u, err := userForServer()
	if err != nil {
		return nil, err
	}
	dir, err := makeDir(u)
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, user: u.name}
	if err := c.initdb(bin, u); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		err := c.startPostmaster(bin, u)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == startAttempts {
			os.RemoveAll(dir)
			if errors.Is(err, errPortTaken) {
				err = fmt.Errorf("postgres found each of %d free ports taken by the time it bound it: %w", attempt, err)
			}
			return nil, err
		}
	}
}

// makeDir makes the cluster's directory, owned by the user the server runs
// as. It prefers os.TempDir, and falls back to /tmp when the server's user
// could not reach a directory there (TMPDIR under a directory only root
// can enter, as pkg/testfs/onfs makes) or its socket path would be too
// long.
func makeDir(u serverUser) (string, error) {
	var reasons []string
	for _, base := range []string{os.TempDir(), "/tmp"} {
		dir, err := os.MkdirTemp(base, "pgtest-")
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		if len(dir) > maxSocketDir {
			reasons = append(reasons, fmt.Sprintf("%s is too long a path for a unix socket", dir))
			os.Remove(dir)
			continue
		}
		if u.cred != nil {
			if err := reachable(dir, u); err != nil {
				reasons = append(reasons, err.Error())
				os.Remove(dir)
				continue
			}
			if err := os.Chown(dir, u.uid, u.gid); err != nil {
				os.Remove(dir)
				return "", fmt.Errorf("giving %s to %s: %w", dir, u.name, err)
			}
		}
		return dir, nil
	}
	return "", fmt.Errorf("no directory for the cluster: %s", strings.Join(reasons, "; "))
}

// reachable returns an error unless u may search every directory above
// dir, judged from the mode bits (it ignores ACLs and supplementary
// groups, which nobody does not have).
func reachable(dir string, u serverUser) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Errorf("stat %s: no owner", p)
		}
		perm := fi.Mode().Perm()
		var search bool
		switch {
		case int(st.Uid) == u.uid:
			search = perm&0o100 != 0
		case int(st.Gid) == u.gid:
			search = perm&0o010 != 0
		default:
			search = perm&0o001 != 0
		}
		if !search {
			return fmt.Errorf("%s cannot enter %s", u.name, p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// command returns cmd set to run as the server's user, in the cluster's
// directory (which that user can enter, unlike perhaps the test's).
func (c *cluster) command(ctx context.Context, u serverUser, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = c.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	return cmd
}

// initdb makes the data directory. Trust authentication is safe here: the
// socket is in a directory only the server's user (and root) can enter,
// and TCP listens on 127.0.0.1 only. --no-sync skips flushing the new
// files, which no test needs to survive a power cut.
func (c *cluster) initdb(bin binaries, u serverUser) error {
	ctx, cancel := context.WithTimeout(context.Background(), initdbTimeout)
	defer cancel()
	cmd := c.command(ctx, u, bin.initdb,
		"-D", filepath.Join(c.dir, "data"),
		"-U", u.name,
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", bin.initdb, err, tail(out))
	}
	return nil
}

// errPortTaken is returned by startPostmaster when the postmaster could
// not bind its port, which another process took after pickPort chose it.
var errPortTaken = errors.New("port taken")

// startPostmaster starts postgres on a free port and waits until it
// accepts connections.
//
// It runs postgres itself rather than through pg_ctl start, which detaches
// it (setsid) from the test binary: as the binary's child it gets SIGQUIT
// (PostgreSQL's immediate shutdown) from the kernel when the binary dies
// without Run stopping it (a panic, a test timeout, SIGKILL), through
// Pdeathsig. Pdeathsig fires when the thread that started the child exits,
// so the goroutine that starts it keeps its thread locked until the
// postmaster has exited.
func (c *cluster) startPostmaster(bin binaries, u serverUser) error {
	port, err := pickPort()
	if err != nil {
		return err
	}
	logPath := filepath.Join(c.dir, "postgres.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	// The postmaster has its own copy of the descriptor once started.
	defer logFile.Close()

	args := []string{
		"-D", filepath.Join(c.dir, "data"),
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=" + c.dir,
		"-c", "max_connections=200",
		"-c", "shared_buffers=128MB",
	}
	if os.Getenv(envFsync) != "1" {
		// Tests check what commits do, not whether they survive a power
		// cut, and a commit without a flush is many times faster.
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := c.command(context.Background(), u, bin.postgres, args...)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	cmd.Stdout = logFile
	cmd.Stderr = logFile

	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		// The thread is never unlocked, so that it lives until the
		// postmaster has exited; the runtime ends it with the goroutine.
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.waitErr = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("starting %s: %w", bin.postgres, err)
	}
	c.port, c.postmaster, c.exited = port, cmd, exited

	if err := c.waitReady(); err != nil {
		c.kill()
		log, _ := os.ReadFile(logPath)
		// The server's messages are in English whatever the machine's
		// locale, since initdb --locale=C set lc_messages to C.
		if bytes.Contains(log, []byte("could not bind")) && bytes.Contains(log, []byte("already in use")) {
			return errPortTaken
		}
		return fmt.Errorf("%s on port %d: %w; its log (%s) ends:\n%s", bin.postgres, port, err, logPath, tail(log))
	}
	return nil
}

// pickPort returns a port on 127.0.0.1 that was free a moment ago.
func pickPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady waits until the postmaster says, in postmaster.pid, that it
// accepts connections, as pg_ctl -w does, or until it exits.
func (c *cluster) waitReady() error {
	pidFile := filepath.Join(c.dir, "data", "postmaster.pid")
	want := strconv.Itoa(c.postmaster.Process.Pid)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	for {
		select {
		case <-c.exited:
			return fmt.Errorf("postgres exited: %v", c.waitErr)
		case <-deadline.C:
			return fmt.Errorf("postgres not ready after %v", startTimeout)
		case <-tick.C:
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			continue
		}
		// Line 1 is the postmaster's pid, line 8 its status (PostgreSQL
		// 10 and later).
		lines := strings.Split(string(b), "\n")
		if len(lines) >= 8 && lines[0] == want && strings.TrimSpace(lines[7]) == "ready" {
			return nil
		}
	}
}

// stop shuts the postmaster down and removes the cluster's directory. It
// asks for a fast shutdown, which disconnects clients and whose checkpoint
// is quick in a cluster that has not flushed, and escalates if the
// postmaster hangs.
func (c *cluster) stop() error {
	var errs []error
	if err := c.shutdown(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGKILL); err != nil {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(c.dir); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("pgtest: stopping the cluster in %s: %w", c.dir, err)
	}
	return nil
}

// kill ends a postmaster that failed to become ready. SIGQUIT comes first
// because on it the postmaster takes its children (checkpointer, writers)
// down with it, which SIGKILL leaves to notice its death themselves.
func (c *cluster) kill() {
	c.shutdown(syscall.SIGQUIT, syscall.SIGKILL)
}

// shutdown sends the postmaster each of sigs in turn, giving it
// stopTimeout to exit after each, and returns an error if it outlives
// them all.
func (c *cluster) shutdown(sigs ...os.Signal) error {
	for _, sig := range sigs {
		// An error here means the postmaster has exited already, which
		// the wait below sees.
		c.postmaster.Process.Signal(sig)
		t := time.NewTimer(stopTimeout)
		select {
		case <-c.exited:
			t.Stop()
			return nil
		case <-t.C:
		}
	}
	return fmt.Errorf("postgres (pid %d) still running after %v", c.postmaster.Process.Pid, sigs)
}

// dsn returns the keyword connection string of the database db as the
// superuser, over the socket in dir or over TCP to an IP address.
func (c *cluster) dsn(host, db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable",
		quoteValue(host), c.port, quoteValue(c.user), quoteValue(db))
}

// quoteValue quotes a value of a keyword connection string when it has to
// be, which keeps the common DSN readable in logs.
func quoteValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r\f\v'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// newDatabase creates an empty database for t and drops it at t's cleanup.
// The drop is forced, so that connections a test left open (a pool closed
// by a later-registered cleanup, a leaked one) do not keep it.
func (c *cluster) newDatabase(t testing.TB) string {
	t.Helper()
	name := "og_" + strconv.FormatUint(c.lastDB.Add(1), 10)
	// C collation and ctype make ORDER BY on text compare bytes, as the
	// catalogue's other engines order keys.
	if err := c.admin("CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := c.admin("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping database %s: %v", name, err)
		}
	})
	return name
}

// admin runs one statement as the superuser in the postgres database, on a
// connection of its own, so that tests running in parallel need not share
// one. It does not take the test's context: the drop runs at cleanup, after
// that context is cancelled.
func (c *cluster) admin(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), sqlTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.dsn(c.dir, "postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// tail returns the last lines of a log or a command's output, enough to
// show why PostgreSQL stopped.
func tail(b []byte) string {
	const lines = 20
	s := strings.TrimRight(string(b), "\n")
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
