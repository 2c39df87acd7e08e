package metadata

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// stampLog is a stamper that records what it was asked to mark, and fails
// while fail is set.
type stampLog struct {
	mu     sync.Mutex
	marked []Object
	fail   error
}

func (s *stampLog) stamp(bucket string, o *Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.marked = append(s.marked, *o)
	return nil
}

func (s *stampLog) last(t *testing.T) Object {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.marked) == 0 {
		t.Fatal("the stamper was never called")
	}
	return s.marked[len(s.marked)-1]
}

// Every write of a key's current record — PutObject, UpdateObject,
// Versions.SetCurrent, CompleteUpload, ApplyObjects — gives it a fresh
// stamp and runs the stamper with that record before the commit; a
// stamper's error fails the write and leaves the record as it was.
func TestStamperMarksEveryCurrentRecord(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	var log stampLog
	ix.SetStamper(log.stamp)
	seen := map[uint64]bool{}
	check := func(what, key string) Object {
		t.Helper()
		o, err := ix.Object("b", key)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		m := log.last(t)
		if o.Stamp == 0 || m.Stamp != o.Stamp || m.Key != key {
			t.Fatalf("%s: record stamp %x, marked %q with %x", what, o.Stamp, m.Key, m.Stamp)
		}
		if seen[o.Stamp] {
			t.Fatalf("%s: stamp %x used before", what, o.Stamp)
		}
		seen[o.Stamp] = true
		return o
	}

	if err := ix.PutObject("b", Object{Key: "k", Size: 1, ETag: "e"}); err != nil {
		t.Fatal(err)
	}
	check("PutObject", "k")
	if err := ix.UpdateObject("b", "k", func(o *Object) error { o.Tags = []KV{{"a", "1"}}; return nil }); err != nil {
		t.Fatal(err)
	}
	check("UpdateObject", "k")
	err := ix.EditVersions("b", "k", func(v *Versions) error {
		cur, _, err := v.Current()
		if err != nil {
			return err
		}
		cur.ContentType = "text/plain"
		return v.SetCurrent(cur)
	})
	if err != nil {
		t.Fatal(err)
	}
	if o := check("SetCurrent", "k"); o.ContentType != "text/plain" {
		t.Fatalf("SetCurrent stored %+v", o)
	}
	if err := ix.ApplyObjects("b", []Object{{Key: "scanned", Size: 2}}, nil); err != nil {
		t.Fatal(err)
	}
	check("ApplyObjects", "scanned")
	if err := ix.CreateUpload("b", Upload{Key: "mp", ID: "u1", Initiated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := ix.CompleteUpload("b", "u1", Object{Key: "mp", Size: 3}, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	check("CompleteUpload", "mp")

	before, _ := ix.Object("b", "k")
	log.fail = errors.New("cannot mark")
	if err := ix.UpdateObject("b", "k", func(o *Object) error { o.Tags = nil; return nil }); !errors.Is(err, log.fail) {
		t.Fatalf("UpdateObject with a failing stamper: %v", err)
	}
	if err := ix.PutObject("b", Object{Key: "k", Size: 9}); !errors.Is(err, log.fail) {
		t.Fatalf("PutObject with a failing stamper: %v", err)
	}
	after, _ := ix.Object("b", "k")
	if after.Stamp != before.Stamp || after.Size != before.Size || len(after.Tags) != 1 {
		t.Fatalf("a failed write changed the record: %+v, was %+v", after, before)
	}
}

// Without a stamper, records carry no stamp, not even one they were
// made from (its file may still carry it); a stamp round-trips through
// the record encoding.
func TestStampEncoding(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	if err := ix.PutObject("b", Object{Key: "k", Stamp: 7}); err != nil {
		t.Fatal(err)
	}
	if o, _ := ix.Object("b", "k"); o.Stamp != 0 || ix.Stamping() {
		t.Fatalf("stamp %x without a stamper", o.Stamp)
	}
	in := Object{Key: "k", Stamp: 1<<63 + 5}
	raw, err := in.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out Object
	if err := out.UnmarshalBinary(raw); err != nil || out.Stamp != in.Stamp {
		t.Fatalf("stamp %x after a round trip (%v), want %x", out.Stamp, err, in.Stamp)
	}
}

// The first process to ask settles whether a catalogue's writers stamp;
// later ones get its answer, and one that cannot stamp is refused when
// the others do.
func TestAgreeStamps(t *testing.T) {
	ix := openTest(t)
	if on, err := ix.AgreeStamps(true); !on || err != nil {
		t.Fatalf("first, able: %v %v", on, err)
	}
	if on, err := ix.AgreeStamps(true); !on || err != nil {
		t.Fatalf("second, able: %v %v", on, err)
	}
	if _, err := ix.AgreeStamps(false); !errors.Is(err, ErrStampsRequired) {
		t.Fatalf("unable, after an able one: %v", err)
	}

	off := openTest(t)
	if on, err := off.AgreeStamps(false); on || err != nil {
		t.Fatalf("first, unable: %v %v", on, err)
	}
	if on, err := off.AgreeStamps(true); on || err != nil {
		t.Fatalf("able, after an unable one: %v %v", on, err)
	}
}
