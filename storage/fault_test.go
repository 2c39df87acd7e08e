package storage

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// TestUploadFaults injects the errors of a full disk (ENOSPC), an
// exhausted quota (EDQUOT, which root, running the tests, never hits for
// real) and a read-only filesystem (EROFS) into the write and the fsync
// of a staged upload over an existing object. Each surfaces as that
// errno, maps to its S3 error (InsufficientStorage or the read-only
// ServiceUnavailable), leaves the previous version's bytes in place and
// no temp file in staging (checked by newTestFS at cleanup).
func TestUploadFaults(t *testing.T) {
	for _, c := range []struct {
		errno syscall.Errno
		code  s3err.Code
	}{
		{syscall.ENOSPC, s3err.InsufficientStorage},
		{syscall.EDQUOT, s3err.InsufficientStorage},
		{syscall.EROFS, s3err.ReadOnlyStorage},
	} {
		for _, op := range []string{"write", "fsync"} {
			t.Run(c.errno.Error()+" on "+op, func(t *testing.T) {
				fs, dir := newTestFS(t, Options{})
				mustBucket(t, fs, "b")
				put(t, fs, "b", "k", []byte("previous version"), Natural)
				fs.fault = func(got string) error {
					if got == op {
						return c.errno
					}
					return nil
				}
				up, err := fs.NewUpload()
				if err != nil {
					t.Fatal(err)
				}
				defer up.Abort()
				_, err = up.Write([]byte("new version"))
				if err == nil {
					_, _, err = up.Commit("b", "k", Natural)
				}
				if !errors.Is(err, c.errno) {
					t.Fatalf("error %v, want %v", err, c.errno)
				}
				if got := s3err.FromOS(err); got != c.code {
					t.Fatalf("FromOS = %s, want %s", got, c.code)
				}
				if err := up.Abort(); err != nil {
					t.Fatalf("Abort: %v", err)
				}
				if b, err := os.ReadFile(filepath.Join(dir, "b", "k")); err != nil || string(b) != "previous version" {
					t.Fatalf("previous version: %q %v", b, err)
				}
				fs.fault = nil
				put(t, fs, "b", "k", []byte("after"), Natural)
			})
		}
	}
}
