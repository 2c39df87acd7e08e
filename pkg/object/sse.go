package object

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"sync"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/kms"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// KeyRingFile is the key ring's file in the state directory: outside the
// index and outside every bucket. Losing it loses every encrypted object.
const KeyRingFile = "kms.json"

// keyRing opens the key ring once, on the first encrypted write (which
// creates it 0600) or read (which never creates it: new keys would not
// open old objects).
type keyRing struct {
	mu   sync.Mutex
	ring *kms.Ring
}

// ring returns the open key ring; create makes it when it does not exist.
func (l *Layer) ring(create sseUse) (*kms.Ring, error) {
	l.keys.mu.Lock()
	defer l.keys.mu.Unlock()
	if l.keys.ring != nil {
		return l.keys.ring, nil
	}
	path := l.StatePath(KeyRingFile)
	var r *kms.Ring
	var err error
	if create == sseWrite {
		r, err = kms.Open(path)
	} else {
		r, err = kms.OpenExisting(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, s3err.Newf(s3err.InternalError, "The key ring %s is missing: encrypted objects cannot be read without it.", path)
	}
	if err != nil {
		return nil, s3err.Newf(s3err.InternalError, "The key ring cannot be opened: %v", err)
	}
	l.keys.ring = r
	return r, nil
}

// sseUse says whether a key-ring use may create the ring.
type sseUse int

const (
	sseRead sseUse = iota
	sseWrite
)

// KeyRing returns the gateway's key ring, creating it on first use (the
// kms command and SSE-KMS key checks).
func (l *Layer) KeyRing() (*kms.Ring, error) { return l.ring(sseWrite) }

// newDataKey makes and seals the data key of a write that asks for
// encryption (the caller wipes the key).
func (l *Layer) newDataKey(req sse.Request) ([]byte, metadata.Encryption, error) {
	ring, err := l.ring(sseWrite)
	if err != nil {
		return nil, metadata.Encryption{}, err
	}
	dk, enc, err := sse.NewDataKey(ring, req)
	return dk, enc, kmsErr(err, req.KeyID)
}

// kmsErr maps key-ring errors to S3's answers for SSE-KMS.
func kmsErr(err error, keyID string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, kms.ErrNotFound):
		return s3err.Newf(s3err.KMSNotFound, "Invalid keyId %s", keyID)
	case errors.Is(err, kms.ErrDisabled):
		return s3err.Newf(s3err.KMSDisabled, "The KMS key %q is disabled.", keyID)
	case errors.Is(err, sse.ErrCustomerKey):
		return s3err.Newf(s3err.AccessDenied, "The SSE-C key does not match the key the object was stored with.")
	case errors.Is(err, kms.ErrUnseal):
		return s3err.Newf(s3err.InternalError, "The object's data key does not authenticate.")
	}
	return err
}

// sealedETag is the ETag of an SSE-C or SSE-KMS object: as in S3, not the
// MD5 of the plaintext (which would let anyone holding the ETag test
// guesses of the content), but a digest that changes with every write.
func sealedETag(plainMD5 []byte, enc metadata.Encryption) string {
	h := md5.New()
	h.Write(plainMD5)
	h.Write(enc.SealedKey)
	return hex.EncodeToString(h.Sum(nil))
}

// plainSize is the plaintext size of o's file of fileBytes bytes: the
// file's size for a plain object; for an encrypted one the size its DARE
// stream decrypts to (0 when no stream has that size, a file that will
// not authenticate). A file replaced behind the gateway's back keeps its
// record's encryption, so it is decrypted, and answers an error, rather
// than served as plaintext.
//
// A multipart encrypted object's file is its parts' streams one after the
// other (o.SSE.Parts): a file of their size decrypts to their plaintext,
// any other size to what a single stream of that size would, which the
// layout does not add up to, so its read fails.
func plainSize(o *Object, fileBytes int64) int64 {
	if !o.SSE.Encrypted() {
		return fileBytes
	}
	if len(o.SSE.Parts) > 0 && sse.PartsEncryptedSize(o.SSE.Parts) == fileBytes {
		return sse.PartsSize(o.SSE.Parts)
	}
	return max(sse.DecryptedSize(fileBytes), 0)
}

// fileSize is the size of the file that holds o's bytes.
func fileSize(o *Object) int64 {
	switch {
	case len(o.SSE.Parts) > 0:
		return sse.PartsEncryptedSize(o.SSE.Parts)
	case o.SSE.Encrypted():
		return sse.EncryptedSize(o.Size)
	}
	return o.Size
}

// writeBody copies body into up as copyBody does, encrypted when req asks
// for it: the digests are of the plaintext, the file holds its DARE
// stream. It returns the plaintext size and the record's encryption.
func (l *Layer) writeBody(up io.Writer, body io.Reader, dg *checksum.Digest, size int64, req sse.Request) (int64, metadata.Encryption, error) {
	if req.Algorithm == "" {
		n, err := copyBody(up, body, dg, size)
		return n, metadata.Encryption{}, err
	}
	dk, enc, err := l.newDataKey(req)
	if err != nil {
		return 0, enc, err
	}
	defer sse.Wipe(dk)
	ew, err := sse.NewWriter(up, dk)
	if err != nil {
		return 0, enc, err
	}
	n, err := copyBody(ew, body, dg, size)
	if err != nil {
		return n, enc, err
	}
	if err := ew.Close(); err != nil {
		return n, enc, mapErr(err)
	}
	return n, enc, nil
}

// CheckCustomerKey verifies the SSE-C key a request sent for o: an
// SSE-C object needs one (InvalidRequest without), a wrong one is
// AccessDenied, and any other object refuses one (InvalidRequest), as S3.
// Only an SSE-C key is unsealed to check it; SSE-S3 and SSE-KMS objects
// are unsealed by the read itself (Plaintext), once.
func (l *Layer) CheckCustomerKey(o *Object, customerKey []byte) error {
	if o.SSE.Algorithm != sse.Customer {
		if customerKey != nil {
			return s3err.Newf(s3err.InvalidRequest, "The encryption parameters are not applicable to this object.")
		}
		return nil
	}
	dk, err := l.dataKey(o, customerKey)
	sse.Wipe(dk)
	return err
}

func (l *Layer) dataKey(o *Object, customerKey []byte) ([]byte, error) {
	isC := o.SSE.Algorithm == sse.Customer
	switch {
	case isC && customerKey == nil:
		return nil, s3err.Newf(s3err.InvalidRequest, "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.")
	case !isC && customerKey != nil:
		return nil, s3err.Newf(s3err.InvalidRequest, "The encryption parameters are not applicable to this object.")
	case !o.SSE.Encrypted():
		return nil, nil
	}
	ring, err := l.ring(sseRead)
	if err != nil {
		return nil, err
	}
	dk, err := sse.Open(ring, o.SSE, customerKey)
	return dk, kmsErr(err, o.SSE.KeyID)
}

// Plaintext returns the n bytes at off of an open encrypted object,
// decrypted; customerKey is the SSE-C key the request sent (nil for
// none). The range's first block of packages (up to 256 KiB) is decrypted
// before Plaintext returns, so a
// damaged file or a wrong key is an error before any answer is written;
// damage found later is the reader's error (the answer is cut short).
func (l *Layer) Plaintext(rd *Reader, customerKey []byte, off, n int64) (io.Reader, error) {
	dk, err := l.dataKey(&rd.Object, customerKey)
	if err != nil {
		return nil, err
	}
	defer sse.Wipe(dk)
	if rd.File == nil {
		return nil, s3err.Newf(s3err.InternalError, "encrypted object without a file")
	}
	if len(rd.SSE.Parts) > 0 {
		r, err := sse.NewPartsReader(rd.File, dk, rd.SSE.Parts, rd.Size, off, n)
		if err != nil {
			return nil, corruptErr(err)
		}
		return newCheckedReader(r, n)
	}
	r, err := sse.NewReader(rd.File, dk, rd.Size, off, n)
	if err != nil {
		return nil, corruptErr(err)
	}
	if err := r.Prime(); err != nil {
		return nil, corruptErr(err)
	}
	return plaintext{r}, nil
}

// checkedReader is a decrypted range of a multipart encrypted object
// whose first bytes (up to a package) were read ahead, so that damage or
// a wrong key there is an error before any answer is written.
type checkedReader struct {
	head []byte
	rest io.Reader
}

func newCheckedReader(r io.Reader, n int64) (io.Reader, error) {
	head := make([]byte, min(n, sse.PackagePayload))
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, corruptErr(err)
	}
	if int64(len(head)) == n {
		// The whole range is read: one more read checks the stream's end.
		if _, err := r.Read(make([]byte, 1)); err != io.EOF {
			return nil, corruptErr(err)
		}
	}
	return &checkedReader{head: head, rest: r}, nil
}

// WriteTo writes the bytes read ahead and then the rest, with the rest's
// WriteTo when it has one (the parts reader: each part a block per Write,
// and decrypted by two goroutines when large).
func (c *checkedReader) WriteTo(w io.Writer) (int64, error) {
	var n int64
	if len(c.head) > 0 {
		m, err := w.Write(c.head)
		n += int64(m)
		c.head = c.head[m:]
		if err == nil && len(c.head) > 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			return n, err
		}
	}
	var m int64
	var err error
	if wt, ok := c.rest.(io.WriterTo); ok {
		m, err = wt.WriteTo(w)
	} else {
		m, err = io.Copy(w, struct{ io.Reader }{c.rest})
	}
	n += m
	if err != nil && err != io.EOF {
		err = corruptErr(err)
	}
	return n, err
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if len(c.head) > 0 {
		n := copy(p, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	n, err := c.rest.Read(p)
	if err != nil && err != io.EOF {
		err = corruptErr(err)
	}
	return n, err
}

// plaintext is a decrypted range whose damage found after Plaintext
// returned is S3's InternalError. It keeps sse.Reader's WriteTo, which
// writes a block of packages per Write.
type plaintext struct{ r *sse.Reader }

func (p plaintext) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && err != io.EOF {
		err = corruptErr(err)
	}
	return n, err
}

func (p plaintext) WriteTo(w io.Writer) (int64, error) {
	n, err := p.r.WriteTo(w)
	if err != nil {
		err = corruptErr(err)
	}
	return n, err
}

func corruptErr(err error) error {
	if err == nil || errors.Is(err, sse.ErrCorrupt) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return s3err.Newf(s3err.InternalError, "The encrypted file of this object does not authenticate: it was altered, truncated or replaced.")
	}
	return err
}
