package testfs

import (
	"errors"
	"testing"
)

// Dir returns an empty directory on a fresh filesystem of the given kind,
// unmounted and removed at the test's cleanup whether or not the test
// failed. When the machine cannot make the filesystem, Dir skips the test
// with the reason, or fails it when InCI.
func Dir(t testing.TB, kind Kind) string {
	t.Helper()
	return DirOptions(t, kind, Options{})
}

// DirOptions is Dir with Options.
func DirOptions(t testing.TB, kind Kind, o Options) string {
	t.Helper()
	f, err := New(kind, t.TempDir(), o)
	if err != nil {
		var ue *UnavailableError
		if errors.As(err, &ue) && !InCI() {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("testfs: cleanup of the %s filesystem: %v", kind, err)
		}
	})
	return f.Dir
}
