package powercut

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// writerChildEnv names the directory TestWriterChild writes in.
const writerChildEnv = "POWERCUT_WRITER_CHILD"

// TestCutAfterKill is a harness's cycle: a process writes on the mount and
// is killed with SIGKILL while it holds files open; after it is reaped,
// Cut keeps what it synced and drops the rest.
func TestCutAfterKill(t *testing.T) {
	f := mount(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestWriterChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), writerChildEnv+"="+f.Path())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	ready := false
	for lines.Scan() {
		if lines.Text() == "ready" {
			ready = true
			break
		}
	}
	if !ready {
		cmd.Wait()
		t.Fatal("the writer exited before it was ready")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	cut(t, f)
	wantContent(t, join(f, "synced"), "synced")
	wantMissing(t, join(f, "unsynced"))
}

// TestWriterChild is the process TestCutAfterKill kills; it does nothing
// otherwise. It writes one file the durable way and one without syncing,
// keeps both open, says "ready" and waits for its stdin to close.
func TestWriterChild(t *testing.T) {
	dir := os.Getenv(writerChildEnv)
	if dir == "" {
		t.Skip("runs only as a child of TestCutAfterKill")
	}
	synced, err := os.Create(dir + "/synced")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synced.WriteString("synced"); err != nil {
		t.Fatal(err)
	}
	if err := synced.Sync(); err != nil {
		t.Fatal(err)
	}
	syncPath(t, dir)
	unsynced, err := os.Create(dir + "/unsynced")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unsynced.WriteString("unsynced"); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready\n")
	var b [1]byte
	os.Stdin.Read(b[:])
}

// TestCutBusy: Cut refuses while a file on the mount is open, and the
// mount keeps serving; it succeeds once the file is closed.
func TestCutBusy(t *testing.T) {
	f := mount(t)
	writeSynced(t, join(f, "a"), "a")
	syncPath(t, f.Path())
	fh, err := os.Open(join(f, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Cut(); !errors.Is(err, ErrBusy) {
		fh.Close()
		t.Fatalf("Cut with a file open: %v, want ErrBusy", err)
	}
	fh.Close()
	wantContent(t, join(f, "a"), "a")
	cut(t, f)
	wantContent(t, join(f, "a"), "a")
}

// TestCopyFileRange: copy_file_range on the mount copies, counts as a write
// to the destination, and its bytes are durable only with an fsync.
func TestCopyFileRange(t *testing.T) {
	f := mount(t)
	writeFile(t, join(f, "src"), "copied bytes")
	src, err := os.Open(join(f, "src"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(join(f, "dst"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	before := f.Calls(OpWrite)
	n, err := unix.CopyFileRange(int(src.Fd()), nil, int(dst.Fd()), nil, 12, 0)
	if err != nil || n != 12 {
		t.Fatalf("copy_file_range: %d, %v", n, err)
	}
	if f.Calls(OpWrite) == before {
		t.Fatal("copy_file_range was not counted as a write")
	}
	if err := dst.Sync(); err != nil {
		t.Fatal(err)
	}
	syncPath(t, f.Path())
	src.Close()
	dst.Close()
	cut(t, f)
	wantContent(t, join(f, "dst"), "copied bytes")
	wantContent(t, join(f, "src"), "")
}

// TestIoctlRefused: the immutable flag cannot be set through the mount, so
// it never reaches a backing file that Cut must remove.
func TestIoctlRefused(t *testing.T) {
	f := mount(t)
	writeFile(t, join(f, "a"), "a")
	fh, err := os.Open(join(f, "a"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	const fsImmutableFL = 0x10
	if err := unix.IoctlSetPointerInt(int(fh.Fd()), unix.FS_IOC_SETFLAGS, fsImmutableFL); !errors.Is(err, syscall.ENOTTY) {
		t.Fatalf("FS_IOC_SETFLAGS: %v, want ENOTTY", err)
	}
}
