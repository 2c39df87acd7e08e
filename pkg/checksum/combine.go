package checksum

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
)

// The reflected polynomials of the CRCs S3 can combine into a full-object
// checksum of a multipart upload.
const (
	polyCRC32     = 0xEDB88320
	polyCRC32C    = 0x82F63B78
	polyCRC64NVME = 0x9A6C9329AC4BC9B5
)

// CanCombine reports whether a's checksums of consecutive pieces can be
// combined into the checksum of the whole (the CRCs can; SHA digests
// cannot).
func (a Algorithm) CanCombine() bool {
	return a == CRC32 || a == CRC32C || a == CRC64NVME
}

// Combiner folds the checksums of consecutive pieces into the checksum of
// their concatenation, without reading the data: a full-object checksum
// of a multipart upload from its parts' checksums.
type Combiner struct {
	alg   Algorithm
	width int
	poly  uint64
	crc   uint64
	empty bool
}

// NewCombiner returns a Combiner for a CRC algorithm.
func NewCombiner(a Algorithm) (*Combiner, error) {
	c := &Combiner{alg: a, empty: true}
	switch a {
	case CRC32:
		c.width, c.poly = 32, polyCRC32
	case CRC32C:
		c.width, c.poly = 32, polyCRC32C
	case CRC64NVME:
		c.width, c.poly = 64, polyCRC64NVME
	default:
		return nil, fmt.Errorf("checksum: %s checksums cannot be combined", a)
	}
	return c, nil
}

// Add appends a piece of size bytes whose checksum is sum (base64, as S3
// sends it).
func (c *Combiner) Add(sum string, size int64) error {
	raw, err := base64.StdEncoding.DecodeString(sum)
	if err != nil || len(raw) != c.width/8 {
		return fmt.Errorf("checksum: %q is not a %s value", sum, c.alg)
	}
	var v uint64
	if c.width == 32 {
		v = uint64(binary.BigEndian.Uint32(raw))
	} else {
		v = binary.BigEndian.Uint64(raw)
	}
	if c.empty {
		c.crc, c.empty = v, false
		return nil
	}
	c.crc = combineCRC(c.crc, v, size, c.poly, c.width)
	return nil
}

// Sum returns the combined checksum, base64 encoded.
func (c *Combiner) Sum() string {
	if c.width == 32 {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(c.crc))
		return base64.StdEncoding.EncodeToString(b[:])
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], c.crc)
	return base64.StdEncoding.EncodeToString(b[:])
}

// combineCRC returns the CRC of A‖B from crc(A), crc(B) and len(B), for a
// reflected CRC with all-ones initial value and final XOR (CRC-32, CRC-32C,
// CRC-64/NVME). It applies len2 zero bytes to crc1 with a GF(2) matrix
// raised by repeated squaring, as zlib's crc32_combine does.
func combineCRC(crc1, crc2 uint64, len2 int64, poly uint64, width int) uint64 {
	if len2 <= 0 {
		return crc1
	}
	var even, odd [64]uint64
	// odd is the operator for one zero bit.
	odd[0] = poly
	row := uint64(1)
	for n := 1; n < width; n++ {
		odd[n] = row
		row <<= 1
	}
	square(even[:width], odd[:width]) // two zero bits
	square(odd[:width], even[:width]) // four zero bits
	for {
		square(even[:width], odd[:width])
		if len2&1 != 0 {
			crc1 = times(even[:width], crc1)
		}
		len2 >>= 1
		if len2 == 0 {
			break
		}
		square(odd[:width], even[:width])
		if len2&1 != 0 {
			crc1 = times(odd[:width], crc1)
		}
		len2 >>= 1
		if len2 == 0 {
			break
		}
	}
	return crc1 ^ crc2
}

func times(mat []uint64, vec uint64) uint64 {
	var sum uint64
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func square(dst, mat []uint64) {
	for n := range mat {
		dst[n] = times(mat, mat[n])
	}
}

// Composite returns S3's composite checksum of a multipart upload: the
// algorithm's digest of the concatenated raw part checksums, base64, with
// "-N" appended.
func Composite(a Algorithm, parts []string) (string, error) {
	h := a.New()
	if h == nil {
		return "", fmt.Errorf("checksum: no algorithm")
	}
	for _, p := range parts {
		raw, err := base64.StdEncoding.DecodeString(p)
		if err != nil || len(raw) != a.size() {
			return "", fmt.Errorf("checksum: %q is not a %s value", p, a)
		}
		h.Write(raw)
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)) + "-" + strconv.Itoa(len(parts)), nil
}

// MultipartETag returns S3's ETag of a multipart object: the MD5 of the
// concatenated binary MD5s of its parts, hex, with "-N" appended.
func MultipartETag(partETags []string) (string, error) {
	h := md5.New()
	for _, e := range partETags {
		raw, err := hex.DecodeString(e)
		if err != nil || len(raw) != md5.Size {
			return "", fmt.Errorf("checksum: part ETag %q is not an MD5", e)
		}
		h.Write(raw)
	}
	return hex.EncodeToString(h.Sum(nil)) + "-" + strconv.Itoa(len(partETags)), nil
}
