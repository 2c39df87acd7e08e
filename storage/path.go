package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// maxSegment is NAME_MAX on the filesystems the gateway targets (ext4, XFS,
// ZFS, NFS). A longer segment cannot be a file name, so its key is shadowed.
const maxSegment = 255

// Location says where an object's bytes live. It has the same numeric
// values as metadata.Location, so the object layer converts it directly.
type Location uint8

const (
	// Natural means the bytes are the file root/bucket/key.
	Natural Location = iota
	// Shadow means the bytes are the file ShadowPath(bucket, key).
	Shadow
	// Directory means a zero-byte key ending in "/" kept as the directory
	// root/bucket/key; there are no bytes to read.
	Directory
	// Noncurrent means the bytes are the file VersionPath(bucket, key,
	// vid): a version that is no longer current, or the file behind a
	// delete marker. Such a file is reached through the *Version
	// functions (OpenVersion, IdentifyVersion, RemoveVersion), which take
	// the version id that Open, Identify and Remove do not have.
	Noncurrent
)

// String names the location for logs and test failures.
func (l Location) String() string {
	switch l {
	case Natural:
		return "natural"
	case Shadow:
		return "shadow"
	case Directory:
		return "directory"
	case Noncurrent:
		return "noncurrent"
	}
	return "Location(" + strconv.Itoa(int(l)) + ")"
}

// NaturalPath returns bucket + "/" + key, relative to the root, when the
// filesystem can hold that path: the bucket is a valid directory name that
// does not start with '.', and every segment of the key is non-empty, not
// "." or "..", at most 255 bytes and free of NUL. A key ending in "/" is
// refused here because Commit decides between a directory and the shadow
// area for it. NaturalPath is pure: it does not look at the filesystem, so
// a key may still be shadowed at commit time when it collides with another.
func NaturalPath(bucket, key string) (string, bool) {
	if !validBucket(bucket) || key == "" || strings.HasSuffix(key, "/") {
		return "", false
	}
	for rest := key; rest != ""; {
		seg, tail, _ := strings.Cut(rest, "/")
		if !validSegment(seg) {
			return "", false
		}
		rest = tail
	}
	return bucket + "/" + key, true
}

// ShadowPath returns the shadow file of bucket/key, relative to the root:
// StateDir/shadow/<bucket>/<first 2 hex>/<sha256(key) hex>. The two-digit
// fan-out keeps directories small; the hash makes every key a valid name.
func ShadowPath(bucket, key string) string {
	sum := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:])
	return shadowDir + "/" + bucket + "/" + h[:2] + "/" + h
}

// shadowBucketDir is the shadow directory of one bucket.
func shadowBucketDir(bucket string) string {
	return shadowDir + "/" + bucket
}

// validBucket reports whether name can be a bucket directory. Names that
// start with '.' are refused so that no bucket can alias StateDir, "." or
// "..".
func validBucket(name string) bool {
	return validSegment(name) && name[0] != '.' && !strings.Contains(name, "/")
}

func validSegment(s string) bool {
	return s != "" && s != "." && s != ".." && len(s) <= maxSegment &&
		!strings.ContainsAny(s, "\x00/")
}
