package policy

import "strings"

// resType is the kind of resource an S3 action applies to, as a bit set
// so that a statement's resources can be summarised in one value.
type resType uint8

const (
	resBucket resType = 1 << iota
	resObject
	// resAccount is the resource "*" that account-level actions such as
	// s3:ListAllMyBuckets need.
	resAccount
)

// s3Actions lists the S3 actions a policy may name, each with the
// resource it applies to. It is what "Policy has invalid action" and
// "Action does not apply to any resource(s) in statement" are decided
// against; an action pattern must match at least one of them.
func s3Actions() map[string]resType {
	m := make(map[string]resType, 128)
	for _, a := range strings.Fields(`
		CreateBucket DeleteBucket ListBucket ListBucketVersions ListBucketMultipartUploads
		GetBucketLocation GetBucketPolicy PutBucketPolicy DeleteBucketPolicy GetBucketPolicyStatus
		GetBucketAcl PutBucketAcl GetBucketCORS PutBucketCORS GetBucketVersioning PutBucketVersioning
		GetBucketTagging PutBucketTagging GetBucketWebsite PutBucketWebsite DeleteBucketWebsite
		GetLifecycleConfiguration PutLifecycleConfiguration GetBucketLogging PutBucketLogging
		GetBucketNotification PutBucketNotification GetBucketObjectLockConfiguration
		PutBucketObjectLockConfiguration GetEncryptionConfiguration PutEncryptionConfiguration
		GetBucketOwnershipControls PutBucketOwnershipControls GetBucketPublicAccessBlock
		PutBucketPublicAccessBlock GetReplicationConfiguration PutReplicationConfiguration
		GetAccelerateConfiguration PutAccelerateConfiguration GetBucketRequestPayment
		PutBucketRequestPayment GetAnalyticsConfiguration PutAnalyticsConfiguration
		GetInventoryConfiguration PutInventoryConfiguration GetMetricsConfiguration
		PutMetricsConfiguration GetIntelligentTieringConfiguration PutIntelligentTieringConfiguration`) {
		m["s3:"+strings.ToLower(a)] = resBucket
	}
	for _, a := range strings.Fields(`
		GetObject GetObjectVersion PutObject DeleteObject DeleteObjectVersion
		GetObjectAcl GetObjectVersionAcl PutObjectAcl PutObjectVersionAcl
		GetObjectTagging GetObjectVersionTagging PutObjectTagging PutObjectVersionTagging
		DeleteObjectTagging DeleteObjectVersionTagging GetObjectAttributes GetObjectVersionAttributes
		AbortMultipartUpload ListMultipartUploadParts RestoreObject
		GetObjectRetention PutObjectRetention GetObjectLegalHold PutObjectLegalHold
		BypassGovernanceRetention GetObjectTorrent GetObjectVersionTorrent
		ReplicateObject ReplicateDelete ReplicateTags GetObjectVersionForReplication
		ObjectOwnerOverrideToBucketOwner`) {
		m["s3:"+strings.ToLower(a)] = resObject
	}
	for _, a := range strings.Fields(`ListAllMyBuckets GetAccountPublicAccessBlock PutAccountPublicAccessBlock`) {
		m["s3:"+strings.ToLower(a)] = resAccount
	}
	return m
}

// actionTypes returns the resource types the known actions matching the
// (lower-case) pattern apply to; zero means the pattern names no action.
func actionTypes(known map[string]resType, pattern []seg) resType {
	var t resType
	for name, rt := range known {
		if matchSegs(pattern, name, nil, ignoreCase) {
			t |= rt
		}
	}
	return t
}
