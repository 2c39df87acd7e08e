package metadata

import (
	"fmt"
	"time"
)

// Bucket is the record of one S3 bucket.
type Bucket struct {
	// Name is the bucket name; it is the record's bbolt key and is not
	// part of its encoding.
	Name string
	// ID is the bucket's identity, which outlives its name: CreateBucket
	// gives every bucket a new one, never given before in this index, so
	// a bucket deleted and created again under the same name (perhaps by
	// another user) is told apart from the one a request was authorized
	// against. It is never zero in a stored record.
	ID      uint64
	Created time.Time
	// Owner is the access key id of the creator; it may be empty.
	Owner  string
	Region string
	// Policy is the bucket policy document as the client sent it (JSON),
	// or "" for none. The api validates it before it is stored.
	Policy string
	// CORS is the bucket's CORS configuration (S3 XML), or "" for none.
	CORS string
	// PublicRead was set by the canned ACL public-read before buckets had
	// ACLs, when it let everyone read and list the bucket's objects. It
	// is only read: the object layer turns it into an equivalent bucket
	// policy when it opens the index (MigratePublicRead) and clears it.
	PublicRead bool
	// ACL is the bucket's access control list in pkg/access's stored form
	// (access.ACL.String, access.NoGrants for a list without grants), or
	// "" for the owner's FULL_CONTROL alone.
	ACL string
	// Ownership is the bucket's Object Ownership ("ObjectWriter",
	// "BucketOwnerPreferred", "BucketOwnerEnforced"), or "" when no
	// ownership controls were set (which behaves as ObjectWriter).
	Ownership string
	// PublicAccessBlock is the bucket's Block Public Access configuration
	// as PublicAccessBlock* bits; zero means none was set.
	PublicAccessBlock uint8
	// CacheControl is the Cache-Control sent with the bucket's objects
	// that were stored without one, or "" for the server's default
	// (docs/cdn.md).
	CacheControl string
	// Tags is the bucket's tag set (PutBucketTagging) as a URL query,
	// k=v pairs sorted by key, or "" for none. A string keeps Bucket
	// comparable.
	Tags string
	// Website is the bucket's website configuration (S3 XML, the
	// canonical form PutBucketWebsite stored), or "" for none.
	Website string
	// Versioning is "" for a bucket whose versioning was never enabled,
	// then VersioningEnabled or VersioningSuspended.
	Versioning string
	// ObjectLock is set when Object Lock is enabled (at creation, or by
	// PutObjectLockConfiguration on a versioned bucket); it is never
	// cleared, and such a bucket's versioning stays Enabled.
	ObjectLock bool
	// LockMode and LockDays or LockYears are the default retention of new
	// object versions; LockMode is "" for none.
	LockMode  string
	LockDays  int
	LockYears int
	// Lifecycle is the bucket's lifecycle configuration (S3 XML, the
	// canonical form PutBucketLifecycleConfiguration stored), or "" for
	// none.
	Lifecycle string
	// SSEAlgorithm ("AES256" or "aws:kms") and SSEKeyID are the bucket's
	// default encryption (PutBucketEncryption), applied to every write
	// without encryption headers of its own; "" for none. SSEBucketKey is
	// BucketKeyEnabled, kept and answered (every object has its own data
	// key either way).
	SSEAlgorithm string
	SSEKeyID     string
	SSEBucketKey bool
}

// The versioning states of a bucket (Bucket.Versioning).
const (
	VersioningEnabled   = "Enabled"
	VersioningSuspended = "Suspended"
)

// Versioned reports whether the bucket's versioning was ever enabled: its
// writes then go through EditVersions.
func (b *Bucket) Versioned() bool { return b.Versioning != "" }

// CreateBucket records a new, empty bucket under a new identity (b.ID is
// ignored; Bucket returns the one given). It returns ErrBucketExists if a
// bucket named b.Name exists, and an error for an empty name.
func (ix *Index) CreateBucket(b Bucket) error {
	if err := checkBucketName(b.Name); err != nil {
		return err
	}
	if _, err := b.MarshalBinary(); err != nil {
		return err
	}
	name := []byte(b.Name)
	return ix.update(func(tx kvTx) error {
		records := tx.Bucket(bucketsBucket)
		if records.Get(name) != nil {
			return ErrBucketExists
		}
		id, err := records.NextSequence()
		if err != nil {
			return written(err)
		}
		b.ID = id
		v, err := b.MarshalBinary()
		if err != nil {
			return written(err)
		}
		if err := records.Put(name, v); err != nil {
			return written(err)
		}
		_, err = tx.Bucket(objectsBucket).CreateBucket(name)
		return written(err)
	})
}

// identify gives every bucket record without an identity (written before
// buckets had one) a new one. Open runs it in its set-up transaction, so
// every record read afterwards has an ID.
func identify(tx kvTx) error {
	records := tx.Bucket(bucketsBucket)
	var missing [][]byte
	err := records.ForEach(func(k, v []byte) error {
		var b Bucket
		if err := b.UnmarshalBinary(v); err != nil {
			return fmt.Errorf("metadata: bucket %q: %w", k, err)
		}
		if b.ID == 0 {
			missing = append(missing, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range missing {
		var b Bucket
		if err := b.UnmarshalBinary(records.Get(k)); err != nil {
			return err
		}
		if b.ID, err = records.NextSequence(); err != nil {
			return err
		}
		v, err := b.MarshalBinary()
		if err != nil {
			return err
		}
		if err := records.Put(k, v); err != nil {
			return err
		}
	}
	return nil
}

// Bucket returns the record of the named bucket, or ErrNoSuchBucket.
func (ix *Index) Bucket(name string) (Bucket, error) {
	var b Bucket
	err := ix.bucketRecord(name, func(v []byte) error {
		if err := b.UnmarshalBinary(v); err != nil {
			return fmt.Errorf("metadata: bucket %q: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return Bucket{}, err
	}
	b.Name = name
	return b, nil
}

// BucketID returns the identity (Bucket.ID) of the named bucket, or
// ErrNoSuchBucket. It decodes nothing else of the record: writes check
// it on every commit.
func (ix *Index) BucketID(name string) (uint64, error) {
	var id uint64
	err := ix.bucketRecord(name, func(v []byte) error {
		var err error
		if id, err = bucketIDOf(v); err != nil {
			return fmt.Errorf("metadata: bucket %q: %w", name, err)
		}
		return nil
	})
	return id, err
}

// BucketState is what a write needs of its bucket's record: its
// identity, versioning and Object Lock configuration.
type BucketState struct {
	ID                  uint64
	Versioning          string
	ObjectLock          bool
	LockMode            string
	LockDays, LockYears int
}

// Versioned reports whether the bucket's versioning was ever enabled.
func (s BucketState) Versioned() bool { return s.Versioning != "" }

// BucketState returns the state of the named bucket, or ErrNoSuchBucket,
// decoding only those fields of its record. On a shared catalogue it may
// lag another gateway's change by the time its notification takes
// (bucket_cache.go); a write checks FreshBucketState under its locks.
func (ix *Index) BucketState(name string) (BucketState, error) {
	if ix.pg == nil {
		return ix.FreshBucketState(name)
	}
	var st BucketState
	err := ix.bucketRecord(name, func(v []byte) error {
		var err error
		if st, err = bucketStateOf(v); err != nil {
			return fmt.Errorf("metadata: bucket %q: %w", name, err)
		}
		return nil
	})
	return st, err
}

// FreshBucketState is BucketState read from the catalogue itself, never
// from a cache: what a write checks once it holds its locks.
func (ix *Index) FreshBucketState(name string) (BucketState, error) {
	var st BucketState
	err := ix.viewOne(func(tx kvTx) error {
		v := tx.Bucket(bucketsBucket).Get([]byte(name))
		if v == nil {
			return ErrNoSuchBucket
		}
		var err error
		if st, err = bucketStateOf(v); err != nil {
			return fmt.Errorf("metadata: bucket %q: %w", name, err)
		}
		return nil
	})
	return st, err
}

// bucketRecord calls fn with the encoded record of the named bucket, or
// returns ErrNoSuchBucket. On a shared catalogue the record comes through
// its cache (bucket_cache.go).
func (ix *Index) bucketRecord(name string, fn func(v []byte) error) error {
	if ix.pg == nil {
		return ix.viewOne(func(tx kvTx) error {
			v := tx.Bucket(bucketsBucket).Get([]byte(name))
			if v == nil {
				return ErrNoSuchBucket
			}
			return fn(v)
		})
	}
	if err := ix.failure(); err != nil {
		return err
	}
	c := ix.pg.buckets
	v, ok := c.get(name)
	if !ok {
		epoch := c.epoch.Load()
		err := ix.viewOne(func(tx kvTx) error {
			v = tx.Bucket(bucketsBucket).Get([]byte(name))
			return nil
		})
		if err != nil {
			return err
		}
		c.put(name, v, epoch)
	}
	if v == nil {
		return ErrNoSuchBucket
	}
	return fn(v)
}

// bucketStateOf decodes only the BucketState fields of an encoded bucket
// record.
func bucketStateOf(v []byte) (BucketState, error) {
	var st BucketState
	err := decode(v, func(tag uint64, p []byte) error {
		var err error
		switch tag {
		case tagBktID:
			st.ID, err = parseUint(p)
		case tagBktVersioning:
			st.Versioning = intern(p)
		case tagBktObjectLock:
			st.ObjectLock, err = parseFlag(p)
		case tagBktLockMode:
			st.LockMode = intern(p)
		case tagBktLockDays:
			st.LockDays, err = parseSmall(p)
		case tagBktLockYears:
			st.LockYears, err = parseSmall(p)
		}
		return err
	})
	return st, err
}

// bucketIDOf decodes only the ID of an encoded bucket record.
func bucketIDOf(v []byte) (uint64, error) {
	var id uint64
	err := decode(v, func(tag uint64, p []byte) error {
		if tag != tagBktID {
			return nil
		}
		var err error
		id, err = parseUint(p)
		return err
	})
	return id, err
}

// Buckets returns every bucket record, sorted by name.
func (ix *Index) Buckets() ([]Bucket, error) {
	var out []Bucket
	err := ix.view(func(tx kvTx) error {
		return tx.Bucket(bucketsBucket).ForEach(func(k, v []byte) error {
			var b Bucket
			if err := b.UnmarshalBinary(v); err != nil {
				return fmt.Errorf("metadata: bucket %q: %w", k, err)
			}
			b.Name = string(k)
			out = append(out, b)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteBucket removes the record of an empty bucket. It returns
// ErrNoSuchBucket if there is none, and ErrBucketNotEmpty if the bucket
// holds any object record, noncurrent version or delete marker. The
// emptiness check is two cursor steps.
func (ix *Index) DeleteBucket(name string) error {
	key := []byte(name)
	return ix.update(func(tx kvTx) error {
		records := tx.Bucket(bucketsBucket)
		if records.Get(key) == nil {
			return ErrNoSuchBucket
		}
		if hasVersions(tx, key) {
			return ErrBucketNotEmpty
		}
		if tx.Bucket(versionsBucket).Bucket(key) != nil {
			if err := tx.Bucket(versionsBucket).DeleteBucket(key); err != nil {
				return written(err)
			}
		}
		objects := tx.Bucket(objectsBucket)
		if nested := objects.Bucket(key); nested != nil {
			if k, _ := nested.Cursor().First(); k != nil {
				return ErrBucketNotEmpty
			}
			if err := objects.DeleteBucket(key); err != nil {
				return written(err)
			}
		}
		if err := dropUploads(tx, key); err != nil {
			return err
		}
		return written(records.Delete(key))
	})
}

// checkBucketName rejects names bbolt cannot store. S3's naming rules are
// the object layer's business.
func checkBucketName(name string) error {
	if name == "" || len(name) > maxKeySize {
		return fmt.Errorf("metadata: invalid bucket name %q", name)
	}
	return nil
}

// objects returns the nested bucket of the named S3 bucket's object
// records, or ErrNoSuchBucket.
func objects(tx kvTx, bucket string) (kvBucket, error) {
	b := kvSub(tx.Bucket(objectsBucket), bucket)
	if b == nil {
		return nil, ErrNoSuchBucket
	}
	return b, nil
}

// Bits of Bucket.PublicAccessBlock: the four settings of S3's Block
// Public Access, and PublicAccessBlockSet, present whenever a
// configuration was put (one with every setting false included).
const (
	PublicAccessBlockSet uint8 = 1 << iota
	BlockPublicAcls
	IgnorePublicAcls
	BlockPublicPolicy
	RestrictPublicBuckets
)
