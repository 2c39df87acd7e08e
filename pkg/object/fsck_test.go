package object

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/storage"
)

// kinds summarises a report as "kind key-or-name" lines, sorted.
func kinds(r FsckReport) []string {
	var out []string
	for _, p := range r.Problems {
		s := string(p.Kind) + " " + p.Bucket + "/" + p.Key
		if p.Name != "" {
			s += " " + p.Name
		}
		if p.Repaired {
			s += " repaired"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func fsckRoot(t *testing.T, root string, o FsckOptions) FsckReport {
	t.Helper()
	l, err := OpenExclusive(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rep, err := l.Fsck(o)
	if err != nil {
		t.Fatalf("fsck: %v", err)
	}
	return rep
}

// TestFsckFindsAndRepairsEachProblem plants one problem of every kind,
// checks that fsck reports each without changing anything, that --repair
// fixes the repairable ones (and only those), and that a last fsck finds
// only the report-only ones.
func TestFsckFindsAndRepairsEachProblem(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root})
	must(t, err)
	must(t, l.CreateBucket(Bucket{Name: "bkt"}))
	must(t, l.CreateBucket(Bucket{Name: "lost"}))
	put(t, l, "ok", "fine")
	put(t, l, "gone", "will vanish")
	put(t, l, "changed", "v1")
	put(t, l, "x", "file")
	put(t, l, "x/y", "shadowed")
	put(t, l, "x/orphan", "shadowed, record dropped")
	put(t, l, "dir/", "")
	up, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: "mp"})
	must(t, err)
	_, err = l.UploadPart(PartInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Number: 1, Body: strings.NewReader("part"), Size: 4})
	must(t, err)
	must(t, l.ix.DeleteObject("bkt", "x/orphan"))
	must(t, l.Close())

	state := filepath.Join(root, ".objectgateway")
	must(t, os.Remove(filepath.Join(root, "bkt", "gone")))
	must(t, os.WriteFile(filepath.Join(root, "bkt", "changed"), []byte("v2 behind our back"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "bkt", "untracked"), []byte("u"), 0o644))
	must(t, os.WriteFile(filepath.Join(state, "staging", "up-leftover-1"), []byte("half"), 0o644))
	must(t, os.MkdirAll(filepath.Join(state, "multipart", "orphanid"), 0o700))
	must(t, os.WriteFile(filepath.Join(state, "multipart", "orphanid", "1"), []byte("p"), 0o644))
	must(t, os.MkdirAll(filepath.Join(state, "shadow", "ghost", "ab"), 0o700))
	must(t, os.WriteFile(filepath.Join(state, "shadow", "ghost", "ab", strings.Repeat("ab", 32)), nil, 0o644))
	must(t, os.Remove(filepath.Join(state, "multipart", up.ID, "1")))
	must(t, os.Remove(filepath.Join(root, "lost")))
	must(t, os.Mkdir(filepath.Join(root, "newbkt"), 0o755))
	// A link leaving the bucket is skipped, not reported.
	must(t, os.Symlink("../../etc", filepath.Join(root, "bkt", "escape")))

	orphanShadow := "bkt/ " + storage.ShadowName("bkt", "x/orphan")
	want := []string{
		"changed-file bkt/changed",
		"missing-bucket-dir lost/",
		"missing-file bkt/gone",
		"missing-part bkt/mp " + up.ID + "/1",
		"orphan-parts / orphanid",
		"orphan-shadow ghost/",
		"orphan-shadow " + orphanShadow,
		"staging-leftover / up-leftover-1",
		"unindexed-bucket newbkt/",
		"untracked-file bkt/untracked",
	}
	slices.Sort(want)
	rep := fsckRoot(t, root, FsckOptions{})
	if got := kinds(rep); !slices.Equal(got, want) {
		t.Fatalf("fsck found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Unrepaired() != len(want) || rep.Skipped != 1 {
		t.Fatalf("unrepaired %d skipped %d", rep.Unrepaired(), rep.Skipped)
	}
	// Reporting changed nothing.
	if got := kinds(fsckRoot(t, root, FsckOptions{})); !slices.Equal(got, want) {
		t.Fatalf("a second report-only fsck differs: %v", got)
	}

	rep = fsckRoot(t, root, FsckOptions{Repair: true})
	var repaired []string
	for _, p := range rep.Problems {
		if p.Repaired {
			repaired = append(repaired, string(p.Kind))
		}
	}
	slices.Sort(repaired)
	wantRepaired := []string{"changed-file", "missing-file", "orphan-parts", "orphan-shadow", "orphan-shadow", "staging-leftover"}
	if !slices.Equal(repaired, wantRepaired) {
		t.Fatalf("repaired %v, want %v", repaired, wantRepaired)
	}

	rep = fsckRoot(t, root, FsckOptions{})
	wantLeft := []string{
		"missing-bucket-dir lost/",
		"missing-part bkt/mp " + up.ID + "/1",
		"unindexed-bucket newbkt/",
		"untracked-file bkt/untracked",
	}
	if got := kinds(rep); !slices.Equal(got, wantLeft) {
		t.Fatalf("after repair fsck finds %v, want %v", got, wantLeft)
	}
	// User files are never deleted.
	if _, err := os.Stat(filepath.Join(root, "bkt", "untracked")); err != nil {
		t.Fatal(err)
	}

	l, err = Open(Options{Root: root})
	must(t, err)
	defer l.Close()
	if o, body := read(t, l, "changed"); body != "v2 behind our back" || !strings.HasSuffix(o.ETag, "-1") {
		t.Fatalf("refreshed record %+v %q", o, body)
	}
	if _, body := read(t, l, "x/y"); body != "shadowed" {
		t.Fatalf("a shadow file with a record must stay: %q", body)
	}
}

// TestFsckRefusesRunningGateway checks that fsck cannot open a root whose
// index is held by a gateway, and leaves its staging area alone.
func TestFsckRefusesRunningGateway(t *testing.T) {
	bboltOnly(t)
	l, root := newLayer(t)
	up, err := l.fs.NewUpload()
	must(t, err)
	defer up.Abort()
	if _, err := OpenExclusive(Options{Root: root}); err == nil {
		t.Fatal("OpenExclusive must fail while the index is open")
	}
	names, err := os.ReadDir(filepath.Join(root, storage.StateDir, "staging"))
	if err != nil || len(names) != 1 {
		t.Fatalf("the running gateway's staging file must survive: %v %v", names, err)
	}
	// Nor does a checker list it: it belongs to a live gateway.
	if left, err := l.fs.StagingFiles(); err != nil || len(left) != 0 {
		t.Fatalf("StagingFiles lists the running gateway's upload: %v %v", left, err)
	}
}

// TestFsckCleanAfterGatewayWrites checks that fsck finds nothing on a root
// written only through the gateway.
func TestFsckCleanAfterGatewayWrites(t *testing.T) {
	bboltOnly(t)
	l, root := newLayer(t)
	for _, k := range []string{"a", "a.txt", "b/c", "folder/", "x", "x/y", strings.Repeat("s", 300)} {
		put(t, l, k, "")
		put(t, l, k, "body of "+k[:1])
	}
	must(t, l.DeleteObject("bkt", "a", Conditions{}))
	l.Close()
	rep := fsckRoot(t, root, FsckOptions{})
	if len(rep.Problems) != 0 || rep.Records != 6 {
		t.Fatalf("fsck of a clean root: %v (records %d)", kinds(rep), rep.Records)
	}
}
