package powercut

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// node is a file, directory or symlink of the mount. It passes every call
// through to the backing tree (reads, attributes and locks by go-fuse's
// loopback node it embeds) and updates the model on fsync; the calls that
// can fail by a rule are checked first. Its inode number is the model id.
type node struct {
	fs.LoopbackNode
	pc *FS
}

func (f *FS) newNode(root *fs.LoopbackRoot, _ *fs.Inode, _ string, _ *syscall.Stat_t) fs.InodeEmbedder {
	return &node{LoopbackNode: fs.LoopbackNode{RootData: root}, pc: f}
}

// rel is the node's path as rules see it: relative to the mount, with a
// leading slash.
func (n *node) rel() string { return "/" + n.Path(nil) }

func (n *node) relChild(name string) string { return filepath.Join(n.rel(), name) }

func (n *node) path() string { return filepath.Join(n.pc.tree, n.Path(nil)) }

func (n *node) id() uint64 { return n.StableAttr().Ino }

// child makes the inode of a backing entry, created or found, whose
// attributes are st.
func (n *node) child(ctx context.Context, st *syscall.Stat_t, out *fuse.EntryOut) *fs.Inode {
	n.pc.mu.Lock()
	id := n.pc.idOf(st.Ino)
	n.pc.mu.Unlock()
	out.Attr.FromStat(st)
	out.Attr.Ino = id
	return n.NewInode(ctx, n.pc.newNode(n.RootData, nil, "", st), fs.StableAttr{Mode: st.Mode, Ino: id, Gen: 1})
}

func (n *node) lstatChild(ctx context.Context, p string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return nil, fs.ToErrno(err)
	}
	return n.child(ctx, &st, out), 0
}

var _ = (fs.NodeLookuper)((*node)(nil))

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return n.lstatChild(ctx, filepath.Join(n.path(), name), out)
}

var _ = (fs.NodeGetattrer)((*node)(nil))

func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	errno := n.LoopbackNode.Getattr(ctx, f, out)
	out.Ino = n.id()
	return errno
}

var _ = (fs.NodeSetattrer)((*node)(nil))

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	errno := n.LoopbackNode.Setattr(ctx, f, in, out)
	out.Ino = n.id()
	return errno
}

var _ = (fs.NodeStatxer)((*node)(nil))

// Statx answers statx(2) with the model's inode number; without a file
// handle the kernel falls back to Getattr.
func (n *node) Statx(ctx context.Context, f fs.FileHandle, flags uint32, mask uint32, out *fuse.StatxOut) syscall.Errno {
	sx, ok := f.(fs.FileStatxer)
	if !ok {
		return syscall.ENOSYS
	}
	errno := sx.Statx(ctx, flags, mask, out)
	out.Ino = n.id()
	return errno
}

var _ = (fs.NodeMknoder)((*node)(nil))

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p := filepath.Join(n.path(), name)
	if err := syscall.Mknod(p, mode, int(rdev)); err != nil {
		return nil, fs.ToErrno(err)
	}
	return n.lstatChild(ctx, p, out)
}

var _ = (fs.NodeMkdirer)((*node)(nil))

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.pc.check(OpMkdir, n.relChild(name)); errno != 0 {
		return nil, errno
	}
	p := filepath.Join(n.path(), name)
	if err := os.Mkdir(p, os.FileMode(mode&0o777)); err != nil {
		return nil, fs.ToErrno(err)
	}
	return n.lstatChild(ctx, p, out)
}

var _ = (fs.NodeSymlinker)((*node)(nil))

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p := filepath.Join(n.path(), name)
	if err := syscall.Symlink(target, p); err != nil {
		return nil, fs.ToErrno(err)
	}
	return n.lstatChild(ctx, p, out)
}

var _ = (fs.NodeLinker)((*node)(nil))

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	t, ok := target.(*node)
	if !ok {
		return nil, syscall.EXDEV
	}
	if errno := n.pc.check(OpLink, t.rel(), n.relChild(name)); errno != 0 {
		return nil, errno
	}
	p := filepath.Join(n.path(), name)
	if err := syscall.Link(t.path(), p); err != nil {
		return nil, fs.ToErrno(err)
	}
	return n.lstatChild(ctx, p, out)
}

var _ = (fs.NodeCreater)((*node)(nil))

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.pc.check(OpOpen, n.relChild(name)); errno != 0 {
		return nil, nil, 0, errno
	}
	p := filepath.Join(n.path(), name)
	// The kernel has applied O_APPEND to the offsets it sends already.
	f, err := os.OpenFile(p, int(flags&^syscall.O_APPEND)|os.O_CREATE, os.FileMode(mode&0o7777))
	if err != nil {
		return nil, nil, 0, fs.ToErrno(err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, nil, 0, fs.ToErrno(err)
	}
	return n.child(ctx, &st, out), &file{fs.NewLoopbackFileFromOS(f)}, 0, 0
}

var _ = (fs.NodeOpener)((*node)(nil))

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.pc.check(OpOpen, n.rel()); errno != 0 {
		return nil, 0, errno
	}
	h, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	lf, ok := h.(*fs.LoopbackFile)
	if !ok {
		return nil, 0, syscall.EIO
	}
	return &file{lf}, fuseFlags, 0
}

// file is an open file. It is go-fuse's loopback file without kernel
// passthrough: with passthrough the kernel would read and write the
// backing file itself, and no write could be counted or failed.
type file struct {
	*fs.LoopbackFile
}

var _ = (fs.FilePassthroughFder)((*file)(nil))

// PassthroughFd refuses passthrough.
func (f *file) PassthroughFd() (int, bool) { return -1, false }

var _ = (fs.FileIoctler)((*file)(nil))

// Ioctl refuses every ioctl. The model keeps no inode flags, and an
// immutable flag passed through to the backing file would outlive a cut
// and stop Cut from removing the old tree; a program that probes for the
// flag (the gateway does) finds it unsupported.
func (f *file) Ioctl(ctx context.Context, cmd uint32, arg uint64, input []byte, output []byte) (int32, syscall.Errno) {
	return 0, syscall.ENOTTY
}

var _ = (fs.NodeUnlinker)((*node)(nil))

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	if errno := n.pc.check(OpUnlink, n.relChild(name)); errno != 0 {
		return errno
	}
	p := filepath.Join(n.path(), name)
	n.pc.mu.Lock()
	defer n.pc.mu.Unlock()
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return fs.ToErrno(err)
	}
	if err := syscall.Unlink(p); err != nil {
		return fs.ToErrno(err)
	}
	if st.Nlink <= 1 {
		n.pc.forget(st.Ino)
	}
	return 0
}

var _ = (fs.NodeRmdirer)((*node)(nil))

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	p := filepath.Join(n.path(), name)
	n.pc.mu.Lock()
	defer n.pc.mu.Unlock()
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return fs.ToErrno(err)
	}
	if err := syscall.Rmdir(p); err != nil {
		return fs.ToErrno(err)
	}
	n.pc.forget(st.Ino)
	return 0
}

var _ = (fs.NodeRenamer)((*node)(nil))

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok {
		return syscall.EXDEV
	}
	if errno := n.pc.check(OpRename, n.relChild(name), np.relChild(newName)); errno != 0 {
		return errno
	}
	from := filepath.Join(n.path(), name)
	to := filepath.Join(np.path(), newName)
	n.pc.mu.Lock()
	defer n.pc.mu.Unlock()
	var src, victim syscall.Stat_t
	if err := syscall.Lstat(from, &src); err != nil {
		return fs.ToErrno(err)
	}
	replaces := syscall.Lstat(to, &victim) == nil
	if err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, uint(flags)); err != nil {
		return fs.ToErrno(err)
	}
	// A rename over another inode ends it when the name was its last; an
	// exchange ends nothing, and a rename between two links of one inode
	// changes nothing.
	if replaces && flags&unix.RENAME_EXCHANGE == 0 && victim.Ino != src.Ino &&
		(victim.Mode&syscall.S_IFMT == syscall.S_IFDIR || victim.Nlink <= 1) {
		n.pc.forget(victim.Ino)
	}
	return 0
}

var _ = (fs.NodeWritever)((*node)(nil))

func (n *node) Writev(ctx context.Context, f fs.FileHandle, data [][]byte, off int64) (uint32, syscall.Errno) {
	if errno := n.pc.check(OpWrite, n.rel()); errno != 0 {
		return 0, errno
	}
	w, ok := f.(fs.FileWritever)
	if !ok {
		return 0, syscall.EBADF
	}
	return w.Writev(ctx, data, off)
}

var _ = (fs.NodeCopyFileRanger)((*node)(nil))

// CopyFileRange counts as a write to the destination.
func (n *node) CopyFileRange(ctx context.Context, fhIn fs.FileHandle, offIn uint64, out *fs.Inode, fhOut fs.FileHandle, offOut uint64, length uint64, flags uint64) (uint32, syscall.Errno) {
	dst, ok := out.Operations().(*node)
	if !ok {
		return 0, syscall.EXDEV
	}
	in, okIn := fhIn.(*file)
	to, okOut := fhOut.(*file)
	if !okIn || !okOut {
		return 0, syscall.ENOTSUP
	}
	if errno := n.pc.check(OpWrite, dst.rel()); errno != 0 {
		return 0, errno
	}
	return n.LoopbackNode.CopyFileRange(ctx, in.LoopbackFile, offIn, out, to.LoopbackFile, offOut, length, flags)
}

var _ = (fs.NodeFsyncer)((*node)(nil))

// Fsync makes the node durable in the model: a file's data, a directory's
// entries. The backing file itself is not synced: its durability is the
// model's business.
func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if errno := n.pc.check(OpFsync, n.rel()); errno != 0 {
		return errno
	}
	if n.StableAttr().Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return n.syncDir()
	}
	src, err := n.reopen(f)
	if err != nil {
		return fs.ToErrno(err)
	}
	defer src.Close()
	n.pc.mu.Lock()
	defer n.pc.mu.Unlock()
	return fs.ToErrno(n.pc.syncFile(n.id(), src))
}

// reopen opens the file for reading: through the descriptor of the handle
// being synced when there is one (it may name an inode that has no name
// any more), else by its path.
func (n *node) reopen(f fs.FileHandle) (*os.File, error) {
	if h, ok := f.(*file); ok {
		if fd, ok := h.LoopbackFile.PassthroughFd(); ok {
			return os.Open(fmt.Sprintf("/proc/self/fd/%d", fd))
		}
	}
	return os.Open(n.path())
}

func (n *node) syncDir() syscall.Errno {
	n.pc.mu.Lock()
	defer n.pc.mu.Unlock()
	return fs.ToErrno(n.pc.syncDir(n.id(), n.path()))
}

var _ = (fs.NodeOpendirHandler)((*node)(nil))

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	h, fuseFlags, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &dirHandle{inner: h, n: n}, fuseFlags, 0
}

// dirHandle is an open directory: it lists the backing directory with the
// model's inode numbers, and its fsync goes to the model.
type dirHandle struct {
	inner fs.FileHandle
	n     *node
}

var (
	_ = (fs.FileReaddirenter)((*dirHandle)(nil))
	_ = (fs.FileSeekdirer)((*dirHandle)(nil))
	_ = (fs.FileReleasedirer)((*dirHandle)(nil))
	_ = (fs.FileFsyncdirer)((*dirHandle)(nil))
)

func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	r, ok := d.inner.(fs.FileReaddirenter)
	if !ok {
		return nil, syscall.ENOTSUP
	}
	de, errno := r.Readdirent(ctx)
	if de != nil {
		d.n.pc.mu.Lock()
		de.Ino = d.n.pc.idOf(de.Ino)
		d.n.pc.mu.Unlock()
	}
	return de, errno
}

func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	s, ok := d.inner.(fs.FileSeekdirer)
	if !ok {
		return syscall.ENOTSUP
	}
	return s.Seekdir(ctx, off)
}

func (d *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	if r, ok := d.inner.(fs.FileReleasedirer); ok {
		r.Releasedir(ctx, flags)
	}
}

func (d *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	return d.n.Fsync(ctx, nil, flags)
}
