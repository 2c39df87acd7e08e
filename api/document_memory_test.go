package api_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// serveDirect runs one request signed with UNSIGNED-PAYLOAD through the
// gateway's handler in this goroutine, without a network in between, so
// that what the request allocates is all the handler's.
func (g *gateway) serveDirect(method, path, query string, body []byte) *httptest.ResponseRecorder {
	g.t.Helper()
	req := g.directRequest(method, path, query, body)
	rec := httptest.NewRecorder()
	(*g.handler.Load()).ServeHTTP(rec, req)
	return rec
}

// directRequest is the server side request serveDirect sends.
func (g *gateway) directRequest(method, path, query string, body []byte) *http.Request {
	target := path
	if query != "" {
		target += "?" + query
	}
	req := httptest.NewRequest(method, g.Endpoint+target, bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	sigv4.SignRequest(req, g.AccessKey, g.SecretKey, g.Region, time.Now(), "UNSIGNED-PAYLOAD")
	return req
}

// allocated returns the bytes the heap handed out while f ran. TotalAlloc
// is cumulative, so the figure does not depend on when the collector runs
// or on the machine's speed.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// repeatTo returns head, then elem as many times as fits, then tail, in at
// most size bytes.
func repeatTo(size int, head, elem, tail string) []byte {
	n := (size - len(head) - len(tail)) / len(elem)
	return []byte(head + strings.Repeat(elem, n) + tail)
}

// tenThousandParts is the largest CompleteMultipartUpload an SDK sends:
// 10,000 parts with an ETag and a CRC32 checksum each.
func tenThousandParts() []byte {
	var b strings.Builder
	b.WriteString("<CompleteMultipartUpload>")
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&b, `<Part><ChecksumCRC32>AAAAAA==</ChecksumCRC32><ETag>"%032x"</ETag><PartNumber>%d</PartNumber></Part>`, i, i)
	}
	b.WriteString("</CompleteMultipartUpload>")
	return []byte(b.String())
}

// TestDocumentMemory sends the largest documents each operation accepts,
// made of elements that cost nothing to write (empty, unknown or repeated
// ones), and checks what the heap hands out while one request is handled:
// at most maxDocumentAllocation times the operation's body limit. Parsing
// such bodies with xml.Unmarshal into structs cost up to 127 times the
// limit (535 MB for a 4 MiB CompleteMultipartUpload of empty Part
// elements); docs/security.md lists the figures this test logs.
func TestDocumentMemory(t *testing.T) {
	const maxDocumentAllocation = 5
	// allocationSlack absorbs what the rest of the process allocates while
	// a request is measured.
	const allocationSlack = 256 << 10
	// maxCORSAllocation is the bound of a CORS configuration: its 64 KiB
	// may hold 8,192 XML tokens (pkg/cors maxTokens, room for 100 rules of
	// some twenty elements each), and a valid one of 4,086 empty elements
	// costs 32 times the limit in encoding/xml's tokens and the values
	// kept. xml.Unmarshal cost up to 114 times.
	const maxCORSAllocation = 36
	g := startGateway(t)
	if rec := g.serveDirect(http.MethodPut, "/docmem", "", nil); rec.Code != http.StatusOK {
		t.Fatalf("CreateBucket: %d %s", rec.Code, rec.Body)
	}
	if rec := g.serveDirect(http.MethodPut, "/docmem/k", "", []byte("x")); rec.Code != http.StatusOK {
		t.Fatalf("PutObject: %d %s", rec.Code, rec.Body)
	}
	rec := g.serveDirect(http.MethodPost, "/docmem/mp", "uploads", nil)
	var created struct {
		UploadID string `xml:"UploadId"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &created); err != nil || created.UploadID == "" {
		t.Fatalf("CreateMultipartUpload: %d %s", rec.Code, rec.Body)
	}
	rec = g.serveDirect(http.MethodGet, "/docmem", "acl", nil)
	var acl struct {
		Owner string `xml:"Owner>ID"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &acl); err != nil || acl.Owner == "" {
		t.Fatalf("GetBucketAcl: %d %s", rec.Code, rec.Body)
	}
	owner := acl.Owner
	fullControl := `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser"><ID>` + owner + `</ID></Grantee><Permission>FULL_CONTROL</Permission></Grant>`
	cases := []struct {
		name, method, path, query string
		limit                     int
		body                      []byte
		status                    int
		code                      string
		// maxTimes, when set, replaces maxDocumentAllocation.
		maxTimes uint64
	}{
		{"CompleteMultipartUpload of empty parts", http.MethodPost, "/docmem/mp", "uploadId=" + created.UploadID, 4 << 20,
			repeatTo(4<<20, "<CompleteMultipartUpload>", "<Part/>", "</CompleteMultipartUpload>"), 400, "InvalidArgument", 0},
		{"CompleteMultipartUpload of 10,000 parts with checksums", http.MethodPost, "/docmem/mp", "uploadId=" + created.UploadID, 4 << 20,
			tenThousandParts(), 400, "InvalidPart", 0},
		{"CompleteMultipartUpload of unknown elements", http.MethodPost, "/docmem/mp", "uploadId=" + created.UploadID, 4 << 20,
			repeatTo(4<<20, "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>", "<X/>", "</Part></CompleteMultipartUpload>"), 400, "MalformedXML", 0},
		{"DeleteObjects of empty objects", http.MethodPost, "/docmem", "delete", 2 << 20,
			repeatTo(2<<20, "<Delete>", "<Object/>", "</Delete>"), 400, "MalformedXML", 0},
		{"DeleteObjects of unknown elements", http.MethodPost, "/docmem", "delete", 2 << 20,
			repeatTo(2<<20, "<Delete><Object><Key>gone</Key></Object>", "<X/>", "</Delete>"), 400, "MalformedXML", 0},
		{"PutBucketAcl of owner grants", http.MethodPut, "/docmem", "acl", 2 << 20,
			repeatTo(2<<20, "<AccessControlPolicy><AccessControlList>", fullControl, "</AccessControlList></AccessControlPolicy>"), 400, "MalformedACLError", 0},
		{"PutBucketAcl of empty grants", http.MethodPut, "/docmem", "acl", 2 << 20,
			repeatTo(2<<20, "<AccessControlPolicy><AccessControlList>", "<Grant/>", "</AccessControlList></AccessControlPolicy>"), 400, "MalformedACLError", 0},
		{"PutObjectAcl of owner grants", http.MethodPut, "/docmem/k", "acl", 2 << 20,
			repeatTo(2<<20, "<AccessControlPolicy><AccessControlList>", fullControl, "</AccessControlList></AccessControlPolicy>"), 400, "MalformedACLError", 0},
		{"PutObjectTagging of empty tags", http.MethodPut, "/docmem/k", "tagging", 64 << 10,
			repeatTo(64<<10, "<Tagging><TagSet>", "<Tag/>", "</TagSet></Tagging>"), 400, "InvalidTag", 0},
		{"PutBucketTagging of empty tags", http.MethodPut, "/docmem", "tagging", 256 << 10,
			repeatTo(256<<10, "<Tagging><TagSet>", "<Tag/>", "</TagSet></Tagging>"), 400, "InvalidTag", 0},
		{"PutBucketTagging of unknown elements", http.MethodPut, "/docmem", "tagging", 256 << 10,
			repeatTo(256<<10, "<Tagging><TagSet>", "<X/>", "</TagSet></Tagging>"), 400, "MalformedXML", 0},
		{"CreateBucket of unknown elements", http.MethodPut, "/docmem2", "", 64 << 10,
			repeatTo(64<<10, "<CreateBucketConfiguration>", "<X/>", "</CreateBucketConfiguration>"), 400, "MalformedXML", 0},
		// 4,086 empty AllowedHeader elements are valid, within maxTokens.
		{"PutBucketCors of empty elements", http.MethodPut, "/docmem", "cors", 64 << 10,
			repeatTo(64<<10, "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>", "<AllowedHeader/>", "</CORSRule></CORSConfiguration>"), 200, "", maxCORSAllocation},
		{"PutBucketCors of unknown elements", http.MethodPut, "/docmem", "cors", 64 << 10,
			repeatTo(64<<10, "<CORSConfiguration>", "<X/>", "</CORSConfiguration>"), 400, "MalformedXML", maxCORSAllocation},
		{"PutBucketCors of comments", http.MethodPut, "/docmem", "cors", 64 << 10,
			repeatTo(64<<10, "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>", "<!---->", "</CORSRule></CORSConfiguration>"), 400, "MalformedXML", maxCORSAllocation},
		{"PutBucketEncryption of unknown elements", http.MethodPut, "/docmem", "encryption", 64 << 10,
			repeatTo(64<<10, "<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule>", "<X/>", "</ServerSideEncryptionConfiguration>"), 400, "MalformedXML", 0},
		{"PutBucketEncryption of empty rules", http.MethodPut, "/docmem", "encryption", 64 << 10,
			repeatTo(64<<10, "<ServerSideEncryptionConfiguration>", "<Rule/>", "</ServerSideEncryptionConfiguration>"), 400, "MalformedXML", 0},
		// A policy is refused over 20 KiB before it is parsed; the case
		// shows that what remains is the buffer.
		{"PutBucketPolicy of empty statements", http.MethodPut, "/docmem", "policy", 64 << 10,
			repeatTo(64<<10, `{"Statement":[`, `{},`, `{}]}`), 400, "MalformedPolicy", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.body) > c.limit {
				t.Fatalf("body of %d bytes over the limit %d", len(c.body), c.limit)
			}
			req := g.directRequest(c.method, c.path, c.query, c.body)
			if c.query == "delete" {
				req.Header.Set("Content-Md5", md5Base64(c.body))
			}
			rec := httptest.NewRecorder()
			n := allocated(func() { (*g.handler.Load()).ServeHTTP(rec, req) })
			t.Logf("%d-byte body: %d bytes allocated (%.2f times the %d-byte limit)", len(c.body), n, float64(n)/float64(c.limit), c.limit)
			if rec.Code != c.status || c.code != "" && !strings.Contains(rec.Body.String(), "<Code>"+c.code+"</Code>") {
				t.Errorf("answer %d %s, want %d %s", rec.Code, rec.Body, c.status, c.code)
			}
			max := uint64(maxDocumentAllocation)
			if c.maxTimes != 0 {
				max = c.maxTimes
			}
			// TotalAlloc counts the whole process: goroutines of the
			// harness and of earlier tests allocate meanwhile. The slack
			// keeps their noise from failing the smallest documents; it
			// is far below what any amplification costs.
			if n > max*uint64(c.limit)+allocationSlack {
				t.Errorf("%d bytes allocated, over %d times the limit (+%d of slack)", n, max, allocationSlack)
			}
		})
	}
}
