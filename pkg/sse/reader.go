package sse

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/minio/sio"
)

// The DARE 2.0 package layout (github.com/minio/sio, DARE.md): a 16-byte
// header — version, cipher suite, payload length minus one (little
// endian), a 12-byte nonce whose first bit is the final flag — then the
// AES-256-GCM ciphertext of the payload and its 16-byte tag. The header's
// first four bytes are the associated data; the AEAD nonce is the header's
// nonce with the package's sequence number XORed into its last four bytes.
const (
	headerSize = 16
	tagSize    = 16
)

// blockPackages is how many packages one read of the file covers: a GET
// reads its ciphertext in blocks of 4 packages (256 KiB of plaintext) and
// writes each block's plaintext to the connection in one write. Blocks of
// 16 packages measured more CPU per GET (docs/performance.md): a block
// that no longer fits the CPU's cache between its decryption and its copy
// to the socket is read back from memory.
const blockPackages = 4

// Full-size block buffers, pooled: ciphertext (one byte more than the
// block, to see data after a final package) and plaintext. A pooled buffer
// is only ever handed out as far as it was just written.
var (
	cipherBufs = sync.Pool{New: func() any { b := make([]byte, blockPackages*PackageSize+1); return &b }}
	plainBufs  = sync.Pool{New: func() any { b := make([]byte, blockPackages*PackagePayload); return &b }}
	// One-package buffers, for ranges read a package at a time.
	cipherBufs1 = sync.Pool{New: func() any { b := make([]byte, PackageSize+1); return &b }}
	plainBufs1  = sync.Pool{New: func() any { b := make([]byte, PackagePayload); return &b }}
)

// A Reader holds its plaintext block while the block is written, that is
// for as long as its client takes to read it: a client that opens many
// GETs of an encrypted object and reads none of them held a block of
// plaintext and one of ciphertext (over 512 KiB) for each, more than
// 500 MiB at --max-requests' 1024. So at most maxLargeBlocks Readers at
// once read more than a package at a time (16 MiB of blocks in all); the
// others read and write a package (64 KiB) at a time and hold no
// ciphertext between reads of the file. A variable for the tests.
var maxLargeBlocks int32 = 32

// largeBlocks counts the Readers reading blocks of more than one package.
var largeBlocks atomic.Int32

// takeLargeBlock reports whether a Reader may read more than a package at
// a time; release gives the permission back, once however often it is
// called, and is also called when the Reader is collected without having
// been read to its end.
func takeLargeBlock(r *Reader) bool {
	if largeBlocks.Add(1) > maxLargeBlocks {
		largeBlocks.Add(-1)
		return false
	}
	held := new(atomic.Bool)
	held.Store(true)
	r.large = held
	runtime.AddCleanup(r, releaseLargeBlock, held)
	return true
}

func releaseLargeBlock(held *atomic.Bool) {
	if held != nil && held.CompareAndSwap(true, false) {
		largeBlocks.Add(-1)
	}
}

// Reader is the plaintext of a range of an encrypted file (NewReader). It
// reads the file in blocks of whole packages with one ReadAt each and
// decrypts them straight into a plaintext block; WriteTo writes each block
// with one Write. A Reader read to its end (or to an error) returns its
// buffers to the pools.
type Reader struct {
	d   decoder
	out []byte // plaintext decrypted and not yet handed out
	err error  // sticky: the error after out
	pb  *[]byte
	// large is set while the Reader holds one of the maxLargeBlocks.
	large *atomic.Bool
}

// decoder is the state of a Reader that reads and decrypts.
type decoder struct {
	src      io.ReaderAt
	aead     cipher.AEAD
	packages int64 // packages in the whole stream
	final    int   // payload bytes of the stream's last package
	next     int64 // next package to read
	last     int64 // one past the last package to read
	ref      [12]byte
	haveRef  bool
	// nonce is the AEAD nonce of the package being opened: a field, not
	// a local, because the AEAD interface lets it escape, and a local
	// would be an allocation per package.
	nonce [12]byte
	empty bool  // the stream of an empty object: the file must be empty
	skip  int64 // plaintext bytes to drop before the range
	left  int64 // plaintext bytes of the range not yet decrypted
	ct    *[]byte
	block int // packages per read
	// one is set when a range of several packages is read a package at a
	// time, through the one-package pools.
	one bool
}

// errRange is NewReader's error for a range that is not inside the object.
var errRange = errors.New("sse: range outside the object")

// NewReader returns the n plaintext bytes at off of an encrypted file of
// plaintext size size. It reads only the packages that hold them; when the
// range reaches the end it also checks the final package's flag and that
// nothing follows it, so a truncated or extended file is an error.
// Authentication failures, truncation and bad package headers are
// ErrCorrupt; other errors of src are returned as they are.
func NewReader(src io.ReaderAt, dataKey []byte, size, off, n int64) (*Reader, error) {
	if off < 0 || n < 0 || size < 0 || off > size || n > size-off {
		// The caller's range is checked against the object's size; one
		// outside it would slice past the plaintext.
		return nil, errRange
	}
	r := &Reader{err: io.EOF}
	if size == 0 {
		// DARE encrypts nothing as nothing: the empty object's file is
		// empty. The reader checks that it is: a file no DARE stream has
		// the size of (1 to 32 bytes) is adopted as an empty object's
		// (plainSize), and must not answer as one.
		r.err = nil
		r.d = decoder{src: src, empty: true}
		return r, nil
	}
	end := off+n >= size
	if n == 0 && !end {
		return r, nil
	}
	block, err := aes.NewCipher(dataKey)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	packages := (size + PackagePayload - 1) / PackagePayload
	first := off / PackagePayload
	last := (off + n + PackagePayload - 1) / PackagePayload
	if end {
		// The range reaches the end: read through the final package, at
		// least that one, to check the stream is not cut short.
		last = packages
		first = min(first, last-1)
	}
	r.err = nil
	r.d = decoder{src: src, aead: aead, packages: packages,
		final: int(size - (packages-1)*PackagePayload),
		next:  first, last: last, skip: off - first*PackagePayload, left: n,
		block: int(min(last-first, blockPackages))}
	if r.d.block > 1 && !takeLargeBlock(r) {
		r.d.block, r.d.one = 1, true
	}
	return r, nil
}

// Prime decrypts the range's first block, so that a damaged file or a
// wrong key is an error before any of the answer is written.
func (r *Reader) Prime() error {
	if len(r.out) == 0 && r.err == nil {
		r.fill()
	}
	if len(r.out) == 0 && r.err != io.EOF {
		return r.err
	}
	return nil
}

// Read reads plaintext into p.
func (r *Reader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.fill()
	}
	m := copy(p, r.out)
	r.out = r.out[m:]
	return m, nil
}

// fill decrypts the next block into r.out, or sets r.err.
func (r *Reader) fill() {
	if r.d.empty {
		r.d.empty = false
		r.finish(r.d.checkEmpty())
		return
	}
	if r.d.done() {
		r.finish(io.EOF)
		return
	}
	if r.pb == nil {
		r.pb = r.d.plainBuf()
	}
	out, err := r.d.decode(*r.pb)
	r.out = out
	// The ciphertext is not needed while the plaintext is handed out,
	// which takes as long as the client likes: a Reader without a large
	// block gives it back (a large block, of which there are few, keeps
	// its own for the next block).
	if p := r.d.cipherPool(); p == nil || r.d.one {
		r.d.putBuf(r.d.ct, p)
		r.d.ct = nil
	}
	if err != nil {
		r.finish(err)
	}
}

// finish records the error after r.out and gives the buffers back once
// nothing is left to hand out.
func (r *Reader) finish(err error) {
	r.err = err
	if len(r.out) == 0 {
		r.d.putBuf(r.pb, r.d.plainPool())
		r.pb = nil
		r.d.putBuf(r.d.ct, r.d.cipherPool())
		r.d.ct = nil
		releaseLargeBlock(r.large)
	}
}

// WriteTo writes the rest of the range to w, a block per Write. Past the
// first block, a large range is decrypted by two goroutines while a core
// is spare (writePipelined).
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for {
		if len(r.out) > 0 {
			m, err := w.Write(r.out)
			n += int64(m)
			r.out = r.out[m:]
			if err == nil && len(r.out) > 0 {
				err = io.ErrShortWrite // a writer breaking io.Writer's contract
			}
			if err != nil {
				// Nobody reads a Reader whose writer failed: its
				// buffers go back now.
				r.out = nil
				r.finish(err)
				return n, err
			}
		}
		if r.err != nil {
			r.finish(r.err)
			if r.err == io.EOF {
				return n, nil
			}
			return n, r.err
		}
		if m, ok, err := r.writePipelined(w); ok {
			n += m
			if err == nil {
				err = io.EOF
			}
			r.finish(err)
			continue
		}
		r.fill()
	}
}

// checkEmpty is io.EOF when the file of an empty object is empty,
// ErrCorrupt when it holds bytes, or the error reading it.
func (d *decoder) checkEmpty() error {
	var b [1]byte
	m, err := d.src.ReadAt(b[:], 0)
	switch {
	case m > 0:
		return ErrCorrupt
	case err == nil || errors.Is(err, io.EOF):
		return io.EOF
	}
	return err
}

// lastPayload is the plaintext size of the range's last package.
func (d *decoder) lastPayload() int {
	if d.last == d.packages {
		return d.final
	}
	return PackagePayload
}

func (d *decoder) done() bool { return d.next >= d.last }

// plainBuf is a plaintext buffer for one block: pooled when the block is
// full-size, else made to measure (a small object's GET needs no 1 MiB).
func (d *decoder) plainBuf() *[]byte {
	if p := d.plainPool(); p != nil {
		return p.Get().(*[]byte)
	}
	b := make([]byte, 0, int(d.last-d.next-1)*PackagePayload+d.lastPayload())
	return &b
}

func (d *decoder) putBuf(bp *[]byte, pool *sync.Pool) {
	if bp != nil && pool != nil {
		pool.Put(bp)
	}
}

// plainPool and cipherPool are the pools of the decoder's buffers, nil
// when they are made to measure (a range's only block).
func (d *decoder) plainPool() *sync.Pool {
	switch {
	case d.block == blockPackages:
		return &plainBufs
	case d.one:
		return &plainBufs1
	}
	return nil
}

func (d *decoder) cipherPool() *sync.Pool {
	switch {
	case d.block == blockPackages:
		return &cipherBufs
	case d.one:
		return &cipherBufs1
	}
	return nil
}

// span is the block that starts at package seq: how many packages, the
// bytes to read for them, and whether it ends with the stream's final
// package.
func (d *decoder) span(seq int64) (count int64, total int, withFinal bool) {
	count = min(d.last-seq, int64(d.block))
	withFinal = seq+count == d.packages
	total = int(count) * PackageSize
	if withFinal {
		// The final package is shorter; one byte more shows whether the
		// file goes on after it.
		total += d.final - PackagePayload + 1
	}
	return count, total, withFinal
}

// decode reads and decrypts the next block of packages into pt and
// returns the part of the range it holds.
func (d *decoder) decode(pt []byte) ([]byte, error) {
	if d.ct == nil {
		if p := d.cipherPool(); p != nil {
			d.ct = p.Get().(*[]byte)
		} else {
			// The range's only block.
			_, total, _ := d.span(d.next)
			b := make([]byte, total)
			d.ct = &b
		}
	}
	pt, count, err := d.readBlock(pt[:0], *d.ct, d.next, &d.nonce)
	if err != nil {
		return nil, err
	}
	d.next += count
	out := pt[d.skip:]
	d.skip = 0
	if int64(len(out)) > d.left {
		out = out[:d.left]
	}
	d.left -= int64(len(out))
	return out, nil
}

// readBlock reads the block that starts at package seq into ct (a buffer
// of a full block) and appends its plaintext to pt. nonce is the caller's
// scratch nonce. It changes nothing in d once the stream's nonce is known
// (d.haveRef), so blocks may then be read concurrently (pipeline), each
// goroutine with its own buffers and nonce.
func (d *decoder) readBlock(pt, ct []byte, seq int64, nonce *[12]byte) ([]byte, int64, error) {
	count, total, withFinal := d.span(seq)
	ct = ct[:total]
	m, err := d.src.ReadAt(ct, seq*PackageSize)
	switch {
	case m == total && withFinal:
		return nil, 0, ErrCorrupt // data after the final package
	case m == total || (withFinal && m == total-1):
		// ReadAt may answer io.EOF with a full read at the end.
	case err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, 0, ErrCorrupt // truncated
	default:
		return nil, 0, err
	}
	for i := range count {
		payload := PackagePayload
		if seq+i == d.packages-1 {
			payload = d.final
		}
		pkg := ct[:headerSize+payload+tagSize]
		ct = ct[len(pkg):]
		if err := d.open(&pt, pkg, seq+i, payload, nonce); err != nil {
			return nil, 0, err
		}
	}
	return pt, count, nil
}

// open checks package seq's header and appends its plaintext to pt. The
// stream's nonce (d.ref) is taken from the first package opened.
func (d *decoder) open(pt *[]byte, pkg []byte, seq int64, payload int, nonce *[12]byte) error {
	h := pkg[:headerSize]
	final := seq == d.packages-1
	if h[0] != sio.Version20 || h[1] != sio.AES_256_GCM ||
		int(binary.LittleEndian.Uint16(h[2:4]))+1 != payload || (h[4]&0x80 != 0) != final {
		return ErrCorrupt
	}
	copy(nonce[:], h[4:headerSize])
	nonce[0] &^= 0x80
	if !d.haveRef {
		d.ref, d.haveRef = *nonce, true
	} else if subtle.ConstantTimeCompare(nonce[:], d.ref[:]) != 1 {
		return ErrCorrupt
	}
	nonce[0] = h[4]
	binary.LittleEndian.PutUint32(nonce[8:], binary.LittleEndian.Uint32(nonce[8:])^uint32(seq))
	out, err := d.aead.Open(*pt, nonce[:], pkg[headerSize:], h[:4])
	if err != nil {
		return ErrCorrupt
	}
	*pt = out
	return nil
}
