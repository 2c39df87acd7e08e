package storage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

func stagedNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, stagingDir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Two gateways on one root: the second one's Open must leave the first
// one's uploads in flight alone, and they commit afterwards.
func TestOpenKeepsLiveGatewaysStaging(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.MakeBucket("b"); err != nil {
		t.Fatal(err)
	}
	u, err := a.NewUpload()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Write([]byte("in flight on a")); err != nil {
		t.Fatal(err)
	}
	staged := stagedNames(t, dir)
	if len(staged) != 1 {
		t.Fatalf("staging holds %q, want the one upload", staged)
	}

	b, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stagedNames(t, dir); !slices.Equal(got, staged) {
		t.Fatalf("a second Open changed the staging area: %q, was %q", got, staged)
	}
	if left, err := b.StagingFiles(); err != nil || len(left) != 0 {
		t.Fatalf("StagingFiles lists a live gateway's upload: %q %v", left, err)
	}
	if err := b.ClearStaging(); err != nil {
		t.Fatal(err)
	}
	if got := stagedNames(t, dir); !slices.Equal(got, staged) {
		t.Fatalf("ClearStaging removed a live gateway's upload: %q", got)
	}
	loc, _, err := u.Commit("b", "k", 0)
	if err != nil {
		t.Fatalf("the upload in flight could not commit after the second Open: %v", err)
	}
	got, _, err := get(b, "b", "k", loc)
	if err != nil || string(got) != "in flight on a" {
		t.Fatalf("read through the second gateway: %q %v", got, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	locks, _ := os.ReadDir(filepath.Join(dir, gatewaysDir))
	if len(locks) != 1 || locks[0].Name() != a.prefix {
		t.Fatalf("after the second gateway closed, lock files %v, want only the first's", locks)
	}
}

// A gateway that died (its lock released by the kernel, its files left)
// leaves uploads that the next Open removes, with its lock file; fsck
// lists them before.
func TestOpenClearsDeadGatewaysStaging(t *testing.T) {
	dir := t.TempDir()
	live, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	lu, err := live.NewUpload()
	if err != nil {
		t.Fatal(err)
	}
	defer lu.Abort()
	lu.Write([]byte("live"))

	dead, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		u, err := dead.NewUpload()
		if err != nil {
			t.Fatal(err)
		}
		u.Write([]byte("dead"))
	}
	// What the kernel does when the process is killed: the lock goes,
	// the files stay.
	dead.lock.Close()
	dead.lock = nil

	// A leftover of an older release (no prefix) and of a gateway whose
	// lock file is gone altogether.
	os.WriteFile(filepath.Join(dir, stagingDir, "tmp-old"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(dir, stagingDir, "up-00112233445566ff-9"), []byte("x"), 0o600)

	insp, err := OpenInspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	left, err := insp.StagingFiles()
	insp.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 5 {
		t.Fatalf("StagingFiles = %q, want the dead gateway's 3 uploads and the 2 orphans", left)
	}
	for _, n := range left {
		if ownerPrefix(n) == live.prefix {
			t.Fatalf("StagingFiles lists the live gateway's %s", n)
		}
	}

	next, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	got := stagedNames(t, dir)
	if len(got) != 1 || ownerPrefix(got[0]) != live.prefix {
		t.Fatalf("after Open, staging holds %q, want only the live gateway's upload", got)
	}
	if _, err := os.Stat(filepath.Join(dir, gatewaysDir, dead.prefix)); !os.IsNotExist(err) {
		t.Fatalf("the dead gateway's lock file is still there: %v", err)
	}
	dead.Close()
}

// Gateways starting and staging at once on one root never remove each
// other's files: every upload made while others open commits.
func TestConcurrentOpensKeepEachOthersUploads(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := first.MakeBucket("b"); err != nil {
		t.Fatal(err)
	}
	const gateways, rounds = 6, 8
	var wg sync.WaitGroup
	errs := make(chan error, gateways*rounds)
	for g := range gateways {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				fs, err := Open(dir, Options{NoSync: true})
				if err != nil {
					errs <- err
					return
				}
				u, err := fs.NewUpload()
				if err != nil {
					errs <- err
					fs.Close()
					return
				}
				body := []byte(fmt.Sprintf("g%d r%d", g, r))
				if _, err := u.Write(body); err != nil {
					errs <- err
				}
				key := fmt.Sprintf("k%d-%d", g, r)
				if loc, _, err := u.Commit("b", key, 0); err != nil {
					errs <- fmt.Errorf("commit %s: %w", key, err)
				} else if got, _, err := get(fs, "b", key, loc); err != nil || !bytes.Equal(got, body) {
					errs <- fmt.Errorf("read %s: %q %v", key, got, err)
				}
				if err := fs.Close(); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := stagedNames(t, dir); len(got) != 0 {
		t.Errorf("staging holds %q after every gateway closed", got)
	}
	locks, _ := os.ReadDir(filepath.Join(dir, gatewaysDir))
	if len(locks) != 1 {
		t.Errorf("lock files %v, want only the open gateway's", locks)
	}
}

func TestOwnerPrefix(t *testing.T) {
	for name, want := range map[string]string{
		"up-0123456789abcdef-12":     "up-0123456789abcdef-",
		"up-0123456789abcdef-":       "up-0123456789abcdef-",
		"up-0123456789abcdef-3.prev": "up-0123456789abcdef-",
		"up-0123456789ABCDEF-1":      "",
		"up-0123456789abcde-1":       "",
		"up-inspect-12-probe":        "",
		"tmp":                        "",
		"up-0123456789abcdefx1":      "",
		"up-0123456789abcdef0-1":     "",
	} {
		if got := ownerPrefix(name); got != want {
			t.Errorf("ownerPrefix(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestLockFileNamedOnlyLocked checks that, where the file system has
// unnamed files, the lock file of an open FS appears under its name
// already locked: no other Open can find it free between its creation and
// its lock (and remove it as a dead gateway's).
func TestLockFileNamedOnlyLocked(t *testing.T) {
	dir := t.TempDir()
	fs, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	own, prefix := fs.lock, fs.prefix
	defer func() {
		if fs.lock != own {
			fs.lock.Close()
		}
		fs.lock, fs.prefix = own, prefix
	}()
	fs.prefix = "up-0123456789abcdef-"
	done, retry := fs.lockStagingUnnamed()
	if !done {
		t.Skip("no O_TMPFILE or /proc here: the named create is used")
	}
	if retry {
		t.Fatal("a fresh prefix was taken")
	}
	f, err := os.Open(filepath.Join(dir, gatewaysDir, fs.prefix))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
		t.Errorf("flock of the new lock file: %v, want EWOULDBLOCK", err)
	}
	if done, retry := fs.lockStagingUnnamed(); !done || !retry {
		t.Errorf("the same prefix again: done %v retry %v, want a retry", done, retry)
	}
}

// TestClearDeadStagingWhileServing: a gateway that keeps running removes
// the staging files of one on the same root that died (its lock gone),
// and that one's lock file, without waiting for a gateway to start; its
// own uploads in flight, a live gateway's, and names of no prefix (an
// older release's, which may still be writing) stay.
func TestClearDeadStagingWhileServing(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dead, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, fs := range []*FS{a, b, dead, dead} {
		u, err := fs.NewUpload()
		if err != nil {
			t.Fatal(err)
		}
		defer u.Abort()
		if _, err := u.Write([]byte("in flight")); err != nil {
			t.Fatal(err)
		}
	}
	dead.lock.Close() // killed: the lock goes, the files stay
	dead.lock = nil
	defer dead.Close()
	os.WriteFile(filepath.Join(dir, stagingDir, "tmp-old"), []byte("x"), 0o600)

	if err := a.ClearDeadStaging(); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, n := range stagedNames(t, dir) {
		count[ownerPrefix(n)]++
	}
	if count[a.prefix] != 1 || count[b.prefix] != 1 || count[dead.prefix] != 0 || count[""] != 1 || len(count) != 3 {
		t.Fatalf("staging after the sweep, by owner: %v; want a's and b's upload and the unprefixed name, none of the dead gateway's", count)
	}
	if _, err := os.Stat(filepath.Join(dir, gatewaysDir, dead.prefix)); !os.IsNotExist(err) {
		t.Fatalf("the dead gateway's lock file is still there: %v", err)
	}
	for _, fs := range []*FS{a, b} {
		if _, err := os.Stat(filepath.Join(dir, gatewaysDir, fs.prefix)); err != nil {
			t.Fatalf("a live gateway's lock file: %v", err)
		}
	}
}
