package object

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/storage"
)

// TestSuspendedMarkerKeepsNullVersionUntilCommit checks the order of a
// DELETE in a suspended bucket, whose delete marker replaces the current
// null version: until the index commits the marker, the null version's
// file is kept (in the versions area), so that both a failed index write
// and a crash at that moment leave the null version current — never a
// record without a file, which the next read drops, making the older
// version below it current again. The crash is a copy of the root taken
// at the moment of the index write (hard links of its files, and a copy
// of the index, whose file holds only committed transactions), opened as
// a restarted gateway would open it.
func TestSuspendedMarkerKeepsNullVersionUntilCommit(t *testing.T) {
	l, root := newVersionedLayer(t, false)
	older := put(t, l, "k", "the Enabled version")
	st, err := l.BucketState("bkt")
	must(t, err)
	must(t, l.SetVersioning("bkt", st.ID, metadata.VersioningSuspended))
	put(t, l, "k", "the null version")

	crash := filepath.Join(t.TempDir(), "crash")
	full := &os.PathError{Op: "write", Path: IndexFile, Err: syscall.ENOSPC}
	l.failStore = func(Object) error {
		// Hard links keep the files' inodes, which the records name; the
		// index is copied, as the live one goes on.
		index := filepath.Join(crash, storage.StateDir, IndexFile)
		for _, c := range [][]string{{"cp", "-al", root, crash}, {"rm", index}, {"cp", filepath.Join(root, storage.StateDir, IndexFile), index}} {
			if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
				t.Errorf("%v: %v: %s", c, err, out)
			}
		}
		return full
	}
	if _, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "k"}); err == nil {
		t.Fatal("the DELETE must fail with its index write")
	}
	l.failStore = nil
	if body, err := readVersion(l, "k", ""); err != nil || body != "the null version" {
		t.Fatalf("after a failed DELETE the key reads %q %v, want the null version", body, err)
	}
	must(t, l.Close())

	c, err := Open(Options{Root: crash})
	must(t, err)
	for _, id := range []string{"", metadata.NullVersion} {
		if body, err := readVersion(c, "k", id); err != nil || body != "the null version" {
			t.Fatalf("after a crash before the marker's commit, version %q reads %q %v, want the null version", id, body, err)
		}
	}
	if body, err := readVersion(c, "k", older.VersionID); err != nil || body != "the Enabled version" {
		t.Fatalf("the older version reads %q %v", body, err)
	}
	must(t, c.Close())
	if rep := fsckRoot(t, crash, FsckOptions{}); len(rep.Problems) != 0 {
		t.Fatalf("fsck after the recovery: %v", kindsOf(rep))
	}

	// The DELETE itself, without a failure, leaves nothing behind.
	l, err = Open(Options{Root: root})
	must(t, err)
	r, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "k"})
	if err != nil || r.VersionID != metadata.NullVersion || !r.DeleteMarker {
		t.Fatalf("DELETE: %+v %v", r, err)
	}
	if _, err := readVersion(l, "k", ""); err == nil || !strings.Contains(err.Error(), "NoSuchKey") {
		t.Fatalf("a deleted key must answer NoSuchKey: %v", err)
	}
	must(t, l.Close())
	if rep := fsckRoot(t, root, FsckOptions{}); len(rep.Problems) != 0 {
		t.Fatalf("fsck after the DELETE: %v", kindsOf(rep))
	}
}

// TestMarkerOnKeyWithoutCurrentVersion checks that a DELETE without a
// version id writes a delete marker on a key that has no current version
// — one that never existed, and one whose latest version is already a
// marker — as S3 does, instead of answering NoSuchKey.
func TestMarkerOnKeyWithoutCurrentVersion(t *testing.T) {
	l, _ := newVersionedLayer(t, false)
	put(t, l, "k", "body")
	var ids []string
	for _, key := range []string{"k", "k", "never"} {
		r, err := l.Remove(RemoveInput{Bucket: "bkt", Key: key})
		if err != nil || !r.DeleteMarker || r.VersionID == "" || r.VersionID == metadata.NullVersion {
			t.Fatalf("DELETE %s: %+v %v", key, r, err)
		}
		ids = append(ids, r.VersionID)
	}
	page, err := l.ListVersions("bkt", metadata.VersionQuery{Limit: 10})
	must(t, err)
	var got []string
	for _, e := range page.Entries {
		if e.DeleteMarker {
			got = append(got, e.VersionID)
		}
	}
	if want := []string{ids[1], ids[0], ids[2]}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("markers listed %v, want %v", got, want)
	}
}
