package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/storage"
	berrors "go.etcd.io/bbolt/errors"
)

const indexUsage = `usage: objectgateway index <command> [flags]

  copy --from SRC --to DST [--batch N]   copy the catalogue SRC into DST
  export [--root DIR] --to URL           copy the root's bbolt index into PostgreSQL
  import --from URL [--root DIR]         copy a PostgreSQL catalogue into the root's bbolt index

SRC and DST are a data root (its index, ROOT/.objectgateway/index.db),
bbolt:FILE (an index file), or a PostgreSQL URL (postgres://… or
postgresql://…). DST must be empty (a new index or database) or hold a
copy from SRC that was interrupted, which then goes on where it stopped.
After copying, both sides are compared entry by entry, and each top-level
bucket's count and SHA-256 are printed.

Stop the gateways of both sides first: a bbolt index a gateway has open is
refused, and a PostgreSQL catalogue written during the copy fails its
verification. See docs/index-copy.md.`

// indexCmd is `objectgateway index`: it copies the catalogue between its
// engines (metadata.Copy), with the gateways stopped.
func indexCmd(ctx context.Context, args []string, e env) error {
	if len(args) == 0 || isHelpFlag(args[0]) || args[0] == "help" {
		fmt.Fprintln(e.stdout, indexUsage)
		return nil
	}
	sub, args := args[0], args[1:]
	var fs *flag.FlagSet
	var from, to, root *string
	switch sub {
	case "copy":
		fs = flag.NewFlagSet("index copy", flag.ContinueOnError)
		fs.SetOutput(e.stderr)
		from = fs.String("from", "", "the catalogue to copy: a data root, bbolt:FILE or a postgres:// URL")
		to = fs.String("to", "", "the empty catalogue to copy into: a data root, bbolt:FILE or a postgres:// URL")
	case "export":
		fs, root = offlineFlags("index export", e)
		to = fs.String("to", "", "the empty PostgreSQL catalogue to copy into (postgres://…)")
	case "import":
		fs, root = offlineFlags("index import", e)
		from = fs.String("from", "", "the PostgreSQL catalogue to copy (postgres://…)")
	default:
		return &usageError{fmt.Errorf("unknown index command %q\n\n%s", sub, indexUsage)}
	}
	batch := fs.Int("batch", 1000, "entries per write transaction")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &usageError{fmt.Errorf("index %s: unexpected arguments: %s", sub, strings.Join(fs.Args(), " "))}
	}
	if root != nil {
		if sub == "export" {
			from = root
		} else {
			to = root
		}
	}
	if *from == "" || *to == "" {
		return &usageError{fmt.Errorf("index %s: give both sides\n\n%s", sub, indexUsage)}
	}
	src, err := parseIndexAddr(*from)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	dst, err := parseIndexAddr(*to)
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	// The spelled-out forms say which side is PostgreSQL.
	if (sub == "export" && dst.dsn == "") || (sub == "import" && src.dsn == "") {
		return &usageError{fmt.Errorf("index %s: the catalogue in PostgreSQL must be a postgres:// URL; use index copy between other kinds", sub)}
	}
	if src.same(dst) {
		return fmt.Errorf("index %s: the source and the destination are both %s", sub, src)
	}
	return copyIndex(ctx, src, dst, *batch, e)
}

// indexAddr names a catalogue: a bbolt file, or a PostgreSQL database.
type indexAddr struct {
	// file is the bbolt index; root, when it was named by its data root,
	// is that root.
	file, root string
	// dsn is the PostgreSQL URL, and host and db what it is printed as:
	// a DSN may hold a password, which is never printed.
	dsn, host, db string
}

// parseIndexAddr reads a side of a copy: a postgres:// or postgresql://
// URL, bbolt:FILE, or else a data root. It touches no file.
func parseIndexAddr(s string) (indexAddr, error) {
	switch {
	case s == "":
		return indexAddr{}, errors.New("empty")
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		cfg, err := pgx.ParseConfig(s)
		if err != nil {
			// pgx's error quotes the DSN with its password masked; a URL
			// it cannot parse is not printed at all.
			return indexAddr{}, errors.New("not a PostgreSQL URL that can be parsed")
		}
		return indexAddr{dsn: s, host: fmt.Sprintf("%s:%d", cfg.Host, cfg.Port), db: cfg.Database}, nil
	case strings.HasPrefix(s, "bbolt:"):
		if s == "bbolt:" {
			return indexAddr{}, errors.New("bbolt: names no file")
		}
		return indexAddr{file: strings.TrimPrefix(s, "bbolt:")}, nil
	}
	return indexAddr{file: filepath.Join(s, storage.StateDir, object.IndexFile), root: s}, nil
}

// same reports whether a and b name the same catalogue, as far as their
// names tell: the same bbolt file, however spelled, or the same URL.
func (a indexAddr) same(b indexAddr) bool {
	if a.dsn != "" || b.dsn != "" {
		return a.dsn == b.dsn
	}
	fa, errA := filepath.Abs(a.file)
	fb, errB := filepath.Abs(b.file)
	return errA == nil && errB == nil && fa == fb
}

// String names the catalogue for people, without a password.
func (a indexAddr) String() string {
	if a.dsn != "" {
		return fmt.Sprintf("PostgreSQL database %s on %s", a.db, a.host)
	}
	return a.file
}

// open opens the catalogue. A source's bbolt index must exist; a
// destination's is created, in a root that must exist. bbolt's file lock
// keeps a running gateway's index from being opened.
func (a indexAddr) open(ctx context.Context, create bool) (*metadata.Index, error) {
	if a.dsn != "" {
		ix, err := metadata.OpenPostgres(ctx, a.dsn, metadata.PGOptions{MaxConns: 4})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		return ix, nil
	}
	if a.root != "" {
		if st, err := os.Stat(a.root); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory", a.root)
		}
		if create {
			if err := os.MkdirAll(filepath.Dir(a.file), 0o700); err != nil {
				return nil, err
			}
		}
	}
	if !create {
		if _, err := os.Stat(a.file); errors.Is(err, iofs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no index there", a.file)
		}
	}
	ix, err := metadata.Open(a.file, metadata.Options{Timeout: time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w (is a gateway running on this root?)", err)
	}
	return ix, err
}

// copyIndex copies src into dst, printing progress on stderr and the
// verification on stdout. An interrupt (ctx) stops it between two
// batches; it goes on when run again.
func copyIndex(ctx context.Context, src, dst indexAddr, batch int, e env) error {
	from, err := src.open(ctx, false)
	if err != nil {
		return err
	}
	defer from.Close()
	to, err := dst.open(ctx, true)
	if err != nil {
		return err
	}
	defer to.Close()

	fmt.Fprintf(e.stderr, "index copy: from %s to %s\n", src, dst)
	start := time.Now()
	last := start
	rep, err := metadata.Copy(to, from, metadata.CopyOptions{
		Batch: batch,
		Stop:  ctx.Done(),
		Progress: func(p metadata.CopyProgress) {
			if now := time.Now(); now.Sub(last) >= 2*time.Second {
				last = now
				fmt.Fprintf(e.stderr, "index copy: %d keys, %d buckets copied (in %s)\n", p.Keys, p.Buckets, p.Bucket)
			}
		},
	})
	if rep.Resumed {
		fmt.Fprintln(e.stderr, "index copy: went on from an interrupted copy")
	}
	elapsed := time.Since(start)
	fmt.Fprintf(e.stderr, "index copy: %d keys, %d buckets copied; this run: %d batches, %s with the verification\n",
		rep.Keys, rep.Buckets, rep.Batches, elapsed.Round(time.Millisecond))
	if len(rep.Verified) > 0 {
		printCopyReport(e, rep)
	}
	switch {
	case errors.Is(err, metadata.ErrCopyStopped):
		return fmt.Errorf("interrupted; run the same command again to go on: %w", err)
	case err != nil:
		return err
	}
	fmt.Fprintf(e.stdout, "verified: %s holds what %s holds\n", dst, src)
	if dst.root != "" {
		// The root's own index is its catalogue again.
		return object.UseEmbeddedIndex(dst.root)
	}
	return nil
}

// printCopyReport prints each top-level bucket's verification.
func printCopyReport(e env, rep metadata.CopyReport) {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUCKET\tKEYS\tNESTED BUCKETS\tSHA-256\tDESTINATION")
	for _, s := range rep.Verified {
		verdict := "match"
		if !s.Match() {
			verdict = fmt.Sprintf("DIFFERS: destination %d keys, %d buckets, %s", s.Destination.Keys, s.Destination.Buckets, hex.EncodeToString(s.Destination.Sum[:]))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", s.Bucket, s.Source.Keys, s.Source.Buckets, hex.EncodeToString(s.Source.Sum[:]), verdict)
	}
	tw.Flush()
}
