package api_test

// Disk faults on a real filesystem: the root lives on a small tmpfs
// mounted for the test (the tests run as root), so ENOSPC comes from the
// kernel, and a read-only bind mount of the root stands for a filesystem
// remounted read-only under a running gateway. Without the privilege to
// mount, the tests skip with the reason; storage/fault_test.go covers the
// same errors (and EDQUOT, which root cannot hit) through a seam.

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// mount runs mount(8), skipping the test when the process may not mount.
func mount(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("mount", args...).CombinedOutput()
	if err != nil {
		t.Skipf("mount %s: %v: %s (needs root and CAP_SYS_ADMIN; storage/fault_test.go covers these errors through a seam)", strings.Join(args, " "), err, out)
	}
}

// umountAt unmounts dir at cleanup (registered before anything that
// holds files open on it, so it runs after them).
func umountAt(t *testing.T, dir string) {
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
			_ = exec.Command("umount", "-l", dir).Run()
		}
	})
}

// tmpfs mounts a tmpfs of size (mount's syntax, "8m") and returns its
// directory.
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root; storage/fault_test.go covers these errors through a seam")
	}
	dir := t.TempDir()
	mount(t, "-t", "tmpfs", "-o", "size="+size+",mode=0755", "tmpfs", dir)
	umountAt(t, dir)
	return dir
}

// startHostileAt is startHostile over a given root: the harness's
// startGateway always uses a fresh t.TempDir().
func startHostileAt(t *testing.T, root string) *hostile {
	t.Helper()
	g := &gateway{t: t, AccessKey: testAccessKey, SecretKey: testSecretKey, Root: root, Region: testRegion}
	g.opts = api.Options{Region: testRegion, Credentials: staticCreds{testAccessKey: testSecretKey}}
	g.open()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*g.handler.Load()).ServeHTTP(w, r) })
	g.plain = httptest.NewServer(h)
	g.secure = httptest.NewTLSServer(h)
	g.Endpoint, g.TLS = g.plain.URL, g.secure.URL
	t.Cleanup(func() {
		g.plain.Close()
		g.secure.Close()
		g.mu.Lock()
		defer g.mu.Unlock()
		if err := g.layer.Close(); err != nil {
			t.Errorf("layer.Close: %v", err)
		}
	})
	hs := &hostile{gateway: g, t: t, bucket: "target", outside: t.TempDir()}
	if err := os.WriteFile(filepath.Join(hs.outside, "outside.txt"), []byte(outsideTxt), 0o644); err != nil {
		t.Fatal(err)
	}
	hs.want(hs.send(http.MethodPut, "/"+hs.bucket, "", nil), 200)
	hs.want(hs.send(http.MethodPut, "/"+hs.bucket+"/"+victimKey, "", []byte(victimData)), 200)
	return hs
}

// TestDiskFullPut fills a 4 MiB filesystem with a PUT over an existing
// object and with a PUT of a new key: both get 507 InsufficientStorage,
// the old version is intact, the new key does not exist, staging is
// empty, and once space is back writes work again.
func TestDiskFullPut(t *testing.T) {
	mnt := tmpfs(t, "4m")
	h := startHostileAt(t, filepath.Join(mnt, "root"))
	big := bytes.Repeat([]byte("F"), 8<<20)
	for _, key := range []string{victimKey, "new.bin"} {
		t.Run(key, func(t *testing.T) {
			h.t = t
			before := h.snapshot()
			h.want(h.send(http.MethodPut, "/"+h.bucket+"/"+key, "", big), 507, "InsufficientStorage")
			h.untouched(before)
			if key != victimKey {
				h.want(h.send(http.MethodHead, "/"+h.bucket+"/"+key, "", nil), 404)
			}
		})
	}
	t.Run("writes work again", func(t *testing.T) {
		h.t = t
		h.want(h.send(http.MethodPut, "/"+h.bucket+"/small", "", []byte("fits")), 200)
		r := h.send(http.MethodGet, "/"+h.bucket+"/small", "", nil)
		if string(r.body) != "fits" {
			t.Fatalf("small: %q", r.body)
		}
	})
}

// TestDiskFullComplete runs out of space while CompleteMultipartUpload
// assembles the parts over an existing object: 507, the object keeps its
// old bytes, the upload and its parts survive, and the same completion
// succeeds once space is freed. Parts of a regular size are renamed into
// the object and need no space at completion; these are made to live in
// files of their own, which are copied: part 1 is uploaded first with
// less than the minimum part size (which fixes no part size for the
// upload's region), then again in full.
func TestDiskFullComplete(t *testing.T) {
	mnt := tmpfs(t, "16m")
	h := startHostileAt(t, filepath.Join(mnt, "root"))
	obj := "/" + h.bucket + "/" + victimKey
	r := h.send(http.MethodPost, obj, "uploads", nil)
	h.want(r, 200)
	id := between(string(r.body), "<UploadId>", "</UploadId>")
	p1 := bytes.Repeat([]byte("1"), 5<<20)
	p2 := bytes.Repeat([]byte("2"), 1<<20)
	h.want(h.send(http.MethodPut, obj, "partNumber=1&uploadId="+id, p2), 200)
	var etags []string
	for i, p := range [][]byte{p1, p2} {
		r := h.send(http.MethodPut, obj, "partNumber="+strconv.Itoa(i+1)+"&uploadId="+id, p)
		h.want(r, 200)
		etags = append(etags, r.Header.Get("ETag"))
	}
	// Leave less free space than the assembled object needs.
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(bytes.Repeat([]byte("x"), 7<<20))
	f.Close()
	complete := []byte("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + etags[0] +
		"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>" + etags[1] + "</ETag></Part></CompleteMultipartUpload>")
	before := h.snapshot()
	h.want(h.send(http.MethodPost, obj, "uploadId="+id, complete), 507, "InsufficientStorage")
	h.untouched(before)
	r = h.send(http.MethodGet, obj, "uploadId="+id, nil)
	h.want(r, 200)
	if n := strings.Count(string(r.body), "<Part>"); n != 2 {
		t.Fatalf("ListParts after the failed completion: %d parts", n)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	h.want(h.send(http.MethodPost, obj, "uploadId="+id, complete), 200)
	r = h.send(http.MethodGet, obj, "", nil)
	if !bytes.Equal(r.body, append(append([]byte(nil), p1...), p2...)) {
		t.Fatalf("completed object: %d bytes", len(r.body))
	}
	h.noStaging()
}

// TestReadOnlyFilesystem serves the root through a bind mount that is
// then remounted read-only, as a filesystem going read-only under a
// running gateway. The index file stays writable through its own bind
// mount: the kernel refuses a read-only remount while a file on the
// mount is open for writing, and the index is. Writes are refused with
// 503 ServiceUnavailable, nothing changes, reads keep working, and writes
// work again after a read-write remount.
func TestReadOnlyFilesystem(t *testing.T) {
	mnt := tmpfs(t, "16m")
	backing := filepath.Join(mnt, "root")
	layer, err := object.Open(object.Options{Root: backing, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := layer.Close(); err != nil {
		t.Fatal(err)
	}
	view := t.TempDir()
	mount(t, "--bind", backing, view)
	umountAt(t, view)
	index := filepath.Join(".objectgateway", object.IndexFile)
	mount(t, "--bind", filepath.Join(backing, index), filepath.Join(view, index))
	umountAt(t, filepath.Join(view, index))
	h := startHostileAt(t, view)
	h.want(h.send(http.MethodPut, "/"+h.bucket+"/dir/nested.txt", "", []byte("nested")), 200)
	r := h.send(http.MethodPost, "/"+h.bucket+"/mp", "uploads", nil)
	h.want(r, 200)
	id := between(string(r.body), "<UploadId>", "</UploadId>")

	mount(t, "-o", "remount,bind,ro", view)
	obj := "/" + h.bucket + "/" + victimKey
	h.run(t, []attack{
		{name: "PutObject over an object", method: "PUT", path: obj, body: []byte("new"), status: 503, code: "ServiceUnavailable"},
		{name: "PutObject of a new key", method: "PUT", path: "/" + h.bucket + "/new", body: []byte("new"), status: 503, code: "ServiceUnavailable"},
		{name: "DeleteObject", method: "DELETE", path: obj, status: 503, code: "ServiceUnavailable"},
		{name: "CopyObject", method: "PUT", path: "/" + h.bucket + "/copy", hdr: []string{"X-Amz-Copy-Source", h.bucket + "/" + victimKey}, status: 503, code: "ServiceUnavailable"},
		{name: "UploadPart", method: "PUT", path: "/" + h.bucket + "/mp", query: "partNumber=1&uploadId=" + id, body: []byte("part"), status: 503, code: "ServiceUnavailable"},
		{name: "CreateBucket", method: "PUT", path: "/newbucket", status: 503, code: "ServiceUnavailable"},
		{name: "DeleteObjects", method: "POST", path: "/" + h.bucket, query: "delete", body: []byte("<Delete><Object><Key>" + victimKey + "</Key></Object></Delete>"), status: 200},
		{name: "GetObject", method: "GET", path: "/" + h.bucket + "/dir/nested.txt", status: 200},
		{name: "HeadObject", method: "HEAD", path: obj, status: 200},
		{name: "ListObjectsV2", method: "GET", path: "/" + h.bucket, query: "list-type=2", status: 200},
		{name: "ListBuckets", method: "GET", path: "/", status: 200},
	})
	t.Run("DeleteObjects reports the error per key", func(t *testing.T) {
		h.t = t
		r := h.send(http.MethodPost, "/"+h.bucket, "delete", []byte("<Delete><Object><Key>"+victimKey+"</Key></Object></Delete>"))
		if !strings.Contains(string(r.body), "<Code>ServiceUnavailable</Code>") {
			t.Fatalf("DeleteObjects on a read-only filesystem: %s", r.body)
		}
	})
	mount(t, "-o", "remount,bind,rw", view)
	t.Run("writes work again after a read-write remount", func(t *testing.T) {
		h.t = t
		h.want(h.send(http.MethodPut, obj, "", []byte("rewritten")), 200)
		if r := h.send(http.MethodGet, obj, "", nil); string(r.body) != "rewritten" {
			t.Fatalf("after remount: %q", r.body)
		}
	})
}
