package object

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
)

// mountTmpfs mounts a tmpfs of size (mount's syntax, "8m") on a new
// directory and unmounts it at cleanup, after everything registered
// later. It skips the test when the process may not mount.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root; TestFailedIndexWriteKeepsPreviousVersion covers the same paths through a seam")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s (needs CAP_SYS_ADMIN; TestFailedIndexWriteKeepsPreviousVersion covers the same paths through a seam)", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
			_ = exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

// keysPerWriter is how many keys each writer of
// TestDiskFullConcurrentWriters owns: together more than the filesystem
// holds, so that the disk stays full while overwrites free space.
const keysPerWriter = 64

// diskFullWriter is one writer of TestDiskFullConcurrentWriters. It owns
// its keys, so its model of them is exact: the content of the last
// acknowledged write of each key.
type diskFullWriter struct {
	id    int
	rng   *rand.Rand
	model map[string][32]byte
	// touched holds every key the writer wrote to, acknowledged or not.
	touched map[string]bool
	// indexRefused counts the refusals that came from the index, after
	// the file was in place.
	acked, refused, indexRefused int
}

// body returns deterministic content of a varied size, unique to the
// writer and the step.
func (w *diskFullWriter) body(step int) []byte {
	sizes := []int{0, 1, 100, 4 << 10, 64 << 10, 300 << 10, 700 << 10}
	n := sizes[w.rng.IntN(len(sizes))]
	head := fmt.Sprintf("writer %d step %d\n", w.id, step)
	b := bytes.Repeat([]byte{byte('a' + w.id)}, n)
	return append([]byte(head), b...)
}

// headers returns user metadata that makes each record about 1 KiB, so
// that the index needs new pages while the disk is full, and not only
// the files.
func (w *diskFullWriter) headers() Headers {
	return Headers{User: []metadata.KV{{Key: "pad", Value: strings.Repeat("p", 1000)}}}
}

// outcome records a write's result: on success the key now holds body;
// a refusal must be a full disk, and leaves the model as it was.
func (w *diskFullWriter) outcome(t *testing.T, op, key string, body []byte, err error) {
	w.touched[key] = true
	switch code(err) {
	case -1:
		w.model[key] = sha256.Sum256(body)
		w.acked++
	case s3err.InsufficientStorage:
		w.refused++
		if fromIndex(err) {
			w.indexRefused++
		}
	default:
		t.Errorf("writer %d: %s %s: %v, want success or InsufficientStorage", w.id, op, key, err)
	}
}

// put makes a PutObject of body as key.
func (w *diskFullWriter) put(t *testing.T, l *Layer, key string, body []byte) {
	_, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: bytes.NewReader(body), Size: int64(len(body)), Headers: w.headers()})
	w.outcome(t, "PutObject", key, body, err)
}

// fromIndex reports whether a refusal came from a write to the index
// file.
func fromIndex(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && filepath.Base(pe.Path) == IndexFile
}

// fillDisk writes name until the filesystem is full.
func fillDisk(t *testing.T, name string) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4<<10)
	for range 64 << 20 / len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("the filesystem never filled")
}

// step makes one write: a PutObject of a new key or over one of the
// writer's keys, a CopyObject between its keys, or a one-part multipart
// upload.
func (w *diskFullWriter) step(t *testing.T, l *Layer, step int) {
	key := fmt.Sprintf("w%d/k%d", w.id, w.rng.IntN(keysPerWriter))
	body := w.body(step)
	switch r := w.rng.IntN(10); {
	case r < 7:
		w.put(t, l, key, body)
	case r < 8:
		src := fmt.Sprintf("w%d/k%d", w.id, w.rng.IntN(keysPerWriter))
		sum, ok := w.model[src]
		if !ok || src == key {
			return
		}
		_, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: src, DstBucket: "bkt", DstKey: key})
		w.outcome(t, "CopyObject", key, nil, err)
		if err == nil {
			w.model[key] = sum
		}
	default:
		u, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: key, Headers: w.headers()})
		if err != nil {
			w.outcome(t, "CreateMultipartUpload", key, nil, err)
			return
		}
		p, err := l.UploadPart(PartInput{Bucket: "bkt", Key: key, UploadID: u.ID, Number: 1, Body: bytes.NewReader(body), Size: int64(len(body))})
		if err == nil {
			_, err = l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: key, UploadID: u.ID, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}})
		}
		if err != nil {
			// The upload may stay: an upload in progress is a valid state.
			_ = l.AbortMultipartUpload("bkt", key, u.ID)
		}
		w.outcome(t, "CompleteMultipartUpload", key, body, err)
	}
}

// TestDiskFullConcurrentWriters runs 8 writers on a root (index and
// staging included) on an 8 MiB tmpfs until well past the point where
// the disk is full: PutObject of new keys and over existing ones, of
// varied sizes, CopyObject and CompleteMultipartUpload. Once space is
// given back and the gateway reopened, every acknowledged write reads
// back with its exact content, every key whose writes were all refused
// is absent, nothing else is listed, staging is empty and fsck finds no
// problem.
func TestDiskFullConcurrentWriters(t *testing.T) {
	mnt := mountTmpfs(t, "8m")
	root := filepath.Join(mnt, "root")
	l, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	const writers, steps = 8, 300
	ws := make([]*diskFullWriter, writers)
	var wg sync.WaitGroup
	for i := range ws {
		w := &diskFullWriter{id: i, rng: rand.New(rand.NewPCG(uint64(i), 1)), model: map[string][32]byte{}, touched: map[string]bool{}}
		ws[i] = w
		wg.Go(func() {
			for s := range steps {
				w.step(t, l, s)
			}
		})
	}
	wg.Wait()
	// Then fill what space is left and write empty bodies with 1 KiB
	// records, new keys and overwrites: the files fit, and the index
	// itself runs out of space after their renames.
	filler := filepath.Join(mnt, "filler")
	fillDisk(t, filler)
	indexRefused := func() (n int) {
		for _, w := range ws {
			n += w.indexRefused
		}
		return n
	}
	// The writers' own refusals by the index may be index-only writes
	// (multipart records), so this phase counts its own.
	before := indexRefused()
	for i := 0; i < 4000 && indexRefused()-before < 2*writers; i++ {
		w := ws[i%writers]
		w.put(t, l, fmt.Sprintf("w%d/z%d", w.id, i), nil)
		w.put(t, l, fmt.Sprintf("w%d/k%d", w.id, i%keysPerWriter), nil)
	}
	// A write the index refused for lack of space never reached its meta
	// page, so the index goes on serving (metadata.ErrFailed is for a
	// commit that is visible although it failed).
	if _, err := l.ListObjects("bkt", ListQuery{Limit: 1}); err != nil {
		t.Fatalf("the index after refusing writes: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	acked, refused := 0, 0
	for _, w := range ws {
		acked += w.acked
		refused += w.refused
	}
	t.Logf("%d writes acknowledged, %d refused for lack of space, %d of them by the index (%d after their renames)", acked, refused, indexRefused(), indexRefused()-before)
	if refused < writers*steps/4 || acked == 0 || indexRefused()-before < 2*writers {
		t.Fatalf("the run did not go well past a full disk: %d acknowledged, %d refused, %d by the index (%d after their renames)", acked, refused, indexRefused(), indexRefused()-before)
	}
	noStaging(t, root)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}

	if out, err := exec.Command("mount", "-o", "remount,size=64m", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v: %s", err, out)
	}
	l, err = Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][32]byte{}
	for _, w := range ws {
		for k, sum := range w.model {
			want[k] = sum
		}
	}
	for _, w := range ws {
		for key := range w.touched {
			sum, ok := want[key]
			r, err := l.OpenObject("bkt", key)
			if !ok {
				if code(err) != s3err.NoSuchKey {
					t.Errorf("%s was never acknowledged: %v, want NoSuchKey", key, err)
				}
				if err == nil {
					r.Close()
				}
				continue
			}
			if err != nil {
				t.Errorf("acknowledged %s: %v", key, err)
				continue
			}
			h := sha256.New()
			if r.File != nil {
				if _, err := io.Copy(h, r.File); err != nil {
					t.Errorf("read %s: %v", key, err)
				}
			}
			r.Close()
			if got := [32]byte(h.Sum(nil)); got != sum {
				t.Errorf("%s does not hold its last acknowledged content", key)
			}
			if r.Object.ETag == "" || r.Object.ETag[0] == '-' {
				t.Errorf("%s has ETag %q", key, r.Object.ETag)
			}
		}
	}
	// More than a page of keys may have been acknowledged, as many as
	// the space the filler left allowed; the bound on pages is far above
	// the keys the writers can make.
	listed := 0
	for after, pages := "", 0; pages < 100; pages++ {
		page, err := l.ListObjects("bkt", ListQuery{After: after, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		listed += len(page.Objects)
		if !page.Truncated {
			break
		}
		after = page.Last
	}
	if listed != len(want) {
		t.Errorf("the index lists %d objects, %d were acknowledged", listed, len(want))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := fsckRoot(t, root, FsckOptions{}); len(rep.Problems) != 0 {
		t.Fatalf("fsck after the full disk: %v", kinds(rep))
	}
}

// noStaging fails the test when the staging area holds any file.
func noStaging(t *testing.T, root string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, storage.StateDir, "staging"))
	if err != nil {
		t.Fatal(err)
	}
	var names bytes.Buffer
	for _, e := range ents {
		names.WriteString(" " + e.Name())
	}
	if names.Len() > 0 {
		t.Fatalf("staging holds%s", names.String())
	}
}
