package sse

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"

	"github.com/minio/sio"
	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/kms"
)

// The algorithms of metadata.Encryption.Algorithm.
const (
	AES256   = "AES256"
	KMS      = "aws:kms"
	Customer = "SSE-C"
)

// PackagePayload is the plaintext of one DARE package; PackageSize is the
// package on disk (16-byte header, payload, 16-byte tag).
const (
	PackagePayload = 64 << 10
	PackageSize    = PackagePayload + 32
)

var (
	// ErrCustomerKey is returned when an SSE-C object's key is wrong.
	ErrCustomerKey = errors.New("sse: the customer key does not match the object's")
	// ErrCorrupt is returned when ciphertext does not authenticate: the
	// file was altered, truncated or replaced.
	ErrCorrupt = errors.New("sse: the encrypted file does not authenticate")
)

// EncryptedSize is the file size of n bytes of plaintext.
func EncryptedSize(n int64) int64 {
	s, err := sio.EncryptedSize(uint64(n))
	if err != nil {
		return -1
	}
	return int64(s)
}

// DecryptedSize is the plaintext size of an encrypted file of n bytes, or
// -1 when no DARE stream has that size.
func DecryptedSize(n int64) int64 {
	s, err := sio.DecryptedSize(uint64(n))
	if err != nil {
		return -1
	}
	return int64(s)
}

func config(key []byte) sio.Config {
	return sio.Config{MinVersion: sio.Version20, MaxVersion: sio.Version20,
		CipherSuites: []byte{sio.AES_256_GCM}, Key: key}
}

// NewWriter encrypts what is written to it into dst; Close writes the
// final package and must be called before dst is made durable.
func NewWriter(dst io.Writer, dataKey []byte) (io.WriteCloser, error) {
	// sio's Close also closes a dst that is an io.Closer; the caller owns
	// dst, so sio sees only its Write.
	return sio.EncryptWriter(writeOnly{dst}, config(dataKey))
}

type writeOnly struct{ w io.Writer }

func (w writeOnly) Write(p []byte) (int, error) { return w.w.Write(p) }

// HeaderSize is how many leading bytes LooksEncrypted needs.
const HeaderSize = 5

// LooksEncrypted reports whether a file of size bytes starting with
// header (its first HeaderSize bytes) has the shape of a DARE 2.0 stream
// as NewWriter writes it: version 2.0, AES-256-GCM, a first package whose
// length and final flag agree with the file's size, and for a file of one
// package a size some plaintext encrypts to. A file of more than one
// package need not be one stream's size: a multipart encrypted object is
// several streams one after the other. A scan that finds such a file
// without its record must not import its ciphertext as a plain object.
func LooksEncrypted(header []byte, size int64) bool {
	if len(header) < HeaderSize || size < 33 || size <= PackageSize && DecryptedSize(size) < 0 {
		return false
	}
	if header[0] != sio.Version20 || header[1] != sio.AES_256_GCM {
		return false
	}
	first := int64(header[2]) | int64(header[3])<<8 + 1
	final := header[4]&0x80 != 0
	if size <= PackageSize {
		return final && first+32 == size
	}
	return !final && first == PackagePayload
}

// Request is the encryption a write asks for.
type Request struct {
	// Algorithm is AES256, KMS or Customer; empty writes a plain file.
	Algorithm string
	// KeyID is the SSE-KMS key; empty for SSE-S3 and SSE-C.
	KeyID string
	// Context is the SSE-KMS encryption context as sent (base64 JSON).
	Context string
	// CustomerKey is the SSE-C key (32 bytes).
	CustomerKey []byte
	// BucketKey is x-amz-server-side-encryption-bucket-key-enabled (or the
	// bucket default's BucketKeyEnabled); kept for SSE-KMS only, as S3
	// answers it only for SSE-KMS objects.
	BucketKey bool
}

// NewDataKey makes a random data key for one object and seals it as req
// asks, returning the key (Wipe it after use) and what the index keeps.
func NewDataKey(ring *kms.Ring, req Request) ([]byte, metadata.Encryption, error) {
	dk := make([]byte, 32)
	if _, err := rand.Read(dk); err != nil {
		return nil, metadata.Encryption{}, err
	}
	enc, err := Seal(ring, req, dk)
	if err != nil {
		Wipe(dk)
		return nil, metadata.Encryption{}, err
	}
	return dk, enc, nil
}

// Seal seals an existing data key as req asks (the parts of one multipart
// upload share the upload's key).
func Seal(ring *kms.Ring, req Request, dk []byte) (metadata.Encryption, error) {
	enc := metadata.Encryption{Algorithm: req.Algorithm, Context: req.Context, BucketKey: req.BucketKey && req.Algorithm == KMS}
	var err error
	switch req.Algorithm {
	case AES256:
		enc.KeyID = kms.DefaultKey
		enc.KeyVersion, enc.SealedKey, err = ring.Seal(enc.KeyID, dk, []byte(AES256))
	case KMS:
		enc.KeyID = req.KeyID
		enc.KeyVersion, enc.SealedKey, err = ring.Seal(enc.KeyID, dk, []byte(KMS+"\x00"+req.Context))
	case Customer:
		var kek []byte
		kek, enc.KeyVersion, err = customerKEK(ring, 0, req.CustomerKey)
		if err == nil {
			enc.KeyID = kms.DefaultKey
			enc.SealedKey, err = kms.SealWith(kek, dk, []byte(Customer))
			Wipe(kek)
		}
	default:
		return enc, errors.New("sse: unknown algorithm " + req.Algorithm)
	}
	return enc, err
}

// customerKEK derives the key that seals an SSE-C data key: an HMAC, under
// a ring key, of the customer key's SHA-256.
func customerKEK(ring *kms.Ring, version uint64, customerKey []byte) ([]byte, uint64, error) {
	h := sha256.Sum256(customerKey)
	return ring.Derive(kms.DefaultKey, version, h[:])
}

// Open unseals an object's data key. customerKey is the SSE-C key sent
// with the read; a wrong one is ErrCustomerKey.
func Open(ring *kms.Ring, enc metadata.Encryption, customerKey []byte) ([]byte, error) {
	switch enc.Algorithm {
	case AES256:
		return ring.Unseal(enc.KeyID, enc.KeyVersion, enc.SealedKey, []byte(AES256))
	case KMS:
		return ring.Unseal(enc.KeyID, enc.KeyVersion, enc.SealedKey, []byte(KMS+"\x00"+enc.Context))
	case Customer:
		kek, _, err := customerKEK(ring, enc.KeyVersion, customerKey)
		if err != nil {
			return nil, err
		}
		defer Wipe(kek)
		dk, err := kms.OpenWith(kek, enc.SealedKey, []byte(Customer))
		if errors.Is(err, kms.ErrUnseal) {
			return nil, ErrCustomerKey
		}
		return dk, err
	}
	return nil, errors.New("sse: unknown algorithm " + enc.Algorithm)
}

// Wipe zeroes key material.
func Wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
