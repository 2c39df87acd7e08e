// Command objectgateway serves a POSIX directory tree as an S3-compatible
// object store.
//
// Usage:
//
//	objectgateway [serve] [flags]   start the gateway (the default)
//	objectgateway scan [flags]      import or reconcile the tree with the index
//	objectgateway fsck [--repair]   check (and repair) index, files and state
//	objectgateway user <command>    add, list, remove or rotate access keys
//	objectgateway bench [flags]     measure S3 endpoints
//	objectgateway bucket <command>  bucket settings S3 has no request for
//	objectgateway index <command>   copy the catalogue between bbolt and PostgreSQL
//	objectgateway version           print the version
//	objectgateway help [COMMAND]    list the commands, or a command's flags
//
// Every serve flag has an environment-variable equivalent,
// OBJECTGATEWAY_<NAME> (upper case, '-' as '_'); a flag given on the
// command line wins over the environment.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "objectgateway:", err)
		os.Exit(exitCode(err))
	}
}

// run dispatches a subcommand. It is main without the process: tests call
// it directly. Help, whichever command it is asked of, goes to stdout and
// is no error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, stdout, stderr)
	var h *helpRequested
	if errors.As(err, &h) {
		_, werr := io.WriteString(stdout, h.usage)
		return werr
	}
	return err
}

// dispatch runs the command args name; flags without a command are
// serve's.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	switch {
	case len(args) == 1 && isHelpFlag(args[0]):
		cmd, args = "help", nil
	case len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-':
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "scan":
		return scanCmd(args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "fsck":
		return fsckCmd(args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "bench":
		if len(args) > 0 && isHelpFlag(args[0]) {
			// Package bench writes its help where its errors go.
			stderr = stdout
		}
		return runBench(ctx, args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "user":
		return userCmd(args, env{stdout: stdout, stderr: stderr, stdin: os.Stdin, getenv: os.Getenv})
	case "kms":
		return kmsCmd(args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "bucket":
		return bucketCmd(args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "index":
		return indexCmd(ctx, args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "version":
		fmt.Fprintln(stdout, "objectgateway", versionString())
		return nil
	case "help":
		if len(args) > 0 && args[0] != "help" {
			return dispatch(ctx, []string{args[0], "-h"}, stdout, stderr)
		}
		_, err := io.WriteString(stdout, usage)
		return err
	}
	return &usageError{fmt.Errorf("unknown command %q\n\n%s", cmd, usage)}
}

func versionString() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
		v += " " + bi.GoVersion
	}
	return v
}
