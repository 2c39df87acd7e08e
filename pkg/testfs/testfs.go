package testfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Kind names a filesystem testfs can make.
type Kind string

// The kinds testfs makes. Ext4, XFS and Btrfs are made on a loop device
// over a sparse image; Tmpfs is a size-limited tmpfs mount. Ramfs, a
// memory filesystem without a size limit, stands for the filesystems
// without file flags (FS_IOC_GETFLAGS, and so no immutable flag), which
// tmpfs has had since Linux 6.0.
const (
	Ext4  Kind = "ext4"
	XFS   Kind = "xfs"
	Btrfs Kind = "btrfs"
	Tmpfs Kind = "tmpfs"
	Ramfs Kind = "ramfs"
)

// Kinds returns every kind, in the order the CI matrix runs them.
func Kinds() []Kind { return []Kind{Ext4, XFS, Btrfs, Tmpfs, Ramfs} }

// ParseKind returns the Kind named s, or an error naming the kinds there
// are.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("testfs: unknown filesystem %q (want ext4, xfs, btrfs, tmpfs or ramfs)", s)
}

// magic is the statfs f_type each kind reports, which New checks after
// mounting so that a test never runs on another filesystem than it asked
// for.
func (k Kind) magic() int64 {
	switch k {
	case Ext4:
		return unix.EXT4_SUPER_MAGIC
	case XFS:
		return unix.XFS_SUPER_MAGIC
	case Btrfs:
		return unix.BTRFS_SUPER_MAGIC
	case Tmpfs:
		return unix.TMPFS_MAGIC
	case Ramfs:
		return unix.RAMFS_MAGIC
	}
	return 0
}

// KindOf returns the kind of the filesystem holding dir, or "" when it is
// none of Kinds.
func KindOf(dir string) (Kind, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return "", &os.PathError{Op: "statfs", Path: dir, Err: err}
	}
	for _, k := range Kinds() {
		if int64(st.Type) == k.magic() {
			return k, nil
		}
	}
	return "", nil
}

// DefaultSize is the size of a filesystem when Options.Size is zero. The
// image is sparse (and tmpfs takes memory only for what is written), so
// only the bytes a test writes cost disk or memory.
const DefaultSize = 2 << 30

// Options configures New.
type Options struct {
	// Size is the filesystem's size in bytes: the image's length, or
	// tmpfs's size limit (ramfs has none). Zero means DefaultSize.
	// mkfs.xfs refuses less than 300 MiB.
	Size int64
}

// UnavailableError is returned by New when the machine lacks what making
// the filesystem takes; Missing names it.
type UnavailableError struct {
	Kind    Kind
	Missing string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("testfs: cannot make a %s filesystem here: %s", e.Kind, e.Missing)
}

// InCI reports whether the environment says this is a CI run (CI=true),
// where a filesystem that cannot be made is a failure, not a skip.
func InCI() bool { return os.Getenv("CI") == "true" }

// FS is a mounted filesystem made by New.
type FS struct {
	// Kind is the filesystem's kind.
	Kind Kind
	// Dir is an empty directory on the filesystem, owned by the caller.
	// It is a subdirectory of the mount, so that the mount's own entries
	// (ext4's lost+found) are not in it.
	Dir string

	mnt   string
	image string
	dev   string
}

// commandTimeout bounds each losetup, mkfs, mount and umount.
const commandTimeout = 2 * time.Minute

// New makes a filesystem of the given kind under work (which holds the
// image and the mount point) and mounts it. An *UnavailableError says
// what the machine lacks to do so. The caller must Close the FS.
func New(kind Kind, work string, o Options) (*FS, error) {
	if kind.magic() == 0 {
		return nil, fmt.Errorf("testfs: unknown filesystem %q", kind)
	}
	size := o.Size
	if size == 0 {
		size = DefaultSize
	}
	if err := available(kind); err != nil {
		return nil, err
	}
	f := &FS{Kind: kind, mnt: filepath.Join(work, string(kind)+".mnt")}
	if err := os.Mkdir(f.mnt, 0o700); err != nil {
		return nil, err
	}
	if err := f.mount(size, work); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	got, err := KindOf(f.mnt)
	if err == nil && got != kind {
		err = fmt.Errorf("testfs: %s mounted as %q, not %s", f.mnt, got, kind)
	}
	if err == nil {
		f.Dir = filepath.Join(f.mnt, "dir")
		err = os.Mkdir(f.Dir, 0o700)
	}
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return f, nil
}

// available returns an *UnavailableError naming the first thing kind
// needs that the machine lacks.
func available(kind Kind) error {
	missing := func(what string) error { return &UnavailableError{Kind: kind, Missing: what} }
	if runtime.GOOS != "linux" {
		return missing("not Linux")
	}
	if os.Geteuid() != 0 {
		return missing("mounting needs root")
	}
	if _, err := lookPath("mount"); err != nil {
		return missing("mount (util-linux) is not installed")
	}
	if kind == Tmpfs || kind == Ramfs {
		return nil
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		return missing("no loop devices (/dev/loop-control: " + err.Error() + ")")
	}
	if _, err := lookPath("losetup"); err != nil {
		return missing("losetup (util-linux) is not installed")
	}
	mkfs, pkg := "mkfs."+string(kind), map[Kind]string{Ext4: "e2fsprogs", XFS: "xfsprogs", Btrfs: "btrfs-progs"}[kind]
	if _, err := lookPath(mkfs); err != nil {
		return missing(mkfs + " is not installed (Debian package " + pkg + ")")
	}
	return nil
}

// mount makes and mounts the filesystem, recording in f what Close must
// undo as it goes.
func (f *FS) mount(size int64, work string) error {
	switch f.Kind {
	case Tmpfs:
		return f.run("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10)+",mode=0700", "tmpfs", f.mnt)
	case Ramfs:
		return f.run("mount", "-t", "ramfs", "-o", "mode=0700", "ramfs", f.mnt)
	}
	f.image = filepath.Join(work, string(f.Kind)+".img")
	img, err := os.OpenFile(f.image, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = img.Truncate(size)
	if cerr := img.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	out, err := f.output("losetup", "--find", "--show", f.image)
	if err != nil {
		return err
	}
	f.dev = strings.TrimSpace(out)
	var mkfs []string
	switch f.Kind {
	case Ext4:
		mkfs = []string{"mkfs.ext4", "-q", "-F"}
	case XFS:
		// Reflinks are the default of recent xfsprogs; asking for them
		// keeps an older mkfs.xfs from making a filesystem without.
		mkfs = []string{"mkfs.xfs", "-q", "-f", "-m", "reflink=1"}
	case Btrfs:
		mkfs = []string{"mkfs.btrfs", "-q", "-f"}
	}
	if err := f.run(append(mkfs, f.dev)...); err != nil {
		return err
	}
	return f.run("mount", f.dev, f.mnt)
}

// Close unmounts the filesystem, detaches its loop device and removes the
// image and the mount point. A mount still busy (a file left open) is
// detached lazily, and reported.
func (f *FS) Close() error {
	var errs []error
	if mounted(f.mnt) {
		if err := f.run("umount", f.mnt); err != nil {
			errs = append(errs, err)
			if err := f.run("umount", "-l", f.mnt); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if f.dev != "" {
		if err := f.run("losetup", "-d", f.dev); err != nil {
			errs = append(errs, err)
		}
		f.dev = ""
	}
	if f.image != "" {
		if err := os.Remove(f.image); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := os.Remove(f.mnt); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// mounted reports whether dir is a mount point: its device differs from
// its parent's.
func mounted(dir string) bool {
	var a, b unix.Stat_t
	if unix.Stat(dir, &a) != nil || unix.Stat(filepath.Dir(dir), &b) != nil {
		return false
	}
	return a.Dev != b.Dev
}

func (f *FS) run(args ...string) error {
	_, err := f.output(args...)
	return err
}

// output runs a command and returns its standard output; its error
// carries the command's combined output. A refusal for want of privilege
// (a container without CAP_SYS_ADMIN) is an *UnavailableError.
func (f *FS) output(args ...string) (string, error) {
	path, err := lookPath(args[0])
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args[1:]...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "ermission denied") || strings.Contains(msg, "must be superuser") {
			return "", &UnavailableError{Kind: f.Kind, Missing: strings.Join(args, " ") + ": " + msg}
		}
		return "", fmt.Errorf("testfs: %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return stdout.String(), nil
}

// lookPath finds a command on PATH or, as a test's PATH may lack them, in
// /usr/sbin and /sbin.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
