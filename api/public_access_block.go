package api

import (
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// publicAccessBlockBits are the settings of a PublicAccessBlockConfiguration
// in document order, with their bits in Bucket.PublicAccessBlock.
var publicAccessBlockBits = []struct {
	name string
	bit  uint8
}{
	{"BlockPublicAcls", metadata.BlockPublicAcls},
	{"IgnorePublicAcls", metadata.IgnorePublicAcls},
	{"BlockPublicPolicy", metadata.BlockPublicPolicy},
	{"RestrictPublicBuckets", metadata.RestrictPublicBuckets},
}

// parsePublicAccessBlock reads a PublicAccessBlockConfiguration into
// Bucket.PublicAccessBlock bits. A setting left out is false, as in S3; a
// value other than true or false is MalformedXML.
func parsePublicAccessBlock(body []byte) (uint8, error) {
	bits := metadata.PublicAccessBlockSet
	x := newXMLDoc(body, maxConfigTokens)
	if err := x.root("PublicAccessBlockConfiguration"); err != nil {
		return 0, err
	}
	err := x.elements(func(e xml.StartElement) error {
		for _, s := range publicAccessBlockBits {
			if e.Name.Local != s.name {
				continue
			}
			v, err := x.text()
			switch {
			case err != nil:
				return err
			case v == "true":
				bits |= s.bit
			case v != "false":
				return s3err.New(s3err.MalformedXML)
			}
			return nil
		}
		return x.skip()
	})
	return bits, err
}

// appendPublicAccessBlock renders Bucket.PublicAccessBlock bits as S3's
// PublicAccessBlockConfiguration.
func appendPublicAccessBlock(b []byte, bits uint8) []byte {
	b = append(b, `<PublicAccessBlockConfiguration xmlns="`+s3NS+`">`...)
	for _, s := range publicAccessBlockBits {
		v := "false"
		if bits&s.bit != 0 {
			v = "true"
		}
		b = append(b, "<"+s.name+">"+v+"</"+s.name+">"...)
	}
	return append(b, "</PublicAccessBlockConfiguration>"...)
}

// blockOf returns a bucket's Block Public Access settings for pkg/access.
func blockOf(b object.Bucket) access.PublicAccessBlock {
	bits := b.PublicAccessBlock
	return access.PublicAccessBlock{
		BlockPublicAcls:       bits&metadata.BlockPublicAcls != 0,
		IgnorePublicAcls:      bits&metadata.IgnorePublicAcls != 0,
		BlockPublicPolicy:     bits&metadata.BlockPublicPolicy != 0,
		RestrictPublicBuckets: bits&metadata.RestrictPublicBuckets != 0,
	}
}

// putPublicAccessBlock answers PutPublicAccessBlock: the configuration
// replaces the bucket's, and is in force from the next request.
func (s *Server) putPublicAccessBlock(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := s.bucketID(rq)
	body, err := s.readBody(r, rq, maxBucketConfigBody)
	if err != nil {
		return err
	}
	bits, err := parsePublicAccessBlock(body)
	if err != nil {
		return err
	}
	err = s.layer.UpdateBucket(rq.bucket, id, func(b *object.Bucket) error {
		b.PublicAccessBlock = bits
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// getPublicAccessBlock answers GetPublicAccessBlock, or
// NoSuchPublicAccessBlockConfiguration for a bucket that has none.
func (s *Server) getPublicAccessBlock(w http.ResponseWriter, r *http.Request, rq *request) error {
	b, err := s.layer.Bucket(rq.bucket)
	if err != nil {
		return err
	}
	if b.PublicAccessBlock == 0 {
		return s3err.New(s3err.NoSuchPublicAccessBlockConfiguration).With("BucketName", rq.bucket)
	}
	return writeRenderedXML(w, http.StatusOK, func(out []byte) []byte {
		return appendPublicAccessBlock(out, b.PublicAccessBlock)
	})
}

// deletePublicAccessBlock answers DeletePublicAccessBlock: 204 whether or
// not the bucket had a configuration, as S3 does.
func (s *Server) deletePublicAccessBlock(w http.ResponseWriter, r *http.Request, rq *request) error {
	err := s.layer.UpdateBucket(rq.bucket, s.bucketID(rq), func(b *object.Bucket) error {
		b.PublicAccessBlock = 0
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
