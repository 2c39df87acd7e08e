package object

import (
	"io"
	"sync"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
)

// TestVersionsReadByIDDuringMoves reads two versions by id, with GET and
// HEAD, while another goroutine keeps moving the newer one between current
// and noncurrent (a delete marker written, then removed by id). Neither
// version is ever removed, so every read must find it with its bytes: a
// read that met a move half done decides again under the key's lock
// instead of answering NoSuchKey or NoSuchVersion. The moves are bounded;
// the reads run until they end.
func TestVersionsReadByIDDuringMoves(t *testing.T) {
	l, _, _ := openVersioned(t, metadata.VersioningEnabled)
	v1 := put(t, l, "k", "v1 bytes")
	v2 := put(t, l, "k", "the v2 bytes")
	const rounds = 300
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for range rounds {
			m, err := l.Remove(RemoveInput{Bucket: "bkt", Key: "k"})
			if err == nil {
				_, err = l.Remove(RemoveInput{Bucket: "bkt", Key: "k", VersionID: m.VersionID})
			}
			if err != nil {
				t.Errorf("moving %s: %v", v2.VersionID, err)
				return
			}
		}
	}()
	defer wg.Wait()
	for failures := 0; failures < 5; {
		select {
		case <-done:
			return
		default:
		}
		for _, v := range []Object{v1, v2} {
			r, err := l.OpenVersion("bkt", "k", v.VersionID)
			if err != nil {
				t.Errorf("GET version %s during moves: %v", v.VersionID, err)
				failures++
				continue
			}
			b, err := io.ReadAll(r.File)
			r.Close()
			if err != nil || int64(len(b)) != v.Size || r.VersionID != v.VersionID {
				t.Errorf("GET version %s during moves: %q of version %s, %v", v.VersionID, b, r.VersionID, err)
				failures++
			}
			if o, err := l.StatVersion("bkt", "k", v.VersionID); err != nil || o.VersionID != v.VersionID {
				t.Errorf("HEAD version %s during moves: %+v %v", v.VersionID, o, err)
				failures++
			}
		}
	}
}
