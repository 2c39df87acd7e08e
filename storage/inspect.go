package storage

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// This file gives fsck a view of the state directory: staging leftovers,
// the shadow area and the versions area, which the request path never
// enumerates.

// OpenInspect opens the store like Open but leaves StateDir/staging as it
// is, so that a checker can report leftover temp files before anything
// removes them. The root must exist; the state directory's areas are
// created if missing, as Open does. Uploads through an FS opened this way
// work normally.
func OpenInspect(root string) (*FS, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	fs := &FS{path: abs, root: r}
	for _, d := range []string{stagingDir, shadowDir, multipartDir, versionsDir, gatewaysDir} {
		if err := r.MkdirAll(d, 0o700); err != nil {
			r.Close()
			return nil, err
		}
	}
	fs.staging, err = r.OpenFile(stagingDir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		r.Close()
		return nil, err
	}
	fs.rootDir, err = r.OpenFile(".", os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		fs.staging.Close()
		r.Close()
		return nil, err
	}
	fs.gateways, err = openDir(r, gatewaysDir)
	if err != nil {
		fs.rootDir.Close()
		fs.staging.Close()
		r.Close()
		return nil, err
	}
	if _, err := r.Stat(".."); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			fs.escape = pe.Err
		}
	}
	fs.prefix = fmt.Sprintf("up-inspect-%d-", os.Getpid())
	// A checker's repairs remove files of locked versions too, which
	// needs the immutable flag cleared first: the probe tells whether it
	// can be. The probe's temp file is removed before a checker lists the
	// staging area.
	if err := fs.probeImmutable(); err != nil {
		fs.Close()
		return nil, err
	}
	return fs, nil
}

// StagingFiles returns the names of the entries in StateDir/staging that
// no open gateway on this root owns, sorted: leftovers of uploads that a
// crash interrupted. A live gateway's files (its lock file held, see
// staging_lock.go) are not listed.
func (fs *FS) StagingFiles() ([]string, error) {
	names, _, release, err := fs.leftovers()
	release()
	slices.Sort(names)
	return names, err
}

// ClearStaging removes the files StagingFiles lists, as Open does; the
// files of gateways running on this root stay.
func (fs *FS) ClearStaging() error {
	return fs.clearStaging()
}

// ShadowBuckets returns the bucket names that have a directory in the
// shadow area, sorted.
func (fs *FS) ShadowBuckets() ([]string, error) { return fs.sortedNames(shadowDir) }

// sortedNames returns the names in a directory of the state area, sorted.
func (fs *FS) sortedNames(dir string) ([]string, error) {
	d, err := openDir(fs.root, dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

// ShadowFiles calls fn with the name (the hex SHA-256 of the key, see
// ShadowPath) of every entry in a bucket's shadow area. Entries whose name
// is not a hash, or that sit under the wrong fan-out directory, are passed
// too, so a checker can report them.
func (fs *FS) ShadowFiles(bucket string, fn func(name string) error) error {
	if !validBucket(bucket) {
		return &os.PathError{Op: "shadow", Path: bucket, Err: syscall.EINVAL}
	}
	return fs.fannedFiles(shadowBucketDir(bucket), validShadowName, fn)
}

// fannedFiles calls fn, in order, with the name of every entry of the
// two-character fan-out directories below dir; a name that valid refuses,
// or that sits under another fan-out than its first two characters, is
// passed as "<fan-out>/<name>".
func (fs *FS) fannedFiles(dir string, valid func(string) bool, fn func(name string) error) error {
	top, err := openDir(fs.root, dir)
	if err != nil {
		return fs.mapErr(err)
	}
	defer top.Close()
	fans, err := top.Readdirnames(-1)
	if err != nil {
		return err
	}
	slices.Sort(fans)
	for _, fan := range fans {
		d, err := openBelow(top, fan)
		if err != nil {
			return err
		}
		names, err := d.Readdirnames(-1)
		d.Close()
		if err != nil {
			return err
		}
		slices.Sort(names)
		for _, n := range names {
			if !valid(n) || n[:2] != fan {
				n = fan + "/" + n
			}
			if err := fn(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// validShadowName reports whether name is a hex SHA-256, as ShadowPath
// makes them.
func validShadowName(name string) bool {
	if len(name) != 64 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}

// ShadowName returns the name ShadowFiles reports for bucket/key.
func ShadowName(bucket, key string) string {
	return filepath.Base(ShadowPath(bucket, key))
}

// RemoveShadowFile removes one entry of a bucket's shadow area, named as
// ShadowFiles reported it, and fsyncs its directory.
func (fs *FS) RemoveShadowFile(bucket, name string) error {
	if !validBucket(bucket) {
		return &os.PathError{Op: "remove", Path: bucket, Err: syscall.EINVAL}
	}
	rel := name
	if validShadowName(name) {
		rel = name[:2] + "/" + name
	}
	return fs.mapErr(fs.removeIn(fs.root, shadowBucketDir(bucket)+"/"+rel, 0))
}

// RemoveShadowBucket removes the whole shadow directory of a bucket the
// index does not know.
func (fs *FS) RemoveShadowBucket(bucket string) error {
	return fs.removeShadow(bucket)
}

// VersionBuckets returns the bucket names that have a directory in the
// versions area, sorted.
func (fs *FS) VersionBuckets() ([]string, error) { return fs.sortedNames(versionsDir) }

// VersionFiles calls fn with the name of every entry in a bucket's
// versions area: "<hex SHA-256 of the key>.<version id>", as VersionName
// gives it. An entry whose name is not of that shape, or that sits under
// the wrong fan-out directory, is passed as "<fan-out>/<name>", so a
// checker can report it.
func (fs *FS) VersionFiles(bucket string, fn func(name string) error) error {
	if !validBucket(bucket) {
		return &os.PathError{Op: "versions", Path: bucket, Err: syscall.EINVAL}
	}
	return fs.fannedFiles(versionsBucketDir(bucket), validVersionName, fn)
}

// validVersionName reports whether name is of the shape VersionPath gives
// a version's file.
func validVersionName(name string) bool {
	h, vid, ok := strings.Cut(name, ".")
	return ok && validShadowName(h) && validVersionID(vid)
}

// VersionName returns the name VersionFiles reports for the file of
// version vid of bucket/key ("" for the null version).
func VersionName(bucket, key, vid string) (string, error) {
	p, err := VersionPath(bucket, key, vid)
	if err != nil {
		return "", err
	}
	return path.Base(p), nil
}

// RemoveVersionFile removes one entry of a bucket's versions area, named
// as VersionFiles reported it, clearing its immutable flag first when it
// bears one (as RemoveVersion does), and fsyncs its directory.
func (fs *FS) RemoveVersionFile(bucket, name string) error {
	if !validBucket(bucket) {
		return &os.PathError{Op: "remove", Path: bucket, Err: syscall.EINVAL}
	}
	rel := name
	if validVersionName(name) {
		rel = name[:2] + "/" + name
	}
	if strings.Count(rel, "/") != 1 || strings.Contains(rel, "..") {
		return &os.PathError{Op: "remove", Path: name, Err: syscall.EINVAL}
	}
	return fs.removeVersionFile(versionsBucketDir(bucket) + "/" + rel)
}

// RemoveVersionBucket removes the versions directory of a bucket, once
// RemoveVersionFile removed its files; a directory that still holds a
// file is left as it is.
func (fs *FS) RemoveVersionBucket(bucket string) error {
	return fs.removeVersionsDir(bucket)
}
