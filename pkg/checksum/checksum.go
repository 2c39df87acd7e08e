package checksum

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"hash/crc32"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/minio/crc64nvme"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/zeebo/xxh3"
)

// Algorithm is an x-amz-checksum-* algorithm. The zero value None means no
// algorithm was requested.
type Algorithm uint8

// The algorithms S3 accepts in x-amz-checksum-* headers and trailers. The
// catalogue stores an algorithm by its name, never by this number.
const (
	None Algorithm = iota
	CRC32
	CRC32C
	CRC64NVME
	SHA1
	SHA256
	SHA512
	MD5
	XXHASH64
	XXHASH3
	XXHASH128
)

// Algorithms returns every algorithm except None, in a fixed order (the
// order of S3's model), so that callers scanning headers always report the
// same one first.
func Algorithms() []Algorithm {
	return []Algorithm{CRC32, CRC32C, CRC64NVME, SHA1, SHA256, SHA512, MD5, XXHASH64, XXHASH3, XXHASH128}
}

// ParseAlgorithm parses an algorithm name case-insensitively, as SDKs send
// both "CRC32" and "crc32" in x-amz-sdk-checksum-algorithm.
func ParseAlgorithm(s string) (Algorithm, bool) {
	for _, a := range Algorithms() {
		if strings.EqualFold(s, a.String()) {
			return a, true
		}
	}
	return None, false
}

// Unsupported is the error S3 answers for an x-amz-checksum-algorithm
// (CreateMultipartUpload, CopyObject) that names no algorithm it knows.
func Unsupported() *s3err.Error {
	names := make([]string, 0, len(Algorithms()))
	for _, a := range Algorithms() {
		names = append(names, a.String())
	}
	return s3err.Newf(s3err.InvalidRequest, "Checksum algorithm provided is unsupported. Please try again with any of the valid types: [%s]", strings.Join(names, ", "))
}

// String returns the algorithm's name as S3 spells it, or "" for None.
func (a Algorithm) String() string {
	switch a {
	case CRC32:
		return "CRC32"
	case CRC32C:
		return "CRC32C"
	case CRC64NVME:
		return "CRC64NVME"
	case SHA1:
		return "SHA1"
	case SHA256:
		return "SHA256"
	case SHA512:
		return "SHA512"
	case MD5:
		return "MD5"
	case XXHASH64:
		return "XXHASH64"
	case XXHASH3:
		return "XXHASH3"
	case XXHASH128:
		return "XXHASH128"
	}
	return ""
}

// Header returns the lower-case header (and trailer) name that carries the
// algorithm's value, such as "x-amz-checksum-crc32", or "" for None.
func (a Algorithm) Header() string {
	if a.String() == "" {
		return ""
	}
	return "x-amz-checksum-" + strings.ToLower(a.String())
}

// New returns a fresh hash for the algorithm, or nil for None. Every hash
// sums to the digest's big-endian bytes, which is what S3 base64-encodes
// (for the xxhashes, their canonical form).
func (a Algorithm) New() hash.Hash {
	switch a {
	case CRC32:
		return crc32.NewIEEE()
	case CRC32C:
		// MakeTable returns a table shared by the standard library for
		// Castagnoli, so this does not allocate a table per request.
		return crc32.New(crc32.MakeTable(crc32.Castagnoli))
	case CRC64NVME:
		return crc64nvme.New()
	case SHA1:
		return sha1.New()
	case SHA256:
		return sha256.New()
	case SHA512:
		return sha512.New()
	case MD5:
		return md5.New()
	case XXHASH64:
		return xxhash.New()
	case XXHASH3:
		return xxh3.New()
	case XXHASH128:
		return xxh3.New128()
	}
	return nil
}

// size returns the digest length in bytes, used to validate the decoded
// base64 values clients send.
func (a Algorithm) size() int {
	switch a {
	case CRC32, CRC32C:
		return 4
	case CRC64NVME, XXHASH64, XXHASH3:
		return 8
	case SHA1:
		return sha1.Size
	case SHA256:
		return sha256.Size
	case SHA512:
		return sha512.Size
	case MD5, XXHASH128:
		return 16
	}
	return 0
}
