package expire

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/lifecycle"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
)

// day is the lifecycle day of these tests: a rule of Days 1 acts two
// midnights (multiples of an hour) after a write at t0.
const day = time.Hour

// t0 is half past a "midnight", so a write then with Days 1 expires at
// t0 + 1.5h.
var t0 = time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)

// clock is the controlled time of the layer and the worker.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

type env struct {
	t     *testing.T
	root  string
	clock *clock
	l     *object.Layer
	w     *Worker
	opts  Options
}

func newEnv(t *testing.T, o Options) *env {
	e := &env{t: t, root: t.TempDir(), clock: &clock{now: t0}, opts: o}
	clearFlagsAtCleanup(t, e.root)
	e.open()
	return e
}

// open opens the layer on the env's root, with a new worker, as a
// restarted gateway does.
func (e *env) open() {
	l, err := object.Open(object.Options{Root: e.root, NoSync: true, Now: e.clock.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { l.Close() })
	e.l = l
	o := e.opts
	o.Layer, o.Day, o.Now, o.Log = l, day, e.clock.Now, zerolog.Nop()
	if o.Holder == "" {
		// The same gateway after a restart: the lease it held is still
		// its own.
		o.Holder = "gateway-1"
	}
	e.w = New(o)
}

func (e *env) bucket(name string, b object.Bucket) {
	b.Name = name
	if err := e.l.CreateBucket(b); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) rules(bucket, rules string) {
	e.t.Helper()
	c, err := lifecycle.Parse([]byte(`<LifecycleConfiguration>` + rules + `</LifecycleConfiguration>`))
	if err != nil {
		e.t.Fatal(err)
	}
	err = e.l.UpdateBucket(bucket, 0, func(b *object.Bucket) error {
		b.Lifecycle = string(lifecycle.Render(c))
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) put(bucket, key, body string, tags []metadata.KV, lock object.Lock) object.Object {
	e.t.Helper()
	o, err := e.l.PutObject(object.PutInput{Bucket: bucket, Key: key, Body: strings.NewReader(body), Size: int64(len(body)), Tags: tags, Lock: lock})
	if err != nil {
		e.t.Fatalf("put %s/%s: %v", bucket, key, err)
	}
	return o
}

// pass runs a whole pass at time at.
func (e *env) pass(at time.Time) {
	e.t.Helper()
	e.clock.set(at)
	if err := e.w.Pass(e.t.Context()); err != nil {
		e.t.Fatalf("pass at %v: %v", at, err)
	}
}

func (e *env) exists(bucket, key string) bool {
	_, err := e.l.StatObject(bucket, key)
	return err == nil
}

// versions lists a key's versions, newest first, as "id" or "marker".
func (e *env) versions(bucket, key string) []string {
	e.t.Helper()
	page, err := e.l.ListVersions(bucket, metadata.VersionQuery{Prefix: key, Limit: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, v := range page.Entries {
		if v.Key != key {
			continue
		}
		s := v.VersionID
		if v.DeleteMarker {
			s = "marker"
		}
		out = append(out, s)
	}
	return out
}

func (e *env) wantKeys(bucket string, want map[string]bool) {
	e.t.Helper()
	for k, w := range want {
		if got := e.exists(bucket, k); got != w {
			e.t.Errorf("%s/%s exists = %v, want %v", bucket, k, got, w)
		}
	}
}

const days1 = `<Status>Enabled</Status><Expiration><Days>1</Days></Expiration>`

func TestExpireCurrentByPrefixUnversioned(t *testing.T) {
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{})
	e.rules("bkt", `<Rule><ID>logs</ID><Filter><Prefix>logs/</Prefix></Filter>`+days1+`</Rule>`)
	for _, k := range []string{"logs/a", "logs/b", "keep/c", "logsx"} {
		e.put("bkt", k, "x", nil, object.Lock{})
	}
	e.pass(t0.Add(90*time.Minute - time.Nanosecond))
	e.wantKeys("bkt", map[string]bool{"logs/a": true, "logs/b": true, "keep/c": true, "logsx": true})
	e.pass(t0.Add(90 * time.Minute))
	e.wantKeys("bkt", map[string]bool{"logs/a": false, "logs/b": false, "keep/c": true, "logsx": true})
	if n := e.w.Stats().Expired.Load(); n != 2 {
		t.Errorf("expired = %d, want 2", n)
	}
	// The walk is by prefix: the second pass examined only logs/.
	if n := e.w.Stats().Examined.Load(); n != 4 {
		t.Errorf("examined = %d over two passes, want 4", n)
	}
	if e.w.Stats().LastPass.Load() == 0 {
		t.Error("no completed pass recorded")
	}
}

func TestExpireAndFilter(t *testing.T) {
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{})
	e.rules("bkt", `<Rule><ID>and</ID><Filter><And><Prefix>tmp/</Prefix><Tag><Key>kind</Key><Value>scratch</Value></Tag><ObjectSizeGreaterThan>2</ObjectSizeGreaterThan><ObjectSizeLessThan>10</ObjectSizeLessThan></And></Filter>`+days1+`</Rule>`)
	scratch := []metadata.KV{{Key: "kind", Value: "scratch"}}
	e.put("bkt", "tmp/match", "12345", scratch, object.Lock{})
	e.put("bkt", "tmp/small", "12", scratch, object.Lock{})
	e.put("bkt", "tmp/large", "1234567890", scratch, object.Lock{})
	e.put("bkt", "tmp/untagged", "12345", nil, object.Lock{})
	e.put("bkt", "tmp/othertag", "12345", []metadata.KV{{Key: "kind", Value: "keep"}}, object.Lock{})
	e.put("bkt", "other/match", "12345", scratch, object.Lock{})
	e.pass(t0.Add(2 * time.Hour))
	e.wantKeys("bkt", map[string]bool{
		"tmp/match": false, "tmp/small": true, "tmp/large": true, "tmp/untagged": true, "tmp/othertag": true, "other/match": true,
	})
}

func TestExpireDateRule(t *testing.T) {
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{})
	e.rules("bkt", `<Rule><ID>date</ID><Filter/><Status>Enabled</Status><Expiration><Date>2026-01-02T00:00:00Z</Date></Expiration></Rule>`)
	e.put("bkt", "a", "x", nil, object.Lock{})
	e.pass(time.Date(2026, 1, 1, 23, 0, 0, 0, time.UTC))
	e.wantKeys("bkt", map[string]bool{"a": true})
	e.pass(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	e.wantKeys("bkt", map[string]bool{"a": false})
}

func TestExpireCurrentVersionedWritesMarker(t *testing.T) {
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{Versioning: metadata.VersioningEnabled})
	e.rules("bkt", `<Rule><ID>all</ID><Filter/>`+days1+`</Rule>`)
	v1 := e.put("bkt", "k", "one", nil, object.Lock{})
	e.pass(t0.Add(2 * time.Hour))
	if e.exists("bkt", "k") {
		t.Fatal("expired current version still current")
	}
	if got := e.versions("bkt", "k"); len(got) != 2 || got[0] != "marker" || got[1] != v1.VersionID {
		t.Fatalf("versions = %v, want a marker over %s", got, v1.VersionID)
	}
	// A second pass does not stack markers on a key whose latest is one.
	e.pass(t0.Add(3 * time.Hour))
	if got := e.versions("bkt", "k"); len(got) != 2 {
		t.Fatalf("versions after a second pass = %v", got)
	}
}

func TestExpireCurrentSkipsVersionWrittenSinceWalk(t *testing.T) {
	// A version overwritten between the walk and the removal is not the
	// one the rule expired: the removal's conditions refuse it. The
	// race is made deterministic by removing with the old record.
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{})
	old := e.put("bkt", "k", "old", nil, object.Lock{})
	e.clock.set(t0.Add(time.Minute))
	e.put("bkt", "k", "new body", nil, object.Lock{})
	c := metadata.LifecycleCursor{}
	e.w.expireCurrent(&object.Bucket{Name: "bkt"}, &old, &c)
	if !e.exists("bkt", "k") {
		t.Fatal("a version written after the walk was expired")
	}
}

func TestExpireNoncurrentVersions(t *testing.T) {
	// RoundSize 2 splits the key's versions over rounds, so the carried
	// state (noncurrent count, since) is exercised.
	e := newEnv(t, Options{RoundSize: 2})
	e.bucket("bkt", object.Bucket{Versioning: metadata.VersioningEnabled})
	e.rules("bkt", `<Rule><ID>nc</ID><Filter><Prefix>k</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`)
	var ids []string
	for i := 0; i < 4; i++ {
		e.clock.set(t0.Add(time.Duration(i) * time.Minute))
		ids = append(ids, e.put("bkt", "k", "v", nil, object.Lock{}).VersionID)
	}
	// ids[0..2] are noncurrent; the newest of them (ids[2]) is kept by
	// NewerNoncurrentVersions, ids[0] and ids[1] are removed a day
	// after they became noncurrent.
	e.pass(t0.Add(time.Hour))
	if got := e.versions("bkt", "k"); len(got) != 4 {
		t.Fatalf("versions before their day = %v", got)
	}
	e.pass(t0.Add(2 * time.Hour))
	got := e.versions("bkt", "k")
	if len(got) != 2 || got[0] != ids[3] || got[1] != ids[2] {
		t.Fatalf("versions = %v, want [%s %s]", got, ids[3], ids[2])
	}
}

func TestExpireDeleteMarkers(t *testing.T) {
	e := newEnv(t, Options{RoundSize: 1})
	e.bucket("bkt", object.Bucket{Versioning: metadata.VersioningEnabled})
	e.rules("bkt", `<Rule><ID>m</ID><Filter/><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration><NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays></NoncurrentVersionExpiration></Rule>`)
	// alone: a marker over a version that is then removed by id.
	v := e.put("bkt", "alone", "x", nil, object.Lock{})
	if _, err := e.l.Remove(object.RemoveInput{Bucket: "bkt", Key: "alone"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.l.Remove(object.RemoveInput{Bucket: "bkt", Key: "alone", VersionID: v.VersionID}); err != nil {
		t.Fatal(err)
	}
	// covering: a marker with a version behind it.
	e.put("bkt", "covering", "x", nil, object.Lock{})
	if _, err := e.l.Remove(object.RemoveInput{Bucket: "bkt", Key: "covering"}); err != nil {
		t.Fatal(err)
	}
	e.pass(t0.Add(time.Hour))
	if got := e.versions("bkt", "alone"); len(got) != 0 {
		t.Errorf("alone = %v, want the expired marker removed", got)
	}
	if got := e.versions("bkt", "covering"); len(got) != 2 {
		t.Errorf("covering = %v, want marker and version", got)
	}
	// Once the version behind it expires, the marker goes in the same
	// pass.
	e.pass(t0.Add(5 * time.Hour))
	if got := e.versions("bkt", "covering"); len(got) != 0 {
		t.Errorf("covering after its version expired = %v", got)
	}
}

// TestExpireDeleteMarkersByAge checks that a rule expiring current
// versions by Days also removes a delete marker that is its key's only
// version, once the marker itself is that old (not the version it
// covered), and removes it in the pass that removes the last version
// behind it.
func TestExpireDeleteMarkersByAge(t *testing.T) {
	e := newEnv(t, Options{RoundSize: 1})
	e.bucket("bkt", object.Bucket{Versioning: metadata.VersioningEnabled})
	e.rules("bkt", `<Rule><ID>d</ID><Filter><Prefix>p/</Prefix></Filter>`+days1+`<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`)
	alone := e.put("bkt", "p/alone", "x", nil, object.Lock{})
	e.put("bkt", "p/covering", "x", nil, object.Lock{})
	e.put("bkt", "q/k", "x", nil, object.Lock{})
	// The markers are written at 03:30, three hours after the versions:
	// with Days 1 they, and the versions they make noncurrent, are due
	// at 05:00.
	e.clock.set(t0.Add(3 * time.Hour))
	for _, k := range []string{"p/alone", "p/covering", "q/k"} {
		if _, err := e.l.Remove(object.RemoveInput{Bucket: "bkt", Key: k}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.l.Remove(object.RemoveInput{Bucket: "bkt", Key: "p/alone", VersionID: alone.VersionID}); err != nil {
		t.Fatal(err)
	}
	e.pass(t0.Add(4*time.Hour + 29*time.Minute))
	if got := e.versions("bkt", "p/alone"); len(got) != 1 {
		t.Errorf("p/alone before the marker's day = %v, want the marker", got)
	}
	if got := e.versions("bkt", "p/covering"); len(got) != 2 {
		t.Errorf("p/covering before its day = %v, want the marker and its version", got)
	}
	e.pass(t0.Add(4*time.Hour + 30*time.Minute))
	if got := e.versions("bkt", "p/alone"); len(got) != 0 {
		t.Errorf("p/alone after the marker's day = %v, want it removed", got)
	}
	if got := e.versions("bkt", "p/covering"); len(got) != 0 {
		t.Errorf("p/covering after its day = %v, want the version and then the marker removed", got)
	}
	if got := e.versions("bkt", "q/k"); len(got) != 2 {
		t.Errorf("q/k, outside the rule's prefix = %v", got)
	}
}

func TestExpireNeverRemovesLockedVersion(t *testing.T) {
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{Versioning: metadata.VersioningEnabled, ObjectLock: true})
	e.rules("bkt", `<Rule><ID>nc</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`)
	until := t0.Add(10 * time.Hour)
	locked := e.put("bkt", "k", "locked", nil, object.Lock{Retention: objectlock.Retention{Mode: objectlock.Governance, Until: until}})
	held := e.put("bkt", "h", "held", nil, object.Lock{LegalHold: true})
	e.put("bkt", "k", "current", nil, object.Lock{})
	e.put("bkt", "h", "current", nil, object.Lock{})
	e.pass(t0.Add(3 * time.Hour))
	if got := e.versions("bkt", "k"); len(got) != 2 || got[1] != locked.VersionID {
		t.Fatalf("versions of k under retention = %v", got)
	}
	if got := e.versions("bkt", "h"); len(got) != 2 || got[1] != held.VersionID {
		t.Fatalf("versions of h under legal hold = %v", got)
	}
	if n := e.w.Stats().Locked.Load(); n != 2 {
		t.Errorf("locked = %d, want 2", n)
	}
	// The retention ends; the legal hold does not.
	e.pass(until)
	if got := e.versions("bkt", "k"); len(got) != 1 {
		t.Fatalf("versions of k after the retention = %v", got)
	}
	if got := e.versions("bkt", "h"); len(got) != 2 {
		t.Fatalf("versions of h = %v", got)
	}
}

func TestExpireCurrentLockedVersionGetsMarker(t *testing.T) {
	// Expiring a locked current version hides it behind a marker, as S3
	// does; the version itself stays.
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{Versioning: metadata.VersioningEnabled, ObjectLock: true})
	e.rules("bkt", `<Rule><ID>all</ID><Filter/>`+days1+`</Rule>`)
	v := e.put("bkt", "k", "x", nil, object.Lock{Retention: objectlock.Retention{Mode: objectlock.Compliance, Until: t0.Add(100 * time.Hour)}})
	e.pass(t0.Add(2 * time.Hour))
	if got := e.versions("bkt", "k"); len(got) != 2 || got[0] != "marker" || got[1] != v.VersionID {
		t.Fatalf("versions = %v", got)
	}
}

func TestExpireUploads(t *testing.T) {
	e := newEnv(t, Options{DefaultUploadExpiry: 5 * time.Hour})
	e.bucket("bkt", object.Bucket{})
	e.bucket("norules", object.Bucket{})
	e.rules("bkt", `<Rule><ID>up</ID><Filter><Prefix>up/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`)
	start := func(bucket, key string) string {
		u, err := e.l.CreateMultipartUpload(object.CreateUploadInput{Bucket: bucket, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		return u.ID
	}
	start("bkt", "up/a")
	start("bkt", "other/b")
	start("norules", "c")
	count := func(bucket string) int {
		p, err := e.l.ListUploads(bucket, metadata.UploadQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Uploads)
	}
	e.pass(t0.Add(90 * time.Minute))
	if count("bkt") != 1 || count("norules") != 1 {
		t.Fatalf("after the rule's day: b has %d uploads, norules %d; want 1 and 1", count("bkt"), count("norules"))
	}
	e.pass(t0.Add(5 * time.Hour))
	if count("bkt") != 0 || count("norules") != 0 {
		t.Fatalf("after the default expiry: b has %d uploads, norules %d", count("bkt"), count("norules"))
	}
	if n := e.w.Stats().Aborted.Load(); n != 3 {
		t.Errorf("aborted = %d, want 3", n)
	}
}

func TestExpireDisabledRuleNeverActs(t *testing.T) {
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{})
	e.rules("bkt", `<Rule><ID>off</ID><Filter/><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>`)
	e.put("bkt", "a", "x", nil, object.Lock{})
	e.pass(t0.Add(100 * time.Hour))
	e.wantKeys("bkt", map[string]bool{"a": true})
}

func TestExpireResumesAfterRestart(t *testing.T) {
	e := newEnv(t, Options{RoundSize: 2})
	e.bucket("aaa", object.Bucket{})
	e.bucket("bkt", object.Bucket{})
	for _, bk := range []string{"aaa", "bkt"} {
		e.rules(bk, `<Rule><ID>all</ID><Filter/>`+days1+`</Rule>`)
		for _, k := range []string{"1", "2", "3"} {
			e.put(bk, k, "x", nil, object.Lock{})
		}
	}
	e.clock.set(t0.Add(2 * time.Hour))
	if done, err := e.w.Round(); err != nil || done {
		t.Fatalf("first round: done %v, %v", done, err)
	}
	if done, err := e.w.Round(); err != nil || done {
		t.Fatalf("second round: done %v, %v", done, err)
	}
	c, err := e.l.LifecycleCursor()
	if err != nil || c.Started.IsZero() || c.Examined != 4 {
		t.Fatalf("cursor after two rounds = %+v, %v", c, err)
	}
	// The gateway restarts: a new layer and worker resume the pass.
	if err := e.l.Close(); err != nil {
		t.Fatal(err)
	}
	e.open()
	if err := e.w.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := e.w.Stats().Examined.Load(); n != 2 {
		t.Errorf("the resumed pass examined %d entries, want the 2 left", n)
	}
	for _, bk := range []string{"aaa", "bkt"} {
		e.wantKeys(bk, map[string]bool{"1": false, "2": false, "3": false})
	}
	if c, _ := e.l.LifecycleCursor(); c != (metadata.LifecycleCursor{}) {
		t.Errorf("cursor after the pass = %+v, want none", c)
	}
}

func TestExpireSuspendedBucket(t *testing.T) {
	// A bucket versioned then suspended: the expired current version is
	// hidden by a null delete marker (which, as in S3, replaces the null
	// version written before versioning), and noncurrent versions still
	// expire; the marker, then alone and older than the rule's Days,
	// goes with the last of them.
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{})
	e.put("bkt", "k", "one", nil, object.Lock{})
	if err := e.l.SetVersioning("bkt", 0, metadata.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	v2 := e.put("bkt", "k", "two", nil, object.Lock{})
	if err := e.l.SetVersioning("bkt", 0, metadata.VersioningSuspended); err != nil {
		t.Fatal(err)
	}
	e.rules("bkt", `<Rule><ID>all</ID><Filter/>`+days1+`<NoncurrentVersionExpiration><NoncurrentDays>5</NoncurrentDays></NoncurrentVersionExpiration></Rule>`)
	e.pass(t0.Add(2 * time.Hour))
	got := e.versions("bkt", "k")
	if len(got) != 2 || got[0] != "marker" || got[1] != v2.VersionID {
		t.Fatalf("versions = %v, want a null marker over %s", got, v2.VersionID)
	}
	e.pass(t0.Add(10 * time.Hour))
	if got := e.versions("bkt", "k"); len(got) != 0 {
		t.Fatalf("versions after NoncurrentDays = %v, want none", got)
	}
}

// TestExpireRoundReadsRecordsInPlace: with the default round size, one
// round walks a bucket of 1,200 keys (more than a listing page) reading
// the records in place, so that it allocates far less than once per
// record, and the tagged 1% the rule matches are still found and expired.
func TestExpireRoundReadsRecordsInPlace(t *testing.T) {
	const n = 1200
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{})
	e.rules("bkt", `<Rule><ID>scratch</ID><Filter><Tag><Key>kind</Key><Value>scratch</Value></Tag></Filter>`+days1+`</Rule>`)
	for i := 0; i < n; i++ {
		var tags []metadata.KV
		switch {
		case i%100 == 0:
			tags = []metadata.KV{{Key: "owner", Value: "a"}, {Key: "kind", Value: "scratch"}}
		case i%10 == 0:
			tags = []metadata.KV{{Key: "kind", Value: "keep"}}
		}
		e.put("bkt", fmt.Sprintf("k%05d", i), "x", tags, object.Lock{})
	}
	// Before the rule's day nothing is due: every round is a whole pass.
	rounds := 0
	allocs := testing.AllocsPerRun(3, func() {
		done, err := e.w.Round()
		if err != nil || !done {
			t.Fatalf("round: done %v, %v", done, err)
		}
		rounds++
	})
	if got, want := e.w.Stats().Examined.Load(), uint64(rounds*n); got != want {
		t.Fatalf("examined %d, want %d", got, want)
	}
	if allocs > n/4 {
		t.Errorf("a round over %d records allocated %.0f times", n, allocs)
	}
	e.pass(t0.Add(2 * time.Hour))
	if got := e.w.Stats().Expired.Load(); got != n/100 {
		t.Errorf("expired %d, want %d", got, n/100)
	}
	for i := 0; i < n; i += 5 {
		k := fmt.Sprintf("k%05d", i)
		if got, want := e.exists("bkt", k), i%100 != 0; got != want {
			t.Errorf("%s exists = %v, want %v", k, got, want)
		}
	}
}

// TestExpirePacedPassCountsItsCPU: a paced pass (as the gateway runs it)
// does the same work as an unpaced one, its removals running on
// goroutines of their own, and counts the CPU time its rounds used.
func TestExpirePacedPassCountsItsCPU(t *testing.T) {
	e := newEnv(t, Options{Busy: 0.5, RoundSize: 10})
	e.bucket("bkt", object.Bucket{})
	e.rules("bkt", `<Rule><ID>tmp</ID><Filter><Prefix>tmp/</Prefix></Filter>`+days1+`</Rule>`)
	want := map[string]bool{}
	for i := 0; i < 40; i++ {
		k := fmt.Sprintf("keep/%02d", i)
		if i%2 == 0 {
			k = fmt.Sprintf("tmp/%02d", i)
		}
		e.put("bkt", k, "x", nil, object.Lock{})
		want[k] = i%2 != 0
	}
	e.pass(t0.Add(2 * time.Hour))
	e.wantKeys("bkt", want)
	st := e.w.Stats()
	if st.Expired.Load() != 20 || st.Examined.Load() != 20 {
		t.Errorf("examined %d, expired %d; want 20 and 20", st.Examined.Load(), st.Expired.Load())
	}
	if st.CPUNanos.Load() <= 0 {
		t.Errorf("the pass counted %d ns of CPU", st.CPUNanos.Load())
	}
}

// Two gateways sharing an index: a pass runs on the one holding the
// lifecycle lease; the other's rounds do nothing until the lease runs
// out, and then it resumes the pass from the shared cursor.
func TestExpireLeaseOneGatewayAtATime(t *testing.T) {
	e := newEnv(t, Options{RoundSize: 2})
	e.bucket("bkt", object.Bucket{})
	e.rules("bkt", `<Rule><ID>all</ID><Filter/>`+days1+`</Rule>`)
	keys := []string{"1", "2", "3", "4", "5", "6"}
	for _, k := range keys {
		e.put("bkt", k, "x", nil, object.Lock{})
	}
	now := t0.Add(2 * time.Hour)
	e.clock.set(now)
	if done, err := e.w.Round(); err != nil || done {
		t.Fatalf("first gateway's round: done %v, %v", done, err)
	}
	other := New(Options{Layer: e.l, Day: day, Now: e.clock.Now, Log: zerolog.Nop(), RoundSize: 2, Holder: "gateway-2"})
	if done, err := other.Round(); err != nil || !done {
		t.Fatalf("second gateway's round while the first holds the lease: done %v, %v", done, err)
	}
	if n := other.Stats().Deferred.Load(); n != 1 {
		t.Fatalf("deferred = %d, want 1", n)
	}
	if n := other.Stats().Examined.Load(); n != 0 {
		t.Fatalf("the second gateway examined %d entries without the lease", n)
	}
	left := 0
	for _, k := range keys {
		if e.exists("bkt", k) {
			left++
		}
	}
	if left != 4 {
		t.Fatalf("%d keys left after one round of 2, want 4", left)
	}
	// The first gateway stops answering: its lease runs out (5 minutes),
	// and the second takes the pass over where the cursor stands.
	e.clock.set(now.Add(5*time.Minute - time.Nanosecond))
	if done, _ := other.Round(); !done || other.Stats().Examined.Load() != 0 {
		t.Fatal("the lease was taken over before it ran out")
	}
	e.clock.set(now.Add(5 * time.Minute))
	if err := other.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := other.Stats().Examined.Load(); n != 4 {
		t.Errorf("the second gateway examined %d entries, want the 4 the first left", n)
	}
	e.wantKeys("bkt", map[string]bool{"1": false, "2": false, "3": false, "4": false, "5": false, "6": false})
	// Now the first one is refused in turn.
	if done, err := e.w.Round(); err != nil || !done || e.w.Stats().Deferred.Load() != 1 {
		t.Fatalf("first gateway's round after the takeover: done %v, %v, deferred %d", done, err, e.w.Stats().Deferred.Load())
	}
}

// A worker that stops releases its lease, so that another gateway goes
// on at once.
func TestExpireRunReleasesLease(t *testing.T) {
	e := newEnv(t, Options{})
	e.bucket("bkt", object.Bucket{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	e.w.Run(ctx, time.Hour) // one pass, then it sees ctx done
	other := New(Options{Layer: e.l, Day: day, Now: e.clock.Now, Log: zerolog.Nop(), Holder: "gateway-2"})
	if done, err := other.Round(); err != nil || !done || other.Stats().Deferred.Load() != 0 {
		t.Fatalf("after the first worker stopped: done %v, %v, deferred %d", done, err, other.Stats().Deferred.Load())
	}
}

// TestPassRemovesDeadGatewaysStaging: a pass removes what a gateway on
// the same root that died left in the staging area (a name of a prefix
// whose lock file is gone), as a gateway's start does, so that a root
// whose gateways keep running does not keep it; a name of no prefix
// stays.
func TestPassRemovesDeadGatewaysStaging(t *testing.T) {
	e := newEnv(t, Options{})
	staging := filepath.Join(e.root, ".objectgateway", "staging")
	dead := filepath.Join(staging, "up-00112233445566ff-7")
	old := filepath.Join(staging, "tmp-older-release")
	for _, p := range []string{dead, old} {
		if err := os.WriteFile(p, []byte("left"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.pass(t0.Add(time.Hour))
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead gateway's staged file after a pass: %v", err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the name of no prefix after a pass: %v", err)
	}
}
