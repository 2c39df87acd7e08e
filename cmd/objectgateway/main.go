// Command objectgateway serves a POSIX directory tree as an S3-compatible
// object store.
//
// Usage:
//
//	objectgateway [serve] [flags]   start the gateway (the default)
//	objectgateway scan [flags]      import or reconcile the tree with the index
//	objectgateway fsck [--repair]   check (and repair) index, files and state
//	objectgateway user <command>    add, list, remove or rotate access keys
//	objectgateway version           print the version
//
// Every serve flag has an environment-variable equivalent,
// OBJECTGATEWAY_<NAME> (upper case, '-' as '_'); a flag given on the
// command line wins over the environment.
package main

import (
	"context"
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
		os.Exit(1)
	}
}

// run dispatches a subcommand. It is main without the process: tests call
// it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
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
		return runBench(ctx, args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "user":
		return userCmd(args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "bucket":
		return bucketCmd(args, env{stdout: stdout, stderr: stderr, getenv: os.Getenv})
	case "version":
		fmt.Fprintln(stdout, "objectgateway", versionString())
		return nil
	case "help":
		fmt.Fprintln(stdout, "usage: objectgateway [serve|scan|fsck|bench|user|bucket|version] [flags]; objectgateway COMMAND -h lists the flags")
		return nil
	}
	return fmt.Errorf("unknown command %q (try serve or version)", cmd)
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
