package expire

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/lifecycle"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/storage"
)

// BenchmarkLifecycleWalk measures the walk of a pass alone: one pass per
// iteration over a bucket of LCWALK_RECORDS (200,000) index records, none
// of which is due, so that nothing is removed and the figures are those
// of reading the index and matching the rule. The records carry what a
// PUT leaves (content type, checksum, file mtime and inode), 10% a tag
// the rule does not ask for and 1% the tag it asks for. It reports
// records/s and allocs/record; run it with
//
//	go test -run XXX -bench LifecycleWalk -benchmem ./pkg/expire
func BenchmarkLifecycleWalk(b *testing.B) {
	records := 200_000
	if v := os.Getenv("LCWALK_RECORDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		records = n
	}
	for _, bc := range []struct{ name, rule string }{
		{"tag", `<Filter><Tag><Key>kind</Key><Value>scratch</Value></Tag></Filter>`},
		{"prefix+size", `<Filter><And><Prefix>data/</Prefix><ObjectSizeGreaterThan>4096</ObjectSizeGreaterThan></And></Filter>`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := walkBucket(b, records, bc.rule)
			// The rule's Days are far ahead of every record, so the
			// pass removes nothing.
			w := New(Options{Layer: l, Log: zerolog.Nop()})
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			mallocs := ms.Mallocs
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.Pass(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms)
			n := float64(b.N) * float64(records)
			if got := w.Stats().Examined.Load(); got < uint64(n) {
				b.Fatalf("examined %d, want at least %.0f", got, n)
			}
			if w.Stats().Expired.Load() != 0 {
				b.Fatal("the walk removed records")
			}
			b.ReportMetric(n/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(ms.Mallocs-mallocs)/n, "allocs/record")
		})
	}
}

// walkBucket returns a layer with one bucket of n records under data/ and
// the lifecycle rule (a Filter element) with Days far in the future.
func walkBucket(b *testing.B, n int, filter string) *object.Layer {
	root := b.TempDir()
	const bucket = "walk"
	l, err := object.Open(object.Options{Root: root, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := l.CreateBucket(object.Bucket{Name: bucket}); err != nil {
		b.Fatal(err)
	}
	cfg, err := lifecycle.Parse([]byte(`<LifecycleConfiguration><Rule><ID>walk</ID>` + filter +
		`<Status>Enabled</Status><Expiration><Days>100000</Days></Expiration></Rule></LifecycleConfiguration>`))
	if err != nil {
		b.Fatal(err)
	}
	if err := l.UpdateBucket(bucket, 0, func(bk *object.Bucket) error { bk.Lifecycle = string(lifecycle.Render(cfg)); return nil }); err != nil {
		b.Fatal(err)
	}
	l.Close()
	ix, err := metadata.Open(filepath.Join(root, storage.StateDir, object.IndexFile), metadata.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	batch := make([]metadata.Object, 0, 10_000)
	for i := 0; i < n; i++ {
		o := metadata.Object{
			Key: fmt.Sprintf("data/%08d", i), Size: int64(1024 + i%8192), ETag: "0123456789abcdef0123456789abcdef",
			LastModified: now, ContentType: "application/octet-stream",
			Checksums: []metadata.Checksum{{Algorithm: "CRC32", Value: "AAAAAA==", Type: "FULL_OBJECT"}},
			FileMtime: now.UnixNano(), FileInode: uint64(1000 + i),
		}
		switch {
		case i%100 == 0:
			o.Tags = []metadata.KV{{Key: "kind", Value: "scratch"}}
		case i%10 == 0:
			o.Tags = []metadata.KV{{Key: "kind", Value: "keep"}, {Key: "owner", Value: "team-a"}}
		}
		batch = append(batch, o)
		if len(batch) == cap(batch) || i == n-1 {
			if err := ix.ApplyObjects(bucket, batch, nil); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	if l, err = object.Open(object.Options{Root: root, NoSync: true}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}
