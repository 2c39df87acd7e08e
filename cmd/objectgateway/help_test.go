package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// TestHelpEveryCommand: -h, -help and --help, at the top level and of
// every command and nested user and bucket command, print to stdout and
// are no error (exit status 0); nothing goes to stderr.
func TestHelpEveryCommand(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"-help"}, {"help"},
		{"serve", "--help"}, {"serve", "-h"}, {"--root", "x", "-h"}, {"help", "serve"},
		{"scan", "-h"}, {"fsck", "--help"}, {"bench", "-h"}, {"bench", "--help"},
		{"user", "--help"}, {"user", "add", "--help"}, {"user", "add", "alice", "-h"}, {"user", "list", "-h"}, {"user", "rotate", "--help"},
		{"user", "policy", "-h"}, {"user", "policy", "put", "--help"}, {"user", "policy", "get", "AKID", "-h"},
		{"bucket", "-h"}, {"bucket", "cache-control", "--help"}, {"help", "fsck"}, {"version", "--help"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if err != nil || exitCode(err) != 0 {
			t.Errorf("%q: %v (exit %d); want exit 0", args, err, exitCode(err))
		}
		if stdout.Len() == 0 || stderr.Len() != 0 {
			t.Errorf("%q: stdout %d bytes, stderr %q; want the help on stdout alone", args, stdout.Len(), stderr.String())
		}
	}

	var top bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &top, &top); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"serve ", "scan ", "fsck ", "bench ", "user ", "bucket ", "version ", "OBJECTGATEWAY_ACCESS_KEY", "OBJECTGATEWAY_SECRET_KEY", "OBJECTGATEWAY_<FLAG>"} {
		if !strings.Contains(top.String(), want) {
			t.Errorf("objectgateway --help does not mention %q:\n%s", want, top.String())
		}
	}
	var serveHelp bytes.Buffer
	if err := run(context.Background(), []string{"serve", "-h"}, &serveHelp, &serveHelp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(default 256KiB)", "(default 1GiB)", "(default 4MiB)", "-shutdown-timeout", "OBJECTGATEWAY_<FLAG>"} {
		if !strings.Contains(serveHelp.String(), want) {
			t.Errorf("serve -h does not show %q", want)
		}
	}
}

// TestUnknownCommandListsCommands: an unknown command is a usage error
// (exit status 2) whose message lists the commands; so is an unknown flag.
func TestUnknownCommandListsCommands(t *testing.T) {
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"nonsense"}, &stdout, &stdout)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), `unknown command "nonsense"`) || !strings.Contains(err.Error(), "fsck ") {
		t.Errorf("unknown command: %v (exit %d); want exit 2 and the list of commands", err, exitCode(err))
	}
	if err := run(context.Background(), []string{"serve", "--no-such-flag"}, &stdout, &stdout); exitCode(err) != 2 {
		t.Errorf("unknown flag: %v (exit %d); want exit 2", err, exitCode(err))
	}
}

// TestMainExitStatus runs main itself in a child process (this test
// binary, told by OBJECTGATEWAY_TEST_MAIN_ARGS to be the gateway) and
// checks the exit status and the stream of --help and of an unknown
// command.
func TestMainExitStatus(t *testing.T) {
	if args := os.Getenv("OBJECTGATEWAY_TEST_MAIN_ARGS"); args != "" {
		os.Args = append([]string{"objectgateway"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	for _, tc := range []struct {
		args              string
		status            int
		stdout, stderr    bool
		stdoutHas, errHas string
	}{
		{"--help", 0, true, false, "Commands:", ""},
		{"user add --help", 0, true, false, "-access-key", ""},
		{"nonsense", 2, false, true, "", "unknown command"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMainExitStatus$")
		cmd.Env = append(os.Environ(), "OBJECTGATEWAY_TEST_MAIN_ARGS="+tc.args)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		status := 0
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != tc.status || !strings.Contains(stdout.String(), tc.stdoutHas) || !strings.Contains(stderr.String(), tc.errHas) ||
			(stderr.Len() > 0) != tc.stderr {
			t.Errorf("objectgateway %s: exit %d, stdout %q, stderr %q; want exit %d", tc.args, status, stdout.String(), stderr.String(), tc.status)
		}
	}
}

func TestByteSizeString(t *testing.T) {
	for _, tc := range []struct {
		n    byteSize
		want string
	}{
		{0, "0"}, {512, "512"}, {1536, "1536"}, {256 << 10, "256KiB"}, {4 << 20, "4MiB"}, {1 << 30, "1GiB"}, {50 << 30, "50GiB"}, {(1 << 30) + (1 << 20), "1025MiB"},
	} {
		got := tc.n.String()
		if got != tc.want {
			t.Errorf("byteSize(%d).String() = %q, want %q", int64(tc.n), got, tc.want)
		}
		var back byteSize
		if err := back.Set(got); err != nil || back != tc.n {
			t.Errorf("Set(%q) = %d, %v; want %d", got, int64(back), err, int64(tc.n))
		}
	}
}

// TestConsoleLogColourOnlyOnTerminal: --log-format console writes no
// colour codes to a stream that is not a terminal (a buffer, a file), and
// a terminal is recognised as one.
func TestConsoleLogColourOnlyOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(config{logLevel: "info", logFormat: "console"}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	log.Warn().Str("bucket", "b").Msg("hello")
	if !strings.Contains(buf.String(), "hello") || strings.Contains(buf.String(), "\x1b[") {
		t.Errorf("console log to a buffer: %q; want the line without colour codes", buf.String())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file was taken for a terminal")
	}
	if pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		defer pty.Close()
		if !isTerminal(pty) {
			t.Error("a pseudo-terminal was not recognised as a terminal")
		}
	}
}

// TestLogLevelRefusedWithChoices: an unknown --log-level is refused
// before anything starts, with the levels that exist.
func TestLogLevelRefusedWithChoices(t *testing.T) {
	root := t.TempDir()
	err := serve(context.Background(), []string{"--root", root, "--log-level", "verbose"}, env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), `"verbose"`) || !strings.Contains(err.Error(), "debug, info, warn, error") {
		t.Errorf("--log-level verbose: %v; want a refusal listing debug, info, warn, error", err)
	}
	for _, bad := range []string{"", "trace", "disabled", "-1"} {
		if _, err := newLogger(config{logLevel: bad, logFormat: "json"}, &bytes.Buffer{}); err == nil {
			t.Errorf("--log-level %q accepted", bad)
		}
	}
}

var accessKeyLine = regexp.MustCompile(`access key: (\S+)`)

// TestUserAddWithoutName: `user add` with no NAME adds a user named after
// its generated access key and says so; the listing shows that name.
func TestUserAddWithoutName(t *testing.T) {
	root := t.TempDir()
	out, err := runUser(t, root, "add")
	if err != nil {
		t.Fatalf("user add: %v", err)
	}
	m := secretLine.FindStringSubmatch(out)
	ak := accessKeyLine.FindStringSubmatch(out)
	if m == nil || ak == nil || !strings.Contains(out, "Added user "+ak[1]+" ") {
		t.Fatalf("user add without a name printed %q; want the user named after its access key", out)
	}
	layer, err := openOffline(root)
	if err != nil {
		t.Fatal(err)
	}
	defer layer.Close()
	list, err := layer.Users(object.UsersOptions{}).List()
	if err != nil || len(list) != 1 || list[0].Name != ak[1] || list[0].AccessKey != ak[1] {
		t.Fatalf("users %+v, %v; want one named %s", list, err, ak[1])
	}
}
