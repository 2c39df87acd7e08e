package kms

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"syscall"
	"time"
)

// DefaultKey is the key that seals SSE-S3 data keys and derives SSE-C
// key-encryption keys. It is created with the ring.
const DefaultKey = "objectgateway-default"

var (
	// ErrNotFound is returned when a key name or version is not in the ring.
	ErrNotFound = errors.New("kms: no such key")
	// ErrDisabled is returned when a disabled key is asked to seal or unseal.
	ErrDisabled = errors.New("kms: key is disabled")
	// ErrExists is returned by Create when the name is taken.
	ErrExists = errors.New("kms: key exists")
	// ErrUnseal is returned when a sealed key does not open under the
	// named key and context: it was sealed by another key or altered.
	ErrUnseal = errors.New("kms: sealed key does not authenticate")
	// ErrName is returned by Create for a name outside [A-Za-z0-9/_-].
	ErrName = errors.New("kms: invalid key name")
)

var validName = regexp.MustCompile(`^[A-Za-z0-9/_-]{1,256}$`)

// ringFile is the file's JSON form.
type ringFile struct {
	Keys map[string]*keyEntry `json:"keys"`
}

type keyEntry struct {
	Disabled bool `json:"disabled,omitempty"`
	// Versions are the key's versions, oldest first; version n is
	// Versions[n-1].
	Versions []keyVersion `json:"versions"`
}

type keyVersion struct {
	Key     []byte    `json:"key"`
	Created time.Time `json:"created"`
}

// KeyInfo describes a key without its material (List).
type KeyInfo struct {
	Name     string
	Versions int
	Disabled bool
	Created  time.Time
}

// Ring is an open key ring. It is safe for concurrent use.
type Ring struct {
	path string
	mu   sync.Mutex
	ring ringFile
	// stamp identifies the file as last read: every save renames a new
	// file into place, so its inode changes even when its size and mtime
	// (at the clock's granularity) do not.
	stamp fileStamp
	// checked is when the file was last compared with stamp (Unseal).
	checked time.Time
}

// unsealRecheck is how long Unseal trusts the ring as last read before it
// looks at the file again: reads are the hot path, and a stat per read
// would cost more than the unseal. Seal, Create and the other edits
// always look, so new writes see a rotation or a disabled key at once;
// reads under a key disabled meanwhile stop within this time.
const unsealRecheck = time.Second

// freshness says whether material may use the ring as last read.
type freshness int

const (
	mustRefresh freshness = iota
	recentOK
)

// OpenExisting opens the ring at path; a missing file is fs.ErrNotExist,
// never a new ring, for a reader that must not replace lost keys with
// fresh ones.
func OpenExisting(path string) (*Ring, error) {
	r := &Ring{path: path}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

// Open opens the ring at path, creating it (0600, with DefaultKey) when
// it does not exist.
func Open(path string) (*Ring, error) {
	r := &Ring{path: path}
	err := r.load()
	if errors.Is(err, fs.ErrNotExist) {
		r.ring = ringFile{Keys: map[string]*keyEntry{}}
		r.ring.Keys[DefaultKey] = &keyEntry{Versions: []keyVersion{newVersion()}}
		err = r.write(createOnly)
		if !errors.Is(err, fs.ErrExist) {
			if err != nil {
				return nil, err
			}
			return r, nil
		}
		// Another gateway on the same root made the ring first: its
		// keys are the ones, and this one's new key was never used.
		err = r.load()
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

func newVersion() keyVersion {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return keyVersion{Key: k, Created: time.Now().UTC()}
}

// load reads the file; the caller holds mu or owns r.
//
// The stamp is the read file's own (fstat of the descriptor read), not
// the path's after the read: a ring replaced in between (another gateway
// rotating a key) must look changed at the next refresh, not read.
func (r *Ring) load() error {
	file, err := os.Open(r.path)
	if err != nil {
		return err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return err
	}
	var f ringFile
	if err := json.Unmarshal(data, &f); err != nil || f.Keys == nil {
		return fmt.Errorf("kms: %s is damaged", r.path)
	}
	for name, e := range f.Keys {
		if e == nil || len(e.Versions) == 0 {
			return fmt.Errorf("kms: %s is damaged: key %q has no versions", r.path, name)
		}
		for _, v := range e.Versions {
			if len(v.Key) != 32 {
				return fmt.Errorf("kms: %s is damaged: key %q has a version that is not 256 bits", r.path, name)
			}
		}
	}
	r.ring, r.stamp = f, stampOf(fi)
	return nil
}

// refresh re-reads the file when it changed since it was read; the caller
// holds mu.
func (r *Ring) refresh(f freshness) error {
	now := time.Now()
	if f == recentOK && now.Sub(r.checked) < unsealRecheck {
		return nil
	}
	r.checked = now
	fi, err := os.Stat(r.path)
	if err != nil {
		return err
	}
	if stampOf(fi) == r.stamp {
		return nil
	}
	return r.load()
}

// save writes the ring to a temporary file, syncs it and renames it into
// place, so a crash leaves the old ring or the new one; the caller holds
// mu or owns r.
func (r *Ring) save() error { return r.write(replace) }

// How write puts the file in place: replacing the ring, or only where
// there is none.
type writeMode int

const (
	replace writeMode = iota
	// createOnly links the new file to the ring's name, which fails with
	// fs.ErrExist when a ring is there: of gateways starting together on
	// one root (docs/scale-out.md), one makes the ring and the others
	// read it, where a rename would let the last one replace the keys
	// the first may already have sealed data keys with.
	createOnly
)

func (r *Ring) write(mode writeMode) error {
	data, err := json.MarshalIndent(r.ring, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(r.path)
	tmp, err := os.CreateTemp(dir, ".kms-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if mode == createOnly {
		if err := os.Link(tmp.Name(), r.path); err != nil {
			return err
		}
	} else if err := os.Rename(tmp.Name(), r.path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	fi, err := os.Stat(r.path)
	if err != nil {
		return err
	}
	r.stamp = stampOf(fi)
	return nil
}

type fileStamp struct {
	size, mtime int64
	inode       uint64
}

func stampOf(fi os.FileInfo) fileStamp {
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.inode = st.Ino
	}
	return s
}

// edit applies fn to the freshly read ring and saves it. The read and the
// save are under an flock of the ring's lock file (the ring's name and
// ".lock"), so that edits made at once by gateways sharing the root, or
// by the kms command beside them, each see the others' and none is lost.
func (r *Ring) edit(fn func(*ringFile) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	lock, err := os.OpenFile(r.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	if err := r.load(); err != nil {
		return err
	}
	if err := fn(&r.ring); err != nil {
		return err
	}
	return r.save()
}

// Create adds a key with one version.
func (r *Ring) Create(name string) error {
	if !validName.MatchString(name) {
		return ErrName
	}
	return r.edit(func(f *ringFile) error {
		if _, ok := f.Keys[name]; ok {
			return ErrExists
		}
		f.Keys[name] = &keyEntry{Versions: []keyVersion{newVersion()}}
		return nil
	})
}

// Rotate adds a version to a key and returns its number. Data keys sealed
// by earlier versions stay unsealable.
func (r *Ring) Rotate(name string) (uint64, error) {
	var n uint64
	err := r.edit(func(f *ringFile) error {
		e, ok := f.Keys[name]
		if !ok {
			return ErrNotFound
		}
		e.Versions = append(e.Versions, newVersion())
		n = uint64(len(e.Versions))
		return nil
	})
	return n, err
}

// SetDisabled disables or enables a key.
func (r *Ring) SetDisabled(name string, disabled bool) error {
	return r.edit(func(f *ringFile) error {
		e, ok := f.Keys[name]
		if !ok {
			return ErrNotFound
		}
		e.Disabled = disabled
		return nil
	})
}

// List returns the ring's keys, sorted by name, without their material.
func (r *Ring) List() ([]KeyInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.refresh(mustRefresh); err != nil {
		return nil, err
	}
	var out []KeyInfo
	for name, e := range r.ring.Keys {
		out = append(out, KeyInfo{Name: name, Versions: len(e.Versions), Disabled: e.Disabled, Created: e.Versions[0].Created})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Exists reports whether name is an enabled key of the ring.
func (r *Ring) Exists(name string) error {
	_, _, err := r.material(name, 0, mustRefresh)
	return err
}

// material returns a copy of a key version's material (version 0: the
// newest) and the version's number.
func (r *Ring) material(name string, version uint64, f freshness) ([]byte, uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.refresh(f); err != nil {
		return nil, 0, err
	}
	e, ok := r.ring.Keys[name]
	if !ok {
		return nil, 0, ErrNotFound
	}
	if e.Disabled {
		return nil, 0, ErrDisabled
	}
	if version == 0 {
		version = uint64(len(e.Versions))
	}
	if version > uint64(len(e.Versions)) {
		return nil, 0, ErrNotFound
	}
	return append([]byte(nil), e.Versions[version-1].Key...), version, nil
}

func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}

// Seal encrypts plaintext (a data key) under the newest version of the
// key name with AES-256-GCM, binding context (associated data), and
// returns the version used and nonce||ciphertext.
func (r *Ring) Seal(name string, plaintext, context []byte) (uint64, []byte, error) {
	k, v, err := r.material(name, 0, mustRefresh)
	if err != nil {
		return 0, nil, err
	}
	defer wipe(k)
	sealed, err := seal(k, plaintext, bind(name, v, context))
	return v, sealed, err
}

// Unseal opens what Seal returned for the same name, version and context.
func (r *Ring) Unseal(name string, version uint64, sealed, context []byte) ([]byte, error) {
	if version == 0 {
		return nil, ErrNotFound
	}
	k, _, err := r.material(name, version, recentOK)
	if errors.Is(err, ErrNotFound) {
		// A version or key made since the ring was last read.
		k, _, err = r.material(name, version, mustRefresh)
	}
	if err != nil {
		return nil, err
	}
	defer wipe(k)
	return open(k, sealed, bind(name, version, context))
}

// Derive returns HMAC-SHA256 of data under a key version (version 0: the
// newest) and the version used. SSE-C derives its key-encryption key this
// way, so a stolen index without the ring cannot test guesses of a
// customer key.
func (r *Ring) Derive(name string, version uint64, data []byte) ([]byte, uint64, error) {
	f := mustRefresh
	if version != 0 {
		f = recentOK // an SSE-C read: an existing version
	}
	k, v, err := r.material(name, version, f)
	if err != nil {
		return nil, 0, err
	}
	defer wipe(k)
	m := hmac.New(sha256.New, k)
	m.Write([]byte("objectgateway kms derive\x00"))
	m.Write(data)
	return m.Sum(nil), v, nil
}

// bind is the associated data of a seal: the key's name and version and
// the caller's context, length-prefixed so that no two differ only in
// where one ends.
func bind(name string, version uint64, context []byte) []byte {
	return fmt.Appendf(nil, "%d:%s:%d:%d:%s", len(name), name, version, len(context), context)
}

// seal is AES-256-GCM of plaintext under key with a random nonce; it
// returns nonce||ciphertext.
func seal(key, plaintext, ad []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(plaintext)+g.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return g.Seal(nonce, nonce, plaintext, ad), nil
}

func open(key, sealed, ad []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if len(sealed) < g.NonceSize()+g.Overhead() {
		return nil, ErrUnseal
	}
	p, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], ad)
	if err != nil {
		return nil, ErrUnseal
	}
	return p, nil
}

// SealWith and OpenWith seal and open under a caller's 256-bit key (SSE-C's
// derived key-encryption key) the way the ring seals under its own.
func SealWith(key, plaintext, ad []byte) ([]byte, error) { return seal(key, plaintext, ad) }

// OpenWith opens what SealWith returned; ErrUnseal when key or ad differ.
func OpenWith(key, sealed, ad []byte) ([]byte, error) { return open(key, sealed, ad) }
