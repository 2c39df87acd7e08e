package postpolicy

import (
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// FuzzParse checks that Parse never panics and fails only with
// InvalidPolicyDocument, and that Check on an accepted policy fails only
// with AccessDenied.
func FuzzParse(f *testing.F) {
	f.Add([]byte(doc), "user/eric/x")                                                                   // every condition type
	f.Add([]byte(`{"expiration":"2026-03-01T13:00:00Z","conditions":[["starts-with","$key",""]]}`), "") // anything goes
	f.Add([]byte(`{"expiration":"2026-03-01T13:00:00Z","conditions":[["content-length-range",0,9223372036854775807]]}`), "k")
	f.Add([]byte(`{"expiration":null,"conditions":null}`), "k")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		p, err := Parse(data)
		if err != nil {
			if c := s3err.As(err).Code; c != s3err.InvalidPolicyDocument {
				t.Fatalf("Parse error code %s", c)
			}
			return
		}
		if lo, hi, ok := p.Range(); ok && (lo < 0 || hi < lo) {
			t.Fatalf("Range %d..%d", lo, hi)
		}
		err = p.Check(now, map[string]string{"key": key, "bucket": "b"}, "bucket")
		if err != nil && s3err.As(err).Code != s3err.AccessDenied {
			t.Fatalf("Check error code %s", s3err.As(err).Code)
		}
	})
}
