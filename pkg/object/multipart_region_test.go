package object

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// regionPart is the body of part n of a test upload: size bytes, every
// byte derived from n and a version, so that any misplaced range shows.
func regionPart(n, version int, size int64) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(n*31 + version*7 + i%251)
	}
	return b
}

// completeParts completes upload id of key with parts, in order.
func completeParts(t *testing.T, l *Layer, key, id string, parts ...Part) Object {
	t.Helper()
	var req []CompletePart
	for _, p := range parts {
		req = append(req, CompletePart{Number: p.Number, ETag: p.ETag})
	}
	o, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: key, UploadID: id, ExpectSize: -1, Parts: req})
	if err != nil {
		t.Fatalf("CompleteMultipartUpload(%q): %v", key, err)
	}
	return o
}

// checkObjectBytes reads key back and compares it with want.
func checkObjectBytes(t *testing.T, root, key string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(root, "bkt", key))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes, want %d (contents differ: %v)", key, len(got), len(want), len(got) == len(want))
	}
}

// TestCompleteRegularUploadCopiesNothing: eight parts of one size (the
// last one shorter), uploaded concurrently and out of order as SDKs do,
// land in the upload's region; the completion copies no byte, and the
// object is the parts in order, byte for byte.
func TestCompleteRegularUploadCopiesNothing(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "regular")
	const size = MinPartSize
	bodies := make([][]byte, 8)
	parts := make([]Part, 8)
	for i := range bodies {
		bodies[i] = regionPart(i+1, 0, size)
	}
	bodies[7] = regionPart(8, 0, 12345)
	// Part 1 first (it fixes the part size), then the rest at once.
	parts[0] = mpUpload(t, l, "regular", id, 1, bodies[0])
	var wg sync.WaitGroup
	for i := 7; i >= 1; i-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := l.UploadPart(PartInput{Bucket: "bkt", Key: "regular", UploadID: id, Number: i + 1, Body: bytes.NewReader(bodies[i]), Size: int64(len(bodies[i]))})
			if err != nil {
				t.Errorf("UploadPart %d: %v", i+1, err)
			}
			parts[i] = p
		}()
	}
	wg.Wait()
	for _, p := range parts {
		if !p.InRegion {
			t.Errorf("part %d (%d bytes) is not in the region", p.Number, p.Size)
		}
	}
	before := l.fs.CopiedBytes()
	o := completeParts(t, l, "regular", id, parts...)
	if n := l.fs.CopiedBytes() - before; n != 0 {
		t.Errorf("completion copied %d bytes, want 0", n)
	}
	checkObjectBytes(t, root, "regular", bytes.Join(bodies, nil))
	if o.Size != 7*size+12345 || o.PartsCount != 8 {
		t.Errorf("record: size %d, %d parts", o.Size, o.PartsCount)
	}
	if left := stateFiles(t, root); len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}

// TestCompleteCopiesOnlyPartsOutsideTheRegion: a part uploaded again
// (with other bytes) and a last part larger than the others live in
// files of their own; the completion copies exactly their bytes into the
// region, and the object holds the re-uploaded bytes, not the first ones.
func TestCompleteCopiesOnlyPartsOutsideTheRegion(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "mixed")
	const size = MinPartSize
	var parts []Part
	var want [][]byte
	for n := 1; n <= 7; n++ {
		b := regionPart(n, 0, size)
		parts = append(parts, mpUpload(t, l, "mixed", id, n, b))
		want = append(want, b)
	}
	again := regionPart(3, 1, size)
	parts[2] = mpUpload(t, l, "mixed", id, 3, again)
	want[2] = again
	last := regionPart(8, 0, size+4096)
	parts = append(parts, mpUpload(t, l, "mixed", id, 8, last))
	want = append(want, last)
	if parts[2].InRegion || parts[7].InRegion {
		t.Fatalf("re-upload in region %v, larger last part in region %v; want both in files of their own", parts[2].InRegion, parts[7].InRegion)
	}
	before := l.fs.CopiedBytes()
	completeParts(t, l, "mixed", id, parts...)
	if n, wantN := l.fs.CopiedBytes()-before, int64(size+size+4096); n != wantN {
		t.Errorf("completion copied %d bytes, want %d (the re-upload and the last part)", n, wantN)
	}
	checkObjectBytes(t, root, "mixed", bytes.Join(want, nil))
}

// TestCompleteIrregularUploads: uploads whose parts do not lay out as the
// region holds them are copied part by part, and come out byte for byte:
// parts of different sizes, a part uploaded again with another size, a
// chosen subset with a gap, and a subset that leaves region parts out.
func TestCompleteIrregularUploads(t *testing.T) {
	l, root, _ := newMPLayer(t)

	t.Run("sizes", func(t *testing.T) {
		id := mpStart(t, l, "sizes")
		a, b, c := regionPart(1, 0, MinPartSize+100), regionPart(2, 0, MinPartSize), regionPart(3, 0, MinPartSize+300)
		p1, p2, p3 := mpUpload(t, l, "sizes", id, 1, a), mpUpload(t, l, "sizes", id, 2, b), mpUpload(t, l, "sizes", id, 3, c)
		before := l.fs.CopiedBytes()
		completeParts(t, l, "sizes", id, p1, p2, p3)
		if n := l.fs.CopiedBytes() - before; n != int64(len(c)) {
			t.Errorf("copied %d bytes, want %d (only the larger last part)", n, len(c))
		}
		checkObjectBytes(t, root, "sizes", bytes.Join([][]byte{a, b, c}, nil))
	})

	t.Run("re-upload with another size", func(t *testing.T) {
		id := mpStart(t, l, "resize")
		a, b, c := regionPart(1, 0, MinPartSize), regionPart(2, 0, MinPartSize), regionPart(3, 0, 999)
		p1, _, p3 := mpUpload(t, l, "resize", id, 1, a), mpUpload(t, l, "resize", id, 2, b), mpUpload(t, l, "resize", id, 3, c)
		b2 := regionPart(2, 1, MinPartSize+777)
		p2 := mpUpload(t, l, "resize", id, 2, b2)
		before := l.fs.CopiedBytes()
		completeParts(t, l, "resize", id, p1, p2, p3)
		if n, all := l.fs.CopiedBytes()-before, int64(len(a)+len(b2)+len(c)); n != all {
			t.Errorf("copied %d bytes, want %d (every part: the layout moved)", n, all)
		}
		checkObjectBytes(t, root, "resize", bytes.Join([][]byte{a, b2, c}, nil))
	})

	t.Run("gap", func(t *testing.T) {
		id := mpStart(t, l, "gap")
		a, b, c := regionPart(1, 0, MinPartSize), regionPart(2, 0, MinPartSize), regionPart(3, 0, 5000)
		p1, _, p3 := mpUpload(t, l, "gap", id, 1, a), mpUpload(t, l, "gap", id, 2, b), mpUpload(t, l, "gap", id, 3, c)
		completeParts(t, l, "gap", id, p1, p3)
		checkObjectBytes(t, root, "gap", bytes.Join([][]byte{a, c}, nil))
	})

	t.Run("prefix", func(t *testing.T) {
		id := mpStart(t, l, "prefix")
		a, b, c := regionPart(1, 0, MinPartSize), regionPart(2, 0, MinPartSize), regionPart(3, 0, MinPartSize)
		p1, p2, _ := mpUpload(t, l, "prefix", id, 1, a), mpUpload(t, l, "prefix", id, 2, b), mpUpload(t, l, "prefix", id, 3, c)
		completeParts(t, l, "prefix", id, p1, p2)
		checkObjectBytes(t, root, "prefix", bytes.Join([][]byte{a, b}, nil))
	})
}

// TestAbortRemovesRegion: aborting an upload removes its region file with
// its part directory.
func TestAbortRemovesRegion(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "gone")
	if p := mpUpload(t, l, "gone", id, 1, regionPart(1, 0, MinPartSize)); !p.InRegion {
		t.Fatal("part 1 is not in the region")
	}
	region := filepath.Join(root, ".objectgateway", "multipart", id, "region")
	if _, err := os.Stat(region); err != nil {
		t.Fatalf("no region file: %v", err)
	}
	if err := l.AbortMultipartUpload("bkt", "gone", id); err != nil {
		t.Fatal(err)
	}
	if left := stateFiles(t, root); len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}

// TestRegionWriterSealedByCompletion: a part still being written into the
// region when the upload is completed without it never touches the
// object: its next write fails, its record is never committed, and the
// object keeps exactly the chosen parts.
func TestRegionWriterSealedByCompletion(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "sealed")
	a, b := regionPart(1, 0, MinPartSize), regionPart(2, 0, 100)
	p1, p2 := mpUpload(t, l, "sealed", id, 1, a), mpUpload(t, l, "sealed", id, 2, b)
	pr, pw := io.Pipe()
	result := make(chan error, 1)
	go func() {
		_, err := l.UploadPart(PartInput{Bucket: "bkt", Key: "sealed", UploadID: id, Number: 3, Body: pr, Size: MinPartSize})
		result <- err
	}()
	// Part 3 has claimed its range and written its first buffer into the
	// region once the pipe has taken a buffer's worth and one chunk more:
	// the body is read, then written, one buffer (at most pipeChunk) at
	// a time.
	chunk := regionPart(3, 0, 64<<10)
	for range pipeChunk/len(chunk) + 1 {
		if _, err := pw.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	completeParts(t, l, "sealed", id, p1, p2)
	// Whatever the writer does now must not reach the object.
	go func() {
		for range MinPartSize/len(chunk) - pipeChunk/len(chunk) - 1 {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		pw.Close()
	}()
	if err := <-result; err == nil {
		t.Error("part 3 was stored after its upload was completed")
	}
	pr.Close()
	checkObjectBytes(t, root, "sealed", bytes.Join([][]byte{a, b}, nil))
}

// TestCompletionRetryInFlightAssemblesOnce: a completion retried while
// the first is still assembling waits for it and answers with its
// result; the object is assembled and committed once.
func TestCompletionRetryInFlightAssemblesOnce(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "retry")
	a, b := regionPart(1, 0, MinPartSize), regionPart(2, 0, 10)
	p1, p2 := mpUpload(t, l, "retry", id, 1, a), mpUpload(t, l, "retry", id, 2, b)
	entered := make(chan struct{}, 4)
	release := make(chan struct{})
	var mu sync.Mutex
	commits := 0
	l.beforeCommit = func() {
		mu.Lock()
		commits++
		mu.Unlock()
		entered <- struct{}{}
		<-release
	}
	in := CompleteInput{Bucket: "bkt", Key: "retry", UploadID: id, ExpectSize: -1,
		Parts: []CompletePart{{Number: 1, ETag: p1.ETag}, {Number: 2, ETag: p2.ETag}}}
	type answer struct {
		o   Object
		err error
	}
	answers := make(chan answer, 2)
	go func() {
		o, err := l.CompleteMultipartUpload(in)
		answers <- answer{o, err}
	}()
	<-entered
	// The first completion is held at its commit; the retry either joins
	// it or assembles and commits a second time.
	joined := make(chan struct{})
	l.completions.onJoin = func() { close(joined) }
	go func() {
		o, err := l.CompleteMultipartUpload(in)
		answers <- answer{o, err}
	}()
	select {
	case <-joined:
	case <-entered:
		t.Error("the retry assembled and committed a second time while the first was running")
	}
	close(release)
	first, second := <-answers, <-answers
	for _, a := range []answer{first, second} {
		if a.err != nil {
			t.Fatalf("completion: %v", a.err)
		}
	}
	if first.o.ETag != second.o.ETag {
		t.Errorf("ETags %q and %q", first.o.ETag, second.o.ETag)
	}
	mu.Lock()
	defer mu.Unlock()
	if commits != 1 {
		t.Errorf("%d commits, want 1", commits)
	}
	checkObjectBytes(t, root, "retry", bytes.Join([][]byte{a, b}, nil))
}

// TestRegionAfterRestart: a new process recovers the upload's part size
// from the region records, so parts uploaded after a restart still land
// at their offsets and the completion copies nothing.
func TestRegionAfterRestart(t *testing.T) {
	root := t.TempDir()
	l, err := Open(Options{Root: root, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	id := mpStart(t, l, "restart")
	a, b, c := regionPart(1, 0, MinPartSize), regionPart(2, 0, MinPartSize), regionPart(3, 0, 77)
	p1, p2 := mpUpload(t, l, "restart", id, 1, a), mpUpload(t, l, "restart", id, 2, b)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err = Open(Options{Root: root, NoSync: true}); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p3 := mpUpload(t, l, "restart", id, 3, c)
	if !p3.InRegion || p3.Offset != 2*MinPartSize {
		t.Fatalf("part 3 after restart: in region %v at %d, want at %d", p3.InRegion, p3.Offset, 2*MinPartSize)
	}
	before := l.fs.CopiedBytes()
	completeParts(t, l, "restart", id, p1, p2, p3)
	if n := l.fs.CopiedBytes() - before; n != 0 {
		t.Errorf("completion copied %d bytes, want 0", n)
	}
	checkObjectBytes(t, root, "restart", bytes.Join([][]byte{a, b, c}, nil))
}

// TestRegionLinkedElsewhereIsNotReused: a completion that crashed after
// renaming the region to its key, before the index commit, leaves the
// region with a second link, which the key's file is. That file must not
// change: later parts go to files of their own, and the next completion
// copies every part into a new file.
func TestRegionLinkedElsewhereIsNotReused(t *testing.T) {
	l, root, _ := newMPLayer(t)
	id := mpStart(t, l, "linked")
	a, b := regionPart(1, 0, MinPartSize), regionPart(2, 0, MinPartSize)
	p1, p2 := mpUpload(t, l, "linked", id, 1, a), mpUpload(t, l, "linked", id, 2, b)
	published := filepath.Join(root, "bkt", "published")
	if err := os.Link(filepath.Join(root, ".objectgateway", "multipart", id, "region"), published); err != nil {
		t.Fatal(err)
	}
	snapshot, err := os.ReadFile(published)
	if err != nil {
		t.Fatal(err)
	}
	c := regionPart(3, 0, 123)
	p3 := mpUpload(t, l, "linked", id, 3, c)
	if p3.InRegion {
		t.Error("part 3 went into a region that is linked elsewhere")
	}
	before := l.fs.CopiedBytes()
	completeParts(t, l, "linked", id, p1, p2, p3)
	if n, all := l.fs.CopiedBytes()-before, int64(len(a)+len(b)+len(c)); n != all {
		t.Errorf("completion copied %d bytes, want %d (every part)", n, all)
	}
	checkObjectBytes(t, root, "linked", bytes.Join([][]byte{a, b, c}, nil))
	if now, err := os.ReadFile(published); err != nil || !bytes.Equal(now, snapshot) {
		t.Errorf("the file linked to the region changed (%v)", err)
	}
}

// TestUploadPartCopyIntoRegion: parts made by UploadPartCopy go into the
// region like uploaded ones, and their completion copies nothing more.
func TestUploadPartCopyIntoRegion(t *testing.T) {
	l, root, _ := newMPLayer(t)
	src := regionPart(9, 0, MinPartSize+10)
	if _, err := l.PutObject(PutInput{Bucket: "bkt", Key: "src", Body: bytes.NewReader(src), Size: int64(len(src))}); err != nil {
		t.Fatal(err)
	}
	id := mpStart(t, l, "copied")
	whole := func(size int64) (int64, int64, error) { return 0, MinPartSize, nil }
	tail := func(size int64) (int64, int64, error) { return MinPartSize, 10, nil }
	var parts []Part
	for i, rng := range []func(int64) (int64, int64, error){whole, tail} {
		p, err := l.UploadPartCopy(CopyPartInput{Bucket: "bkt", Key: "copied", UploadID: id, Number: i + 1, SrcBucket: "bkt", SrcKey: "src", Range: rng})
		if err != nil {
			t.Fatal(err)
		}
		if !p.InRegion {
			t.Errorf("copied part %d is not in the region", p.Number)
		}
		parts = append(parts, p)
	}
	before := l.fs.CopiedBytes()
	completeParts(t, l, "copied", id, parts...)
	if n := l.fs.CopiedBytes() - before; n != 0 {
		t.Errorf("completion copied %d bytes, want 0", n)
	}
	checkObjectBytes(t, root, "copied", src)
}

// openRegions counts this process's descriptors open on the region file
// of upload id.
func openRegions(t *testing.T, id string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil &&
			strings.HasSuffix(target, filepath.Join("multipart", id, "region")) {
			n++
		}
	}
	return n
}

// pausedBody yields its first bytes, then waits for resume before the
// rest, as a part whose body is still arriving.
type pausedBody struct {
	b       []byte
	paused  chan struct{}
	resume  chan struct{}
	stopped bool
}

func (p *pausedBody) Read(q []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	if !p.stopped && len(p.b) < MinPartSize {
		p.stopped = true
		close(p.paused)
		<-p.resume
	}
	n := copy(q[:min(len(q), 1<<20)], p.b)
	p.b = p.b[n:]
	return n, nil
}

// TestIncompleteUploadsHoldNoDescriptor: an upload whose parts are all
// written keeps no descriptor of its region open, so that uploads a
// client starts and never completes (they live until they expire) cannot
// use up the process's descriptors: each held one before, 40 uploads
// with one 5 MiB part were 40 descriptors until the gateway stopped. The
// region is open while a part is being written into it and for a
// completion, and one that failed closes it again; the completion still
// copies nothing.
func TestIncompleteUploadsHoldNoDescriptor(t *testing.T) {
	l, root, _ := newMPLayer(t)
	var ids []string
	for i := range 3 {
		key := fmt.Sprintf("left%d", i)
		id := mpStart(t, l, key)
		ids = append(ids, id)
		for n := 1; n <= 2; n++ {
			if p := mpUpload(t, l, key, id, n, regionPart(n, 0, MinPartSize)); !p.InRegion {
				t.Fatalf("%s part %d is not in the region", key, n)
			}
			if open := openRegions(t, id); open != 0 {
				t.Fatalf("%s: %d descriptors of the region open after part %d was written", key, open, n)
			}
		}
	}

	// A part being written holds the region open until it ends.
	body := &pausedBody{b: regionPart(3, 0, MinPartSize), paused: make(chan struct{}), resume: make(chan struct{})}
	errs := make(chan error, 1)
	var p3 Part
	go func() {
		var err error
		p3, err = l.UploadPart(PartInput{Bucket: "bkt", Key: "left0", UploadID: ids[0], Number: 3, Body: body, Size: MinPartSize})
		errs <- err
	}()
	<-body.paused
	if open := openRegions(t, ids[0]); open != 1 {
		t.Fatalf("%d descriptors of the region open while a part is written, want 1", open)
	}
	close(body.resume)
	if err := <-errs; err != nil || !p3.InRegion {
		t.Fatalf("part 3: %+v, %v", p3, err)
	}
	if open := openRegions(t, ids[0]); open != 0 {
		t.Fatalf("%d descriptors of the region open after part 3 ended", open)
	}

	// A completion that fails closes the region again.
	parts, _, err := l.ix.Parts("bkt", "left0", ids[0], 0, 0)
	if err != nil || len(parts) != 3 {
		t.Fatalf("parts: %v %v", parts, err)
	}
	bad := []CompletePart{{Number: 1, ETag: parts[0].ETag}, {Number: 2, ETag: "0123456789abcdef0123456789abcdef"}}
	if _, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: "left0", UploadID: ids[0], ExpectSize: -1, Parts: bad}); code(err) != s3err.InvalidPart {
		t.Fatalf("completion with a wrong ETag: %v, want InvalidPart", err)
	}
	if open := openRegions(t, ids[0]); open != 0 {
		t.Fatalf("%d descriptors of the region open after a failed completion", open)
	}
	before := l.fs.CopiedBytes()
	completeParts(t, l, "left0", ids[0], parts...)
	if n := l.fs.CopiedBytes() - before; n != 0 {
		t.Errorf("completion copied %d bytes, want 0", n)
	}
	checkObjectBytes(t, root, "left0", bytes.Join([][]byte{regionPart(1, 0, MinPartSize), regionPart(2, 0, MinPartSize), regionPart(3, 0, MinPartSize)}, nil))
}
