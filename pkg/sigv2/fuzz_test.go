package sigv2

import (
	"errors"
	"testing"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// FuzzParseAuthorization checks the Authorization header parser on
// untrusted input: it never panics, every refusal is an *s3err.Error,
// and what it accepts round-trips to the same access key and signature.
func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{
		"AWS AKIAIOSFODNN7EXAMPLE:bWq2s1WEIj+Ydj0vQ697zp+IXMU=", // a valid header
		"AWS AKIAIOSFODNN7EXAMPLE:",                             // empty signature
		"AWS :sig",                                              // empty access key
		"AWS a:b:c",                                             // a colon in the signature
		"AWS  a:b ",                                             // extra spaces
		"AWS4-HMAC-SHA256 Credential=a/b",                       // the other version
		"AWS",                                                   // prefix only
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ak, sig, err := ParseAuthorization(s)
		if err != nil {
			var e *s3err.Error
			if !errors.As(err, &e) || e.Code != s3err.InvalidArgument {
				t.Fatalf("ParseAuthorization(%q) error %v is not InvalidArgument", s, err)
			}
			return
		}
		if ak == "" || sig == "" {
			t.Fatalf("ParseAuthorization(%q) accepted an empty part", s)
		}
		ak2, sig2, err := ParseAuthorization("AWS " + ak + ":" + sig)
		if err != nil || ak2 != ak || sig2 != sig {
			t.Fatalf("round trip of %q: %q %q %v", s, ak2, sig2, err)
		}
	})
}
