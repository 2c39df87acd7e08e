// Package powercut is a FUSE filesystem for tests that can lose power.
//
// It owns a work directory with three parts: the backing tree it serves
// (the volatile state, what programs on the mount see), a model of the
// durable state (what a journaled filesystem would hold after a power cut),
// and copies of file data taken at each fsync. It is test infrastructure:
// only tests and crash harnesses import it, never the gateway.
//
// A program runs on [FS.Path] as on any directory. [FS.Cut] unmounts,
// replaces the backing tree by the durable one and mounts again, so a test
// can kill the program, cut, and start it again on what survived.
// [FS.Fail] makes the Nth call of one kind (write, fsync, rename, ...)
// on a chosen path fail with a chosen errno.
//
// # The model
//
// The rules are those of a journaled filesystem, made stricter than ext4
// with data=ordered:
//
//   - The data and size of a file are durable as of its last fsync or
//     fdatasync, through any of its names or descriptors (hard links share
//     one inode). A file whose name is durable but whose data was never
//     synced comes back empty.
//   - A name (create, link, mkdir, symlink, rename target) becomes durable
//     only when its parent directory is fsynced after it; a removal (unlink,
//     rmdir, rename source) only when that directory is fsynced. A
//     directory fsync makes the whole current list of entries of that one
//     directory durable, and nothing else.
//   - A rename between two directories is two entry changes: the name
//     leaves the source when the source is fsynced and appears at the
//     target when the target is fsynced. Until both are, a cut can show
//     it under both names (as two links) or under neither. A real
//     filesystem commits both sides in one journal transaction, so a
//     program that survives this model survives it too.
//   - [FS.Sync] (the model's syncfs) makes everything durable. The kernel
//     does not forward syncfs(2) or sync(2) to a FUSE server, so for a
//     program on the mount they make nothing durable.
//
// Inode numbers are the model's own, stable across a cut, and the mtime of
// a file is the one it had at its last fsync, so a program that records
// (inode, size, mtime) finds them again after the cut.
//
// # Caveats
//
// The model does not tear sectors, does not reorder or partially apply the
// writes of one file between two fsyncs (the data after a cut is exactly
// what the last fsync saw), has no volatile disk cache that an fsync could
// fail to flush, and keeps owners, modes and times only as of the last
// sync. It refuses every ioctl (ENOTTY): inode flags such as immutable
// are not modelled, so a program that probes for them finds them missing.
// Writes counted by [FS.Fail] are FUSE write requests: one large write(2)
// can be several. Everything goes through the mount: changes made directly
// in the backing tree are not modelled. The backing tree must be on one
// filesystem.
//
// Run the program under test in another process than the one that calls
// Mount. A Go process that serves the mount and also faults in pages of a
// file mapped from it (bbolt maps its index) can deadlock: the faulting
// thread waits for the server, whose goroutines wait for the garbage
// collector to stop the world, which waits for the faulting thread. Plain
// reads and writes from the serving process are safe.
package powercut
