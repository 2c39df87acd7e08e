package object

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// choppy returns its bytes in reads of random sizes (1 byte to 300 KiB),
// as a socket does, so that pipeline buffers are filled by several reads
// and end at arbitrary offsets; after the bytes it returns end.
type choppy struct {
	b   []byte
	rnd *rand.Rand
	end error
}

func (c *choppy) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, c.end
	}
	n := min(len(p), len(c.b), 1+c.rnd.IntN(300<<10))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

func randomBody(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestPutBodiesAroundThePipeline stores bodies on both sides of every
// size the copy depends on (the pipeline threshold, its buffer size, the
// writeback step), with known and unknown sizes, and checks the bytes,
// the MD5 ETag and the CRC64NVME checksum stored.
func TestPutBodiesAroundThePipeline(t *testing.T) {
	l, _ := newLayer(t)
	sizes := []int{0, 1, pipelineMin - 1, pipelineMin, pipelineMin + 1,
		3*pipeChunk + 17, pipeDepth*pipeChunk + 1, 9<<20 + 5}
	for i, size := range sizes {
		for _, known := range []bool{true, false} {
			name := fmt.Sprintf("%d-known=%v", size, known)
			body := randomBody(size, uint64(i))
			in := PutInput{Bucket: "bkt", Key: name, Size: -1,
				Body: &choppy{b: body, rnd: rand.New(rand.NewPCG(1, uint64(i))), end: io.EOF}}
			if known {
				in.Size = int64(size)
			}
			o, err := l.PutObject(in)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sum := md5.Sum(body)
			crc := checksum.CRC64NVME.New()
			crc.Write(body)
			wantCRC := base64.StdEncoding.EncodeToString(crc.Sum(nil))
			if o.ETag != hex.EncodeToString(sum[:]) || o.Size != int64(size) ||
				len(o.Checksums) != 1 || o.Checksums[0].Value != wantCRC {
				t.Fatalf("%s: record %+v; want ETag %x, CRC64NVME %s", name, o, sum, wantCRC)
			}
			if _, got := read(t, l, name); !bytes.Equal([]byte(got), body) {
				t.Fatalf("%s: stored bytes differ from the body", name)
			}
		}
	}
}

// TestPutPipelineRejectsBadBodies is TestPutRejectsBadBodiesAndKeepsOldVersion
// for bodies large enough for the pipeline: every bad body is refused with
// S3's error, the previous version stays, nothing is left in staging and
// no goroutine of the pipeline outlives the request.
func TestPutPipelineRejectsBadBodies(t *testing.T) {
	l, root := newLayer(t)
	put(t, l, "k", "original")
	body := randomBody(3*pipelineMin+123, 7)
	src := func(b []byte, end error) io.Reader {
		return &choppy{b: b, rnd: rand.New(rand.NewPCG(2, 3)), end: end}
	}
	size := int64(len(body))
	badCRC := base64.StdEncoding.EncodeToString(make([]byte, 8))
	cases := []struct {
		name string
		in   PutInput
		want s3err.Code
	}{
		{"short body, known size", PutInput{Body: src(body[:len(body)-1], io.EOF), Size: size}, s3err.IncompleteBody},
		{"long body", PutInput{Body: src(body, io.EOF), Size: size - 1}, s3err.IncompleteBody},
		{"truncated, unknown size", PutInput{Body: src(body[:pipelineMin+5], io.ErrUnexpectedEOF), Size: -1}, s3err.IncompleteBody},
		{"broken connection", PutInput{Body: src(body[:pipeChunk*2], errors.New("connection reset")), Size: size}, s3err.IncompleteBody},
		{"bad Content-MD5", PutInput{Body: src(body, io.EOF), Size: size,
			Expect: checksum.Expect{ContentMD5: "1B2M2Y8AsgTpgAmY7PhCfg=="}}, s3err.BadDigest},
		{"bad trailer checksum", PutInput{Body: src(body, io.EOF), Size: -1,
			Expect: checksum.Expect{Algorithm: checksum.CRC64NVME, Trailer: func() string { return badCRC }}}, s3err.BadDigest},
		{"missing trailer checksum", PutInput{Body: src(body, io.EOF), Size: -1,
			Expect: checksum.Expect{Algorithm: checksum.CRC64NVME, Trailer: func() string { return "" }}}, s3err.MalformedTrailerError},
	}
	before := runtime.NumGoroutine()
	for _, c := range cases {
		c.in.Bucket, c.in.Key = "bkt", "k"
		if _, err := l.PutObject(c.in); code(err) != c.want {
			t.Errorf("%s: err %v, want %s", c.name, err, c.want)
		}
	}
	if _, got := read(t, l, "k"); got != "original" {
		t.Fatalf("a rejected PUT must leave the previous version intact, got %d bytes", len(got))
	}
	entries, err := os.ReadDir(filepath.Join(root, ".objectgateway", "staging"))
	if err != nil || len(entries) != 0 {
		t.Fatalf("rejected uploads must leave no staging files: %v %v", entries, err)
	}
	// The hashing goroutine of each rejected PUT has ended: copyPipelined
	// waits for it before returning, so the count is back at once (a
	// short wait covers unrelated goroutines of the runtime).
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d before the rejected PUTs, %d after", before, runtime.NumGoroutine())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// And the layer still stores a good large body.
	o, err := l.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: src(body, io.EOF), Size: size})
	if sum := md5.Sum(body); err != nil || o.ETag != hex.EncodeToString(sum[:]) {
		t.Fatalf("good body after the bad ones: %+v, %v", o, err)
	}
}

// panicky yields n bytes, then panics, as a broken body decoder might.
type panicky struct{ n int }

func (p *panicky) Read(b []byte) (int, error) {
	if p.n == 0 {
		panic("body decoder bug")
	}
	m := min(len(b), p.n)
	p.n -= m
	return m, nil
}

// TestPipelinePanicReleasesEverything makes the body of pipelined PUTs
// panic mid-copy, more times than there are pipeline slots: each panic
// reaches the caller (where net/http's recovery would answer it), no
// request hangs, every slot is released and nothing is left in staging.
func TestPipelinePanicReleasesEverything(t *testing.T) {
	l, root := newLayer(t)
	for range cap(pipelines) + 2 {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("the body's panic did not reach the caller")
				}
			}()
			l.PutObject(PutInput{Bucket: "bkt", Key: "p", Body: &panicky{n: pipelineMin + 5}, Size: -1})
		}()
	}
	if n := len(pipelines); n != 0 {
		t.Fatalf("%d pipeline slots still taken after the panics", n)
	}
	entries, err := os.ReadDir(filepath.Join(root, ".objectgateway", "staging"))
	if err != nil || len(entries) != 0 {
		t.Fatalf("staging after the panics: %v %v", entries, err)
	}
}

// stalled is a body that, like a client that stops sending, blocks in its
// first Read until released, having reported the size of the buffer it
// was handed; it then ends without a byte.
type stalled struct {
	reading chan<- int
	release <-chan struct{}
}

func (s *stalled) Read(p []byte) (int, error) {
	s.reading <- len(p)
	<-s.release
	return 0, io.ErrUnexpectedEOF
}

// TestSlowBodiesHoldBoundedBuffers holds more PUT bodies stalled at once
// than copies may use a large buffer, as one client that opens many
// connections and trickles their bodies does: at most maxLargeCopies of
// them hold a buffer of copyBufSize, the others one of smallCopyBufSize
// (256 KiB for each of --max-requests such bodies was 256 MiB pinned by
// one client), and every one is still answered and releases what it took.
func TestSlowBodiesHoldBoundedBuffers(t *testing.T) {
	l, root := newLayer(t)
	const bodies = maxLargeCopies + 16
	reading := make(chan int)
	release := make(chan struct{})
	errs := make(chan error, bodies)
	for i := range bodies {
		go func() {
			_, err := l.PutObject(PutInput{Bucket: "bkt", Key: fmt.Sprintf("slow%d", i),
				Body: &stalled{reading: reading, release: release}, Size: pipelineMin - 1})
			errs <- err
		}()
	}
	sizes := map[int]int{}
	for range bodies {
		sizes[<-reading]++
	}
	if sizes[copyBufSize] != maxLargeCopies || sizes[smallCopyBufSize] != bodies-maxLargeCopies {
		t.Fatalf("buffers handed to %d stalled bodies, by size: %v; want %d of %d bytes, the rest of %d",
			bodies, sizes, maxLargeCopies, copyBufSize, smallCopyBufSize)
	}
	close(release)
	for range bodies {
		if err := <-errs; code(err) != s3err.IncompleteBody {
			t.Fatalf("stalled body: %v, want IncompleteBody", err)
		}
	}
	if n := len(largeCopies); n != 0 {
		t.Fatalf("%d large copy buffers still taken after the bodies ended", n)
	}
	entries, err := os.ReadDir(filepath.Join(root, ".objectgateway", "staging"))
	if err != nil || len(entries) != 0 {
		t.Fatalf("staging after the stalled bodies: %v %v", entries, err)
	}
	// A small body takes a small buffer and no large one.
	if bp, release := copyBuf(smallCopyBufSize); len(*bp) != smallCopyBufSize || len(largeCopies) != 0 {
		t.Fatalf("a body of %d bytes got a buffer of %d (%d large taken)", smallCopyBufSize, len(*bp), len(largeCopies))
	} else {
		release()
	}
}

// TestSlowPipelinedBodiesHoldBoundedBuffers stalls more large bodies (the
// size that takes a pipeline) than there are pipelines: the first ones
// each read into a pipeline buffer, the rest copy serially through a copy
// buffer, so slow clients pin at most cap(pipelines) pipelines' buffers;
// and the number of pipelines stays at maxPipelines on a host of many CPUs.
func TestSlowPipelinedBodiesHoldBoundedBuffers(t *testing.T) {
	for _, procs := range []int{1, 2, maxPipelines, 64, 1024} {
		if got, want := cap(pipelineSlots(procs)), min(procs, maxPipelines); got != want {
			t.Fatalf("%d CPUs: %d pipelines, want %d", procs, got, want)
		}
	}
	l, _ := newLayer(t)
	bodies := cap(pipelines) + 3
	reading := make(chan int)
	release := make(chan struct{})
	errs := make(chan error, bodies)
	for i := range bodies {
		go func() {
			_, err := l.PutObject(PutInput{Bucket: "bkt", Key: fmt.Sprintf("big%d", i),
				Body: &stalled{reading: reading, release: release}, Size: pipelineMin})
			errs <- err
		}()
	}
	sizes := map[int]int{}
	for range bodies {
		sizes[<-reading]++
	}
	if sizes[pipeChunk] != cap(pipelines) || sizes[copyBufSize] != bodies-cap(pipelines) {
		t.Fatalf("buffers handed to %d stalled large bodies, by size: %v; want %d of %d bytes, the rest of %d",
			bodies, sizes, cap(pipelines), pipeChunk, copyBufSize)
	}
	close(release)
	for range bodies {
		if err := <-errs; code(err) != s3err.IncompleteBody {
			t.Fatalf("stalled body: %v, want IncompleteBody", err)
		}
	}
	if n := len(pipelines); n != 0 {
		t.Fatalf("%d pipelines still taken after the bodies ended", n)
	}
}
