package edge

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// faults fails the cache disk's operations named in it.
type faults struct {
	mu  sync.Mutex
	ops map[string]bool
}

func (f *faults) set(ops ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = map[string]bool{}
	for _, op := range ops {
		f.ops[op] = true
	}
}

func (f *faults) fault(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ops[op] {
		return errors.New("injected I/O error in " + op)
	}
	return nil
}

// TestDiskFailure checks that a failing cache disk never fails a request:
// the bytes come from the origin, the cache reports itself unhealthy, and
// caching resumes when the disk works again.
func TestDiskFailure(t *testing.T) {
	for _, op := range []string{"create", "write", "sync", "attach"} {
		t.Run(op, func(t *testing.T) {
			f := &faults{}
			if op == "attach" {
				f.set("attach", "probe") // unusable from the start
			}
			e := newEnv(t, func(o *Options) {
				o.fault = f.fault
				o.NoSync = op != "sync"
			})
			warm := randomBytes(80, 3000)
			data := randomBytes(81, 2*testSlice+7)
			e.origin.put("b/warm", warm)
			e.origin.put("b/obj", data)
			if op != "attach" {
				e.mustGet("b/warm", warm, xMiss)
				e.settle()
				// The probe must fail too while the disk does, or it would
				// reattach at once.
				f.set(op, "probe", "attach")
			}

			for i := range 3 {
				r := e.get("b/obj")
				checkBody(t, "GET with a failing disk", r, http.StatusOK, data)
				if i == 0 && op == "sync" {
					// Finished slices are synced by the next flush: the
					// failure shows then, not during the GET.
					eventually(t, "the failed sync to be noticed", func() bool { return !e.c().Stats().Healthy })
				}
				if i > 0 && r.xcache() != xPass {
					t.Errorf("GET %d with a failing disk: X-Cache %q, want PASS", i, r.xcache())
				}
				r = e.get("b/obj", "Range", "bytes=70000-70009")
				checkBody(t, "range with a failing disk", r, http.StatusPartialContent, data[70000:70010])
			}
			r := e.get("b/warm")
			checkBody(t, "cached object with a failing disk", r, http.StatusOK, warm)
			s := e.c().Stats()
			if s.Healthy {
				t.Error("Stats().Healthy with a failing disk")
			}
			if op != "attach" && s.DiskErrors == 0 {
				t.Error("no disk error counted")
			}

			f.set()
			eventually(t, "the disk to be attached again", func() bool { return e.c().Stats().Healthy })
			if op != "attach" {
				e.mustGet("b/warm", warm, xHit) // its record was kept
			} else {
				e.mustGet("b/warm", warm, xMiss)
			}
			e.mustGet("b/obj", data, xMiss)
			e.mustGet("b/obj", data, xHit)
		})
	}
}

// TestDiskFailureMidFill checks that a disk failing during a fill still
// gives every reader of it the whole object.
func TestDiskFailureMidFill(t *testing.T) {
	f := &faults{}
	// The first reader follows the fill as it is written, as with
	// objects larger than defaultSmallObject.
	e := newEnv(t, func(o *Options) { o.fault = f.fault; o.smallObject = -1 })
	// One slice: a full GET of a longer object would also prefetch the
	// next slice, whose writes could fail (and put the cache in
	// pass-through) before the joiner arrives, so that it would not join.
	size := testSlice - 7
	data := randomBytes(90, size)
	e.origin.put("b/obj", data)
	g := e.origin.pause("b/obj", testSlice/2)

	first := e.stream("b/obj")
	g.wait(t)
	got := readN(t, first.Body, testSlice/2) // written to the file and read from it
	f.set("write", "probe", "attach")
	joined := make(chan response, 1)
	go func() { joined <- e.get("b/obj") }()
	e.waitInflight(2)
	g.open()

	rest, err := io.ReadAll(first.Body)
	if err != nil {
		t.Fatalf("first reader: %v", err)
	}
	checkBody(t, "first reader", response{status: http.StatusOK, body: append(got, rest...)}, http.StatusOK, data)
	checkBody(t, "joiner", <-joined, http.StatusOK, data)
	if e.c().Stats().Healthy {
		t.Error("healthy after a write failed")
	}
	checkBody(t, "after the failure", e.get("b/obj"), http.StatusOK, data)

	f.set()
	eventually(t, "the disk to be attached again", func() bool { return e.c().Stats().Healthy })
	e.mustGet("b/obj", data, "")
	e.mustGet("b/obj", data, xHit)
}

// TestCreatedFileHandedToFill checks the descriptor create opens for a
// new entry's file: the fill writes through it, and when the disk fails
// between the create and the fill's first write it is closed, not left
// open on a failed disk.
func TestCreatedFileHandedToFill(t *testing.T) {
	f := &faults{}
	e := newEnv(t, func(o *Options) { o.fault = f.fault })
	data := randomBytes(82, testSlice/2)
	e.origin.put("b/ok", data)
	e.origin.put("b/obj", data)
	e.mustGet("b/ok", data, xMiss)
	e.settle()
	e.mustGet("b/ok", data, xHit)

	f.set("write", "probe", "attach")
	r := e.get("b/obj")
	checkBody(t, "GET whose fill meets the failure", r, http.StatusOK, data)
	// The small object's fill ran in the request and kept the bytes in
	// memory; the answer came from there, not from a second origin GET.
	if n := e.origin.fetches("b/obj", 0); n != 1 {
		t.Errorf("%d origin GETs, want 1", n)
	}
	eventually(t, "the failure to be noticed", func() bool { return !e.c().Stats().Healthy })
	// The handler releases its reading descriptor after the client has
	// the body, and the failed disk's catalogue is closed by a goroutine
	// of its own.
	e.waitInflight(0)
	eventually(t, "no descriptor left under the failed disk's data", func() bool {
		return len(openUnder(t, filepath.Join(e.opts.Dir, "data"))) == 0
	})
}

// TestCreatedFileClosedOnFailedDisk checks the other way a created
// file's descriptor can meet a failed disk: the disk is dropped after the
// create and before the fill starts, and the fill closes the descriptor.
func TestCreatedFileClosedOnFailedDisk(t *testing.T) {
	e := newEnv(t, nil)
	c := e.c()
	ent := &entry{ck: "b/obj", id: newID(), size: 100, d: c.disks[0], sliceSize: testSlice}
	f, err := c.create(ent, ent.size)
	if err != nil {
		t.Fatal(err)
	}
	c.disks[0].healthy.Store(false)
	fl := newFill(ent, 0, ent.size)
	ctx, cancel := context.WithCancel(context.Background())
	c.run(ctx, cancel, fl, io.NopCloser(bytes.NewReader(make([]byte, ent.size))), f)
	if open := openUnder(t, ent.path()); len(open) != 0 || !fl.done || fl.err != nil {
		t.Errorf("after the fill on a failed disk: open %v, done %v, err %v", open, fl.done, fl.err)
	}
	if got := fl.mem; len(got) != int(ent.size) {
		t.Errorf("the fill kept %d bytes in memory, want %d", len(got), ent.size)
	}
}

// openUnder lists the files at or under p that this process holds open.
func openUnder(t *testing.T, p string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	var open []string
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && (l == p || strings.HasPrefix(l, p+"/")) {
			open = append(open, l)
		}
	}
	return open
}
