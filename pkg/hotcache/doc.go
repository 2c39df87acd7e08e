// Package hotcache keeps the bytes of small, often-read objects in memory,
// within a byte budget, so that a GET of a hot object need not open, stat
// and read its file.
//
// A Key fully describes its value: bucket, key, ETag and the identity of
// the file the bytes were read from (inode, mtime, size). An entry is never
// invalidated; an object that changes gets a different Key and its old
// entry is evicted in time. The package does not check that a Key is still
// current: its user compares the Key with the object's record and the
// file's identity before serving cached bytes.
//
// Admission and eviction are otter's W-TinyLFU, which keeps a one-off scan
// of many objects from flushing the hot set.
//
// # Caveats
//
// A file rewritten in place behind the gateway's back, keeping its size,
// within one tick of the file system's timestamp clock keeps its Key. The
// gateway's record check has the same blind spot.
package hotcache
