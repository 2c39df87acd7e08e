package s3name

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// MaxKeyLen is the longest object key S3 accepts, in bytes of UTF-8.
const MaxKeyLen = 1024

// reservedPrefixes and reservedSuffixes are the bucket-name affixes S3
// reserves for its own features (punycode labels, S3 internals, docs
// examples, access point and Object Lambda aliases, Multi-Region Access
// Points, directory buckets and table buckets).
var (
	reservedPrefixes = [...]string{"xn--", "sthree-", "amzn-s3-demo-"}
	reservedSuffixes = [...]string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"}
)

// ValidBucketName returns nil if name is a valid general purpose bucket name,
// and otherwise an *s3err.Error with code InvalidBucketName that names the
// bucket and the rule it breaks.
func ValidBucketName(name string) error {
	reason := bucketNameProblem(name)
	// S3 refuses a hyphen next to a period although the naming rules page
	// no longer lists it: each dot-separated label must begin and end with
	// a letter or number, as DNS labels do (minio-go and Ceph RGW enforce
	// the same). It is a rule for new buckets only: see
	// ValidExistingBucketName.
	if reason == "" && (strings.Contains(name, ".-") || strings.Contains(name, "-.")) {
		reason = "bucket names must not contain a hyphen next to a period"
	}
	if reason != "" {
		return s3err.Newf(s3err.InvalidBucketName, "The specified bucket is not valid: %s.", reason).
			With("BucketName", name)
	}
	return nil
}

// ValidExistingBucketName is ValidBucketName for buckets that may exist
// already — directories that scan imports or fsck checks, buckets of an
// edge's origin — without the rules the gateway started to enforce on new
// buckets later (a hyphen next to a period), so that a bucket imported by
// an earlier version keeps being served.
func ValidExistingBucketName(name string) error {
	if reason := bucketNameProblem(name); reason != "" {
		return s3err.Newf(s3err.InvalidBucketName, "The specified bucket is not valid: %s.", reason).
			With("BucketName", name)
	}
	return nil
}

func bucketNameProblem(name string) string {
	if len(name) < 3 || len(name) > 63 {
		return "bucket names must be between 3 and 63 characters long"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isLowerAlnum(c) && c != '.' && c != '-' {
			return "bucket names can consist only of lowercase letters, numbers, periods and hyphens"
		}
	}
	if !isLowerAlnum(name[0]) || !isLowerAlnum(name[len(name)-1]) {
		return "bucket names must begin and end with a letter or number"
	}
	if strings.Contains(name, "..") {
		return "bucket names must not contain two adjacent periods"
	}
	if looksLikeIPv4(name) {
		return "bucket names must not be formatted as an IP address"
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(name, p) {
			return "bucket names must not start with the reserved prefix " + p
		}
	}
	for _, s := range reservedSuffixes {
		if strings.HasSuffix(name, s) {
			return "bucket names must not end with the reserved suffix " + s
		}
	}
	return ""
}

func isLowerAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// looksLikeIPv4 reports whether name is four dot-separated runs of digits.
// S3 rejects every such name, not only those whose octets are ≤ 255.
func looksLikeIPv4(name string) bool {
	parts, digits := 1, 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '.':
			if digits == 0 {
				return false
			}
			parts, digits = parts+1, 0
		case '0' <= c && c <= '9':
			digits++
		default:
			return false
		}
	}
	return parts == 4 && digits > 0
}

// ValidKey returns nil if key is a valid S3 object key. It returns an
// *s3err.Error with code
//   - InvalidArgument for the empty key (S3 has no object without a name);
//   - KeyTooLongError for a key longer than MaxKeyLen bytes;
//   - InvalidURI for a key that is not valid UTF-8. S3 defines keys as UTF-8
//     and answers 400 to a request whose percent-decoded path is not, with
//     "Couldn't parse the specified URI".
//
// Every other key is valid, including ones with control characters or NUL:
// the S3 User Guide says any UTF-8 character may be used and lists control
// characters only under "characters to avoid", as a client-side caution.
func ValidKey(key string) error {
	switch {
	case key == "":
		return &s3err.Error{Code: s3err.InvalidArgument, Message: "The object key must not be empty."}
	case len(key) > MaxKeyLen:
		return s3err.New(s3err.KeyTooLongError).
			With("Size", strconv.Itoa(len(key))).
			With("MaxSizeAllowed", strconv.Itoa(MaxKeyLen))
	case !utf8.ValidString(key):
		return s3err.New(s3err.InvalidURI)
	}
	return nil
}

// EscapeKey percent-encodes every byte of a key except the unreserved
// characters and '/', as S3 clients put keys in URLs and as S3 encodes
// them in listings (encoding-type=url). Both form decoding (space as '+')
// and plain percent-decoding read it back exactly.
func EscapeKey(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}
