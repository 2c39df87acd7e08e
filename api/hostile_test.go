package api_test

// This file is the attack table of docs/security.md: each case is a
// hostile request sent to an in-process gateway, with the answer it must
// get and a check that stored data (object bytes, the tree under the root
// and a sentinel directory outside it) is exactly as before.

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// hostile is a gateway with a seeded bucket, plus a sentinel directory
// outside its root that no request may reach.
type hostile struct {
	*gateway
	t       *testing.T
	bucket  string
	outside string // a sibling of the root holding outside.txt
}

const (
	victimKey  = "victim.txt"
	victimData = "the victim's bytes"
	outsideTxt = "outside file: never served, never written"
)

// startHostile starts a gateway with bucket "target" holding victimKey,
// and a sentinel directory beside the root.
func startHostile(t *testing.T, opts ...gatewayOption) *hostile {
	t.Helper()
	g := startGateway(t, opts...)
	h := &hostile{gateway: g, t: t, bucket: "target", outside: t.TempDir()}
	if err := os.WriteFile(filepath.Join(h.outside, "outside.txt"), []byte(outsideTxt), 0o644); err != nil {
		t.Fatal(err)
	}
	h.want(h.send(http.MethodPut, "/"+h.bucket, "", nil), 200)
	h.want(h.send(http.MethodPut, "/"+h.bucket+"/"+victimKey, "", []byte(victimData)), 200)
	return h
}

// reply is a response with its body read.
type reply struct {
	*http.Response
	body []byte
}

// send sends a request signed over its body (nil: no body) with the raw,
// already escaped path and query.
func (h *hostile) send(method, path, query string, body []byte, hdr ...string) reply {
	h.t.Helper()
	req := h.rawRequest(method, path, query, body)
	if query == "delete" {
		// DeleteObjects carries the Content-MD5 S3 requires of it, as
		// every client sends it (or a checksum), so that what is
		// attacked is the document.
		req.Header.Set("Content-Md5", md5Base64(body))
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	// pkg/sigv4 signs the path exactly as sent, so that "%2e%2e" and
	// "%2F" reach the gateway under a valid signature.
	sum := sha256.Sum256(body)
	sigv4.SignRequest(req, h.AccessKey, h.SecretKey, h.Region, time.Now(), hex.EncodeToString(sum[:]))
	resp, b := h.do(req, body, false)
	return reply{resp, b}
}

// want checks a reply's status and, for errors, its S3 code.
func (h *hostile) want(r reply, status int, code ...string) {
	h.t.Helper()
	if len(code) > 0 {
		wantXMLError(h.t, r.Request.Method+" "+r.Request.URL.RequestURI(), r.Response, r.body, status, code[0])
		return
	}
	if r.StatusCode != status {
		h.t.Fatalf("%s %s: status %d, want %d (%s)", r.Request.Method, r.Request.URL.RequestURI(), r.StatusCode, status, r.body)
	}
}

// tree returns every entry under dir with a digest of each regular
// file's bytes and each link's target, skipping the index (whose pages
// change with any committed request) and the credentials.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == filepath.Join(".objectgateway", "index.db") {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link:" + target
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(sum[:8])
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", dir, err)
	}
	return out
}

// snapshot is the state a hostile request must leave untouched.
type snapshot struct {
	root, outside map[string]string
	listing       string
}

func (h *hostile) snapshot() snapshot {
	h.t.Helper()
	return snapshot{root: tree(h.t, h.Root), outside: tree(h.t, h.outside), listing: h.listing()}
}

// listing returns the bucket's ListObjectsV2 keys and sizes.
func (h *hostile) listing() string {
	h.t.Helper()
	r := h.send(http.MethodGet, "/"+h.bucket, "list-type=2", nil)
	h.want(r, 200)
	var out []string
	for _, part := range strings.Split(string(r.body), "<Contents>")[1:] {
		key, _, _ := strings.Cut(strings.SplitN(part, "<Key>", 2)[1], "</Key>")
		size, _, _ := strings.Cut(strings.SplitN(part, "<Size>", 2)[1], "</Size>")
		out = append(out, key+"="+size)
	}
	return strings.Join(out, "\n")
}

// untouched checks that the tree under the root, the outside directory,
// the bucket listing and the victim object's bytes are as in before, and
// that no temp file is left in staging.
func (h *hostile) untouched(before snapshot) {
	h.t.Helper()
	after := h.snapshot()
	diff := func(what string, a, b map[string]string) {
		h.t.Helper()
		var d []string
		for k, v := range a {
			if b[k] != v {
				d = append(d, fmt.Sprintf("%s: %q → %q", k, v, b[k]))
			}
		}
		for k, v := range b {
			if _, ok := a[k]; !ok {
				d = append(d, fmt.Sprintf("%s: new %q", k, v))
			}
		}
		sort.Strings(d)
		if len(d) > 0 {
			h.t.Errorf("%s changed:\n%s", what, strings.Join(d, "\n"))
		}
	}
	diff("tree under the root", before.root, after.root)
	diff("directory outside the root", before.outside, after.outside)
	if before.listing != after.listing {
		h.t.Errorf("listing changed:\n%s\n→\n%s", before.listing, after.listing)
	}
	r := h.send(http.MethodGet, "/"+h.bucket+"/"+victimKey, "", nil)
	if r.StatusCode != 200 || string(r.body) != victimData {
		h.t.Errorf("victim object: %d %q", r.StatusCode, r.body)
	}
	h.noStaging()
}

// noStaging checks that no upload left a temp file behind.
func (h *hostile) noStaging() {
	h.t.Helper()
	ents, err := os.ReadDir(filepath.Join(h.Root, ".objectgateway", "staging"))
	if err != nil {
		h.t.Fatal(err)
	}
	for _, e := range ents {
		h.t.Errorf("temp file left in staging: %s", e.Name())
	}
}

// attack is one row of the table: a request and the answer it must get.
type attack struct {
	name   string
	method string
	path   string // escaped
	query  string
	body   []byte
	hdr    []string
	status int
	code   string // "" for a success status
}

// run sends each attack in a subtest and checks the answer and that
// nothing stored changed.
func (h *hostile) run(t *testing.T, attacks []attack) {
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			h.t = t
			defer func() { h.t = t }()
			before := h.snapshot()
			r := h.send(a.method, a.path, a.query, a.body, a.hdr...)
			if a.code != "" {
				h.want(r, a.status, a.code)
			} else {
				h.want(r, a.status)
			}
			h.untouched(before)
		})
	}
}

// TestHostilePathTraversal sends keys and bucket names with "..",
// encoded and raw, and backslashes. Keys are S3 keys, never paths: a read
// of a traversing key finds no object, and nothing outside the bucket is
// read, written or removed.
func TestHostilePathTraversal(t *testing.T) {
	h := startHostile(t)
	h.want(h.send(http.MethodPut, "/other", "", nil), 200)
	h.want(h.send(http.MethodPut, "/other/secret.txt", "", []byte("other bucket's secret")), 200)
	out := url.PathEscape(filepath.Base(h.outside))
	b := "/" + h.bucket
	h.run(t, []attack{
		{name: "GET raw ../ into another bucket", method: "GET", path: b + "/../other/secret.txt", status: 404, code: "NoSuchKey"},
		{name: "GET %2e%2e into another bucket", method: "GET", path: b + "/%2e%2e/other/secret.txt", status: 404, code: "NoSuchKey"},
		{name: "GET ..%2F out of the root", method: "GET", path: b + "/..%2F..%2F" + out + "%2Foutside.txt", status: 404, code: "NoSuchKey"},
		{name: "GET backslash traversal", method: "GET", path: b + "/..%5C..%5C" + out + "%5Coutside.txt", status: 404, code: "NoSuchKey"},
		{name: "GET /../ before the bucket", method: "GET", path: "/../" + h.bucket + "/" + victimKey, status: 404, code: "NoSuchBucket"},
		{name: "GET bucket ..%2F out of the root", method: "GET", path: "/..%2F" + out + "/outside.txt", status: 404, code: "NoSuchBucket"},
		{name: "HEAD traversal", method: "HEAD", path: b + "/../" + victimKey, status: 404},
		{name: "DELETE ../ of another bucket's object", method: "DELETE", path: b + "/../other/secret.txt", status: 204},
		{name: "DELETE ..%2F out of the root", method: "DELETE", path: b + "/..%2F..%2F" + out + "%2Foutside.txt", status: 204},
		{name: "CreateBucket ..", method: "PUT", path: "/%2e%2e", status: 400, code: "InvalidBucketName"},
		{name: "CreateBucket with backslash", method: "PUT", path: "/a%5C..%5Cb", status: 400, code: "InvalidBucketName"},
		{name: "CopyObject from ../ of another bucket", method: "PUT", path: b + "/copy.txt", hdr: []string{"X-Amz-Copy-Source", h.bucket + "/../other/secret.txt"}, status: 404, code: "NoSuchKey"},
		{name: "CopyObject from outside the root", method: "PUT", path: b + "/copy.txt", hdr: []string{"X-Amz-Copy-Source", "/..%2F" + out + "/outside.txt"}, status: 404, code: "NoSuchBucket"},
		{name: "ListObjects prefix ../", method: "GET", path: "/%2e%2e", query: "list-type=2&prefix=..%2F", status: 404, code: "NoSuchBucket"},
	})

	// A write to a traversing key is, in S3, a write of that key: it
	// succeeds, is stored inside the bucket (in the shadow area) and
	// changes nothing outside the bucket.
	for _, key := range []string{"../other/secret.txt", "..%2F..%2F" + out + "%2Foutside.txt", "%2e%2e%2F%2e%2e%2Fx", "..%5C..%5Cwin.txt", "a/../../b"} {
		t.Run("PUT "+strings.ReplaceAll(key, out, "OUTSIDE"), func(t *testing.T) {
			h.t = t
			other := tree(t, filepath.Join(h.Root, "other"))
			outside := tree(t, h.outside)
			h.want(h.send(http.MethodPut, b+"/"+key, "", []byte("pwned")), 200)
			r := h.send(http.MethodGet, b+"/"+key, "", nil)
			if r.StatusCode != 200 || string(r.body) != "pwned" {
				t.Errorf("GET it back: %d %q", r.StatusCode, r.body)
			}
			h.want(h.send(http.MethodDelete, b+"/"+key, "", nil), 204)
			if got := tree(t, filepath.Join(h.Root, "other")); fmt.Sprint(got) != fmt.Sprint(other) {
				t.Errorf("other bucket changed: %v → %v", other, got)
			}
			if got := tree(t, h.outside); fmt.Sprint(got) != fmt.Sprint(outside) {
				t.Errorf("outside changed: %v → %v", outside, got)
			}
			h.noStaging()
		})
	}
	if b, _ := os.ReadFile(filepath.Join(h.outside, "outside.txt")); string(b) != outsideTxt {
		t.Fatalf("outside.txt is now %q", b)
	}
}

// TestHostileStateDirectory addresses the state directory as a bucket.
// S3 bucket names cannot start with '.', so every such request is
// InvalidBucketName and the index, staging area and credentials are never
// reached; "objectgateway" without the dot is an ordinary bucket.
func TestHostileStateDirectory(t *testing.T) {
	h := startHostile(t)
	h.run(t, []attack{
		{name: "CreateBucket .objectgateway", method: "PUT", path: "/.objectgateway", status: 400, code: "InvalidBucketName"},
		{name: "GET .objectgateway/index.db", method: "GET", path: "/.objectgateway/index.db", status: 404, code: "NoSuchBucket"},
		{name: "PUT .objectgateway/index.db", method: "PUT", path: "/.objectgateway/index.db", body: []byte("garbage"), status: 404, code: "NoSuchBucket"},
		{name: "PUT .objectgateway/staging/x", method: "PUT", path: "/.objectgateway/staging/x", body: []byte("garbage"), status: 404, code: "NoSuchBucket"},
		{name: "DELETE .objectgateway/credentials.json", method: "DELETE", path: "/.objectgateway/credentials.json", status: 404, code: "NoSuchBucket"},
		{name: "DeleteBucket .objectgateway", method: "DELETE", path: "/.objectgateway", status: 404, code: "NoSuchBucket"},
		{name: "ListObjects .objectgateway", method: "GET", path: "/.objectgateway", query: "list-type=2", status: 404, code: "NoSuchBucket"},
		{name: "GET %2Eobjectgateway", method: "GET", path: "/%2Eobjectgateway/index.db", status: 404, code: "NoSuchBucket"},
		{name: "CreateBucket .OBJECTGATEWAY", method: "PUT", path: "/.OBJECTGATEWAY", status: 400, code: "InvalidBucketName"},
		{name: "CopyObject from .objectgateway/index.db", method: "PUT", path: "/" + h.bucket + "/copy", hdr: []string{"X-Amz-Copy-Source", ".objectgateway/index.db"}, status: 404, code: "NoSuchBucket"},
		{name: "GET key ../.objectgateway/index.db", method: "GET", path: "/" + h.bucket + "/../.objectgateway/index.db", status: 404, code: "NoSuchKey"},
	})
	t.Run("objectgateway is an ordinary bucket", func(t *testing.T) {
		h.t = t
		h.want(h.send(http.MethodPut, "/objectgateway", "", nil), 200)
		h.want(h.send(http.MethodPut, "/objectgateway/index.db", "", []byte("mine")), 200)
		if b, err := os.ReadFile(filepath.Join(h.Root, "objectgateway", "index.db")); err != nil || string(b) != "mine" {
			t.Fatalf("objectgateway/index.db: %q %v", b, err)
		}
		h.want(h.send(http.MethodGet, "/"+h.bucket+"/"+victimKey, "", nil), 200)
	})
}

// TestHostileNames sends NUL bytes, overlong segments and overlong keys.
func TestHostileNames(t *testing.T) {
	h := startHostile(t)
	b := "/" + h.bucket
	long := strings.Repeat("k", 1025)
	h.run(t, []attack{
		{name: "key longer than 1024 bytes", method: "PUT", path: b + "/" + long, body: []byte("x"), status: 400, code: "KeyTooLongError"},
		{name: "GET key longer than 1024 bytes", method: "GET", path: b + "/" + long, status: 400, code: "KeyTooLongError"},
		{name: "bucket name with NUL", method: "PUT", path: "/a%00b", status: 400, code: "InvalidBucketName"},
		{name: "bucket name of 64 characters", method: "PUT", path: "/" + strings.Repeat("b", 64), status: 400, code: "InvalidBucketName"},
		{name: "GET NUL key truncating to the victim", method: "GET", path: b + "/" + victimKey + "%00.jpg", status: 404, code: "NoSuchKey"},
		{name: "key that is not UTF-8", method: "PUT", path: b + "/%ff%fe", body: []byte("x"), status: 400, code: "InvalidURI"},
	})
	// S3 accepts NUL and 1024-byte keys: they are stored (in the shadow
	// area) without touching the object whose name is their prefix.
	for _, key := range []string{victimKey + "%00.jpg", "%00", strings.Repeat("s", 300) + "/x", strings.Repeat("a/", 511) + "z"} {
		t.Run("PUT "+key[:min(len(key), 24)], func(t *testing.T) {
			h.t = t
			h.want(h.send(http.MethodPut, b+"/"+key, "", []byte("stored")), 200)
			r := h.send(http.MethodGet, b+"/"+key, "", nil)
			if r.StatusCode != 200 || string(r.body) != "stored" {
				t.Errorf("GET it back: %d %q", r.StatusCode, r.body)
			}
			r = h.send(http.MethodGet, b+"/"+victimKey, "", nil)
			if string(r.body) != victimData {
				t.Errorf("victim now %q", r.body)
			}
			h.want(h.send(http.MethodDelete, b+"/"+key, "", nil), 204)
			h.noStaging()
		})
	}
}

// billionLaughs is the classic entity-expansion bomb around el.
func billionLaughs(open, close string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">`)
	prev := "lol"
	for i := 1; i <= 9; i++ {
		cur := fmt.Sprintf("lol%d", i)
		b.WriteString(`<!ENTITY ` + cur + ` "` + strings.Repeat("&"+prev+";", 10) + `">`)
		prev = cur
	}
	b.WriteString(`]>` + open + "&lol9;" + close)
	return []byte(b.String())
}

// xxe is an external entity reading a local file into el.
func xxe(open, close string) []byte {
	return []byte(`<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` + open + "&xxe;" + close)
}

// TestHostileXML sends entity-expansion bombs, external entities, deep
// nesting and oversized documents to every operation with an XML (or
// JSON) body. Go's encoding/xml expands only the five predefined entities
// and never reads a DTD, so a bomb or an external entity is an undefined
// entity: MalformedXML. Oversized bodies are refused at their limit.
func TestHostileXML(t *testing.T) {
	h := startHostile(t)
	r := h.send(http.MethodPost, "/"+h.bucket+"/mp", "uploads", nil)
	h.want(r, 200)
	id := between(string(r.body), "<UploadId>", "</UploadId>")
	obj := "/" + h.bucket + "/" + victimKey
	deep := []byte("<Delete>" + strings.Repeat("<a>", 100000) + strings.Repeat("</a>", 100000) + "</Delete>")
	var delMany strings.Builder
	delMany.WriteString("<Delete>")
	for i := 0; i < 1001; i++ {
		fmt.Fprintf(&delMany, "<Object><Key>%s</Key></Object>", victimKey)
	}
	delMany.WriteString("</Delete>")
	pad := func(doc string, n int) []byte { return []byte(doc + strings.Repeat(" ", n-len(doc))) }
	tagDoc := `<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>`
	corsDoc := `<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`
	var tags11 strings.Builder
	tags11.WriteString("<Tagging><TagSet>")
	for i := 0; i < 11; i++ {
		fmt.Fprintf(&tags11, "<Tag><Key>k%d</Key><Value>v</Value></Tag>", i)
	}
	tags11.WriteString("</TagSet></Tagging>")
	lockDoc := pad(`<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>`, 64<<10+1)
	lockMD5 := md5.Sum(lockDoc)
	h.run(t, []attack{
		{name: "PutBucketVersioning billion laughs", method: "PUT", path: "/" + h.bucket, query: "versioning", body: billionLaughs("<VersioningConfiguration><Status>", "</Status></VersioningConfiguration>"), status: 400, code: "MalformedXML"},
		{name: "PutBucketVersioning over 64 KiB", method: "PUT", path: "/" + h.bucket, query: "versioning", body: pad("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>", 64<<10+1), status: 400, code: "MaxMessageLengthExceeded"},
		{name: "PutObjectLockConfiguration over 64 KiB", method: "PUT", path: "/" + h.bucket, query: "object-lock", body: lockDoc, hdr: []string{"Content-MD5", base64.StdEncoding.EncodeToString(lockMD5[:])}, status: 400, code: "MaxMessageLengthExceeded"},
		{name: "DeleteObjects billion laughs", method: "POST", path: "/" + h.bucket, query: "delete", body: billionLaughs("<Delete><Object><Key>", "</Key></Object></Delete>"), status: 400, code: "MalformedXML"},
		{name: "DeleteObjects external entity", method: "POST", path: "/" + h.bucket, query: "delete", body: xxe("<Delete><Object><Key>", "</Key></Object></Delete>"), status: 400, code: "MalformedXML"},
		{name: "DeleteObjects deep nesting", method: "POST", path: "/" + h.bucket, query: "delete", body: deep, status: 400, code: "MalformedXML"},
		{name: "DeleteObjects 1001 keys", method: "POST", path: "/" + h.bucket, query: "delete", body: []byte(delMany.String()), status: 400, code: "MalformedXML"},
		{name: "DeleteObjects over 2 MiB", method: "POST", path: "/" + h.bucket, query: "delete", body: pad("<Delete><Object><Key>"+victimKey+"</Key></Object></Delete>", 2<<20+1), status: 400, code: "MaxMessageLengthExceeded"},
		{name: "CompleteMultipartUpload billion laughs", method: "POST", path: "/" + h.bucket + "/mp", query: "uploadId=" + id, body: billionLaughs("<CompleteMultipartUpload><Part><ETag>", "</ETag><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>"), status: 400, code: "MalformedXML"},
		{name: "CompleteMultipartUpload external entity", method: "POST", path: "/" + h.bucket + "/mp", query: "uploadId=" + id, body: xxe("<CompleteMultipartUpload><Part><ETag>", "</ETag><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>"), status: 400, code: "MalformedXML"},
		{name: "CompleteMultipartUpload over 4 MiB", method: "POST", path: "/" + h.bucket + "/mp", query: "uploadId=" + id, body: pad("<CompleteMultipartUpload></CompleteMultipartUpload>", 4<<20+1), status: 400, code: "MaxMessageLengthExceeded"},
		{name: "PutObjectTagging billion laughs", method: "PUT", path: obj, query: "tagging", body: billionLaughs("<Tagging><TagSet><Tag><Key>k</Key><Value>", "</Value></Tag></TagSet></Tagging>"), status: 400, code: "MalformedXML"},
		{name: "PutObjectTagging external entity", method: "PUT", path: obj, query: "tagging", body: xxe("<Tagging><TagSet><Tag><Key>k</Key><Value>", "</Value></Tag></TagSet></Tagging>"), status: 400, code: "MalformedXML"},
		{name: "PutObjectTagging over 64 KiB", method: "PUT", path: obj, query: "tagging", body: pad(tagDoc, 64<<10+1), status: 400, code: "MaxMessageLengthExceeded"},
		{name: "PutObjectTagging 11 tags", method: "PUT", path: obj, query: "tagging", body: []byte(tags11.String()), status: 400, code: "InvalidTag"},
		{name: "PutBucketCors billion laughs", method: "PUT", path: "/" + h.bucket, query: "cors", body: billionLaughs("<CORSConfiguration><CORSRule><AllowedOrigin>", "</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>"), status: 400, code: "MalformedXML"},
		{name: "PutBucketCors external entity", method: "PUT", path: "/" + h.bucket, query: "cors", body: xxe("<CORSConfiguration><CORSRule><AllowedOrigin>", "</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>"), status: 400, code: "MalformedXML"},
		{name: "PutBucketCors over 64 KiB", method: "PUT", path: "/" + h.bucket, query: "cors", body: pad(corsDoc, 64<<10+1), status: 400, code: "MaxMessageLengthExceeded"},
		{name: "PutBucketPolicy deep JSON nesting", method: "PUT", path: "/" + h.bucket, query: "policy", body: []byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)), status: 400, code: "MalformedPolicy"},
		{name: "PutBucketPolicy over 20 KiB", method: "PUT", path: "/" + h.bucket, query: "policy", body: pad(`{"Statement":[]}`, 20<<10+1), status: 400, code: "MalformedPolicy"},
		{name: "PutBucketPolicy over 64 KiB", method: "PUT", path: "/" + h.bucket, query: "policy", body: pad(`{"Statement":[]}`, 64<<10+1), status: 400, code: "MaxMessageLengthExceeded"},
		{name: "PutBucketEncryption billion laughs", method: "PUT", path: "/" + h.bucket, query: "encryption", body: billionLaughs("<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>", "</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>"), status: 400, code: "MalformedXML"},
		{name: "PutBucketEncryption deep nesting", method: "PUT", path: "/" + h.bucket, query: "encryption", body: []byte("<ServerSideEncryptionConfiguration>" + strings.Repeat("<a>", 8000) + strings.Repeat("</a>", 8000) + "</ServerSideEncryptionConfiguration>"), status: 400, code: "MalformedXML"},
		{name: "PutBucketEncryption over 64 KiB", method: "PUT", path: "/" + h.bucket, query: "encryption", body: pad("<ServerSideEncryptionConfiguration/>", 64<<10+1), status: 400, code: "MaxMessageLengthExceeded"},
		{name: "CreateBucket billion laughs", method: "PUT", path: "/bomb-bucket", body: billionLaughs("<CreateBucketConfiguration><LocationConstraint>", "</LocationConstraint></CreateBucketConfiguration>"), status: 400, code: "MalformedXML"},
		{name: "CreateBucket over 64 KiB", method: "PUT", path: "/big-bucket", body: pad("<CreateBucketConfiguration/>", 64<<10+1), status: 400, code: "MaxMessageLengthExceeded"},
	})
	t.Run("oversized body without Content-Length", func(t *testing.T) {
		h.t = t
		before := h.snapshot()
		body := pad(tagDoc, 1<<20)
		req := h.rawRequest(http.MethodPut, obj, "tagging", nil)
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = -1 // chunked transfer coding: the limit applies while reading
		h.signAt(req, body, h.SecretKey, time.Now())
		resp, err := h.httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		wantXMLError(t, "chunked 1 MiB tagging", resp, b, 400, "MaxMessageLengthExceeded")
		h.untouched(before)
	})
}

func between(s, a, b string) string {
	_, s, _ = strings.Cut(s, a)
	s, _, _ = strings.Cut(s, b)
	return s
}

// chunkedPut sends an aws-chunked PUT of the victim key with the given
// (possibly malformed) encoded body, in mode (an x-amz-content-sha256
// streaming value).
func (h *hostile) chunkedPut(mode, decodedLen string, encoded []byte, trailer string) reply {
	h.t.Helper()
	req := h.rawRequest(http.MethodPut, "/"+h.bucket+"/"+victimKey, "", encoded)
	req.Header.Set("Content-Encoding", "aws-chunked")
	if decodedLen != "" {
		req.Header.Set("X-Amz-Decoded-Content-Length", decodedLen)
	}
	if trailer != "" {
		req.Header.Set("X-Amz-Trailer", trailer)
	}
	sigv4.SignRequest(req, h.AccessKey, h.SecretKey, h.Region, time.Now(), mode)
	resp, b := h.do(req, encoded, false)
	return reply{resp, b}
}

// TestHostileAWSChunked sends malformed aws-chunked bodies over the
// victim key: each is refused and the victim keeps its bytes.
func TestHostileAWSChunked(t *testing.T) {
	h := startHostile(t)
	const unsignedTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
	const signedChunks = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	zeros := strings.Repeat("0", 64)
	cases := []struct {
		name, mode, decoded, body, trailer string
		status                             int
		code                               string
	}{
		{"bad hex size", unsignedTrailer, "3", "zz\r\nabc\r\n0\r\n\r\n", "", 400, "IncompleteBody"},
		{"negative size", unsignedTrailer, "3", "-3\r\nabc\r\n0\r\n\r\n", "", 400, "IncompleteBody"},
		{"size overflowing int64", unsignedTrailer, "3", "fffffffffffffffffff\r\nabc\r\n0\r\n\r\n", "", 400, "IncompleteBody"},
		{"missing CRLF after the data", unsignedTrailer, "3", "3\r\nabcX0\r\n\r\n", "", 400, "IncompleteBody"},
		{"missing CRLF after the size", unsignedTrailer, "3", "3abc\r\n0\r\n\r\n", "", 400, "IncompleteBody"},
		{"chunk larger than declared", unsignedTrailer, "3", "5\r\nabcde\r\n0\r\n\r\n", "", 400, "IncompleteBody"},
		{"chunks shorter than declared", unsignedTrailer, "10", "3\r\nabc\r\n0\r\n\r\n", "", 400, "IncompleteBody"},
		{"truncated inside a chunk", unsignedTrailer, "5", "5\r\nab", "", 400, "IncompleteBody"},
		{"truncated before the final chunk", unsignedTrailer, "3", "3\r\nabc\r\n", "", 400, "IncompleteBody"},
		{"overlong chunk header", unsignedTrailer, "3", "3;" + strings.Repeat("x", 8192) + "\r\nabc\r\n0\r\n\r\n", "", 400, "IncompleteBody"},
		{"wrong trailer checksum", unsignedTrailer, "3", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n", "x-amz-checksum-crc32", 400, "BadDigest"},
		{"malformed trailer line", unsignedTrailer, "3", "3\r\nabc\r\n0\r\nno colon here\r\n\r\n", "x-amz-checksum-crc32", 400, "MalformedTrailerError"},
		{"trailer checksum not announced", unsignedTrailer, "3", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n", "", 400, "MalformedTrailerError"},
		{"trailer checksum other than announced", unsignedTrailer, "3", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32c:AAAAAA==\r\n\r\n", "x-amz-checksum-crc32", 400, "MalformedTrailerError"},
		{"trailer field beside the announced one", unsignedTrailer, "3", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32:QixqFQ==\r\nx-amz-checksum-crc32c:AAAAAA==\r\n\r\n", "x-amz-checksum-crc32", 400, "MalformedTrailerError"},
		{"trailer checksum repeated", unsignedTrailer, "3", "3\r\nabc\r\n0\r\nx-amz-checksum-crc32:QixqFQ==\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n", "x-amz-checksum-crc32", 400, "MalformedTrailerError"},
		{"bad decoded length", unsignedTrailer, "-1", "3\r\nabc\r\n0\r\n\r\n", "", 400, "InvalidArgument"},
		{"forged chunk signature", signedChunks, "3", "3;chunk-signature=" + zeros + "\r\nabc\r\n0;chunk-signature=" + zeros + "\r\n\r\n", "", 403, "SignatureDoesNotMatch"},
		{"missing chunk signature", signedChunks, "3", "3\r\nabc\r\n0\r\n\r\n", "", 403, "SignatureDoesNotMatch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.t = t
			before := h.snapshot()
			r := h.chunkedPut(c.mode, c.decoded, []byte(c.body), c.trailer)
			h.want(r, c.status, c.code)
			h.untouched(before)
		})
	}
}

// TestHostileReplay alters signed and presigned requests after signing:
// each change breaks the signature (or the payload hash) and nothing is
// read or written.
func TestHostileReplay(t *testing.T) {
	h := startHostile(t)
	obj := "/" + h.bucket + "/" + victimKey
	h.want(h.send(http.MethodPut, "/"+h.bucket+"/other.txt", "", []byte("other")), 200)
	signed := func(method, path, query string, body []byte) *http.Request {
		req := h.rawRequest(method, path, query, body)
		h.signAt(req, body, h.SecretKey, time.Now())
		return req
	}
	send := func(t *testing.T, req *http.Request) reply {
		t.Helper()
		resp, b := h.do(req, nil, false)
		return reply{resp, b}
	}
	cases := []struct {
		name   string
		req    func() *http.Request
		status int
		code   string
	}{
		{"path changed to another key", func() *http.Request {
			r := signed("GET", "/"+h.bucket+"/other.txt", "", nil)
			r.URL.Path, r.URL.RawPath = obj, ""
			return r
		}, 403, "SignatureDoesNotMatch"},
		{"DELETE replayed as another key", func() *http.Request {
			r := signed("DELETE", "/"+h.bucket+"/other.txt", "", nil)
			r.URL.Path = obj
			return r
		}, 403, "SignatureDoesNotMatch"},
		{"method changed GET to DELETE", func() *http.Request {
			r := signed("GET", obj, "", nil)
			r.Method = "DELETE"
			return r
		}, 403, "SignatureDoesNotMatch"},
		{"query parameter added", func() *http.Request {
			r := signed("GET", "/"+h.bucket, "list-type=2", nil)
			r.URL.RawQuery = "list-type=2&prefix=v"
			return r
		}, 403, "SignatureDoesNotMatch"},
		{"query changed to a subresource", func() *http.Request {
			r := signed("DELETE", "/"+h.bucket+"/other.txt", "", nil)
			r.URL.Path, r.URL.RawQuery = obj, "tagging"
			return r
		}, 403, "SignatureDoesNotMatch"},
		{"signed header changed", func() *http.Request {
			r := signed("GET", obj, "", nil)
			r.Header.Set("X-Amz-Date", time.Now().Add(time.Minute).UTC().Format("20060102T150405Z"))
			return r
		}, 403, "SignatureDoesNotMatch"},
		{"signed header added after signing", func() *http.Request {
			r := signed("PUT", "/"+h.bucket+"/other.txt", "", []byte("x"))
			r.Header.Set("X-Amz-Copy-Source", h.bucket+"/"+victimKey)
			return r
		}, 403, "AccessDenied"},
		{"PUT body replaced, payload hash kept", func() *http.Request {
			r := signed("PUT", obj, "", []byte(victimData))
			evil := []byte("evil bytes of the same size")[:len(victimData)]
			r.Body = io.NopCloser(bytes.NewReader(evil))
			return r
		}, 400, "XAmzContentSHA256Mismatch"},
		{"PUT replayed with the wrong key's signature", func() *http.Request {
			r := signed("PUT", "/"+h.bucket+"/other.txt", "", []byte("x"))
			r.URL.Path = obj
			return r
		}, 403, "SignatureDoesNotMatch"},
	}
	presigned := func(method, path string, expires time.Duration) *http.Request {
		req := h.rawRequest(method, path, "", nil)
		sigv4.Presign(req, h.AccessKey, h.SecretKey, h.Region, time.Now(), expires)
		return req
	}
	withQuery := func(r *http.Request, name, value string) *http.Request {
		q := r.URL.Query()
		q.Set(name, value)
		r.URL.RawQuery = q.Encode()
		return r
	}
	cases = append(cases, []struct {
		name   string
		req    func() *http.Request
		status int
		code   string
	}{
		{"presigned expiry extended", func() *http.Request {
			return withQuery(presigned("GET", obj, time.Minute), "X-Amz-Expires", "604800")
		}, 403, "SignatureDoesNotMatch"},
		{"presigned expiry beyond 7 days", func() *http.Request {
			return withQuery(presigned("GET", obj, time.Minute), "X-Amz-Expires", "604801")
		}, 400, "AuthorizationQueryParametersError"},
		{"presigned date moved", func() *http.Request {
			return withQuery(presigned("GET", obj, time.Minute), "X-Amz-Date", time.Now().Add(time.Hour).UTC().Format("20060102T150405Z"))
		}, 403, "AccessDenied"},
		{"presigned date moved back", func() *http.Request {
			return withQuery(presigned("GET", obj, time.Minute), "X-Amz-Date", time.Now().Add(-30*time.Second).UTC().Format("20060102T150405Z"))
		}, 403, "SignatureDoesNotMatch"},
		{"presigned expired", func() *http.Request {
			req := h.rawRequest("GET", obj, "", nil)
			sigv4.Presign(req, h.AccessKey, h.SecretKey, h.Region, time.Now().Add(-2*time.Minute), time.Minute)
			return req
		}, 403, "AccessDenied"},
		{"presigned GET used for DELETE", func() *http.Request {
			r := presigned("GET", obj, time.Minute)
			r.Method = "DELETE"
			return r
		}, 403, "SignatureDoesNotMatch"},
		{"presigned GET used for another key", func() *http.Request {
			r := presigned("GET", "/"+h.bucket+"/other.txt", time.Minute)
			r.URL.Path = obj
			return r
		}, 403, "SignatureDoesNotMatch"},
		{"presigned signature truncated", func() *http.Request {
			r := presigned("GET", obj, time.Minute)
			return withQuery(r, "X-Amz-Signature", r.URL.Query().Get("X-Amz-Signature")[:63])
		}, 403, "SignatureDoesNotMatch"},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.t = t
			before := h.snapshot()
			r := send(t, c.req())
			h.want(r, c.status, c.code)
			h.untouched(before)
			if r := h.send(http.MethodGet, "/"+h.bucket+"/other.txt", "", nil); string(r.body) != "other" {
				t.Errorf("other.txt now %d %q", r.StatusCode, r.body)
			}
		})
	}
}

// TestHostileRange sends absurd Range headers: unsatisfiable ones get
// 416 InvalidRange, syntactically invalid ones are ignored as S3 does
// (200 with the whole object), and none reads past the object.
func TestHostileRange(t *testing.T) {
	h := startHostile(t)
	obj := "/" + h.bucket + "/" + victimKey
	n := len(victimData)
	cases := []struct {
		rng    string
		status int
		want   string
	}{
		{"bytes=99999999999999999999999-", 416, ""},
		{"bytes=9223372036854775807-", 416, ""},
		{"bytes=0-9223372036854775807", 206, victimData},
		{"bytes=0-99999999999999999999999", 206, victimData},
		{"bytes=-9223372036854775807", 206, victimData},
		{"bytes=-0", 416, ""},
		{"bytes=5-2", 200, victimData},
		{"bytes=-1-2", 200, victimData},
		{"bytes=0x10-", 200, victimData},
		{"bytes= 1 - 2 ", 200, victimData},
		{"bytes=1-2,3-4", 200, victimData},
		{"bytes=" + strings.Repeat("0-1,", 10000) + "0-1", 200, victimData},
		{"bytes=" + fmt.Sprint(n) + "-", 416, ""},
		{"bits=0-1", 200, victimData},
	}
	for _, c := range cases {
		t.Run(c.rng[:min(len(c.rng), 40)], func(t *testing.T) {
			h.t = t
			r := h.send(http.MethodGet, obj, "", nil, "Range", c.rng)
			if c.status == 416 {
				h.want(r, 416, "InvalidRange")
				return
			}
			h.want(r, c.status)
			if string(r.body) != c.want {
				t.Errorf("body %q, want %q", r.body, c.want)
			}
		})
	}
}

// TestHostileSymlinks plants symbolic links inside a bucket, behind the
// gateway's back, pointing outside the root and into the state directory,
// and swaps an object's file and a bucket's directory for links. No
// request reads, writes or removes anything through them.
func TestHostileSymlinks(t *testing.T) {
	h := startHostile(t)
	b := "/" + h.bucket
	bdir := filepath.Join(h.Root, h.bucket)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(h.outside, filepath.Join(bdir, "escape")))
	must(os.Symlink("../.objectgateway", filepath.Join(bdir, "state")))
	must(os.Symlink(filepath.Join(h.outside, "outside.txt"), filepath.Join(bdir, "leak.txt")))
	h.want(h.send(http.MethodPut, b+"/swapped.txt", "", []byte("indexed")), 200)
	must(os.Remove(filepath.Join(bdir, "swapped.txt")))
	must(os.Symlink(filepath.Join(h.outside, "outside.txt"), filepath.Join(bdir, "swapped.txt")))

	notOutside := func(t *testing.T, r reply) {
		t.Helper()
		if bytes.Contains(r.body, []byte(outsideTxt)) {
			t.Fatalf("%s %s served the outside file", r.Request.Method, r.Request.URL.Path)
		}
	}
	h.run(t, []attack{
		{name: "GET through a directory link out of the root", method: "GET", path: b + "/escape/outside.txt", status: 404, code: "NoSuchKey"},
		{name: "GET through a link into the state directory", method: "GET", path: b + "/state/index.db", status: 404, code: "NoSuchKey"},
		{name: "GET a file link out of the root", method: "GET", path: b + "/leak.txt", status: 404, code: "NoSuchKey"},
		{name: "GET an indexed object swapped for a link", method: "GET", path: b + "/swapped.txt", status: 403, code: "AccessDenied"},
		{name: "PUT through a directory link out of the root", method: "PUT", path: b + "/escape/outside.txt", body: []byte("pwned"), status: 403, code: "AccessDenied"},
		{name: "PUT new file through a directory link", method: "PUT", path: b + "/escape/new.txt", body: []byte("pwned"), status: 403, code: "AccessDenied"},
		{name: "PUT through a link into the state directory", method: "PUT", path: b + "/state/index.db", body: []byte("pwned"), status: 403, code: "AccessDenied"},
		{name: "DELETE through a directory link out of the root", method: "DELETE", path: b + "/escape/outside.txt", status: 204},
		{name: "DELETE through a link into the state directory", method: "DELETE", path: b + "/state/index.db", status: 204},
		{name: "CopyObject from a file link", method: "PUT", path: b + "/copy.txt", hdr: []string{"X-Amz-Copy-Source", h.bucket + "/leak.txt"}, status: 404, code: "NoSuchKey"},
		{name: "CopyObject from a swapped object", method: "PUT", path: b + "/copy.txt", hdr: []string{"X-Amz-Copy-Source", h.bucket + "/swapped.txt"}, status: 403, code: "AccessDenied"},
	})
	t.Run("PUT over an object swapped for a link replaces the link", func(t *testing.T) {
		h.t = t
		h.want(h.send(http.MethodPut, b+"/swapped.txt", "", []byte("new")), 200)
		if fi, err := os.Lstat(filepath.Join(bdir, "swapped.txt")); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("swapped.txt after PUT: %v %v", fi, err)
		}
		if got, _ := os.ReadFile(filepath.Join(h.outside, "outside.txt")); string(got) != outsideTxt {
			t.Fatalf("outside.txt now %q", got)
		}
	})
	t.Run("DELETE of an object swapped for a link removes the link only", func(t *testing.T) {
		h.t = t
		h.want(h.send(http.MethodPut, b+"/swapped2.txt", "", []byte("indexed")), 200)
		must(os.Remove(filepath.Join(bdir, "swapped2.txt")))
		must(os.Symlink(filepath.Join(h.outside, "outside.txt"), filepath.Join(bdir, "swapped2.txt")))
		r := h.send(http.MethodDelete, b+"/swapped2.txt", "", nil)
		notOutside(t, r)
		if got, err := os.ReadFile(filepath.Join(h.outside, "outside.txt")); err != nil || string(got) != outsideTxt {
			t.Fatalf("outside.txt now %q %v", got, err)
		}
	})
	t.Run("bucket directory swapped for a link", func(t *testing.T) {
		h.t = t
		h.want(h.send(http.MethodPut, "/swapbucket", "", nil), 200)
		h.want(h.send(http.MethodPut, "/swapbucket/outside.txt", "", []byte("indexed")), 200)
		dir := filepath.Join(h.Root, "swapbucket")
		must(os.Rename(dir, dir+".moved"))
		must(os.Symlink(h.outside, dir))
		before := tree(t, h.outside)
		for _, r := range []reply{
			h.send(http.MethodGet, "/swapbucket/outside.txt", "", nil),
			h.send(http.MethodPut, "/swapbucket/outside.txt", "", []byte("pwned")),
			h.send(http.MethodPut, "/swapbucket/new.txt", "", []byte("pwned")),
			h.send(http.MethodDelete, "/swapbucket/outside.txt", "", nil),
		} {
			notOutside(t, r)
			if r.StatusCode >= 500 {
				t.Errorf("%s %s: %d %s", r.Request.Method, r.Request.URL.Path, r.StatusCode, r.body)
			}
		}
		if got := tree(t, h.outside); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Fatalf("outside changed: %v → %v", before, got)
		}
		h.noStaging()
	})
}

// TestHostileSymlinkRace flips a directory inside a bucket between a real
// directory and a link out of the root while PUTs, GETs and DELETEs run
// through it. Whatever the interleaving, nothing outside the root is read
// or written.
func TestHostileSymlinkRace(t *testing.T) {
	h := startHostile(t)
	bdir := filepath.Join(h.Root, h.bucket)
	before := tree(t, h.outside)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		link := filepath.Join(bdir, "race")
		for !stop.Load() {
			_ = os.RemoveAll(link)
			_ = os.Mkdir(link, 0o755)
			_ = os.RemoveAll(link)
			_ = os.Symlink(h.outside, link)
		}
	}()
	var leaks atomic.Int64
	var clientWG sync.WaitGroup
	for w := 0; w < 4; w++ {
		clientWG.Add(1)
		go func(w int) {
			defer clientWG.Done()
			for i := 0; i < 50; i++ {
				key := fmt.Sprintf("/%s/race/outside.txt", h.bucket)
				if i%2 == 1 {
					key = fmt.Sprintf("/%s/race/w%d-%d.txt", h.bucket, w, i)
				}
				for _, m := range []string{http.MethodPut, http.MethodGet, http.MethodDelete} {
					var body []byte
					if m == http.MethodPut {
						body = []byte("pwned")
					}
					req := h.rawRequest(m, key, "", body)
					h.signAt(req, body, h.SecretKey, time.Now())
					resp, err := h.httpClient().Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if bytes.Contains(b, []byte(outsideTxt)) {
						leaks.Add(1)
					}
					if resp.StatusCode >= 500 {
						t.Errorf("%s %s: %d %s", m, key, resp.StatusCode, b)
					}
				}
			}
		}(w)
	}
	clientWG.Wait()
	stop.Store(true)
	wg.Wait()
	if n := leaks.Load(); n > 0 {
		t.Errorf("%d responses served the outside file", n)
	}
	if got := tree(t, h.outside); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("outside changed: %v → %v", before, got)
	}
}

// TestLimitsObjectSizes checks the size limits declared up front: a
// single PUT over 5 GiB and a part over 5 GiB are EntityTooLarge before a
// byte of the body is read; user metadata over 2 KiB is MetadataTooLarge.
func TestLimitsObjectSizes(t *testing.T) {
	h := startHostile(t)
	r := h.send(http.MethodPost, "/"+h.bucket+"/big", "uploads", nil)
	h.want(r, 200)
	id := between(string(r.body), "<UploadId>", "</UploadId>")
	for _, c := range []struct{ name, path, query, code string }{
		{"PutObject of 5 GiB + 1", "/" + h.bucket + "/" + victimKey, "", "EntityTooLarge"},
		{"UploadPart of 5 GiB + 1", "/" + h.bucket + "/big", "partNumber=1&uploadId=" + id, "EntityTooLarge"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := h.snapshot()
			// Only the headers are sent: the answer must come without the
			// body.
			resp := h.headersOnly(t, http.MethodPut, c.path, c.query, 5<<30+1)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			wantXMLError(t, c.name, resp, b, 400, c.code)
			h.t = t
			h.untouched(before)
		})
	}
	t.Run("metadata over 2 KiB", func(t *testing.T) {
		h.t = t
		before := h.snapshot()
		r := h.send(http.MethodPut, "/"+h.bucket+"/"+victimKey, "", []byte("new"), "X-Amz-Meta-Big", strings.Repeat("m", 2048))
		h.want(r, 400, "MetadataTooLarge")
		h.untouched(before)
	})
	t.Run("metadata of exactly 2 KiB", func(t *testing.T) {
		h.t = t
		h.want(h.send(http.MethodPut, "/"+h.bucket+"/meta", "", []byte("ok"), "X-Amz-Meta-Big", strings.Repeat("m", 2048-3)), 200)
	})
	// Each header field costs the request's header map about 140 bytes
	// for as long as the request is served; 5,000 small fields fit in
	// net/http's 64 KiB.
	fields := func(n int) []string {
		var hdr []string
		for i := range n {
			hdr = append(hdr, fmt.Sprintf("X-F%d", i), "v")
		}
		return hdr
	}
	t.Run("5000 header fields", func(t *testing.T) {
		h.t = t
		before := h.snapshot()
		r := h.send(http.MethodPut, "/"+h.bucket+"/"+victimKey, "", []byte("new"), fields(5000)...)
		h.want(r, 400, "RequestHeaderSectionTooLarge")
		h.untouched(before)
	})
	t.Run("one field repeated 5000 times", func(t *testing.T) {
		h.t = t
		before := h.snapshot()
		req := h.rawRequest(http.MethodGet, "/"+h.bucket+"/"+victimKey, "", nil)
		for range 5000 {
			req.Header.Add("X-F", "v")
		}
		sigv4.SignRequest(req, h.AccessKey, h.SecretKey, h.Region, time.Now(), "UNSIGNED-PAYLOAD")
		resp, b := h.do(req, nil, false)
		h.want(reply{resp, b}, 400, "RequestHeaderSectionTooLarge")
		h.untouched(before)
	})
	t.Run("header fields just under and over the limit", func(t *testing.T) {
		h.t = t
		// The request's own fields (Host is not one of them; the
		// signature's, User-Agent, Content-Length, Accept-Encoding)
		// and the added ones make the limit.
		req := h.rawRequest(http.MethodPut, "/"+h.bucket+"/fields", "", []byte("ok"))
		sigv4.SignRequest(req, h.AccessKey, h.SecretKey, h.Region, time.Now(), "UNSIGNED-PAYLOAD")
		own := len(req.Header) + 3
		hdr := fields(1024 - own)
		h.want(h.send(http.MethodPut, "/"+h.bucket+"/fields", "", []byte("ok"), hdr...), 200)
		h.want(h.send(http.MethodPut, "/"+h.bucket+"/fields", "", []byte("ok"), fields(1024-own+1+10)...), 400, "RequestHeaderSectionTooLarge")
	})
}

// headersOnly writes a signed request's headers, declaring contentLength
// bytes of UNSIGNED-PAYLOAD body, sends none of it, and returns the
// response.
func (h *hostile) headersOnly(t *testing.T, method, path, query string, contentLength int64) *http.Response {
	t.Helper()
	req := h.rawRequest(method, path, query, nil)
	req.ContentLength = contentLength
	sigv4.SignRequest(req, h.AccessKey, h.SecretKey, h.Region, time.Now(), "UNSIGNED-PAYLOAD")
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.Endpoint, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", method, req.URL.RequestURI(), req.Host, contentLength)
	for k, vs := range req.Header {
		for _, v := range vs {
			fmt.Fprintf(&head, "%s: %s\r\n", k, v)
		}
	}
	head.WriteString("\r\n")
	if _, err := conn.Write(head.Bytes()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// TestLimitsBodyTimeout starts a PUT over the victim key, sends part of
// the body and stops: after the body timeout the gateway answers
// RequestTimeout and the victim keeps its bytes. A body that keeps coming,
// slower than the timeout in total, is stored.
func TestLimitsBodyTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	h := startHostile(t, func(o *api.Options) { o.BodyTimeout = timeout })
	for _, mode := range []string{"UNSIGNED-PAYLOAD", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"} {
		t.Run("stalled "+mode, func(t *testing.T) {
			h.t = t
			before := h.snapshot()
			body := bytes.Repeat([]byte("s"), 64<<10)
			sent := body[:1000]
			if mode != "UNSIGNED-PAYLOAD" {
				body = append(append([]byte("10000\r\n"), body...), "\r\n0\r\n\r\n"...)
				sent = body[:1000]
			}
			req := h.rawRequest(http.MethodPut, "/"+h.bucket+"/"+victimKey, "", body)
			if mode != "UNSIGNED-PAYLOAD" {
				req.Header.Set("Content-Encoding", "aws-chunked")
				req.Header.Set("X-Amz-Decoded-Content-Length", "65536")
			}
			sigv4.SignRequest(req, h.AccessKey, h.SecretKey, h.Region, time.Now(), mode)
			stalled := &stallingBody{data: sent, release: make(chan struct{})}
			defer close(stalled.release)
			req.Body = io.NopCloser(stalled)
			start := time.Now()
			resp, err := h.httpClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			wantXMLError(t, "stalled body", resp, b, 400, "RequestTimeout")
			if d := time.Since(start); d < timeout {
				t.Errorf("answered after %v, before the %v timeout", d, timeout)
			}
			h.untouched(before)
		})
	}
}

// TestLimitsBodyTimeoutSteady sends a body one byte every quarter of the
// body timeout, for four times the timeout in total: the timeout is an
// idle timeout, so the upload succeeds. The margin of each gap (a quarter
// of the timeout) keeps the test stable on a loaded machine.
func TestLimitsBodyTimeoutSteady(t *testing.T) {
	const timeout = 2 * time.Second
	h := startHostile(t, func(o *api.Options) { o.BodyTimeout = timeout })
	body := bytes.Repeat([]byte("x"), 16)
	req := h.rawRequest(http.MethodPut, "/"+h.bucket+"/steady", "", body)
	sigv4.SignRequest(req, h.AccessKey, h.SecretKey, h.Region, time.Now(), "UNSIGNED-PAYLOAD")
	req.Body = io.NopCloser(&tricklingBody{data: body, every: timeout / 4})
	resp, err := h.httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("steady upload over %v: %d", time.Duration(len(body))*timeout/4, resp.StatusCode)
	}
	if r := h.send(http.MethodGet, "/"+h.bucket+"/steady", "", nil); string(r.body) != string(body) {
		t.Fatalf("stored %q", r.body)
	}
}

// stallingBody yields data, then blocks until release.
type stallingBody struct {
	data    []byte
	release chan struct{}
}

func (s *stallingBody) Read(p []byte) (int, error) {
	if len(s.data) > 0 {
		n := copy(p, s.data)
		s.data = s.data[n:]
		return n, nil
	}
	<-s.release
	return 0, io.ErrUnexpectedEOF
}

// tricklingBody yields one byte every interval.
type tricklingBody struct {
	data  []byte
	every time.Duration
}

func (s *tricklingBody) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	// The trickle is the point of the test: a client sending one byte
	// per interval.
	<-time.After(s.every)
	p[0] = s.data[0]
	s.data = s.data[1:]
	return 1, nil
}
