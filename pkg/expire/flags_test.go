package expire

import (
	iofs "io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL of <linux/fs.h>.
const fsImmutableFL = 0x00000010

// clearFlagsAtCleanup clears the immutable flag the layer set on locked
// versions' files when the test ends, so that the temp directory can be
// removed. It registers before the layer's Close, so it runs after it.
func clearFlagsAtCleanup(t *testing.T, dir string) {
	t.Cleanup(func() {
		_ = filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer f.Close()
			flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
			if err != nil || flags&fsImmutableFL == 0 {
				return nil
			}
			if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(int32(flags&^fsImmutableFL))); err != nil {
				t.Errorf("clear the immutable flag of %s: %v", p, err)
			}
			return nil
		})
	})
}
