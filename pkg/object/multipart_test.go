package object

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// mpClock is a settable clock for expiry tests.
type mpClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *mpClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *mpClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newMPLayer opens a layer over a fresh root with a settable clock and a
// bucket "bkt".
func newMPLayer(t *testing.T) (*Layer, string, *mpClock) {
	t.Helper()
	root := t.TempDir()
	clock := &mpClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	l, err := Open(Options{Root: root, NoSync: true, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	return l, root, clock
}

func mpStart(t *testing.T, l *Layer, key string) string {
	t.Helper()
	u, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: key})
	if err != nil {
		t.Fatalf("CreateMultipartUpload(%q): %v", key, err)
	}
	return u.ID
}

func mpUpload(t *testing.T, l *Layer, key, id string, n int, body []byte) Part {
	t.Helper()
	p, err := l.UploadPart(PartInput{Bucket: "bkt", Key: key, UploadID: id, Number: n, Body: bytes.NewReader(body), Size: int64(len(body))})
	if err != nil {
		t.Fatalf("UploadPart(%q #%d): %v", key, n, err)
	}
	return p
}

// stateFiles returns every regular file under the state directory's
// multipart and staging areas, relative to the state directory.
func stateFiles(t *testing.T, root string) []string {
	t.Helper()
	state := filepath.Join(root, ".objectgateway")
	var out []string
	for _, dir := range []string{"multipart", "staging"} {
		err := filepath.WalkDir(filepath.Join(state, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(state, p)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walking %s: %v", dir, err)
		}
	}
	slices.Sort(out)
	return out
}

// uploadIDs lists the bucket's uploads in progress. A panic inside the
// layer is reported as a failure instead of ending the test binary.
func uploadIDs(t *testing.T, l *Layer) (ids []string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("ListUploads panicked: %v", r)
			ids = []string{"<panic>"}
		}
	}()
	page, err := l.ListUploads("bkt", metadata.UploadQuery{Limit: 1000})
	if err != nil {
		t.Fatalf("ListUploads: %v", err)
	}
	for _, u := range page.Uploads {
		ids = append(ids, u.ID)
	}
	return ids
}

// TestSweepUploadsRemovesExpired: an upload older than the expiry is
// aborted by the sweep, its part files leave the disk and it is no longer
// listed; a younger upload is untouched.
func TestSweepUploadsRemovesExpired(t *testing.T) {
	l, root, clock := newMPLayer(t)
	old := mpStart(t, l, "old")
	mpUpload(t, l, "old", old, 1, []byte("old part one"))
	mpUpload(t, l, "old", old, 2, []byte("old part two"))
	clock.advance(6 * 24 * time.Hour)
	young := mpStart(t, l, "young")
	mpUpload(t, l, "young", young, 1, []byte("young part"))

	if got, want := stateFiles(t, root), []string{"multipart/" + old + "/1", "multipart/" + old + "/2", "multipart/" + young + "/1"}; !slices.Equal(got, sorted(want)) {
		t.Fatalf("state files before the sweep: %q, want %q", got, sorted(want))
	}
	// Nothing is 7 days old yet.
	if n, err := l.SweepUploads(7 * 24 * time.Hour); err != nil || n != 0 {
		t.Fatalf("SweepUploads at 6 days: %d, %v; want 0", n, err)
	}
	clock.advance(2 * 24 * time.Hour)
	n, err := l.SweepUploads(7 * 24 * time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("SweepUploads at 8 days: %d, %v; want 1", n, err)
	}
	if got, want := stateFiles(t, root), []string{"multipart/" + young + "/1"}; !slices.Equal(got, want) {
		t.Errorf("state files after the sweep: %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(root, ".objectgateway", "multipart", old)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the expired upload's directory is still there (%v)", err)
	}
	if ids := uploadIDs(t, l); !slices.Equal(ids, []string{young}) {
		t.Errorf("uploads after the sweep: %q, want only %q", ids, young)
	}
	if _, err := l.UploadPart(PartInput{Bucket: "bkt", Key: "old", UploadID: old, Number: 3, Body: bytes.NewReader(nil)}); code(err) != s3err.NoSuchUpload {
		t.Errorf("UploadPart to a swept upload: %v, want NoSuchUpload", err)
	}
	if _, _, _, err := l.ListParts("bkt", "old", old, 0, 1000); code(err) != s3err.NoSuchUpload {
		t.Errorf("ListParts of a swept upload: %v, want NoSuchUpload", err)
	}
	if err := l.AbortMultipartUpload("bkt", "old", old); code(err) != s3err.NoSuchUpload {
		t.Errorf("AbortMultipartUpload of a swept upload: %v, want NoSuchUpload", err)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestAbortRemovesParts: an abort removes the upload's directory at once.
func TestAbortRemovesParts(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "k")
	for i := 1; i <= 3; i++ {
		mpUpload(t, l, "k", id, i, []byte(fmt.Sprintf("part %d", i)))
	}
	if got := stateFiles(t, root); len(got) != 3 {
		t.Fatalf("state files while uploading: %q, want 3 parts", got)
	}
	if err := l.AbortMultipartUpload("bkt", "k", id); err != nil {
		t.Fatalf("AbortMultipartUpload: %v", err)
	}
	if got := stateFiles(t, root); len(got) != 0 {
		t.Errorf("state files after abort: %q, want none", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".objectgateway", "multipart", id)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the aborted upload's directory is still there (%v)", err)
	}
	if ids := uploadIDs(t, l); len(ids) != 0 {
		t.Errorf("uploads after abort: %q", ids)
	}
}

// TestSweepUploadsRemovesOrphanedPartDirs: SweepUploads promises to
// remove part directories whose upload no longer exists (a crash between
// an abort's index commit and its file removal leaves one).
func TestSweepUploadsRemovesOrphanedPartDirs(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "k")
	mpUpload(t, l, "k", id, 1, []byte("orphan"))
	// The crash: the index forgot the upload, the files stayed.
	if err := l.ix.DeleteUpload("bkt", "k", id); err != nil {
		t.Fatal(err)
	}
	if got := stateFiles(t, root); len(got) != 1 {
		t.Fatalf("state files before the sweep: %q", got)
	}
	if _, err := l.SweepUploads(7 * 24 * time.Hour); err != nil {
		t.Fatalf("SweepUploads: %v", err)
	}
	if got := stateFiles(t, root); len(got) != 0 {
		t.Errorf("state files after the sweep: %q, want none (orphaned part directory left on disk)", got)
	}
}

// TestCompletedUploadRetryWindow: a retried completion answers like the
// first while remembered; the sweep forgets completions older than the
// expiry, after which the upload id is unknown.
func TestCompletedUploadRetryWindow(t *testing.T) {
	l, root, clock := newMPLayer(t)
	id := mpStart(t, l, "k")
	p := mpUpload(t, l, "k", id, 1, []byte("only part"))
	in := CompleteInput{Bucket: "bkt", Key: "k", UploadID: id, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}}
	first, err := l.CompleteMultipartUpload(in)
	if err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}
	if got := stateFiles(t, root); len(got) != 0 {
		t.Errorf("state files after completion: %q, want none", got)
	}
	again, err := l.CompleteMultipartUpload(in)
	if err != nil || again.ETag != first.ETag {
		t.Errorf("retried completion: %v ETag %q, want %q", err, again.ETag, first.ETag)
	}
	if first.PartsCount != 1 || first.Size != int64(len("only part")) {
		t.Errorf("completed record: %d parts, %d bytes", first.PartsCount, first.Size)
	}
	clock.advance(8 * 24 * time.Hour)
	if _, err := l.SweepUploads(7 * 24 * time.Hour); err != nil {
		t.Fatalf("SweepUploads: %v", err)
	}
	if _, err := l.CompleteMultipartUpload(in); code(err) != s3err.NoSuchUpload {
		t.Errorf("completion retried after the expiry: %v, want NoSuchUpload", err)
	}
}

// TestCheckCompletion checks the answer CompleteMultipartUpload gives for
// the upload alone, before any part is read: nothing for an upload in
// progress and for one completed into the object its key still holds,
// NoSuchUpload for an unknown id, another key, or a key overwritten since,
// and NoSuchBucket for a missing bucket.
func TestCheckCompletion(t *testing.T) {
	l, _, _ := newMPLayer(t)
	id := mpStart(t, l, "k")
	if _, err := l.CheckCompletion("bkt", "k", id); err != nil {
		t.Errorf("upload in progress: %v", err)
	}
	p := mpUpload(t, l, "k", id, 1, []byte("only part"))
	in := CompleteInput{Bucket: "bkt", Key: "k", UploadID: id, ExpectSize: -1, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}}
	if _, err := l.CompleteMultipartUpload(in); err != nil {
		t.Fatalf("CompleteMultipartUpload: %v", err)
	}
	if _, err := l.CheckCompletion("bkt", "k", id); err != nil {
		t.Errorf("completed upload: %v", err)
	}
	for _, c := range []struct {
		bucket, key, id string
		want            s3err.Code
	}{
		{"bkt", "k", "0000000000000000unknown", s3err.NoSuchUpload},
		{"bkt", "other", id, s3err.NoSuchUpload},
		{"missing", "k", id, s3err.NoSuchBucket},
	} {
		if _, err := l.CheckCompletion(c.bucket, c.key, c.id); code(err) != c.want {
			t.Errorf("CheckCompletion(%s, %s, %s): %v, want %s", c.bucket, c.key, c.id, err, c.want)
		}
	}
	if _, err := l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: bytes.NewReader([]byte("new")), Size: 3}); err != nil {
		t.Fatalf("PutObject: %v", err)
	}
	if _, err := l.CheckCompletion("bkt", "k", id); code(err) != s3err.NoSuchUpload {
		t.Errorf("completed upload whose key was overwritten: %v, want NoSuchUpload", err)
	}
}

// TestUploadPartRacingAbortLeavesNothing: parts that land while their
// upload is aborted are removed, whichever wins.
func TestUploadPartRacingAbortLeavesNothing(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "k")
	mpUpload(t, l, "k", id, 1, []byte("first"))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 2; i <= 17; i++ {
		wg.Go(func() {
			<-start
			body := bytes.Repeat([]byte{byte(i)}, 4096)
			_, err := l.UploadPart(PartInput{Bucket: "bkt", Key: "k", UploadID: id, Number: i, Body: bytes.NewReader(body), Size: int64(len(body))})
			if err != nil && code(err) != s3err.NoSuchUpload {
				t.Errorf("UploadPart #%d racing an abort: %v, want success or NoSuchUpload", i, err)
			}
		})
	}
	wg.Go(func() {
		<-start
		if err := l.AbortMultipartUpload("bkt", "k", id); err != nil {
			t.Errorf("AbortMultipartUpload racing parts: %v", err)
		}
	})
	close(start)
	wg.Wait()
	if got := stateFiles(t, root); len(got) != 0 {
		t.Errorf("state files after an abort raced by parts: %q, want none", got)
	}
}

// TestConditionalCreateRace: 32 writers of one key with If-None-Match *:
// exactly one wins and the object holds its bytes.
func TestConditionalCreateRace(t *testing.T) {
	l, root, _ := newMPLayer(t)
	const n = 32
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			body := bytes.Repeat([]byte{byte(i)}, 1000+i)
			_, errs[i] = l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: bytes.NewReader(body), Size: int64(len(body)),
				Conditions: Conditions{IfNoneMatch: "*"}})
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil:
			if winner >= 0 {
				t.Errorf("writers %d and %d both created the key", winner, i)
			}
			winner = i
		case code(err) == s3err.PreconditionFailed, code(err) == s3err.ConditionalRequestConflict:
		default:
			t.Errorf("writer %d: %v, want PreconditionFailed or ConditionalRequestConflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer created the key")
	}
	_, body := read(t, l, "k")
	if want := bytes.Repeat([]byte{byte(winner)}, 1000+winner); body != string(want) {
		t.Errorf("stored object is not the winner's (%d bytes)", len(body))
	}
	if got := stateFiles(t, root); len(got) != 0 {
		t.Errorf("refused writers left staging files: %q", got)
	}
}
