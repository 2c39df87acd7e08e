package object

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
)

// TestConcurrentVersionWrites runs PUTs, DELETEs that write markers and
// DELETEs of a version by id of one key in an Enabled bucket from many
// goroutines at once, and checks that ListVersions then shows every
// acknowledged version or marker exactly once, newest first, with only
// the first one latest, nothing that was removed, and that a GET of the
// key agrees with the latest entry.
func TestConcurrentVersionWrites(t *testing.T) {
	l, _ := newVersionedLayer(t, false)
	const workers, rounds = 8, 12
	var mu sync.Mutex
	kept := map[string]bool{} // acknowledged version id → is a marker
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				body := fmt.Sprintf("w%d-r%d", w, i)
				o, err := l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader(body), Size: int64(len(body))})
				if err != nil {
					errs <- fmt.Errorf("PUT %s: %w", body, err)
					return
				}
				mu.Lock()
				kept[o.VersionID] = false
				mu.Unlock()
				switch i % 3 {
				case 1:
					rm, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "k"})
					if err != nil || !rm.DeleteMarker {
						errs <- fmt.Errorf("DELETE: %+v %v", rm, err)
						return
					}
					mu.Lock()
					kept[rm.VersionID] = true
					mu.Unlock()
				case 2:
					if _, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "k", VersionID: o.VersionID}); err != nil {
						errs <- fmt.Errorf("DELETE %s by id: %w", o.VersionID, err)
						return
					}
					mu.Lock()
					delete(kept, o.VersionID)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	var entries []metadata.VersionEntry
	q := metadata.VersionQuery{Limit: 7}
	for page := 0; ; page++ {
		if page > workers*rounds {
			t.Fatal("ListVersions does not end")
		}
		p, err := l.ListVersions("bkt", q)
		must(t, err)
		entries = append(entries, p.Entries...)
		if !p.Truncated {
			break
		}
		q.KeyMarker, q.VersionMarker = p.NextKeyMarker, p.NextVersionMarker
	}
	seen := map[string]bool{}
	for i, e := range entries {
		if seen[e.VersionID] {
			t.Errorf("version %s listed twice", e.VersionID)
		}
		seen[e.VersionID] = true
		marker, ok := kept[e.VersionID]
		if !ok {
			t.Errorf("version %s listed, but it was removed or never acknowledged", e.VersionID)
		} else if marker != e.DeleteMarker {
			t.Errorf("version %s: DeleteMarker %v, want %v", e.VersionID, e.DeleteMarker, marker)
		}
		if e.IsLatest != (i == 0) {
			t.Errorf("entry %d (%s): IsLatest %v", i, e.VersionID, e.IsLatest)
		}
		if i > 0 && entries[i-1].Seq <= e.Seq {
			t.Errorf("entry %d (%s) is not older than the one before it", i, e.VersionID)
		}
	}
	for id := range kept {
		if !seen[id] {
			t.Errorf("acknowledged version %s is not listed", id)
		}
	}
	if len(entries) == 0 {
		t.Fatal("no versions listed")
	}
	cur, err := l.StatObject("bkt", "k")
	switch latest := entries[0]; {
	case latest.DeleteMarker && err == nil:
		t.Errorf("the latest entry is a marker, but GET reads version %s", cur.VersionID)
	case !latest.DeleteMarker && (err != nil || cur.VersionID != latest.VersionID):
		t.Errorf("GET reads %s %v, want the latest %s", cur.VersionID, err, latest.VersionID)
	}
}
