package object

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
)

// BenchmarkScanImport100k imports a generated tree of 100,000 small files
// (100 directories × 10 subdirectories × 100 files) into a fresh, durable
// index per iteration and reports files/s. It is not part of the default
// test run: go test -run '^$' -bench ScanImport100k -benchtime 3x ./pkg/object
func BenchmarkScanImport100k(b *testing.B) {
	const dirs, subdirs, files = 100, 10, 100
	root := b.TempDir()
	for d := range dirs {
		for s := range subdirs {
			p := filepath.Join(root, "bulk", fmt.Sprintf("d%03d", d), fmt.Sprintf("s%d", s))
			if err := os.MkdirAll(p, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := range files {
				if err := os.WriteFile(filepath.Join(p, fmt.Sprintf("file-%03d.txt", f)), []byte("small file body\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	const total = dirs * subdirs * files
	var imported int64
	for b.Loop() {
		b.StopTimer()
		os.RemoveAll(filepath.Join(root, ".objectgateway"))
		l, err := Open(Options{Root: root})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := l.Scan(ScanOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if rep.Added != total {
			b.Fatalf("added %d, want %d", rep.Added, total)
		}
		// Every file is listed, in order.
		n, q := 0, metadata.ListQuery{Limit: 1000}
		for {
			p, err := l.ix.List("bulk", q)
			if err != nil {
				b.Fatal(err)
			}
			n += len(p.Objects)
			if !p.Truncated {
				break
			}
			q.After = p.Last
		}
		if n != total {
			b.Fatalf("listed %d, want %d", n, total)
		}
		imported += rep.Added
		l.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(imported)/b.Elapsed().Seconds(), "files/s")
}
