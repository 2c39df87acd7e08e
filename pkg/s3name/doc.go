// Package s3name validates bucket names and object keys against the rules
// Amazon S3 enforces, so that the gateway refuses exactly the names S3
// refuses and accepts every name S3 accepts.
//
// Bucket names follow the general purpose bucket naming rules of the S3 User
// Guide ("General purpose bucket naming rules"): 3–63 characters of
// lowercase letters, digits, '.' and '-', starting and ending with a letter
// or digit, no "..", no hyphen next to a period ("a-.b", "a.-b"), not an
// IPv4 address, and none of the reserved prefixes (xn--, sthree-,
// amzn-s3-demo-) or suffixes (-s3alias, --ol-s3, .mrap, --x-s3,
// --table-s3).
//
// Object keys follow "Naming Amazon S3 objects": any sequence of Unicode
// characters encoded as UTF-8, at most 1,024 bytes.
//
// # Caveats
//
// ValidBucketName applies the rules for creating a bucket. Legacy
// us-east-1 buckets could have uppercase letters or underscores; a directory
// with such a name found under the root is for the object layer to handle,
// not for this package to bless.
//
// ValidKey deliberately accepts control characters, NUL included, a
// leading '/', "." and ".." segments and trailing '/': S3 accepts them all,
// and the storage layer keeps keys a filesystem cannot hold in its shadow
// area. Mapping a key to a path is not this package's business.
package s3name
