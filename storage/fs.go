package storage

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// StateDir is the hidden state directory under the root: index, staging,
// shadow area, credentials. S3 bucket names cannot start with '.', so it can
// never be a bucket.
const StateDir = ".objectgateway"

const (
	stagingDir   = StateDir + "/staging"
	shadowDir    = StateDir + "/shadow"
	multipartDir = StateDir + "/multipart"
	versionsDir  = StateDir + "/versions"
)

// ErrNotFound is returned when an object's file or a bucket's directory is
// missing. It wraps the underlying error (usually ENOENT) when there is one.
var ErrNotFound = errors.New("storage: not found")

// ErrEscape is returned when a path would leave the root, or the bucket it
// belongs to: a symbolic link pointing outside, an absolute link, a bucket
// directory that is itself a link.
var ErrEscape = errors.New("storage: path escapes its bucket or the root")

// Options configures an FS. The zero value is durable.
type Options struct {
	// NoSync skips fsync of files and directories. Commits become faster
	// but are no longer crash-durable: after a power loss an acknowledged
	// object may be missing or empty. Readers still never see partial
	// objects while the system runs, because renames stay atomic.
	NoSync bool
	// KeepDir, when set, reports whether a directory (relative to its
	// bucket) is itself an object — a zero-byte "folder/" marker — which
	// pruning of empty directories must leave in place.
	KeepDir func(bucket, dir string) bool
}

// FS is the byte store under one root directory. It is safe for concurrent
// use by multiple goroutines.
type FS struct {
	path    string   // absolute path of the root, for StatePath
	root    *os.Root // every path operation goes through it
	rootDir *os.File // the root directory, for the bucket lstat of reads (readRoot)
	staging *os.File // StateDir/staging, the source directory of renames
	// gateways is StateDir/gateways, where each open FS on the root holds
	// its lock file, and lock is this FS's, flocked while it is open
	// (staging_lock.go).
	gateways *os.File
	lock     *os.File
	noSync   bool
	keepDir  func(bucket, dir string) bool

	// escape is os.Root's (unexported) error for paths that escape it,
	// captured once so that isEscape does not depend on its message.
	escape error

	prefix string // random per FS, so temp names never collide across processes
	// stampTick is the filesystem's timestamp granularity as Stamps
	// found it (stamp.go); zero before.
	stampTick time.Duration
	seq       atomic.Uint64

	// copied counts the bytes copied from file to file (CopiedBytes).
	copied atomic.Int64

	roots rootCache // bucket Roots for reads (rootcache.go)

	// immutableOK and immutableWhy are ImmutableSupport's answer, probed
	// once by Open and never changed afterwards.
	immutableOK  bool
	immutableWhy string

	// fault, when set (by tests only), is asked before each write and
	// fsync of a staged file ("write", "fsync"), before Publish links the
	// file it replaces ("link") and before the directory fsync after the
	// rename ("dirsync"), and fails that step with the error it returns:
	// the seam that injects ENOSPC, EDQUOT and EROFS (fault_test.go). The
	// versions area asks it too: "link" before Publish links a demoted
	// file there, "rename" before Publish renames the upload over a
	// demoted file and before Demote and Restore move a file, "dirsync"
	// before each directory fsync on those paths.
	fault func(op string) error
}

// Open opens the store rooted at root, creating root (0755) and the state
// directory's staging and shadow areas if missing. It removes leftover
// staging files from a previous run, which costs one directory read; it
// never walks the tree.
func Open(root string, o Options) (*FS, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	fs := &FS{path: abs, root: r, noSync: o.NoSync, keepDir: o.KeepDir}
	if err := fs.init(); err != nil {
		r.Close()
		if fs.staging != nil {
			fs.staging.Close()
		}
		if fs.rootDir != nil {
			fs.rootDir.Close()
		}
		if fs.gateways != nil {
			fs.gateways.Close()
		}
		if fs.lock != nil {
			fs.lock.Close()
		}
		return nil, err
	}
	return fs, nil
}

func (fs *FS) init() error {
	// The state directory holds credentials, so only the gateway's user may
	// read it.
	for _, d := range []string{stagingDir, shadowDir, multipartDir, versionsDir, gatewaysDir} {
		if err := fs.root.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	// The directories just made must survive a power cut with their
	// names: each is fsynced, then the one that holds it, up to the
	// root's parent (the root itself may be new).
	for _, d := range []string{stagingDir, shadowDir, multipartDir, versionsDir, gatewaysDir, StateDir, "."} {
		if err := fs.syncDir(fs.root, d); err != nil {
			return err
		}
	}
	if !fs.noSync {
		if err := syncPath(filepath.Dir(fs.path)); err != nil {
			return err
		}
	}
	var err error
	fs.staging, err = fs.root.OpenFile(stagingDir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	fs.rootDir, err = fs.root.OpenFile(".", os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	fs.gateways, err = openDir(fs.root, gatewaysDir)
	if err != nil {
		return err
	}
	if _, err := fs.root.Stat(".."); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			fs.escape = pe.Err
		}
	}
	for attempt := 0; ; attempt++ {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		fs.prefix = "up-" + hex.EncodeToString(b[:]) + "-"
		retry, err := fs.lockStaging()
		if err != nil {
			return err
		}
		if !retry {
			break
		}
		if attempt == 10 {
			return errors.New("storage: could not lock a staging prefix: other gateways keep removing it")
		}
	}
	if err := fs.clearStaging(); err != nil {
		return err
	}
	return fs.probeImmutable()
}

// clearStaging removes temp files left by uploads that a crash
// interrupted: those of no open FS on this root (staging_lock.go).
func (fs *FS) clearStaging() (err error) {
	return fs.clearLeftovers(false)
}

// ClearDeadStaging removes, while this FS serves, the staging files of
// the FSs on its root that are gone (a gateway killed while others keep
// running, which would otherwise keep their space until a gateway
// starts): the files of a prefix whose lock file is free or missing, and
// that lock file. Unlike Open it leaves names of no prefix, which a
// running gateway of an older release may still be writing.
func (fs *FS) ClearDeadStaging() error {
	return fs.clearLeftovers(true)
}

// clearLeftovers removes what leftovers lists, the names of no prefix
// too unless prefixedOnly.
func (fs *FS) clearLeftovers(prefixedOnly bool) (err error) {
	names, deadLocks, release, err := fs.leftovers()
	defer release()
	if err != nil {
		return err
	}
	if prefixedOnly {
		names = slices.DeleteFunc(names, func(n string) bool { return ownerPrefix(n) == "" })
	}
	defer func() {
		if err == nil {
			for _, n := range deadLocks {
				if uerr := fs.unlinkAt(fs.gateways, n, 0); uerr != nil && !errors.Is(uerr, syscall.ENOENT) {
					err = uerr
					return
				}
			}
		}
	}()
	for _, n := range names {
		err := fs.unlinkAt(fs.staging, n, 0)
		if errors.Is(err, syscall.EPERM) {
			// A file that kept its immutable flag through a crash (the
			// probe's, or a version caught between its moves) can only
			// be removed once the flag is cleared.
			if ferr := fs.clearImmutableAt(fs.staging, n); ferr == nil {
				err = fs.unlinkAt(fs.staging, n, 0)
			}
		}
		if err != nil && !errors.Is(err, syscall.ENOENT) {
			return err
		}
	}
	return nil
}

// Close releases the root. Uploads in flight fail afterwards, and their
// temp files are removed first, so that a clean exit leaves no staging
// files behind even when a request was cut off in the middle of its body
// (see removeOwnStaging).
func (fs *FS) Close() error {
	err := errors.Join(fs.removeOwnStaging(), fs.roots.close(), fs.staging.Close(), fs.rootDir.Close(), fs.root.Close())
	if fs.lock != nil {
		err = errors.Join(err, fs.lock.Close())
	}
	if fs.gateways != nil {
		err = errors.Join(err, fs.gateways.Close())
	}
	return err
}

// removeOwnStaging removes the temp files of this FS's uploads (the ones
// named with its prefix), not those of another FS on the same root. It
// keeps the ".prev" links a Publish makes of the version it replaced: a
// writer still between Publish and Undo would need that link to put the
// previous version back. Open removes them at the next start, as after a
// crash.
func (fs *FS) removeOwnStaging() error {
	d, err := openDir(fs.root, stagingDir)
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		if !strings.HasPrefix(n, fs.prefix) || strings.HasSuffix(n, ".prev") {
			continue
		}
		if err := fs.unlinkAt(fs.staging, n, 0); err != nil && !errors.Is(err, syscall.ENOENT) {
			return err
		}
	}
	if fs.lock == nil {
		return nil
	}
	// The lock file goes last: once it is gone, the next Open on this
	// root takes what is left of this prefix (the ".prev" links) for a
	// leftover.
	if err := fs.unlinkAt(fs.gateways, fs.prefix, 0); err != nil && !errors.Is(err, syscall.ENOENT) {
		return err
	}
	return nil
}

// StatePath returns the absolute path of name in the state directory, for
// files other packages keep there (the index, credentials).
func (fs *FS) StatePath(name string) string {
	return filepath.Join(fs.path, StateDir, name)
}

// isEscape reports whether err is os.Root's refusal of a path that leaves it.
func (fs *FS) isEscape(err error) bool {
	return fs.escape != nil && errors.Is(err, fs.escape)
}

// mapErr marks escapes with ErrEscape and missing files with ErrNotFound,
// keeping the original error in the chain.
func (fs *FS) mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrEscape), errors.Is(err, ErrNotFound):
		return err
	case fs.isEscape(err):
		return fmt.Errorf("%w: %w", ErrEscape, err)
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// bucketRoot opens a Root confined to the bucket's directory, so that
// object paths (and symbolic links in them) cannot reach the state
// directory or another bucket. The bucket directory must be a real
// directory: its inode is compared with the one the Root opened, which
// rules out a link swapped in between.
func (fs *FS) bucketRoot(bucket string) (*os.Root, error) {
	if !validBucket(bucket) {
		return nil, &os.PathError{Op: "bucket", Path: bucket, Err: syscall.EINVAL}
	}
	br, err := fs.root.OpenRoot(bucket)
	if err != nil {
		return nil, fs.mapErr(err)
	}
	opened, err := br.Stat(".")
	if err != nil {
		br.Close()
		return nil, fs.mapErr(err)
	}
	entry, err := fs.root.Lstat(bucket)
	if err != nil {
		br.Close()
		return nil, fs.mapErr(err)
	}
	if !entry.IsDir() || !os.SameFile(opened, entry) {
		br.Close()
		return nil, fmt.Errorf("%w: bucket directory %q is not a plain directory", ErrEscape, bucket)
	}
	return br, nil
}

// openDir opens a directory through r for renameat, unlinkat and fsync.
func openDir(r *os.Root, name string) (*os.File, error) {
	return r.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY, 0)
}

// withFd runs fn on f's descriptor while keeping f alive.
func withFd(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// unlinkAt removes the single entry name from the open directory dir.
// Going through a directory descriptor and one path component, instead of
// Root.Remove, means a directory is never removed as a file or a file as a
// directory, whatever a concurrent writer put at that name.
func (fs *FS) unlinkAt(dir *os.File, name string, flags int) error {
	err := withFd(dir, func(fd int) error {
		return ignoringEINTR(func() error { return unix.Unlinkat(fd, name, flags) })
	})
	if err != nil {
		return &os.PathError{Op: "unlinkat", Path: path.Join(dir.Name(), name), Err: err}
	}
	return nil
}

// rmdirIn removes the empty directory rel (relative to r).
func (fs *FS) rmdirIn(r *os.Root, rel string) error {
	d, err := openDir(r, path.Dir(rel))
	if err != nil {
		return err
	}
	defer d.Close()
	return fs.unlinkAt(d, path.Base(rel), unix.AT_REMOVEDIR)
}

// syncDir fsyncs the directory rel of r, unless NoSync is set.
func (fs *FS) syncDir(r *os.Root, rel string) error {
	if fs.noSync {
		return nil
	}
	d, err := openDir(r, rel)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// syncPath fsyncs the directory at an absolute path outside the root.
func syncPath(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

func ignoringEINTR(fn func() error) error {
	for {
		err := fn()
		if err != syscall.EINTR {
			return err
		}
	}
}
