package powercut

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
)

// indexChildEnv names the index file for TestIndexChild and indexStepEnv
// the step it runs.
const (
	indexChildEnv = "POWERCUT_INDEX_CHILD"
	indexStepEnv  = "POWERCUT_INDEX_STEP"
)

// TestIndexThroughMount: the bbolt index (pwrite, fdatasync, mmap reads)
// works on the mount, its synced commits survive a cut, and commits made
// with NoSync are lost by it while the index still opens. bbolt runs in
// child processes: a process that serves the mount must not also fault
// in pages of a file mapped from it (see the package Caveats).
func TestIndexThroughMount(t *testing.T) {
	f := mount(t)
	dir := join(f, "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	syncPath(t, f.Path())
	path := filepath.Join(dir, "index.db")

	runIndexStep(t, path, "write")
	runIndexStep(t, path, "nosync")
	cut(t, f)
	runIndexStep(t, path, "check")
}

func runIndexStep(t *testing.T, path, step string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestIndexChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), indexChildEnv+"="+path, indexStepEnv+"="+step)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("index step %s: %v\n%s", step, err, out)
	}
}

// TestIndexChild is one step of TestIndexThroughMount, run in a child
// process; it does nothing otherwise.
func TestIndexChild(t *testing.T) {
	path := os.Getenv(indexChildEnv)
	if path == "" {
		t.Skip("runs only as a child of TestIndexThroughMount")
	}
	switch step := os.Getenv(indexStepEnv); step {
	case "write":
		ix, err := metadata.Open(path, metadata.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// bbolt creates the file but does not fsync the directory that
		// names it, so a new index needs that fsync to survive a cut.
		syncPath(t, filepath.Dir(path))
		if err := ix.CreateBucket(metadata.Bucket{Name: "bucket"}); err != nil {
			t.Fatal(err)
		}
		// Enough records to grow the file past bbolt's first mapping.
		batch := make([]metadata.Object, 2000)
		for i := range batch {
			batch[i] = metadata.Object{Key: fmt.Sprintf("batch/%04d", i), Size: int64(i), ETag: "e"}
		}
		if err := ix.ApplyObjects("bucket", batch, nil); err != nil {
			t.Fatal(err)
		}
		if err := ix.PutObject("bucket", metadata.Object{Key: "synced", Size: 1, ETag: "s"}); err != nil {
			t.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	case "nosync":
		ix, err := metadata.Open(path, metadata.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.PutObject("bucket", metadata.Object{Key: "not-synced", Size: 2, ETag: "n"}); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Object("bucket", "not-synced"); err != nil {
			t.Fatalf("before the cut: %v", err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	case "check":
		ix, err := metadata.Open(path, metadata.Options{})
		if err != nil {
			t.Fatalf("after the cut: %v", err)
		}
		defer ix.Close()
		for _, key := range []string{"synced", "batch/0000", "batch/1999"} {
			if _, err := ix.Object("bucket", key); err != nil {
				t.Errorf("after the cut %s: %v", key, err)
			}
		}
		if _, err := ix.Object("bucket", "not-synced"); !errors.Is(err, metadata.ErrNoSuchKey) {
			t.Errorf("after the cut not-synced: err %v, want ErrNoSuchKey", err)
		}
	default:
		t.Fatalf("unknown step %q", step)
	}
}
