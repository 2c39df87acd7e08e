package api

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/kms"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// The SSE-C header sets: a request's own object, and a copy's source.
const (
	customerPrefix = "X-Amz-Server-Side-Encryption-Customer-"
	copyPrefix     = "X-Amz-Copy-Source-Server-Side-Encryption-Customer-"
)

// customerKey is an SSE-C key as sent: the key and its MD5 (base64), which
// responses echo.
type customerKey struct {
	key []byte
	md5 string
}

// parseCustomerKey parses the SSE-C headers under prefix: none is a nil
// key; an algorithm other than AES256, a key that is not 256 bits of
// base64 or an MD5 that is not the key's are InvalidArgument, as S3.
func parseCustomerKey(h http.Header, prefix string) (*customerKey, error) {
	alg, key, sum := h.Get(prefix+"Algorithm"), h.Get(prefix+"Key"), h.Get(prefix+"Key-Md5")
	if alg == "" && key == "" && sum == "" {
		return nil, nil
	}
	arg := strings.ToLower(prefix)
	if alg == "" {
		return nil, s3err.Newf(s3err.InvalidArgument, "Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.").
			With("ArgumentName", "x-amz-server-side-encryption").With("ArgumentValue", "null")
	}
	if alg != "AES256" {
		return nil, s3err.Newf(s3err.InvalidArgument, "The encryption algorithm %q is not supported; SSE-C keys are AES256.", alg).
			With("ArgumentName", arg+"algorithm")
	}
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(k) != 32 {
		return nil, s3err.Newf(s3err.InvalidArgument, "The secret key was invalid for the specified algorithm.").
			With("ArgumentName", arg+"key")
	}
	want := md5.Sum(k)
	if sum == "" {
		return nil, s3err.Newf(s3err.InvalidArgument, "Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.").
			With("ArgumentName", arg+"key-MD5")
	}
	if got, err := base64.StdEncoding.DecodeString(sum); err != nil || string(got) != string(want[:]) {
		return nil, s3err.Newf(s3err.InvalidArgument, "The calculated MD5 hash of the key did not match the hash that was provided.").
			With("ArgumentName", arg+"key-MD5")
	}
	// The MD5 answers carry is the key's, in canonical base64: a client's
	// encoding with non-zero padding bits ("…MX==" for "…MQ==") decodes to
	// the same digest and is accepted, but is not echoed.
	return &customerKey{key: k, md5: base64.StdEncoding.EncodeToString(want[:])}, nil
}

// bytes is the key, nil for none.
func (c *customerKey) bytes() []byte {
	if c == nil {
		return nil
	}
	return c.key
}

// wipe zeroes the key once the request no longer needs it.
func (c *customerKey) wipe() {
	if c != nil {
		sse.Wipe(c.key)
	}
}

// secureSSEC refuses an SSE-C key sent over plain HTTP, as S3 does (the key
// would have crossed the network in clear), unless the gateway was started
// with --allow-insecure-sse-c for a test setup.
func (s *Server) secureSSEC(r *http.Request, ck *customerKey) error {
	if ck == nil || r.TLS != nil || s.opts.AllowInsecureSSEC {
		return nil
	}
	return s3err.Newf(s3err.InvalidRequest, "Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection.")
}

// parseWriteEncryption parses the encryption a write asks for: SSE-S3
// (x-amz-server-side-encryption: AES256), SSE-KMS (aws:kms, with
// x-amz-server-side-encryption-aws-kms-key-id and -context), or SSE-C.
// The returned request holds the customer key, if any; the caller wipes
// it with ck.wipe.
func parseWriteEncryption(h http.Header) (sse.Request, *customerKey, error) {
	ck, err := parseCustomerKey(h, customerPrefix)
	if err != nil {
		return sse.Request{}, nil, err
	}
	alg := h.Get("X-Amz-Server-Side-Encryption")
	keyID := h.Get("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id")
	ctx := h.Get("X-Amz-Server-Side-Encryption-Context")
	if ck != nil {
		if alg != "" {
			return sse.Request{}, nil, s3err.Newf(s3err.InvalidArgument, "Server Side Encryption with Customer provided key is incompatible with the encryption method specified").
				With("ArgumentName", "x-amz-server-side-encryption").With("ArgumentValue", alg)
		}
		return sse.Request{Algorithm: sse.Customer, CustomerKey: ck.key}, ck, nil
	}
	if alg != sse.KMS && alg != "aws:kms:dsse" && (keyID != "" || ctx != "") {
		return sse.Request{}, nil, s3err.Newf(s3err.InvalidArgument, "Specifying a KMS key id or an encryption context is only valid with x-amz-server-side-encryption: aws:kms.").
			With("ArgumentName", "x-amz-server-side-encryption")
	}
	switch alg {
	case "":
		return sse.Request{}, nil, nil
	case sse.AES256:
		return sse.Request{Algorithm: sse.AES256}, nil, nil
	case sse.KMS:
		if ctx != "" {
			if err := checkEncryptionContext(ctx); err != nil {
				return sse.Request{}, nil, err
			}
		}
		return sse.Request{Algorithm: sse.KMS, KeyID: kmsKeyName(keyID), Context: ctx}, nil, nil
	case "aws:kms:dsse":
		return sse.Request{}, nil, s3err.Newf(s3err.NotImplemented, "Dual-layer server-side encryption (aws:kms:dsse) is not supported; use aws:kms.")
	}
	return sse.Request{}, nil, s3err.Newf(s3err.InvalidArgument, "The encryption method specified is not supported").
		With("ArgumentName", "x-amz-server-side-encryption").With("ArgumentValue", alg)
}

// kmsKeyName is the key-ring name a key id designates: the id itself, or
// the part after "key/" of an ARN; no id is the ring's default key, as
// S3 uses the account's aws/s3 key.
func kmsKeyName(id string) string {
	if id == "" {
		return kms.DefaultKey
	}
	if strings.HasPrefix(id, "arn:") {
		if i := strings.LastIndex(id, ":key/"); i >= 0 {
			return id[i+len(":key/"):]
		}
	}
	return id
}

// checkEncryptionContext accepts base64 of a JSON object of strings.
func checkEncryptionContext(v string) error {
	b, err := base64.StdEncoding.DecodeString(v)
	var m map[string]string
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		return s3err.Newf(s3err.InvalidArgument, "The encryption context is not base64-encoded JSON of string pairs.").
			With("ArgumentName", "x-amz-server-side-encryption-context")
	}
	return nil
}

// bucketKeyHeader is S3's x-amz-server-side-encryption-bucket-key-enabled.
const bucketKeyHeader = "X-Amz-Server-Side-Encryption-Bucket-Key-Enabled"

// parseBucketKey parses x-amz-server-side-encryption-bucket-key-enabled:
// set reports whether it was sent; a value other than true or false is
// InvalidArgument.
func parseBucketKey(h http.Header) (on, set bool, err error) {
	v := h.Get(bucketKeyHeader)
	switch strings.ToLower(v) {
	case "":
		return false, false, nil
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, s3err.Newf(s3err.InvalidArgument, "Invalid value for x-amz-server-side-encryption-bucket-key-enabled: must be true or false.").
		With("ArgumentName", strings.ToLower(bucketKeyHeader)).With("ArgumentValue", v)
}

// writeEncryption is the encryption of a PutObject, POST upload or
// CreateMultipartUpload whose headers (or form fields) are h: its own (parseWriteEncryption), SSE-C
// only over TLS (secureSSEC), else the bucket's default. The caller wipes
// the customer key.
func (s *Server) writeEncryption(r *http.Request, rq *request, h http.Header) (sse.Request, *customerKey, error) {
	enc, ck, err := parseWriteEncryption(h)
	if err != nil {
		return enc, ck, err
	}
	if err := s.secureSSEC(r, ck); err != nil {
		return enc, ck, err
	}
	enc, err = s.defaultEncryption(rq, enc, h)
	return enc, ck, err
}

// copyEncryption parses a CopyObject's encryption: the destination's, as
// PutObject's, and the SSE-C key of the source
// (x-amz-copy-source-server-side-encryption-customer-*), both refused over
// plain HTTP (secureSSEC). The caller wipes both keys.
func (s *Server) copyEncryption(r *http.Request, rq *request) (sse.Request, *customerKey, *customerKey, error) {
	enc, ck, err := parseWriteEncryption(r.Header)
	if err != nil {
		return enc, ck, nil, err
	}
	srcKey, err := parseCustomerKey(r.Header, copyPrefix)
	if err != nil {
		return enc, ck, srcKey, err
	}
	if err := s.secureSSEC(r, ck); err != nil {
		return enc, ck, srcKey, err
	}
	if err := s.secureSSEC(r, srcKey); err != nil {
		return enc, ck, srcKey, err
	}
	enc, err = s.defaultEncryption(rq, enc, r.Header)
	return enc, ck, srcKey, err
}

// partCustomerKey parses the SSE-C key of an UploadPart (or the
// destination's of an UploadPartCopy), refused over plain HTTP
// (secureSSEC). The caller wipes it.
func (s *Server) partCustomerKey(r *http.Request, prefix string) (*customerKey, error) {
	ck, err := parseCustomerKey(r.Header, prefix)
	if err != nil {
		return ck, err
	}
	return ck, s.secureSSEC(r, ck)
}

// setEncryptionHeaders writes the x-amz-server-side-encryption* headers S3
// answers for an object stored with enc; ck is the SSE-C key the request
// sent, whose MD5 is echoed.
func setEncryptionHeaders(h http.Header, enc metadata.Encryption, ck *customerKey) {
	switch enc.Algorithm {
	case sse.AES256:
		h.Set("X-Amz-Server-Side-Encryption", sse.AES256)
	case sse.KMS:
		h.Set("X-Amz-Server-Side-Encryption", sse.KMS)
		h.Set("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", enc.KeyID)
		if enc.Context != "" {
			h.Set("X-Amz-Server-Side-Encryption-Context", enc.Context)
		}
		if enc.BucketKey {
			h.Set(bucketKeyHeader, "true")
		}
	case sse.Customer:
		h.Set(customerPrefix+"Algorithm", "AES256")
		if ck != nil {
			h.Set(customerPrefix+"Key-Md5", ck.md5)
		}
	}
}
