package object

import (
	"os"

	"github.com/objectgateway/objectgateway/storage"
)

// This file maps users to POSIX owners: when the gateway runs as root, a
// user with a uid/gid gets the files and bucket directories its requests
// create. Without the privilege to chown the mapping is ignored, so the
// same configuration works (with the gateway's own ownership) in an
// unprivileged test or container. Directories created along a new key's
// path keep the gateway's ownership (mode 0755, readable by everyone).

// canChown reports whether the process may give files to other owners.
func canChown() bool { return os.Geteuid() == 0 }

// chownStaged gives a staged upload its owner before it is published, so
// the file appears at its final name already owned by the user.
func chownStaged(up *storage.Upload, o *POSIXOwner) error {
	if o == nil || !canChown() {
		return nil
	}
	return mapErr(up.File().Chown(o.UID, o.GID))
}

// ChownBucket gives a bucket's directory to a POSIX owner (when the
// gateway runs as root; otherwise it does nothing).
func (l *Layer) ChownBucket(name string, o POSIXOwner) error {
	if !canChown() {
		return nil
	}
	return mapErr(l.fs.ChownBucket(name, o.UID, o.GID))
}
