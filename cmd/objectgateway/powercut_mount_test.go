package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/powercut"
)

// The power-cut harnesses open the object layer (and so map the bbolt
// index) from the test process itself, to reuse the kill -9 harnesses'
// checks. A process that maps a file from a FUSE mount must not serve
// that mount (pkg/powercut's Caveats), so the mount is served by a child
// process, TestPowerCutMountChild, which the test drives over a line
// protocol on its stdin and stdout:
//
//	cut                     → "ok" or "err <message>"
//	fail <op> <nth> <errno> <path or ->  → "ok" or "err <message>"
//	calls <op>              → "ok <count>"
//	pending                 → "ok <count>"
//	clear                   → "ok" once the rules not fired are dropped
//	close                   → "ok" once unmounted, then the child exits
//
// The child's first line is "ready <mount point>" or
// "unavailable <message>" when the machine cannot mount FUSE.

const pcMountChildEnv = "OBJECTGATEWAY_POWERCUT_MOUNT_CHILD"

// pcMount is a power-cut filesystem served by a child process.
type pcMount struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	path string
}

// mountPowerCut mounts a power-cut filesystem over a temporary directory
// in a child process, or skips the test when FUSE is unavailable. The
// mount is closed at cleanup.
func mountPowerCut(t *testing.T) *pcMount {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPowerCutMountChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), pcMountChildEnv+"="+t.TempDir())
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	m := &pcMount{t: t, cmd: cmd, in: in, out: bufio.NewScanner(stdout)}
	first, ok := m.line()
	switch {
	case ok && strings.HasPrefix(first, "ready "):
		m.path = strings.TrimPrefix(first, "ready ")
	case ok && strings.HasPrefix(first, "unavailable "):
		in.Close()
		cmd.Wait()
		t.Skipf("the power-cut filesystem needs /dev/fuse and root: %s", strings.TrimPrefix(first, "unavailable "))
	default:
		in.Close()
		cmd.Wait()
		t.Fatalf("the mount child did not start: %q", first)
	}
	t.Cleanup(func() {
		if _, err := m.do("close"); err != nil {
			t.Errorf("closing the power-cut mount: %v", err)
		}
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the mount child: %v", err)
		}
	})
	return m
}

// line reads the next line the child prints that belongs to the
// protocol, skipping the test framework's own output.
func (m *pcMount) line() (string, bool) {
	for m.out.Scan() {
		l := m.out.Text()
		if strings.HasPrefix(l, "ready ") || strings.HasPrefix(l, "unavailable ") || l == "ok" || strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "err ") {
			return l, true
		}
	}
	return "", false
}

// do sends one command and returns the text after "ok".
func (m *pcMount) do(cmd string) (string, error) {
	if _, err := io.WriteString(m.in, cmd+"\n"); err != nil {
		return "", err
	}
	l, ok := m.line()
	switch {
	case !ok:
		return "", fmt.Errorf("%s: the mount child exited", cmd)
	case l == "ok":
		return "", nil
	case strings.HasPrefix(l, "ok "):
		return strings.TrimPrefix(l, "ok "), nil
	}
	return "", fmt.Errorf("%s: %s", cmd, strings.TrimPrefix(l, "err "))
}

// Cut cuts the power; the caller must have killed and reaped every
// process with a file on the mount.
func (m *pcMount) Cut() {
	m.t.Helper()
	if _, err := m.do("cut"); err != nil {
		m.t.Fatal(err)
	}
}

// Fail adds a fault rule.
func (m *pcMount) Fail(r powercut.Rule) {
	m.t.Helper()
	p := r.Path
	if p == "" {
		p = "-"
	}
	if _, err := m.do(fmt.Sprintf("fail %s %d %d %s", r.Op, r.Nth, int(r.Errno), p)); err != nil {
		m.t.Fatal(err)
	}
}

// Calls is how many calls of kind op the mount has had.
func (m *pcMount) Calls(op powercut.Op) int64 {
	m.t.Helper()
	return m.count("calls " + string(op))
}

// Pending is the number of fault rules that have not fired.
func (m *pcMount) Pending() int {
	m.t.Helper()
	return int(m.count("pending"))
}

// Clear drops the fault rules that have not fired.
func (m *pcMount) Clear() {
	m.t.Helper()
	if _, err := m.do("clear"); err != nil {
		m.t.Fatal(err)
	}
}

func (m *pcMount) count(cmd string) int64 {
	m.t.Helper()
	s, err := m.do(cmd)
	if err != nil {
		m.t.Fatal(err)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		m.t.Fatalf("%s: %q", cmd, s)
	}
	return n
}

// TestPowerCutMountChild serves a power-cut filesystem for mountPowerCut;
// it runs only as that child.
func TestPowerCutMountChild(t *testing.T) {
	dir := os.Getenv(pcMountChildEnv)
	if dir == "" {
		t.Skip("the mount child of the power-cut harnesses")
	}
	f, err := powercut.Mount(powercut.Options{Dir: dir})
	if errors.Is(err, powercut.ErrUnavailable) {
		fmt.Printf("unavailable %v\n", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ready %s\n", f.Path())
	reply := func(s string, err error) {
		if err != nil {
			fmt.Printf("err %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			return
		}
		if s == "" {
			fmt.Println("ok")
			return
		}
		fmt.Printf("ok %s\n", s)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) == 0 {
			continue
		}
		switch w[0] {
		case "cut":
			reply("", f.Cut())
		case "fail":
			r, err := parseRule(w[1:])
			if err == nil {
				err = f.Fail(r)
			}
			reply("", err)
		case "calls":
			if len(w) != 2 {
				reply("", errors.New("calls <op>"))
				continue
			}
			reply(strconv.FormatInt(f.Calls(powercut.Op(w[1])), 10), nil)
		case "pending":
			reply(strconv.Itoa(f.Pending()), nil)
		case "clear":
			f.Clear()
			reply("", nil)
		case "close":
			reply("", f.Close())
			return
		default:
			reply("", fmt.Errorf("unknown command %q", w[0]))
		}
	}
	// The parent went away without closing: unmount so no mount is left.
	if err := f.Close(); err != nil {
		t.Error(err)
	}
}

func parseRule(w []string) (powercut.Rule, error) {
	if len(w) != 4 {
		return powercut.Rule{}, errors.New("fail <op> <nth> <errno> <path or ->")
	}
	nth, err := strconv.Atoi(w[1])
	if err != nil {
		return powercut.Rule{}, err
	}
	errno, err := strconv.Atoi(w[2])
	if err != nil {
		return powercut.Rule{}, err
	}
	r := powercut.Rule{Op: powercut.Op(w[0]), Nth: nth, Errno: syscall.Errno(errno)}
	if w[3] != "-" {
		r.Path = w[3]
	}
	return r, nil
}
