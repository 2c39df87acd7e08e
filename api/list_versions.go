package api

import (
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// nullVersion is the version id of every object: buckets are never
// versioned, and S3 names the only version of an object in an unversioned
// bucket "null".
const nullVersion = "null"

// listVersionsResult is ListObjectVersions' answer, rendered by
// appendListVersions.
type listVersionsResult struct {
	XMLName             xml.Name       `xml:"ListVersionsResult"`
	NS                  string         `xml:"xmlns,attr"`
	Name                string         `xml:"Name"`
	Prefix              string         `xml:"Prefix"`
	KeyMarker           string         `xml:"KeyMarker"`
	VersionIDMarker     string         `xml:"VersionIdMarker"`
	NextKeyMarker       string         `xml:"NextKeyMarker,omitempty"`
	NextVersionIDMarker string         `xml:"NextVersionIdMarker,omitempty"`
	MaxKeys             int            `xml:"MaxKeys"`
	Delimiter           string         `xml:"Delimiter,omitempty"`
	IsTruncated         bool           `xml:"IsTruncated"`
	EncodingType        string         `xml:"EncodingType,omitempty"`
	Versions            []versionEntry `xml:"Version"`
	CommonPrefixes      []commonPrefix `xml:"CommonPrefixes"`
}

type versionEntry struct {
	Key               string `xml:"Key"`
	VersionID         string `xml:"VersionId"`
	IsLatest          bool   `xml:"IsLatest"`
	LastModified      string `xml:"LastModified"`
	ETag              string `xml:"ETag"`
	ChecksumAlgorithm string `xml:"ChecksumAlgorithm,omitempty"`
	ChecksumType      string `xml:"ChecksumType,omitempty"`
	Size              int64  `xml:"Size"`
	Owner             owner  `xml:"Owner"`
	StorageClass      string `xml:"StorageClass"`
}

// listObjectVersions answers ListObjectVersions as S3 does for a bucket
// whose versioning was never enabled: each object is its only version,
// with version id "null", the latest, and there are no delete markers.
// Paging is by key (key-marker); a version-id-marker other than "null"
// names no version and is refused.
func (s *Server) listObjectVersions(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	keyMarker, versionMarker := q.Get("key-marker"), q.Get("version-id-marker")
	switch {
	case versionMarker != "" && keyMarker == "":
		return s3err.Newf(s3err.InvalidArgument, "A version-id marker cannot be specified without a key marker.").
			With("ArgumentName", "version-id-marker").With("ArgumentValue", versionMarker)
	case versionMarker != "" && versionMarker != nullVersion:
		return s3err.Newf(s3err.InvalidArgument, "Invalid version id specified").
			With("ArgumentName", "version-id-marker").With("ArgumentValue", versionMarker)
	}
	page, err := s.layer.ListObjects(rq.bucket, object.ListQuery{Prefix: p.prefix, Delimiter: p.delimiter, After: keyMarker, Limit: p.maxKeys, Brief: true})
	if err != nil {
		return err
	}
	out := listVersionsResult{
		NS: s3NS, Name: rq.bucket, Prefix: p.encode(p.prefix), KeyMarker: p.encode(keyMarker),
		VersionIDMarker: versionMarker, MaxKeys: p.maxKeys, Delimiter: p.encode(p.delimiter),
		IsTruncated: page.Truncated,
	}
	if p.encodeURL {
		out.EncodingType = "url"
	}
	if page.Truncated {
		out.NextKeyMarker = p.encode(page.Last)
		if n := len(page.Objects); n > 0 && page.Objects[n-1].Key == page.Last {
			out.NextVersionIDMarker = nullVersion
		}
	}
	own := ownerOf(rq.accessKey)
	out.Versions = make([]versionEntry, 0, len(page.Objects))
	for i := range page.Objects {
		o := &page.Objects[i]
		v := versionEntry{
			Key: p.encode(o.Key), VersionID: nullVersion, IsLatest: true,
			LastModified: o.LastModified.UTC().Format("2006-01-02T15:04:05.000Z"),
			ETag:         `"` + o.ETag + `"`, Size: o.Size, Owner: own, StorageClass: "STANDARD",
		}
		if len(o.Checksums) > 0 {
			v.ChecksumAlgorithm, v.ChecksumType = o.Checksums[0].Algorithm, o.Checksums[0].Type
		}
		out.Versions = append(out.Versions, v)
	}
	for _, cp := range page.CommonPrefixes {
		out.CommonPrefixes = append(out.CommonPrefixes, commonPrefix{Prefix: p.encode(cp)})
	}
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte { return appendListVersions(b, &out) })
}

// appendListVersions appends out as xml.Marshal renders it, but with
// text escaped by appendXMLText: keys, prefixes and markers holding
// control characters come back as character references rather than
// U+FFFD, so a client paging by NextKeyMarker neither skips nor repeats
// keys (list_xml_test.go checks the equivalence).
func appendListVersions(b []byte, out *listVersionsResult) []byte {
	b = append(b, `<ListVersionsResult xmlns="`...)
	b = appendXMLText(b, out.NS)
	b = append(b, `">`...)
	b = appendElem(b, "Name", out.Name)
	b = appendElem(b, "Prefix", out.Prefix)
	b = appendElem(b, "KeyMarker", out.KeyMarker)
	b = appendElem(b, "VersionIdMarker", out.VersionIDMarker)
	b = appendElemOmit(b, "NextKeyMarker", out.NextKeyMarker)
	b = appendElemOmit(b, "NextVersionIdMarker", out.NextVersionIDMarker)
	b = appendIntElem(b, "MaxKeys", int64(out.MaxKeys))
	b = appendElemOmit(b, "Delimiter", out.Delimiter)
	b = appendBoolElem(b, "IsTruncated", out.IsTruncated)
	b = appendElemOmit(b, "EncodingType", out.EncodingType)
	for i := range out.Versions {
		v := &out.Versions[i]
		b = append(b, "<Version>"...)
		b = appendElem(b, "Key", v.Key)
		b = appendElem(b, "VersionId", v.VersionID)
		b = appendBoolElem(b, "IsLatest", v.IsLatest)
		b = appendElem(b, "LastModified", v.LastModified)
		b = appendElem(b, "ETag", v.ETag)
		b = appendElemOmit(b, "ChecksumAlgorithm", v.ChecksumAlgorithm)
		b = appendElemOmit(b, "ChecksumType", v.ChecksumType)
		b = appendIntElem(b, "Size", v.Size)
		b = append(b, "<Owner>"...)
		b = appendElem(b, "ID", v.Owner.ID)
		b = appendElem(b, "DisplayName", v.Owner.DisplayName)
		b = append(b, "</Owner>"...)
		b = appendElem(b, "StorageClass", v.StorageClass)
		b = append(b, "</Version>"...)
	}
	for _, cp := range out.CommonPrefixes {
		b = appendElem(append(b, "<CommonPrefixes>"...), "Prefix", cp.Prefix)
		b = append(b, "</CommonPrefixes>"...)
	}
	return append(b, "</ListVersionsResult>"...)
}
