// Package testfs gives tests a directory on a filesystem of a chosen kind
// (ext4, XFS, Btrfs, tmpfs, ramfs), so that the storage contract, the crash
// harness and the end-to-end scripts run on each filesystem ObjectGateway
// is deployed on, not only on the one that holds the machine's /tmp.
//
// It owns the life of those filesystems: a sparse image file, the loop
// device it is attached to, the filesystem made on it and its mount; or,
// for tmpfs, a mount with a size limit. Close (or the test's cleanup, for
// Dir) unmounts the filesystem, detaches the loop device and removes the
// image, and does so even when the test failed. Ramfs, a mount without
// a size limit, stands for filesystems without file flags.
//
// Dir mounts one filesystem for one test. The onfs command mounts one for
// a whole command and points TMPDIR at it, which moves every t.TempDir of
// the tests it runs, and the temporary root of the end-to-end scripts,
// onto that filesystem: `go run ./pkg/testfs/onfs -fs xfs -- go test ./storage`.
//
// # Caveats
//
// Making and mounting a filesystem needs root (or CAP_SYS_ADMIN), the loop
// driver (/dev/loop-control), losetup, and mkfs.ext4, mkfs.xfs (xfsprogs)
// or mkfs.btrfs (btrfs-progs). When one is missing New returns an
// *UnavailableError naming it, and Dir skips the test with that message;
// with CI=true in the environment Dir fails the test instead, so that a CI
// machine cannot pass the matrix by skipping it.
//
// A test process killed before its cleanup (SIGKILL, a panic in another
// goroutine) leaves its mount and loop device behind; `losetup -a` and
// `findmnt` show them, named after the image under the test's temporary
// directory.
package testfs
