package metadata

import (
	"fmt"
	"testing"
)

// BenchmarkListPageSize lists a 1,000-key page from the middle of a
// bucket of 10,000 and of 1,000,000 typical records (benchObject: an
// ETag, a content type, a checksum and user metadata), with full and with
// Brief decoding, to show that a page costs the same whatever the
// bucket's size. The 1,000,000-record index takes ~15 s to build; run
// only the small one with -bench 'ListPageSize/10k'.
func BenchmarkListPageSize(b *testing.B) {
	parent := b
	for _, n := range []int{10_000, 1_000_000} {
		var ix *Index
		for _, brief := range []bool{false, true} {
			name := fmt.Sprintf("%dk", n/1000)
			if brief {
				name += "-brief"
			}
			b.Run(name, func(b *testing.B) {
				if ix == nil {
					ix = fillBench(parent, n)
				}
				q := ListQuery{After: fmt.Sprintf("dir/object-%07d", n/2), Limit: 1000, Brief: brief}
				b.ReportAllocs()
				for b.Loop() {
					p, err := ix.List("b", q)
					if err != nil {
						b.Fatal(err)
					}
					if len(p.Objects) != 1000 {
						b.Fatalf("page of %d objects", len(p.Objects))
					}
				}
			})
		}
	}
}

// fillBench builds an index of n benchObject records in bucket "b",
// closed when b ends; BenchmarkListPageSize passes the parent benchmark
// so that its sub-benchmarks share one index.
func fillBench(b *testing.B, n int) *Index {
	ix := openBench(b, true)
	batch := make([]Object, 0, 10_000)
	for i := range n {
		batch = append(batch, benchObject(fmt.Sprintf("dir/object-%07d", i)))
		if len(batch) == cap(batch) || i == n-1 {
			if err := ix.ApplyObjects("b", batch, nil); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return ix
}

// BenchmarkListVersions1000 lists a 1,000-entry page of versions from the
// middle of a bucket of 100 keys with 100 versions each (99 noncurrent
// and the current one): the page spans ten keys.
func BenchmarkListVersions1000(b *testing.B) {
	ix := openBench(b, true)
	fillVersions(b, ix, "b", keyNames("dir/object-", 100), 99, true)
	q := VersionQuery{KeyMarker: "dir/object-00049", Limit: 1000}
	b.ReportAllocs()
	for b.Loop() {
		p, err := ix.ListVersions("b", q)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Entries) != 1000 || !p.Truncated {
			b.Fatalf("page of %d entries", len(p.Entries))
		}
	}
}

// BenchmarkListV2Versioned and BenchmarkListV2Plain list the same
// 1,000-key page (as ListObjectsV2 does, Brief) of 2,000 keys, with 100
// noncurrent versions behind each key and with none: the versions must
// cost the listing nothing.
func BenchmarkListV2Versioned(b *testing.B) { benchListV2(b, 100) }
func BenchmarkListV2Plain(b *testing.B)     { benchListV2(b, 0) }

func benchListV2(b *testing.B, noncurrent int) {
	ix := openBench(b, true)
	fillVersions(b, ix, "b", keyNames("dir/object-", 2000), noncurrent, true)
	q := ListQuery{After: "dir/object-00499", Limit: 1000, Brief: true}
	b.ReportAllocs()
	for b.Loop() {
		p, err := ix.List("b", q)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Objects) != 1000 {
			b.Fatalf("page of %d objects", len(p.Objects))
		}
	}
}
