package object

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// A multipart encrypted object is its parts' DARE streams one after the
// other, each sealed under its own key, PartKey(data key, part salt): the
// upload's data key is made and sealed at CreateMultipartUpload, every
// part is encrypted as it arrives into a file of its own with a fresh
// salt, and the completion appends the part files, ciphertext as it is,
// and records the layout (sizes and salts) in the object's
// metadata.Encryption.Parts. A range decrypts only the packages it
// covers in the parts it touches (sse.NewPartsReader).

// partEncryption is how a part is written: enc is the upload's
// encryption, key its data key (nil for a plain upload).
type partEncryption struct {
	enc metadata.Encryption
	key []byte
}

// uploadKey unseals the data key of an encrypted upload for one of its
// parts; customerKey is the SSE-C key the request sent. As S3: an SSE-C
// upload needs its key on every part (InvalidRequest without, AccessDenied
// for another key), and a key sent to another upload is InvalidRequest.
// A plain upload has no key (nil, nil). The caller wipes the key.
func (l *Layer) uploadKey(u *Upload, customerKey []byte) ([]byte, error) {
	isC := u.SSE.Algorithm == sse.Customer
	switch {
	case isC && customerKey == nil:
		return nil, s3err.Newf(s3err.InvalidRequest, "The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.")
	case !isC && customerKey != nil:
		return nil, s3err.Newf(s3err.InvalidRequest, "The multipart upload initiate did not request encryption with a customer key; the encryption parameters are not applicable to this part.")
	case !u.SSE.Encrypted():
		return nil, nil
	}
	ring, err := l.ring(sseRead)
	if err != nil {
		return nil, err
	}
	dk, err := sse.Open(ring, u.SSE, customerKey)
	if errors.Is(err, sse.ErrCustomerKey) {
		return nil, s3err.Newf(s3err.AccessDenied, "The SSE-C key does not match the key the multipart upload was created with.")
	}
	return dk, kmsErr(err, u.SSE.KeyID)
}

// UploadEncryption returns the encryption of an upload in progress (its
// zero value for a plain upload, or one that is gone), which UploadPart
// and UploadPartCopy answer in their x-amz-server-side-encryption*
// headers.
func (l *Layer) UploadEncryption(bucket, key, id string) metadata.Encryption {
	u, err := l.ix.Upload(bucket, key, id)
	if err != nil {
		return metadata.Encryption{}
	}
	return u.SSE
}

// writeEncryptedPart encrypts body into a staged file of its own under
// the part's key (a fresh salt), hashing the plaintext, and stores it as
// writePart does. The part's ETag is the plaintext's MD5 for SSE-S3, as
// S3's, else a digest that does not reveal it (sealedETag).
func (l *Layer) writeEncryptedPart(ref partRef, body io.Reader, size int64, dg *checksum.Digest, pe partEncryption) (Part, error) {
	salt, err := sse.NewSalt()
	if err != nil {
		return Part{}, err
	}
	up, err := l.fs.NewUpload()
	if err != nil {
		return Part{}, mapErr(err)
	}
	defer up.Abort()
	key := sse.PartKey(pe.key, salt)
	defer sse.Wipe(key)
	ew, err := sse.NewWriter(up, key)
	if err != nil {
		return Part{}, err
	}
	written, err := copyBody(ew, body, dg, size)
	if err != nil {
		return Part{}, err
	}
	if err := ew.Close(); err != nil {
		return Part{}, mapErr(err)
	}
	if err := up.Sync(); err != nil {
		return Part{}, mapErr(err)
	}
	p := l.partRecord(ref, written, dg)
	p.Salt = salt
	if pe.enc.Algorithm != sse.AES256 {
		p.ETag = partETag(dg.MD5(), salt)
	}
	return l.storePart(ref, up.CommitPart, p, nil)
}

// partETag is the ETag of an SSE-C or SSE-KMS part: as sealedETag, not
// the plaintext's MD5, and new with every upload of the part.
func partETag(plainMD5, salt []byte) string {
	h := md5.New()
	h.Write(plainMD5)
	h.Write(salt)
	return hex.EncodeToString(h.Sum(nil))
}

// partFileSize is the size of the file (or region range) that holds part
// p: its DARE stream for a part of an encrypted upload.
func partFileSize(p Part) int64 {
	if p.Salt != nil {
		return sse.EncryptedSize(p.Size)
	}
	return p.Size
}

// completedEncryption is the encryption of the object an upload's chosen
// parts make: the upload's, with their layout. Every part must have been
// written encrypted (a salt): a part without one would be served as
// ciphertext of no stream, so it is InvalidPart.
func completedEncryption(u *Upload, chosen []Part) (metadata.Encryption, error) {
	if !u.SSE.Encrypted() {
		return metadata.Encryption{}, nil
	}
	enc := u.SSE
	enc.Parts = make([]metadata.EncryptedPart, len(chosen))
	for i, p := range chosen {
		if p.Salt == nil {
			return metadata.Encryption{}, s3err.New(s3err.InvalidPart).With("PartNumber", itoa(p.Number))
		}
		enc.Parts[i] = metadata.EncryptedPart{Size: p.Size, Salt: p.Salt}
	}
	return enc, nil
}
