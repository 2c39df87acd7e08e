package edge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The catalogue: one bbolt bucket, key "bucket/key" (bucket names cannot
// hold a slash, so the first one separates them), value a JSON record.
// Records are written on fills and revalidations only, never on hits, so
// their encoding is not on any hot path; JSON keeps them readable with
// any bbolt tool.

var objectsBucket = []byte("objects")

// catalogVersion is stored in every record; a record of another version
// is dropped at load (its file is removed) rather than misread.
const catalogVersion = 1

// record is an entry as the catalogue keeps it.
type record struct {
	Version      int                 `json:"v"`
	ID           string              `json:"id"`
	Size         int64               `json:"size"`
	ETag         string              `json:"etag"`
	Header       map[string][]string `json:"header,omitempty"`
	Fetched      time.Time           `json:"fetched"`
	FreshUntil   time.Time           `json:"fresh_until"`
	StaleIfError time.Duration       `json:"stale_if_error"`
	SliceSize    int64               `json:"slice_size"`
	Slices       []byte              `json:"slices"`
	LastAccess   time.Time           `json:"last_access"`
}

type catalog struct {
	db *bolt.DB
	// syncDir is the disk's data directory, opened at attach for the
	// flushes' syncfs (openSyncDir); nil: each file is synced.
	syncDir *os.File
	// perFileSync is set once a syncfs failed: from then on each file
	// is synced (see syncBatch).
	perFileSync atomic.Bool
}

func openCatalog(path string, noSync bool) (*catalog, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoSync: noSync})
	if err != nil {
		return nil, fmt.Errorf("edge: open catalogue %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(objectsBucket)
		return err
	}); err != nil {
		db.Close()
		return nil, err
	}
	return &catalog{db: db}, nil
}

func (c *catalog) close() error {
	if c.syncDir != nil {
		c.syncDir.Close()
	}
	return c.db.Close()
}

// load calls fn with every record; a record that does not decode is
// passed with ok=false so that its file can be removed.
func (c *catalog) load(fn func(ck string, r record, ok bool)) error {
	return c.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(objectsBucket).ForEach(func(k, v []byte) error {
			var r record
			err := json.Unmarshal(v, &r)
			fn(string(k), r, err == nil && r.Version == catalogVersion && r.ID != "")
			return nil
		})
	})
}

// deleteRecord deletes the record of ck if it is still the one of file
// id: a newer version's record stays.
func deleteRecord(b *bolt.Bucket, ck, id string) error {
	v := b.Get([]byte(ck))
	if v == nil {
		return nil
	}
	var r record
	if err := json.Unmarshal(v, &r); err == nil && r.ID != id {
		return nil
	}
	return b.Delete([]byte(ck))
}

// removeMany deletes the records of the given keys whatever their file.
func (c *catalog) removeMany(cks []string) error {
	if len(cks) == 0 {
		return nil
	}
	return c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(objectsBucket)
		for _, ck := range cks {
			if err := b.Delete([]byte(ck)); err != nil {
				return err
			}
		}
		return nil
	})
}

// touchAll records the last access time of many entries in one
// transaction (at shutdown, so that the LRU order survives a restart).
func (c *catalog) touchAll(times map[string]time.Time) error {
	return c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(objectsBucket)
		for ck, t := range times {
			v := b.Get([]byte(ck))
			if v == nil {
				continue
			}
			var r record
			if json.Unmarshal(v, &r) != nil {
				continue
			}
			r.LastAccess = t
			nv, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(ck), nv); err != nil {
				return err
			}
		}
		return nil
	})
}

var errCatalogClosed = errors.New("edge: catalogue closed")
