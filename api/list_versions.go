package api

import (
	"encoding/xml"
	"github.com/objectgateway/objectgateway/pkg/access"
	"github.com/objectgateway/objectgateway/pkg/object"
	"net/http"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// nullVersion is the version id S3 shows for the null version: the only
// version of an object in a bucket whose versioning was never enabled, and
// the version a write makes while versioning is suspended.
const nullVersion = metadata.NullVersion

// listVersionsResult is ListObjectVersions' answer, rendered by
// appendListVersions.
type listVersionsResult struct {
	XMLName             xml.Name `xml:"ListVersionsResult"`
	NS                  string   `xml:"xmlns,attr"`
	Name                string   `xml:"Name"`
	Prefix              string   `xml:"Prefix"`
	KeyMarker           string   `xml:"KeyMarker"`
	VersionIDMarker     string   `xml:"VersionIdMarker"`
	NextKeyMarker       string   `xml:"NextKeyMarker,omitempty"`
	NextVersionIDMarker string   `xml:"NextVersionIdMarker,omitempty"`
	MaxKeys             int      `xml:"MaxKeys"`
	Delimiter           string   `xml:"Delimiter,omitempty"`
	IsTruncated         bool     `xml:"IsTruncated"`
	EncodingType        string   `xml:"EncodingType,omitempty"`
	// Versions are the Version and DeleteMarker elements in the order of
	// the page (keys ascending, each key's versions newest first), as S3
	// interleaves them; each entry's XMLName says which it is.
	Versions       []versionEntry `xml:"Version"`
	CommonPrefixes []commonPrefix `xml:"CommonPrefixes"`
}

// versionEntry is a Version (XMLName zero or "Version") or, with XMLName
// "DeleteMarker", a delete marker, which has no ETag, checksum, Size or
// StorageClass.
type versionEntry struct {
	XMLName           xml.Name
	Key               string `xml:"Key"`
	VersionID         string `xml:"VersionId"`
	IsLatest          bool   `xml:"IsLatest"`
	LastModified      string `xml:"LastModified"`
	ETag              string `xml:"ETag,omitempty"`
	ChecksumAlgorithm string `xml:"ChecksumAlgorithm,omitempty"`
	ChecksumType      string `xml:"ChecksumType,omitempty"`
	Size              *int64 `xml:"Size,omitempty"`
	Owner             owner  `xml:"Owner"`
	StorageClass      string `xml:"StorageClass,omitempty"`
}

// deleteMarkerName is the XMLName of a delete marker's entry.
var deleteMarkerName = xml.Name{Local: "DeleteMarker"}

// listObjectVersions answers ListObjectVersions: the versions and delete
// markers of the keys selected, in key order and each key's newest first.
// In a bucket whose versioning was never enabled every object is its one
// version, "null" and the latest.
func (s *Server) listObjectVersions(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	keyMarker, versionMarker := q.Get("key-marker"), q.Get("version-id-marker")
	if err := checkVersionMarker(keyMarker, versionMarker); err != nil {
		return err
	}
	page, err := s.layer.ListVersions(rq.bucket, metadata.VersionQuery{
		Prefix: p.prefix, Delimiter: p.delimiter, KeyMarker: keyMarker, VersionMarker: versionMarker, Limit: p.maxKeys,
	})
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
		out.NextKeyMarker = p.encode(page.NextKeyMarker)
		out.NextVersionIDMarker = page.NextVersionMarker
	}
	own := ownerOf(s.listOwner(rq, &object.ListPage{}))
	b, _ := s.bucketRecord(rq)
	enforced := ownershipOf(b) == access.BucketOwnerEnforced
	out.Versions = make([]versionEntry, 0, len(page.Entries))
	for i := range page.Entries {
		e := &page.Entries[i]
		if e.Prefix != "" {
			out.CommonPrefixes = append(out.CommonPrefixes, commonPrefix{Prefix: p.encode(e.Prefix)})
			continue
		}
		o := own
		if e.Owner != "" && !enforced {
			o = ownerOf(e.Owner)
		}
		out.Versions = append(out.Versions, listedVersion(p, e, o))
	}
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte { return appendListVersions(b, &out) })
}

// checkVersionMarker refuses the version-id-marker S3 refuses: one
// without a key-marker, and one that is neither "null" nor a version id
// the gateway gives.
func checkVersionMarker(keyMarker, versionMarker string) error {
	if versionMarker == "" {
		return nil
	}
	if keyMarker == "" {
		return s3err.Newf(s3err.InvalidArgument, "A version-id marker cannot be specified without a key marker.").
			With("ArgumentName", "version-id-marker").With("ArgumentValue", versionMarker)
	}
	if _, _, ok := metadata.ParseVersionID(versionMarker); !ok && versionMarker != nullVersion {
		return s3err.Newf(s3err.InvalidArgument, "Invalid version id specified").
			With("ArgumentName", "version-id-marker").With("ArgumentValue", versionMarker)
	}
	return nil
}

// listedVersion is the entry of version or delete marker e.
func listedVersion(p listParams, e *metadata.VersionEntry, own owner) versionEntry {
	id := e.VersionID
	if id == "" {
		id = nullVersion
	}
	v := versionEntry{
		Key: p.encode(e.Key), VersionID: id, IsLatest: e.IsLatest,
		LastModified: isoTime(e.LastModified), Owner: own,
	}
	if e.DeleteMarker {
		v.XMLName = deleteMarkerName
		return v
	}
	size := e.Size
	v.ETag, v.Size, v.StorageClass = `"`+e.ETag+`"`, &size, "STANDARD"
	if len(e.Checksums) > 0 {
		v.ChecksumAlgorithm, v.ChecksumType = e.Checksums[0].Algorithm, e.Checksums[0].Type
	}
	return v
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
		name := "Version"
		if v.XMLName.Local != "" {
			name = v.XMLName.Local
		}
		b = append(append(append(b, '<'), name...), '>')
		b = appendElem(b, "Key", v.Key)
		b = appendElem(b, "VersionId", v.VersionID)
		b = appendBoolElem(b, "IsLatest", v.IsLatest)
		b = appendElem(b, "LastModified", v.LastModified)
		b = appendElemOmit(b, "ETag", v.ETag)
		b = appendElemOmit(b, "ChecksumAlgorithm", v.ChecksumAlgorithm)
		b = appendElemOmit(b, "ChecksumType", v.ChecksumType)
		if v.Size != nil {
			b = appendIntElem(b, "Size", *v.Size)
		}
		b = append(b, "<Owner>"...)
		b = appendElem(b, "ID", v.Owner.ID)
		b = appendElem(b, "DisplayName", v.Owner.DisplayName)
		b = append(b, "</Owner>"...)
		b = appendElemOmit(b, "StorageClass", v.StorageClass)
		b = append(append(append(b, "</"...), name...), '>')
	}
	for _, cp := range out.CommonPrefixes {
		b = appendElem(append(b, "<CommonPrefixes>"...), "Prefix", cp.Prefix)
		b = append(b, "</CommonPrefixes>"...)
	}
	return append(b, "</ListVersionsResult>"...)
}
