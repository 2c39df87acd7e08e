package api

import (
	"encoding/base64"
	"encoding/xml"
	"github.com/objectgateway/objectgateway/pkg/access"
	"net/http"
	"net/url"
	"strconv"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/pkg/s3name"
)

// listParams are the query parameters common to ListObjects and
// ListObjectsV2, parsed and validated.
type listParams struct {
	prefix, delimiter string
	maxKeys           int
	encodeURL         bool
}

// parseListParams is a pure function of the query, table-tested.
func parseListParams(q url.Values) (listParams, error) {
	p := listParams{prefix: q.Get("prefix"), delimiter: q.Get("delimiter"), maxKeys: 1000}
	if v, ok := q["max-keys"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 0 {
			return p, s3err.Newf(s3err.InvalidArgument, "Provided max-keys not an integer or within integer range").With("ArgumentName", "max-keys").With("ArgumentValue", v[0])
		}
		p.maxKeys = min(n, 1000)
	}
	switch e := q.Get("encoding-type"); e {
	case "":
	case "url":
		p.encodeURL = true
	default:
		return p, s3err.New(s3err.InvalidEncodingType).With("ArgumentName", "encoding-type").With("ArgumentValue", e)
	}
	return p, nil
}

// encode applies encoding-type=url to a key or prefix.
func (p listParams) encode(s string) string {
	if !p.encodeURL {
		return s
	}
	return s3name.EscapeKey(s)
}

// listEntry, commonPrefix and the listBucketResult types describe the
// documents the ListObjects handlers answer; the handlers render them with
// appendListV1/V2 (xmlwrite.go), whose output xml.Marshal of these types
// must equal but for the control characters appendXMLText writes as
// character references (list_xml_test.go).
type listEntry struct {
	Key               string `xml:"Key"`
	LastModified      string `xml:"LastModified"`
	ETag              string `xml:"ETag"`
	ChecksumAlgorithm string `xml:"ChecksumAlgorithm,omitempty"`
	ChecksumType      string `xml:"ChecksumType,omitempty"`
	Size              int64  `xml:"Size"`
	Owner             *owner `xml:"Owner,omitempty"`
	StorageClass      string `xml:"StorageClass"`
}

type commonPrefix struct {
	Prefix string `xml:"Prefix"`
}

type listBucketResultV1 struct {
	XMLName        xml.Name       `xml:"ListBucketResult"`
	NS             string         `xml:"xmlns,attr"`
	Name           string         `xml:"Name"`
	Prefix         string         `xml:"Prefix"`
	Marker         string         `xml:"Marker"`
	NextMarker     string         `xml:"NextMarker,omitempty"`
	MaxKeys        int            `xml:"MaxKeys"`
	Delimiter      string         `xml:"Delimiter,omitempty"`
	IsTruncated    bool           `xml:"IsTruncated"`
	EncodingType   string         `xml:"EncodingType,omitempty"`
	Contents       []listEntry    `xml:"Contents"`
	CommonPrefixes []commonPrefix `xml:"CommonPrefixes"`
}

// listBucketResultV2 is a ListObjectsV2 answer. Its ContinuationToken
// echoes the request's token, an empty one included; it is nil when the
// request had none.
type listBucketResultV2 struct {
	XMLName               xml.Name       `xml:"ListBucketResult"`
	NS                    string         `xml:"xmlns,attr"`
	Name                  string         `xml:"Name"`
	Prefix                string         `xml:"Prefix"`
	StartAfter            string         `xml:"StartAfter,omitempty"`
	ContinuationToken     *string        `xml:"ContinuationToken,omitempty"`
	NextContinuationToken string         `xml:"NextContinuationToken,omitempty"`
	KeyCount              int            `xml:"KeyCount"`
	MaxKeys               int            `xml:"MaxKeys"`
	Delimiter             string         `xml:"Delimiter,omitempty"`
	IsTruncated           bool           `xml:"IsTruncated"`
	EncodingType          string         `xml:"EncodingType,omitempty"`
	Contents              []listEntry    `xml:"Contents"`
	CommonPrefixes        []commonPrefix `xml:"CommonPrefixes"`
}

// listObjectsV1 answers ListObjects. NextMarker is returned, as in S3,
// only when a delimiter was given; without one, clients continue from the
// last key.
func (s *Server) listObjectsV1(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	marker := q.Get("marker")
	page, err := s.layer.ListObjects(rq.bucket, object.ListQuery{Prefix: p.prefix, Delimiter: p.delimiter, After: marker, Limit: p.maxKeys, Brief: true})
	if err != nil {
		return err
	}
	out := listBucketResultV1{
		NS: s3NS, Name: rq.bucket, Prefix: p.encode(p.prefix), Marker: p.encode(marker),
		MaxKeys: p.maxKeys, Delimiter: p.encode(p.delimiter), IsTruncated: page.Truncated,
	}
	if p.encodeURL {
		out.EncodingType = "url"
	}
	if page.Truncated && p.delimiter != "" {
		out.NextMarker = p.encode(page.Last)
	}
	owner := s.listOwner(rq, &page)
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte {
		return appendListV1(b, &out, p, &page, owner)
	})
}

// listOwner returns the access key a listing shows as the owner of the
// objects that name none (the bucket's owner), and clears the owners of
// page's objects under BucketOwnerEnforced, where the bucket's owner owns
// them all.
func (s *Server) listOwner(rq *request, page *object.ListPage) string {
	b, err := s.bucketRecord(rq)
	if err != nil {
		return rq.accessKey
	}
	if ownershipOf(b) == access.BucketOwnerEnforced {
		for i := range page.Objects {
			page.Objects[i].Owner = ""
		}
	}
	return bucketOwner(b, rq)
}

// listObjectsV2 answers ListObjectsV2. The continuation token is the
// position after which the next page starts, base64-encoded; a token the
// gateway did not issue answers InvalidArgument. An empty token is no
// token, as S3 takes it: the listing starts where it would without one
// (at start-after, if given), and the empty token is echoed.
func (s *Server) listObjectsV2(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	after := q.Get("start-after")
	token, hasToken := q["continuation-token"]
	if hasToken && token[0] != "" {
		raw, derr := base64.RawURLEncoding.DecodeString(token[0])
		if derr != nil || len(raw) == 0 || raw[0] != 'k' {
			return s3err.Newf(s3err.InvalidArgument, "The continuation token provided is incorrect").With("ArgumentName", "continuation-token")
		}
		after = string(raw[1:])
	}
	page, err := s.layer.ListObjects(rq.bucket, object.ListQuery{Prefix: p.prefix, Delimiter: p.delimiter, After: after, Limit: p.maxKeys, Brief: true})
	if err != nil {
		return err
	}
	out := listBucketResultV2{
		NS: s3NS, Name: rq.bucket, Prefix: p.encode(p.prefix), StartAfter: p.encode(q.Get("start-after")),
		MaxKeys: p.maxKeys, Delimiter: p.encode(p.delimiter), IsTruncated: page.Truncated,
	}
	if hasToken {
		out.ContinuationToken = &token[0]
	}
	if p.encodeURL {
		out.EncodingType = "url"
	}
	out.KeyCount = len(page.Objects) + len(page.CommonPrefixes)
	if page.Truncated {
		out.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte("k" + page.Last))
	}
	withOwner := q.Get("fetch-owner") == "true"
	var owner string
	if withOwner {
		owner = s.listOwner(rq, &page)
	}
	return writeRenderedXML(w, http.StatusOK, func(b []byte) []byte {
		return appendListV2(b, &out, p, &page, withOwner, owner)
	})
}
