package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"sync"
)

// SigningKey derives the SigV4 signing key for a secret, a date
// (YYYYMMDD), a region and a service.
func SigningKey(secret, date, region, service string) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), date)
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, service)
	return hmacSHA256(k, "aws4_request")
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// keyCacheSize bounds the signing-key cache. A key is valid for one day in
// one region, so a few hundred entries cover every active credential.
const keyCacheSize = 512

type keyID struct{ secret, date, region string }

// keyCache memoises derived signing keys, which cost four HMACs each. It is
// bounded: when full, an arbitrary entry is evicted, which is adequate
// because entries expire naturally with the date.
type keyCache struct {
	mu sync.Mutex
	m  map[keyID][]byte
}

func (c *keyCache) get(secret, date, region string) []byte {
	id := keyID{secret, date, region}
	c.mu.Lock()
	k, ok := c.m[id]
	c.mu.Unlock()
	if ok {
		return k
	}
	k = SigningKey(secret, date, region, "s3")
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[keyID][]byte)
	}
	if len(c.m) >= keyCacheSize {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[id] = k
	c.mu.Unlock()
	return k
}

// macSHA256 returns HMAC-SHA256 (RFC 2104) of msg under key without
// allocating: buf is scratch space for the inner hash's input (the padded
// key and msg), best given with room on the caller's stack. crypto/hmac's
// New allocates the two hash states and pads on every call, which showed
// in the profile of a presigned GET; TestMACMatchesHMAC checks the two
// agree.
func macSHA256(key, msg, buf []byte) [sha256.Size]byte {
	var k [sha256.BlockSize]byte
	if len(key) > len(k) {
		sum := sha256.Sum256(key)
		copy(k[:], sum[:])
	} else {
		copy(k[:], key)
	}
	buf = buf[:0]
	for _, c := range k {
		buf = append(buf, c^0x36)
	}
	buf = append(buf, msg...)
	inner := sha256.Sum256(buf)
	var outer [sha256.BlockSize + sha256.Size]byte
	for i, c := range k {
		outer[i] = c ^ 0x5c
	}
	copy(outer[sha256.BlockSize:], inner[:])
	return sha256.Sum256(outer[:])
}
