package powercut

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// inode is the durable state of one inode of the model.
type inode struct {
	mode     uint32 // st_mode: type and permissions
	uid, gid uint32

	// hasData says a copy of the file's data is in the durable directory,
	// taken at its last fsync; without one the file is empty.
	hasData bool
	mtime   unix.Timespec

	target  string            // a symlink's target
	entries map[string]uint64 // a directory's durable entries: name → model id
}

func (in *inode) isDir() bool { return in.mode&syscall.S_IFMT == syscall.S_IFDIR }

// idOf returns the model id of the live backing inode ino, giving it a new
// one the first time it is seen. The caller holds f.mu.
func (f *FS) idOf(ino uint64) uint64 {
	id, ok := f.ids[ino]
	if !ok {
		id = f.nextID
		f.nextID++
		f.ids[ino] = id
	}
	return id
}

// forget drops the backing inode number of an inode that no name and no
// open descriptor reaches any more, so the backing filesystem can reuse
// the number for a new inode that gets a new id. The caller holds f.mu.
func (f *FS) forget(ino uint64) { delete(f.ids, ino) }

func (f *FS) dataPath(id uint64) string {
	return filepath.Join(f.durable, strconv.FormatUint(id, 10))
}

// syncFile makes the current data, size, mode and mtime of the file with
// model id id durable, reading them from src. The caller holds f.mu.
func (f *FS) syncFile(id uint64, src *os.File) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(src.Fd()), &st); err != nil {
		return err
	}
	tmp := f.dataPath(id) + ".tmp"
	dst, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, io.NewSectionReader(src, 0, st.Size))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.dataPath(id))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	in := f.inodes[id]
	if in == nil {
		in = &inode{}
		f.inodes[id] = in
	}
	in.mode, in.uid, in.gid = st.Mode, st.Uid, st.Gid
	in.hasData = true
	in.mtime = unix.NsecToTimespec(st.Mtim.Nano())
	return nil
}

// syncDir makes the current entries of the backing directory dir, whose
// model id is id, durable. An entry whose inode the model has never seen
// becomes durable as it is named: a file without data, a directory
// without entries, a symlink with its target. The caller holds f.mu.
func (f *FS) syncDir(id uint64, dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return err
	}
	entries := make(map[string]uint64, len(names))
	for _, name := range names {
		p := filepath.Join(dir, name)
		var cst syscall.Stat_t
		if err := syscall.Lstat(p, &cst); err != nil {
			return err
		}
		cid := f.idOf(cst.Ino)
		entries[name] = cid
		if f.inodes[cid] != nil {
			continue
		}
		in := &inode{mode: cst.Mode, uid: cst.Uid, gid: cst.Gid}
		switch cst.Mode & syscall.S_IFMT {
		case syscall.S_IFDIR:
			in.entries = map[string]uint64{}
		case syscall.S_IFLNK:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			in.target = target
		case syscall.S_IFREG:
		default:
			return fmt.Errorf("powercut: %s: only files, directories and symlinks are modelled", p)
		}
		f.inodes[cid] = in
	}
	in := f.inodes[id]
	if in == nil {
		in = &inode{}
		f.inodes[id] = in
	}
	in.mode, in.uid, in.gid = st.Mode, st.Uid, st.Gid
	in.entries = entries
	return nil
}

// syncTree makes the whole backing tree durable. The caller holds f.mu.
func (f *FS) syncTree() error {
	synced := map[uint64]bool{}
	return filepath.WalkDir(f.tree, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		id := f.idOf(st.Ino)
		switch {
		case de.IsDir():
			return f.syncDir(id, p)
		case de.Type().IsRegular() && !synced[id]:
			synced[id] = true
			src, err := os.Open(p)
			if err != nil {
				return err
			}
			defer src.Close()
			return f.syncFile(id, src)
		}
		return nil
	})
}

// restore replaces the backing tree by the durable state, keeping every
// model id, and then takes the new tree as the durable state: inodes no
// durable name reaches are dropped. A directory that the durable state
// names twice (possible only after renames of directories whose source and
// target were not both fsynced) keeps the first name in the order of a
// walk by sorted names.
func (f *FS) restore() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	next := f.tree + ".cut"
	if err := os.RemoveAll(next); err != nil {
		return err
	}
	r := restorer{f: f, ids: map[uint64]uint64{}, paths: map[uint64]string{}, kept: map[uint64]*inode{}}
	if err := r.build(rootID, next); err != nil {
		return fmt.Errorf("powercut: rebuilding the durable tree: %w", err)
	}
	old := f.tree + ".old"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(f.tree, old); err != nil {
		return err
	}
	if err := os.Rename(next, f.tree); err != nil {
		return err
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	for id, in := range f.inodes {
		if r.kept[id] == nil && in.hasData {
			os.Remove(f.dataPath(id))
		}
	}
	f.ids = r.ids
	f.inodes = r.kept
	return nil
}

// restorer builds a tree from the durable state.
type restorer struct {
	f     *FS
	ids   map[uint64]uint64 // new backing inode number → model id
	paths map[uint64]string // model id → first path built for it
	kept  map[uint64]*inode // the durable state as built
}

func (r *restorer) build(id uint64, p string) error {
	in := r.f.inodes[id]
	if first, ok := r.paths[id]; ok {
		// A second name of a file becomes a hard link.
		if err := os.Link(first, p); err != nil {
			return err
		}
		return nil
	}
	switch in.mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		if err := os.Mkdir(p, 0o700); err != nil {
			return err
		}
		if err := os.Chmod(p, os.FileMode(in.mode&0o777)); err != nil {
			return err
		}
	case syscall.S_IFLNK:
		if err := os.Symlink(in.target, p); err != nil {
			return err
		}
	default:
		if err := r.file(id, in, p); err != nil {
			return err
		}
	}
	if err := os.Lchown(p, int(in.uid), int(in.gid)); err != nil {
		return err
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return err
	}
	r.ids[st.Ino] = id
	r.paths[id] = p
	kept := *in
	r.kept[id] = &kept
	if !in.isDir() {
		return nil
	}
	kept.entries = map[string]uint64{}
	names := make([]string, 0, len(in.entries))
	for name := range in.entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cid := in.entries[name]
		child := r.f.inodes[cid]
		if child == nil {
			return fmt.Errorf("%s/%s names inode %d, which the model does not hold", p, name, cid)
		}
		if _, built := r.paths[cid]; built && child.isDir() {
			continue
		}
		if err := r.build(cid, filepath.Join(p, name)); err != nil {
			return err
		}
		kept.entries[name] = cid
	}
	return nil
}

func (r *restorer) file(id uint64, in *inode, p string) error {
	dst, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, os.FileMode(in.mode&0o777))
	if err != nil {
		return err
	}
	if in.hasData {
		src, err := os.Open(r.f.dataPath(id))
		if err != nil {
			dst.Close()
			return err
		}
		_, err = io.Copy(dst, src)
		src.Close()
		if err != nil {
			dst.Close()
			return err
		}
	}
	if err := dst.Close(); err != nil {
		return err
	}
	if err := os.Chmod(p, os.FileMode(in.mode&0o777)); err != nil {
		return err
	}
	if in.hasData {
		ts := []unix.Timespec{in.mtime, in.mtime}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
	}
	return nil
}
