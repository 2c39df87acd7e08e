package metadata

import (
	"path/filepath"
	"testing"
)

func init() {
	kvEngineMakers = append(kvEngineMakers, kvEngineMaker{name: "bbolt", open: openBoltTestEngine})
}

func openBoltTestEngine(t *testing.T) engine {
	t.Helper()
	e, err := openBolt(filepath.Join(t.TempDir(), "kv.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.close() })
	return e
}

// An empty value reads back as a non-nil empty slice, in the transaction
// that put it and after, through Get, cursors and ForEach; nil is for
// absent keys and nested buckets.
func TestBoltEmptyValues(t *testing.T) {
	e := openBoltTestEngine(t)
	check := func(b kvBucket, when string) {
		t.Helper()
		for _, k := range []string{"nil", "empty"} {
			if v := b.Get([]byte(k)); v == nil || len(v) != 0 {
				t.Errorf("%s: Get(%q) = %#v, want a non-nil empty value", when, k, v)
			}
		}
		if v := b.Get([]byte("absent")); v != nil {
			t.Errorf("%s: Get of an absent key = %#v", when, v)
		}
		if v := b.Get([]byte("nested")); v != nil {
			t.Errorf("%s: Get of a nested bucket's name = %#v", when, v)
		}
		seen := map[string]bool{}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			seen[string(k)] = v == nil
		}
		if len(seen) != 3 || seen["empty"] || seen["nil"] || !seen["nested"] {
			t.Errorf("%s: cursor saw (key: value is nil) %v", when, seen)
		}
		if k, v := c.Seek([]byte("em")); string(k) != "empty" || v == nil {
			t.Errorf("%s: Seek = %q %#v", when, k, v)
		}
		err := b.ForEach(func(k, v []byte) error {
			if (v == nil) != (string(k) == "nested") {
				t.Errorf("%s: ForEach %q: %#v", when, k, v)
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
	err := e.update(func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("top"))
		if err != nil {
			return err
		}
		if err := b.Put([]byte("nil"), nil); err != nil {
			return err
		}
		if err := b.Put([]byte("empty"), []byte{}); err != nil {
			return err
		}
		if _, err := b.CreateBucket([]byte("nested")); err != nil {
			return err
		}
		check(b, "same transaction")
		if tx.Bucket([]byte("missing")) != nil {
			t.Error("Bucket of a missing top-level bucket is not nil")
		}
		if b.Bucket([]byte("empty")) != nil {
			t.Error("Bucket of a value's key is not nil")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = e.view(func(tx kvTx) error {
		check(tx.Bucket([]byte("top")), "after commit")
		if tx.Writable() {
			t.Error("a view is writable")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The adapters are pointer-shaped: reading through them allocates
// nothing more than bbolt does.
func TestBoltAdaptersDoNotAllocate(t *testing.T) {
	e := openBoltTestEngine(t)
	err := e.update(func(tx kvTx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("top"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	})
	if err != nil {
		t.Fatal(err)
	}
	be := e.(*boltEngine)
	btx, err := be.db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer btx.Rollback()
	var tx kvTx = boltTx{btx}
	top, k := []byte("top"), []byte("k")
	allocs := testing.AllocsPerRun(100, func() {
		b := tx.Bucket(top)
		if b.Get(k) == nil || b.Bucket(k) != nil {
			t.Fatal("wrong read")
		}
	})
	raw := testing.AllocsPerRun(100, func() {
		b := btx.Bucket(top)
		if b.Get(k) == nil || b.Bucket(k) != nil {
			t.Fatal("wrong read")
		}
	})
	if allocs != raw {
		t.Errorf("reads through the adapters allocate %.1f times, bbolt's own %.1f", allocs, raw)
	}
}
