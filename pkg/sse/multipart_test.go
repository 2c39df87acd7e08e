package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/objectgateway/objectgateway/metadata"
)

// countingReaderAt counts the bytes read from it.
type countingReaderAt struct {
	r     io.ReaderAt
	bytes int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.bytes += int64(n)
	return n, err
}

// multipartFile encrypts the parts of sizes as a multipart encrypted
// object's file: one stream per part under its own part key.
func multipartFile(t *testing.T, dk []byte, sizes []int) (plain, file []byte, layout []metadata.EncryptedPart) {
	t.Helper()
	for i, n := range sizes {
		part := bytes.Repeat([]byte{byte('a' + i)}, n)
		for j := range part {
			part[j] += byte(j % 7)
		}
		salt, err := NewSalt()
		if err != nil {
			t.Fatal(err)
		}
		file = append(file, encrypt(t, PartKey(dk, salt), part)...)
		plain = append(plain, part...)
		layout = append(layout, metadata.EncryptedPart{Size: int64(n), Salt: salt})
	}
	return plain, file, layout
}

// TestPartsReaderRanges reads every kind of range of a multipart
// encrypted file (inside a part, across part boundaries, a whole part, the
// whole object, the end) against the plaintext, and checks a range inside
// one part reads only that part's packages.
func TestPartsReaderRanges(t *testing.T) {
	dk := bytes.Repeat([]byte{3}, 32)
	sizes := []int{3*PackagePayload + 5, PackagePayload, 1000}
	plain, file, layout := multipartFile(t, dk, sizes)
	size := int64(len(plain))
	p1, p2 := int64(sizes[0]), int64(sizes[0]+sizes[1])
	for _, r := range [][2]int64{{0, size}, {0, 1}, {p1 - 3, 6}, {p1, int64(sizes[1])}, {p1 - 1, p2 - p1 + 2}, {p2, size - p2}, {size - 1, 1}, {5, 0}, {PackagePayload + 7, 10}} {
		cr := &countingReaderAt{r: bytes.NewReader(file)}
		rd, err := NewPartsReader(cr, dk, layout, size, r[0], r[1])
		if err != nil {
			t.Fatalf("range %v: %v", r, err)
		}
		got, err := io.ReadAll(rd)
		if err != nil || !bytes.Equal(got, plain[r[0]:r[0]+r[1]]) {
			t.Fatalf("range %v: %d bytes, %v", r, len(got), err)
		}
		if r == [2]int64{PackagePayload + 7, 10} && cr.bytes > PackageSize {
			t.Errorf("a 10-byte range inside one package read %d bytes", cr.bytes)
		}
	}
}

// TestPartsReaderDetectsDamage checks that swapped part streams, another
// salt (a part re-uploaded or taken from another object), a flipped byte
// and a layout that does not add up to the size are errors.
func TestPartsReaderDetectsDamage(t *testing.T) {
	dk := bytes.Repeat([]byte{5}, 32)
	sizes := []int{PackagePayload + 100, PackagePayload + 100}
	plain, file, layout := multipartFile(t, dk, sizes)
	size := int64(len(plain))
	half := len(file) / 2
	swapped := append(append([]byte(nil), file[half:]...), file[:half]...)
	flipped := append([]byte(nil), file...)
	flipped[half+40] ^= 1
	other := append([]metadata.EncryptedPart(nil), layout...)
	other[1].Salt = bytes.Repeat([]byte{1}, SaltSize)
	read := func(file []byte, layout []metadata.EncryptedPart, off, n int64) error {
		rd, err := NewPartsReader(bytes.NewReader(file), dk, layout, size, off, n)
		if err != nil {
			return err
		}
		_, err = io.ReadAll(rd)
		return err
	}
	for name, err := range map[string]error{
		"swapped":     read(swapped, layout, 0, size),
		"swapped-2nd": read(swapped, layout, int64(sizes[0])+5, 10),
		"other salt":  read(file, other, int64(sizes[0]), 10),
		"flipped":     read(flipped, layout, 0, size),
		"layout":      read(file, layout[:1], 0, size),
	} {
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	if err := read(flipped, layout, 0, 10); err != nil {
		t.Errorf("a range of the undamaged part: %v", err)
	}
}

// TestPartsReaderWriteTo reads ranges of a multipart encrypted file of two
// parts over 4 MiB and a small one through WriteTo: the bytes are the
// object's, the large parts go through the pipeline, and damage in the
// second part is ErrCorrupt with nothing but the object's bytes before it.
func TestPartsReaderWriteTo(t *testing.T) {
	forcePipeline(t, 1)
	pipelineMinPackages = 64
	dk := bytes.Repeat([]byte{4}, 32)
	sizes := []int{80*PackagePayload + 3, 72 * PackagePayload, 1000}
	plain, file, layout := multipartFile(t, dk, sizes)
	size := int64(len(plain))
	p1 := int64(sizes[0])
	for _, r := range [][2]int64{{0, size}, {7, size - 8}, {p1 - 5, int64(sizes[1]) + 10}, {p1, size - p1}, {size - 900, 900}} {
		before := pipelined.Load()
		rd, err := NewPartsReader(bytes.NewReader(file), dk, layout, size, r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := rd.(io.WriterTo).WriteTo(&buf)
		if err != nil || n != r[1] || !bytes.Equal(buf.Bytes(), plain[r[0]:r[0]+r[1]]) {
			t.Fatalf("range %v: %d bytes (%d counted), %v", r, buf.Len(), n, err)
		}
		if r[1] > 70*PackagePayload && pipelined.Load() == before {
			t.Errorf("range %v: no part went through the pipeline", r)
		}
	}
	bad := bytes.Clone(file)
	bad[EncryptedSize(p1)+40*PackageSize+100] ^= 0x04 // package 40 of part 2
	rd, err := NewPartsReader(bytes.NewReader(bad), dk, layout, size, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := rd.(io.WriterTo).WriteTo(&buf); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("damaged second part: %v, want ErrCorrupt", err)
	}
	if int64(buf.Len()) > p1+40*PackagePayload || !bytes.Equal(buf.Bytes(), plain[:buf.Len()]) {
		t.Fatalf("damaged second part: %d bytes handed out, or not the object's", buf.Len())
	}
}
