package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/pkg/hotcache"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/sigv4"
)

// ifRangeCase is a ranged request with an If-Range validator and whether it
// is to be answered with the range (206) or the whole object (200).
type ifRangeCase struct {
	what, rng, ifRange string
	partial            bool
}

// ifRangeCases are the If-Range validators a client may hold for an object
// that was replaced since: old is the replaced version's ETag, cur and mod
// the current one's ETag and Last-Modified header.
func ifRangeCases(old, cur, mod string) []ifRangeCase {
	t, err := http.ParseTime(mod)
	if err != nil {
		panic(err)
	}
	return []ifRangeCase{
		{"no If-Range", "bytes=0-9", "", true},
		{"current ETag", "bytes=0-9", cur, true},
		{"current ETag bare", "bytes=0-9", strings.Trim(cur, `"`), true},
		{"Last-Modified", "bytes=0-9", mod, true},
		{"replaced version's ETag", "bytes=0-9", old, false},
		{"weak current ETag", "bytes=0-9", "W/" + cur, false},
		{"a second before Last-Modified", "bytes=0-9", t.Add(-time.Second).Format(http.TimeFormat), false},
		{"a second after Last-Modified", "bytes=0-9", t.Add(time.Second).Format(http.TimeFormat), false},
		{"replaced ETag, suffix range", "bytes=-5", old, false},
		{"replaced ETag, unsatisfiable range", "bytes=99999999-", old, false},
	}
}

// checkIfRange checks one answer to a GET or HEAD of body.
func checkIfRange(t *testing.T, tc ifRangeCase, method string, resp *http.Response, got, body []byte) {
	t.Helper()
	wantStatus, wantBody := http.StatusOK, body
	if tc.partial {
		// Every partial case asks for bytes=0-9.
		wantStatus, wantBody = http.StatusPartialContent, body[:10]
	}
	if method == http.MethodHead {
		if resp.StatusCode != wantStatus || resp.Header.Get("Content-Length") != strconv.Itoa(len(wantBody)) {
			t.Errorf("HEAD %s: %d, Content-Length %s; want %d, %d", tc.what, resp.StatusCode, resp.Header.Get("Content-Length"), wantStatus, len(wantBody))
		}
		return
	}
	if resp.StatusCode != wantStatus || !bytes.Equal(got, wantBody) {
		t.Errorf("GET %s: %d with %d bytes; want %d with %d bytes", tc.what, resp.StatusCode, len(got), wantStatus, len(wantBody))
	}
	if cr := resp.Header.Get("Content-Range"); !tc.partial && cr != "" {
		t.Errorf("GET %s: whole object sent with Content-Range %q", tc.what, cr)
	}
}

// TestGetObjectIfRange checks that a Range with an If-Range naming another
// version of the object answers the whole current object (200), and one
// naming the current version answers the range (206), for an object sent
// with sendfile and for one small enough to be sent from a buffer.
func TestGetObjectIfRange(t *testing.T) {
	h := startHostile(t)
	for _, size := range []int{64 << 10, 100} {
		key := "/" + h.bucket + "/if-range-" + strconv.Itoa(size)
		v1 := bytes.Repeat([]byte("1"), size)
		v2 := bytes.Repeat([]byte("2"), size)
		r := h.send(http.MethodPut, key, "", v1)
		h.want(r, 200)
		old := r.Header.Get("ETag")
		r = h.send(http.MethodPut, key, "", v2)
		h.want(r, 200)
		cur := r.Header.Get("ETag")
		mod := h.send(http.MethodHead, key, "", nil).Header.Get("Last-Modified")
		if old == cur || mod == "" {
			t.Fatalf("versions not told apart: ETags %s %s, Last-Modified %q", old, cur, mod)
		}
		for _, tc := range ifRangeCases(old, cur, mod) {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				hdr := []string{"Range", tc.rng}
				if tc.ifRange != "" {
					hdr = append(hdr, "If-Range", tc.ifRange)
				}
				r := h.send(method, key, "", nil, hdr...)
				checkIfRange(t, tc, method, r.Response, r.body, v2)
			}
		}
	}
}

// TestGetObjectIfRangeHotCache checks If-Range on objects served from the
// memory tier.
func TestGetObjectIfRangeHotCache(t *testing.T) {
	hot, err := hotcache.New(hotcache.Options{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	layer, err := object.Open(object.Options{Root: t.TempDir(), NoSync: true, HotCache: hot})
	if err != nil {
		t.Fatal(err)
	}
	defer layer.Close()
	ts := httptest.NewServer(api.New(layer, api.Options{Credentials: staticCreds{testAccessKey: testSecretKey}}))
	defer ts.Close()
	if err := layer.CreateBucket(object.Bucket{Name: "hot"}); err != nil {
		t.Fatal(err)
	}
	v1, v2 := []byte("first version of the object"), []byte("second version of an object")
	o1, err := layer.PutObject(object.PutInput{Bucket: "hot", Key: "obj", Body: bytes.NewReader(v1), Size: int64(len(v1))})
	if err != nil {
		t.Fatal(err)
	}
	o2, err := layer.PutObject(object.PutInput{Bucket: "hot", Key: "obj", Body: bytes.NewReader(v2), Size: int64(len(v2))})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method string, hdr ...string) (*http.Response, []byte) {
		t.Helper()
		req := httptest.NewRequest(method, ts.URL+"/hot/obj", nil)
		sigv4.Presign(req, testAccessKey, testSecretKey, "us-east-1", time.Now(), time.Hour)
		req, err := http.NewRequest(method, req.URL.String(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	if resp, _ := do(http.MethodGet); resp.StatusCode != 200 { // the miss that fills
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	mod := o2.LastModified.UTC().Format(http.TimeFormat)
	cases := ifRangeCases(`"`+o1.ETag+`"`, `"`+o2.ETag+`"`, mod)
	for _, tc := range cases {
		hdr := []string{"Range", tc.rng}
		if tc.ifRange != "" {
			hdr = append(hdr, "If-Range", tc.ifRange)
		}
		resp, got := do(http.MethodGet, hdr...)
		checkIfRange(t, tc, http.MethodGet, resp, got, v2)
	}
	if s := hot.Stats(); s.Fills != 1 || s.Hits != uint64(len(cases)) {
		t.Fatalf("stats %+v; want 1 fill and %d hits: the GETs did not all come from memory", s, len(cases))
	}
}
