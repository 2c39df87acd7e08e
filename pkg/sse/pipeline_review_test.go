//go:build unix

package sse

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestReviewMappedCiphertextIsReadTwice flips one ciphertext bit of
// package 5 back and forth, in place, through a shared writable mapping
// of the object's file (an attacker who can write the storage, the threat
// the attack suite models), while the object is read through the
// pipeline. AES-GCM's Open reads each ciphertext block once for GHASH and
// again to decrypt it (crypto/internal/fips140/aes/gcm gcm_amd64.s
// gcmAesDec; the generic code makes two whole passes): from a private
// pread copy both reads see the same bytes; decrypted out of a MAP_SHARED
// mapping of the file (as a first version of the pipeline did) they need
// not, and a tag computed over the original ciphertext then vouches for a
// plaintext with the bit flipped. No read may ever succeed with bytes
// that are not the object's.
func TestReviewMappedCiphertextIsReadTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("races a flipping goroutine for up to a few seconds")
	}
	key, plain, f := pipelineObjectOf(t, 16*PackagePayload)
	size := int64(len(plain))
	at := int64(5*PackageSize + headerSize + 4096 + 37)
	rw, err := os.OpenFile(f.Name(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	page := int64(os.Getpagesize())
	base := at &^ (page - 1)
	mem, err := unix.Mmap(int(rw.Fd()), base, int(page), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	orig := mem[at-base]

	run := func(t *testing.T, src io.ReaderAt, d time.Duration) (forged, corrupt, good int) {
		forcePipeline(t, 1)
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				mem[at-base] ^= 0x01
			}
			mem[at-base] = orig
		}()
		defer func() { stop.Store(true); wg.Wait() }()
		deadline := time.Now().Add(d)
		var buf bytes.Buffer
		for i := 0; i < 3000 && time.Now().Before(deadline) && forged == 0; i++ {
			rd, err := NewReader(src, key, size, 0, size)
			if err != nil {
				t.Fatal(err)
			}
			buf.Reset()
			_, err = rd.WriteTo(&buf)
			switch {
			case errors.Is(err, ErrCorrupt):
				corrupt++
			case err != nil:
				t.Fatal(err)
			case !bytes.Equal(buf.Bytes(), plain):
				forged++
				got := buf.Bytes()
				for i := range got {
					if got[i] != plain[i] {
						t.Logf("forged: plaintext byte %d is %#x, the object's %#x", i, got[i], plain[i])
					}
				}
			default:
				good++
			}
		}
		return forged, corrupt, good
	}
	forged, corrupt, good := run(t, f, 3*time.Second)
	t.Logf("pipeline over the *os.File: %d forged, %d ErrCorrupt, %d intact", forged, corrupt, good)
	if forged > 0 {
		t.Errorf("a read succeeded with a plaintext that is not the object's (ciphertext authenticated and decrypted from two different reads of the file)")
	}
}

// appendingWriter appends a byte to the file named path at its second
// write (the first of the pipeline): data after the final package, put
// there while the range is read.
type appendingWriter struct {
	path   string
	writes int
	buf    bytes.Buffer
	err    error
}

func (w *appendingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes == 2 {
		f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			_, err = f.Write([]byte{0})
			f.Close()
		}
		w.err = err
	}
	return w.buf.Write(p)
}

// TestReviewExtendedWhileReadIsCorrupt appends a byte to the object's
// file after the range's first block was written and long before its
// final package is read: the serial path and the pipeline read the final
// package with one byte more and answer ErrCorrupt ("data after the final
// package").
func TestReviewExtendedWhileReadIsCorrupt(t *testing.T) {
	for _, c := range []struct {
		name  string
		spare int32
	}{{"Serial", 0}, {"Pipeline", 1}} {
		t.Run(c.name, func(t *testing.T) {
			forcePipeline(t, c.spare)
			key, plain, f := pipelineObjectOf(t, 100*PackagePayload+123)
			size := int64(len(plain))
			rd, err := NewReader(f, key, size, 0, size)
			if err != nil {
				t.Fatal(err)
			}
			w := &appendingWriter{path: f.Name()}
			_, err = rd.WriteTo(w)
			if w.err != nil {
				t.Fatal(w.err)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("a byte appended after the final package while the range was read: %v (%d of %d bytes handed out), want ErrCorrupt as the serial path answers", err, w.buf.Len(), size)
			}
		})
	}
}
