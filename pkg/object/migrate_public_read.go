package object

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/objectgateway/objectgateway/metadata"
)

// Migrated is one bucket whose canned public-read of an earlier version
// MigratePublicRead turned into a bucket policy.
type Migrated struct {
	Bucket string
	// Dropped is set when the bucket's Block Public Access had
	// IgnorePublicAcls on, so that the public-read granted nothing: it is
	// cleared without a policy, which would grant more than it did.
	Dropped bool
}

// errUnchanged stops an UpdateBucket that finds nothing to migrate (the
// record changed since it was listed).
var errUnchanged = errors.New("object: bucket unchanged")

// migratedStatements are what the old canned public-read let everyone do,
// as bucket policy statements: read every object and its versions, and
// list the bucket, its versions and its uploads.
func migratedStatements(bucket string) []any {
	return []any{
		map[string]any{
			"Sid": "MigratedPublicReadObjects", "Effect": "Allow", "Principal": "*",
			"Action":   []any{"s3:GetObject", "s3:GetObjectVersion"},
			"Resource": "arn:aws:s3:::" + bucket + "/*",
		},
		map[string]any{
			"Sid": "MigratedPublicReadListing", "Effect": "Allow", "Principal": "*",
			"Action":   []any{"s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads"},
			"Resource": "arn:aws:s3:::" + bucket,
		},
	}
}

// mergePublicRead returns the bucket policy doc (JSON, "" for none) with
// migratedStatements added.
func mergePublicRead(bucket, doc string) (string, error) {
	p := map[string]any{"Version": "2012-10-17"}
	if doc != "" {
		d := json.NewDecoder(strings.NewReader(doc))
		d.UseNumber()
		if err := d.Decode(&p); err != nil {
			return "", fmt.Errorf("object: bucket %q: stored policy: %w", bucket, err)
		}
	}
	var st []any
	switch v := p["Statement"].(type) {
	case []any:
		st = v
	case nil:
	default:
		st = []any{v}
	}
	p["Statement"] = append(st, migratedStatements(bucket)...)
	out, err := json.Marshal(p)
	return string(out), err
}

// MigratePublicRead turns the canned public-read of buckets written by an
// earlier version (Bucket.PublicRead, which let everyone read objects)
// into the bucket policy that grants the same (migratedStatements),
// merged into the bucket's policy, and clears it: public-read now means
// what it means in S3, listing only. Each bucket changes in one index
// transaction, so the migration happens once and survives a crash half
// way. Open runs it; it returns the buckets it changed.
func (l *Layer) MigratePublicRead() ([]Migrated, error) {
	bs, err := l.ix.Buckets()
	if err != nil {
		return nil, err
	}
	var out []Migrated
	for _, b := range bs {
		if !b.PublicRead {
			continue
		}
		var m Migrated
		err := l.ix.UpdateBucket(b.Name, func(b *Bucket) error {
			if !b.PublicRead {
				return errUnchanged
			}
			m = Migrated{Bucket: b.Name, Dropped: b.PublicAccessBlock&metadata.IgnorePublicAcls != 0}
			if !m.Dropped {
				doc, err := mergePublicRead(b.Name, b.Policy)
				if err != nil {
					return err
				}
				b.Policy = doc
			}
			b.PublicRead = false
			return nil
		})
		switch {
		case errors.Is(err, errUnchanged):
			continue
		case err != nil:
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}
