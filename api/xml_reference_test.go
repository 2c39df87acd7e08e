package api

import (
	"encoding/xml"
	"errors"
	"github.com/objectgateway/objectgateway/pkg/access"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/checksum"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/sse"
)

// This file keeps the parsers of request documents as they were before
// they read token by token: xml.Unmarshal into structs. The fuzz targets
// check the streaming parsers against them (same answer, same values) for
// every document within the limits the streaming parsers add.

// beyondStreamingLimits reports whether err is one of the answers only the
// streaming parsers give: too many tokens, too deep a nesting, or limit,
// the answer to more of an element than S3 allows (nil when the old parser
// gave the same answer, whatever followed).
func beyondStreamingLimits(err, limit error) bool {
	if errors.Is(err, errXMLTokens) || errors.Is(err, errXMLDepth) {
		return true
	}
	return err != nil && limit != nil && sameAnswer(err, limit)
}

func referenceDeleteRequest(body []byte) (deleteRequest, error) {
	var in struct {
		XMLName xml.Name `xml:"Delete"`
		Quiet   bool     `xml:"Quiet"`
		Objects []struct {
			Key              string  `xml:"Key"`
			VersionID        *string `xml:"VersionId"`
			ETag             string  `xml:"ETag"`
			LastModifiedTime string  `xml:"LastModifiedTime"`
			Size             string  `xml:"Size"`
		} `xml:"Object"`
	}
	if err := xml.Unmarshal(body, &in); err != nil {
		return deleteRequest{}, s3err.Wrap(s3err.MalformedXML, err)
	}
	if len(in.Objects) == 0 || len(in.Objects) > maxDeleteKeys {
		return deleteRequest{}, s3err.New(s3err.MalformedXML)
	}
	req := deleteRequest{Quiet: in.Quiet}
	for _, o := range in.Objects {
		d := deleteObject{Key: o.Key, ETag: o.ETag, LastModifiedTime: o.LastModifiedTime, Size: o.Size}
		if o.VersionID != nil {
			d.VersionID, d.HasVersionID = *o.VersionID, true
		}
		req.Objects = append(req.Objects, d)
	}
	return req, nil
}

// referenceCompleteRequest is the old parser followed by the part count
// check the object layer made before any other.
func referenceCompleteRequest(body []byte) ([]object.CompletePart, error) {
	var req struct {
		XMLName xml.Name `xml:"CompleteMultipartUpload"`
		Parts   []struct {
			PartNumber int    `xml:"PartNumber"`
			ETag       string `xml:"ETag"`
			checksumFields
		} `xml:"Part"`
	}
	if err := xml.Unmarshal(body, &req); err != nil {
		return nil, s3err.Wrap(s3err.MalformedXML, err)
	}
	if len(req.Parts) == 0 {
		return nil, s3err.Newf(s3err.MalformedXML, "You must specify at least one part")
	}
	if len(req.Parts) > object.MaxParts {
		return nil, s3err.Newf(s3err.InvalidArgument, "Part number must be an integer between 1 and 10000, inclusive")
	}
	parts := make([]object.CompletePart, len(req.Parts))
	for i, p := range req.Parts {
		parts[i] = object.CompletePart{Number: p.PartNumber, ETag: p.ETag}
		for _, alg := range checksum.Algorithms() {
			if v := p.value(alg.String()); v != "" {
				if parts[i].Checksums == nil {
					parts[i].Checksums = map[string]string{}
				}
				parts[i].Checksums[alg.String()] = v
			}
		}
	}
	return parts, nil
}

func referenceTags(body []byte, max int, kind string) ([]metadata.KV, error) {
	var t struct {
		XMLName xml.Name `xml:"Tagging"`
		TagSet  *struct {
			Tags []tagXML `xml:"Tag"`
		} `xml:"TagSet"`
	}
	if err := xml.Unmarshal(body, &t); err != nil {
		return nil, s3err.Wrap(s3err.MalformedXML, err)
	}
	if t.TagSet == nil {
		return nil, s3err.Wrap(s3err.MalformedXML, errNoTagSet)
	}
	tags := make([]metadata.KV, 0, len(t.TagSet.Tags))
	for _, x := range t.TagSet.Tags {
		tags = append(tags, metadata.KV{Key: x.Key, Value: x.Value})
	}
	if err := validTagSet(tags, max, kind); err != nil {
		return nil, err
	}
	sortKVs(tags)
	return tags, nil
}

// referenceACLBody reads an AccessControlPolicy with xml.Unmarshal: the
// owner's ID ("" if none) and the grants, as readACLBody must read them.
func referenceACLBody(body []byte) (owner string, grants []access.BodyGrant, err error) {
	var in struct {
		XMLName xml.Name `xml:"AccessControlPolicy"`
		Owner   *struct {
			ID string `xml:"ID"`
		} `xml:"Owner"`
		Grants []struct {
			Grantee struct {
				Attrs []xml.Attr `xml:",any,attr"`
				ID    string     `xml:"ID"`
				URI   string     `xml:"URI"`
				Email string     `xml:"EmailAddress"`
			} `xml:"Grantee"`
			Permission string `xml:"Permission"`
		} `xml:"AccessControlList>Grant"`
	}
	if err := xml.Unmarshal(body, &in); err != nil {
		return "", nil, s3err.Wrap(s3err.MalformedXML, err)
	}
	if len(in.Grants) > maxACLGrants {
		return "", nil, s3err.New(s3err.MalformedACLError)
	}
	if in.Owner != nil {
		owner = in.Owner.ID
	}
	for _, g := range in.Grants {
		bg := access.BodyGrant{ID: g.Grantee.ID, URI: g.Grantee.URI, Email: g.Grantee.Email, Permission: g.Permission}
		for _, a := range g.Grantee.Attrs {
			if a.Name.Local == "type" {
				bg.Type = a.Value
			}
		}
		grants = append(grants, bg)
	}
	return owner, grants, nil
}

func referenceLocationConstraint(body []byte) (string, error) {
	var cfg struct {
		XMLName            xml.Name `xml:"CreateBucketConfiguration"`
		LocationConstraint string   `xml:"LocationConstraint"`
	}
	if err := xml.Unmarshal(body, &cfg); err != nil {
		return "", s3err.Wrap(s3err.MalformedXML, err)
	}
	return cfg.LocationConstraint, nil
}

// sameAnswer reports whether two parsers' errors are the same S3 answer:
// both nil, or the same code and message.
func sameAnswer(got, want error) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	g, w := s3err.As(got), s3err.As(want)
	return g.Code == w.Code && g.Text() == w.Text()
}

// referenceEncryptionConfig reads a PutBucketEncryption body with
// xml.Unmarshal into encryptionConfig, as parseEncryptionConfig must read
// it.
func referenceEncryptionConfig(body []byte) (alg, keyID string, bucketKey bool, err error) {
	var c encryptionConfig
	if xml.Unmarshal(body, &c) != nil || len(c.Rules) != 1 || c.Rules[0].Default == nil {
		return "", "", false, s3err.New(s3err.MalformedXML)
	}
	r := c.Rules[0]
	if r.BucketKeyEnabled != nil {
		bucketKey = *r.BucketKeyEnabled
	}
	switch d := r.Default; d.SSEAlgorithm {
	case sse.AES256:
		if d.KMSMasterKeyID != "" {
			return "", "", false, s3err.Newf(s3err.InvalidArgument, "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms")
		}
		return sse.AES256, "", bucketKey, nil
	case sse.KMS:
		return sse.KMS, kmsKeyName(d.KMSMasterKeyID), bucketKey, nil
	case "aws:kms:dsse":
		return "", "", false, s3err.Newf(s3err.NotImplemented, "Dual-layer server-side encryption (aws:kms:dsse) is not supported; use aws:kms.")
	}
	return "", "", false, s3err.New(s3err.MalformedXML)
}
