package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// offlineFlags are the flags scan and fsck share with serve's --root,
// with the same OBJECTGATEWAY_ROOT fallback.
func offlineFlags(name string, e env) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	def := "./data"
	if v := e.getenv("OBJECTGATEWAY_ROOT"); v != "" {
		def = v
	}
	root := fs.String("root", def, "data root: one directory per bucket, one file per object (env OBJECTGATEWAY_ROOT)")
	return fs, root
}

// indexFlag adds --index to an offline command: the catalogue its root's
// gateways share (serve's --index), defaulting to OBJECTGATEWAY_INDEX;
// empty is the bbolt index in the root.
func indexFlag(fs *flag.FlagSet, e env) *string {
	return fs.String("index", e.getenv("OBJECTGATEWAY_INDEX"), "the root's PostgreSQL catalogue, as serve's --index (env OBJECTGATEWAY_INDEX); empty: the bbolt index in the root")
}

// scanCmd is `objectgateway scan`: it imports or reconciles the tree under
// the root with the index, with the gateway stopped. Re-running it after
// an interruption resumes: every committed batch stays, and unchanged
// records are left alone.
func scanCmd(args []string, e env) error {
	fs, root := offlineFlags("scan", e)
	index := indexFlag(fs, e)
	bucket := fs.String("bucket", "", "reconcile only this bucket (default: every top-level directory)")
	md5 := fs.Bool("md5", false, "read new and changed files to give them their real MD5 as ETag (default: an ETag derived from size, mtime and inode, ending in -1)")
	quiet := fs.Bool("quiet", false, "no progress display")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if st, err := os.Stat(*root); err != nil || !st.IsDir() {
		return fmt.Errorf("--root %s: not a directory", *root)
	}
	layer, err := object.OpenExclusive(object.Options{Root: *root, Index: *index})
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) {
			// A tree the gateway never served has no state directory yet.
			layer, err = object.Open(object.Options{Root: *root, Index: *index})
		}
		if err != nil {
			return fmt.Errorf("open %s: %w", *root, err)
		}
	}
	defer layer.Close()
	o := object.ScanOptions{Bucket: *bucket, MD5: *md5}
	if !*quiet {
		o.Progress, o.ProgressInterval = progressPrinter(e.stderr)
	}
	rep, err := layer.Scan(o)
	printScanReport(e.stdout, rep)
	return err
}

// autoImport runs a scan on serve's first start over an existing tree: the
// index has no bucket yet but the root has bucket-like directories. A
// normal restart finds buckets in the index and does nothing.
func autoImport(layer *object.Layer, stderr io.Writer, log zerolog.Logger) error {
	need, err := layer.NeedsImport()
	if err != nil || !need {
		return err
	}
	log.Info().Msg("first start on an existing tree: importing it into the index")
	o := object.ScanOptions{}
	o.Progress, o.ProgressInterval = progressPrinter(stderr)
	rep, err := layer.Scan(o)
	if err != nil {
		return fmt.Errorf("importing the existing tree: %w", err)
	}
	log.Info().Strs("buckets", rep.BucketsCreated).Int64("added", rep.Added).Int64("skipped", rep.Skipped).
		Dur("elapsed", rep.Elapsed).Float64("files_per_second", rate(rep.Files, rep.Elapsed)).Msg("import finished")
	return nil
}

func printScanReport(w io.Writer, rep object.ScanReport) {
	for _, b := range rep.BucketsCreated {
		fmt.Fprintf(w, "bucket created: %s\n", b)
	}
	for _, d := range rep.SkippedDirs {
		fmt.Fprintf(w, "directory skipped (not a valid bucket name): %s\n", d)
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(w, "error: %s\n", e)
	}
	fmt.Fprintf(w, "added %d, updated %d, removed %d, unchanged %d, skipped %d; %d files in %s (%.0f files/s)\n",
		rep.Added, rep.Updated, rep.Removed, rep.Unchanged, rep.Skipped, rep.Files,
		rep.Elapsed.Round(time.Millisecond), rate(rep.Files, rep.Elapsed))
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// progressPrinter returns a Progress function writing to w and its
// interval: four updates a second rewriting one line on a terminal, one
// line every two seconds otherwise (logs, pipes).
func progressPrinter(w io.Writer) (func(object.ScanProgress), time.Duration) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	interval, end := 2*time.Second, "\n"
	if tty {
		interval, end = 250*time.Millisecond, "\r"
	}
	return func(p object.ScanProgress) {
		line := fmt.Sprintf("scan: %d files", p.Files)
		r := rate(p.Files, p.Elapsed)
		if p.Total > 0 {
			line = fmt.Sprintf("scan: %d/%d files (%.1f%%)", p.Files, p.Total, 100*float64(p.Files)/float64(p.Total))
		}
		line += fmt.Sprintf(", %.0f files/s", r)
		if p.Total > 0 && r > 0 && !p.Done {
			eta := time.Duration(float64(p.Total-p.Files) / r * float64(time.Second))
			line += ", ETA " + eta.Round(time.Second).String()
		}
		if p.Done {
			line += ", done in " + p.Elapsed.Round(time.Millisecond).String()
			end = "\n"
		}
		fmt.Fprint(w, line+strings.Repeat(" ", 8)+end)
	}, interval
}
