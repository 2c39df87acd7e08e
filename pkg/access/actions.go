package access

// action is an operation's IAM action, and the action it needs when the
// request names a version (versionId) of an object.
type action struct {
	plain, version string
}

// actions maps each S3 operation the gateway serves to the IAM action
// that authorizes it, as AWS's "Actions, resources, and condition keys
// for Amazon S3" lists them. Operations that delete a bucket
// configuration are authorized by the action that writes it, as in S3.
// DeleteObjects has no action of its own: each key is one s3:DeleteObject
// (or s3:DeleteObjectVersion).
var actions = map[string]action{
	"AbortMultipartUpload":       {"s3:AbortMultipartUpload", ""},
	"CompleteMultipartUpload":    {"s3:PutObject", ""},
	"CopyObject":                 {"s3:PutObject", ""},
	"CreateBucket":               {"s3:CreateBucket", ""},
	"CreateMultipartUpload":      {"s3:PutObject", ""},
	"DeleteBucket":               {"s3:DeleteBucket", ""},
	"DeleteBucketCors":           {"s3:PutBucketCORS", ""},
	"DeleteBucketPolicy":         {"s3:DeleteBucketPolicy", ""},
	"DeleteBucketTagging":        {"s3:PutBucketTagging", ""},
	"DeleteBucketWebsite":        {"s3:DeleteBucketWebsite", ""},
	"DeleteObject":               {"s3:DeleteObject", "s3:DeleteObjectVersion"},
	"DeleteObjectTagging":        {"s3:DeleteObjectTagging", "s3:DeleteObjectVersionTagging"},
	"DeleteObjects":              {"s3:DeleteObject", "s3:DeleteObjectVersion"},
	"GetBucketAcl":               {"s3:GetBucketAcl", ""},
	"GetBucketCors":              {"s3:GetBucketCORS", ""},
	"GetBucketLocation":          {"s3:GetBucketLocation", ""},
	"GetBucketPolicy":            {"s3:GetBucketPolicy", ""},
	"GetBucketPolicyStatus":      {"s3:GetBucketPolicyStatus", ""},
	"GetBucketTagging":           {"s3:GetBucketTagging", ""},
	"GetBucketVersioning":        {"s3:GetBucketVersioning", ""},
	"GetBucketWebsite":           {"s3:GetBucketWebsite", ""},
	"GetObject":                  {"s3:GetObject", "s3:GetObjectVersion"},
	"GetObjectAcl":               {"s3:GetObjectAcl", "s3:GetObjectVersionAcl"},
	"GetObjectAttributes":        {"s3:GetObjectAttributes", "s3:GetObjectVersionAttributes"},
	"GetObjectLegalHold":         {"s3:GetObjectLegalHold", ""},
	"GetObjectLockConfiguration": {"s3:GetBucketObjectLockConfiguration", ""},
	"GetObjectRetention":         {"s3:GetObjectRetention", ""},
	"GetObjectTagging":           {"s3:GetObjectTagging", "s3:GetObjectVersionTagging"},
	"HeadBucket":                 {"s3:ListBucket", ""},
	"HeadObject":                 {"s3:GetObject", "s3:GetObjectVersion"},
	"ListBuckets":                {"s3:ListAllMyBuckets", ""},
	"ListMultipartUploads":       {"s3:ListBucketMultipartUploads", ""},
	"ListObjectVersions":         {"s3:ListBucketVersions", ""},
	"ListObjects":                {"s3:ListBucket", ""},
	"ListObjectsV2":              {"s3:ListBucket", ""},
	"ListParts":                  {"s3:ListMultipartUploadParts", ""},
	"PostObject":                 {"s3:PutObject", ""},
	"PutBucketAcl":               {"s3:PutBucketAcl", ""},
	"PutBucketCors":              {"s3:PutBucketCORS", ""},
	"PutBucketPolicy":            {"s3:PutBucketPolicy", ""},
	"PutBucketTagging":           {"s3:PutBucketTagging", ""},
	"PutBucketVersioning":        {"s3:PutBucketVersioning", ""},
	"PutBucketWebsite":           {"s3:PutBucketWebsite", ""},
	"PutObject":                  {"s3:PutObject", ""},
	"PutObjectAcl":               {"s3:PutObjectAcl", "s3:PutObjectVersionAcl"},
	"PutObjectLegalHold":         {"s3:PutObjectLegalHold", ""},
	"PutObjectLockConfiguration": {"s3:PutBucketObjectLockConfiguration", ""},
	"PutObjectRetention":         {"s3:PutObjectRetention", ""},
	"PutObjectTagging":           {"s3:PutObjectTagging", "s3:PutObjectVersionTagging"},
	"UploadPart":                 {"s3:PutObject", ""},
	"UploadPartCopy":             {"s3:PutObject", ""},

	// Bucket configurations, most of which the gateway answers as never
	// set.
	"GetBucketLifecycleConfiguration":    {"s3:GetLifecycleConfiguration", ""},
	"PutBucketLifecycleConfiguration":    {"s3:PutLifecycleConfiguration", ""},
	"DeleteBucketLifecycle":              {"s3:PutLifecycleConfiguration", ""},
	"GetBucketEncryption":                {"s3:GetEncryptionConfiguration", ""},
	"PutBucketEncryption":                {"s3:PutEncryptionConfiguration", ""},
	"DeleteBucketEncryption":             {"s3:PutEncryptionConfiguration", ""},
	"GetBucketReplication":               {"s3:GetReplicationConfiguration", ""},
	"DeleteBucketReplication":            {"s3:PutReplicationConfiguration", ""},
	"GetBucketOwnershipControls":         {"s3:GetBucketOwnershipControls", ""},
	"PutBucketOwnershipControls":         {"s3:PutBucketOwnershipControls", ""},
	"DeleteBucketOwnershipControls":      {"s3:PutBucketOwnershipControls", ""},
	"GetPublicAccessBlock":               {"s3:GetBucketPublicAccessBlock", ""},
	"PutPublicAccessBlock":               {"s3:PutBucketPublicAccessBlock", ""},
	"DeletePublicAccessBlock":            {"s3:PutBucketPublicAccessBlock", ""},
	"GetBucketLogging":                   {"s3:GetBucketLogging", ""},
	"GetBucketNotificationConfiguration": {"s3:GetBucketNotification", ""},
	"GetBucketAccelerateConfiguration":   {"s3:GetAccelerateConfiguration", ""},
	"GetBucketRequestPayment":            {"s3:GetBucketRequestPayment", ""},
}

// ActionOf returns the IAM action that authorizes an S3 operation (by its
// AWS name, as "GetObject"); version says the request names an object
// version by id. ok is false for an operation the table does not know,
// which only root and the bucket's owner may perform.
func ActionOf(operation string, version bool) (name string, ok bool) {
	a, ok := actions[operation]
	if version && a.version != "" {
		return a.version, ok
	}
	return a.plain, ok
}
