package sse

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// forcePipeline makes every WriteTo past its first block go through the
// pipeline, however small the range and however many cores the machine
// has, until the test ends.
func forcePipeline(t *testing.T, spare int32) {
	t.Helper()
	minPackages, cores := pipelineMinPackages, spareCores
	pipelineMinPackages, spareCores = 1, func() int32 { return spare }
	t.Cleanup(func() { pipelineMinPackages, spareCores = minPackages, cores })
}

// TestPipelineRunsTheReadSuites runs the range, damage and attack tests
// of this package again with the pipeline taking every range it can: the
// helper then decrypts some blocks of every WriteTo and the writer others,
// and both must hand out exactly the object's bytes or ErrCorrupt.
func TestPipelineRunsTheReadSuites(t *testing.T) {
	forcePipeline(t, 8)
	before := pipelined.Load()
	for name, f := range readSuites(false) {
		t.Run(name, f)
	}
	if pipelined.Load() == before {
		t.Fatal("no range went through the pipeline")
	}
	if n := helpers.Load(); n != 0 {
		t.Fatalf("%d helpers still counted after every read ended", n)
	}
}

// readSuites are the tests of reading an encrypted object (whole, by
// range, and under attack) that a test of another way of reading runs
// again; withParts adds those of PartsReader.
func readSuites(withParts bool) map[string]func(*testing.T) {
	m := map[string]func(*testing.T){
		"Blocks":                       TestBlocks,
		"TamperAndTruncationAreErrors": TestTamperAndTruncationAreErrors,
		"AttackReorderedPackages":      TestAttackReorderedPackages,
		"AttackDroppedDuplicated":      TestAttackDroppedDuplicatedPackages,
		"AttackTruncation":             TestAttackTruncation,
		"AttackForeignPackages":        TestAttackForeignPackages,
		"AttackSplicedPackage":         TestAttackSplicedPackageInARange,
		"AttackHeaderFields":           TestAttackHeaderFields,
		"AttackLengthAndFinalFlag":     TestAttackLengthAndFinalFlag,
		"AttackDamageOutsideTheRange":  TestAttackDamageOutsideTheRange,
		"EdgeRanges":                   TestEdgeRanges,
	}
	if withParts {
		m["PartsReaderRanges"] = TestPartsReaderRanges
		m["PartsReaderDetectsDamage"] = TestPartsReaderDetectsDamage
	}
	return m
}

// pipelineObject is an encrypted object of 150 packages and a bit, in a
// file: large enough for the pipeline at its real threshold.
func pipelineObject(t *testing.T) (key, plain []byte, f *os.File) {
	return pipelineObjectOf(t, 150*PackagePayload+123)
}

// pipelineObjectOf is an encrypted object of size bytes in a file.
func pipelineObjectOf(t *testing.T, size int) (key, plain []byte, f *os.File) {
	t.Helper()
	key = bytes.Repeat([]byte{9}, 32)
	plain = make([]byte, size)
	for i := range plain {
		plain[i] = plainAt(int64(i))
	}
	return key, plain, encryptedFile(t, encrypt(t, key, plain))
}

// encryptedFile is ct in a file of the test's, open for reading.
func encryptedFile(t *testing.T, ct []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "obj")
	if err := os.WriteFile(path, ct, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestPipelineLargeRanges reads ranges of a 37.5 MiB file at the
// pipeline's real threshold: whole, from inside the first package to
// inside the last, ending inside a package, ending exactly at a block's
// end, across and inside later stretches of the file.
func TestPipelineLargeRanges(t *testing.T) {
	forcePipeline(t, 1)
	pipelineMinPackages = 64
	key, plain, f := pipelineObjectOf(t, 600*PackagePayload+777)
	size := int64(len(plain))
	block := int64(blockPackages * PackagePayload)
	window := 32 * block
	for _, r := range [][2]int64{{0, size}, {7, size - 8}, {3*PackagePayload + 5, 100*PackagePayload + 11},
		{block - 1, 20 * block}, {size - 80*PackagePayload, 80 * PackagePayload}, {0, 90 * PackagePayload},
		{window - 3*block - 1, window + 2}, {2*window + 5, 70 * PackagePayload}} {
		before := pipelined.Load()
		rd, err := NewReader(f, key, size, r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := rd.Prime(); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := rd.WriteTo(&buf)
		if err != nil || n != r[1] || !bytes.Equal(buf.Bytes(), plain[r[0]:r[0]+r[1]]) {
			t.Fatalf("range %v: %d bytes (%d counted), %v", r, buf.Len(), n, err)
		}
		if pipelined.Load() == before {
			t.Errorf("range %v of %d packages did not go through the pipeline", r, r[1]/PackagePayload)
		}
	}
}

// TestPipelineStopsOnAWriteError checks that a writer failing mid-range
// ends the WriteTo with its error, the helper returns, and what was
// written is the object's.
func TestPipelineStopsOnAWriteError(t *testing.T) {
	forcePipeline(t, 1)
	key, plain, f := pipelineObject(t)
	size := int64(len(plain))
	for _, after := range []int{1, 2, 5, 20} {
		rd, err := NewReader(f, key, size, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		w := &prefixWriter{failingWriter: failingWriter{after: after}}
		if _, err := rd.WriteTo(w); !errors.Is(err, errWrite) {
			t.Fatalf("after %d writes: %v, want the writer's error", after, err)
		}
		if !bytes.Equal(w.buf.Bytes(), plain[:w.buf.Len()]) {
			t.Fatalf("after %d writes: the %d bytes written are not the object's", after, w.buf.Len())
		}
		if n := helpers.Load(); n != 0 {
			t.Fatalf("after %d writes: %d helpers still counted", after, n)
		}
	}
}

// prefixWriter keeps what a failingWriter accepted.
type prefixWriter struct {
	failingWriter
	buf bytes.Buffer
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	n, err := w.failingWriter.Write(p)
	w.buf.Write(p[:n])
	return n, err
}

// TestPipelineDamageInTheFile checks that a package damaged anywhere past
// the first block of a large range is ErrCorrupt, whichever goroutine
// decrypts it, and that nothing after the damage is handed out.
func TestPipelineDamageInTheFile(t *testing.T) {
	forcePipeline(t, 1)
	key, plain, f := pipelineObject(t)
	size := int64(len(plain))
	ct, err := io.ReadAll(io.NewSectionReader(f, 0, EncryptedSize(size)))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []int{4, 5, 9, 10, 77, 149, 150} {
		bad := bytes.Clone(ct)
		bad[pkg*PackageSize+headerSize+10] ^= 0x40
		// From memory and from a file.
		for _, src := range []io.ReaderAt{bytes.NewReader(bad), encryptedFile(t, bad)} {
			rd, err := NewReader(src, key, size, 0, size)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := rd.WriteTo(&buf); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("package %d damaged (%T): %v, want ErrCorrupt", pkg, src, err)
			}
			if buf.Len() > pkg*PackagePayload || !bytes.Equal(buf.Bytes(), plain[:buf.Len()]) {
				t.Fatalf("package %d damaged (%T): %d bytes handed out, or not the object's", pkg, src, buf.Len())
			}
		}
	}
	for _, cut := range []int64{int64(len(ct)) - 1, 100*PackageSize + 3, 40 * PackageSize} {
		for _, src := range []io.ReaderAt{bytes.NewReader(ct[:cut]), encryptedFile(t, ct[:cut])} {
			rd, err := NewReader(src, key, size, 0, size)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rd.WriteTo(io.Discard); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("file cut at %d (%T): %v, want ErrCorrupt", cut, src, err)
			}
		}
	}
	longer := append(bytes.Clone(ct), 0)
	for _, src := range []io.ReaderAt{bytes.NewReader(longer), encryptedFile(t, longer)} {
		rd, err := NewReader(src, key, size, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rd.WriteTo(io.Discard); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("a byte after the final package (%T): %v, want ErrCorrupt", src, err)
		}
	}
}

// TestPipelineFileCutWhileRead cuts the file short, inside a package's
// payload, while a range of it is being written: the blocks past the new
// end are short reads, ErrCorrupt, with only the object's bytes handed out.
func TestPipelineFileCutWhileRead(t *testing.T) {
	forcePipeline(t, 1)
	pipelineMinPackages = 64
	key, plain, f := pipelineObjectOf(t, 600*PackagePayload+777)
	size := int64(len(plain))
	rd, err := NewReader(f, key, size, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	w := &gateWriter{gate: make(chan struct{}), started: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := rd.WriteTo(w)
		done <- err
	}()
	<-w.started
	if err := os.Truncate(f.Name(), 100*PackageSize+headerSize+5000); err != nil {
		t.Fatal(err)
	}
	close(w.gate)
	if err := <-done; !errors.Is(err, ErrCorrupt) {
		t.Fatalf("WriteTo of a file cut short while it was read: %v, want ErrCorrupt", err)
	}
	if w.buf.Len() > 100*PackagePayload || !bytes.Equal(w.buf.Bytes(), plain[:w.buf.Len()]) {
		t.Fatalf("%d bytes handed out, or not the object's", w.buf.Len())
	}
	if n := helpers.Load(); n != 0 {
		t.Fatalf("%d helpers still counted", n)
	}
}

// panickyFile panics when a package at or past from is read.
type panickyFile struct {
	io.ReaderAt
	from int64
}

var errPanic = errors.New("a source that panics")

func (f panickyFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.from*PackageSize {
		panic(errPanic)
	}
	return f.ReaderAt.ReadAt(p, off)
}

// TestPipelineHelperPanicReachesTheCaller checks that a panic while a
// block is read or decrypted, in whichever goroutine, is raised again on
// the goroutine that called WriteTo (where net/http recovers a handler's
// panic and drops one connection), never ends the process from the
// helper, and leaves no helper counted.
func TestPipelineHelperPanicReachesTheCaller(t *testing.T) {
	forcePipeline(t, 1)
	key, plain, f := pipelineObject(t)
	size := int64(len(plain))
	for _, from := range []int64{8, 12, 60} {
		rd, err := NewReader(panickyFile{f, from}, key, size, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		got := func() (v any) {
			defer func() { v = recover() }()
			rd.WriteTo(&buf)
			return nil
		}()
		if got != errPanic {
			t.Fatalf("from package %d: WriteTo's caller recovered %v, want the source's panic", from, got)
		}
		if buf.Len() > int(from)*PackagePayload || !bytes.Equal(buf.Bytes(), plain[:buf.Len()]) {
			t.Fatalf("from package %d: %d bytes handed out, or not the object's", from, buf.Len())
		}
		if n := helpers.Load(); n != 0 {
			t.Fatalf("from package %d: %d helpers still counted", from, n)
		}
	}
}

// TestPipelineHelpersAreBounded starts more large reads at once than
// there are spare cores: only that many get a helper, the others decrypt
// alone, and all hand out the object.
func TestPipelineHelpersAreBounded(t *testing.T) {
	forcePipeline(t, 1)
	key, plain, f := pipelineObject(t)
	size := int64(len(plain))
	// The first read holds its helper until the others have finished.
	hold := make(chan struct{})
	first := &gateWriter{gate: hold, started: make(chan struct{})}
	before := pipelined.Load()
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	wg.Add(1)
	go func() {
		defer wg.Done()
		rd, err := NewReader(f, key, size, 0, size)
		if err == nil {
			_, err = rd.WriteTo(first)
		}
		if err == nil && !bytes.Equal(first.buf.Bytes(), plain) {
			err = errors.New("the held read handed out the wrong bytes")
		}
		errs <- err
	}()
	<-first.started
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rd, err := NewReader(f, key, size, 0, size)
			var buf bytes.Buffer
			if err == nil {
				_, err = rd.WriteTo(&buf)
			}
			if err == nil && !bytes.Equal(buf.Bytes(), plain) {
				err = errors.New("a concurrent read handed out the wrong bytes")
			}
			errs <- err
		}()
	}
	// The four finish without a helper while the first holds the only one.
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := pipelined.Load() - before; got != 1 {
		t.Errorf("%d reads went through the pipeline with one spare core, want 1", got)
	}
	close(hold)
	wg.Wait()
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// gateWriter blocks its second write (the first in the pipeline) until
// gate is closed, and says when it got there.
type gateWriter struct {
	gate    chan struct{}
	started chan struct{}
	writes  int
	buf     bytes.Buffer
	once    sync.Once
}

func (w *gateWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes == 2 {
		w.once.Do(func() { close(w.started) })
		<-w.gate
	}
	return w.buf.Write(p)
}

// TestPipelineAllocationsDoNotGrowWithSize checks that the pipeline, like
// the serial path, allocates nothing per block.
func TestPipelineAllocationsDoNotGrowWithSize(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters allocate")
	}
	forcePipeline(t, 1)
	// 256 packages are 64 blocks: an allocation per block would be 60
	// more. The margin is for the race detector's sync.Pool, which drops
	// a quarter of what is put back.
	small, large := writeToAllocs(t, 16*PackagePayload), writeToAllocs(t, 256*PackagePayload)
	if large >= small+16 {
		t.Errorf("reading 256 packages allocates %.0f times, 16 packages %.0f: allocations grow with the size", large, small)
	}
}

// shortWriter accepts half of each write after its first, with no error,
// breaking io.Writer's contract.
type shortWriter struct {
	writes int
	buf    bytes.Buffer
}

func (w *shortWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > 1 {
		p = p[:len(p)/2]
	}
	return w.buf.Write(p)
}

// TestShortWriteIsAnError checks that a writer that takes part of a block
// without an error ends WriteTo with io.ErrShortWrite, serially and in the
// pipeline, instead of losing the rest of the block, and that the count
// is what the writer took.
func TestShortWriteIsAnError(t *testing.T) {
	key, plain, f := pipelineObject(t)
	size := int64(len(plain))
	for _, spare := range []int32{0, 1} {
		forcePipeline(t, spare)
		rd, err := NewReader(f, key, size, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		w := &shortWriter{}
		n, err := rd.WriteTo(w)
		if !errors.Is(err, io.ErrShortWrite) || n != int64(w.buf.Len()) || !bytes.Equal(w.buf.Bytes(), plain[:w.buf.Len()]) {
			t.Fatalf("spare %d: %d counted, %d taken, %v, want io.ErrShortWrite", spare, n, w.buf.Len(), err)
		}
	}
}

// TestHelperSlots: one helper fewer than the CPUs, none on one CPU, and
// never more than maxHelpers however many CPUs the host has.
func TestHelperSlots(t *testing.T) {
	for _, c := range []struct{ procs, want int }{{1, 0}, {2, 1}, {maxHelpers + 1, maxHelpers}, {64, maxHelpers}, {1024, maxHelpers}} {
		if got := helperSlots(c.procs); int(got) != c.want {
			t.Errorf("%d CPUs: %d helpers, want %d", c.procs, got, c.want)
		}
	}
}
