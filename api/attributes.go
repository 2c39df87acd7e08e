package api

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

type objectPartXML struct {
	PartNumber int   `xml:"PartNumber"`
	Size       int64 `xml:"Size"`
	checksumFields
}

// objectPartsXML is ObjectParts. The paging fields are pointers because
// S3 leaves them out, with the parts, for an object whose parts carry no
// checksum; it then answers only PartsCount.
type objectPartsXML struct {
	TotalPartsCount      int             `xml:"PartsCount"`
	PartNumberMarker     *int            `xml:"PartNumberMarker,omitempty"`
	NextPartNumberMarker *int            `xml:"NextPartNumberMarker,omitempty"`
	MaxParts             *int            `xml:"MaxParts,omitempty"`
	IsTruncated          *bool           `xml:"IsTruncated,omitempty"`
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
	id, err := versionParam(rq.queryOf(r))
	if err != nil {
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
	ck, err := parseCustomerKey(r.Header, customerPrefix)
	defer ck.wipe()
	if err != nil {
		return err
	}
	if err := s.secureSSEC(r, ck); err != nil {
		return err
	}
	o, err := s.layer.StatVersion(rq.bucket, rq.key, id)
	if err != nil {
		return err
	}
	// An SSE-C object's attributes need its key, as in S3.
	if err := s.layer.CheckCustomerKey(&o, ck.bytes()); err != nil {
		return err
	}
	s.setVersionID(w.Header(), rq, o.VersionID)
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
		out.Checksum.set(c.Algorithm, compositeDigest(c.Value))
	}
	if want["ObjectParts"] && o.PartsCount > 0 {
		out.ObjectParts = &objectPartsXML{TotalPartsCount: o.PartsCount}
		// An object uploaded without an additional checksum keeps no
		// part checksums (CompleteMultipartUpload), and S3 lists no parts.
		if partsHaveChecksums(o.Parts) && len(o.Checksums) > 0 {
			out.ObjectParts = listObjectParts(o.PartsCount, o.Parts, o.Checksums[0].Algorithm, marker, maxParts)
		}
	}
	w.Header().Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	return writeXML(w, http.StatusOK, out)
}

// compositeDigest is a checksum value as GetObjectAttributes answers it:
// a composite checksum without the "-N" part count that CompleteMultipartUpload,
// GetObject and HeadObject append, as S3 answers it (the count is
// ObjectParts' TotalPartsCount).
func compositeDigest(v string) string {
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		if _, err := strconv.Atoi(v[i+1:]); err == nil {
			return v[:i]
		}
	}
	return v
}

// partsHaveChecksums reports whether every part kept a checksum, that is
// whether the object was uploaded with an additional checksum: only then
// does S3 list the parts in ObjectParts.
func partsHaveChecksums(parts []metadata.PartInfo) bool {
	for _, p := range parts {
		if p.Checksum == "" {
			return false
		}
	}
	return len(parts) > 0
}

// listObjectParts is the ObjectParts page of up to maxParts parts after
// part number marker, each with its checksum in algorithm alg.
func listObjectParts(total int, parts []metadata.PartInfo, alg string, marker, maxParts int) *objectPartsXML {
	out := &objectPartsXML{TotalPartsCount: total, PartNumberMarker: &marker, MaxParts: &maxParts, IsTruncated: new(bool)}
	next := 0
	// max-parts 0 is an empty page that says it is complete, as ListParts
	// answers it: a truncated one would name the same marker again.
	for i := marker; i < len(parts) && maxParts > 0; i++ {
		if len(out.Parts) == maxParts {
			*out.IsTruncated = true
			break
		}
		p := objectPartXML{PartNumber: i + 1, Size: parts[i].Size}
		p.set(alg, parts[i].Checksum)
		out.Parts = append(out.Parts, p)
		next = i + 1
	}
	out.NextPartNumberMarker = &next
	return out
}
