package metadata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// openTest opens a fresh index in t.TempDir with NoSync (tests do not need
// durability) and, at cleanup, checks the index's invariants and closes it.
func openTest(t testing.TB) *Index {
	t.Helper()
	if testEngine() == "postgres" {
		return openPGTest(t)
	}
	ix, err := Open(filepath.Join(t.TempDir(), "index.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		checkInvariants(t, ix)
		if err := ix.Close(); err != nil {
			t.Error(err)
		}
	})
	return ix
}

// boltOnly skips a test of what only the bbolt engine does (reading
// records in place in its memory map, its file) when the suite runs on
// another engine.
func boltOnly(t testing.TB) {
	t.Helper()
	if testEngine() != "bbolt" {
		t.Skip("bbolt's behaviour: the suite runs on " + testEngine())
	}
}

// testEngine is the engine openTest opens: OBJECTGATEWAY_TEST_INDEX
// ("postgres"), or bbolt.
func testEngine() string {
	if e := os.Getenv("OBJECTGATEWAY_TEST_INDEX"); e != "" {
		return e
	}
	return "bbolt"
}

// checkInvariants verifies bbolt's own consistency check, that bucket
// records and nested object buckets correspond one to one, and that every
// record decodes.
func checkInvariants(t testing.TB, ix *Index) {
	t.Helper()
	err := ix.kvView(func(tx kvTx) error {
		if bt, ok := tx.(boltTx); ok {
			for err := range bt.tx.Check() {
				return fmt.Errorf("bbolt check: %w", err)
			}
		}
		records, objs := tx.Bucket(bucketsBucket), tx.Bucket(objectsBucket)
		err := records.ForEach(func(k, v []byte) error {
			var b Bucket
			if err := b.UnmarshalBinary(v); err != nil {
				return fmt.Errorf("bucket %q: %w", k, err)
			}
			if objs.Bucket(k) == nil {
				return fmt.Errorf("bucket %q has no objects bucket", k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return objs.ForEachBucket(func(name []byte) error {
			if records.Get(name) == nil {
				return fmt.Errorf("objects bucket %q has no record", name)
			}
			return objs.Bucket(name).ForEach(func(k, v []byte) error {
				var o Object
				if err := o.UnmarshalBinary(v); err != nil {
					return fmt.Errorf("object %q/%q: %w", name, k, err)
				}
				return nil
			})
		})
	})
	if err != nil {
		t.Errorf("index invariants: %v", err)
	}
}

func mustCreateBucket(t testing.TB, ix *Index, name string) {
	t.Helper()
	if err := ix.CreateBucket(Bucket{Name: name}); err != nil {
		t.Fatal(err)
	}
}

func mustPut(t testing.TB, ix *Index, bucket string, o Object) {
	t.Helper()
	if err := ix.PutObject(bucket, o); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCreatesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode = %v, want 0600", perm)
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := Open(path, Options{Timeout: 10 * time.Millisecond}); !errors.Is(err, bolt.ErrTimeout) {
		t.Fatalf("second Open = %v, want bbolt timeout", err)
	}
}

func TestOpenRejectsOtherFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	err = ix.kvUpdate(func(tx kvTx) error {
		return tx.Bucket(metaBucket).Put(formatKey, []byte{formatVersion + 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if ix, err := Open(path, Options{NoSync: true}); err == nil {
		ix.Close()
		t.Fatal("Open accepted an index of another format")
	}
}

func TestReopenKeepsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	if err := ix.CreateBucket(Bucket{Name: "b", Created: created, Owner: "AK", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	want := sampleObject("dir/key")
	mustPut(t, ix, "b", want)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	got, err := ix.Object("b", "dir/key")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after reopen:\n got %+v\nwant %+v", got, want)
	}
	b, err := ix.Bucket("b")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Bucket{Name: "b", ID: 1, Created: created, Owner: "AK", Region: "us-east-1"}); b != want {
		t.Errorf("bucket = %+v, want %+v", b, want)
	}
}

func sampleObject(key string) Object {
	return Object{
		Key:                key,
		Size:               12345,
		ETag:               "9b2cf535f27731c974343645a3985328",
		LastModified:       time.Date(2026, 11, 29, 23, 52, 4, 123456789, time.UTC),
		ContentType:        "text/plain; charset=utf-8",
		ContentEncoding:    "gzip",
		ContentDisposition: `attachment; filename="a b.txt"`,
		ContentLanguage:    "en",
		CacheControl:       "max-age=60",
		Expires:            "Thu, 01 Dec 1994 16:00:00 GMT",
		UserMeta:           []KV{{"a", "1"}, {"b", ""}, {"z", "ünïcode"}},
		Checksums:          []Checksum{{"CRC64NVME", "AAAAAAAAAAA=", "FULL_OBJECT"}},
		Tags:               []KV{{"k", "v"}},
		Location:           Shadow,
		FileMtime:          1764460324123456789,
		FileInode:          42,
		PartsCount:         3,
		StorageClass:       "REDUCED_REDUNDANCY",
		WebsiteRedirect:    "https://example.com/moved",
	}
}

func TestBuckets(t *testing.T) {
	ix := openTest(t)
	if bs, err := ix.Buckets(); err != nil || len(bs) != 0 {
		t.Fatalf("Buckets on empty index = %v, %v", bs, err)
	}
	for _, name := range []string{"zeta", "alpha", "mid"} {
		mustCreateBucket(t, ix, name)
	}
	if err := ix.CreateBucket(Bucket{Name: "mid"}); err != ErrBucketExists {
		t.Errorf("CreateBucket(existing) = %v, want ErrBucketExists", err)
	}
	if err := ix.CreateBucket(Bucket{}); err == nil {
		t.Error("CreateBucket with empty name succeeded")
	}
	bs, err := ix.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	if want := []string{"alpha", "mid", "zeta"}; !slices.Equal(names, want) {
		t.Errorf("Buckets = %v, want %v", names, want)
	}
	if _, err := ix.Bucket("nope"); err != ErrNoSuchBucket {
		t.Errorf("Bucket(missing) = %v, want ErrNoSuchBucket", err)
	}

	mustPut(t, ix, "mid", Object{Key: "k"})
	if err := ix.DeleteBucket("mid"); err != ErrBucketNotEmpty {
		t.Errorf("DeleteBucket(non-empty) = %v, want ErrBucketNotEmpty", err)
	}
	if err := ix.DeleteObject("mid", "k"); err != nil {
		t.Fatal(err)
	}
	if err := ix.DeleteBucket("mid"); err != nil {
		t.Fatalf("DeleteBucket(empty) = %v", err)
	}
	if err := ix.DeleteBucket("mid"); err != ErrNoSuchBucket {
		t.Errorf("DeleteBucket(deleted) = %v, want ErrNoSuchBucket", err)
	}
	if _, err := ix.Bucket("mid"); err != ErrNoSuchBucket {
		t.Errorf("Bucket(deleted) = %v, want ErrNoSuchBucket", err)
	}
	// A recreated bucket starts empty.
	mustCreateBucket(t, ix, "mid")
	if _, err := ix.Object("mid", "k"); err != ErrNoSuchKey {
		t.Errorf("Object in recreated bucket = %v, want ErrNoSuchKey", err)
	}
}

func TestObjects(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")

	if err := ix.PutObject("nope", Object{Key: "k"}); err != ErrNoSuchBucket {
		t.Errorf("PutObject(missing bucket) = %v, want ErrNoSuchBucket", err)
	}
	if _, err := ix.Object("nope", "k"); err != ErrNoSuchBucket {
		t.Errorf("Object(missing bucket) = %v, want ErrNoSuchBucket", err)
	}
	if err := ix.DeleteObject("nope", "k"); err != ErrNoSuchBucket {
		t.Errorf("DeleteObject(missing bucket) = %v, want ErrNoSuchBucket", err)
	}
	if err := ix.UpdateObject("nope", "k", func(*Object) error { return nil }); err != ErrNoSuchBucket {
		t.Errorf("UpdateObject(missing bucket) = %v, want ErrNoSuchBucket", err)
	}
	if _, err := ix.Object("b", "k"); err != ErrNoSuchKey {
		t.Errorf("Object(missing) = %v, want ErrNoSuchKey", err)
	}
	if err := ix.DeleteObject("b", "k"); err != ErrNoSuchKey {
		t.Errorf("DeleteObject(missing) = %v, want ErrNoSuchKey", err)
	}
	if err := ix.UpdateObject("b", "k", func(*Object) error { return nil }); err != ErrNoSuchKey {
		t.Errorf("UpdateObject(missing) = %v, want ErrNoSuchKey", err)
	}
	if err := ix.PutObject("b", Object{}); err == nil {
		t.Error("PutObject with empty key succeeded")
	}
	if err := ix.PutObject("b", Object{Key: "k", Size: -1}); err == nil {
		t.Error("PutObject with negative size succeeded")
	}

	want := sampleObject("k")
	mustPut(t, ix, "b", want)
	got, err := ix.Object("b", "k")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Object:\n got %+v\nwant %+v", got, want)
	}

	// Replacing a record replaces every field.
	mustPut(t, ix, "b", Object{Key: "k", Size: 1})
	if got, _ := ix.Object("b", "k"); !reflect.DeepEqual(got, Object{Key: "k", Size: 1}) {
		t.Errorf("after replace: %+v", got)
	}

	// User metadata is stored sorted, without reordering the caller's slice.
	meta := []KV{{"z", "1"}, {"a", "2"}}
	mustPut(t, ix, "b", Object{Key: "m", UserMeta: meta})
	if meta[0].Key != "z" {
		t.Error("PutObject reordered the caller's UserMeta")
	}
	if got, _ := ix.Object("b", "m"); !slices.Equal(got.UserMeta, []KV{{"a", "2"}, {"z", "1"}}) {
		t.Errorf("UserMeta = %v, want sorted", got.UserMeta)
	}

	if err := ix.DeleteObject("b", "k"); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Object("b", "k"); err != ErrNoSuchKey {
		t.Errorf("Object(deleted) = %v, want ErrNoSuchKey", err)
	}
}

func TestLocalTimeReadsBackUTC(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	local := time.Date(2026, 6, 1, 12, 0, 0, 999, time.FixedZone("X", 3600))
	mustPut(t, ix, "b", Object{Key: "k", LastModified: local})
	got, err := ix.Object("b", "k")
	if err != nil {
		t.Fatal(err)
	}
	if got.LastModified != local.UTC() {
		t.Errorf("LastModified = %v, want %v", got.LastModified, local.UTC())
	}
}

func TestUpdateObject(t *testing.T) {
	ix := openTest(t)
	mustCreateBucket(t, ix, "b")
	mustPut(t, ix, "b", sampleObject("k"))

	err := ix.UpdateObject("b", "k", func(o *Object) error {
		if o.Key != "k" || o.Size != 12345 {
			t.Errorf("fn got %+v", o)
		}
		o.Tags = []KV{{"new", "tag"}}
		o.UserMeta = append(o.UserMeta, KV{"0", "first"})
		o.Key = "ignored"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.Object("b", "k")
	if err != nil {
		t.Fatal(err)
	}
	want := sampleObject("k")
	want.Tags = []KV{{"new", "tag"}}
	want.UserMeta = append([]KV{{"0", "first"}}, want.UserMeta...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after update:\n got %+v\nwant %+v", got, want)
	}
	if _, err := ix.Object("b", "ignored"); err != ErrNoSuchKey {
		t.Errorf("UpdateObject honoured a changed Key: %v", err)
	}

	// fn's error aborts the update and comes back unchanged.
	errAbort := errors.New("abort")
	err = ix.UpdateObject("b", "k", func(o *Object) error {
		o.Size = 1
		return errAbort
	})
	if err != errAbort {
		t.Errorf("UpdateObject = %v, want fn's error as is", err)
	}
	if got, _ := ix.Object("b", "k"); got.Size != 12345 {
		t.Errorf("aborted update wrote Size %d", got.Size)
	}
}
