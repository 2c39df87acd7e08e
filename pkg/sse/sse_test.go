package sse

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/sio"
	"github.com/objectgateway/objectgateway/pkg/kms"
)

func encrypt(t *testing.T, key, plain []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != EncryptedSize(int64(len(plain))) {
		t.Fatalf("ciphertext of %d bytes is %d bytes, EncryptedSize says %d", len(plain), buf.Len(), EncryptedSize(int64(len(plain))))
	}
	return buf.Bytes()
}

// TestRangesDecryptExactly checks every kind of range (inside a package,
// across packages, to the end, empty object) against the plaintext.
func TestRangesDecryptExactly(t *testing.T) {
	key := bytes.Repeat([]byte{1}, 32)
	for _, size := range []int64{0, 1, PackagePayload - 1, PackagePayload, PackagePayload + 1, 3*PackagePayload + 17} {
		plain := make([]byte, size)
		for i := range plain {
			plain[i] = byte(i * 7)
		}
		ct := encrypt(t, key, plain)
		if DecryptedSize(int64(len(ct))) != size {
			t.Fatalf("DecryptedSize(%d) = %d, want %d", len(ct), DecryptedSize(int64(len(ct))), size)
		}
		for _, r := range [][2]int64{{0, size}, {0, size / 2}, {size / 3, size - size/3}, {size / 2, size / 4}, {size, 0}} {
			rd, err := NewReader(bytes.NewReader(ct), key, size, r[0], r[1])
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rd)
			if err != nil {
				t.Fatalf("size %d range %v: %v", size, r, err)
			}
			if !bytes.Equal(got, plain[r[0]:r[0]+r[1]]) {
				t.Fatalf("size %d range %v: wrong bytes", size, r)
			}
		}
	}
}

// TestTamperAndTruncationAreErrors checks that a flipped bit anywhere, a
// file cut at a package boundary or inside a package, and another
// object's ciphertext all fail instead of answering bytes.
func TestTamperAndTruncationAreErrors(t *testing.T) {
	key := bytes.Repeat([]byte{2}, 32)
	size := int64(3*PackagePayload + 100)
	plain := bytes.Repeat([]byte("secret!"), int(size/7)+1)[:size]
	ct := encrypt(t, key, plain)
	read := func(c []byte, off, n int64) error {
		rd, err := NewReader(bytes.NewReader(c), key, size, off, n)
		if err != nil {
			return err
		}
		_, err = io.ReadAll(rd)
		return err
	}
	for _, pos := range []int{0, 5, 20, PackageSize - 1, PackageSize + 100, len(ct) - 1} {
		c := bytes.Clone(ct)
		c[pos] ^= 0x40
		if err := read(c, 0, size); !errors.Is(err, ErrCorrupt) {
			t.Errorf("bit flipped at %d: err %v, want ErrCorrupt", pos, err)
		}
	}
	for _, cut := range []int{3 * PackageSize, 2*PackageSize + 10, len(ct) - 1} {
		if err := read(ct[:cut], 0, size); !errors.Is(err, ErrCorrupt) {
			t.Errorf("cut at %d: err %v, want ErrCorrupt", cut, err)
		}
		if err := read(ct[:cut], size-10, 10); !errors.Is(err, ErrCorrupt) {
			t.Errorf("cut at %d, range at the end: err %v, want ErrCorrupt", cut, err)
		}
	}
	// Packages swapped within the stream.
	c := bytes.Clone(ct)
	copy(c[:PackageSize], ct[PackageSize:2*PackageSize])
	copy(c[PackageSize:2*PackageSize], ct[:PackageSize])
	if err := read(c, 0, size); !errors.Is(err, ErrCorrupt) {
		t.Errorf("swapped packages: err %v, want ErrCorrupt", err)
	}
	// The same plaintext encrypted under another data key.
	other := encrypt(t, bytes.Repeat([]byte{3}, 32), plain)
	if err := read(other, 0, size); !errors.Is(err, ErrCorrupt) {
		t.Errorf("another object's ciphertext: err %v, want ErrCorrupt", err)
	}
}

// lazyFile is the DARE stream of a large object of plaintext size size,
// made package by package on demand (sio encrypts package i alone, with
// the stream's nonce and sequence number i), so a test can read a 1 GiB
// object without encrypting or storing 1 GiB. It counts the bytes read.
type lazyFile struct {
	key       []byte
	nonce     [12]byte
	size      int64
	bytesRead int64
}

// plainAt is the plaintext byte at off: a pattern that differs between
// packages and within them.
func plainAt(off int64) byte { return byte(off*31 + off/PackagePayload) }

func (f *lazyFile) packages() int64 { return (f.size + PackagePayload - 1) / PackagePayload }

// pkg is package i of the stream.
func (f *lazyFile) pkg(i int64) []byte {
	n := min(PackagePayload, f.size-i*PackagePayload)
	final := i == f.packages()-1
	plain := make([]byte, n, n+1)
	for j := range plain {
		plain[j] = plainAt(i*PackagePayload + int64(j))
	}
	if !final {
		// One byte more makes sio seal this package as not the last.
		plain = append(plain, 0)
	}
	cfg := config(f.key)
	cfg.SequenceNumber = uint32(i)
	cfg.Nonce = &f.nonce
	var out bytes.Buffer
	w, err := sio.EncryptWriter(&out, cfg)
	if err != nil {
		panic(err)
	}
	w.Write(plain)
	if final {
		w.Close()
	}
	return out.Bytes()[:headerSize+int(n)+tagSize]
}

func (f *lazyFile) ReadAt(p []byte, off int64) (int, error) {
	size := EncryptedSize(f.size)
	if off >= size {
		return 0, io.EOF
	}
	m := 0
	for m < len(p) && off < size {
		i := off / PackageSize
		c := copy(p[m:], f.pkg(i)[off-i*PackageSize:])
		m += c
		off += int64(c)
	}
	f.bytesRead += int64(m)
	if m < len(p) {
		return m, io.EOF
	}
	return m, nil
}

// TestLazyFileIsADareStream checks the test's lazily made stream against
// sio's own decryption, so the counts below are of a real stream.
func TestLazyFileIsADareStream(t *testing.T) {
	f := &lazyFile{key: bytes.Repeat([]byte{5}, 32), nonce: [12]byte{1, 2, 3}, size: 3*PackagePayload + 99}
	ct := make([]byte, EncryptedSize(f.size))
	if n, err := f.ReadAt(ct, 0); n != len(ct) || err != nil {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	plain, err := sio.DecryptBuffer(nil, ct, config(f.key))
	if err != nil || int64(len(plain)) != f.size {
		t.Fatalf("sio.DecryptBuffer: %d bytes, %v", len(plain), err)
	}
	for i, c := range plain {
		if c != plainAt(int64(i)) {
			t.Fatalf("plaintext byte %d is %d, want %d", i, c, plainAt(int64(i)))
		}
	}
}

// TestDeepRangeReadsTwoPackages checks that 10 bytes deep inside a 1 GiB
// encrypted object read at most two packages of ciphertext: two when they
// straddle a package boundary, one inside a package; 10 bytes at the end
// read the final package and one byte to see nothing follows it.
func TestDeepRangeReadsTwoPackages(t *testing.T) {
	const size = 1 << 30
	for _, c := range []struct {
		name string
		off  int64
		max  int64
	}{
		{"straddling", 9000*PackagePayload - 5, 2 * PackageSize},
		{"inside", 9000*PackagePayload + 100, PackageSize},
		{"at the end", size - 10, PackageSize + 1},
	} {
		f := &lazyFile{key: bytes.Repeat([]byte{4}, 32), nonce: [12]byte{9, 8, 7}, size: size}
		rd, err := NewReader(f, f.key, size, c.off, 10)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rd)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := make([]byte, 10)
		for i := range want {
			want[i] = plainAt(c.off + int64(i))
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: range = %x, want %x", c.name, got, want)
		}
		if f.bytesRead > c.max {
			t.Errorf("%s: a 10-byte range read %d bytes of ciphertext, more than %d", c.name, f.bytesRead, c.max)
		}
	}
}

// TestDataKeySealing checks each algorithm's data key round trip, that a
// wrong customer key is ErrCustomerKey, and that nothing the index keeps
// contains the data key or the customer key.
func TestDataKeySealing(t *testing.T) {
	ring, err := kms.Open(filepath.Join(t.TempDir(), "kms.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.Create("app"); err != nil {
		t.Fatal(err)
	}
	ck := bytes.Repeat([]byte{9}, 32)
	for _, req := range []Request{{Algorithm: AES256}, {Algorithm: KMS, KeyID: "app", Context: "e30="}, {Algorithm: Customer, CustomerKey: ck}} {
		dk, enc, err := NewDataKey(ring, req)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(enc.SealedKey, dk) || bytes.Contains(enc.SealedKey, ck) || enc.KeyID == "" || enc.KeyVersion == 0 {
			t.Fatalf("%s: sealed record %+v reveals a key or lacks its key id", req.Algorithm, enc)
		}
		got, err := Open(ring, enc, ck)
		if err != nil || !bytes.Equal(got, dk) {
			t.Fatalf("%s: Open = %v", req.Algorithm, err)
		}
		if req.Algorithm == Customer {
			if _, err := Open(ring, enc, bytes.Repeat([]byte{8}, 32)); !errors.Is(err, ErrCustomerKey) {
				t.Fatalf("wrong customer key: %v, want ErrCustomerKey", err)
			}
		}
	}
}

// TestLooksEncrypted checks the shape test scan relies on: every stream
// NewWriter makes passes, text and streams cut short or grown do not.
func TestLooksEncrypted(t *testing.T) {
	key := bytes.Repeat([]byte{6}, 32)
	for _, n := range []int{1, 100, PackagePayload, PackagePayload + 1, 2*PackagePayload + 3} {
		ct := encrypt(t, key, make([]byte, n))
		if !LooksEncrypted(ct[:HeaderSize], int64(len(ct))) {
			t.Errorf("a %d-byte plaintext's stream is not recognised", n)
		}
		if LooksEncrypted(ct[:HeaderSize], int64(len(ct))+1) && n <= PackagePayload {
			t.Errorf("a %d-byte plaintext's stream with a byte more is recognised", n)
		}
	}
	// A multipart encrypted object's file: streams one after the other,
	// whose total is no single stream's size.
	mp := append(encrypt(t, key, make([]byte, PackagePayload+40000)), encrypt(t, key, make([]byte, 25509))...)
	if DecryptedSize(int64(len(mp))) >= 0 {
		t.Fatalf("the test's multipart file has a single stream's size")
	}
	if !LooksEncrypted(mp[:HeaderSize], int64(len(mp))) {
		t.Error("a multipart encrypted file is not recognised")
	}
	text := []byte(strings.Repeat("plain text ", 10000))
	if LooksEncrypted(text[:HeaderSize], int64(len(text))) {
		t.Error("plain text is recognised as a stream")
	}
}

// TestBlocks checks ranges over many blocks of packages through Read and
// through WriteTo, damage in a later block through both, and that a
// failing writer stops WriteTo.
func TestBlocks(t *testing.T) {
	key := bytes.Repeat([]byte{6}, 32)
	size := int64(3*blockPackages*PackagePayload + 17)
	plain := make([]byte, size)
	for i := range plain {
		plain[i] = plainAt(int64(i))
	}
	ct := encrypt(t, key, plain)
	ranges := [][2]int64{{0, size}, {1, size - 1}, {PackagePayload*blockPackages - 3, PackagePayload*blockPackages + 7},
		{5, 2*PackagePayload*blockPackages + 1}, {size - PackagePayload*blockPackages - 1, PackagePayload*blockPackages + 1}}
	for _, r := range ranges {
		for _, how := range []string{"Read", "WriteTo"} {
			rd, err := NewReader(bytes.NewReader(ct), key, size, r[0], r[1])
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			if how == "Read" {
				got, err = io.ReadAll(struct{ io.Reader }{rd})
			} else {
				var buf bytes.Buffer
				var n int64
				n, err = rd.WriteTo(&buf)
				got = buf.Bytes()
				if n != int64(len(got)) {
					t.Errorf("%s %v: WriteTo counted %d bytes, wrote %d", how, r, n, len(got))
				}
			}
			if err != nil || !bytes.Equal(got, plain[r[0]:r[0]+r[1]]) {
				t.Fatalf("%s %v: %d bytes, %v", how, r, len(got), err)
			}
		}
	}
	// A bit flipped in the third block, and a file cut in the second.
	bad := bytes.Clone(ct)
	bad[2*blockPackages*PackageSize+100] ^= 1
	for _, c := range [][]byte{bad, ct[:blockPackages*PackageSize+5000]} {
		for _, how := range []string{"Read", "WriteTo"} {
			rd, err := NewReader(bytes.NewReader(c), key, size, 0, size)
			if err != nil {
				t.Fatal(err)
			}
			if err := rd.Prime(); err != nil {
				t.Fatalf("Prime: %v (the first block is intact)", err)
			}
			if how == "Read" {
				_, err = io.ReadAll(struct{ io.Reader }{rd})
			} else {
				_, err = rd.WriteTo(io.Discard)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s of a damaged file: %v, want ErrCorrupt", how, err)
			}
		}
	}
	// A writer that fails on its second write.
	rd, err := NewReader(bytes.NewReader(ct), key, size, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	fw := &failingWriter{after: 1}
	if _, err := rd.WriteTo(fw); !errors.Is(err, errWrite) {
		t.Fatalf("WriteTo to a failing writer: %v, want its error", err)
	}
	if fw.writes != 2 {
		t.Errorf("WriteTo wrote %d times to a writer that failed on the second", fw.writes)
	}
}

var errWrite = errors.New("write failed")

type failingWriter struct{ after, writes int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.after {
		return 0, errWrite
	}
	return len(p), nil
}

// TestReadErrorsPassThrough checks that an I/O error of the file is
// returned as it is, not taken for damage.
func TestReadErrorsPassThrough(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	rd, err := NewReader(errFile{}, key, 10*PackagePayload, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.Prime(); !errors.Is(err, errIO) {
		t.Fatalf("Prime over a failing file: %v, want its error", err)
	}
}

var errIO = errors.New("i/o error")

type errFile struct{}

func (errFile) ReadAt([]byte, int64) (int, error) { return 0, errIO }

// TestReadAllocationsDoNotGrowWithSize checks that reading an object
// through WriteTo allocates the same whether it is 2 or 64 packages: no
// allocation per package.
func TestReadAllocationsDoNotGrowWithSize(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters allocate")
	}
	small, large := writeToAllocs(t, 2*PackagePayload), writeToAllocs(t, 64*PackagePayload)
	if large > small {
		t.Errorf("reading 64 packages allocates %.0f times, 2 packages %.0f: allocations grow with the size", large, small)
	}
}

// writeToAllocs is the allocations of reading a whole encrypted object of
// size bytes through WriteTo.
func writeToAllocs(t *testing.T, size int64) float64 {
	t.Helper()
	key := bytes.Repeat([]byte{8}, 32)
	src := bytes.NewReader(encrypt(t, key, make([]byte, size)))
	return testing.AllocsPerRun(5, func() {
		r, err := NewReader(src, key, size, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}
