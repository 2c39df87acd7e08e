package api

import (
	"encoding/xml"
	"net/http"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// maxDeleteKeys is S3's limit on keys in one DeleteObjects request.
const maxDeleteKeys = 1000

// deleteRequest is a DeleteObjects body.
type deleteRequest struct {
	Quiet   bool
	Objects []deleteObject
}

// deleteObject is one Object of a DeleteObjects body. ETag,
// LastModifiedTime and Size make the entry's delete conditional, as
// If-Match and x-amz-if-match-* do DeleteObject.
type deleteObject struct {
	Key, VersionID               string
	ETag, LastModifiedTime, Size string
	// HasVersionID is set when the entry has a VersionId element, empty
	// or not: an empty one names the version whose id is "", which no
	// version has, and is not an entry without a version id.
	HasVersionID bool
}

// deletedEntry is a Deleted element: the version removed (VersionId, as
// the request named it) and, when the delete wrote a delete marker or
// removed one, DeleteMarker with the marker's id.
type deletedEntry struct {
	Key                   string `xml:"Key"`
	VersionID             string `xml:"VersionId,omitempty"`
	DeleteMarker          bool   `xml:"DeleteMarker,omitempty"`
	DeleteMarkerVersionID string `xml:"DeleteMarkerVersionId,omitempty"`
}

type deleteErrorEntry struct {
	Key       string `xml:"Key"`
	VersionID string `xml:"VersionId,omitempty"`
	Code      string `xml:"Code"`
	Message   string `xml:"Message"`
}

type deleteResult struct {
	XMLName xml.Name           `xml:"DeleteResult"`
	NS      string             `xml:"xmlns,attr"`
	Deleted []deletedEntry     `xml:"Deleted"`
	Errors  []deleteErrorEntry `xml:"Error"`
}

// parseDeleteRequest decodes and validates a DeleteObjects body: 1 to
// 1,000 Object elements, or MalformedXML, as soon as the 1,001st begins.
func parseDeleteRequest(body []byte) (deleteRequest, error) {
	var req deleteRequest
	x := newXMLDoc(body, maxDeleteTokens)
	if err := x.root("Delete"); err != nil {
		return req, err
	}
	err := x.elements(func(e xml.StartElement) error {
		switch e.Name.Local {
		case "Quiet":
			v, err := x.text()
			if err != nil {
				return err
			}
			req.Quiet, err = xmlBool(v)
			return err
		case "Object":
			if len(req.Objects) == maxDeleteKeys {
				return s3err.New(s3err.MalformedXML)
			}
			o, err := parseDeleteObject(x)
			req.Objects = append(req.Objects, o)
			return err
		}
		return x.skip()
	})
	if err != nil {
		return req, err
	}
	if len(req.Objects) == 0 {
		return req, s3err.New(s3err.MalformedXML)
	}
	return req, nil
}

// parseDeleteObject reads the Object element just opened.
func parseDeleteObject(x *xmlDoc) (o deleteObject, err error) {
	err = x.elements(func(e xml.StartElement) error {
		var err error
		switch e.Name.Local {
		case "Key":
			o.Key, err = x.text()
		case "VersionId":
			o.VersionID, err = x.text()
			o.HasVersionID = true
		case "ETag":
			o.ETag, err = x.text()
		case "LastModifiedTime":
			o.LastModifiedTime, err = x.text()
		case "Size":
			o.Size, err = x.text()
		default:
			err = x.skip()
		}
		return err
	})
	return o, err
}

// deleteObjects answers DeleteObjects. The body must carry Content-MD5 or
// an x-amz-checksum-* (in a header or a trailer), as S3 requires of a
// multi-object delete, and it is verified. Each
// entry is one DeleteObject: with a VersionId it removes that version,
// which Object Lock may refuse (x-amz-bypass-governance-retention lets a
// GOVERNANCE retention go), and without one in a versioned bucket it
// writes a delete marker.
func (s *Server) deleteObjects(w http.ResponseWriter, r *http.Request, rq *request) error {
	// The bucket's identity is taken before the body is read: the deletes
	// apply to the bucket the request was authorized against, or to none.
	id := s.bucketID(rq)
	if err := requireBodyDigest(r.Header); err != nil {
		return err
	}
	body, err := s.readBody(r, rq, maxSmallBody)
	if err != nil {
		return err
	}
	req, err := parseDeleteRequest(body)
	if err != nil {
		return err
	}
	if b, err := s.layer.Bucket(rq.bucket); err != nil {
		return err
	} else if b.ID != id {
		return s3err.New(s3err.NoSuchBucket).With("BucketName", rq.bucket)
	}
	// Each entry is decided as the DeleteObject it is, with its own key
	// and version (see mayDelete), before anything is deleted. An entry
	// the caller may not delete is that entry's AccessDenied, even when
	// no entry may be deleted: S3 answers 200 with an Error for each, to
	// anonymous callers too, never a 403 for the request.
	denied := make([]error, len(req.Objects))
	for i, o := range req.Objects {
		denied[i] = s.mayDelete(r, rq, o.Key, o.VersionID)
	}
	out := deleteResult{NS: s3NS}
	for i, o := range req.Objects {
		err := denied[i]
		var done deletedEntry
		if err == nil {
			done, err = s.deleteEntry(rq.bucket, id, o, s.bypassGovernance(r, rq, o.Key))
		}
		if err != nil {
			e := s3err.As(err)
			out.Errors = append(out.Errors, deleteErrorEntry{Key: o.Key, VersionID: o.VersionID, Code: e.Code.String(), Message: e.Text()})
			continue
		}
		if !req.Quiet {
			out.Deleted = append(out.Deleted, done)
		}
	}
	return writeXML(w, http.StatusOK, out)
}

// knownVersionID reports whether id is "null" or an id the gateway
// gives: the only version ids a version can have.
func knownVersionID(id string) bool {
	_, _, ok := metadata.ParseVersionID(id)
	return ok || id == nullVersion
}

// deleteEntry removes one entry of a DeleteObjects request from the
// bucket of identity id, and says what it removed as S3 does: the
// VersionId the entry named, and DeleteMarker with DeleteMarkerVersionId
// when a delete marker was written or was the version removed.
func (s *Server) deleteEntry(bucket string, id uint64, o deleteObject, bypass bool) (deletedEntry, error) {
	if o.Key == "" {
		return deletedEntry{}, s3err.Newf(s3err.InvalidArgument, "Key must not be empty")
	}
	if o.HasVersionID && !knownVersionID(o.VersionID) {
		// S3 looks for the version the entry names, whatever its form,
		// and answers NoSuchVersion, in every versioning state, where a
		// DeleteObject is refused InvalidArgument. An empty id taken as
		// no id would write a delete marker, or remove the object of an
		// unversioned bucket.
		return deletedEntry{}, s3err.New(s3err.NoSuchVersion)
	}
	cond, err := deleteConditions(o.ETag, o.Size, o.LastModifiedTime)
	if err != nil {
		return deletedEntry{}, err
	}
	cond.BucketID = id
	rm, err := s.layer.Remove(object.RemoveInput{Bucket: bucket, Key: o.Key, VersionID: o.VersionID, Conditions: cond, BypassGovernance: bypass})
	if err != nil {
		return deletedEntry{}, err
	}
	done := deletedEntry{Key: o.Key, VersionID: o.VersionID}
	if rm.DeleteMarker {
		done.DeleteMarker, done.DeleteMarkerVersionID = true, rm.VersionID
	}
	return done, nil
}
