package object

import (
	"io"
	"runtime"
	"sync"

	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// copyBufs holds the buffers small PUTs copy through, so a PUT allocates
// no per-request buffer.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

// A copy holds its buffer for as long as its body takes to arrive, and a
// client that sends a body slowly (a byte before each --body-timeout) holds
// it for as long as it likes: 256 KiB for each of --max-requests (1024)
// bodies was 256 MiB that one client could pin. So at most maxLargeCopies
// copies use a buffer of copyBufSize at once (16 MiB in all); the others,
// and bodies smaller than a small buffer, copy through one of
// smallCopyBufSize, which reads a socket as fast for the few copies that
// can be busy at once.
const (
	copyBufSize      = 256 << 10
	smallCopyBufSize = 16 << 10
	maxLargeCopies   = 64
)

// largeCopies holds a token for each copy using a buffer of copyBufSize.
var largeCopies = make(chan struct{}, maxLargeCopies)

var smallCopyBufs = sync.Pool{New: func() any { b := make([]byte, smallCopyBufSize); return &b }}

// copyBuf returns a buffer for a copy of size bytes (-1: unknown) and the
// function that gives it back.
func copyBuf(size int64) (*[]byte, func()) {
	if size < 0 || size > smallCopyBufSize {
		select {
		case largeCopies <- struct{}{}:
			bp := copyBufs.Get().(*[]byte)
			return bp, func() { copyBufs.Put(bp); <-largeCopies }
		default:
		}
	}
	bp := smallCopyBufs.Get().(*[]byte)
	return bp, func() { smallCopyBufs.Put(bp) }
}

const (
	// pipelineMin is the smallest body copied through the pipeline;
	// smaller ones are read, hashed and written on the request's
	// goroutine. Bodies of unknown size (POST uploads, aws-chunked
	// without a decoded length) take the pipeline.
	pipelineMin = 2 << 20
	// pipeChunk is the size of a pipeline buffer, pipeDepth how many
	// buffers one body's pipeline holds.
	pipeChunk = 1 << 20
	pipeDepth = 4
)

// pipeBufs holds the pipeline's buffers.
var pipeBufs = sync.Pool{New: func() any { b := make([]byte, pipeChunk); return &b }}

// pipelines bounds the bodies copied through a pipeline at once to one per
// CPU, and to maxPipelines: more hashing goroutines than CPUs gain
// nothing, and each pipeline holds pipeDepth×pipeChunk bytes (4 MiB) for
// as long as its client takes to send the body, so one per CPU would let
// slow clients pin 256 MiB on a 64-core host. Bodies beyond the bound are
// copied serially, as fast as one core hashes; a pipeline pays for a
// single stream, and many streams keep the cores busy without one.
var pipelines = pipelineSlots(runtime.GOMAXPROCS(0))

// maxPipelines caps pipelines whatever the CPU count: 16 MiB of buffers.
const maxPipelines = 4

func pipelineSlots(procs int) chan struct{} {
	return make(chan struct{}, max(1, min(procs, maxPipelines)))
}

// copyBody copies body into the upload, hashing it with dg, checks the
// length (size, or -1 when unknown) and verifies the digests at the end
// (Digest.Finish, after the body's EOF, when an aws-chunked trailer has
// been read).
//
// Hashing (MD5 and the checksum) is most of a large PUT's CPU, and reading
// the socket and writing the file most of the rest, so a large body goes
// through a pipeline: the request's goroutine reads a buffer, writes it to
// the file and hands it to a hashing goroutine, which hashes it while the
// next one is read and written. A PUT then takes about as long as the
// longer of the two instead of their sum.
func copyBody(up io.Writer, body io.Reader, dg *checksum.Digest, size int64) (int64, error) {
	var n int64
	var err error
	if size >= 0 && size < pipelineMin {
		n, err = copySerial(up, body, dg, size)
	} else {
		select {
		case pipelines <- struct{}{}:
			n, err = copyPipelined(up, body, dg, size)
		default:
			n, err = copySerial(up, body, dg, size)
		}
	}
	if err != nil {
		return n, err
	}
	if size >= 0 && n != size {
		return n, s3err.New(s3err.IncompleteBody)
	}
	return n, dg.Finish()
}

// copySerial reads, hashes and writes body on the calling goroutine.
func copySerial(up io.Writer, body io.Reader, dg *checksum.Digest, size int64) (int64, error) {
	bp, release := copyBuf(size)
	defer release()
	buf := *bp
	var n int64
	for {
		m, rerr := body.Read(buf)
		if m > 0 {
			n += int64(m)
			if tooLong(n, size) {
				return n, s3err.New(s3err.IncompleteBody)
			}
			dg.Write(buf[:m])
			if _, werr := up.Write(buf[:m]); werr != nil {
				return n, mapErr(werr)
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, bodyErr(rerr)
		}
	}
}

// copyPipelined is copySerial with the hashing on a goroutine of its own,
// pipeDepth buffers of pipeChunk bytes in flight between the two. A buffer
// goes back to the reader once it is both written and hashed; the hasher
// has hashed everything when copyPipelined returns.
func copyPipelined(up io.Writer, body io.Reader, dg *checksum.Digest, size int64) (int64, error) {
	defer func() { <-pipelines }()
	free := make(chan *[]byte, pipeDepth)
	for range pipeDepth {
		free <- pipeBufs.Get().(*[]byte)
	}
	type chunk struct {
		bp *[]byte
		n  int
	}
	work := make(chan chunk, pipeDepth)
	hashed := make(chan struct{})
	// A panic while hashing is carried over to the request's goroutine,
	// where the server's recovery answers it, instead of ending the
	// process; the hasher keeps handing buffers back meanwhile.
	var hashPanic any
	go func() {
		defer close(hashed)
		for c := range work {
			if hashPanic == nil {
				func() {
					defer func() { hashPanic = recover() }()
					dg.Write((*c.bp)[:c.n])
				}()
			}
			free <- c.bp
		}
	}()
	defer func() {
		close(work)
		<-hashed
		// Every buffer is back in free unless the request's goroutine
		// panicked holding one; that one is left to the collector.
		for done := false; !done; {
			select {
			case bp := <-free:
				pipeBufs.Put(bp)
			default:
				done = true
			}
		}
		if hashPanic != nil {
			panic(hashPanic)
		}
	}()

	var n int64
	for {
		bp := <-free
		m, rerr := fill(body, *bp)
		if m > 0 {
			n += int64(m)
			if tooLong(n, size) {
				free <- bp
				return n, s3err.New(s3err.IncompleteBody)
			}
			if _, werr := up.Write((*bp)[:m]); werr != nil {
				free <- bp
				return n, mapErr(werr)
			}
			work <- chunk{bp, m}
		} else {
			free <- bp
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, bodyErr(rerr)
		}
	}
}

// fill reads from r until buf is full or r fails. Unlike io.ReadFull it
// reports a clean end of the body as io.EOF whatever it read before, and
// passes every other error on as it is, so a truncated body is never
// mistaken for a complete one.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// tooLong reports whether n bytes are more than the body may hold.
func tooLong(n, size int64) bool {
	return (size >= 0 && n > size) || n > MaxPutSize
}
