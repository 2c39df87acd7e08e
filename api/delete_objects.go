package api

import (
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// maxDeleteKeys is S3's limit on keys in one DeleteObjects request.
const maxDeleteKeys = 1000

type deleteRequest struct {
	XMLName xml.Name `xml:"Delete"`
	Quiet   bool     `xml:"Quiet"`
	Objects []struct {
		Key       string `xml:"Key"`
		VersionID string `xml:"VersionId"`
		// ETag, LastModifiedTime and Size make the entry's delete
		// conditional, as If-Match and x-amz-if-match-* do DeleteObject.
		ETag             string `xml:"ETag"`
		LastModifiedTime string `xml:"LastModifiedTime"`
		Size             string `xml:"Size"`
	} `xml:"Object"`
}

type deletedEntry struct {
	Key string `xml:"Key"`
}

type deleteErrorEntry struct {
	Key     string `xml:"Key"`
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

type deleteResult struct {
	XMLName xml.Name           `xml:"DeleteResult"`
	NS      string             `xml:"xmlns,attr"`
	Deleted []deletedEntry     `xml:"Deleted"`
	Errors  []deleteErrorEntry `xml:"Error"`
}

// parseDeleteRequest decodes and validates a DeleteObjects body.
func parseDeleteRequest(body []byte) (deleteRequest, error) {
	var req deleteRequest
	if err := xml.Unmarshal(body, &req); err != nil {
		return req, s3err.Wrap(s3err.MalformedXML, err)
	}
	if len(req.Objects) == 0 || len(req.Objects) > maxDeleteKeys {
		return req, s3err.New(s3err.MalformedXML)
	}
	return req, nil
}

// deleteObjects answers DeleteObjects. The body may carry Content-MD5, any
// x-amz-checksum-*, or neither; whichever is present is verified.
func (s *Server) deleteObjects(w http.ResponseWriter, r *http.Request, rq *request) error {
	body, err := s.readBody(r, rq, maxSmallBody)
	if err != nil {
		return err
	}
	req, err := parseDeleteRequest(body)
	if err != nil {
		return err
	}
	if _, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	}
	out := deleteResult{NS: s3NS}
	for _, o := range req.Objects {
		var err error
		switch {
		case o.Key == "":
			err = s3err.Newf(s3err.InvalidArgument, "Key must not be empty")
		case o.VersionID != "" && o.VersionID != "null":
			err = s3err.Newf(s3err.InvalidArgument, "Invalid version id specified")
		default:
			var cond object.Conditions
			if cond, err = deleteConditions(o.ETag, o.Size, o.LastModifiedTime); err == nil {
				err = s.layer.DeleteObject(rq.bucket, o.Key, cond)
			}
		}
		if err != nil {
			e := s3err.As(err)
			out.Errors = append(out.Errors, deleteErrorEntry{Key: o.Key, Code: e.Code.String(), Message: e.Text()})
			continue
		}
		if !req.Quiet {
			out.Deleted = append(out.Deleted, deletedEntry{Key: o.Key})
		}
	}
	return writeXML(w, http.StatusOK, out)
}
