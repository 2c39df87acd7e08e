package awschunked_test

import (
	"encoding/base64"

	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/objectgateway/objectgateway/pkg/checksum"
)

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// s3Algorithm maps a checksum algorithm to the SDK's enum.
func s3Algorithm(a checksum.Algorithm) types.ChecksumAlgorithm {
	switch a {
	case checksum.CRC32:
		return types.ChecksumAlgorithmCrc32
	case checksum.CRC32C:
		return types.ChecksumAlgorithmCrc32c
	case checksum.CRC64NVME:
		return types.ChecksumAlgorithmCrc64nvme
	case checksum.SHA1:
		return types.ChecksumAlgorithmSha1
	case checksum.SHA256:
		return types.ChecksumAlgorithmSha256
	case checksum.SHA512:
		return types.ChecksumAlgorithmSha512
	}
	return ""
}
