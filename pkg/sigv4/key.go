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
