package api

import (
	"encoding/xml"
	"errors"
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// maxEncryptionConfig bounds a PutBucketEncryption body.
const maxEncryptionConfig = 64 << 10

// encryptionConfig is S3's ServerSideEncryptionConfiguration.
type encryptionConfig struct {
	XMLName xml.Name         `xml:"ServerSideEncryptionConfiguration"`
	NS      string           `xml:"xmlns,attr,omitempty"`
	Rules   []encryptionRule `xml:"Rule"`
}

type encryptionRule struct {
	Default *struct {
		SSEAlgorithm   string `xml:"SSEAlgorithm"`
		KMSMasterKeyID string `xml:"KMSMasterKeyID,omitempty"`
	} `xml:"ApplyServerSideEncryptionByDefault"`
	BucketKeyEnabled *bool `xml:"BucketKeyEnabled"`
}

// routeEncryption names PutBucketEncryption, GetBucketEncryption and
// DeleteBucketEncryption; ok is false for anything else.
func (s *Server) routeEncryption(method string, lv level, sub string) (operation, bool) {
	if lv != levelBucket || sub != "encryption" {
		return operation{}, false
	}
	switch method {
	case http.MethodPut:
		return operation{"PutBucketEncryption", s.putBucketEncryption}, true
	case http.MethodGet:
		return operation{"GetBucketEncryption", s.getBucketEncryption}, true
	case http.MethodDelete:
		return operation{"DeleteBucketEncryption", s.deleteBucketEncryption}, true
	}
	return operation{}, false
}

// encryptionDoc is a ServerSideEncryptionConfiguration as the request
// wrote it, before its values are checked: its number of Rules and the
// values of the first. Repeated elements are read as xml.Unmarshal reads
// them into encryptionConfig: the last value of each is kept.
type encryptionDoc struct {
	rules            int
	hasDefault       bool
	sseAlgorithm     string
	kmsMasterKeyID   string
	bucketKeyEnabled bool
}

// errEncryptionRules is the cause of the MalformedXML of a configuration
// with other than one Rule, or one without its default.
var errEncryptionRules = errors.New("a ServerSideEncryptionConfiguration has one Rule with an ApplyServerSideEncryptionByDefault")

// readEncryptionConfig reads a PutBucketEncryption body with the bounded
// reader of every request document (xmlDoc): a document with more tokens
// or deeper nesting than any valid one, or a second Rule, is MalformedXML
// as soon as it is read.
func readEncryptionConfig(body []byte) (doc encryptionDoc, err error) {
	x := newXMLDoc(body, maxConfigTokens)
	if err := x.root("ServerSideEncryptionConfiguration"); err != nil {
		return doc, err
	}
	err = x.elements(func(e xml.StartElement) error {
		if e.Name.Local != "Rule" {
			return x.skip()
		}
		if doc.rules++; doc.rules > 1 {
			return malformed(errEncryptionRules)
		}
		return x.elements(func(e xml.StartElement) error {
			var err error
			switch e.Name.Local {
			case "ApplyServerSideEncryptionByDefault":
				doc.hasDefault = true
				err = x.elements(func(e xml.StartElement) error {
					var err error
					switch e.Name.Local {
					case "SSEAlgorithm":
						doc.sseAlgorithm, err = x.text()
					case "KMSMasterKeyID":
						doc.kmsMasterKeyID, err = x.text()
					default:
						err = x.skip()
					}
					return err
				})
			case "BucketKeyEnabled":
				var v string
				if v, err = x.text(); err == nil {
					doc.bucketKeyEnabled, err = xmlBool(v)
				}
			default:
				err = x.skip()
			}
			return err
		})
	})
	return doc, err
}

// parseEncryptionConfig reads a PutBucketEncryption body: one rule whose
// default is AES256, or aws:kms with an optional key id (an existing
// key-ring key, checked by the caller); aws:kms:dsse is NotImplemented.
func parseEncryptionConfig(body []byte) (alg, keyID string, bucketKey bool, err error) {
	d, err := readEncryptionConfig(body)
	if err != nil {
		return "", "", false, err
	}
	if d.rules != 1 || !d.hasDefault {
		return "", "", false, malformed(errEncryptionRules)
	}
	bucketKey = d.bucketKeyEnabled
	switch d.sseAlgorithm {
	case sse.AES256:
		if d.kmsMasterKeyID != "" {
			return "", "", false, s3err.Newf(s3err.InvalidArgument, "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms").
				With("ArgumentName", "ApplyServerSideEncryptionByDefault")
		}
		return sse.AES256, "", bucketKey, nil
	case sse.KMS:
		return sse.KMS, kmsKeyName(d.kmsMasterKeyID), bucketKey, nil
	case "aws:kms:dsse":
		return "", "", false, s3err.Newf(s3err.NotImplemented, "Dual-layer server-side encryption (aws:kms:dsse) is not supported; use aws:kms.")
	}
	return "", "", false, s3err.New(s3err.MalformedXML)
}

// putBucketEncryption answers PutBucketEncryption.
func (s *Server) putBucketEncryption(w http.ResponseWriter, r *http.Request, rq *request) error {
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	body, err := s.readBody(r, rq, maxEncryptionConfig)
	if err != nil {
		return err
	}
	alg, keyID, bucketKey, err := parseEncryptionConfig(body)
	if err != nil {
		return err
	}
	if alg == sse.KMS {
		ring, err := s.layer.KeyRing()
		if err != nil {
			return err
		}
		if ring.Exists(keyID) != nil {
			return s3err.Newf(s3err.InvalidArgument, "The KMS key %q does not exist or is disabled.", keyID).
				With("ArgumentName", "KMSMasterKeyID")
		}
	}
	err = s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.SSEAlgorithm, b.SSEKeyID, b.SSEBucketKey = alg, keyID, bucketKey
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// getBucketEncryption answers GetBucketEncryption, or
// ServerSideEncryptionConfigurationNotFoundError.
func (s *Server) getBucketEncryption(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.SSEAlgorithm == "" {
		return s3err.New(s3err.ServerSideEncryptionConfigurationNotFoundError).With("BucketName", rq.bucket)
	}
	rule := encryptionRule{BucketKeyEnabled: &b.SSEBucketKey}
	rule.Default = &struct {
		SSEAlgorithm   string `xml:"SSEAlgorithm"`
		KMSMasterKeyID string `xml:"KMSMasterKeyID,omitempty"`
	}{b.SSEAlgorithm, b.SSEKeyID}
	return writeXML(w, http.StatusOK, encryptionConfig{NS: s3NS, Rules: []encryptionRule{rule}})
}

// deleteBucketEncryption answers DeleteBucketEncryption: 204 whether or
// not there was a configuration.
func (s *Server) deleteBucketEncryption(w http.ResponseWriter, r *http.Request, rq *request) error {
	err := s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.SSEAlgorithm, b.SSEKeyID, b.SSEBucketKey = "", "", false
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// defaultEncryption is the encryption of a write that asked for none: the
// bucket's default encryption, if any. Its BucketKey is what the write's
// x-amz-server-side-encryption-bucket-key-enabled (h) says, else the
// bucket default's BucketKeyEnabled when the bucket's default is SSE-KMS,
// as S3 applies a bucket's S3 Bucket Key setting to its SSE-KMS writes.
func (s *Server) defaultEncryption(rq *request, req sse.Request, h http.Header) (sse.Request, error) {
	on, set, err := parseBucketKey(h)
	if err != nil {
		return req, err
	}
	b, err := s.bucketRecord(rq)
	if err != nil {
		if req.Algorithm != "" {
			req.BucketKey = on
			return req, nil
		}
		return req, err
	}
	if req.Algorithm == "" {
		req = sse.Request{Algorithm: b.SSEAlgorithm, KeyID: b.SSEKeyID}
	}
	req.BucketKey = on
	if !set {
		req.BucketKey = b.SSEBucketKey && b.SSEAlgorithm == sse.KMS
	}
	return req, nil
}
