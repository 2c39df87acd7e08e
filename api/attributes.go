package api

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

type objectPartXML struct {
	PartNumber int   `xml:"PartNumber"`
	Size       int64 `xml:"Size"`
	checksumFields
}

type objectPartsXML struct {
	TotalPartsCount      int             `xml:"PartsCount"`
	PartNumberMarker     int             `xml:"PartNumberMarker"`
	NextPartNumberMarker int             `xml:"NextPartNumberMarker"`
	MaxParts             int             `xml:"MaxParts"`
	IsTruncated          bool            `xml:"IsTruncated"`
	Parts                []objectPartXML `xml:"Part"`
}

type checksumXML struct {
	checksumFields
	ChecksumType string `xml:"ChecksumType,omitempty"`
}

type getObjectAttributesResponse struct {
	XMLName      xml.Name        `xml:"GetObjectAttributesResponse"`
	NS           string          `xml:"xmlns,attr"`
	ETag         string          `xml:"ETag,omitempty"`
	Checksum     *checksumXML    `xml:"Checksum,omitempty"`
	ObjectParts  *objectPartsXML `xml:"ObjectParts,omitempty"`
	StorageClass string          `xml:"StorageClass,omitempty"`
	ObjectSize   *int64          `xml:"ObjectSize,omitempty"`
}

// objectAttributes parses x-amz-object-attributes.
func objectAttributes(h http.Header) (map[string]bool, error) {
	want := map[string]bool{}
	for _, v := range h.Values("X-Amz-Object-Attributes") {
		for _, a := range strings.Split(v, ",") {
			a = strings.TrimSpace(a)
			switch a {
			case "ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize":
				want[a] = true
			case "":
			default:
				return nil, s3err.Newf(s3err.InvalidArgument, "Invalid attribute name specified.").With("ArgumentName", "x-amz-object-attributes")
			}
		}
	}
	if len(want) == 0 {
		return nil, s3err.Newf(s3err.InvalidArgument, "Invalid attribute name specified.").With("ArgumentName", "x-amz-object-attributes")
	}
	return want, nil
}

// getObjectAttributes answers GetObjectAttributes.
func (s *Server) getObjectAttributes(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := checkVersionID(r.URL.Query()); err != nil {
		return err
	}
	want, err := objectAttributes(r.Header)
	if err != nil {
		return err
	}
	maxParts, marker := 1000, 0
	if v := r.Header.Get("X-Amz-Max-Parts"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return s3err.Newf(s3err.InvalidArgument, "Invalid max-parts").With("ArgumentName", "x-amz-max-parts")
		}
		maxParts = min(n, 1000)
	}
	if v := r.Header.Get("X-Amz-Part-Number-Marker"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return s3err.Newf(s3err.InvalidArgument, "Invalid part-number-marker").With("ArgumentName", "x-amz-part-number-marker")
		}
		marker = n
	}
	o, err := s.layer.StatObject(rq.bucket, rq.key)
	if err != nil {
		return err
	}
	out := getObjectAttributesResponse{NS: s3NS}
	if want["ETag"] {
		out.ETag = o.ETag
	}
	if want["StorageClass"] {
		out.StorageClass = "STANDARD"
	}
	if want["ObjectSize"] {
		size := o.Size
		out.ObjectSize = &size
	}
	if want["Checksum"] && len(o.Checksums) > 0 {
		c := o.Checksums[0]
		out.Checksum = &checksumXML{ChecksumType: c.Type}
		out.Checksum.set(c.Algorithm, c.Value)
	}
	if want["ObjectParts"] && o.PartsCount > 0 {
		parts := &objectPartsXML{TotalPartsCount: o.PartsCount, PartNumberMarker: marker, MaxParts: maxParts}
		alg := ""
		if len(o.Checksums) > 0 {
			alg = o.Checksums[0].Algorithm
		}
		for i := marker; i < len(o.Parts); i++ {
			if len(parts.Parts) == maxParts {
				parts.IsTruncated = true
				break
			}
			p := objectPartXML{PartNumber: i + 1, Size: o.Parts[i].Size}
			p.set(alg, o.Parts[i].Checksum)
			parts.Parts = append(parts.Parts, p)
			parts.NextPartNumberMarker = i + 1
		}
		out.ObjectParts = parts
	}
	w.Header().Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	return writeXML(w, http.StatusOK, out)
}
