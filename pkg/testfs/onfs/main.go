// Command onfs runs a command with its temporary directory on a fresh
// filesystem of a chosen kind, made and removed by package testfs:
//
//	go run ./pkg/testfs/onfs -fs xfs -- go test ./storage ./pkg/object
//
// It sets TMPDIR to a directory on the new filesystem, so that every
// t.TempDir of the tests the command runs, and the temporary root of the
// end-to-end scripts, live on it, and OBJECTGATEWAY_TEST_FS to the kind's
// name for the command to report. It exits with the command's status.
// When the machine cannot make the filesystem it says why and exits 0
// without running the command, or exits 1 when CI=true.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/objectgateway/objectgateway/pkg/testfs"
)

func main() { os.Exit(run()) }

func run() int {
	kindName := flag.String("fs", "", "the filesystem: ext4, xfs, btrfs, tmpfs or ramfs")
	size := flag.Int64("size", 0, "the filesystem's size in bytes (0: testfs.DefaultSize)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: onfs -fs KIND [-size BYTES] -- command [args...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	kind, err := testfs.ParseKind(*kindName)
	if err != nil || flag.NArg() == 0 {
		if err != nil {
			fmt.Fprintln(os.Stderr, "onfs:", err)
		}
		flag.Usage()
		return 2
	}
	work, err := os.MkdirTemp("", "onfs-"+string(kind)+"-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "onfs:", err)
		return 1
	}
	defer os.Remove(work)
	f, err := testfs.New(kind, work, testfs.Options{Size: *size})
	if err != nil {
		fmt.Fprintln(os.Stderr, "onfs:", err)
		var ue *testfs.UnavailableError
		if errors.As(err, &ue) && !testfs.InCI() {
			fmt.Fprintf(os.Stderr, "onfs: skipping %q on %s\n", flag.Args(), kind)
			return 0
		}
		return 1
	}
	code := runOn(f, flag.Args())
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "onfs:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// runOn runs args with TMPDIR on f and returns its exit status. An
// interrupt or a termination is passed on to the command and onfs waits
// for it to end, so that the filesystem is removed after it.
func runOn(f *testfs.FS, args []string) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "TMPDIR="+f.Dir, "OBJECTGATEWAY_TEST_FS="+string(f.Kind))
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "onfs:", err)
		return 1
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "onfs:", err)
		return 1
	}
}
