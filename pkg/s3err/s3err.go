package s3err

import (
	"errors"
	"fmt"
	"net/http"
)

// Code is an S3 error code. The zero value is InternalError.
type Code int

// The S3 error codes the gateway answers. Each has a row in table.
const (
	InternalError Code = iota
	AccessDenied
	AuthorizationHeaderMalformed
	AuthorizationQueryParametersError
	BadDigest
	BucketAlreadyExists
	BucketAlreadyOwnedByYou
	BucketNotEmpty
	ConditionalRequestConflict
	EntityTooLarge
	EntityTooSmall
	ExpiredToken
	IllegalLocationConstraintException
	IncompleteBody
	InvalidAccessKeyID
	InvalidArgument
	InvalidBucketName
	InvalidDigest
	InvalidEncodingType
	InvalidPart
	InvalidPartOrder
	InvalidPartNumber
	InvalidRange
	InvalidRequest
	InvalidStorageClass
	InvalidTag
	InvalidURI
	KeyTooLongError
	MalformedXML
	MalformedTrailerError
	MetadataTooLarge
	MethodNotAllowed
	MissingContentLength
	MissingSecurityHeader
	NoSuchBucket
	NoSuchKey
	NoSuchUpload
	NoSuchVersion
	InvalidBucketState
	NoSuchObjectLockConfiguration
	NotImplemented
	NotModified
	PreconditionFailed
	RequestTimeTooSkewed
	RequestTimeout
	ServiceUnavailable
	SignatureDoesNotMatch
	SlowDown
	XAmzContentSHA256Mismatch
	InsufficientStorage
	ReadOnlyStorage
	UnexpectedContent
	InvalidObjectState
	MaxMessageLengthExceeded
	AccessForbidden
	BadRequest
	IncorrectNumberOfFilesInPostRequest
	InvalidPolicyDocument
	MalformedPolicy
	MalformedPOSTRequest
	MaxPostPreDataLengthExceeded
	NoSuchBucketPolicy
	NoSuchCORSConfiguration
	NoSuchTagSet
	NoSuchLifecycleConfiguration
	NoSuchWebsiteConfiguration
	ServerSideEncryptionConfigurationNotFoundError
	ReplicationConfigurationNotFoundError
	ObjectLockConfigurationNotFoundError
	OwnershipControlsNotFoundError
	NoSuchPublicAccessBlockConfiguration
	MalformedACLError
	KMSDisabled
	KMSNotFound
	AccessControlListNotSupported
	UnresolvableGrantByEmailAddress
	InvalidBucketAclWithObjectOwnership
	RequestHeaderSectionTooLarge

	numCodes // keep last: the table test checks every code below it has a row.
)

type row struct {
	name    string
	status  int
	message string
}

// table is the one place an S3 error code gets its name, status and message.
// The status and message are S3's own for the code; TestTableMatchesAWS
// holds S3's list and says why each code it does not list is sent.
var table = [numCodes]row{
	InternalError:                      {"InternalError", http.StatusInternalServerError, "We encountered an internal error. Please try again."},
	AccessDenied:                       {"AccessDenied", http.StatusForbidden, "Access Denied"},
	AuthorizationHeaderMalformed:       {"AuthorizationHeaderMalformed", http.StatusBadRequest, "The authorization header is malformed."},
	AuthorizationQueryParametersError:  {"AuthorizationQueryParametersError", http.StatusBadRequest, "Error parsing the X-Amz-Credential parameter."},
	BadDigest:                          {"BadDigest", http.StatusBadRequest, "The Content-MD5 or checksum value that you specified did not match what the server received."},
	BucketAlreadyExists:                {"BucketAlreadyExists", http.StatusConflict, "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again."},
	BucketAlreadyOwnedByYou:            {"BucketAlreadyOwnedByYou", http.StatusConflict, "Your previous request to create the named bucket succeeded and you already own it."},
	BucketNotEmpty:                     {"BucketNotEmpty", http.StatusConflict, "The bucket you tried to delete is not empty"},
	ConditionalRequestConflict:         {"ConditionalRequestConflict", http.StatusConflict, "A conflicting conditional operation is currently in progress against this resource. Please try again."},
	EntityTooLarge:                     {"EntityTooLarge", http.StatusBadRequest, "Your proposed upload exceeds the maximum allowed object size."},
	EntityTooSmall:                     {"EntityTooSmall", http.StatusBadRequest, "Your proposed upload is smaller than the minimum allowed object size."},
	ExpiredToken:                       {"ExpiredToken", http.StatusBadRequest, "The provided token has expired."},
	IllegalLocationConstraintException: {"IllegalLocationConstraintException", http.StatusBadRequest, "The specified location-constraint is not valid for this endpoint."},
	IncompleteBody:                     {"IncompleteBody", http.StatusBadRequest, "You did not provide the number of bytes specified by the Content-Length HTTP header."},
	InvalidAccessKeyID:                 {"InvalidAccessKeyId", http.StatusForbidden, "The AWS Access Key Id you provided does not exist in our records."},
	InvalidArgument:                    {"InvalidArgument", http.StatusBadRequest, "Invalid Argument"},
	InvalidBucketName:                  {"InvalidBucketName", http.StatusBadRequest, "The specified bucket is not valid."},
	InvalidDigest:                      {"InvalidDigest", http.StatusBadRequest, "The Content-MD5 or checksum value you specified is not valid."},
	InvalidEncodingType:                {"InvalidArgument", http.StatusBadRequest, "Invalid Encoding Method specified in Request"},
	InvalidPart:                        {"InvalidPart", http.StatusBadRequest, "One or more of the specified parts could not be found. The part might not have been uploaded, or the specified entity tag might not have matched the part's entity tag."},
	InvalidPartOrder:                   {"InvalidPartOrder", http.StatusBadRequest, "The list of parts was not in ascending order. The parts list must be specified in order by part number."},
	InvalidPartNumber:                  {"InvalidPartNumber", http.StatusRequestedRangeNotSatisfiable, "The requested partnumber is not satisfiable"},
	InvalidRange:                       {"InvalidRange", http.StatusRequestedRangeNotSatisfiable, "The requested range is not satisfiable"},
	InvalidRequest:                     {"InvalidRequest", http.StatusBadRequest, "Invalid Request"},
	InvalidStorageClass:                {"InvalidStorageClass", http.StatusBadRequest, "The storage class you specified is not valid."},
	InvalidTag:                         {"InvalidTag", http.StatusBadRequest, "The tag provided was not a valid tag."},
	InvalidURI:                         {"InvalidURI", http.StatusBadRequest, "Couldn't parse the specified URI."},
	KeyTooLongError:                    {"KeyTooLongError", http.StatusBadRequest, "Your key is too long."},
	MalformedXML:                       {"MalformedXML", http.StatusBadRequest, "The XML you provided was not well-formed or did not validate against our published schema."},
	MalformedTrailerError:              {"MalformedTrailerError", http.StatusBadRequest, "The request contained trailing data that was not well-formed or did not conform to our published schema."},
	MetadataTooLarge:                   {"MetadataTooLarge", http.StatusBadRequest, "Your metadata headers exceed the maximum allowed metadata size."},
	MethodNotAllowed:                   {"MethodNotAllowed", http.StatusMethodNotAllowed, "The specified method is not allowed against this resource."},
	MissingContentLength:               {"MissingContentLength", http.StatusLengthRequired, "You must provide the Content-Length HTTP header."},
	MissingSecurityHeader:              {"MissingSecurityHeader", http.StatusBadRequest, "Your request is missing a required header."},
	NoSuchBucket:                       {"NoSuchBucket", http.StatusNotFound, "The specified bucket does not exist"},
	NoSuchKey:                          {"NoSuchKey", http.StatusNotFound, "The specified key does not exist."},
	NoSuchVersion:                      {"NoSuchVersion", http.StatusNotFound, "The specified version does not exist."},
	InvalidBucketState:                 {"InvalidBucketState", http.StatusConflict, "The request is not valid with the current state of the bucket."},
	NoSuchObjectLockConfiguration:      {"NoSuchObjectLockConfiguration", http.StatusNotFound, "The specified object does not have a ObjectLock configuration"},
	NoSuchUpload:                       {"NoSuchUpload", http.StatusNotFound, "The specified multipart upload does not exist. The upload ID might be invalid, or the multipart upload might have been aborted or completed."},
	NotImplemented:                     {"NotImplemented", http.StatusNotImplemented, "A header you provided implies functionality that is not implemented."},
	NotModified:                        {"NotModified", http.StatusNotModified, "Not Modified"},
	PreconditionFailed:                 {"PreconditionFailed", http.StatusPreconditionFailed, "At least one of the pre-conditions you specified did not hold."},
	RequestTimeTooSkewed:               {"RequestTimeTooSkewed", http.StatusForbidden, "The difference between the request time and the server's time is too large."},
	RequestTimeout:                     {"RequestTimeout", http.StatusBadRequest, "Your socket connection to the server was not read from or written to within the timeout period."},
	ServiceUnavailable:                 {"ServiceUnavailable", http.StatusServiceUnavailable, "Reduce your request rate."},
	SignatureDoesNotMatch:              {"SignatureDoesNotMatch", http.StatusForbidden, "The request signature we calculated does not match the signature you provided. Check your key and signing method."},
	SlowDown:                           {"SlowDown", http.StatusServiceUnavailable, "Please reduce your request rate."},
	XAmzContentSHA256Mismatch:          {"XAmzContentSHA256Mismatch", http.StatusBadRequest, "The provided 'x-amz-content-sha256' header does not match what was computed."},
	InsufficientStorage:                {"InsufficientStorage", http.StatusInsufficientStorage, "The storage under the gateway is full; the object was not stored."},
	ReadOnlyStorage:                    {"ServiceUnavailable", http.StatusServiceUnavailable, "The storage under the gateway is read-only; writes are refused."},
	UnexpectedContent:                  {"UnexpectedContent", http.StatusBadRequest, "This request does not support content."},
	InvalidObjectState:                 {"InvalidObjectState", http.StatusForbidden, "The operation is not valid for the current state of the object."},
	MaxMessageLengthExceeded:           {"MaxMessageLengthExceeded", http.StatusBadRequest, "Your request was too big."},

	// Access for clients without credentials: bucket policies, CORS and
	// browser POST uploads.
	AccessForbidden:                                {"AccessForbidden", http.StatusForbidden, "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec."},
	BadRequest:                                     {"BadRequest", http.StatusBadRequest, "Insufficient information. Origin request header needed."},
	IncorrectNumberOfFilesInPostRequest:            {"IncorrectNumberOfFilesInPostRequest", http.StatusBadRequest, "POST requires exactly one file upload per request."},
	InvalidPolicyDocument:                          {"InvalidPolicyDocument", http.StatusBadRequest, "The content of the form does not meet the conditions specified in the policy document."},
	MalformedPolicy:                                {"MalformedPolicy", http.StatusBadRequest, "This policy contains invalid Json"},
	MalformedPOSTRequest:                           {"MalformedPOSTRequest", http.StatusBadRequest, "The body of your POST request is not well-formed multipart/form-data."},
	MaxPostPreDataLengthExceeded:                   {"MaxPostPreDataLengthExceeded", http.StatusBadRequest, "Your POST request fields preceding the upload file were too large."},
	NoSuchBucketPolicy:                             {"NoSuchBucketPolicy", http.StatusNotFound, "The bucket policy does not exist"},
	NoSuchCORSConfiguration:                        {"NoSuchCORSConfiguration", http.StatusNotFound, "The CORS configuration does not exist"},
	NoSuchTagSet:                                   {"NoSuchTagSet", http.StatusNotFound, "The TagSet does not exist"},
	NoSuchLifecycleConfiguration:                   {"NoSuchLifecycleConfiguration", http.StatusNotFound, "The lifecycle configuration does not exist"},
	NoSuchWebsiteConfiguration:                     {"NoSuchWebsiteConfiguration", http.StatusNotFound, "The specified bucket does not have a website configuration"},
	ServerSideEncryptionConfigurationNotFoundError: {"ServerSideEncryptionConfigurationNotFoundError", http.StatusNotFound, "The server side encryption configuration was not found"},
	ReplicationConfigurationNotFoundError:          {"ReplicationConfigurationNotFoundError", http.StatusNotFound, "The replication configuration was not found"},
	ObjectLockConfigurationNotFoundError:           {"ObjectLockConfigurationNotFoundError", http.StatusNotFound, "Object Lock configuration does not exist for this bucket"},
	OwnershipControlsNotFoundError:                 {"OwnershipControlsNotFoundError", http.StatusNotFound, "The bucket ownership controls were not found"},
	NoSuchPublicAccessBlockConfiguration:           {"NoSuchPublicAccessBlockConfiguration", http.StatusNotFound, "The public access block configuration was not found"},

	// S3's answer to an AccessControlPolicy over its schema, such as one
	// of more than 100 grants.
	MalformedACLError: {"MalformedACLError", http.StatusBadRequest, "The XML you provided was not well-formed or did not validate against our published schema"},
	KMSDisabled:       {"KMS.DisabledException", http.StatusBadRequest, "The KMS key is disabled."},
	KMSNotFound:       {"KMS.NotFoundException", http.StatusBadRequest, "Invalid keyId"},

	// ACLs and Object Ownership.
	AccessControlListNotSupported:       {"AccessControlListNotSupported", http.StatusBadRequest, "The bucket does not allow ACLs"},
	UnresolvableGrantByEmailAddress:     {"UnresolvableGrantByEmailAddress", http.StatusBadRequest, "The email address you provided does not match any account on record."},
	InvalidBucketAclWithObjectOwnership: {"InvalidBucketAclWithObjectOwnership", http.StatusBadRequest, "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting"},
	RequestHeaderSectionTooLarge:        {"RequestHeaderSectionTooLarge", http.StatusBadRequest, "Your request header section exceeds the maximum allowed size."},
}

// String returns the code as S3 spells it in the <Code> element.
func (c Code) String() string { return c.row().name }

// Status returns the HTTP status S3 answers with for the code.
func (c Code) Status() int { return c.row().status }

// Message returns the default human-readable message for the code.
func (c Code) Message() string { return c.row().message }

func (c Code) row() row {
	if c < 0 || c >= numCodes {
		return table[InternalError]
	}
	return table[c]
}

// Error is an S3 error returned by any layer of the gateway. Message, when
// set, replaces the code's default message.
type Error struct {
	Code    Code
	Message string
	// Extra holds additional elements S3 includes in some error bodies
	// (for example BucketName, Key, ArgumentName), rendered in order.
	Extra []Field
	// Headers are response headers S3 sends with this error (a delete
	// marker's x-amz-delete-marker and x-amz-version-id, for example).
	Headers []Field
	// Err is the underlying cause, for logs only; it is never sent to clients.
	Err error
}

// Field is one extra element of an S3 error body.
type Field struct{ Name, Value string }

// New returns an *Error with the code's default message.
func New(c Code) *Error { return &Error{Code: c} }

// Newf returns an *Error with a formatted message.
func Newf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error of code c that keeps err as its cause for logs.
func Wrap(c Code, err error) *Error { return &Error{Code: c, Err: err} }

// With returns a copy of e with an extra body element.
func (e *Error) With(name, value string) *Error {
	c := *e
	c.Extra = append(append([]Field(nil), e.Extra...), Field{name, value})
	return &c
}

// WithHeader returns a copy of e with a response header to send.
func (e *Error) WithHeader(name, value string) *Error {
	c := *e
	c.Headers = append(append([]Field(nil), e.Headers...), Field{name, value})
	return &c
}

// Error implements error.
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = e.Code.Message()
	}
	if e.Err != nil {
		return e.Code.String() + ": " + msg + ": " + e.Err.Error()
	}
	return e.Code.String() + ": " + msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, s3err.New(s3err.NoSuchKey)) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Text returns the message to send: the override or the default.
func (e *Error) Text() string {
	if e.Message != "" {
		return e.Message
	}
	return e.Code.Message()
}

// As returns the S3 error carried by err. An error that is not an S3 error
// is mapped through FromOS, which answers InternalError for anything it
// does not recognise.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: FromOS(err), Err: err}
}

// CodeOf returns the S3 code of err (InternalError for unknown errors) and
// ok=false when err is nil.
func CodeOf(err error) (Code, bool) {
	if err == nil {
		return 0, false
	}
	return As(err).Code, true
}

// Lookup returns the code S3 spells name, for errors relayed from another
// S3 service (the edge mode's origin). ok is false for a name the table
// does not hold.
func Lookup(name string) (c Code, ok bool) {
	for i := range table {
		if table[i].name == name && Code(i) != ReadOnlyStorage {
			return Code(i), true
		}
	}
	return InternalError, false
}
