package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// crashVHTTP is a crashVStore on a gateway over HTTP: version ids come
// from x-amz-version-id, delete markers from DeleteObject without an id,
// copies name their source version in x-amz-copy-source.
type crashVHTTP struct {
	ctx    context.Context
	client *s3.Client
}

func newCrashVHTTP(addr string) crashVHTTP {
	return crashVHTTP{ctx: context.Background(), client: crashClient(addr)}
}

func (s crashVHTTP) put(bucket, key string, body []byte) (string, error) {
	out, err := s.client.PutObject(s.ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.VersionId), nil
}

func (s crashVHTTP) remove(bucket, key, versionID string) (string, error) {
	in := &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if versionID != "" {
		in.VersionId = aws.String(versionID)
	}
	out, err := s.client.DeleteObject(s.ctx, in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.VersionId), nil
}

func (s crashVHTTP) copy(bucket, srcKey, srcVersionID, dstKey string) (string, error) {
	src := bucket + "/" + url.PathEscape(srcKey) + "?versionId=" + url.QueryEscape(srcVersionID)
	out, err := s.client.CopyObject(s.ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(dstKey), CopySource: aws.String(src)})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.VersionId), nil
}

func (s crashVHTTP) multipart(bucket, key string, parts [][]byte) (string, error) {
	up, err := s.client.CreateMultipartUpload(s.ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return "", err
	}
	var done []s3types.CompletedPart
	for i, p := range parts {
		out, err := s.client.UploadPart(s.ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key),
			UploadId: up.UploadId, PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(p)})
		if err != nil {
			return "", err
		}
		done = append(done, s3types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(int32(i + 1)),
			ChecksumCRC32: out.ChecksumCRC32, ChecksumCRC32C: out.ChecksumCRC32C, ChecksumCRC64NVME: out.ChecksumCRC64NVME})
	}
	out, err := s.client.CompleteMultipartUpload(s.ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &s3types.CompletedMultipartUpload{Parts: done}})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.VersionId), nil
}

// pick lists key's versions with ListObjectVersions (the order does not
// matter here) and reads a random one that is not a delete marker.
func (s crashVHTTP) pick(bucket, key string, rng *rand.Rand) (crashVVersion, bool, error) {
	var ids []string
	p := s3.NewListObjectVersionsPaginator(s.client, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(key)})
	for range 1000 {
		if !p.HasMorePages() {
			break
		}
		page, err := p.NextPage(s.ctx)
		if err != nil {
			return crashVVersion{}, false, err
		}
		for _, v := range page.Versions {
			if aws.ToString(v.Key) == key {
				ids = append(ids, aws.ToString(v.VersionId))
			}
		}
	}
	if len(ids) == 0 {
		return crashVVersion{}, false, nil
	}
	id := ids[rng.IntN(len(ids))]
	out, err := s.client.GetObject(s.ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(id)})
	if err != nil {
		return crashVVersion{}, false, err
	}
	defer out.Body.Close()
	h := md5.New()
	if _, err := io.Copy(h, out.Body); err != nil {
		return crashVVersion{}, false, err
	}
	if id == "" {
		return crashVVersion{}, false, errors.New("a version without an id")
	}
	return crashVVersion{ID: id, MD5: hex.EncodeToString(h.Sum(nil))}, true, nil
}
