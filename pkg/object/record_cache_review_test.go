package object

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/storage"
)

// Found by review of the record cache: sequences after which a gateway
// could answer from its cache what the catalogue no longer says (a file
// whose stamp and inode come back), and a write that failed once files
// were stamped (an append-only file).

// reviewGateways is cachingGateways with the root's path.
func reviewGateways(t *testing.T, status string) (w, r *Layer, root string) {
	t.Helper()
	gws, root := openGatewaysOnR(t, 2)
	if gws[1].recs == nil {
		t.Skip("the test root's filesystem keeps no user extended attributes: no record cache")
	}
	gws[1].recs.tick = 0 // as in cachingGateways
	if err := gws[0].CreateBucket(Bucket{Name: "bkt", Versioning: status}); err != nil {
		t.Fatal(err)
	}
	return gws[0], gws[1], root
}

func tagged(n string) []metadata.KV { return []metadata.KV{{Key: "n", Value: n}} }

// cacheIt reads key through r until its record cache answers.
func cacheIt(t *testing.T, r *Layer, key string) {
	t.Helper()
	readHit(t, r, key)
	if _, _, hit := readHit(t, r, key); !hit {
		t.Fatal("precondition: the record was not cached")
	}
}

func reviewRun(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, out)
	}
}

// A stamp is data that copies carry. An object file backed up with cp -a
// (or rsync -X --inplace) and copied back over itself keeps its inode
// and gets back its old mtime and its old stamp. The bytes are the same,
// so for the catalogue nothing happened (its record still matches the
// file, as the writer's own read shows); but the record changed meanwhile
// (tags here; an ACL, a retention or a legal hold the same way), and the
// gateway that cached the old record serves it again, indefinitely.
func TestReviewRecordCacheCopyRestoresOldStamp(t *testing.T) {
	w, r, root := reviewGateways(t, "")
	if _, err := w.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("same bytes"), Size: 10, Tags: tagged("1")}); err != nil {
		t.Fatal(err)
	}
	cacheIt(t, r, "k")
	path := filepath.Join(root, "bkt", "k")
	backup := filepath.Join(t.TempDir(), "k")
	reviewRun(t, "cp", "-a", path, backup)

	if err := w.PutObjectTagging("bkt", "k", tagged("2"), Conditions{}); err != nil {
		t.Fatal(err)
	}
	ino := inodeOf(t, path)
	reviewRun(t, "cp", "-a", backup, path) // in place: same inode, old mtime, old stamp
	if inodeOf(t, path) != ino {
		t.Fatal("precondition: cp -a replaced the inode")
	}

	o, _, hit := readHit(t, r, "k")
	if tagValue(o, "n") != "2" {
		t.Errorf("read after the tagging was acknowledged: tags %v (from the cache: %v), want n=2", o.Tags, hit)
	}
	// The catalogue's record still describes the file: a gateway without
	// the entry serves it, with no refresh.
	if o, _ := sharedRead(t, w, "k"); tagValue(o, "n") != "2" {
		t.Errorf("the writer reads tags %v", o.Tags)
	}
}

// A hard link keeps an inode, with its stamp, after the key's path moved
// on (a snapshot made with cp -al or rsync --link-dest, or the link the
// gateway itself keeps in the versions area when it demotes a version).
// Linked or moved back, the old file is confirmed by the old stamp, size,
// mtime and inode, and the caching gateway serves the record of an object
// that was overwritten: its ETag, version id, tags, ACL and SSE
// parameters. The catalogue's record names another file, so any other
// gateway refreshes it (keeping the new object's metadata) or recovers
// the versioned key.
func TestReviewRecordCacheHardLinkBringsBackOldStamp(t *testing.T) {
	t.Run("snapshot link", func(t *testing.T) {
		w, r, root := reviewGateways(t, "")
		if _, err := w.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("body one"), Size: 8, Tags: tagged("1")}); err != nil {
			t.Fatal(err)
		}
		cacheIt(t, r, "k")
		path := filepath.Join(root, "bkt", "k")
		snap := filepath.Join(t.TempDir(), "k")
		if err := os.Link(path, snap); err != nil {
			t.Skip(err)
		}
		if _, err := w.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("body two"), Size: 8, Tags: tagged("2")}); err != nil {
			t.Fatal(err)
		}
		reviewRun(t, "ln", "-f", snap, path)

		o, _, hit := readHit(t, r, "k")
		if hit || tagValue(o, "n") != "2" {
			t.Errorf("read after the overwrite was acknowledged: tags %v, ETag %s, from the cache: %v; the catalogue's record has n=2 and names another inode", o.Tags, o.ETag, hit)
		}
	})
	t.Run("version file moved back", func(t *testing.T) {
		w, r, root := reviewGateways(t, metadata.VersioningEnabled)
		v1, err := sharedPut(w, "k", "version one", Conditions{})
		if err != nil {
			t.Fatal(err)
		}
		cacheIt(t, r, "k")
		v2, err := sharedPut(w, "k", "version two", Conditions{})
		if err != nil {
			t.Fatal(err)
		}
		vp, err := storage.VersionPath("bkt", "k", v1.VersionID)
		if err != nil {
			t.Fatal(err)
		}
		// The file the gateway linked into the versions area still
		// carries v1's stamp.
		if err := os.Rename(filepath.Join(root, vp), filepath.Join(root, "bkt", "k")); err != nil {
			t.Fatal(err)
		}
		o, _, hit := readHit(t, r, "k")
		if hit || o.VersionID != v2.VersionID {
			t.Errorf("current version %s (from the cache: %v); the catalogue's current version is %s", o.VersionID, hit, v2.VersionID)
		}
	})
}

// An append-only file (chattr +a: a log an application keeps appending
// to, served through the gateway) refuses attribute changes with EPERM,
// as an immutable one does: stampFile lifts the flag for the stamp, so
// tagging it, and the refresh a GET makes of a file that grew, work as
// they do without stamps.
func TestReviewStampAppendOnlyFile(t *testing.T) {
	w, r, root := reviewGateways(t, "")
	if _, err := sharedPut(w, "log", "line 1\n", Conditions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "bkt", "log")
	if err := setFlag(path, fsAppendOnly, true); err != nil {
		t.Skipf("chattr +a: %v", err)
	}
	t.Cleanup(func() { _ = setFlag(path, fsAppendOnly, false) })

	if err := w.PutObjectTagging("bkt", "log", tagged("1"), Conditions{}); err != nil {
		t.Errorf("tagging an append-only object: %v", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("line 2\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rd, err := r.OpenObject("bkt", "log")
	if err != nil {
		t.Fatalf("GET of an append-only object that grew: %v", err)
	}
	rd.Close()
	if rd.Size != 14 {
		t.Errorf("size %d after the append, want 14", rd.Size)
	}
}
