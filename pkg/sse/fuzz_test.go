package sse

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/minio/sio"
)

// FuzzReaderMatchesSio compares the reader with sio's own decryption: a
// plaintext of 0..~300 KiB, a range of it and optionally one mutation of
// the ciphertext (a flipped bit, a cut, appended bytes). When sio decrypts
// the stream, the range must be exactly sio's bytes; when the range covers
// a damaged package, or reaches the end of a cut or extended stream, the
// read must fail; and no read ever answers bytes that are not the
// object's.
func FuzzReaderMatchesSio(f *testing.F) {
	f.Add(uint32(0), uint32(0), uint32(0), uint8(0), uint32(0), uint8(0))
	f.Add(uint32(1), uint32(0), uint32(1), uint8(1), uint32(5), uint8(3))
	f.Add(uint32(PackagePayload), uint32(PackagePayload-1), uint32(1), uint8(0), uint32(0), uint8(0))
	f.Add(uint32(3*PackagePayload+17), uint32(100), uint32(2*PackagePayload), uint8(1), uint32(PackageSize+40), uint8(0x80))
	f.Add(uint32(4*PackagePayload), uint32(0), uint32(4*PackagePayload), uint8(2), uint32(3*PackageSize), uint8(0))
	f.Add(uint32(4*PackagePayload+5), uint32(4*PackagePayload), uint32(5), uint8(3), uint32(16), uint8(0))
	key := bytes.Repeat([]byte{9}, 32)
	f.Fuzz(func(t *testing.T, size32, off32, n32 uint32, kind uint8, pos32 uint32, bits uint8) {
		size := int64(size32 % (300<<10 + 1))
		off := int64(off32) % (size + 1)
		n := int64(n32) % (size - off + 1)
		plain := make([]byte, size)
		for i := range plain {
			plain[i] = plainAt(int64(i)) ^ byte(size)
		}
		ct := encrypt(t, key, plain)
		// damaged is the ciphertext byte range whose package no longer
		// authenticates, or -1 for none.
		damaged := int64(-1)
		changedEnd := false
		cut := int64(-1)
		switch kind % 4 {
		case 1: // flip bits of one byte
			if len(ct) > 0 && bits != 0 {
				pos := int64(pos32) % int64(len(ct))
				ct[pos] ^= bits
				damaged = pos
			}
		case 2: // cut the file
			if len(ct) > 0 {
				cut = int64(pos32) % int64(len(ct))
				ct = ct[:cut]
				changedEnd = true
			}
		case 3: // append bytes
			ct = append(ct, bytes.Repeat([]byte{bits}, int(pos32%40)+1)...)
			changedEnd = true
		}
		want, sioErr := sioDecrypt(ct, key)
		for _, viaWriteTo := range []bool{false, true} {
			got, err := readRange(key, ct, size, off, n, viaWriteTo)
			if sioErr == nil {
				if err != nil {
					t.Fatalf("size %d range %d+%d: sio decrypts, reader: %v", size, off, n, err)
				}
				if !bytes.Equal(got, want[off:off+n]) {
					t.Fatalf("size %d range %d+%d: bytes differ from sio's", size, off, n)
				}
				continue
			}
			if !bytes.Equal(got, plain[off:off+int64(len(got))]) {
				t.Fatalf("size %d range %d+%d (sio: %v): reader answered bytes that are not the object's", size, off, n, sioErr)
			}
			if err == nil && int64(len(got)) != n {
				t.Fatalf("size %d range %d+%d: %d bytes without an error", size, off, n, len(got))
			}
			covered := false
			if size > 0 && (n > 0 || off+n >= size) {
				first, last := off/PackagePayload, (off+n+PackagePayload-1)/PackagePayload
				if off+n >= size {
					last = (size + PackagePayload - 1) / PackagePayload
					first = min(first, last-1)
					covered = changedEnd
				}
				if damaged >= 0 && damaged/PackageSize >= first && damaged/PackageSize < last {
					covered = true
				}
				if cut >= 0 && cut < EncryptedSize(min(last*PackagePayload, size)) {
					covered = true // a package the range needs is cut
				}
			}
			if size == 0 {
				// The reader of an empty object checks its file is empty.
				covered = changedEnd
			}
			if covered && err == nil {
				t.Fatalf("size %d range %d+%d: damage covered by the range (sio: %v), reader succeeded", size, off, n, sioErr)
			}
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("unexpected error %v", err)
			}
		}
	})
}

// sioDecrypt is sio.DecryptBuffer of ct; sio v0.4.1 panics (slice
// bounds) on a stream shorter than a package header instead of failing,
// which counts as a failure here.
func sioDecrypt(ct, key []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("sio panicked: %v", p)
		}
	}()
	return sio.DecryptBuffer(nil, ct, config(key))
}
