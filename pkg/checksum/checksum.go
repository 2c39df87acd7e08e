package checksum

import (
	"crypto/sha1"
	"crypto/sha256"
	"hash"
	"hash/crc32"
	"strings"

	"github.com/minio/crc64nvme"
)

// Algorithm is an x-amz-checksum-* algorithm. The zero value None means no
// algorithm was requested.
type Algorithm uint8

// The algorithms S3 accepts in x-amz-checksum-* headers and trailers.
const (
	None Algorithm = iota
	CRC32
	CRC32C
	CRC64NVME
	SHA1
	SHA256
)

// Algorithms returns every algorithm except None, in a fixed order, so that
// callers scanning headers always report the same one first.
func Algorithms() []Algorithm {
	return []Algorithm{CRC32, CRC32C, CRC64NVME, SHA1, SHA256}
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

// New returns a fresh hash for the algorithm, or nil for None.
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
	}
	return nil
}

// size returns the digest length in bytes, used to validate the decoded
// base64 values clients send.
func (a Algorithm) size() int {
	switch a {
	case CRC32, CRC32C:
		return 4
	case CRC64NVME:
		return 8
	case SHA1:
		return sha1.Size
	case SHA256:
		return sha256.Size
	}
	return 0
}
