package metadata

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/pgtest"

	bolt "go.etcd.io/bbolt"
)

// Run with:
//
//	go test -run '^$' -bench . -benchmem ./metadata
//
// The PutObject benchmarks fsync every commit (Options{}), as production
// does; their figures depend on the disk.

// openBench opens an index for a benchmark; durable unless noSync.
//
// With OBJECTGATEWAY_TEST_INDEX=postgres it is a PostgreSQL catalogue on
// pgtest's cluster instead, durable when PGTEST_FSYNC=1: the same
// benchmarks then measure that engine.
func openBench(b *testing.B, noSync bool) *Index {
	b.Helper()
	var ix *Index
	var err error
	if testEngine() == "postgres" {
		ix, err = OpenPostgres(context.Background(), pgtest.DSN(b), PGOptions{})
	} else {
		ix, err = Open(filepath.Join(b.TempDir(), "index.db"), Options{NoSync: noSync})
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if err := ix.CreateBucket(Bucket{Name: "b", Created: time.Now()}); err != nil {
		b.Fatal(err)
	}
	return ix
}

// benchObject is a typical record: a small PUT from an SDK with a
// checksum and a little user metadata.
func benchObject(key string) Object {
	return Object{
		Key:          key,
		Size:         4096,
		ETag:         "9b2cf535f27731c974343645a3985328",
		LastModified: time.Date(2026, 11, 29, 23, 52, 4, 123456789, time.UTC),
		ContentType:  "application/octet-stream",
		UserMeta:     []KV{{"owner", "app"}},
		Checksums:    []Checksum{{"CRC64NVME", "AAAAAAAAAAA=", "FULL_OBJECT"}},
		FileMtime:    1764460324123456789,
		FileInode:    123456,
	}
}

// commitStrategies are the ways a PutObject transaction can be committed:
// the group commit PutObject uses, bbolt's Batch with its default 10ms
// delay and with a 1ms delay, and a plain Update per write.
var commitStrategies = []struct {
	name  string
	setup func(ix *Index)
	run   func(ix *Index, fn func(kvTx) error) error
}{
	{"group", nil, func(ix *Index, fn func(kvTx) error) error { return ix.update(fn) }},
	{"boltBatch10ms", nil, func(ix *Index, fn func(kvTx) error) error { return boltDB(ix).Batch(boltFn(fn)) }},
	{"boltBatch1ms", func(ix *Index) { boltDB(ix).MaxBatchDelay = time.Millisecond }, func(ix *Index, fn func(kvTx) error) error { return boltDB(ix).Batch(boltFn(fn)) }},
	{"update", nil, func(ix *Index, fn func(kvTx) error) error { return ix.kvUpdate(fn) }},
}

// boltDB is the bbolt file under a bbolt index, for benchmarks that
// compare with bbolt's own batching.
func boltDB(ix *Index) *bolt.DB { return ix.bolt.db }

// boltFn adapts a transaction function to bbolt's.
func boltFn(fn func(kvTx) error) func(*bolt.Tx) error {
	return func(tx *bolt.Tx) error { return fn(boltTx{tx}) }
}

func benchPut(b *testing.B, ix *Index, run func(*Index, func(kvTx) error) error, key string) {
	fn, err := putObjectTx("b", benchObject(key))
	if err != nil {
		b.Fatal(err)
	}
	if err := run(ix, fn); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPutObject measures one writer at a time: the latency of a
// lone PUT's index commit.
func BenchmarkPutObject(b *testing.B) {
	for _, s := range commitStrategies {
		b.Run(s.name, func(b *testing.B) {
			ix := openBench(b, false)
			if s.setup != nil {
				s.setup(ix)
			}
			i := 0
			for b.Loop() {
				benchPut(b, ix, s.run, "dir/object-"+strconv.Itoa(i))
				i++
			}
		})
	}
	b.Run("group-nosync", func(b *testing.B) {
		ix := openBench(b, true)
		i := 0
		for b.Loop() {
			if err := ix.PutObject("b", benchObject("dir/object-"+strconv.Itoa(i))); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkPutObjectParallel measures many concurrent writers (16 per
// CPU), as a busy gateway has: throughput comes from sharing fsyncs.
func BenchmarkPutObjectParallel(b *testing.B) {
	for _, s := range commitStrategies {
		b.Run(s.name, func(b *testing.B) {
			ix := openBench(b, false)
			if s.setup != nil {
				s.setup(ix)
			}
			var n atomic.Int64
			b.SetParallelism(16)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					benchPut(b, ix, s.run, "dir/object-"+strconv.FormatInt(n.Add(1), 10))
				}
			})
		})
	}
}

// BenchmarkObject measures a record lookup in a 100k-object bucket.
func BenchmarkObject(b *testing.B) {
	ix := openBench(b, true)
	const n = 100_000
	fillBucket(b, ix, "b", "dir/object-", n)
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprintf("dir/object-%07d", r.IntN(n))
	}
	i := 0
	for b.Loop() {
		if _, err := ix.Object("b", keys[i%len(keys)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkListPage measures a 1000-entry page from a 100k-object
// bucket: the first page, a page from the middle, and a page of common
// prefixes with 100 keys under each.
func BenchmarkListPage(b *testing.B) {
	ix := openBench(b, true)
	fillBucket(b, ix, "b", "dir/object-", 100_000)
	if err := ix.CreateBucket(Bucket{Name: "tree"}); err != nil {
		b.Fatal(err)
	}
	for d := range 1000 {
		fillBucket(b, ix, "tree", fmt.Sprintf("d%04d/", d), 100)
	}
	for _, bc := range []struct {
		name, bucket string
		q            ListQuery
	}{
		{"first", "b", ListQuery{Limit: 1000}},
		{"middle", "b", ListQuery{After: "dir/object-0050000", Limit: 1000}},
		{"delimiter", "tree", ListQuery{Delimiter: "/", Limit: 1000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p, err := ix.List(bc.bucket, bc.q)
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Objects)+len(p.CommonPrefixes) != 1000 {
					b.Fatalf("page of %d objects and %d prefixes", len(p.Objects), len(p.CommonPrefixes))
				}
			}
		})
	}
}

// BenchmarkOpen measures opening and closing a 100k-object index: Open
// reads no records, so this does not grow with the index.
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "index.db")
	ix, err := Open(path, Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.CreateBucket(Bucket{Name: "b"}); err != nil {
		b.Fatal(err)
	}
	fillBucket(b, ix, "b", "dir/object-", 100_000)
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ix, err := Open(path, Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
