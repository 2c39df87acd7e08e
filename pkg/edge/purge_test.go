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
