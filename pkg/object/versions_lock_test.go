package object

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"golang.org/x/sys/unix"
)

// newLockLayer is openVersioned with Object Lock on bkt and the
// default retention d (zero for none).
func newLockLayer(t *testing.T, d objectlock.Default) (*Layer, string, *mpClock) {
	t.Helper()
	l, root, clock := openVersioned(t, metadata.VersioningEnabled)
	st, err := l.BucketState("bkt")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetObjectLock("bkt", st.ID, d); err != nil {
		t.Fatalf("SetObjectLock: %v", err)
	}
	t.Cleanup(func() { clearImmutable(t, root) })
	return l, root, clock
}

// putWithLock writes body under key with the Object Lock state lock.
func putWithLock(t *testing.T, l *Layer, key, body string, lock Lock) Object {
	t.Helper()
	o, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body)), Lock: lock})
	if err != nil {
		t.Fatalf("put %q with %+v: %v", key, lock, err)
	}
	return o
}

// TestVersionsLockHeadersNeedObjectLock: a write that sets a retention or
// a legal hold, and PutObjectRetention and PutObjectLegalHold, are
// InvalidRequest on a bucket without Object Lock, versioned or not.
func TestVersionsLockHeadersNeedObjectLock(t *testing.T) {
	for _, status := range []string{"", metadata.VersioningEnabled} {
		t.Run("versioning "+status, func(t *testing.T) {
			l, _, clock := openVersioned(t, status)
			put(t, l, "src", "body")
			locks := []Lock{
				{Retention: objectlock.Retention{Mode: objectlock.Governance, Until: clock.now().Add(time.Hour)}},
				{LegalHold: true},
			}
			for _, lock := range locks {
				_, err := l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("x"), Size: 1, Lock: lock})
				wantCode(t, err, s3err.InvalidRequest, "PutObject with lock headers")
				_, err = l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "k", Lock: lock})
				wantCode(t, err, s3err.InvalidRequest, "CopyObject with lock headers")
				_, err = l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: "k", Lock: lock})
				wantCode(t, err, s3err.InvalidRequest, "CreateMultipartUpload with lock headers")
			}
			_, err := l.PutRetention("bkt", "src", "", locks[0].Retention, false, Conditions{})
			wantCode(t, err, s3err.InvalidRequest, "PutObjectRetention")
			_, err = l.PutLegalHold("bkt", "src", "", true, Conditions{})
			wantCode(t, err, s3err.InvalidRequest, "PutObjectLegalHold")
			if _, err := l.OpenObject("bkt", "k"); code(err) != s3err.NoSuchKey {
				t.Fatalf("a refused write left %q: %v", "k", err)
			}
		})
	}
}

// TestVersionsLockDefaultRetention: a write without lock headers gets the
// bucket's default retention from its creation time, in days or in
// calendar years; a write with its own retention keeps it.
func TestVersionsLockDefaultRetention(t *testing.T) {
	for _, tc := range []struct {
		d     objectlock.Default
		years int
		days  int
	}{
		{objectlock.Default{Mode: objectlock.Governance, Days: 3}, 0, 3},
		{objectlock.Default{Mode: objectlock.Compliance, Years: 1}, 1, 0},
	} {
		t.Run(string(tc.d.Mode), func(t *testing.T) {
			l, _, clock := newLockLayer(t, tc.d)
			want := clock.now().AddDate(tc.years, 0, tc.days)
			o := put(t, l, "k", "body")
			if o.LockMode != string(tc.d.Mode) || !o.LockUntil.Equal(want) {
				t.Fatalf("default retention: %q until %v, want %q until %v", o.LockMode, o.LockUntil, tc.d.Mode, want)
			}
			if got, _ := readByID(t, l, "k", o.VersionID); got.LockMode != o.LockMode || !got.LockUntil.Equal(want) {
				t.Fatalf("stored retention: %q until %v", got.LockMode, got.LockUntil)
			}
			c, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "k", DstBucket: "bkt", DstKey: "copy"})
			if err != nil || c.LockMode != string(tc.d.Mode) || !c.LockUntil.Equal(want) {
				t.Fatalf("copy: %q until %v, %v", c.LockMode, c.LockUntil, err)
			}
			own := objectlock.Retention{Mode: objectlock.Governance, Until: clock.now().Add(time.Hour)}
			o2 := putWithLock(t, l, "k", "own", Lock{Retention: own, LegalHold: true})
			if o2.LockMode != string(own.Mode) || !o2.LockUntil.Equal(own.Until) || !o2.LegalHold {
				t.Fatalf("a write's own lock: %q until %v hold %v", o2.LockMode, o2.LockUntil, o2.LegalHold)
			}
			id := mpStart(t, l, "mp")
			p := mpUpload(t, l, "mp", id, 1, []byte("parts"))
			m, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: "mp", UploadID: id, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}})
			if err != nil || m.LockMode != string(tc.d.Mode) || !m.LockUntil.Equal(want) {
				t.Fatalf("completion: %q until %v, %v", m.LockMode, m.LockUntil, err)
			}
		})
	}
}

// TestVersionsLockRemove: a version under GOVERNANCE retention is removed
// by id only with BypassGovernance; one under COMPLIANCE never, until the
// clock passes its date; a legal hold refuses whatever the bypass. A
// DELETE without id writes a marker over any of them.
func TestVersionsLockRemove(t *testing.T) {
	l, root, clock := newLockLayer(t, objectlock.Default{})
	until := clock.now().Add(time.Hour)
	gov := putWithLock(t, l, "gov", "g", Lock{Retention: objectlock.Retention{Mode: objectlock.Governance, Until: until}})
	comp := putWithLock(t, l, "comp", "c", Lock{Retention: objectlock.Retention{Mode: objectlock.Compliance, Until: until}})
	hold := putWithLock(t, l, "hold", "h", Lock{LegalHold: true})

	removeBy := func(key, id string, bypass bool) error {
		_, err := l.Remove(RemoveInput{Bucket: "bkt", Key: key, VersionID: id, BypassGovernance: bypass})
		return err
	}
	wantCode(t, removeBy("gov", gov.VersionID, false), s3err.AccessDenied, "GOVERNANCE without bypass")
	wantCode(t, removeBy("comp", comp.VersionID, true), s3err.AccessDenied, "COMPLIANCE with bypass")
	wantCode(t, removeBy("hold", hold.VersionID, true), s3err.AccessDenied, "legal hold with bypass")
	for _, k := range []string{"gov", "comp", "hold"} {
		if _, b := read(t, l, k); b == "" {
			t.Fatalf("%s: a refused removal changed the key", k)
		}
	}
	m := remove(t, l, "comp", "")
	if !m.DeleteMarker {
		t.Fatalf("DELETE without id of a locked version: %+v", m)
	}
	if _, b := readByID(t, l, "comp", comp.VersionID); b != "c" {
		t.Fatalf("locked version behind a marker: %q", b)
	}
	wantCode(t, removeBy("comp", comp.VersionID, true), s3err.AccessDenied, "noncurrent COMPLIANCE with bypass")

	if err := removeBy("gov", gov.VersionID, true); err != nil {
		t.Fatalf("GOVERNANCE with bypass: %v", err)
	}
	clock.advance(time.Hour - time.Second)
	wantCode(t, removeBy("comp", comp.VersionID, false), s3err.AccessDenied, "COMPLIANCE a second before its date")
	clock.advance(2 * time.Second)
	if err := removeBy("comp", comp.VersionID, false); err != nil {
		t.Fatalf("COMPLIANCE after its date: %v", err)
	}
	absent(t, versionFilePath(t, root, "comp", comp.VersionID), "an expired COMPLIANCE version removed")
	wantCode(t, removeBy("hold", hold.VersionID, false), s3err.AccessDenied, "legal hold, any time")
	if _, err := l.PutLegalHold("bkt", "hold", hold.VersionID, false, Conditions{}); err != nil {
		t.Fatal(err)
	}
	if err := removeBy("hold", hold.VersionID, false); err != nil {
		t.Fatalf("after the legal hold is lifted: %v", err)
	}
}

// TestVersionsPutRetention checks PutObjectRetention's rules on a version
// by id and on the current version: COMPLIANCE is only extended;
// GOVERNANCE is shortened, removed or made COMPLIANCE only with bypass;
// a delete marker answers MethodNotAllowed, a missing version
// NoSuchVersion.
func TestVersionsPutRetention(t *testing.T) {
	l, _, clock := newLockLayer(t, objectlock.Default{})
	now := clock.now()
	ret := func(m objectlock.Mode, d time.Duration) objectlock.Retention {
		return objectlock.Retention{Mode: m, Until: now.Add(d)}
	}
	v1 := put(t, l, "k", "v1")
	put(t, l, "k", "v2")
	if o, err := l.PutRetention("bkt", "k", v1.VersionID, ret(objectlock.Governance, 2*time.Hour), false, Conditions{}); err != nil || o.LockMode != "GOVERNANCE" {
		t.Fatalf("retention on an unlocked noncurrent version: %+v %v", o, err)
	}
	_, err := l.PutRetention("bkt", "k", v1.VersionID, ret(objectlock.Governance, time.Hour), false, Conditions{})
	wantCode(t, err, s3err.AccessDenied, "shortening GOVERNANCE without bypass")
	_, err = l.PutRetention("bkt", "k", v1.VersionID, objectlock.Retention{}, false, Conditions{})
	wantCode(t, err, s3err.AccessDenied, "removing GOVERNANCE without bypass")
	if _, err := l.PutRetention("bkt", "k", v1.VersionID, ret(objectlock.Governance, 3*time.Hour), false, Conditions{}); err != nil {
		t.Fatalf("extending GOVERNANCE: %v", err)
	}
	if _, err := l.PutRetention("bkt", "k", v1.VersionID, ret(objectlock.Compliance, time.Hour), true, Conditions{}); err != nil {
		t.Fatalf("GOVERNANCE to COMPLIANCE with bypass: %v", err)
	}
	_, err = l.PutRetention("bkt", "k", v1.VersionID, ret(objectlock.Compliance, time.Minute), true, Conditions{})
	wantCode(t, err, s3err.AccessDenied, "shortening COMPLIANCE")
	_, err = l.PutRetention("bkt", "k", v1.VersionID, ret(objectlock.Governance, 5*time.Hour), true, Conditions{})
	wantCode(t, err, s3err.AccessDenied, "COMPLIANCE to GOVERNANCE")
	if o, err := l.PutRetention("bkt", "k", v1.VersionID, ret(objectlock.Compliance, 2*time.Hour), false, Conditions{}); err != nil || !o.LockUntil.Equal(now.Add(2*time.Hour)) {
		t.Fatalf("extending COMPLIANCE: %+v %v", o, err)
	}
	if o, _ := readByID(t, l, "k", v1.VersionID); o.LockMode != "COMPLIANCE" || !o.LockUntil.Equal(now.Add(2*time.Hour)) {
		t.Fatalf("stored retention: %q %v", o.LockMode, o.LockUntil)
	}
	if o, err := l.PutRetention("bkt", "k", "", ret(objectlock.Governance, time.Hour), false, Conditions{}); err != nil || o.VersionID == v1.VersionID {
		t.Fatalf("retention of the current version: %+v %v", o, err)
	}
	m := remove(t, l, "k", "")
	_, err = l.PutRetention("bkt", "k", m.VersionID, ret(objectlock.Governance, time.Hour), false, Conditions{})
	wantCode(t, err, s3err.MethodNotAllowed, "retention of a delete marker")
	_, err = l.PutLegalHold("bkt", "k", m.VersionID, true, Conditions{})
	wantCode(t, err, s3err.MethodNotAllowed, "legal hold of a delete marker")
	_, err = l.PutRetention("bkt", "k", "", ret(objectlock.Governance, time.Hour), false, Conditions{})
	wantCode(t, err, s3err.NoSuchKey, "retention of a key behind a marker")
	_, err = l.PutRetention("bkt", "k", metadata.VersionID(1<<40, 1), ret(objectlock.Governance, time.Hour), false, Conditions{})
	wantCode(t, err, s3err.NoSuchVersion, "retention of a version that does not exist")
}

// TestVersionsLockBucketState: a bucket with Object Lock cannot be
// suspended, and Object Lock needs versioning Enabled.
func TestVersionsLockBucketState(t *testing.T) {
	l, _, _ := newLockLayer(t, objectlock.Default{})
	st, _ := l.BucketState("bkt")
	wantCode(t, l.SetVersioning("bkt", st.ID, metadata.VersioningSuspended), s3err.InvalidBucketState, "suspending a lock bucket")
	if st, _ := l.BucketState("bkt"); st.Versioning != metadata.VersioningEnabled || !st.ObjectLock {
		t.Fatalf("lock bucket after a refused suspension: %+v", st)
	}
	for _, status := range []string{"", metadata.VersioningSuspended} {
		name := "plain" + strings.ToLower(status)
		if err := l.CreateBucket(Bucket{Name: name, Versioning: status}); err != nil {
			t.Fatal(err)
		}
		st, _ := l.BucketState(name)
		wantCode(t, l.SetObjectLock(name, st.ID, objectlock.Default{}), s3err.InvalidBucketState, "Object Lock on a bucket with versioning "+status)
		if st, _ := l.BucketState(name); st.ObjectLock {
			t.Fatalf("%s got Object Lock", name)
		}
	}
}

// immutableFL is FS_IMMUTABLE_FL of <linux/fs.h>, which
// golang.org/x/sys/unix does not define.
const immutableFL = 0x00000010

// immutableFlag reports whether the file at p carries FS_IMMUTABLE_FL,
// read back with the FS_IOC_GETFLAGS ioctl.
func immutableFlag(t *testing.T, p string) bool {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatalf("open %s: %v", p, err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		t.Fatalf("FS_IOC_GETFLAGS %s: %v", p, err)
	}
	return flags&immutableFL != 0
}

// clearImmutable takes the immutable flag off every file under root, so
// that the test's temp dir can be removed whatever the test left.
func clearImmutable(t *testing.T, root string) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err == nil && flags&immutableFL != 0 {
			if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags&^immutableFL)); err != nil {
				t.Errorf("clear the immutable flag of %s: %v", p, err)
			}
		}
		return nil
	})
}

// TestVersionsLockImmutableFile: a locked version's file carries the
// immutable flag at the key's path and, once demoted, at its version path,
// so os.Remove of it fails with EPERM; the gateway's own moves (a delete
// marker, its removal, an overwrite) still work on it; once the clock
// passes its retention the version is removed by id and its file is gone.
// It needs CAP_LINUX_IMMUTABLE and a filesystem with the flag.
func TestVersionsLockImmutableFile(t *testing.T) {
	l, root, clock := newLockLayer(t, objectlock.Default{})
	if ok, why := l.fs.ImmutableSupport(); !ok {
		t.Skipf("the immutable flag is not available here: %s", why)
	}
	natural := filepath.Join(root, "bkt", "locked.txt")
	v1 := putWithLock(t, l, "locked.txt", "kept", Lock{Retention: objectlock.Retention{Mode: objectlock.Compliance, Until: clock.now().Add(time.Hour)}})
	if !immutableFlag(t, natural) {
		t.Fatalf("a locked current version's file has no immutable flag")
	}
	if err := os.Remove(natural); !errors.Is(err, syscall.EPERM) {
		t.Fatalf("os.Remove of a locked file: %v, want EPERM", err)
	}

	m := remove(t, l, "locked.txt", "")
	vp := versionFilePath(t, root, "locked.txt", v1.VersionID)
	absent(t, natural, "a locked version behind a marker")
	if !immutableFlag(t, vp) || inodeOf(t, vp) != v1.FileInode {
		t.Fatalf("a demoted locked version's file lost its flag or its inode")
	}
	if err := os.Remove(vp); !errors.Is(err, syscall.EPERM) {
		t.Fatalf("os.Remove of a demoted locked file: %v, want EPERM", err)
	}
	remove(t, l, "locked.txt", m.VersionID)
	if _, b := read(t, l, "locked.txt"); b != "kept" || !immutableFlag(t, natural) || inodeOf(t, natural) != v1.FileInode {
		t.Fatalf("an undeleted locked version: %q, flag or inode lost", b)
	}

	v2 := put(t, l, "locked.txt", "unlocked overwrite")
	if _, b := read(t, l, "locked.txt"); b != "unlocked overwrite" || immutableFlag(t, natural) {
		t.Fatalf("the overwrite of a locked version: %q, or it took the flag", b)
	}
	if !immutableFlag(t, vp) {
		t.Fatalf("a locked version demoted by an overwrite lost its flag")
	}
	if _, err := l.PutLegalHold("bkt", "locked.txt", v2.VersionID, true, Conditions{}); err != nil || !immutableFlag(t, natural) {
		t.Fatalf("legal hold on the current version: %v, or no flag", err)
	}
	if _, err := l.PutLegalHold("bkt", "locked.txt", v2.VersionID, false, Conditions{}); err != nil || immutableFlag(t, natural) {
		t.Fatalf("legal hold lifted: %v, or the flag stayed", err)
	}

	v2p := versionFilePath(t, root, "locked.txt", v2.VersionID)
	put(t, l, "locked.txt", "over v2")
	if _, err := l.PutLegalHold("bkt", "locked.txt", v2.VersionID, true, Conditions{}); err != nil || !immutableFlag(t, v2p) {
		t.Fatalf("legal hold on a noncurrent version: %v, or no flag at its version path", err)
	}
	if _, err := l.PutLegalHold("bkt", "locked.txt", v2.VersionID, false, Conditions{}); err != nil || immutableFlag(t, v2p) {
		t.Fatalf("legal hold lifted from a noncurrent version: %v, or the flag stayed", err)
	}
	// Back to v2 as the current version: a marker, then the marker and
	// the version over v2 removed by id, newest first.
	remove(t, l, "locked.txt", "")
	remove(t, l, "locked.txt", allVersions(t, l, "bkt")[0].VersionID)
	remove(t, l, "locked.txt", allVersions(t, l, "bkt")[0].VersionID)

	_, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "locked.txt", VersionID: v1.VersionID})
	wantCode(t, err, s3err.AccessDenied, "removing an unexpired COMPLIANCE version")
	clock.advance(time.Hour + time.Second)
	remove(t, l, "locked.txt", v1.VersionID)
	absent(t, vp, "an expired locked version removed by id")

	// A current version under GOVERNANCE removed by id with bypass: its
	// flagged file goes and the version before it is current again.
	v3 := putWithLock(t, l, "locked.txt", "governed", Lock{Retention: objectlock.Retention{Mode: objectlock.Governance, Until: clock.now().Add(time.Hour)}})
	if !immutableFlag(t, natural) {
		t.Fatalf("a locked overwrite's file has no immutable flag")
	}
	if _, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "locked.txt", VersionID: v3.VersionID, BypassGovernance: true}); err != nil {
		t.Fatalf("removing a current GOVERNANCE version with bypass: %v", err)
	}
	if o, b := read(t, l, "locked.txt"); b != "unlocked overwrite" || o.VersionID != v2.VersionID || inodeOf(t, natural) != v2.FileInode {
		t.Fatalf("after the locked current version's removal: %q %q", b, o.VersionID)
	}
}

// TestVersionsLockRecoverDemote: a delete marker's Demote of a locked
// version's file that the index never recorded is undone by the next
// read, and the file is back at the key's path with its immutable flag.
func TestVersionsLockRecoverDemote(t *testing.T) {
	l, root, clock := newLockLayer(t, objectlock.Default{})
	if ok, why := l.fs.ImmutableSupport(); !ok {
		t.Skipf("the immutable flag is not available here: %s", why)
	}
	v := putWithLock(t, l, "k", "locked", Lock{Retention: objectlock.Retention{Mode: objectlock.Compliance, Until: clock.now().Add(time.Hour)}})
	if err := l.fs.Demote("bkt", "k", toStorage(v.Location), v.VersionID, true); err != nil {
		t.Fatal(err)
	}
	natural := filepath.Join(root, "bkt", "k")
	absent(t, natural, "a locked version demoted")
	if o, b := read(t, l, "k"); b != "locked" || o.VersionID != v.VersionID {
		t.Fatalf("read after a Demote the index did not record: %q %q", b, o.VersionID)
	}
	if !immutableFlag(t, natural) || inodeOf(t, natural) != v.FileInode {
		t.Fatalf("the locked file moved back lost its flag or its inode")
	}
}
