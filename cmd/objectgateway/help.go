package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// usage is the top-level help: `objectgateway --help`, and what an unknown
// command is answered with.
const usage = `usage: objectgateway [COMMAND] [flags]

Commands:
  serve     serve the data root over S3 (the default when no command is given)
  scan      import or reconcile the files under the root with the index
  fsck      check, and with --repair fix, the index, the files and the state directory
  bench     measure S3 endpoints, or serve the static-file baseline
  user      add, list, remove, rotate, disable or enable access keys; identity policies
  bucket    bucket settings S3 has no request for (a default Cache-Control)
  kms       the key ring of encrypted objects (list, create, rotate, disable, enable)
  index     copy the catalogue between bbolt and PostgreSQL (copy, export, import)
  version   print the version
  help      print this help; "objectgateway help COMMAND" or "objectgateway COMMAND -h" lists its flags

scan, fsck, user, bucket and index work on a root no gateway is serving.

` + environmentHelp

// environmentHelp names the environment variables the gateway reads.
const environmentHelp = `Environment:
  OBJECTGATEWAY_ACCESS_KEY, OBJECTGATEWAY_SECRET_KEY
            the root user's credentials (default: generated at the first start
            and kept in ROOT/.objectgateway/credentials.json)
  OBJECTGATEWAY_<FLAG>
            any serve flag, upper case with '-' as '_' (OBJECTGATEWAY_ROOT,
            OBJECTGATEWAY_LISTEN, ...); a flag on the command line wins
`

// helpRequested is returned by parseFlags for -h, -help or --help: run
// prints usage to stdout and exits 0.
type helpRequested struct{ usage string }

func (h *helpRequested) Error() string { return "help requested" }
func (h *helpRequested) Unwrap() error { return flag.ErrHelp }

// usageError is a command line the gateway cannot make sense of (an
// unknown command or flag); the process exits with status 2 for it.
type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// exitCode is the process's exit status after run returned err.
func exitCode(err error) int {
	var u *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return 2
	}
	return 1
}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// parseFlags parses args into fs. A request for help comes back as
// *helpRequested carrying fs's usage, for stdout; errors go to fs's
// output (stderr) as the flag package writes them, and come back as a
// *usageError.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	defer fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: objectgateway %s [flags]\n\nFlags:\n", fs.Name())
		fs.PrintDefaults()
		if fs.Name() == "serve" {
			fmt.Fprintf(fs.Output(), "\n%s", environmentHelp)
		}
	}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return &helpRequested{usage: buf.String()}
	}
	_, _ = io.Copy(out, &buf)
	return &usageError{err}
}

// isTerminal reports whether w is a terminal, where colour codes belong;
// in a file, a pipe or a log collector they are noise.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
