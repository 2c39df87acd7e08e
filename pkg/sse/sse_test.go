package sse

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

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

// windowFile is the ciphertext of a large object of which it keeps only a
// window, counting the bytes read from it; a read outside the window
// fails the test.
type windowFile struct {
	t         *testing.T
	from      int64
	buf       []byte
	pos       int64
	bytesRead int64
}

func (w *windowFile) Write(p []byte) (int, error) {
	lo, hi := w.pos, w.pos+int64(len(p))
	w.pos = hi
	a, b := max(lo, w.from), min(hi, w.from+int64(cap(w.buf)))
	if a < b {
		w.buf = append(w.buf, p[a-lo:b-lo]...)
	}
	return len(p), nil
}

func (w *windowFile) ReadAt(p []byte, off int64) (int, error) {
	if off < w.from || off+int64(len(p)) > w.from+int64(len(w.buf)) {
		w.t.Errorf("read of %d bytes at %d outside the window [%d, %d)", len(p), off, w.from, w.from+int64(len(w.buf)))
		return 0, io.ErrUnexpectedEOF
	}
	w.bytesRead += int64(len(p))
	return copy(p, w.buf[off-w.from:]), nil
}

// TestDeepRangeReadsTwoPackages checks that 10 bytes deep inside a 1 GiB
// encrypted object, straddling a package boundary, read at most two
// packages of ciphertext.
func TestDeepRangeReadsTwoPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("encrypts 1 GiB")
	}
	const size = 1 << 30
	key := bytes.Repeat([]byte{4}, 32)
	off := int64(9000*PackagePayload - 5)
	win := &windowFile{t: t, from: 8999 * PackageSize, buf: make([]byte, 0, 2*PackageSize)}
	w, err := NewWriter(win, key)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for i := 0; i < size/len(chunk); i++ {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(win, key, size, off, 10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rd)
	if err != nil || !bytes.Equal(got, make([]byte, 10)) {
		t.Fatalf("range = %x, %v", got, err)
	}
	if win.bytesRead > 2*PackageSize {
		t.Fatalf("a 10-byte range read %d bytes of ciphertext, more than two packages (%d)", win.bytesRead, 2*PackageSize)
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
