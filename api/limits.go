package api

import (
	"context"

	"golang.org/x/sync/semaphore"

	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The size limits of request documents, by operation. A body over its
// limit is refused with MaxMessageLengthExceeded (S3's answer to an
// oversized request document) before it is parsed: when Content-Length
// already says so, without reading it; otherwise as soon as the limit is
// passed. What a body may hold in memory across requests is bounded by the
// document budget (Options.DocumentMemory).
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
	// maxBucketConfigBody bounds a VersioningConfiguration and an
	// ObjectLockConfiguration, which hold a few short elements: under
	// 300 bytes as SDKs write them.
	maxBucketConfigBody = 64 << 10
	// maxPolicyBody bounds the read of a bucket policy. pkg/policy then
	// refuses documents over S3's 20 KiB with MalformedPolicy, as S3 does.
	maxPolicyBody = 64 << 10
	// maxDocumentBody is the largest of the limits (maxCompleteBody).
	maxDocumentBody = maxCompleteBody
)

// maxACLGrants is S3's limit on the grants of one access control list;
// more is MalformedACLError.
const maxACLGrants = 100

// The token limits of request documents (see xmlDoc), over which a
// document is MalformedXML. encoding/xml allocates about 100 bytes for
// each token it returns, so these bound what parsing a document costs
// beyond its bytes. Each limit allows more tokens for every element S3
// lets a document repeat than clients send: SDKs write no white space
// between elements, and the counts below are those of elements written
// one to a line.
const (
	// tokensOfRoot is what every limit allows outside the repeated
	// elements: the XML declaration, the root, an Owner or a Quiet.
	tokensOfRoot = 64
	// maxCompleteTokens allows 16 tokens a Part: a Part with its number,
	// its ETag and one checksum has 16 (11 as SDKs write it).
	maxCompleteTokens = 16*object.MaxParts + tokensOfRoot
	// maxDeleteTokens allows 32 tokens an Object: an Object with Key,
	// VersionId, ETag, LastModifiedTime and Size has 24.
	maxDeleteTokens = 32*maxDeleteKeys + tokensOfRoot
	// maxACLTokens allows 32 tokens a Grant: a Grant to a Grantee with
	// ID and DisplayName has 20.
	maxACLTokens = 32*maxACLGrants + tokensOfRoot
	// maxCreateBucketTokens allows a CreateBucketConfiguration with a
	// LocationConstraint, a Location and a Bucket (about 40 tokens) many
	// times over.
	maxCreateBucketTokens = 1024
	// maxConfigTokens allows a VersioningConfiguration, an
	// ObjectLockConfiguration, a ServerSideEncryptionConfiguration, a
	// Retention or a LegalHold, the largest of which (an
	// ObjectLockConfiguration with its Rule) has under 30 tokens, many
	// times over.
	maxConfigTokens = 1024
)

// maxTagTokens is the token limit of a Tagging document of at most
// maxTags tags: 32 tokens a Tag (a Tag with Key and Value has 12).
func maxTagTokens(maxTags int) int {
	return 32*maxTags + tokensOfRoot
}

// DefaultDocumentMemory is the default of Options.DocumentMemory.
const DefaultDocumentMemory = 64 << 20

// documentBudget bounds the bytes of request documents (the XML and JSON
// bodies read whole: DeleteObjects, CompleteMultipartUpload, ACLs,
// tagging, CORS, policies, CreateBucket) held at once across requests. A
// request takes its share before it reads its body, as much as the body
// may need (its length when the client states it, else the operation's
// limit), and gives it back when its answer is written. A request that
// finds the budget spent waits for its share, in arrival order, for as
// long as its context lives: a burst of large documents is served one
// share after the other instead of failing, and the number of waiting
// requests is itself bounded by Options.MaxInFlight.
type documentBudget struct {
	sem *semaphore.Weighted
	// waiting, when set, is called when a request starts to wait; tests
	// use it to know that a request waits.
	waiting func()
}

// newDocumentBudget returns a budget of size bytes, at least the largest
// document one request may need.
func newDocumentBudget(size int64) *documentBudget {
	size = max(size, documentShare(maxDocumentBody, -1))
	return &documentBudget{sem: semaphore.NewWeighted(size)}
}

// documentShare is the budget a body of a stated size (-1: unknown) needs
// under limit: what readDocument allocates for it.
func documentShare(limit, size int64) int64 {
	if size < 0 || size > limit {
		size = limit
	}
	return size + 1
}

// take waits for n bytes of the budget, or until ctx is done, which is
// SlowDown.
func (b *documentBudget) take(ctx context.Context, n int64) error {
	if b.sem.TryAcquire(n) {
		return nil
	}
	if b.waiting != nil {
		b.waiting()
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return s3err.Wrap(s3err.SlowDown, err)
	}
	return nil
}

// give returns n bytes taken with take.
func (b *documentBudget) give(n int64) {
	if n > 0 {
		b.sem.Release(n)
	}
}
