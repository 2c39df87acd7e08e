package storage

import (
	"fmt"
	"testing"
)

// BenchmarkCommitSmall measures a durable 1 KiB PUT's storage cost: temp
// file, write, fsync, rename into an existing directory, fsync of that
// directory. Fsync dominates, so the figure depends on the disk.
func BenchmarkCommitSmall(b *testing.B) {
	for _, o := range []struct {
		name string
		opt  Options
	}{{"fsync", Options{}}, {"nosync", Options{NoSync: true}}} {
		b.Run(o.name, func(b *testing.B) {
			fs, _ := newTestFS(b, o.opt)
			mustBucket(b, fs, "b")
			body := make([]byte, 1024)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				put(b, fs, "b", fmt.Sprintf("dir/k%d", i%1000), body, Natural)
				i++
			}
		})
	}
}

// BenchmarkOpen measures opening a natural object for reading, the
// per-GET cost before bytes move.
func BenchmarkOpen(b *testing.B) {
	fs, _ := newTestFS(b, Options{NoSync: true})
	mustBucket(b, fs, "b")
	put(b, fs, "b", "dir/sub/k", make([]byte, 1024), Natural)
	b.ReportAllocs()
	for b.Loop() {
		f, _, err := fs.Open("b", "dir/sub/k", Natural)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
