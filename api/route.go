package api

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// level says what a request's path addresses.
type level uint8

const (
	levelService level = iota // no bucket: GET / lists buckets
	levelBucket
	levelObject
)

// subresources are the query parameters that select an S3 operation other
// than the plain one for a method. A request carrying one the gateway does
// not implement answers NotImplemented instead of falling through to the
// plain operation, which would be a silent wrong success.
var subresources = []string{
	"accelerate", "acl", "analytics", "attributes", "cors", "delete", "encryption",
	"intelligent-tiering", "inventory", "legal-hold", "lifecycle", "location",
	"logging", "metadataConfiguration", "metadataTable", "metrics", "notification",
	"object-lock", "ownershipControls", "partNumber", "policy", "policyStatus",
	"publicAccessBlock", "renameObject", "replication", "requestPayment", "restore",
	"retention", "select", "session", "tagging", "torrent", "uploadId", "uploads",
	"versionId", "versioning", "versions", "website",
}

// operation is the AWS action a request names.
type operation struct {
	name    string
	handler handlerFunc
}

// subresource returns the first subresource parameter (in the order of
// subresources) present in q, or "". It goes over q's few keys rather than
// looking each of the dozens of subresources up in q; every subresource
// starts with a lower-case letter, so the X-Amz-* parameters of a
// presigned URL are passed over at once.
func subresource(q url.Values) string {
	best := len(subresources)
	for k := range q {
		if k == "" || k[0] < 'a' || k[0] > 'z' {
			continue
		}
		if i := slices.Index(subresources[:best], k); i >= 0 {
			best = i
		}
	}
	if best == len(subresources) {
		return ""
	}
	return subresources[best]
}

// route names the operation of a request. It is a pure function of the
// method, the addressed level, the query and the copy-source header, so the
// whole S3 dispatch table is tested without a server.
func (s *Server) route(method string, lv level, q url.Values, h http.Header) operation {
	sub := subresource(q)
	if op, ok := s.routeAccess(method, lv, sub, h); ok {
		return op
	}
	if op, ok := s.routeEncryption(method, lv, sub); ok {
		return op
	}
	switch lv {
	case levelService:
		if method == http.MethodGet && sub == "" {
			return operation{"ListBuckets", s.listBuckets}
		}
	case levelBucket:
		if op, ok := s.routeUnset(method, sub); ok {
			return op
		}
		switch method {
		case http.MethodGet:
			switch sub {
			case "tagging":
				return operation{"GetBucketTagging", s.getBucketTagging}
			case "":
				if q.Get("list-type") == "2" {
					return operation{"ListObjectsV2", s.listObjectsV2}
				}
				return operation{"ListObjects", s.listObjectsV1}
			case "location":
				return operation{"GetBucketLocation", s.getBucketLocation}
			case "versioning":
				return operation{"GetBucketVersioning", s.getBucketVersioning}
			case "uploads":
				return operation{"ListMultipartUploads", s.listMultipartUploads}
			case "versions":
				return operation{"ListObjectVersions", s.listObjectVersions}
			case "website":
				return operation{"GetBucketWebsite", s.getBucketWebsite}
			case "lifecycle":
				return operation{"GetBucketLifecycleConfiguration", s.getBucketLifecycle}
			case "object-lock":
				return operation{"GetObjectLockConfiguration", s.getObjectLockConfiguration}
			}
		case http.MethodHead:
			if sub == "" {
				return operation{"HeadBucket", s.headBucket}
			}
		case http.MethodPut:
			switch sub {
			case "":
				return operation{"CreateBucket", s.createBucket}
			case "tagging":
				return operation{"PutBucketTagging", s.putBucketTagging}
			case "website":
				return operation{"PutBucketWebsite", s.putBucketWebsite}
			case "lifecycle":
				return operation{"PutBucketLifecycleConfiguration", s.putBucketLifecycle}
			case "versioning":
				return operation{"PutBucketVersioning", s.putBucketVersioning}
			case "object-lock":
				return operation{"PutObjectLockConfiguration", s.putObjectLockConfiguration}
			}
		case http.MethodDelete:
			switch sub {
			case "":
				return operation{"DeleteBucket", s.deleteBucket}
			case "tagging":
				return operation{"DeleteBucketTagging", s.deleteBucketTagging}
			case "website":
				return operation{"DeleteBucketWebsite", s.deleteBucketWebsite}
			case "lifecycle":
				return operation{"DeleteBucketLifecycle", s.deleteBucketLifecycle}
			}
		case http.MethodPost:
			if sub == "delete" {
				return operation{"DeleteObjects", s.deleteObjects}
			}
		}
	case levelObject:
		_, upload := q["uploadId"]
		switch method {
		case http.MethodGet:
			if upload && (sub == "uploadId" || sub == "partNumber") {
				return operation{"ListParts", s.listParts}
			}
			switch sub {
			case "tagging":
				return operation{"GetObjectTagging", s.getObjectTagging}
			case "attributes":
				return operation{"GetObjectAttributes", s.getObjectAttributes}
			case "acl":
				return operation{"GetObjectAcl", s.getObjectACL}
			case "retention":
				return operation{"GetObjectRetention", s.getObjectRetention}
			case "legal-hold":
				return operation{"GetObjectLegalHold", s.getObjectLegalHold}
			}
			if sub == "" || sub == "partNumber" || sub == "versionId" {
				return operation{"GetObject", s.getObject}
			}
		case http.MethodHead:
			if sub == "" || sub == "partNumber" || sub == "versionId" {
				return operation{"HeadObject", s.getObject}
			}
		case http.MethodPut:
			if upload && (sub == "partNumber" || sub == "uploadId") {
				if h.Get("X-Amz-Copy-Source") != "" {
					return operation{"UploadPartCopy", s.uploadPartCopy}
				}
				return operation{"UploadPart", s.uploadPart}
			}
			switch sub {
			case "tagging":
				return operation{"PutObjectTagging", s.putObjectTagging}
			case "acl":
				return operation{"PutObjectAcl", s.putObjectACL}
			case "retention":
				return operation{"PutObjectRetention", s.putObjectRetention}
			case "legal-hold":
				return operation{"PutObjectLegalHold", s.putObjectLegalHold}
			}
			if sub == "" {
				if h.Get("X-Amz-Copy-Source") != "" {
					return operation{"CopyObject", s.copyObject}
				}
				return operation{"PutObject", s.putObject}
			}
		case http.MethodDelete:
			if upload && sub == "uploadId" {
				return operation{"AbortMultipartUpload", s.abortMultipartUpload}
			}
			if sub == "tagging" {
				return operation{"DeleteObjectTagging", s.deleteObjectTagging}
			}
			if sub == "" || sub == "versionId" {
				return operation{"DeleteObject", s.deleteObject}
			}
		case http.MethodPost:
			if sub == "uploads" {
				return operation{"CreateMultipartUpload", s.createMultipartUpload}
			}
			if upload && sub == "uploadId" {
				return operation{"CompleteMultipartUpload", s.completeMultipartUpload}
			}
		}
	}
	return s.refusal(method, lv, sub)
}

// Names of the operations that refuse a request no S3 operation takes.
const (
	opMethodNotAllowed = "MethodNotAllowed"
	opNotImplemented   = "NotImplemented"
)

// refusal is the answer to a request no operation of the gateway takes. A
// method S3 has no operation for on the addressed resource (POST or PATCH
// of an object, anything but GET of the service, an unknown method of a
// bucket), without a subresource, is 405 MethodNotAllowed, as S3 answers;
// anything else names a feature the gateway does not have and is 501
// NotImplemented.
func (s *Server) refusal(method string, lv level, sub string) operation {
	if sub != "" {
		return operation{opNotImplemented, s.notImplemented}
	}
	resource := ""
	switch lv {
	case levelService:
		resource = "SERVICE"
	case levelBucket:
		switch method {
		case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPost:
		default:
			resource = "BUCKET"
		}
	case levelObject:
		switch method {
		case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete:
		default:
			resource = "OBJECT"
		}
	}
	if resource == "" {
		return operation{opNotImplemented, s.notImplemented}
	}
	return operation{opMethodNotAllowed, func(http.ResponseWriter, *http.Request, *request) error {
		return s3err.New(s3err.MethodNotAllowed).With("Method", method).With("ResourceType", resource)
	}}
}
