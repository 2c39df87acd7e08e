package object

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/testfs"
)

// reflinkKinds are the filesystems on which a copy inside one filesystem
// shares extents (reflinks) instead of copying blocks.
var reflinkKinds = []testfs.Kind{testfs.XFS, testfs.Btrfs}

// newLayerOn opens a layer over a root on a fresh filesystem of kind, with
// bucket "bkt".
func newLayerOn(t testing.TB, kind testfs.Kind, o testfs.Options) (*Layer, string) {
	t.Helper()
	root := filepath.Join(testfs.DirOptions(t, kind, o), "root")
	l, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	return l, root
}

// blockMap returns the block map of the file at path.
func blockMap(t *testing.T, path string) []testfs.Extent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exts, err := testfs.Extents(f)
	if err != nil {
		t.Fatal(err)
	}
	return exts
}

func usedBytes(t testing.TB, dir string) int64 {
	t.Helper()
	n, err := testfs.Used(dir)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// putRandom puts size bytes of random data (which no filesystem could
// store in fewer blocks) as key.
func putRandom(t testing.TB, l *Layer, key string, size int64) Object {
	t.Helper()
	body := io.LimitReader(rand.NewChaCha8([32]byte{1}), size)
	o, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: body, Size: size})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestCopyObjectSharesExtents copies a 256 MiB object on XFS and Btrfs:
// the copy (copy_file_range, which these filesystems answer with a
// reflink) adds no more than a few blocks of used space, and its blocks
// are the source's, flagged shared. BenchmarkCopyObjectReflink does the
// same with 1 GiB.
func TestCopyObjectSharesExtents(t *testing.T) {
	const size = 256 << 20
	for _, kind := range reflinkKinds {
		t.Run(string(kind), func(t *testing.T) {
			l, root := newLayerOn(t, kind, testfs.Options{})
			src := putRandom(t, l, "src", size)
			before := usedBytes(t, root)
			dst, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "dst"})
			if err != nil {
				t.Fatal(err)
			}
			added := usedBytes(t, root) - before
			t.Logf("%s: a %d MiB CopyObject added %d KiB of used space", kind, size>>20, added>>10)
			if added > size/100 {
				t.Errorf("the copy added %d bytes of used space, want ~0 (under %d)", added, size/100)
			}
			if dst.Size != size || dst.ETag != src.ETag {
				t.Errorf("copy: size %d ETag %s, want %d %s", dst.Size, dst.ETag, int64(size), src.ETag)
			}
			se, de := blockMap(t, filepath.Join(root, "bkt", "src")), blockMap(t, filepath.Join(root, "bkt", "dst"))
			if !reflect.DeepEqual(testfs.Range(se, 0, size), testfs.Range(de, 0, size)) {
				t.Errorf("the copy's blocks are not the source's:\nsource %v\ncopy   %v", testfs.Range(se, 0, size), testfs.Range(de, 0, size))
			}
			for _, e := range de {
				if !e.Shared {
					t.Errorf("the copy's extent %+v is not shared", e)
					break
				}
			}
		})
	}
}

// BenchmarkCopyObjectReflink copies a 1 GiB object on XFS and Btrfs, and
// on ext4 (which has no reflinks) to compare, and reports the used space
// each copy adds (added-bytes/op) beside its time; docs/performance.md
// quotes it.
func BenchmarkCopyObjectReflink(b *testing.B) {
	const size = 1 << 30
	for _, kind := range append(reflinkKinds, testfs.Ext4) {
		b.Run(string(kind), func(b *testing.B) {
			l, root := newLayerOn(b, kind, testfs.Options{Size: 4 * size})
			putRandom(b, l, "src", size)
			var added int64
			for b.Loop() {
				b.StopTimer()
				before := usedBytes(b, root)
				b.StartTimer()
				if _, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "dst"}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				added += usedBytes(b, root) - before
				// Each copy starts without the last one, whose removal
				// would otherwise offset what the next adds.
				if err := l.DeleteObject("bkt", "dst", Conditions{}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(added)/float64(b.N), "added-bytes/op")
		})
	}
}

// TestCompleteSharesPartExtents completes uploads on XFS and Btrfs whose
// parts the completion must copy: a part uploaded again, which lives in
// a file of its own and is copied into its range of the region, and a
// chosen subset with a gap, whose parts are copied from the region into
// a new file. The object's blocks are the parts' own blocks (reflinks),
// not copies.
func TestCompleteSharesPartExtents(t *testing.T) {
	const p = 3 * MinPartSize // a multiple of every block size
	for _, kind := range reflinkKinds {
		t.Run(string(kind), func(t *testing.T) {
			l, root := newLayerOn(t, kind, testfs.Options{})

			id := mpStart(t, l, "again")
			a, b, c := regionPart(1, 0, p), regionPart(2, 0, p), regionPart(3, 0, p)
			p1, _, p3 := mpUpload(t, l, "again", id, 1, a), mpUpload(t, l, "again", id, 2, b), mpUpload(t, l, "again", id, 3, c)
			p2 := mpUpload(t, l, "again", id, 2, regionPart(2, 1, p))
			if p2.InRegion {
				t.Fatal("a part uploaded again is in the region; want a file of its own")
			}
			f, err := l.fs.OpenPart(id, 2)
			if err != nil {
				t.Fatal(err)
			}
			part, err := testfs.Extents(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			completeParts(t, l, "again", id, p1, p2, p3)
			obj := blockMap(t, filepath.Join(root, "bkt", "again"))
			if got, want := testfs.Range(obj, p, p), testfs.Range(part, 0, p); !reflect.DeepEqual(got, want) {
				t.Errorf("part 2's range of the object holds blocks %v, the part's file held %v", got, want)
			}

			id = mpStart(t, l, "gap")
			p1, _, p3 = mpUpload(t, l, "gap", id, 1, a), mpUpload(t, l, "gap", id, 2, b), mpUpload(t, l, "gap", id, 3, c)
			if !p1.InRegion || !p3.InRegion {
				t.Fatal("parts of one size are not in the region")
			}
			region := blockMap(t, filepath.Join(root, ".objectgateway", "multipart", id, "region"))
			completeParts(t, l, "gap", id, p1, p3)
			obj = blockMap(t, filepath.Join(root, "bkt", "gap"))
			for i, r := range []struct{ at, from int64 }{{0, 0}, {p, 2 * p}} {
				if got, want := testfs.Range(obj, r.at, p), testfs.Range(region, r.from, p); !reflect.DeepEqual(got, want) {
					t.Errorf("chosen part %d of the object holds blocks %v, the region held %v", i+1, got, want)
				}
			}
		})
	}
}
