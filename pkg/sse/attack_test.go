package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/minio/sio"
)

// attackStream is a stream of 5 packages (the last one short) used by the
// attack tests, with its key and plaintext.
type attackStream struct {
	key   []byte
	plain []byte
	ct    []byte
}

func newAttackStream(t *testing.T, keyByte byte, size int) attackStream {
	t.Helper()
	key := bytes.Repeat([]byte{keyByte}, 32)
	plain := make([]byte, size)
	for i := range plain {
		plain[i] = plainAt(int64(i)) ^ keyByte
	}
	return attackStream{key: key, plain: plain, ct: encrypt(t, key, plain)}
}

// pkgAt is package i of ct (the last one may be short).
func pkgAt(ct []byte, i int) []byte {
	end := min((i+1)*PackageSize, len(ct))
	return ct[i*PackageSize : end]
}

// readRange reads [off, off+n) of c as an object of size bytes, by Read
// (io.ReadAll) or by WriteTo.
func readRange(key, c []byte, size, off, n int64, viaWriteTo bool) ([]byte, error) {
	rd, err := NewReader(bytes.NewReader(c), key, size, off, n)
	if err != nil {
		return nil, err
	}
	if viaWriteTo {
		var buf bytes.Buffer
		_, err := rd.WriteTo(&buf)
		return buf.Bytes(), err
	}
	return io.ReadAll(rd)
}

// mustFail checks that every read of c that covers package pkg (and the
// whole object) is ErrCorrupt, by Read and by WriteTo, and that a failed
// read hands out no byte that is not the object's.
func mustFail(t *testing.T, what string, s attackStream, c []byte, ranges [][2]int64) {
	t.Helper()
	size := int64(len(s.plain))
	for _, r := range ranges {
		for _, wt := range []bool{false, true} {
			got, err := readRange(s.key, c, size, r[0], r[1], wt)
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: range %v (WriteTo %v): err %v, want ErrCorrupt", what, r, wt, err)
			}
			if !bytes.Equal(got, s.plain[r[0]:r[0]+int64(len(got))]) {
				t.Errorf("%s: range %v (WriteTo %v): %d bytes handed out that are not the object's", what, r, wt, len(got))
			}
		}
	}
}

func mustRead(t *testing.T, what string, s attackStream, c []byte, ranges [][2]int64) {
	t.Helper()
	size := int64(len(s.plain))
	for _, r := range ranges {
		for _, wt := range []bool{false, true} {
			got, err := readRange(s.key, c, size, r[0], r[1], wt)
			if err != nil {
				t.Errorf("%s: range %v (WriteTo %v): %v", what, r, wt, err)
				continue
			}
			if !bytes.Equal(got, s.plain[r[0]:r[0]+r[1]]) {
				t.Errorf("%s: range %v (WriteTo %v): wrong bytes", what, r, wt)
			}
		}
	}
}

const attackSize = 4*PackagePayload + 1000 // 5 packages, the last of 1000 bytes

// whole is the full object and a range inside package i (i = 4 reaches
// the end).
func covering(i int) [][2]int64 {
	return [][2]int64{{0, attackSize}, {int64(i)*PackagePayload + 10, 100}}
}

// TestAttackReorderedPackages swaps packages i and i+1 (the last pair
// swaps the final package into the middle).
func TestAttackReorderedPackages(t *testing.T) {
	s := newAttackStream(t, 11, attackSize)
	for i := range 4 {
		a, b := pkgAt(s.ct, i), pkgAt(s.ct, i+1)
		c := append(append(append(bytes.Clone(s.ct[:i*PackageSize]), b...), a...), s.ct[i*PackageSize+len(a)+len(b):]...)
		if len(c) != len(s.ct) {
			t.Fatal("swap changed the length")
		}
		mustFail(t, "swapped packages", s, c, append(covering(i), covering(i+1)...))
	}
}

// TestAttackDroppedDuplicatedPackages drops a middle package (the file is
// one package shorter) and duplicates one (one package longer).
func TestAttackDroppedDuplicatedPackages(t *testing.T) {
	s := newAttackStream(t, 12, attackSize)
	for i := range 4 {
		dropped := append(bytes.Clone(s.ct[:i*PackageSize]), s.ct[(i+1)*PackageSize:]...)
		mustFail(t, "dropped package", s, dropped, covering(i))
		dup := append(bytes.Clone(s.ct[:(i+1)*PackageSize]), s.ct[i*PackageSize:]...)
		mustFail(t, "duplicated package", s, dup, covering(i+1))
	}
	// The duplicate of the final package after it: the file is longer.
	fin := pkgAt(s.ct, 4)
	mustFail(t, "final package twice", s, append(bytes.Clone(s.ct), fin...), covering(4))
}

// TestAttackTruncation cuts the file at every package boundary and inside
// packages: a read that reaches the cut is an error. A stream cut at a
// boundary ends with a package whose final flag is clear, and a stream
// whose size the record states cannot be shortened unseen.
func TestAttackTruncation(t *testing.T) {
	s := newAttackStream(t, 13, attackSize)
	for i := 1; i <= 4; i++ {
		mustFail(t, "cut at a package boundary", s, s.ct[:i*PackageSize], covering(i))
		mustFail(t, "cut inside a package", s, s.ct[:i*PackageSize+100], covering(i))
	}
	mustFail(t, "cut inside the final package", s, s.ct[:len(s.ct)-1], covering(4))
	mustFail(t, "empty file", s, nil, covering(0))
	// The stream cut at a package boundary, read as the shorter object
	// whose size it would have, fails too: its last package is not
	// flagged final (and its length field says 64 KiB, not the size).
	short := newAttackStream(t, 13, attackSize)
	short.plain = short.plain[:2*PackagePayload]
	mustFail(t, "cut stream read as a shorter object", short, s.ct[:2*PackageSize], [][2]int64{{0, 2 * PackagePayload}, {PackagePayload + 5, PackagePayload - 5}})
}

// TestAttackForeignPackages appends a valid final package of another
// stream of the same key, and splices into the middle a package of another
// stream of the same data key (another random nonce) at the same place.
func TestAttackForeignPackages(t *testing.T) {
	s := newAttackStream(t, 14, attackSize)
	o := newAttackStream(t, 14, attackSize) // same key, another nonce
	if bytes.Equal(s.ct[4:16], o.ct[4:16]) {
		t.Fatal("two streams share a nonce")
	}
	// A valid package of the other stream after the final package.
	mustFail(t, "package appended", s, append(bytes.Clone(s.ct), pkgAt(o.ct, 4)...), covering(4))
	// The other stream's final package replaces ours: the same place, the
	// same length, authentic under the key, but another nonce.
	for i := range 5 {
		c := bytes.Clone(s.ct)
		copy(c[i*PackageSize:], pkgAt(o.ct, i))
		mustFail(t, "package of another stream spliced", s, c, [][2]int64{{0, attackSize}, {int64(i) * PackagePayload / 2, attackSize - int64(i)*PackagePayload/2}})
	}
	// Another data key altogether: nothing authenticates.
	x := newAttackStream(t, 15, attackSize)
	mustFail(t, "another key's stream", s, x.ct, append(covering(0), covering(4)...))
}

// TestAttackSplicedPackageInARange documents a limit of DARE that sio
// shares: a range that covers only packages of another stream of the same
// data key, each at its own place, authenticates, because the stream's
// nonce is known only from the packages read. Every object has its own
// random data key (NewDataKey), so another stream of the same key exists
// only where one key encrypts several streams.
func TestAttackSplicedPackageInARange(t *testing.T) {
	s := newAttackStream(t, 16, attackSize)
	o := newAttackStream(t, 16, attackSize)
	c := bytes.Clone(s.ct)
	copy(c[2*PackageSize:], pkgAt(o.ct, 2))
	got, err := readRange(s.key, c, attackSize, 2*PackagePayload+10, 100, false)
	if err != nil {
		t.Fatalf("range inside the spliced package: %v", err)
	}
	if !bytes.Equal(got, o.plain[2*PackagePayload+10:2*PackagePayload+110]) {
		t.Fatal("range inside the spliced package: not the other stream's bytes")
	}
	// A range that also covers one of our packages is refused.
	mustFail(t, "range across a spliced package", s, c, [][2]int64{{PackagePayload + 10, PackagePayload}, {2*PackagePayload + 10, PackagePayload}})
}

// TestAttackHeaderFields flips each bit of each header field of each
// package (version, cipher suite, length, nonce incl. the final flag),
// and bits of the payload and the tag.
func TestAttackHeaderFields(t *testing.T) {
	s := newAttackStream(t, 17, attackSize)
	for i := range 5 {
		base := i * PackageSize
		plen := len(pkgAt(s.ct, i)) - 32
		var positions []int
		for b := range headerSize {
			positions = append(positions, base+b)
		}
		positions = append(positions, base+headerSize, base+headerSize+plen/2, base+headerSize+plen-1, // payload
			base+headerSize+plen, base+headerSize+plen+tagSize-1) // tag
		for _, pos := range positions {
			for bit := range 8 {
				if pos >= base+headerSize && bit != 0 && bit != 7 {
					continue // payload and tag: two bits per byte suffice
				}
				c := bytes.Clone(s.ct)
				c[pos] ^= 1 << bit
				mustFail(t, "bit flipped", s, c, covering(i))
			}
		}
	}
}

// TestAttackLengthAndFinalFlag rewrites the length field and final flag
// consistently with the file's shape, so only authentication (the header
// is associated data) or the reader's own checks can catch them.
func TestAttackLengthAndFinalFlag(t *testing.T) {
	s := newAttackStream(t, 18, attackSize)
	set := func(i int, f func(h []byte)) []byte {
		c := bytes.Clone(s.ct)
		f(c[i*PackageSize : i*PackageSize+headerSize])
		return c
	}
	// The final flag set on a middle package.
	for i := range 4 {
		mustFail(t, "final flag on a middle package", s, set(i, func(h []byte) { h[4] |= 0x80 }), covering(i))
	}
	// The final flag cleared on the final package.
	mustFail(t, "final flag cleared", s, set(4, func(h []byte) { h[4] &^= 0x80 }), covering(4))
	// Length fields: 0 (one byte), one less, one more, the maximum.
	for i := range 5 {
		for _, l := range []uint16{0, 998, 1000, 0xFFFE, 0xFFFF} {
			if int(l)+1 == len(pkgAt(s.ct, i))-32 {
				continue // the package's own length
			}
			mustFail(t, "length field", s, set(i, func(h []byte) { h[2], h[3] = byte(l), byte(l>>8) }), covering(i))
		}
	}
	// Another version or cipher suite (sio knows DARE 1.0 and ChaCha20).
	for _, v := range [][2]byte{{sio.Version10, sio.AES_256_GCM}, {sio.Version20, sio.CHACHA20_POLY1305}, {0x21, sio.AES_256_GCM}} {
		mustFail(t, "version/cipher", s, set(0, func(h []byte) { h[0], h[1] = v[0], v[1] }), covering(0))
	}
}

// TestAttackDamageOutsideTheRange: a range decrypts only the packages it
// covers, so damage to another package does not fail it; the whole object
// and any range over the damaged package fail.
func TestAttackDamageOutsideTheRange(t *testing.T) {
	s := newAttackStream(t, 19, attackSize)
	c := bytes.Clone(s.ct)
	c[2*PackageSize+500] ^= 1
	mustRead(t, "damage elsewhere", s, c, [][2]int64{{0, 2 * PackagePayload}, {10, 100}, {PackagePayload, PackagePayload}, {3 * PackagePayload, attackSize - 3*PackagePayload}, {attackSize - 1, 1}, {attackSize, 0}, {5, 0}})
	mustFail(t, "damage covered", s, c, [][2]int64{{0, attackSize}, {2*PackagePayload - 1, 2}, {2 * PackagePayload, 1}, {PackagePayload, 3 * PackagePayload}})
}

// TestEdgeRanges: a range at the exact end, empty ranges, and objects of
// exactly k packages, by Read and WriteTo.
func TestEdgeRanges(t *testing.T) {
	for _, size := range []int{0, 1, PackagePayload, 2 * PackagePayload, 4 * PackagePayload, 5 * PackagePayload, 4*PackagePayload + 1} {
		s := newAttackStream(t, 20, size)
		sz := int64(size)
		ranges := [][2]int64{{0, sz}, {sz, 0}, {0, 0}, {sz / 2, 0}}
		if size > 0 {
			ranges = append(ranges, [][2]int64{{sz - 1, 1}, {0, 1}, {sz / 2, sz - sz/2}}...)
		}
		if size >= PackagePayload {
			ranges = append(ranges, [][2]int64{{PackagePayload - 1, 1}, {sz - PackagePayload, PackagePayload}}...)
		}
		if size > PackagePayload {
			ranges = append(ranges, [2]int64{PackagePayload - 1, 2})
		}
		mustRead(t, "edge range", s, s.ct, ranges)
		if size > 0 {
			// The end of an object of whole packages checks its final
			// package and that nothing follows it.
			mustFail(t, "edge, file extended", s, append(bytes.Clone(s.ct), 0), [][2]int64{{sz, 0}, {sz - 1, 1}, {0, sz}})
			mustFail(t, "edge, file cut", s, s.ct[:len(s.ct)-1], [][2]int64{{sz, 0}, {sz - 1, 1}, {0, sz}})
		}
	}
}

// TestEmptyObjectFileMustBeEmpty: the reader of an empty object checks
// that its file is empty; bytes there (a file of 1 to 32 bytes, which no
// DARE stream has the size of and which is adopted as an empty object)
// are ErrCorrupt, by Prime, Read and WriteTo.
func TestEmptyObjectFileMustBeEmpty(t *testing.T) {
	key := bytes.Repeat([]byte{21}, 32)
	for _, n := range []int{0, 1, 20, 32, 33, 1000} {
		file := bytes.Repeat([]byte{0xAA}, n)
		for _, wt := range []bool{false, true} {
			got, err := readRange(key, file, 0, 0, 0, wt)
			if n == 0 && (err != nil || len(got) != 0) {
				t.Errorf("empty file (WriteTo %v): %d bytes, %v", wt, len(got), err)
			}
			if n > 0 && (!errors.Is(err, ErrCorrupt) || len(got) != 0) {
				t.Errorf("file of %d bytes for an empty object (WriteTo %v): %d bytes, err %v, want ErrCorrupt", n, wt, len(got), err)
			}
		}
		rd, err := NewReader(bytes.NewReader(file), key, 0, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := rd.Prime(); (n == 0) != (err == nil) || (n > 0 && !errors.Is(err, ErrCorrupt)) {
			t.Errorf("file of %d bytes for an empty object: Prime %v", n, err)
		}
	}
}

// TestRangeOutsideTheObjectIsRefused: NewReader refuses a range that is
// not inside the object (it would slice past the plaintext, or answer
// short without an error) instead of panicking or reading.
func TestRangeOutsideTheObjectIsRefused(t *testing.T) {
	key := bytes.Repeat([]byte{22}, 32)
	ct := encrypt(t, key, make([]byte, 100))
	for _, r := range [][3]int64{{100, 101, 0}, {100, 50, 51}, {100, -1, 5}, {100, 0, -1}, {100, 3 * PackagePayload, 1}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}} {
		if _, err := NewReader(bytes.NewReader(ct), key, r[0], r[1], r[2]); !errors.Is(err, errRange) {
			t.Errorf("size %d range %d+%d: err %v, want errRange", r[0], r[1], r[2], err)
		}
	}
	if _, err := NewReader(bytes.NewReader(ct), key, 100, 100, 0); err != nil {
		t.Errorf("empty range at the end: %v", err)
	}
}
