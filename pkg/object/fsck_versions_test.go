package object

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
	"golang.org/x/sys/unix"
)

// newVersionedLayer opens a layer on a fresh root with the bucket "bkt",
// versioning Enabled, with Object Lock when lock is set.
func newVersionedLayer(t *testing.T, lock bool) (*Layer, string) {
	t.Helper()
	root := t.TempDir()
	// The files of locked versions bear the immutable flag, which the
	// removal of the temporary directory needs cleared; cleanups run last
	// registered first, so this one runs before it.
	t.Cleanup(func() { unflagTree(root) })
	l, err := Open(Options{Root: root})
	must(t, err)
	must(t, l.CreateBucket(Bucket{Name: "bkt", Versioning: metadata.VersioningEnabled, ObjectLock: lock}))
	return l, root
}

// unflagTree clears the immutable flag of every regular file under root.
func unflagTree(root string) {
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			_ = setFlag(p, fsImmutable, false)
		}
		return nil
	})
}

func putLocked(t *testing.T, l *Layer, key, body string, lock Lock) Object {
	t.Helper()
	o, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body)), Lock: lock})
	if err != nil {
		t.Fatalf("put %q: %v", key, err)
	}
	return o
}

// readVersion returns the bytes of one version, or its error.
func readVersion(l *Layer, key, id string) (string, error) {
	r, err := l.OpenVersion("bkt", key, id)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if r.File == nil {
		return "", nil
	}
	b, err := io.ReadAll(r.File)
	return string(b), err
}

// versionFile is the absolute path of a version's file.
func versionFile(t *testing.T, root, key, vid string) string {
	t.Helper()
	p, err := storage.VersionPath("bkt", key, vid)
	must(t, err)
	return filepath.Join(root, p)
}

// kindsOf returns the kinds of a report's problems, sorted, each followed
// by " repaired" when it was.
func kindsOf(r FsckReport) []string {
	var out []string
	for _, p := range r.Problems {
		s := string(p.Kind) + " " + p.Key
		if p.Repaired {
			s += " repaired"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func wantKinds(t *testing.T, what string, rep FsckReport, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := kindsOf(rep); !slices.Equal(got, want) {
		var lines []string
		for _, p := range rep.Problems {
			lines = append(lines, p.String())
		}
		t.Fatalf("%s: fsck found\n%s\nwant\n%s", what, strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestFsckVersionedCleanAfterGatewayWrites checks that fsck finds nothing
// on versioned buckets written only through the gateway: versions, delete
// markers, deletes by id, a suspended bucket's null versions, a locked
// version.
func TestFsckVersionedCleanAfterGatewayWrites(t *testing.T) {
	l, root := newVersionedLayer(t, true)
	v1 := put(t, l, "a", "one")
	put(t, l, "a", "two")
	put(t, l, "a", "three")
	putLocked(t, l, "held", "kept", Lock{LegalHold: true})
	put(t, l, "held", "over it")
	_, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "a", VersionID: v1.VersionID})
	must(t, err)
	put(t, l, "m", "marked")
	_, err = l.Remove(RemoveInput{Bucket: "bkt", Key: "m"})
	must(t, err)
	put(t, l, "dir/", "")
	put(t, l, "dir/", "")

	must(t, l.CreateBucket(Bucket{Name: "susp", Versioning: metadata.VersioningEnabled}))
	st, err := l.BucketState("susp")
	must(t, err)
	putIn := func(key, body string) {
		_, err := l.PutObject(PutInput{Bucket: "susp", Key: key, Body: strings.NewReader(body), Size: int64(len(body))})
		must(t, err)
	}
	putIn("k", "enabled")
	must(t, l.SetVersioning("susp", st.ID, metadata.VersioningSuspended))
	putIn("k", "null 1")
	putIn("k", "null 2")
	_, err = l.Remove(RemoveInput{Bucket: "susp", Key: "k"})
	must(t, err)
	putIn("k", "null 3")
	must(t, l.Close())

	rep := fsckRoot(t, root, FsckOptions{})
	wantKinds(t, "a clean versioned root", rep)
	// a: 1 noncurrent; held: 1; m: 1 version and its marker; dir/: 1;
	// susp/k: the Enabled version.
	if rep.Versions != 6 || rep.VersionFiles != 4 {
		t.Fatalf("fsck examined %d versions and %d version files, want 6 and 4", rep.Versions, rep.VersionFiles)
	}
}

// TestFsckVersionFiles plants, in a versioned bucket with Object Lock, a
// noncurrent version whose file is gone, the same for a version under
// legal hold, a noncurrent version whose file changed, orphans in the
// versions area (one bearing the immutable flag, one of a bucket the
// index does not know), and checks what fsck reports and what --repair
// does: the locked version's record is kept, files named by records are
// not touched, orphans go.
func TestFsckVersionFiles(t *testing.T) {
	l, root := newVersionedLayer(t, true)
	gone := put(t, l, "gone", "v1")
	put(t, l, "gone", "v2")
	held := putLocked(t, l, "held", "held v1", Lock{LegalHold: true})
	put(t, l, "held", "v2")
	changed := put(t, l, "changed", "v1")
	put(t, l, "changed", "v2")
	kept := put(t, l, "kept", "v1")
	put(t, l, "kept", "v2")
	imm, _ := l.fs.ImmutableSupport()
	must(t, l.Close())

	must(t, os.Remove(versionFile(t, root, "gone", gone.VersionID)))
	// The locked version's file bears the immutable flag when the
	// filesystem allows it; it is removed behind the gateway's back.
	heldFile := versionFile(t, root, "held", held.VersionID)
	if imm {
		must(t, setFlag(heldFile, fsImmutable, false))
	}
	must(t, os.Remove(heldFile))
	must(t, os.WriteFile(versionFile(t, root, "changed", changed.VersionID), []byte("not v1 any more"), 0o600))
	orphan := versionFile(t, root, "orphan", metadata.VersionID(99, 7))
	must(t, os.MkdirAll(filepath.Dir(orphan), 0o700))
	must(t, os.WriteFile(orphan, []byte("no record"), 0o600))
	frozen := versionFile(t, root, "frozen", "")
	must(t, os.MkdirAll(filepath.Dir(frozen), 0o700))
	must(t, os.WriteFile(frozen, []byte("no record, immutable"), 0o600))
	if imm {
		must(t, setFlag(frozen, fsImmutable, true))
	}
	ghost := filepath.Join(root, ".objectgateway", "versions", "ghost", "ab", strings.Repeat("ab", 32)+".null")
	must(t, os.MkdirAll(filepath.Dir(ghost), 0o700))
	must(t, os.WriteFile(ghost, nil, 0o600))

	want := []string{"missing-version gone", "missing-version held", "changed-version changed",
		"orphan-version ", "orphan-version ", "orphan-version "}
	rep := fsckRoot(t, root, FsckOptions{})
	wantKinds(t, "report", rep, want...)
	wantKinds(t, "a second report", fsckRoot(t, root, FsckOptions{}), want...)

	rep = fsckRoot(t, root, FsckOptions{Repair: true})
	wantKinds(t, "repair", rep, "missing-version gone repaired", "missing-version held", "changed-version changed",
		"orphan-version  repaired", "orphan-version  repaired", "orphan-version  repaired")
	for _, p := range rep.Problems {
		if p.Kind == MissingVersion && p.Key == "held" && !strings.Contains(p.Detail, "kept") {
			t.Fatalf("the locked version's problem must say its record is kept: %v", p)
		}
	}
	for _, f := range []string{orphan, frozen, ghost} {
		if _, err := os.Lstat(f); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("orphan %s survived the repair: %v", f, err)
		}
	}
	wantKinds(t, "after repair", fsckRoot(t, root, FsckOptions{}), "missing-version held", "changed-version changed")

	l, err := Open(Options{Root: root})
	must(t, err)
	defer l.Close()
	if _, _, err := l.Version("bkt", "gone", gone.VersionID); err == nil || s3err.As(err).Code != s3err.NoSuchVersion {
		t.Fatalf("the repaired version's record must be gone: %v", err)
	}
	if o, _, err := l.Version("bkt", "held", held.VersionID); err != nil || !o.LegalHold {
		t.Fatalf("the locked version's record must stay: %+v %v", o, err)
	}
	if body, err := readVersion(l, "kept", kept.VersionID); err != nil || body != "v1" {
		t.Fatalf("a version with its file must stay readable: %q %v", body, err)
	}
}

// TestFsckInterruptedMoves plants the three states a crash leaves in the
// middle of a versioned key's move: a delete's rename into the versions
// area before its index commit (the key's path is empty), a write's link
// and rename before its commit (another file at the key's path), and a
// write's link before its rename (a second name for the current file).
// fsck reports each and --repair finishes them as a read would.
func TestFsckInterruptedMoves(t *testing.T) {
	l, root := newVersionedLayer(t, true)
	demoted := putLocked(t, l, "demoted", "current, moved away", Lock{LegalHold: true})
	old := put(t, l, "replaced", "the old current")
	linked := putLocked(t, l, "linked", "current, linked", Lock{LegalHold: true})
	imm, _ := l.fs.ImmutableSupport()
	must(t, l.Close())

	// A DELETE's Demote, and no index commit.
	if imm {
		must(t, setFlag(filepath.Join(root, "bkt", "demoted"), fsImmutable, false))
	}
	df := versionFile(t, root, "demoted", demoted.VersionID)
	must(t, os.MkdirAll(filepath.Dir(df), 0o700))
	must(t, os.Rename(filepath.Join(root, "bkt", "demoted"), df))
	// A PUT's Publish with Prior.Demote: link, rename, and no commit.
	rf := versionFile(t, root, "replaced", old.VersionID)
	must(t, os.MkdirAll(filepath.Dir(rf), 0o700))
	must(t, os.Link(filepath.Join(root, "bkt", "replaced"), rf))
	must(t, os.WriteFile(filepath.Join(root, "bkt", "replaced.tmp"), []byte("the new bytes"), 0o644))
	must(t, os.Rename(filepath.Join(root, "bkt", "replaced.tmp"), filepath.Join(root, "bkt", "replaced")))
	// The same, cut short before the rename.
	lf := versionFile(t, root, "linked", linked.VersionID)
	must(t, os.MkdirAll(filepath.Dir(lf), 0o700))
	// A link to an immutable file needs the flag cleared, as Publish
	// clears it, and set again.
	if imm {
		must(t, setFlag(filepath.Join(root, "bkt", "linked"), fsImmutable, false))
	}
	must(t, os.Link(filepath.Join(root, "bkt", "linked"), lf))
	if imm {
		must(t, setFlag(lf, fsImmutable, true))
	}

	want := []string{"interrupted-move demoted", "interrupted-move replaced", "orphan-version linked"}
	wantKinds(t, "report", fsckRoot(t, root, FsckOptions{}), want...)
	wantKinds(t, "repair", fsckRoot(t, root, FsckOptions{Repair: true}),
		"interrupted-move demoted repaired", "interrupted-move replaced repaired", "orphan-version linked repaired")
	wantKinds(t, "after repair", fsckRoot(t, root, FsckOptions{}))

	l, err := Open(Options{Root: root})
	must(t, err)
	defer l.Close()
	for _, c := range []struct{ key, id, body string }{
		{"demoted", "", "current, moved away"},
		{"demoted", demoted.VersionID, "current, moved away"},
		{"replaced", "", "the new bytes"},
		{"replaced", old.VersionID, "the old current"},
		{"linked", "", "current, linked"},
	} {
		if body, err := readVersion(l, c.key, c.id); err != nil || body != c.body {
			t.Errorf("%s version %q reads %q %v, want %q", c.key, c.id, body, err, c.body)
		}
	}
	if imm {
		for _, key := range []string{"demoted", "linked"} {
			if on, err := flagOf(filepath.Join(root, "bkt", key)); err != nil || !on {
				t.Errorf("%s: the locked current file must bear the immutable flag after the repair (%v)", key, err)
			}
		}
	}
}

// TestFsckVersionedMissingCurrent checks that the repair of a versioned
// key's current record whose file is gone makes the previous version
// current, as a read does, and keeps the record of a version under legal
// hold.
func TestFsckVersionedMissingCurrent(t *testing.T) {
	l, root := newVersionedLayer(t, true)
	put(t, l, "k", "v1")
	put(t, l, "k", "v2")
	putLocked(t, l, "held", "held", Lock{LegalHold: true})
	imm, _ := l.fs.ImmutableSupport()
	must(t, l.Close())
	must(t, os.Remove(filepath.Join(root, "bkt", "k")))
	if imm {
		must(t, setFlag(filepath.Join(root, "bkt", "held"), fsImmutable, false))
	}
	must(t, os.Remove(filepath.Join(root, "bkt", "held")))

	wantKinds(t, "report", fsckRoot(t, root, FsckOptions{}), "missing-file k", "missing-file held")
	wantKinds(t, "repair", fsckRoot(t, root, FsckOptions{Repair: true}), "missing-file k repaired", "missing-file held")
	wantKinds(t, "after repair", fsckRoot(t, root, FsckOptions{}), "missing-file held")

	l, err := Open(Options{Root: root})
	must(t, err)
	defer l.Close()
	if body, err := readVersion(l, "k", ""); err != nil || body != "v1" {
		t.Fatalf("the previous version must be current after the repair: %q %v", body, err)
	}
	if _, err := l.StatObject("bkt", "held"); err == nil {
		t.Fatal("the held version has no file")
	}
}

// TestFsckVersionOrder plants records that break the index's invariants
// of a key's versions: a delete marker newer than the current version,
// and two null versions. fsck reports both and repairs neither.
func TestFsckVersionOrder(t *testing.T) {
	l, root := newVersionedLayer(t, false)
	put(t, l, "marked", "current")
	put(t, l, "nulls", "current")
	must(t, l.ix.EditVersions("bkt", "marked", func(v *metadata.Versions) error {
		seq, id, err := v.NewVersion()
		if err != nil {
			return err
		}
		return v.PutNoncurrent(Object{DeleteMarker: true, Seq: seq, VersionID: id})
	}))
	must(t, l.ix.EditVersions("bkt", "nulls", func(v *metadata.Versions) error {
		cur, _, err := v.Current()
		if err != nil {
			return err
		}
		cur.VersionID = ""
		if err := v.SetCurrent(cur); err != nil {
			return err
		}
		return v.PutNoncurrent(Object{DeleteMarker: true, Seq: 1})
	}))
	must(t, l.Close())
	want := []string{"version-order marked", "version-order nulls"}
	wantKinds(t, "report", fsckRoot(t, root, FsckOptions{}), want...)
	wantKinds(t, "repair", fsckRoot(t, root, FsckOptions{Repair: true}), want...)
}

// setFlag sets or clears a flag of the file at p (fsImmutable,
// fsAppendOnly), as chattr does.
func setFlag(p string, flag uint32, on bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return err
	}
	flags &^= flag
	if on {
		flags |= flag
	}
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(int32(flags)))
}

// flagOf reports whether the file at p bears the immutable flag.
func flagOf(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	return flags&fsImmutable != 0, err
}

// fsImmutable and fsAppendOnly are FS_IMMUTABLE_FL and FS_APPEND_FL of
// <linux/fs.h>.
const (
	fsImmutable  = 0x00000010
	fsAppendOnly = 0x00000020
)
