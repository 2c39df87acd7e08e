package object

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/pgtest"
)

// Found by the second review of the record cache (record_cache.go).

// mountExt4 mounts a new ext4 filesystem made with mkfs.ext4 args on a
// new directory, and unmounts it at cleanup. It skips the test when the
// process may not.
func mountExt4(t *testing.T, args ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a loop device needs root")
	}
	img := filepath.Join(t.TempDir(), "fs.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	mk := append([]string{"-q", "-F"}, args...)
	if out, err := exec.Command("mkfs.ext4", append(mk, img)...).CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext4: %v: %s", err, out)
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-o", "loop", img, dir).CombinedOutput(); err != nil {
		t.Skipf("mount -o loop: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
			_ = exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

func ctimeOf(t *testing.T, p string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ctim.Nano()
}

// The ctime that an entry keeps since the first review (a file whose
// stamp and inode come back with cp -a or a hard link) only tells a
// change when the filesystem's ctime has the resolution to tell it. ext4
// with 128-byte inodes (what mke2fs makes for filesystems under 512 MiB,
// and ext3 upgraded in place) keeps whole seconds, as do sshfs and NFS
// exports of such filesystems; kernels before 6.13 give every filesystem
// coarse (jiffy) timestamps. Within one tick of the file's last change
// (its stamp: the ctime an entry keeps is the file's, not the fill's), a
// tagging and a copy brought back over the file leave ctime, stamp,
// inode, size and mtime as the entry has them, and the gateway serves the
// superseded record, indefinitely.
//
// So no entry is made for a file whose ctime is younger than two ticks
// of the filesystem's timestamps (git's "racily clean" rule; the tick
// probed by storage.FS.Stamps from whether ctimes carry nanoseconds).
func TestReview2CoarseCtimeLetsOldStampBack(t *testing.T) {
	root := mountExt4(t, "-I", "128")
	gws := gatewaysOn(t, root, pgtest.DSN(t), 2)
	w, r := gws[0], gws[1]
	if r.recs == nil {
		t.Skip("no record cache on this filesystem")
	}
	if r.recs.tick != time.Second {
		t.Fatalf("timestamp granularity %v found on a whole-second filesystem", r.recs.tick)
	}
	if err := w.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "backup")
	for attempt := range 5 {
		key := "k" + string(rune('a'+attempt))
		path := filepath.Join(root, "bkt", key)
		// Start just after a second begins, so that the sequence, which
		// takes some tens of milliseconds, stays within it.
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 5*time.Millisecond)))
		if _, err := w.PutObject(PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader("same bytes"), Size: 10, Tags: tagged("1")}); err != nil {
			t.Fatal(err)
		}
		// A whole-second filesystem: no entry is made for a file whose
		// ctime is less than two seconds old, so these reads fill none.
		readHit(t, r, key)
		readHit(t, r, key)
		stamped := ctimeOf(t, path)
		reviewRun(t, "cp", "-a", path, backup)
		if err := w.PutObjectTagging("bkt", key, tagged("2"), Conditions{}); err != nil {
			t.Fatal(err)
		}
		reviewRun(t, "cp", "-a", backup, path)
		if ctimeOf(t, path) != stamped {
			continue // the second ended meanwhile: try again
		}
		o, _, hit := readHit(t, r, key)
		if tagValue(o, "n") != "2" {
			t.Fatalf("read after the tagging was acknowledged: tags %v (from the cache: %v), want n=2; the file's ctime has whole seconds and did not move", o.Tags, hit)
		}
		return
	}
	t.Skip("every attempt crossed a second boundary")
}

// fsck without Repair changes nothing, and may run from any host that
// mounts the root: on a catalogue no gateway has served yet it must not
// record the choice of stamping (from a host whose mount keeps no user
// extended attributes it would record "off" for every gateway to come).
// Offline tools follow the gateways' choice and never make it.
func TestReview2FsckWithoutRepairSettlesStamps(t *testing.T) {
	root, dsn := t.TempDir(), pgtest.DSN(t)
	f, err := OpenExclusive(Options{Root: root, Index: dsn})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fsck(FsckOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	ix, err := metadata.OpenPostgres(context.Background(), dsn, metadata.PGOptions{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	// A gateway without stamps, starting first after the check: it is
	// refused if the check decided.
	if _, err := ix.AgreeStamps(false); errors.Is(err, metadata.ErrStampsRequired) {
		t.Errorf("fsck without repair wrote the catalogue's stamps decision: %v", err)
	}
}

// `objectgateway index export` copies into a new database; one a gateway
// was started on first holds the format version and that gateway's
// choice of stamping, which the copy accepts (and does not copy).
func TestReview2ExportAfterGatewayOpenedDestination(t *testing.T) {
	dsn := pgtest.DSN(t)
	l := gatewaysOn(t, t.TempDir(), dsn, 1)[0]
	if !l.ix.Stamping() {
		t.Skip("no stamps on this filesystem")
	}
	l.Close()

	src, err := metadata.Open(filepath.Join(t.TempDir(), "index.db"), metadata.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := src.CreateBucket(metadata.Bucket{Name: "bkt", Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	dst, err := metadata.OpenPostgres(context.Background(), dsn, metadata.PGOptions{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := metadata.Copy(dst, src, metadata.CopyOptions{}); err != nil {
		if errors.Is(err, metadata.ErrCopyNotEmpty) {
			t.Fatalf("export into a database a gateway only opened: %v", err)
		}
		t.Fatal(err)
	}
}
