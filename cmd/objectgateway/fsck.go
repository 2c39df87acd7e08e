package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/object"
)

// errProblems makes fsck exit with status 1 when it found problems that
// remain; its message is the summary already printed.
var errProblems = errors.New("fsck found problems")

// fsckCmd is `objectgateway fsck`: it checks the index against the files
// and the state directory, with the gateway stopped, and with --repair
// fixes what it safely can. It never deletes a file under a bucket.
func fsckCmd(args []string, e env) error {
	fs, root := offlineFlags("fsck", e)
	index := indexFlag(fs, e)
	repair := fs.Bool("repair", false, "fix what can be fixed safely: drop records of missing files, refresh changed records, remove staging leftovers, orphaned part directories and shadow files")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	layer, err := object.OpenExclusive(object.Options{Root: *root, Index: *index})
	if err != nil {
		return fmt.Errorf("open %s: %w", *root, err)
	}
	defer layer.Close()
	rep, err := layer.Fsck(object.FsckOptions{Repair: *repair})
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stdout, p)
	}
	fmt.Fprintf(e.stdout, "checked %d records, %d files, %d shadow files, %d noncurrent versions, %d version files, %d uploads (%d entries skipped) in %s: %d problems, %d remaining\n",
		rep.Records, rep.Files, rep.ShadowFiles, rep.Versions, rep.VersionFiles, rep.Uploads, rep.Skipped, rep.Elapsed.Round(1e6), len(rep.Problems), rep.Unrepaired())
	if err != nil {
		return err
	}
	if rep.Unrepaired() > 0 {
		return errProblems
	}
	return nil
}
