package s3err

import (
	"net/http"
	"testing"
)

// awsErrors is S3's own answer for each error code the gateway sends: the
// status of the code in the S3 error reference
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html)
// and the message S3 puts in the <Message> element of its default answer.
// Where the reference's description and S3's wire message differ, the
// wire message is the one here: clients and their tests compare it.
var awsErrors = map[string]struct {
	status  int
	message string
}{
	"AccessDenied":                          {403, "Access Denied"},
	"AuthorizationHeaderMalformed":          {400, "The authorization header is malformed."},
	"AuthorizationQueryParametersError":     {400, "Error parsing the X-Amz-Credential parameter."},
	"BadDigest":                             {400, "The Content-MD5 or checksum value that you specified did not match what the server received."},
	"BucketAlreadyExists":                   {409, "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again."},
	"BucketAlreadyOwnedByYou":               {409, "Your previous request to create the named bucket succeeded and you already own it."},
	"BucketNotEmpty":                        {409, "The bucket you tried to delete is not empty"},
	"ConditionalRequestConflict":            {409, "A conflicting conditional operation is currently in progress against this resource. Please try again."},
	"EntityTooLarge":                        {400, "Your proposed upload exceeds the maximum allowed object size."},
	"EntityTooSmall":                        {400, "Your proposed upload is smaller than the minimum allowed object size."},
	"ExpiredToken":                          {400, "The provided token has expired."},
	"IllegalLocationConstraintException":    {400, "The specified location-constraint is not valid for this endpoint."},
	"IncompleteBody":                        {400, "You did not provide the number of bytes specified by the Content-Length HTTP header."},
	"InternalError":                         {500, "We encountered an internal error. Please try again."},
	"InvalidAccessKeyId":                    {403, "The AWS Access Key Id you provided does not exist in our records."},
	"InvalidArgument":                       {400, "Invalid Argument"},
	"InvalidBucketName":                     {400, "The specified bucket is not valid."},
	"InvalidDigest":                         {400, "The Content-MD5 or checksum value you specified is not valid."},
	"InvalidObjectState":                    {403, "The operation is not valid for the current state of the object."},
	"InvalidPart":                           {400, "One or more of the specified parts could not be found. The part might not have been uploaded, or the specified entity tag might not have matched the part's entity tag."},
	"NoSuchVersion":                         {404, "The specified version does not exist."},
	"InvalidBucketState":                    {409, "The request is not valid with the current state of the bucket."},
	"NoSuchObjectLockConfiguration":         {404, "The specified object does not have a ObjectLock configuration"},
	"InvalidPartOrder":                      {400, "The list of parts was not in ascending order. The parts list must be specified in order by part number."},
	"InvalidPolicyDocument":                 {400, "The content of the form does not meet the conditions specified in the policy document."},
	"InvalidRange":                          {416, "The requested range is not satisfiable"},
	"InvalidRequest":                        {400, "Invalid Request"},
	"InvalidStorageClass":                   {400, "The storage class you specified is not valid."},
	"InvalidTag":                            {400, "The tag provided was not a valid tag."},
	"InvalidURI":                            {400, "Couldn't parse the specified URI."},
	"KeyTooLongError":                       {400, "Your key is too long."},
	"AccessControlListNotSupported":         {400, "The bucket does not allow ACLs"},
	"UnresolvableGrantByEmailAddress":       {400, "The email address you provided does not match any account on record."},
	"InvalidBucketAclWithObjectOwnership":   {400, "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting"},
	"RequestHeaderSectionTooLarge":          {400, "Your request header section exceeds the maximum allowed size."},
	"MalformedACLError":                     {400, "The XML you provided was not well-formed or did not validate against our published schema"},
	"MalformedPOSTRequest":                  {400, "The body of your POST request is not well-formed multipart/form-data."},
	"MalformedXML":                          {400, "The XML you provided was not well-formed or did not validate against our published schema."},
	"MaxMessageLengthExceeded":              {400, "Your request was too big."},
	"MaxPostPreDataLengthExceeded":          {400, "Your POST request fields preceding the upload file were too large."},
	"MetadataTooLarge":                      {400, "Your metadata headers exceed the maximum allowed metadata size."},
	"MethodNotAllowed":                      {405, "The specified method is not allowed against this resource."},
	"MissingContentLength":                  {411, "You must provide the Content-Length HTTP header."},
	"MissingSecurityHeader":                 {400, "Your request is missing a required header."},
	"NoSuchBucket":                          {404, "The specified bucket does not exist"},
	"NoSuchBucketPolicy":                    {404, "The bucket policy does not exist"},
	"NoSuchCORSConfiguration":               {404, "The CORS configuration does not exist"},
	"NoSuchKey":                             {404, "The specified key does not exist."},
	"NoSuchLifecycleConfiguration":          {404, "The lifecycle configuration does not exist"},
	"NoSuchTagSet":                          {404, "The TagSet does not exist"},
	"NoSuchUpload":                          {404, "The specified multipart upload does not exist. The upload ID might be invalid, or the multipart upload might have been aborted or completed."},
	"NoSuchWebsiteConfiguration":            {404, "The specified bucket does not have a website configuration"},
	"NotImplemented":                        {501, "A header you provided implies functionality that is not implemented."},
	"NotModified":                           {304, "Not Modified"},
	"PreconditionFailed":                    {412, "At least one of the pre-conditions you specified did not hold."},
	"ReplicationConfigurationNotFoundError": {404, "The replication configuration was not found"},
	"RequestTimeTooSkewed":                  {403, "The difference between the request time and the server's time is too large."},
	"RequestTimeout":                        {400, "Your socket connection to the server was not read from or written to within the timeout period."},
	"ServiceUnavailable":                    {503, "Reduce your request rate."},
	"SignatureDoesNotMatch":                 {403, "The request signature we calculated does not match the signature you provided. Check your key and signing method."},
	"SlowDown":                              {503, "Please reduce your request rate."},
	"UnexpectedContent":                     {400, "This request does not support content."},
	"XAmzContentSHA256Mismatch":             {400, "The provided 'x-amz-content-sha256' header does not match what was computed."},
}

// notInReference are the gateway's codes the S3 error reference does not
// list, each with why the gateway sends it. Their rows are S3's answers as
// observed from S3 itself unless the reason says otherwise.
var notInReference = map[Code]string{
	InvalidEncodingType:                 "S3 answers an unknown encoding-type with InvalidArgument and this message; the code exists to give it its message.",
	InvalidPartNumber:                   "S3 answers a GET with partNumber past the object's parts with 416 InvalidPartNumber.",
	MalformedTrailerError:               "S3's answer to aws-chunked trailers that do not parse, from the flexible-checksums documentation.",
	InsufficientStorage:                 "The gateway's own: a full filesystem under it, which S3 never reports.",
	ReadOnlyStorage:                     "The gateway's own: a read-only filesystem under it, sent as ServiceUnavailable with its own message.",
	AccessForbidden:                     "S3's answer to a CORS request its configuration does not allow.",
	BadRequest:                          "S3's answer to a CORS preflight without Origin or with an invalid method.",
	IncorrectNumberOfFilesInPostRequest: "S3's answer to a browser POST upload without exactly one file.",
	MalformedPolicy:                     "S3's answer to a bucket policy that is not valid JSON (PutBucketPolicy).",
	ServerSideEncryptionConfigurationNotFoundError: "S3's answer to GetBucketEncryption on a bucket without one.",
	ObjectLockConfigurationNotFoundError:           "S3's answer to GetObjectLockConfiguration on a bucket without one.",
	OwnershipControlsNotFoundError:                 "S3's answer to GetBucketOwnershipControls on a bucket without them.",
	NoSuchPublicAccessBlockConfiguration:           "S3's answer to GetPublicAccessBlock on a bucket without one.",
	KMSDisabled:                                    "S3's answer (400, the KMS error passed through) to a write or read of SSE-KMS with a disabled KMS key.",
	KMSNotFound:                                    "S3's answer (400, the KMS error passed through) to a write of SSE-KMS naming a key that does not exist, or a read of an object whose key is gone from the key ring.",
}

// TestTableMatchesAWS checks every row of the error table against S3's
// own status and message for its code.
func TestTableMatchesAWS(t *testing.T) {
	for c := Code(0); c < numCodes; c++ {
		r := table[c]
		if why, ok := notInReference[c]; ok {
			if why == "" {
				t.Errorf("%s (code %d): no reason given for a code the reference does not list", r.name, c)
			}
			if _, listed := awsErrors[r.name]; listed && r.name != "InvalidArgument" && r.name != "ServiceUnavailable" {
				t.Errorf("%s (code %d) is listed in the reference: compare it instead", r.name, c)
			}
			continue
		}
		want, ok := awsErrors[r.name]
		if !ok {
			t.Errorf("%s (code %d) is neither in the S3 reference list nor justified in notInReference", r.name, c)
			continue
		}
		if r.status != want.status {
			t.Errorf("%s: status %d %s, S3 answers %d %s", r.name, r.status, http.StatusText(r.status), want.status, http.StatusText(want.status))
		}
		if r.message != want.message {
			t.Errorf("%s: message %q, S3's is %q", r.name, r.message, want.message)
		}
	}
}
