package object

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// cachingGateways opens two gateways on one root and one catalogue, with
// a bucket "bkt" in the versioning state status, and skips when the
// root's filesystem keeps no stamps (no record cache then).
func cachingGateways(t *testing.T, status string) (w, r *Layer) {
	t.Helper()
	gws, _ := openGatewaysOnR(t, 2)
	if gws[1].recs == nil {
		t.Skip("the test root's filesystem keeps no user extended attributes: no record cache")
	}
	// Files written a moment ago are cached at once: the tests change
	// files through the gateways, whose stamps are what they check (and
	// the ctime moves on every change on this machine's kernel).
	// TestRecordCacheRacilyClean checks the wait.
	gws[1].recs.tick = 0
	if err := gws[0].CreateBucket(Bucket{Name: "bkt", Versioning: status}); err != nil {
		t.Fatal(err)
	}
	return gws[0], gws[1]
}

// readHit reads key through l and reports whether the record cache
// answered it.
func readHit(t *testing.T, l *Layer, key string) (Object, string, bool) {
	t.Helper()
	before := l.recs.hits.Load()
	o, body := sharedRead(t, l, key)
	return o, body, l.recs.hits.Load() > before
}

func tagValue(o Object, name string) string {
	for _, kv := range o.Tags {
		if kv.Key == name {
			return kv.Value
		}
	}
	return ""
}

// A record read through one gateway is served from its cache while its
// file carries its stamp, and every change made through another gateway
// — new bytes of the same size, tags only, a delete, the key written
// again — is seen by the next read, never the cached record.
func TestRecordCacheSeesEveryChange(t *testing.T) {
	w, r := cachingGateways(t, "")
	if _, err := sharedPut(w, "k", "first body", Conditions{}); err != nil {
		t.Fatal(err)
	}
	if _, body, hit := readHit(t, r, "k"); hit || body != "first body" {
		t.Fatalf("first read: %q, hit %v; want the body from the catalogue", body, hit)
	}
	if _, body, hit := readHit(t, r, "k"); !hit || body != "first body" {
		t.Fatalf("second read: %q, hit %v; want the body from the cache", body, hit)
	}
	if _, err := r.StatObject("bkt", "k"); err != nil {
		t.Fatal(err)
	}

	// The same size, so only the stamp and the inode tell.
	if _, err := sharedPut(w, "k", "other body", Conditions{}); err != nil {
		t.Fatal(err)
	}
	o, body, hit := readHit(t, r, "k")
	sum := md5.Sum([]byte("other body"))
	if hit || body != "other body" || o.ETag != hex.EncodeToString(sum[:]) {
		t.Fatalf("after an overwrite: %q, ETag %s, hit %v", body, o.ETag, hit)
	}
	readHit(t, r, "k")

	// Tags change the record and not the file.
	if err := w.PutObjectTagging("bkt", "k", []metadata.KV{{Key: "n", Value: "1"}}, Conditions{}); err != nil {
		t.Fatal(err)
	}
	if o, _, hit := readHit(t, r, "k"); hit || tagValue(o, "n") != "1" {
		t.Fatalf("after tagging: tags %v, hit %v", o.Tags, hit)
	}
	st, err := r.StatObject("bkt", "k")
	if err != nil || tagValue(st, "n") != "1" {
		t.Fatalf("HEAD after tagging: tags %v, %v", st.Tags, err)
	}

	if err := w.DeleteObject("bkt", "k", Conditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.OpenObject("bkt", "k"); s3err.As(err).Code != s3err.NoSuchKey {
		t.Fatalf("read after delete: %v, want NoSuchKey", err)
	}
	if _, err := r.StatObject("bkt", "k"); s3err.As(err).Code != s3err.NoSuchKey {
		t.Fatalf("HEAD after delete: %v, want NoSuchKey", err)
	}
	if _, err := sharedPut(w, "k", "third body", Conditions{}); err != nil {
		t.Fatal(err)
	}
	if _, body, _ := readHit(t, r, "k"); body != "third body" {
		t.Fatalf("after the key was written again: %q", body)
	}

	// A HEAD makes an entry too, and is answered from it.
	if _, err := sharedPut(w, "h", "headed", Conditions{}); err != nil {
		t.Fatal(err)
	}
	before := r.recs.hits.Load()
	for range 2 {
		if o, err := r.StatObject("bkt", "h"); err != nil || o.Size != 6 {
			t.Fatalf("HEAD: %+v, %v", o, err)
		}
	}
	if _, _, hit := readHit(t, r, "h"); !hit || r.recs.hits.Load()-before != 2 {
		t.Fatalf("HEAD, HEAD, GET: %d answered from the cache, want 2", r.recs.hits.Load()-before)
	}
}

// A version that becomes current again is served with the record it has
// now, not the one a gateway cached when it was current before: its file
// comes back with the same inode, size and mtime, so only the stamp, which
// the move back takes away, tells them apart.
func TestRecordCachePromotedVersion(t *testing.T) {
	w, r := cachingGateways(t, metadata.VersioningEnabled)
	v1, err := sharedPut(w, "k", "version one", Conditions{})
	if err != nil {
		t.Fatal(err)
	}
	readHit(t, r, "k")
	if _, _, hit := readHit(t, r, "k"); !hit {
		t.Fatal("the current version was not cached")
	}
	v2, err := sharedPut(w, "k", "version two", Conditions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.PutVersionTagging("bkt", "k", v1.VersionID, []metadata.KV{{Key: "n", Value: "while noncurrent"}}, Conditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remove(RemoveInput{Bucket: "bkt", Key: "k", VersionID: v2.VersionID}); err != nil {
		t.Fatal(err)
	}
	o, body, hit := readHit(t, r, "k")
	if hit || body != "version one" || o.VersionID != v1.VersionID || tagValue(o, "n") != "while noncurrent" {
		t.Fatalf("after the promotion: %q, version %s, tags %v, hit %v", body, o.VersionID, o.Tags, hit)
	}
	if o, _, hit := readHit(t, r, "k"); !hit || tagValue(o, "n") != "while noncurrent" {
		t.Fatalf("the promoted version's record was not cached as it is now: tags %v, hit %v", o.Tags, hit)
	}

	// A delete marker on top, then removed: the same version again.
	m, err := w.Remove(RemoveInput{Bucket: "bkt", Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.OpenObject("bkt", "k"); s3err.As(err).Code != s3err.NoSuchKey {
		t.Fatalf("read behind a delete marker: %v", err)
	}
	if _, err := w.PutVersionTagging("bkt", "k", v1.VersionID, []metadata.KV{{Key: "n", Value: "behind the marker"}}, Conditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remove(RemoveInput{Bucket: "bkt", Key: "k", VersionID: m.VersionID}); err != nil {
		t.Fatal(err)
	}
	if o, _, _ := readHit(t, r, "k"); tagValue(o, "n") != "behind the marker" {
		t.Fatalf("after the marker's removal: tags %v", o.Tags)
	}
}

// A reader through one gateway while another changes a key's tags: a
// read that starts after a change was acknowledged sees it or a later
// one, and one reader's reads never go back in time.
func TestRecordCacheReadsFollowWrites(t *testing.T) {
	w, r := cachingGateways(t, "")
	tag := func(n int) []metadata.KV { return []metadata.KV{{Key: "n", Value: strconv.Itoa(n)}} }
	if _, err := sharedPut(w, "k", "body", Conditions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.PutObjectTagging("bkt", "k", tag(0), Conditions{}); err != nil {
		t.Fatal(err)
	}
	const writes = 150
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := 0
		for {
			select {
			case <-stop:
				return
			default:
			}
			rd, err := r.OpenObject("bkt", "k")
			if err != nil {
				t.Error(err)
				return
			}
			rd.Close()
			n, _ := strconv.Atoi(tagValue(rd.Object, "n"))
			if n < last {
				t.Errorf("a read saw tag %d after one saw %d", n, last)
				return
			}
			last = n
		}
	}()
	for i := 1; i <= writes; i++ {
		if err := w.PutObjectTagging("bkt", "k", tag(i), Conditions{}); err != nil {
			t.Fatal(err)
		}
		o, _ := sharedRead(t, r, "k")
		if n, _ := strconv.Atoi(tagValue(o, "n")); n < i {
			t.Fatalf("read after tagging %d was acknowledged: tag %d", i, n)
		}
		o, _ = sharedRead(t, r, "k")
		if n, _ := strconv.Atoi(tagValue(o, "n")); n != i {
			t.Fatalf("second read after tagging %d: tag %d", i, n)
		}
	}
	close(stop)
	wg.Wait()
	if r.recs.hits.Load() < writes {
		t.Errorf("%d reads were answered from the cache, want at least one per write", r.recs.hits.Load())
	}
}

// The cache is bounded: a gateway that reads more keys than it keeps
// serves them all, its cache stays at its size.
func TestRecordCacheBounded(t *testing.T) {
	c := newRecordCache(32, 0)
	for i := range 1000 {
		c.put("bkt", fmt.Sprint(i), cachedRecord{rec: Object{Key: fmt.Sprint(i), Stamp: 1}})
	}
	n := 0
	for i := range c.shards {
		n += len(c.shards[i].m)
	}
	if n > 32 {
		t.Fatalf("%d entries kept, want at most 32", n)
	}
	if _, ok := c.get("bkt", "999"); !ok {
		t.Fatal("the last record put is not cached")
	}
	c.drop("bkt", "999")
	if _, ok := c.get("bkt", "999"); ok {
		t.Fatal("a dropped record is still cached")
	}
}

// A file whose ctime is younger than two ticks of its filesystem's
// timestamps is not cached: a change later in the same tick might leave
// the ctime as it is.
func TestRecordCacheRacilyClean(t *testing.T) {
	w, r := cachingGateways(t, "")
	if _, err := sharedPut(w, "k", "body", Conditions{}); err != nil {
		t.Fatal(err)
	}
	r.recs.tick = time.Hour
	readHit(t, r, "k")
	if _, _, hit := readHit(t, r, "k"); hit {
		t.Fatal("a file changed less than two ticks ago was cached")
	}
	r.recs.tick = 0
	readHit(t, r, "k")
	if _, _, hit := readHit(t, r, "k"); !hit {
		t.Fatal("not cached with a zero tick")
	}
}

// BenchmarkRecordCacheEntry reports the heap one cache entry takes for a
// 1 KiB object's record as a PUT writes it (ETag, content type, one
// checksum, an owner), the figure docs/scale-out.md quotes:
// go test -run '^$' -bench RecordCacheEntry ./pkg/object
func BenchmarkRecordCacheEntry(b *testing.B) {
	const n = 4096
	var before, after runtime.MemStats
	for range b.N {
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := newRecordCache(n, 0)
		for i := range n {
			key := fmt.Sprintf("mixed/%05d", i)
			c.put("bench", key, cachedRecord{rec: Object{
				Key: key, Size: 1024, ETag: fmt.Sprintf("%032x", i), LastModified: time.Now(),
				ContentType: "application/octet-stream", Owner: fmt.Sprintf("AKIA%016d", i%7),
				Checksums: []metadata.Checksum{{Algorithm: "CRC64NVME", Value: fmt.Sprintf("%011d=", i), Type: "FULL_OBJECT"}},
				Stamp:     uint64(i + 1),
			}})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(c)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/entry")
}
