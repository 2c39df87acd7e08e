package sse

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"io"

	"github.com/objectgateway/objectgateway/metadata"
)

// SaltSize is the size of a part's salt (metadata.EncryptedPart.Salt).
const SaltSize = 16

// partKeyLabel separates part keys from every other use of a data key.
const partKeyLabel = "objectgateway sse part key\x00"

// NewSalt returns a random salt for the key of one part's stream.
func NewSalt() ([]byte, error) {
	s := make([]byte, SaltSize)
	if _, err := rand.Read(s); err != nil {
		return nil, err
	}
	return s, nil
}

// PartKey derives the key of one part's DARE stream from the object's data
// key and the part's salt (HMAC-SHA256). Every upload of a part gets a new
// salt, so each part's stream has a key of its own: a part moved to
// another position, a part file replaced by an earlier upload of the same
// number, or a stream taken from another object does not authenticate.
// The caller wipes the key.
func PartKey(dataKey, salt []byte) []byte {
	m := hmac.New(sha256.New, dataKey)
	m.Write([]byte(partKeyLabel))
	m.Write(salt)
	return m.Sum(nil)
}

// PartsEncryptedSize is the file size of a multipart encrypted object of
// this layout: the sum of its parts' stream sizes.
func PartsEncryptedSize(parts []metadata.EncryptedPart) int64 {
	var n int64
	for _, p := range parts {
		n += EncryptedSize(p.Size)
	}
	return n
}

// PartsSize is the plaintext size of a multipart encrypted object of this
// layout.
func PartsSize(parts []metadata.EncryptedPart) int64 {
	var n int64
	for _, p := range parts {
		n += p.Size
	}
	return n
}

// NewPartsReader returns the n plaintext bytes at off of a multipart
// encrypted file of the given layout: one DARE stream per part, one after
// the other. Each part the range touches is read as NewReader reads a
// single stream, so only the packages the range covers are read, and a
// part whose end the range reaches is checked for its final package.
//
// A layout whose parts do not add up to size (a record rewritten for a
// file replaced behind the gateway's back) is ErrCorrupt.
//
// The reader keeps a copy of the data key to derive the keys of the parts
// it has not reached yet, opening one part at a time; it wipes the copy
// once it has opened the last part of the range or failed.
func NewPartsReader(src io.ReaderAt, dataKey []byte, parts []metadata.EncryptedPart, size, off, n int64) (io.Reader, error) {
	if PartsSize(parts) != size || off < 0 || n < 0 || off+n > size {
		return nil, ErrCorrupt
	}
	r := &partsReader{src: src, dk: append([]byte(nil), dataKey...), off: off, left: n}
	var plain, file int64
	for _, p := range parts {
		end := plain + p.Size
		if end > off && plain < off+n {
			r.spans = append(r.spans, partSpan{part: p, plain: plain, file: file})
		}
		plain, file = end, file+EncryptedSize(p.Size)
	}
	if len(r.spans) == 0 {
		Wipe(r.dk)
		return &io.LimitedReader{}, nil
	}
	return r, nil
}

// partSpan is a part the range touches: its plaintext and file offsets.
type partSpan struct {
	part        metadata.EncryptedPart
	plain, file int64
}

type partsReader struct {
	src   io.ReaderAt
	dk    []byte
	spans []partSpan
	cur   *Reader
	off   int64
	left  int64
}

func (r *partsReader) Read(p []byte) (int, error) {
	for {
		if r.cur == nil {
			if len(r.spans) == 0 {
				return 0, io.EOF
			}
			if err := r.open(); err != nil {
				return 0, err
			}
		}
		m, err := r.cur.Read(p)
		r.left -= int64(m)
		r.off += int64(m)
		if err == io.EOF {
			r.cur = nil
			if m > 0 || len(p) == 0 {
				return m, nil
			}
			continue
		}
		return m, err
	}
}

// WriteTo writes the rest of the range to w, each part with its Reader's
// WriteTo: a block of packages per Write, and the pipeline of two
// goroutines for a part with 4 MiB or more of the range left.
func (r *partsReader) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for {
		if r.cur == nil {
			if len(r.spans) == 0 {
				return n, nil
			}
			if err := r.open(); err != nil {
				return n, err
			}
		}
		m, err := r.cur.WriteTo(w)
		n += m
		r.left -= m
		r.off += m
		r.cur = nil
		if err != nil {
			return n, err
		}
	}
}

// open opens the next part of the range.
func (r *partsReader) open() error {
	s := r.spans[0]
	r.spans = r.spans[1:]
	local := r.off - s.plain
	n := min(r.left, s.part.Size-local)
	key := PartKey(r.dk, s.part.Salt)
	defer Wipe(key)
	if len(r.spans) == 0 {
		Wipe(r.dk)
	}
	sec := io.NewSectionReader(r.src, s.file, EncryptedSize(s.part.Size))
	d, err := NewReader(sec, key, s.part.Size, local, n)
	if err != nil {
		Wipe(r.dk)
		r.spans = nil
		return err
	}
	r.cur = d
	return nil
}
