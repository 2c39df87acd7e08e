package bench

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStaticPath(t *testing.T) {
	for _, c := range []struct {
		in     string
		rel    string
		bucket bool
		ok     bool
	}{
		{"/b/k", "b/k", false, true},
		{"/b/dir/k", "b/dir/k", false, true},
		{"/b/", "b", true, true},
		{"/b", "b", true, true},
		{"/", "", false, false},
		{"/b/../x", "", false, false},
		{"/b//k", "", false, false},
		{"/.hidden/k", "", false, false},
		{"/b/.tmp-1", "", false, false},
	} {
		rel, bucket, ok := staticPath(c.in)
		if rel != c.rel || bucket != c.bucket || ok != c.ok {
			t.Errorf("staticPath(%q) = %q, %v, %v; want %q, %v, %v", c.in, rel, bucket, ok, c.rel, c.bucket, c.ok)
		}
	}
}

// TestStaticServer checks the static server's small protocol: bucket
// directories, PUT/GET/HEAD/Range/DELETE, listing, and confinement.
func TestStaticServer(t *testing.T) {
	url, dir := startStatic(t)
	do := func(method, path string, body []byte, hdr ...string) (int, string) {
		t.Helper()
		r, err := http.NewRequest(method, url+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	steps := []struct {
		method, path, body string
		hdr                []string
		status             int
		resp               string
	}{
		{"PUT", "/b/", "", nil, 200, ""},
		{"PUT", "/b/d/k1", "hello", nil, 200, ""},
		{"PUT", "/b/d/k2", "world!", nil, 200, ""},
		{"GET", "/b/d/k1", "", nil, 200, "hello"},
		{"GET", "/b/d/k2", "", []string{"Range", "bytes=1-3"}, 206, "orl"},
		{"HEAD", "/b/d/k1", "", nil, 200, ""},
		{"GET", "/b/d", "", nil, 404, "not found\n"},
		{"GET", "/b/?list&prefix=d/&max-keys=1", "", nil, 200, "truncated\nd/k1"},
		{"GET", "/b/?list&prefix=d/&start-after=d/k1", "", nil, 200, "complete\nd/k2"},
		{"GET", "/b/?list&prefix=nope/", "", nil, 200, "complete"},
		{"GET", "/b/../../etc/passwd", "", nil, 400, "bad path\n"},
		{"DELETE", "/b/d/k1", "", nil, 200, ""},
		{"GET", "/b/d/k1", "", nil, 404, "not found\n"},
		{"DELETE", "/b/", "", nil, 200, ""},
		{"HEAD", "/b/", "", nil, 404, ""},
	}
	for _, s := range steps {
		status, body := do(s.method, s.path, []byte(s.body), s.hdr...)
		if status != s.status || body != s.resp {
			t.Fatalf("%s %s: %d %q, want %d %q", s.method, s.path, status, body, s.status, s.resp)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 0 {
		t.Fatalf("static dir after DELETE of the bucket: %v %v", ents, err)
	}
	// A symlink inside the served directory must not lead out of it.
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Mkdir(filepath.Join(dir, "b2"), 0o755)
	if err := os.Symlink(outside, filepath.Join(dir, "b2", "link")); err != nil {
		t.Fatal(err)
	}
	if status, body := do("GET", "/b2/link/secret", nil); status == 200 || strings.Contains(body, "s") && status == 200 {
		t.Fatalf("a symlink escaped the static root: %d %q", status, body)
	}
}

func TestParseStaticList(t *testing.T) {
	p := parseStaticList([]byte("truncated\na/1\na/2"))
	if !p.Truncated || len(p.Keys) != 2 || p.Keys[1] != "a/2" {
		t.Fatalf("parseStaticList = %+v", p)
	}
	if p := parseStaticList([]byte("complete")); p.Truncated || len(p.Keys) != 0 {
		t.Fatalf("parseStaticList(empty) = %+v", p)
	}
}

// TestStaticSink runs put-large against the two sinks of the static
// server: every PUT answers 200, nothing is stored, and the bucket is
// still created and removed as on the file-backed server.
func TestStaticSink(t *testing.T) {
	for _, sink := range []string{SinkDiscard, SinkMD5} {
		t.Run(sink, func(t *testing.T) {
			dir := t.TempDir()
			h, closeRoot, err := NewStaticHandler(StaticOptions{Dir: dir, Sink: sink})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer closeRoot()
			defer srv.Close()
			o := tinyOptions(Endpoint{Name: sink, URL: srv.URL, Mode: ModeStatic})
			o.Scenarios = []string{"put-large"}
			rep, err := Run(context.Background(), o, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Scenarios[0].Results[0]
			if r.Skipped != "" || r.Errors != 0 || r.Ops == 0 {
				t.Fatalf("put-large on the %s sink: skipped %q, %d ops, %d errors (%s)", sink, r.Skipped, r.Ops, r.Errors, r.FirstError)
			}
			var files []string
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					files = append(files, p)
				}
				return nil
			})
			if len(files) != 0 {
				t.Fatalf("the %s sink stored files: %v", sink, files)
			}
		})
	}
	if _, err := ParseArgs([]string{"--serve-static", t.TempDir(), "--static-sink", "sha1"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Fatal("--static-sink sha1 was accepted")
	}
}
