package edge

import (
	"os"

	"golang.org/x/sys/unix"
)

// fsTopDirFlag is FS_TOPDIR_FL of linux/fs.h (chattr's T).
const fsTopDirFlag = 0x00004000

// markTopDir asks the file system to spread the subdirectories of dir
// over its allocation groups, as it does those of its root: ext2/3/4's
// "top of directory hierarchy" flag (chattr +T). Each subdirectory's
// files then take their inodes and blocks from its own group, so that
// creating a cache's files does not queue in one group, nor, on an ext4
// without a journal, scan one group's recently freed inodes (which it
// will not reuse for 60–300 s). A file system without the flag (XFS,
// Btrfs, tmpfs …) refuses it; that is not an error.
func markTopDir(dir string) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	defer f.Close()
	fd := int(f.Fd())
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil || flags&fsTopDirFlag != 0 {
		return
	}
	_ = unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags|fsTopDirFlag))
}
