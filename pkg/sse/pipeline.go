package sse

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// A large range is decrypted by two goroutines while the machine has a
// core to spare: the request's own, which also writes the blocks in order,
// and a helper. Each takes the next block nobody has taken; the writer
// writes a block when it is ready and decrypts one itself when it is not,
// so the two share the work however the scheduler runs them. One stream is
// then not held to the speed of one core (docs/performance.md, "Encrypted
// objects").
//
// Each block is read into a buffer of its goroutine's own before it is
// opened, never decrypted out of a mapping of the file: AES-GCM reads its
// ciphertext twice (once to authenticate it, once to decrypt it), and a
// shared mapping would let a writer of the file change the bytes between
// the two reads, so that a tag over the original ciphertext vouches for
// another plaintext (TestReviewMappedCiphertextIsReadTwice).

// pipelineSlots is how many blocks may be decrypted and not yet written:
// the writer's, the helper's, and one ahead for each.
const pipelineSlots = 4

var (
	// pipelineMinPackages is the least a range must have left (4 MiB)
	// for a helper to be worth its hand-offs. A variable for the tests.
	pipelineMinPackages int64 = 64
	// spareCores is how many helpers may run at once in the process:
	// GOMAXPROCS-1, since a helper only pays when a core would otherwise
	// idle, and under many concurrent streams every core is busy already;
	// and at most maxHelpers, since a helper decrypts ahead of a client
	// that reads slowly and holds its blocks (over 1 MiB) meanwhile.
	// A variable for the tests.
	spareCores = func() int32 { return helperSlots(runtime.GOMAXPROCS(0)) }
	// helpers counts the helper goroutines running; pipelined counts the
	// ranges written with one.
	helpers   atomic.Int32
	pipelined atomic.Int64
)

// maxHelpers caps the helpers whatever the CPU count: their buffers stay
// under 12 MiB, and eight streams decrypting at twice one core's speed
// already keep a large host's network busy.
const maxHelpers = 8

func helperSlots(procs int) int32 { return int32(max(0, min(procs-1, maxHelpers))) }

func takeHelper() bool {
	if helpers.Add(1) <= spareCores() {
		return true
	}
	helpers.Add(-1)
	return false
}

// pipeline is the state the writer and the helper share: which block is
// next to take and next to write, and the slots of the blocks between.
type pipeline struct {
	d      *decoder
	first  int64 // the package of block 0
	blocks int64

	mu    sync.Mutex
	cond  sync.Cond
	taken int64 // blocks taken: the next to decrypt
	wrote int64 // blocks written: the next to write
	stop  bool  // the writer is done, with or without an error
	slots [pipelineSlots]slot
}

// slot holds block k's plaintext (k mod pipelineSlots) between its
// decryption and its write, or its error, or the panic that decrypting it
// raised, which the writer raises again on the request's goroutine (where
// the server recovers it) instead of letting it end the process.
type slot struct {
	buf      *[]byte
	out      []byte
	err      error
	panicked any
	ready    bool
}

// worker is one goroutine's ciphertext buffer and scratch nonce.
type worker struct {
	ct    *[]byte
	nonce [12]byte
}

// writePipelined writes the rest of the range (packages d.next to d.last)
// to w with a helper goroutine. ok is false, with nothing done, when the
// range is too small or no core is spare; the caller then decrypts alone.
func (r *Reader) writePipelined(w io.Writer) (n int64, ok bool, err error) {
	d := &r.d
	if d.empty || !d.haveRef || d.block != blockPackages || d.last-d.next < pipelineMinPackages || !takeHelper() {
		return 0, false, nil
	}
	defer helpers.Add(-1)
	pipelined.Add(1)
	p := &pipeline{d: d, first: d.next, blocks: (d.last - d.next + blockPackages - 1) / blockPackages}
	p.cond.L = &p.mu
	for i := range p.slots {
		p.slots[i].buf = plainBufs.Get().(*[]byte)
	}
	helper := &worker{ct: cipherBufs.Get().(*[]byte)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for p.work(helper) {
		}
	}()
	// The helper is stopped and waited for before the buffers it uses are
	// given back, whatever way write returns.
	defer func() {
		p.mu.Lock()
		p.stop = true
		p.cond.Broadcast()
		p.mu.Unlock()
		wg.Wait()
		cipherBufs.Put(helper.ct)
		for i := range p.slots {
			plainBufs.Put(p.slots[i].buf)
		}
	}()
	if d.ct == nil {
		d.ct = cipherBufs.Get().(*[]byte)
	}
	n, err = p.write(w, &worker{ct: d.ct})
	d.next = d.last
	return n, true, err
}

// work takes the next block, if one is left and its slot is free, and
// decrypts it; false when there is nothing left to take or the writer
// stopped.
func (p *pipeline) work(wk *worker) bool {
	p.mu.Lock()
	for !p.stop && p.taken < p.blocks && p.taken-p.wrote >= pipelineSlots {
		p.cond.Wait()
	}
	if p.stop || p.taken >= p.blocks {
		p.mu.Unlock()
		return false
	}
	p.take(wk)
	return true
}

// take takes the next block, with p.mu held, and decrypts it without.
func (p *pipeline) take(wk *worker) {
	k := p.taken
	p.taken++
	p.mu.Unlock()
	p.decrypt(wk, k)
}

// decrypt reads and decrypts block k into its slot and marks it ready.
// The slot is the taker's alone until then: the writer reads it only once
// ready.
func (p *pipeline) decrypt(wk *worker, k int64) {
	s := &p.slots[k%pipelineSlots]
	var out []byte
	var err error
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		out, _, err = p.d.readBlock((*s.buf)[:0], *wk.ct, p.first+k*blockPackages, &wk.nonce)
	}()
	p.mu.Lock()
	s.out, s.err, s.panicked, s.ready = out, err, panicked, true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// write writes the blocks in order, trimmed to the range; while the next
// one is not ready it decrypts one itself if it can, else waits.
func (p *pipeline) write(w io.Writer, wk *worker) (n int64, err error) {
	d := p.d
	for p.wrote < p.blocks {
		s := &p.slots[p.wrote%pipelineSlots]
		p.mu.Lock()
		if !s.ready {
			if p.taken < p.blocks && p.taken-p.wrote < pipelineSlots {
				p.take(wk)
				continue
			}
			p.cond.Wait()
			p.mu.Unlock()
			continue
		}
		out, serr, panicked := s.out, s.err, s.panicked
		p.mu.Unlock()
		if panicked != nil {
			panic(panicked)
		}
		if serr != nil {
			return n, serr
		}
		if int64(len(out)) > d.left {
			out = out[:d.left]
		}
		d.left -= int64(len(out))
		m, err := w.Write(out)
		n += int64(m)
		if err == nil && m < len(out) {
			err = io.ErrShortWrite // a writer breaking io.Writer's contract
		}
		if err != nil {
			return n, err
		}
		p.mu.Lock()
		s.ready = false
		p.wrote++
		p.cond.Broadcast()
		p.mu.Unlock()
	}
	return n, nil
}
