package storage

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Several gateways may share one root (a shared filesystem under many
// gateways, docs/scale-out.md), and each stages its uploads in
// StateDir/staging under its own random prefix. What is left there by a
// gateway that died must be removed, and what belongs to a live one must
// not: so each FS holds an exclusive flock(2) on a lock file of its own,
// StateDir/gateways/<prefix>, for as long as it is open. Every name in the
// staging area starts with the prefix of the FS that made it ("up-" and 16
// hex digits and "-"). At Open, and when fsck clears the area, a prefix
// whose lock file cannot be locked belongs to a live FS and is left
// alone; a prefix whose lock file is missing or can be locked is a dead
// FS's, and its files are removed, then its lock file. Names of no prefix
// (older releases) are removed as before.
//
// The lock file is created before any other file of its prefix, so a
// staged file whose lock file is gone is a leftover. On NFS, flock is
// carried by the NFSv4 lock protocol (Linux maps it to a byte-range lock
// of the whole file); a filesystem that ignores locks makes every prefix
// look dead, which is what a single gateway per root already assumed.

const gatewaysDir = StateDir + "/gateways"

// ownerPrefix returns the staging prefix a name was made with, or "" for
// a name of no recognised prefix.
func ownerPrefix(name string) string {
	const n = len("up-") + 16 + len("-")
	if len(name) < n || !strings.HasPrefix(name, "up-") || name[n-1] != '-' {
		return ""
	}
	for _, c := range name[3 : n-1] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return name[:n]
}

// lockStaging creates and locks fs.prefix's lock file, and reports retry
// when the caller must try again with another prefix.
//
// Where the file system has unnamed files (O_TMPFILE) and /proc is there,
// the file is locked before it has its name (lockStagingUnnamed), so no
// other FS ever finds it unlocked. Otherwise it is created under its name
// and then locked: a concurrent Open on the same root may see it between
// the two, take it for a dead gateway's and remove it; the inode check
// after the lock catches that. Under many concurrent Opens (six gateways
// opening and closing in a loop, on a loaded machine) that window was lost
// eleven times in a row, and Open failed.
func (fs *FS) lockStaging() (retry bool, err error) {
	if done, retry := fs.lockStagingUnnamed(); done {
		return retry, nil
	}
	name := fs.prefix
	var f *os.File
	err = withFd(fs.gateways, func(dfd int) error {
		fd, err := unix.Openat(dfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return err
		}
		f = os.NewFile(uintptr(fd), path.Join(fs.gateways.Name(), name))
		return nil
	})
	if err != nil {
		return false, &os.PathError{Op: "openat", Path: path.Join(fs.gateways.Name(), name), Err: err}
	}
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return true, nil
		}
		return false, fmt.Errorf("storage: lock %s: %w", f.Name(), err)
	}
	var held, named unix.Stat_t
	if err := fstat(f, &held); err != nil {
		f.Close()
		return false, err
	}
	err = withFd(fs.gateways, func(dfd int) error {
		return unix.Fstatat(dfd, name, &named, unix.AT_SYMLINK_NOFOLLOW)
	})
	if errors.Is(err, unix.ENOENT) || err == nil && (held.Ino != named.Ino || held.Dev != named.Dev) {
		f.Close()
		return true, nil
	}
	if err != nil {
		f.Close()
		return false, err
	}
	fs.lock = f
	return false, nil
}

// lockStagingUnnamed makes fs.prefix's lock file as an unnamed file,
// locks it, and links it under its name only then. done is false when
// that cannot be done here (no O_TMPFILE, as on NFS, or no /proc): the
// caller falls back to a named create. retry is true when the name is
// taken.
func (fs *FS) lockStagingUnnamed() (done, retry bool) {
	var f *os.File
	err := withFd(fs.gateways, func(dfd int) error {
		fd, err := unix.Openat(dfd, ".", unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		f = os.NewFile(uintptr(fd), path.Join(fs.gateways.Name(), fs.prefix))
		return nil
	})
	if err != nil {
		return false, false
	}
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return false, false
	}
	// linkat with AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the file's
	// /proc link does not.
	err = withFd(f, func(fd int) error {
		return withFd(fs.gateways, func(dfd int) error {
			return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), dfd, fs.prefix, unix.AT_SYMLINK_FOLLOW)
		})
	})
	switch {
	case errors.Is(err, unix.EEXIST):
		f.Close()
		return true, true
	case err != nil:
		f.Close()
		return false, false
	}
	fs.lock = f
	return true, false
}

// ownerAlive reports whether the FS that staged with prefix is open: its
// lock file exists and is locked. When the lock file is free, it is
// returned locked, so that the caller removes the prefix's files while no
// other FS can take the prefix for its own; the caller closes it.
func (fs *FS) ownerAlive(prefix string) (alive bool, held *os.File, err error) {
	name := prefix
	err = withFd(fs.gateways, func(dfd int) error {
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return err
		}
		held = os.NewFile(uintptr(fd), path.Join(fs.gateways.Name(), name))
		return nil
	})
	if errors.Is(err, unix.ENOENT) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, &os.PathError{Op: "openat", Path: path.Join(fs.gateways.Name(), name), Err: err}
	}
	if err := flock(held, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		held.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return true, nil, nil
		}
		return false, nil, fmt.Errorf("storage: lock %s: %w", held.Name(), err)
	}
	return false, held, nil
}

// leftovers returns the names in the staging area that belong to no open
// FS (fs's own counted as open), and the lock files in StateDir/gateways
// of FSs that are gone, to be removed after those names. The lock files
// of dead FSs are held, so that no FS takes them for its own meanwhile,
// until release is called.
func (fs *FS) leftovers() (names, deadLocks []string, release func(), err error) {
	var held []*os.File
	release = func() {
		for _, f := range held {
			f.Close()
		}
	}
	alive := map[string]bool{fs.prefix: true}
	isAlive := func(p string) (bool, error) {
		a, ok := alive[p]
		if ok {
			return a, nil
		}
		a, f, err := fs.ownerAlive(p)
		if err != nil {
			return false, err
		}
		if f != nil {
			held = append(held, f)
			deadLocks = append(deadLocks, p)
		}
		alive[p] = a
		return a, nil
	}
	staged, err := readDirNames(fs.root, stagingDir)
	if err != nil {
		return nil, nil, release, err
	}
	for _, n := range staged {
		if p := ownerPrefix(n); p != "" {
			a, err := isAlive(p)
			if err != nil {
				return nil, nil, release, err
			}
			if a {
				continue
			}
		}
		names = append(names, n)
	}
	if fs.gateways == nil {
		return names, deadLocks, release, nil
	}
	locks, err := readDirNames(fs.root, gatewaysDir)
	if err != nil {
		return nil, nil, release, err
	}
	for _, n := range locks {
		if ownerPrefix(n) != n {
			continue
		}
		if _, err := isAlive(n); err != nil {
			return nil, nil, release, err
		}
	}
	return names, deadLocks, release, nil
}

// readDirNames reads the names in the directory name of r through a
// descriptor of its own. The FS's long-lived descriptors of the staging
// and gateways directories are not read again: rewound, Btrfs's still
// lists only what the directory held when it was first read, so a sweep
// while the FS serves would not see the files staged since its Open.
func readDirNames(r *os.Root, name string) ([]string, error) {
	d, err := openDir(r, name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

func flock(f *os.File, how int) error {
	return withFd(f, func(fd int) error {
		for {
			err := unix.Flock(fd, how)
			if err != syscall.EINTR {
				return err
			}
		}
	})
}

func fstat(f *os.File, st *unix.Stat_t) error {
	return withFd(f, func(fd int) error { return unix.Fstat(fd, st) })
}
