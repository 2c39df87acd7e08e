package sse

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"io"
	"testing"
)

// benchSize is the object of the GET benchmarks: 100 MiB.
const benchSize = 100 << 20

// BenchmarkAESGCMCeiling is the in-process AES-256-GCM decryption speed
// of 64 KiB packages on this machine: the ceiling BenchmarkDecryptObject
// is measured against (run both in one go test -bench run).
func BenchmarkAESGCMCeiling(b *testing.B) {
	block, _ := aes.NewCipher(make([]byte, 32))
	g, _ := cipher.NewGCM(block)
	nonce := make([]byte, g.NonceSize())
	sealed := g.Seal(nil, nonce, make([]byte, PackagePayload), nil)
	out := make([]byte, PackagePayload)
	b.SetBytes(benchSize)
	for b.Loop() {
		for range benchSize / PackagePayload {
			if _, err := g.Open(out[:0], nonce, sealed, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecryptObject reads a whole 100 MiB encrypted object through
// NewReader's WriteTo, as GetObject does.
func BenchmarkDecryptObject(b *testing.B) {
	key := make([]byte, 32)
	var ct bytes.Buffer
	w, _ := NewWriter(&ct, key)
	w.Write(make([]byte, benchSize))
	w.Close()
	src := bytes.NewReader(ct.Bytes())
	b.SetBytes(benchSize)
	for b.Loop() {
		r, err := NewReader(src, key, benchSize, 0, benchSize)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncryptObject writes a 100 MiB object through NewWriter, as
// PutObject does (without the MD5, which PutObject computes in the same
// pass for plain objects too).
func BenchmarkEncryptObject(b *testing.B) {
	key := make([]byte, 32)
	chunk := make([]byte, 1<<20)
	b.SetBytes(benchSize)
	for b.Loop() {
		w, _ := NewWriter(io.Discard, key)
		for range benchSize / len(chunk) {
			w.Write(chunk)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
