// Package storage owns the bytes of objects: plain files under one POSIX
// root directory, one top-level directory per bucket, and a hidden state
// directory (StateDir) that holds the staging area, the shadow area and the
// files other packages keep there (the index, credentials).
//
// Bucket b and key k live at <root>/b/k whenever the filesystem can hold
// that path (see NaturalPath). Keys it cannot hold — a key that is also a
// directory of other keys, segments that are empty, "." or "..", or longer
// than 255 bytes, a trailing "/" on an object with content — live in the
// shadow area at ShadowPath, and the caller records the Location in its
// index. A zero-byte key ending in "/" is kept as a directory.
//
// The package knows nothing of HTTP or S3 XML, and it keeps no catalogue:
// the index (package metadata) is the catalogue, this package is the truth
// for bytes.
//
// # Invariants
//
//   - Every path operation is resolved through an [os.Root]. Object paths
//     are further confined to their bucket's directory, so a symbolic link
//     planted in the tree can neither leave the root nor reach the state
//     directory or another bucket; such a path fails with ErrEscape.
//   - A reader never sees a partial object: bytes are written to a temp file
//     in StateDir/staging (same filesystem as the buckets), fsynced, renamed
//     into place, and the parent directory is fsynced, as are the parents of
//     directories the commit created. Unless Options.NoSync is set, an object
//     whose Commit returned nil survives a crash or power loss.
//   - A failed or aborted upload leaves no file behind.
//   - After a successful Commit a key's bytes live in exactly one place.
//   - Errors wrap the underlying *os.PathError and errno (ENOSPC, EDQUOT,
//     EROFS, ENAMETOOLONG, ...) so callers can map them with errors.Is.
//   - Noncurrent versions and the files behind delete markers live in the
//     versions area (VersionPath) and get there, and back, only by hard
//     link or rename on the same filesystem, never by copy. Nothing outside
//     the *Version functions, Demote, Restore and Publish with Prior.Demote
//     touches that area: staging clean-up and Walk never enter it.
//   - Removing an object prunes directories that became empty, up to but
//     never including the bucket directory, and never a directory that
//     holds anything.
//
// # Caveats
//
//   - Linux only: FileInfo comes from syscall.Stat_t's Ino and Mtim.
//   - Symbolic links inside a bucket that point elsewhere in the same bucket
//     are followed; links to another bucket, to the state directory or out
//     of the root fail with ErrEscape, and a bucket directory that is itself
//     a symbolic link is refused.
//   - os.Root refuses absolute symbolic links, even ones that point inside
//     the root: reads and writes through them fail with ErrEscape.
//   - Commit renames over whatever is at the key's natural path when it is
//     not a directory, including a symbolic link to a directory; the link
//     is replaced, never followed.
//   - Open removes the staging files of gateways that are gone, and only
//     those: each open FS holds an flock(2) on its own lock file in
//     StateDir/gateways (staging_lock.go). On a shared filesystem that
//     ignores locks, every other gateway looks gone, so gateways sharing
//     such a root must not start while another has uploads in flight.
//   - Pruning empty directories after Remove may remove an empty directory
//     that backs a Directory-location object ("a/" when "a/b" is removed);
//     its bytes are zero, so Open still succeeds, but a later scan will not
//     see the marker.
//   - Concurrent Commit and Remove of keys under one directory race on
//     creating and pruning that directory; Commit retries a bounded number
//     of times, which is ample in practice but not a proof.
package storage
