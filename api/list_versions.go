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

// listVersionsResult is ListObjectVersions' answer.
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
	return writeXML(w, http.StatusOK, out)
}
