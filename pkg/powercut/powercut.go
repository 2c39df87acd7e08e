package powercut

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// ErrUnavailable is returned (wrapped) by Mount when this machine cannot
// mount a FUSE filesystem: /dev/fuse is missing or mounting is not
// permitted. Tests skip on it.
var ErrUnavailable = errors.New("powercut: FUSE is not available")

// ErrBusy is returned (wrapped) by Cut and Close when the mount cannot be
// unmounted because a process still has a file or directory on it open.
// Kill the process and wait for it first.
var ErrBusy = errors.New("powercut: mount is busy")

// Options configure Mount.
type Options struct {
	// Dir is the work directory, which FS owns: the mount point is
	// Dir/mnt, the backing tree Dir/tree and the durable data copies
	// Dir/durable. Whatever Dir/tree holds at Mount is taken as durable.
	Dir string

	// Debug logs every FUSE request.
	Debug bool
}

// FS is a mounted power-cut filesystem. Its methods are safe for
// concurrent use, but Cut and Close must not race each other.
type FS struct {
	opts    Options
	mnt     string
	tree    string
	durable string

	// mu guards the model (ids and inodes) and serialises the namespace
	// changes that can end an inode's life, so an inode number the backing
	// filesystem reuses never inherits the identity of a dead inode.
	mu     sync.Mutex
	ids    map[uint64]uint64 // backing inode number → model id
	nextID uint64
	inodes map[uint64]*inode // model id → durable state

	faults faults

	server *fuse.Server
}

// rootID is the model id of the root directory, FUSE's root node id.
const rootID = 1

// Mount mounts a power-cut filesystem over opts.Dir and returns when the
// mount is ready.
func Mount(opts Options) (*FS, error) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	f := &FS{
		opts:    opts,
		mnt:     filepath.Join(opts.Dir, "mnt"),
		tree:    filepath.Join(opts.Dir, "tree"),
		durable: filepath.Join(opts.Dir, "durable"),
		ids:     map[uint64]uint64{},
		nextID:  rootID + 1,
		inodes:  map[uint64]*inode{rootID: {mode: syscall.S_IFDIR | 0o755, entries: map[string]uint64{}}},
		faults:  newFaults(),
	}
	for _, d := range []string{f.mnt, f.tree, f.durable} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(f.tree, &st); err != nil {
		return nil, err
	}
	f.ids[st.Ino] = rootID
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := f.mount(); err != nil {
		return nil, err
	}
	return f, nil
}

// Path is the mount point.
func (f *FS) Path() string { return f.mnt }

func (f *FS) mount() error {
	root := &node{pc: f}
	root.RootData = &fs.LoopbackRoot{Path: f.tree, RootNode: root, NewNode: f.newNode}
	var st syscall.Stat_t
	if err := syscall.Stat(f.tree, &st); err != nil {
		return err
	}
	root.RootData.Dev = uint64(st.Dev)
	server, err := fs.Mount(f.mnt, root, &fs.Options{
		RootStableAttr: &fs.StableAttr{Ino: rootID, Gen: 1},
		MountOptions: fuse.MountOptions{
			// go-fuse calls mount(2) itself, so no fusermount is needed
			// when running as root.
			DirectMountStrict: true,
			FsName:            "powercut",
			Name:              "powercut",
			Debug:             f.opts.Debug,
		},
	})
	if err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENODEV) {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return fmt.Errorf("powercut: mount %s: %w", f.mnt, err)
	}
	f.server = server
	return nil
}

func (f *FS) unmount() error {
	if f.server == nil {
		return nil
	}
	if err := f.server.Unmount(); err != nil {
		if errors.Is(err, syscall.EBUSY) {
			return fmt.Errorf("%w: %v", ErrBusy, err)
		}
		return fmt.Errorf("powercut: unmount %s: %w", f.mnt, err)
	}
	f.server = nil
	return nil
}

// Close unmounts the filesystem. The work directory is left as it is.
func (f *FS) Close() error { return f.unmount() }

// Cut simulates a power cut: it unmounts (ErrBusy if a process still has
// something on the mount open), replaces the backing tree by the durable
// state and mounts again. Dropped are every name created, linked or
// renamed into a directory and every removal from a directory since that
// directory's last fsync, and the data written to a file since its last
// fsync (a file never synced is empty). Afterwards the whole tree is
// durable. Fault rules and call counters carry over.
func (f *FS) Cut() error {
	if err := f.unmount(); err != nil {
		return err
	}
	if err := f.restore(); err != nil {
		return err
	}
	return f.mount()
}

// Sync makes the whole current tree durable, as syncfs(2) would on a real
// filesystem. Use it after setting up a test's starting state.
func (f *FS) Sync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.syncTree()
}
