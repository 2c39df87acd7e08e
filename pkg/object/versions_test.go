package object

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// versionKeys are the kinds of key every versioning test goes through:
// one at its natural path and three the natural path cannot hold, which
// the gateway shadows. setup runs first in a fresh bucket.
var versionKeys = []struct {
	name, key string
	// natural is set when the current version's file is at root/bkt/key.
	natural bool
	setup   func(t *testing.T, l *Layer)
}{
	{name: "natural", key: "dir/doc.txt", natural: true},
	{name: "file under a key's directory", key: "a", setup: func(t *testing.T, l *Layer) { put(t, l, "a/b", "a sibling under a/") }},
	{name: "300-byte segment", key: "long/" + strings.Repeat("s", 300)},
	{name: "dot-dot segment", key: "x/../y"},
}

// othersOf returns the current files setup leaves in the bucket.
func othersOf(key string) []string {
	if key == "a" {
		return []string{"a/b"}
	}
	return nil
}

// TestVersionsEnabledKeepEveryVersion makes three versions of a key in an
// Enabled bucket: each PUT answers a new version id, greater than the one
// before; the current version is the last; each older one reads back by
// id with its exact bytes from its file at storage.VersionPath; and the
// bucket's directory holds only the current files.
func TestVersionsEnabledKeepEveryVersion(t *testing.T) {
	for _, k := range versionKeys {
		t.Run(k.name, func(t *testing.T) {
			l, root, _ := openVersioned(t, metadata.VersioningEnabled)
			if k.setup != nil {
				k.setup(t, l)
			}
			bodies := []string{"first version", "second, longer version", "3"}
			var made []Object
			for _, b := range bodies {
				o := put(t, l, k.key, b)
				if _, _, ok := metadata.ParseVersionID(o.VersionID); !ok {
					t.Fatalf("PUT in an Enabled bucket answered version id %q", o.VersionID)
				}
				if n := len(made); n > 0 && o.VersionID <= made[n-1].VersionID {
					t.Fatalf("version ids not increasing: %q after %q", o.VersionID, made[n-1].VersionID)
				}
				made = append(made, o)
			}
			cur, body := read(t, l, k.key)
			if body != bodies[2] || cur.VersionID != made[2].VersionID {
				t.Fatalf("current: %q version %q, want %q version %q", body, cur.VersionID, bodies[2], made[2].VersionID)
			}
			for i, o := range made {
				got, b := readByID(t, l, k.key, o.VersionID)
				if b != bodies[i] || got.VersionID != o.VersionID || got.ETag != o.ETag {
					t.Fatalf("version %d by id: %q %q ETag %q, want %q %q ETag %q", i, b, got.VersionID, got.ETag, bodies[i], o.VersionID, o.ETag)
				}
				if i < 2 {
					f, err := os.ReadFile(versionFilePath(t, root, k.key, o.VersionID))
					if err != nil || string(f) != bodies[i] {
						t.Fatalf("file of noncurrent version %d: %q %v", i, f, err)
					}
				}
			}
			vs := versionsOfKey(t, l, k.key)
			want := []string{made[2].VersionID, made[1].VersionID, made[0].VersionID}
			if !slices.Equal(shownIDs(vs), want) {
				t.Fatalf("ListVersions: %v, want %v", shownIDs(vs), want)
			}
			files := append(othersOf(k.key), k.key)
			if !k.natural {
				files = othersOf(k.key)
			}
			slices.Sort(files)
			if got := bucketFiles(t, root); !slices.Equal(got, files) {
				t.Fatalf("files in the bucket's directory: %v, want %v", got, files)
			}
		})
	}
}

// TestVersionsNullBeforeVersioning: an object written before versioning
// was enabled is the null version; PUTs in an unversioned bucket answer no
// version id; after versions are added the null one still reads back by
// "null" and is listed last.
func TestVersionsNullBeforeVersioning(t *testing.T) {
	for _, k := range versionKeys {
		t.Run(k.name, func(t *testing.T) {
			l, _, _ := openVersioned(t, "")
			if k.setup != nil {
				k.setup(t, l)
			}
			if o := put(t, l, k.key, "from before versioning"); o.VersionID != "" {
				t.Fatalf("PUT in an unversioned bucket answered version id %q", o.VersionID)
			}
			if out := remove(t, l, "never-there", ""); out != (Removed{}) {
				t.Fatalf("DELETE in an unversioned bucket answered %+v", out)
			}
			setVersioning(t, l, metadata.VersioningEnabled)
			v1 := put(t, l, k.key, "v1")
			v2 := put(t, l, k.key, "v2")
			if o, b := readByID(t, l, k.key, metadata.NullVersion); b != "from before versioning" || o.VersionID != "" {
				t.Fatalf("null version: %q %+v", b, o)
			}
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{v2.VersionID, v1.VersionID, "null"}; !slices.Equal(got, want) {
				t.Fatalf("ListVersions: %v, want %v", got, want)
			}
		})
	}
}

// TestVersionsSuspended: in a Suspended bucket a PUT makes the null
// version, replacing a current null version in place and dropping a
// noncurrent one with its file, while versions with ids stay; a DELETE
// without id replaces the null version with a null delete marker.
func TestVersionsSuspended(t *testing.T) {
	for _, k := range versionKeys {
		t.Run(k.name, func(t *testing.T) {
			l, root, _ := openVersioned(t, metadata.VersioningEnabled)
			if k.setup != nil {
				k.setup(t, l)
			}
			e1 := put(t, l, k.key, "enabled 1")
			setVersioning(t, l, metadata.VersioningSuspended)
			if o := put(t, l, k.key, "suspended 1"); o.VersionID != "" {
				t.Fatalf("PUT in a Suspended bucket answered version id %q, want the null version", o.VersionID)
			}
			put(t, l, k.key, "suspended 2")
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{"null", e1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("after two suspended PUTs: %v, want %v", got, want)
			}
			absent(t, versionFilePath(t, root, k.key, ""), "a current null version replaced in place")
			if _, b := readByID(t, l, k.key, e1.VersionID); b != "enabled 1" {
				t.Fatalf("version %s: %q", e1.VersionID, b)
			}

			setVersioning(t, l, metadata.VersioningEnabled)
			e2 := put(t, l, k.key, "enabled 2")
			if f, err := os.ReadFile(versionFilePath(t, root, k.key, "")); err != nil || string(f) != "suspended 2" {
				t.Fatalf("the null version made noncurrent: file %q %v", f, err)
			}
			setVersioning(t, l, metadata.VersioningSuspended)
			put(t, l, k.key, "suspended 3")
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{"null", e2.VersionID, e1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("after a suspended PUT over a noncurrent null: %v, want %v", got, want)
			}
			absent(t, versionFilePath(t, root, k.key, ""), "the noncurrent null version dropped")
			if _, b := readByID(t, l, k.key, "null"); b != "suspended 3" {
				t.Fatalf("null version: %q", b)
			}

			out := remove(t, l, k.key, "")
			if out != (Removed{VersionID: "null", DeleteMarker: true}) {
				t.Fatalf("suspended DELETE: %+v, want a null delete marker", out)
			}
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{"null(marker)", e2.VersionID, e1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("after a suspended DELETE: %v, want %v", got, want)
			}
			absent(t, versionFilePath(t, root, k.key, ""), "the null version replaced by a marker")
			if k.natural {
				absent(t, filepath.Join(root, "bkt", k.key), "the null version replaced by a marker")
			}

			// A suspended DELETE over a version with an id keeps it, and
			// drops the noncurrent null version with its file.
			setVersioning(t, l, metadata.VersioningEnabled)
			e3 := put(t, l, k.key, "enabled 3")
			setVersioning(t, l, metadata.VersioningSuspended)
			remove(t, l, k.key, "")
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{"null(marker)", e3.VersionID, e2.VersionID, e1.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("after a suspended DELETE over a version with an id: %v, want %v", got, want)
			}
			if _, b := readByID(t, l, k.key, e3.VersionID); b != "enabled 3" {
				t.Fatalf("the version a suspended DELETE demoted: %q", b)
			}
			remove(t, l, k.key, "null")
			if o, b := read(t, l, k.key); b != "enabled 3" || o.VersionID != e3.VersionID {
				t.Fatalf("after the null marker's removal: %q %q", b, o.VersionID)
			}
		})
	}
}

// TestVersionsDeleteMarkerAndDeletesByID walks a key through S3's
// deletes in an Enabled bucket: a DELETE without id writes a marker (the
// key leaves ListObjects, its file leaves the key's path for the versions
// area, GET answers NoSuchKey with the marker's headers, the marker by id
// MethodNotAllowed); deleting the marker by id makes the version behind
// it current again with the same inode at the key's path; deleting the
// current version by id promotes the previous one; deleting a noncurrent
// version by id removes its file.
func TestVersionsDeleteMarkerAndDeletesByID(t *testing.T) {
	for _, k := range versionKeys {
		t.Run(k.name, func(t *testing.T) {
			l, root, _ := openVersioned(t, metadata.VersioningEnabled)
			if k.setup != nil {
				k.setup(t, l)
			}
			v1 := put(t, l, k.key, "v1")
			v2 := put(t, l, k.key, "v2 bytes")
			natural := filepath.Join(root, "bkt", filepath.FromSlash(k.key))

			marker := remove(t, l, k.key, "")
			if !marker.DeleteMarker || marker.VersionID <= v2.VersionID {
				t.Fatalf("DELETE: %+v, want a delete marker newer than %s", marker, v2.VersionID)
			}
			page, err := l.ListObjects("bkt", ListQuery{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range page.Objects {
				if o.Key == k.key {
					t.Fatalf("ListObjects lists %q behind a delete marker", k.key)
				}
			}
			if k.natural {
				absent(t, natural, "the version behind a delete marker")
			}
			if _, ok := l.fs.Identify("bkt", k.key, toStorage(v2.Location)); ok {
				t.Fatalf("the file of the version behind a delete marker is still at the key's path")
			}
			if f, err := os.ReadFile(versionFilePath(t, root, k.key, v2.VersionID)); err != nil || string(f) != "v2 bytes" {
				t.Fatalf("version path after DELETE: %q %v", f, err)
			}
			if inodeOf(t, versionFilePath(t, root, k.key, v2.VersionID)) != v2.FileInode {
				t.Fatalf("the delete marker's demotion copied the file instead of moving it")
			}
			for what, err := range map[string]error{
				"GET":  func() error { _, err := l.OpenObject("bkt", k.key); return err }(),
				"HEAD": func() error { _, err := l.StatObject("bkt", k.key); return err }(),
			} {
				e := wantCode(t, err, s3err.NoSuchKey, what+" of a deleted key")
				if header(e, "x-amz-delete-marker") != "true" || header(e, "x-amz-version-id") != marker.VersionID {
					t.Fatalf("%s of a deleted key: headers %v, want the marker's", what, e.Headers)
				}
			}
			_, err = l.OpenVersion("bkt", k.key, marker.VersionID)
			e := wantCode(t, err, s3err.MethodNotAllowed, "GET of a delete marker by id")
			if header(e, "x-amz-delete-marker") != "true" || header(e, "x-amz-version-id") != marker.VersionID || header(e, "Last-Modified") == "" {
				t.Fatalf("GET of a delete marker by id: headers %v", e.Headers)
			}
			_, err = l.StatVersion("bkt", k.key, marker.VersionID)
			wantCode(t, err, s3err.MethodNotAllowed, "HEAD of a delete marker by id")

			if out := remove(t, l, k.key, marker.VersionID); out != (Removed{VersionID: marker.VersionID, DeleteMarker: true}) {
				t.Fatalf("DELETE of the marker by id: %+v", out)
			}
			if o, b := read(t, l, k.key); b != "v2 bytes" || o.VersionID != v2.VersionID {
				t.Fatalf("after the marker's removal: %q %q, want v2", b, o.VersionID)
			}
			if k.natural && inodeOf(t, natural) != v2.FileInode {
				t.Fatalf("the undeleted version's file is not the same inode")
			}
			absent(t, versionFilePath(t, root, k.key, v2.VersionID), "the version made current again")

			if out := remove(t, l, k.key, v2.VersionID); out != (Removed{VersionID: v2.VersionID}) {
				t.Fatalf("DELETE of the current version by id: %+v", out)
			}
			if o, b := read(t, l, k.key); b != "v1" || o.VersionID != v1.VersionID {
				t.Fatalf("after the current version's removal: %q %q, want v1", b, o.VersionID)
			}
			if k.natural && inodeOf(t, natural) != v1.FileInode {
				t.Fatalf("the promoted version's file is not the same inode")
			}
			absent(t, versionFilePath(t, root, k.key, v2.VersionID), "a removed version")
			absent(t, versionFilePath(t, root, k.key, v1.VersionID), "the promoted version")
			_, err = l.OpenVersion("bkt", k.key, v2.VersionID)
			wantCode(t, err, s3err.NoSuchVersion, "GET of a removed version")

			v3 := put(t, l, k.key, "v3")
			remove(t, l, k.key, v1.VersionID)
			absent(t, versionFilePath(t, root, k.key, v1.VersionID), "a removed noncurrent version")
			if got, want := shownIDs(versionsOfKey(t, l, k.key)), []string{v3.VersionID}; !slices.Equal(got, want) {
				t.Fatalf("versions: %v, want %v", got, want)
			}
			if out := remove(t, l, k.key, v1.VersionID); out != (Removed{VersionID: v1.VersionID}) {
				t.Fatalf("DELETE of a version that is gone: %+v", out)
			}
			_, err = l.OpenVersion("bkt", k.key, "not-a-version")
			if e := wantCode(t, err, s3err.InvalidArgument, "a malformed version id"); e.Message != "Invalid version id specified" {
				t.Fatalf("a malformed version id: %q", e.Message)
			}
		})
	}
}

// TestVersionsDeleteBucketWithMarkers: a bucket whose keys are all
// behind delete markers, or that holds nothing but markers, is not empty.
func TestVersionsDeleteBucketWithMarkers(t *testing.T) {
	l, _, _ := openVersioned(t, metadata.VersioningEnabled)
	v := put(t, l, "k", "body")
	remove(t, l, "k", "")
	wantCode(t, l.DeleteBucket("bkt"), s3err.BucketNotEmpty, "DeleteBucket with a version behind a marker")
	remove(t, l, "k", v.VersionID)
	remove(t, l, "gone", "")
	wantCode(t, l.DeleteBucket("bkt"), s3err.BucketNotEmpty, "DeleteBucket with only delete markers")
	for _, e := range allVersions(t, l, "bkt") {
		remove(t, l, e.Key, e.VersionID)
	}
	if err := l.DeleteBucket("bkt"); err != nil {
		t.Fatalf("DeleteBucket once every marker is gone: %v", err)
	}
	if err := l.CreateBucket(Bucket{Name: "bkt", Versioning: metadata.VersioningEnabled}); err != nil {
		t.Fatal(err)
	}
}

// TestVersionsFolderKey versions a folder marker ("dir/"), which is a
// directory with no bytes: it becomes noncurrent behind a marker and
// current again when the marker goes, with the directory kept.
func TestVersionsFolderKey(t *testing.T) {
	l, root, _ := openVersioned(t, metadata.VersioningEnabled)
	f1 := put(t, l, "dir/", "")
	f2 := put(t, l, "dir/", "")
	if f1.Location != metadata.Directory || f1.VersionID == "" || f2.VersionID <= f1.VersionID {
		t.Fatalf("folder versions %+v %+v", f1, f2)
	}
	m := remove(t, l, "dir/", "")
	_, err := l.OpenObject("bkt", "dir/")
	wantCode(t, err, s3err.NoSuchKey, "GET of a deleted folder")
	if o, _ := readByID(t, l, "dir/", f1.VersionID); o.VersionID != f1.VersionID {
		t.Fatalf("folder version by id: %+v", o)
	}
	remove(t, l, "dir/", m.VersionID)
	if o, _ := read(t, l, "dir/"); o.VersionID != f2.VersionID {
		t.Fatalf("folder after its marker's removal: %+v", o)
	}
	if fi, err := os.Stat(filepath.Join(root, "bkt", "dir")); err != nil || !fi.IsDir() {
		t.Fatalf("folder directory: %v", err)
	}
	remove(t, l, "dir/", f2.VersionID)
	if o, _ := read(t, l, "dir/"); o.VersionID != f1.VersionID {
		t.Fatalf("folder after its current version's removal: %+v", o)
	}
}

// TestVersionsCopy copies from an old version, and onto the source itself
// in a versioned bucket, where it makes a new version.
func TestVersionsCopy(t *testing.T) {
	l, _, _ := openVersioned(t, metadata.VersioningEnabled)
	v1 := put(t, l, "src", "old bytes")
	v2 := put(t, l, "src", "new bytes")
	c, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", SrcVersionID: v1.VersionID, DstBucket: "bkt", DstKey: "dst"})
	if err != nil {
		t.Fatalf("CopyObject from an old version: %v", err)
	}
	if _, b := read(t, l, "dst"); b != "old bytes" || c.VersionID == "" || c.Location == metadata.Noncurrent {
		t.Fatalf("copy of an old version: %q %+v", b, c)
	}
	self, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "src", Replace: true, Headers: Headers{ContentType: "text/x-new"}})
	if err != nil {
		t.Fatalf("CopyObject onto itself: %v", err)
	}
	if self.VersionID == v2.VersionID || self.VersionID == "" {
		t.Fatalf("a copy onto itself in a versioned bucket must make a new version: %+v", self)
	}
	if o, b := read(t, l, "src"); b != "new bytes" || o.ContentType != "text/x-new" || o.VersionID != self.VersionID {
		t.Fatalf("after the copy onto itself: %q %+v", b, o)
	}
	if _, b := readByID(t, l, "src", v2.VersionID); b != "new bytes" {
		t.Fatalf("the version copied onto itself: %q", b)
	}
	back, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", SrcVersionID: v1.VersionID, DstBucket: "bkt", DstKey: "src"})
	if err != nil {
		t.Fatalf("CopyObject of an old version over its own key: %v", err)
	}
	if _, b := read(t, l, "src"); b != "old bytes" {
		t.Fatalf("restored by copy: %q", b)
	}
	if got, want := shownIDs(versionsOfKey(t, l, "src")), []string{back.VersionID, self.VersionID, v2.VersionID, v1.VersionID}; !slices.Equal(got, want) {
		t.Fatalf("versions: %v, want %v", got, want)
	}
	remove(t, l, "src", "")
	_, err = l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: "dst"})
	wantCode(t, err, s3err.NoSuchKey, "a copy from a key behind a marker")
}

// TestVersionsMultipart: a completion makes a version, the previous one
// stays, a retried completion answers the same version id, and
// UploadPartCopy reads an old version.
func TestVersionsMultipart(t *testing.T) {
	l, _, _ := openVersioned(t, metadata.VersioningEnabled)
	v1 := put(t, l, "mp", "single-part version")
	id := mpStart(t, l, "mp")
	p := mpUpload(t, l, "mp", id, 1, []byte("multipart version"))
	in := CompleteInput{Bucket: "bkt", Key: "mp", UploadID: id, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}}
	done, err := l.CompleteMultipartUpload(in)
	if err != nil {
		t.Fatal(err)
	}
	if done.VersionID == "" || done.VersionID <= v1.VersionID {
		t.Fatalf("completion in an Enabled bucket: version %q", done.VersionID)
	}
	again, err := l.CompleteMultipartUpload(in)
	if err != nil {
		t.Fatalf("retried completion: %v", err)
	}
	if again.VersionID != done.VersionID || again.ETag != done.ETag {
		t.Fatalf("retried completion answered %q %q, want %q %q", again.VersionID, again.ETag, done.VersionID, done.ETag)
	}
	if got, want := shownIDs(versionsOfKey(t, l, "mp")), []string{done.VersionID, v1.VersionID}; !slices.Equal(got, want) {
		t.Fatalf("versions: %v, want %v", got, want)
	}
	if _, b := readByID(t, l, "mp", v1.VersionID); b != "single-part version" {
		t.Fatalf("the version a completion replaced: %q", b)
	}

	setVersioning(t, l, metadata.VersioningSuspended)
	sid := mpStart(t, l, "mp-null")
	sp := mpUpload(t, l, "mp-null", sid, 1, []byte("null from parts"))
	sin := CompleteInput{Bucket: "bkt", Key: "mp-null", UploadID: sid, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: sp.ETag}}}
	for i := range 2 {
		if o, err := l.CompleteMultipartUpload(sin); err != nil || o.VersionID != "" {
			t.Fatalf("completion %d in a Suspended bucket: %+v %v, want the null version", i, o, err)
		}
	}
	if c, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "mp", DstBucket: "bkt", DstKey: "copy-null"}); err != nil || c.VersionID != "" {
		t.Fatalf("copy in a Suspended bucket: %+v %v, want the null version", c, err)
	}
	setVersioning(t, l, metadata.VersioningEnabled)

	v3 := put(t, l, "mp", "newest")
	up := mpStart(t, l, "copied")
	part, err := l.UploadPartCopy(CopyPartInput{Bucket: "bkt", Key: "copied", UploadID: up, Number: 1, SrcBucket: "bkt", SrcKey: "mp", SrcVersionID: v1.VersionID})
	if err != nil {
		t.Fatalf("UploadPartCopy from an old version: %v", err)
	}
	c, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: "copied", UploadID: up, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: part.ETag}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, b := read(t, l, "copied"); b != "single-part version" || c.VersionID == "" {
		t.Fatalf("object from a part copied from an old version: %q %+v", b, c)
	}
	if _, b := read(t, l, "mp"); b != "newest" || v3.VersionID == "" {
		t.Fatalf("source after the part copy: %q", b)
	}
	_, err = l.UploadPartCopy(CopyPartInput{Bucket: "bkt", Key: "copied", UploadID: mpStart(t, l, "copied"), Number: 1, SrcBucket: "bkt", SrcKey: "mp", SrcVersionID: strings.Repeat("0", 26)})
	wantCode(t, err, s3err.NoSuchVersion, "UploadPartCopy from a version that does not exist")
}

// TestVersionsCopyFromDeleteMarker: a copy whose source version id names a
// delete marker is InvalidRequest (400), for CopyObject and UploadPartCopy,
// without the marker's headers; a copy from a key whose latest version is
// a marker is NoSuchKey.
func TestVersionsCopyFromDeleteMarker(t *testing.T) {
	l, _, _ := openVersioned(t, metadata.VersioningEnabled)
	put(t, l, "src", "bytes")
	m := remove(t, l, "src", "")
	_, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", SrcVersionID: m.VersionID, DstBucket: "bkt", DstKey: "dst"})
	if e := wantCode(t, err, s3err.InvalidRequest, "CopyObject from a delete marker by id"); len(e.Headers) != 0 {
		t.Fatalf("CopyObject from a delete marker by id sends the marker's headers %v", e.Headers)
	}
	up := mpStart(t, l, "dst")
	_, err = l.UploadPartCopy(CopyPartInput{Bucket: "bkt", Key: "dst", UploadID: up, Number: 1, SrcBucket: "bkt", SrcKey: "src", SrcVersionID: m.VersionID})
	wantCode(t, err, s3err.InvalidRequest, "UploadPartCopy from a delete marker by id")
	_, err = l.UploadPartCopy(CopyPartInput{Bucket: "bkt", Key: "dst", UploadID: up, Number: 1, SrcBucket: "bkt", SrcKey: "src"})
	wantCode(t, err, s3err.NoSuchKey, "UploadPartCopy from a key behind a marker")
	if _, err := l.OpenObject("bkt", "dst"); code(err) != s3err.NoSuchKey {
		t.Fatalf("a refused copy wrote its destination: %v", err)
	}
}
