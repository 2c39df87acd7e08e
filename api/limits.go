package api

// The size limits of request documents, by operation. A body over its
// limit is refused with MaxMessageLengthExceeded (S3's answer to an
// oversized request document) before it is parsed: when Content-Length
// already says so, without reading it; otherwise as soon as the limit is
// passed, so no request holds more than its limit in memory.
const (
	// maxCreateBucketBody bounds a CreateBucketConfiguration, which holds
	// one LocationConstraint.
	maxCreateBucketBody = 64 << 10
	// maxTaggingBody bounds a Tagging document: ten tags of at most 128 +
	// 256 characters, even written as numeric character references,
	// take under 40 KiB.
	maxTaggingBody = 64 << 10
	// maxBucketTaggingBody bounds a bucket's Tagging document: 50 tags of
	// 128 + 256 characters as numeric character references take about
	// 200 KiB.
	maxBucketTaggingBody = 256 << 10
	// maxPolicyBody bounds the read of a bucket policy. pkg/policy then
	// refuses documents over S3's 20 KiB with MalformedPolicy, as S3 does.
	maxPolicyBody = 64 << 10
)
