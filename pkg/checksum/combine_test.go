package checksum

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

func sumOf(a Algorithm, data []byte) string {
	h := a.New()
	h.Write(data)
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// TestCombinerMatchesDirectCRC checks the combination of piece CRCs against
// the CRC of the concatenated data, for piece sizes including empty ones.
func TestCombinerMatchesDirectCRC(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, a := range []Algorithm{CRC32, CRC32C, CRC64NVME} {
		if !a.CanCombine() {
			t.Fatalf("%s must be combinable", a)
		}
		for trial := 0; trial < 20; trial++ {
			var all []byte
			c, err := NewCombiner(a)
			if err != nil {
				t.Fatal(err)
			}
			for p := 0; p < 1+rng.IntN(6); p++ {
				piece := make([]byte, rng.IntN(3000))
				if rng.IntN(5) == 0 {
					piece = nil
				}
				for i := range piece {
					piece[i] = byte(rng.Uint32())
				}
				all = append(all, piece...)
				if err := c.Add(sumOf(a, piece), int64(len(piece))); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := c.Sum(), sumOf(a, all); got != want {
				t.Fatalf("%s trial %d: combined %s, direct %s", a, trial, got, want)
			}
		}
	}
	for _, a := range []Algorithm{SHA1, SHA256, None} {
		if a.CanCombine() {
			t.Errorf("%s cannot be combined", a)
		}
		if _, err := NewCombiner(a); err == nil {
			t.Errorf("NewCombiner(%s) must fail", a)
		}
	}
	c, _ := NewCombiner(CRC32)
	if err := c.Add("not base64!", 3); err == nil {
		t.Fatal("a malformed part checksum must be refused")
	}
}

func TestCompositeAndMultipartETag(t *testing.T) {
	p1, p2 := []byte("part one"), []byte("part two")
	got, err := Composite(SHA256, []string{sumOf(SHA256, p1), sumOf(SHA256, p2)})
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := base64.StdEncoding.DecodeString(sumOf(SHA256, p1))
	r2, _ := base64.StdEncoding.DecodeString(sumOf(SHA256, p2))
	if want := sumOf(SHA256, append(r1, r2...)) + "-2"; got != want {
		t.Fatalf("composite %s, want %s", got, want)
	}
	m1, m2 := md5.Sum(p1), md5.Sum(p2)
	etag, err := MultipartETag([]string{hex.EncodeToString(m1[:]), hex.EncodeToString(m2[:])})
	if err != nil {
		t.Fatal(err)
	}
	all := md5.Sum(append(m1[:], m2[:]...))
	if want := hex.EncodeToString(all[:]) + "-2"; etag != want {
		t.Fatalf("etag %s, want %s", etag, want)
	}
	if _, err := MultipartETag([]string{"xyz"}); err == nil {
		t.Fatal("a malformed part ETag must be refused")
	}
}
