package edge

import (
	"net/http"
	"slices"
	"testing"
)

// TestPurge checks purging one key, a prefix and everything: the next GET
// goes to the origin, and the files are removed.
func TestPurge(t *testing.T) {
	e := newEnv(t, nil)
	keys := []string{"b/a1", "b/a2", "b/ab/c", "b/z", "c/a1"}
	data := map[string][]byte{}
	for i, k := range keys {
		data[k] = randomBytes(uint64(60+i), 1000+i)
		e.origin.put(k, data[k])
		e.mustGet(k, data[k], xMiss)
	}
	e.settle()
	fileOf := map[string]string{}
	for _, k := range keys {
		fileOf[k] = e.fileOf(k)
	}
	purged := func(n int, want int, gone ...string) {
		t.Helper()
		if n != want {
			t.Errorf("purged %d, want %d", n, want)
		}
		files := e.dataFiles()
		for _, k := range gone {
			if slices.Contains(files, fileOf[k]) {
				t.Errorf("%s: file still there after a purge", k)
			}
			before := e.origin.total(http.MethodGet, k)
			e.mustGet(k, data[k], xMiss)
			if e.origin.total(http.MethodGet, k) != before+1 {
				t.Errorf("%s: no origin request after a purge", k)
			}
			fileOf[k] = e.fileOf(k)
		}
	}

	purged(e.c().Purge("b", "a1", false), 1, "b/a1")
	e.mustGet("c/a1", data["c/a1"], xHit) // another bucket's key of the same name
	e.mustGet("b/a2", data["b/a2"], xHit)
	purged(e.c().Purge("b", "nothing", false), 0)
	purged(e.c().Purge("b", "a", true), 3, "b/a1", "b/a2", "b/ab/c")
	e.mustGet("b/z", data["b/z"], xHit)
	e.mustGet("c/a1", data["c/a1"], xHit)
	e.settle()
	purged(e.c().Purge("", "", true), len(keys), keys...)
	if s := e.c().Stats(); s.Objects != len(keys) {
		t.Errorf("%d objects after refilling, want %d", s.Objects, len(keys))
	}

	// A purge survives a restart: the records went with the files.
	e.settle()
	e.c().Purge("b", "", true)
	e.restart()
	if got := e.recorded(); !slices.Equal(got, []string{"c/a1"}) {
		t.Errorf("catalogue after purge and restart %v, want [c/a1]", got)
	}
	e.mustGet("b/z", data["b/z"], xMiss)
	e.mustGet("c/a1", data["c/a1"], xHit)
}

// TestPurgeWhileDiskFailed checks that a purge made while the cache disk
// is failed (its objects not in memory) still applies when the disk is
// attached again: the purged object is fetched anew, never served from
// the old copy.
func TestPurgeWhileDiskFailed(t *testing.T) {
	f := &faults{}
	e := newEnv(t, func(o *Options) { o.fault = f.fault })
	day := func(o *object) { o.cacheControl = "max-age=86400" }
	v1, v2, other := []byte("version-1"), []byte("version-2"), []byte("other")
	e.origin.put("b/obj", v1, day)
	e.origin.put("b/keep", other, day)
	e.mustGet("b/obj", v1, xMiss)
	e.mustGet("b/keep", other, xMiss)
	e.settle()

	f.set("create", "probe", "attach")
	e.origin.put("b/new", []byte("new"), day)
	e.mustGet("b/new", []byte("new"), "") // its file cannot be created: the disk fails
	eventually(t, "the disk to be failed", func() bool { return !e.c().Stats().Healthy })
	e.c().Purge("b", "obj", false)
	e.origin.put("b/obj", v2, day)

	f.set()
	eventually(t, "the disk to be attached again", func() bool { return e.c().Stats().Healthy })
	e.mustGet("b/obj", v2, xMiss)
	e.mustGet("b/keep", other, xHit)
}
