package object

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
)

// The recovery tests cut each sequence of moves in versions.go short by
// doing its storage step by hand and not its index step, as a crash
// between the two leaves the key, and check that the next read brings
// the files back to what the index says.

// TestVersionsRecoverDemoteNotCommitted: a delete marker's Demote moved
// the current file into the versions area and the index never recorded
// the marker. A read moves the file back, same inode, and the version is
// current again.
func TestVersionsRecoverDemoteNotCommitted(t *testing.T) {
	for _, k := range versionKeys {
		for _, read := range []string{"GET", "HEAD"} {
			t.Run(k.name+" "+read, func(t *testing.T) {
				l, root, _ := openVersioned(t, metadata.VersioningEnabled)
				if k.setup != nil {
					k.setup(t, l)
				}
				v1 := put(t, l, k.key, "v1")
				v2 := put(t, l, k.key, "v2 bytes")
				if err := l.fs.Demote("bkt", k.key, toStorage(v2.Location), v2.VersionID, false); err != nil {
					t.Fatal(err)
				}
				var got Object
				var err error
				if read == "GET" {
					var r *Reader
					if r, err = l.OpenObject("bkt", k.key); err == nil {
						got = r.Object
						b, _ := io.ReadAll(r.File)
						r.Close()
						if string(b) != "v2 bytes" {
							t.Fatalf("recovered bytes %q", b)
						}
					}
				} else {
					got, err = l.StatObject("bkt", k.key)
				}
				if err != nil || got.VersionID != v2.VersionID {
					t.Fatalf("%s after a Demote the index did not record: %+v %v, want version %s", read, got, err, v2.VersionID)
				}
				fi, ok := l.fs.Identify("bkt", k.key, toStorage(v2.Location))
				if !ok || fi.Inode != v2.FileInode {
					t.Fatalf("the demoted file is not back at the key's path with its inode: %+v %v", fi, ok)
				}
				absent(t, versionFilePath(t, root, k.key, v2.VersionID), "a demotion undone")
				if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{v2.VersionID, v1.VersionID}; !slices.Equal(got, want) {
					t.Fatalf("versions: %v, want %v", got, want)
				}
			})
		}
	}
}

// TestVersionsRecoverPublishNotCommitted: a versioned write linked the
// current file into the versions area and renamed its own over the key's
// path, and the index never recorded it. A read keeps the old version as
// noncurrent, readable by id, and adopts the new file as a new current
// version.
func TestVersionsRecoverPublishNotCommitted(t *testing.T) {
	for _, k := range versionKeys {
		for _, prior := range []string{"a version with an id", "the null version"} {
			t.Run(k.name+" over "+prior, func(t *testing.T) {
				status := metadata.VersioningEnabled
				if prior == "the null version" {
					status = ""
				}
				l, _, _ := openVersioned(t, status)
				if k.setup != nil {
					k.setup(t, l)
				}
				v1 := put(t, l, k.key, "old version")
				if status == "" {
					setVersioning(t, l, metadata.VersioningEnabled)
				}
				up, err := l.fs.NewUpload()
				if err != nil {
					t.Fatal(err)
				}
				defer up.Abort()
				if _, err := io.WriteString(up, "the uncommitted write"); err != nil {
					t.Fatal(err)
				}
				if err := up.Sync(); err != nil {
					t.Fatal(err)
				}
				if _, _, err := up.Publish("bkt", k.key, storage.Prior{Location: toStorage(v1.Location), Exists: true, Demote: true, Version: versionName(&v1)}); err != nil {
					t.Fatal(err)
				}
				if err := up.Keep(); err != nil {
					t.Fatal(err)
				}
				cur, body := read(t, l, k.key)
				if body != "the uncommitted write" || cur.VersionID == v1.VersionID || cur.VersionID == "" {
					t.Fatalf("read after an uncommitted publish: %q version %q", body, cur.VersionID)
				}
				if o, b := readByID(t, l, k.key, shownID(&v1)); b != "old version" || o.ETag != v1.ETag {
					t.Fatalf("the replaced version by id: %q %+v", b, o)
				}
				if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{cur.VersionID, shownID(&v1)}; !slices.Equal(got, want) {
					t.Fatalf("versions: %v, want %v", got, want)
				}
			})
		}
	}
}

// TestVersionsRecoverPromotionNotMoved: a delete by id committed the
// promotion of the previous version in the index and its Restore never
// ran. A read finishes the move: the promoted version's file is back at
// the key's path with its inode.
func TestVersionsRecoverPromotionNotMoved(t *testing.T) {
	for _, k := range versionKeys {
		t.Run(k.name, func(t *testing.T) {
			l, root, _ := openVersioned(t, metadata.VersioningEnabled)
			if k.setup != nil {
				k.setup(t, l)
			}
			v1 := put(t, l, k.key, "v1 bytes")
			v2 := put(t, l, k.key, "v2")
			if err := l.fs.Remove("bkt", k.key, toStorage(v2.Location)); err != nil {
				t.Fatal(err)
			}
			err := l.ix.EditVersions("bkt", k.key, func(v *metadata.Versions) error {
				if err := v.DropCurrent(); err != nil {
					return err
				}
				p, err := promote(v)
				if err == nil && (p == nil || p.VersionID != v1.VersionID) {
					err = fmt.Errorf("promoted %+v, want %s", p, v1.VersionID)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			cur, body := read(t, l, k.key)
			if body != "v1 bytes" || cur.VersionID != v1.VersionID {
				t.Fatalf("read after a promotion not moved: %q version %q", body, cur.VersionID)
			}
			if fi, ok := l.fs.Identify("bkt", k.key, toStorage(cur.Location)); !ok || fi.Inode != v1.FileInode {
				t.Fatalf("the promoted file is not at the key's path with its inode: %+v %v", fi, ok)
			}
			absent(t, versionFilePath(t, root, k.key, v1.VersionID), "a promoted version's old file")
		})
	}
}

// TestVersionsRecoverCurrentFileVanished: the current file of a versioned
// key is removed behind the gateway's back. The newest noncurrent object
// version becomes current; when the newest noncurrent version is a delete
// marker, the key answers NoSuchKey with the marker's headers.
func TestVersionsRecoverCurrentFileVanished(t *testing.T) {
	for _, k := range versionKeys {
		t.Run(k.name, func(t *testing.T) {
			l, _, _ := openVersioned(t, metadata.VersioningEnabled)
			if k.setup != nil {
				k.setup(t, l)
			}
			v1 := put(t, l, k.key, "v1 bytes")
			v2 := put(t, l, k.key, "v2")
			if err := l.fs.Remove("bkt", k.key, toStorage(v2.Location)); err != nil {
				t.Fatal(err)
			}
			if cur, body := read(t, l, k.key); body != "v1 bytes" || cur.VersionID != v1.VersionID {
				t.Fatalf("read after the current file vanished: %q version %q, want v1", body, cur.VersionID)
			}
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{v1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("versions: %v, want %v", got, want)
			}

			m := remove(t, l, k.key, "")
			v3 := put(t, l, k.key, "v3")
			if err := l.fs.Remove("bkt", k.key, toStorage(v3.Location)); err != nil {
				t.Fatal(err)
			}
			_, err := l.StatObject("bkt", k.key)
			e := wantCode(t, err, s3err.NoSuchKey, "HEAD after the current file vanished with a marker behind it")
			if header(e, "x-amz-version-id") != m.VersionID || header(e, "x-amz-delete-marker") != "true" {
				t.Fatalf("headers %v, want the marker %s", e.Headers, m.VersionID)
			}
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{m.VersionID + "(marker)", v1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("versions: %v, want %v", got, want)
			}
		})
	}
}

// TestVersionsRecoverPromotedFileVanished: the current file and the file
// of the version that would be promoted are both removed behind the
// gateway's back. The first read serves the newest version that still
// has its bytes, and a delete by id whose promotion finds the file gone
// is still done.
func TestVersionsRecoverPromotedFileVanished(t *testing.T) {
	for _, k := range versionKeys {
		t.Run(k.name, func(t *testing.T) {
			l, root, _ := openVersioned(t, metadata.VersioningEnabled)
			if k.setup != nil {
				k.setup(t, l)
			}
			v1 := put(t, l, k.key, "v1 bytes")
			v2 := put(t, l, k.key, "v2")
			v3 := put(t, l, k.key, "v3")
			if err := os.Remove(versionFilePath(t, root, k.key, v2.VersionID)); err != nil {
				t.Fatal(err)
			}
			if err := l.fs.Remove("bkt", k.key, toStorage(v3.Location)); err != nil {
				t.Fatal(err)
			}
			if cur, body := read(t, l, k.key); body != "v1 bytes" || cur.VersionID != v1.VersionID {
				t.Fatalf("first read after two files vanished: %q version %q, want v1", body, cur.VersionID)
			}
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{v1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("versions: %v, want %v", got, want)
			}

			v4 := put(t, l, k.key, "v4")
			put(t, l, k.key, "v5")
			if err := os.Remove(versionFilePath(t, root, k.key, v4.VersionID)); err != nil {
				t.Fatal(err)
			}
			cur, _ := read(t, l, k.key)
			if out, err := l.Remove(RemoveInput{Bucket: "bkt", Key: k.key, VersionID: cur.VersionID}); err != nil || out.VersionID != cur.VersionID {
				t.Fatalf("delete by id whose promotion finds its file gone: %+v %v", out, err)
			}
			if cur, body := read(t, l, k.key); body != "v1 bytes" || cur.VersionID != v1.VersionID {
				t.Fatalf("read after it: %q version %q, want v1", body, cur.VersionID)
			}
		})
	}
}

// TestVersionsMarkerOverVanishedFile: a DELETE of a key whose current
// file was removed behind the gateway's back writes the marker and keeps
// no version without bytes: the vanished version is dropped, as a read
// would drop it, and the one before it stays readable behind the marker.
// A PUT over such a key drops the vanished version the same way.
func TestVersionsMarkerOverVanishedFile(t *testing.T) {
	for _, k := range versionKeys {
		t.Run(k.name, func(t *testing.T) {
			l, _, _ := openVersioned(t, metadata.VersioningEnabled)
			if k.setup != nil {
				k.setup(t, l)
			}
			v1 := put(t, l, k.key, "v1 bytes")
			v2 := put(t, l, k.key, "v2")
			if err := l.fs.Remove("bkt", k.key, toStorage(v2.Location)); err != nil {
				t.Fatal(err)
			}
			m := remove(t, l, k.key, "")
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{m.VersionID + "(marker)", v1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("versions: %v, want %v", got, want)
			}
			if _, b := readByID(t, l, k.key, v1.VersionID); b != "v1 bytes" {
				t.Fatalf("v1 behind the marker: %q", b)
			}

			// A PUT over a current file removed behind the gateway's back
			// keeps no version without bytes either.
			remove(t, l, k.key, m.VersionID)
			v3 := put(t, l, k.key, "v3")
			if err := l.fs.Remove("bkt", k.key, toStorage(v3.Location)); err != nil {
				t.Fatal(err)
			}
			v4 := put(t, l, k.key, "v4")
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{v4.VersionID, v1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("versions after a PUT over a vanished file: %v, want %v", got, want)
			}
		})
	}
}

// TestVersionsWriteOverChangedFile: a versioned PUT, or a DELETE that
// writes a marker, over a current file replaced behind the gateway's back
// with bytes of the same size keeps those bytes as the noncurrent
// version, described as a read would have described them: not under the
// ETag of the bytes they replaced.
func TestVersionsWriteOverChangedFile(t *testing.T) {
	for _, over := range []string{"PUT", "DELETE"} {
		t.Run(over, func(t *testing.T) {
			l, root, _ := openVersioned(t, metadata.VersioningEnabled)
			v1 := put(t, l, "k", "AAAA")
			p := filepath.Join(root, "bkt", "k")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("BBBB"), 0o644); err != nil {
				t.Fatal(err)
			}
			stamp := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
			if err := os.Chtimes(p, stamp, stamp); err != nil {
				t.Fatal(err)
			}
			if over == "PUT" {
				put(t, l, "k", "v2")
			} else {
				remove(t, l, "k", "")
			}
			o, b := readByID(t, l, "k", v1.VersionID)
			if b != "BBBB" || o.ETag == v1.ETag || !o.LastModified.Equal(stamp) {
				t.Fatalf("the replaced version: %q ETag %q LastModified %v; the bytes written behind the gateway's back must not carry ETag %q", b, o.ETag, o.LastModified, v1.ETag)
			}
		})
	}
}

// TestVersionsFailedIndexWriteKeepsKey: a versioned write whose index
// commit fails leaves the key exactly as it was: the old version current
// with its file and inode, nothing at its version path, no new version
// listed.
func TestVersionsFailedIndexWriteKeepsKey(t *testing.T) {
	full := &os.PathError{Op: "write", Path: IndexFile, Err: syscall.ENOSPC}
	for _, k := range versionKeys {
		for _, tc := range []struct{ name, before, after string }{
			{"Enabled", metadata.VersioningEnabled, metadata.VersioningEnabled},
			{"Suspended over a version with an id", metadata.VersioningEnabled, metadata.VersioningSuspended},
			{"Suspended over the null version", metadata.VersioningSuspended, metadata.VersioningSuspended},
		} {
			t.Run(k.name+" "+tc.name, func(t *testing.T) {
				l, root, _ := openVersioned(t, metadata.VersioningEnabled)
				if k.setup != nil {
					k.setup(t, l)
				}
				v0 := put(t, l, k.key, "v0")
				setVersioning(t, l, tc.before)
				v1 := put(t, l, k.key, "v1 bytes")
				setVersioning(t, l, tc.after)
				before := shownIDs(versionsOfKey(t, l, k.key))
				l.failStore = func(Object) error { return full }
				_, err := l.PutObject(PutInput{Bucket: "bkt", Key: k.key, Body: strings.NewReader("refused"), Size: 7})
				wantCode(t, err, s3err.InsufficientStorage, "a versioned PUT with the index full")
				id := mpStart(t, l, k.key)
				l.failStore = nil
				p := mpUpload(t, l, k.key, id, 1, []byte("refused parts"))
				l.failStore = func(Object) error { return full }
				_, err = l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: k.key, UploadID: id, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}})
				wantCode(t, err, s3err.InsufficientStorage, "a versioned completion with the index full")
				l.failStore = nil

				cur, body := read(t, l, k.key)
				if body != "v1 bytes" || cur.VersionID != v1.VersionID || cur.FileInode != v1.FileInode {
					t.Fatalf("after the failed writes: %q %+v, want v1", body, cur)
				}
				if fi, ok := l.fs.Identify("bkt", k.key, toStorage(cur.Location)); !ok || fi.Inode != v1.FileInode {
					t.Fatalf("the current file is not v1's inode: %+v %v", fi, ok)
				}
				absent(t, versionFilePath(t, root, k.key, v1.VersionID), "a failed write's demotion")
				if got := shownIDs(versionsOfKey(t, l, k.key)); !slices.Equal(got, before) {
					t.Fatalf("versions after the failed writes: %v, want %v", got, before)
				}
				if _, b := readByID(t, l, k.key, v0.VersionID); b != "v0" {
					t.Fatalf("v0: %q", b)
				}
			})
		}
	}
}

// TestVersionsConcurrentKey runs PUTs, DELETEs, DELETEs by id and GETs of
// one key from several goroutines (under -race), then checks the key's
// invariants. Every GET answers bytes that match the record it returns,
// or NoSuchKey.
func TestVersionsConcurrentKey(t *testing.T) {
	for _, k := range versionKeys {
		for _, status := range []string{metadata.VersioningEnabled, metadata.VersioningSuspended} {
			t.Run(k.name+" "+status, func(t *testing.T) {
				concurrentKey(t, k.key, k.setup, status)
			})
		}
	}
}

// concurrentKey is one run of TestVersionsConcurrentKey on key in a bucket
// of versioning state status that already holds a version with an id.
func concurrentKey(t *testing.T, key string, setup func(*testing.T, *Layer), status string) {
	l, _, _ := openVersioned(t, metadata.VersioningEnabled)
	if setup != nil {
		setup(t, l)
	}
	put(t, l, key, "a version with an id")
	setVersioning(t, l, status)
	const workers, ops = 4, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range ops {
				if err := concurrentOp(l, key, rng, fmt.Sprintf("w%d-%d", w, i)); err != nil {
					t.Errorf("worker %d op %d: %v", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	checkVersionInvariants(t, l, "bkt")
}

// concurrentOp does one random operation on key and checks its answer.
func concurrentOp(l *Layer, key string, rng *rand.Rand, body string) error {
	switch rng.IntN(5) {
	case 0, 1:
		_, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body))})
		return err
	case 2:
		_, err := l.Remove(RemoveInput{Bucket: "bkt", Key: key})
		return err
	case 3:
		page, err := l.ListVersions("bkt", metadata.VersionQuery{Prefix: key, Limit: 1000})
		if err != nil || len(page.Entries) == 0 {
			return err
		}
		e := page.Entries[rng.IntN(len(page.Entries))]
		if e.Key != key {
			return nil
		}
		_, err = l.Remove(RemoveInput{Bucket: "bkt", Key: key, VersionID: shownID(&e.Object)})
		return err
	}
	id := ""
	if rng.IntN(2) == 0 {
		page, err := l.ListVersions("bkt", metadata.VersionQuery{Prefix: key, Limit: 1000})
		if err != nil {
			return err
		}
		if n := len(page.Entries); n > 0 && page.Entries[0].Key == key {
			id = shownID(&page.Entries[rng.IntN(n)].Object)
		}
	}
	r, err := l.OpenVersion("bkt", key, id)
	switch code(err) {
	case -1:
	case s3err.NoSuchKey, s3err.NoSuchVersion, s3err.MethodNotAllowed:
		return nil
	default:
		return fmt.Errorf("GET %q version %q: %w", key, id, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r.File)
	if err != nil {
		return err
	}
	if int64(len(b)) != r.Size || (id != "" && r.VersionID != id && shownID(&r.Object) != id) {
		return fmt.Errorf("GET %q version %q: %d bytes of version %q, record %d bytes", key, id, len(b), shownID(&r.Object), r.Size)
	}
	return nil
}
