package powercut

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// TestFailNth: for each kind of call, a rule fails exactly the Nth call on
// its path with its errno, once; calls on other paths are not counted by
// the rule, and Calls counts every call of the kind.
func TestFailNth(t *testing.T) {
	f := mount(t)
	// setup makes what the calls need; call does the i-th call (1-based)
	// on the matching path, or on another path when other is set.
	type opCase struct {
		op    Op
		errno syscall.Errno
		setup func(t *testing.T, dir string)
		call  func(dir string, i int, other string) error
	}
	const n, nth = 5, 3
	cases := []opCase{
		{op: OpWrite, errno: syscall.ENOSPC,
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir+"/target", "")
				writeFile(t, dir+"/other", "")
			},
			call: func(dir string, i int, other string) error {
				fh, err := os.OpenFile(dir+"/"+pick("target", other), os.O_WRONLY, 0)
				if err != nil {
					return err
				}
				defer fh.Close()
				_, err = fh.WriteAt([]byte("x"), int64(i))
				return err
			}},
		{op: OpFsync, errno: syscall.EIO,
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir+"/target", "data")
				writeFile(t, dir+"/other", "data")
			},
			call: func(dir string, i int, other string) error {
				p := dir + "/" + pick("target", other)
				if i%2 == 0 {
					// fdatasync counts as an fsync.
					fh, err := os.OpenFile(p, os.O_WRONLY, 0)
					if err != nil {
						return err
					}
					defer fh.Close()
					return syscall.Fdatasync(int(fh.Fd()))
				}
				fh, err := os.Open(p)
				if err != nil {
					return err
				}
				defer fh.Close()
				return fh.Sync()
			}},
		{op: OpRename, errno: syscall.EDQUOT,
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir+"/target0", "")
				writeFile(t, dir+"/other0", "")
			},
			call: func(dir string, i int, other string) error {
				base := pick("target", other)
				// Each call renames the file on to the next number; a
				// failed rename leaves it where it was.
				for j := i - 1; j >= 0; j-- {
					from := fmt.Sprintf("%s/%s%d", dir, base, j)
					if _, err := os.Lstat(from); err == nil {
						return os.Rename(from, fmt.Sprintf("%s/%s%d", dir, base, i))
					}
				}
				return fmt.Errorf("no %s file to rename", base)
			}},
		{op: OpLink, errno: syscall.EIO,
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir+"/target", "")
				writeFile(t, dir+"/other", "")
			},
			call: func(dir string, i int, other string) error {
				base := pick("target", other)
				return os.Link(dir+"/"+base, fmt.Sprintf("%s/%s-link%d", dir, base, i))
			}},
		{op: OpMkdir, errno: syscall.ENOSPC,
			call: func(dir string, i int, other string) error {
				return os.Mkdir(fmt.Sprintf("%s/%s%d", dir, pick("target", other), i), 0o755)
			}},
		{op: OpOpen, errno: syscall.EIO,
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir+"/target", "")
				writeFile(t, dir+"/other", "")
			},
			call: func(dir string, i int, other string) error {
				p := dir + "/" + pick("target", other)
				if i%2 == 0 {
					// A create counts as an open.
					p = fmt.Sprintf("%s-new%d", p, i)
				}
				fh, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
				if err != nil {
					return err
				}
				return fh.Close()
			}},
		{op: OpUnlink, errno: syscall.EDQUOT,
			setup: func(t *testing.T, dir string) {
				for i := 1; i <= n; i++ {
					writeFile(t, fmt.Sprintf("%s/target%d", dir, i), "")
					writeFile(t, fmt.Sprintf("%s/other%d", dir, i), "")
				}
			},
			call: func(dir string, i int, other string) error {
				return os.Remove(fmt.Sprintf("%s/%s%d", dir, pick("target", other), i))
			}},
	}
	for _, c := range cases {
		t.Run(string(c.op), func(t *testing.T) {
			dir := join(f, string(c.op))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if c.setup != nil {
				c.setup(t, dir)
			}
			if err := f.Fail(Rule{Op: c.op, Nth: nth, Errno: c.errno, Path: "/" + string(c.op) + "/target"}); err != nil {
				t.Fatal(err)
			}
			before := f.Calls(c.op)
			for i := 1; i <= n; i++ {
				// A call on another path in between is not counted by
				// the rule and succeeds.
				if err := c.call(dir, i, "other"); err != nil {
					t.Fatalf("call %d on the other path: %v", i, err)
				}
				err := c.call(dir, i, "")
				switch {
				case i == nth && !errors.Is(err, c.errno):
					t.Fatalf("call %d: err %v, want %v", i, err, c.errno)
				case i != nth && err != nil:
					t.Fatalf("call %d: %v, want success", i, err)
				}
			}
			if p := f.Pending(); p != 0 {
				t.Fatalf("%d rules pending after the Nth call, want 0", p)
			}
			if got := f.Calls(c.op) - before; got < 2*n {
				t.Fatalf("Calls(%s) grew by %d over %d calls", c.op, got, 2*n)
			}
		})
	}
}

func pick(target, other string) string {
	if other != "" {
		return other
	}
	return target
}

// TestFailedFsyncMakesNothingDurable: an fsync that a rule fails leaves
// the model as it was.
func TestFailedFsyncMakesNothingDurable(t *testing.T) {
	f := mount(t)
	p := join(f, "a")
	writeSynced(t, p, "one")
	syncPath(t, f.Path())
	if err := f.Fail(Rule{Op: OpFsync, Nth: 1, Errno: syscall.EIO, Path: "/a"}); err != nil {
		t.Fatal(err)
	}
	fh, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString("two"); err != nil {
		t.Fatal(err)
	}
	if err := fh.Sync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("fsync: %v, want EIO", err)
	}
	fh.Close()
	cut(t, f)
	wantContent(t, p, "one")
}

// TestFailRejectsBadRules: a rule must name a known kind, an Nth of at
// least 1 and an errno.
func TestFailRejectsBadRules(t *testing.T) {
	f := &FS{faults: newFaults()}
	for _, r := range []Rule{
		{Op: "read", Nth: 1, Errno: syscall.EIO},
		{Op: OpWrite, Nth: 0, Errno: syscall.EIO},
		{Op: OpWrite, Nth: 1},
	} {
		if err := f.Fail(r); err == nil {
			t.Errorf("Fail(%+v) accepted", r)
		}
	}
}

// TestClearDropsPendingRules: a rule dropped by Clear never fires, and the
// calls it would have matched are still counted.
func TestClearDropsPendingRules(t *testing.T) {
	f := &FS{faults: newFaults()}
	if err := f.Fail(Rule{Op: OpWrite, Nth: 1, Errno: syscall.EIO}); err != nil {
		t.Fatal(err)
	}
	f.Clear()
	if n := f.Pending(); n != 0 {
		t.Fatalf("Pending after Clear: %d", n)
	}
	if errno := f.check(OpWrite, "/a"); errno != 0 {
		t.Fatalf("a cleared rule fired: %v", errno)
	}
	if n := f.Calls(OpWrite); n != 1 {
		t.Fatalf("Calls(write) = %d, want 1", n)
	}
}
