package storage

import (
	"os"
	"path/filepath"
	"testing"
)

func stampOf(t *testing.T, fs *FS, bucket, key string, loc Location) (uint64, bool) {
	t.Helper()
	f, _, err := fs.Open(bucket, key, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _, ok := FileStamp(f)
	return s, ok
}

// SetStamp marks an object's file, replaces and removes its stamp, and
// has nothing to do for a missing file or a location without one; a
// version keeps no stamp through Demote and Restore, so a file that is
// current again does not carry the stamp of the record it had before.
func TestStamps(t *testing.T) {
	fs, _ := newTestFS(t, Options{})
	if !fs.Stamps() {
		t.Skip("this filesystem keeps no user extended attributes")
	}
	mustBucket(t, fs, "b")
	put(t, fs, "b", "d/k", []byte("body"), Natural)
	if _, ok := stampOf(t, fs, "b", "d/k", Natural); ok {
		t.Fatal("a new file has a stamp")
	}
	for _, s := range []uint64{7, 1 << 63} {
		if err := fs.SetStamp("b", "d/k", Natural, s); err != nil {
			t.Fatal(err)
		}
		if got, ok := stampOf(t, fs, "b", "d/k", Natural); !ok || got != s {
			t.Fatalf("stamp %x %v, want %x", got, ok, s)
		}
	}
	for _, c := range []struct {
		key string
		loc Location
	}{{"missing", Natural}, {"d/k", Directory}, {"d/k", Noncurrent}} {
		if err := fs.SetStamp("b", c.key, c.loc, 3); err != nil {
			t.Errorf("SetStamp(%s, %v): %v", c.key, c.loc, err)
		}
	}
	if got, _ := stampOf(t, fs, "b", "d/k", Natural); got != 1<<63 {
		t.Fatalf("a stamp of another location reached the file: %x", got)
	}

	if err := fs.Demote("b", "d/k", Natural, "v1", false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := fs.Restore("b", "d/k", "v1", false); err != nil {
		t.Fatal(err)
	}
	if got, ok := stampOf(t, fs, "b", "d/k", Natural); ok {
		t.Fatalf("a restored version still carries stamp %x", got)
	}

	if err := fs.SetStamp("b", "d/k", Natural, 9); err != nil {
		t.Fatal(err)
	}
	if err := fs.SetStamp("b", "d/k", Natural, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := stampOf(t, fs, "b", "d/k", Natural); ok {
		t.Fatal("a zero stamp did not remove the stamp")
	}
}

// A locked version's file bears the immutable flag: its stamp is still
// replaced, and the flag stays.
func TestStampImmutable(t *testing.T) {
	fs, dir := newTestFS(t, Options{})
	clearFlagsAtCleanup(t, dir)
	if ok, why := fs.ImmutableSupport(); !ok {
		t.Skipf("the immutable flag is not available here: %s", why)
	}
	if !fs.Stamps() {
		t.Skip("this filesystem keeps no user extended attributes")
	}
	mustBucket(t, fs, "b")
	put(t, fs, "b", "k", []byte("locked"), Natural)
	if err := fs.SetStamp("b", "k", Natural, 1); err != nil {
		t.Fatal(err)
	}
	if err := fs.SetImmutable("b", "k", Natural, "", true); err != nil {
		t.Fatal(err)
	}
	if err := fs.SetStamp("b", "k", Natural, 2); err != nil {
		t.Fatal(err)
	}
	if got, _ := stampOf(t, fs, "b", "k", Natural); got != 2 {
		t.Fatalf("stamp %x on an immutable file, want 2", got)
	}
	if !flagOf(t, filepath.Join(dir, "b", "k")) {
		t.Fatal("the immutable flag was not set again")
	}
	if err := os.Remove(filepath.Join(dir, "b", "k")); err == nil {
		t.Fatal("an immutable file was removed")
	}
}
