package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Main is the bench subcommand: it parses args, then either serves the
// static-file server or runs the benchmark and writes its reports. It
// returns an error when the run could not start, when a report could not
// be written, or when any request failed or cleanup did not finish (after
// the reports are written).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cmd, err := ParseArgs(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if cmd.ServeStatic != "" {
		so := StaticOptions{Dir: cmd.ServeStatic, NoSync: cmd.StaticNoSync, Sink: cmd.StaticSink, Raw: cmd.StaticRaw}
		return ServeStatic(ctx, so, cmd.Listen, func(addr string) {
			mode := fmt.Sprintf("fsync %v", !so.NoSync)
			switch {
			case so.Raw:
				mode = "GET and HEAD only, outside net/http"
			case so.Sink != "":
				mode = "PUT bodies: " + so.Sink
			}
			fmt.Fprintf(stdout, "static-file server: serving %s on http://%s (%s); compare with NAME=http://%s;mode=static\n",
				cmd.ServeStatic, addr, mode, addr)
		})
	}
	o := cmd.Options
	var progress io.Writer
	if f, ok := stderr.(*os.File); o.Progress || ok && IsTerminal(f) {
		progress = stderr
	}
	rep, err := Run(ctx, o, progress)
	if err != nil {
		return err
	}
	return writeReports(rep, o, stdout)
}

func writeReports(rep *Report, o Options, stdout io.Writer) error {
	if err := WriteTable(stdout, rep); err != nil {
		return err
	}
	if o.JSON != "" {
		if err := writeFile(o.JSON, stdout, func(w io.Writer) error { return WriteJSON(w, rep) }); err != nil {
			return err
		}
	}
	if o.HTML != "" {
		if err := writeFile(o.HTML, stdout, func(w io.Writer) error { return WriteHTML(w, rep) }); err != nil {
			return err
		}
	}
	errs := 0
	for _, sc := range rep.Scenarios {
		for _, r := range sc.Results {
			errs += r.Errors
		}
	}
	switch {
	case len(rep.Cleanup) > 0:
		return fmt.Errorf("cleanup failed on %d endpoint(s); see the warnings above", len(rep.Cleanup))
	case errs > 0:
		return fmt.Errorf("%d requests failed; see the notes above", errs)
	case rep.Interrupted:
		return context.Canceled
	}
	return nil
}

// writeFile writes to name ("-" is stdout) with write.
func writeFile(name string, stdout io.Writer, write func(io.Writer) error) error {
	if name == "-" {
		return write(stdout)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
