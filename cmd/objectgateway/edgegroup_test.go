package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// startNginxConf runs nginx with conf (an http-level configuration) until
// cleanup and returns once it listens on addr.
func startNginxConf(t *testing.T, conf, addr string) {
	t.Helper()
	dir := t.TempDir()
	user := ""
	if os.Geteuid() == 0 {
		// Workers would otherwise run as nobody, who cannot enter the
		// test's private temporary directory.
		user = "user root;\n"
	}
	main := fmt.Sprintf(`%sworker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log info;
events { worker_connections 256; }
http {
    access_log %[2]s/access.log;
    client_body_temp_path %[2]s/client_body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    include %[2]s/group.conf;
}
`, user, dir)
	if err := os.WriteFile(filepath.Join(dir, "group.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginxBin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", filepath.Join(dir, "nginx.conf"), "-g", "daemon off;")
	startProxy(t, cmd, addr, func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return string(b)
	})
}

// TestEdgeGroupNginx runs docs/cdn.md's group configuration: three edges
// behind nginx's consistent URL hash, in front of one origin gateway.
// Every object is fetched from the origin once for the whole group; once
// one edge is stopped, the others' objects stay hits on the same edges
// and only the stopped edge's share is fetched again, once each.
//
// It skips without nginx, except in CI (CI=true, .ci/run installs
// nginx), where a missing nginx fails it.
func TestEdgeGroupNginx(t *testing.T) {
	if _, err := os.Stat(nginxBin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("nginx is not installed (%s: %v) and CI=true: the edge group test must run in CI", nginxBin, err)
		}
		t.Skipf("nginx is not installed (%s: %v): the docs/cdn.md edge group is not exercised; apt-get install nginx", nginxBin, err)
	}
	g := startCDNGateway(t, "")
	const edges, objects = 3, 60
	nodes := make([]*edgeNode, edges)
	conf := docBlock(t, "nginx-edge-group")
	for i := range nodes {
		nodes[i] = startEdge(t, t.TempDir(), g.addr, &stepClock{t: time.Now()})
		conf = replaceOnce(t, conf, "server 127.0.0.1:808"+strconv.Itoa(i+1)+" ", "server "+nodes[i].addr+" ")
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	conf = replaceOnce(t, conf, "listen 80;", "listen "+addr+";")
	startNginxConf(t, conf, addr)

	data := make(map[string][]byte, objects)
	keys := make([]string, objects)
	for i := range keys {
		keys[i] = fmt.Sprintf("media/seg-%03d.ts", i)
		data[keys[i]] = bytes.Repeat([]byte{byte('a' + i%26)}, 20<<10+i)
		g.put(t, keys[i], data[keys[i]])
	}
	client := &http.Client{Timeout: cdnWait}
	type answer struct{ xcache, edge string }
	get := func(key string) answer {
		t.Helper()
		resp, err := client.Get("http://" + addr + "/" + cdnBucket + "/" + key)
		if err != nil {
			t.Fatalf("GET %s through nginx: %v", key, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(body, data[key]) {
			t.Fatalf("GET %s through nginx: %d, %d bytes, %v", key, resp.StatusCode, len(body), err)
		}
		return answer{resp.Header.Get("X-Cache"), resp.Header.Get("X-Edge")}
	}
	originGets := func(key string) int {
		return originCount(g, "GetObject", key, http.StatusPartialContent) + originCount(g, "GetObject", key, http.StatusOK)
	}
	// pass GETs every key once and returns where each was answered and
	// the hit ratio.
	pass := func(what string) (map[string]answer, float64) {
		t.Helper()
		out := make(map[string]answer, objects)
		hits := 0
		for _, k := range keys {
			a := get(k)
			out[k] = a
			if a.xcache == "HIT" {
				hits++
			}
		}
		ratio := float64(hits) / objects
		t.Logf("%s: %d of %d hits (%.0f %%)", what, hits, objects, 100*ratio)
		return out, ratio
	}

	first, _ := pass("first pass")
	share := map[string]int{}
	for _, k := range keys {
		if first[k].xcache != "MISS" {
			t.Errorf("%s, first pass: X-Cache %q, want MISS", k, first[k].xcache)
		}
		share[first[k].edge]++
	}
	if len(share) != edges {
		t.Fatalf("keys spread over %d edges (%v), want %d", len(share), share, edges)
	}
	t.Logf("keys per edge: %v", share)
	second, ratio := pass("second pass")
	if ratio != 1 {
		t.Errorf("second pass hit ratio %.2f, want 1", ratio)
	}
	for _, k := range keys {
		if second[k].edge != first[k].edge {
			t.Errorf("%s moved from %s to %s with no edge stopped", k, first[k].edge, second[k].edge)
		}
		if n := originGets(k); n != 1 {
			t.Errorf("%s: %d origin GETs for the group, want 1", k, n)
		}
	}

	// Stop one edge: its keys move, the others' stay.
	stopped := nodes[1].addr
	nodes[1].stop()
	third, ratio := pass("after stopping one edge")
	moved := 0
	for _, k := range keys {
		a := third[k]
		if a.edge == stopped {
			t.Fatalf("%s answered by the stopped edge", k)
		}
		if first[k].edge == stopped {
			moved++
			if a.xcache != "MISS" {
				t.Errorf("%s of the stopped edge: X-Cache %q, want MISS", k, a.xcache)
			}
			if n := originGets(k); n != 2 {
				t.Errorf("%s of the stopped edge: %d origin GETs, want 2", k, n)
			}
			continue
		}
		if a.edge != first[k].edge || a.xcache != "HIT" {
			t.Errorf("%s of a running edge: answered by %s with %q, want %s with HIT", k, a.edge, a.xcache, first[k].edge)
		}
		if n := originGets(k); n != 1 {
			t.Errorf("%s of a running edge: %d origin GETs, want 1", k, n)
		}
	}
	if moved != share[stopped] {
		t.Errorf("%d keys moved, want the stopped edge's %d", moved, share[stopped])
	}
	if want := float64(objects-share[stopped]) / objects; ratio != want {
		t.Errorf("hit ratio after stopping one edge %.3f, want %.3f", ratio, want)
	}
	if _, ratio := pass("second pass after stopping one edge"); ratio != 1 {
		t.Errorf("hit ratio of the second pass after stopping one edge %.2f, want 1", ratio)
	}
}
