package object

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/objectlock"
	"github.com/objectgateway/objectgateway/pkg/pgtest"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Writers of one key through several gateways on one root and one
// PostgreSQL catalogue, every kind at once: PUT, DeleteObject, CopyObject
// onto the key, CompleteMultipartUpload of the key, and the conditional
// writes (If-None-Match: *, If-Match). After every round the end state is
// checked against what was acknowledged: every gateway serves the same
// latest object, each file holds the bytes its record describes, every
// acknowledged version is listed in the order the writes happened, and
// fsck finds nothing left over (staging files, orphan versions, parts).

// keyWrite is one acknowledged write of the key: its version (a delete
// marker's too), its ETag, the bytes it stored, and when it ran, as
// tickets of one counter (a write whose end ticket is below another's
// start ticket happened before it).
type keyWrite struct {
	what       string
	versionID  string
	etag       string
	body       string
	marker     bool
	start, end int64
}

// writeLog collects the acknowledged writes of a test.
type writeLog struct {
	clock atomic.Int64
	mu    sync.Mutex
	acked []keyWrite
}

// run runs op, and logs its write when it is acknowledged.
func (w *writeLog) run(what string, op func() (keyWrite, error)) error {
	start := w.clock.Add(1)
	kw, err := op()
	end := w.clock.Add(1)
	if err != nil {
		return err
	}
	kw.what, kw.start, kw.end = what, start, end
	w.mu.Lock()
	w.acked = append(w.acked, kw)
	w.mu.Unlock()
	return nil
}

// openGatewaysClosable opens n gateways on one new root and database
// (as openGatewaysOnR) and returns them with a function that closes them
// all once, so that a test can run fsck on the root afterwards.
func openGatewaysClosable(t *testing.T, n int, o Options) (gws []*Layer, root, dsn string, closeAll func()) {
	t.Helper()
	root, dsn = t.TempDir(), pgtest.DSN(t)
	o.Root, o.Index, o.NoSync = root, dsn, true
	for range n {
		l, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		gws = append(gws, l)
	}
	var once sync.Once
	closeAll = func() {
		once.Do(func() {
			for _, l := range gws {
				l.Close()
			}
		})
	}
	t.Cleanup(closeAll)
	return gws, root, dsn, closeAll
}

// sharedFsckClean runs fsck on a shared root (every gateway closed) and
// fails the test on any problem it reports.
func sharedFsckClean(t *testing.T, root, dsn string) {
	t.Helper()
	l, err := OpenExclusive(Options{Root: root, Index: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rep, err := l.Fsck(FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("fsck: %s", p)
	}
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// readAll reads an object's (or a version's) whole file.
func readAll(t *testing.T, r *Reader) string {
	t.Helper()
	defer r.Close()
	if r.File == nil {
		return ""
	}
	b, err := io.ReadAll(io.NewSectionReader(r.File, 0, r.Object.Size))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mixedRound runs one round of every kind of write of bucket/key at once,
// spread over the gateways and released together, and logs what was
// acknowledged. src is a key of the bucket holding srcBody, the source of
// the copies.
func mixedRound(t *testing.T, gws []*Layer, log *writeLog, bucket, key, src, srcBody string, round int) {
	t.Helper()
	g := func(i int) *Layer { return gws[(round+i)%len(gws)] }
	// An upload of the key, with its part, made before the round starts.
	mpBody := fmt.Sprintf("multipart of round %d", round)
	up, err := g(0).CreateMultipartUpload(CreateUploadInput{Bucket: bucket, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	part, err := g(1).UploadPart(PartInput{Bucket: bucket, Key: key, UploadID: up.ID, Number: 1, Body: strings.NewReader(mpBody), Size: int64(len(mpBody))})
	if err != nil {
		t.Fatal(err)
	}
	// The ETag an If-Match write expects: the current one, or any ("*")
	// when there is none.
	ifMatch := "*"
	if o, err := g(2).StatObject(bucket, key); err == nil {
		ifMatch = o.ETag
	}
	put := func(l *Layer, body string, c Conditions) func() (keyWrite, error) {
		return func() (keyWrite, error) {
			o, err := l.PutObject(PutInput{Bucket: bucket, Key: key, Body: strings.NewReader(body), Size: int64(len(body)), Conditions: c})
			return keyWrite{versionID: o.VersionID, etag: o.ETag, body: body}, err
		}
	}
	ops := []struct {
		what string
		op   func() (keyWrite, error)
		// may lists the S3 errors the op may answer in the race.
		may []s3err.Code
	}{
		{"put", put(g(0), fmt.Sprintf("put 0 of round %d", round), Conditions{}), nil},
		{"put", put(g(1), fmt.Sprintf("put 1 of round %d", round), Conditions{}), nil},
		{"put If-None-Match", put(g(2), fmt.Sprintf("if-none-match of round %d", round), Conditions{IfNoneMatch: "*"}), []s3err.Code{s3err.PreconditionFailed}},
		{"put If-Match", put(g(0), fmt.Sprintf("if-match of round %d", round), Conditions{IfMatch: ifMatch}), []s3err.Code{s3err.PreconditionFailed, s3err.NoSuchKey}},
		{"delete", func() (keyWrite, error) {
			r, err := g(1).Remove(RemoveInput{Bucket: bucket, Key: key})
			return keyWrite{versionID: r.VersionID, marker: r.DeleteMarker}, err
		}, nil},
		{"copy", func() (keyWrite, error) {
			o, err := g(2).CopyObject(CopyInput{SrcBucket: bucket, SrcKey: src, DstBucket: bucket, DstKey: key})
			return keyWrite{versionID: o.VersionID, etag: o.ETag, body: srcBody}, err
		}, nil},
		{"complete", func() (keyWrite, error) {
			o, err := g(0).CompleteMultipartUpload(CompleteInput{Bucket: bucket, Key: key, UploadID: up.ID, Parts: []CompletePart{{Number: 1, ETag: part.ETag}}, ExpectSize: -1})
			return keyWrite{versionID: o.VersionID, etag: o.ETag, body: mpBody}, err
		}, nil},
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			err := log.run(op.what, op.op)
			if err != nil && !slices.Contains(op.may, s3err.As(err).Code) {
				t.Errorf("round %d: %s: %v", round, op.what, err)
			}
		}()
	}
	close(start)
	wg.Wait()
}

// checkLatest checks that every gateway serves the same current object
// of bucket/key, want (nil: none), with the bytes its record describes.
func checkLatest(t *testing.T, gws []*Layer, bucket, key string, want *keyWrite) {
	t.Helper()
	for i, l := range gws {
		r, err := l.OpenObject(bucket, key)
		if want == nil || want.marker {
			if !isCode(err, s3err.NoSuchKey) {
				if err == nil {
					r.Close()
				}
				t.Errorf("gateway %d: %s/%s after the last write deleted it: %v", i, bucket, key, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("gateway %d: %s/%s: %v", i, bucket, key, err)
			continue
		}
		o := r.Object
		got := readAll(t, r)
		if o.VersionID != want.versionID || o.ETag != want.etag || got != want.body {
			t.Errorf("gateway %d serves version %q ETag %s %q; the last write (%s) was version %q ETag %s %q",
				i, o.VersionID, o.ETag, got, want.what, want.versionID, want.etag, want.body)
		}
		if o.PartsCount == 0 && o.ETag != md5Hex(got) {
			t.Errorf("gateway %d: record's ETag %s is not the MD5 of the file's %d bytes", i, o.ETag, len(got))
		}
	}
}

// newestAcked returns the write that must be the key's latest among
// acked: one that no other acknowledged write started after the end of.
// Several may qualify (they overlapped); it returns those.
func newestCandidates(acked []keyWrite) []keyWrite {
	var out []keyWrite
	for _, a := range acked {
		last := true
		for _, b := range acked {
			if b.start > a.end {
				last = false
				break
			}
		}
		if last {
			out = append(out, a)
		}
	}
	return out
}

// TestSharedIndexMixedWritersVersioned races every kind of write of one
// key of a versioned bucket through three gateways, round after round.
// Every acknowledged version and delete marker stays listed, with its
// ETag, exactly one of them latest, newest first in the order the writes
// happened; each version's file holds the bytes that were written; every
// gateway serves the same latest; nothing is left over.
func TestSharedIndexMixedWritersVersioned(t *testing.T) {
	gws, root, dsn, closeAll := openGatewaysClosable(t, 3, Options{})
	if err := gws[0].CreateBucket(Bucket{Name: "bkt", Versioning: metadata.VersioningEnabled}); err != nil {
		t.Fatal(err)
	}
	const srcBody = "the source of the copies"
	if _, err := gws[0].PutObject(PutInput{Bucket: "bkt", Key: "src", Body: strings.NewReader(srcBody), Size: int64(len(srcBody))}); err != nil {
		t.Fatal(err)
	}
	var log writeLog
	const rounds = 8
	for round := range rounds {
		mixedRound(t, gws, &log, "bkt", "k", "src", srcBody, round)
	}
	page, err := gws[1].ListVersions("bkt", metadata.VersionQuery{Prefix: "k", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]keyWrite{}
	for _, a := range log.acked {
		if _, dup := byID[a.versionID]; dup || a.versionID == "" {
			t.Errorf("%s acknowledged version %q twice or without an id", a.what, a.versionID)
		}
		byID[a.versionID] = a
	}
	if len(page.Entries) != len(log.acked) {
		t.Errorf("%d versions listed, %d writes acknowledged", len(page.Entries), len(log.acked))
	}
	pos := map[string]int{}
	for i, e := range page.Entries {
		pos[e.VersionID] = i
		if e.IsLatest != (i == 0) {
			t.Errorf("entry %d (%s) IsLatest %v", i, e.VersionID, e.IsLatest)
		}
		a, ok := byID[e.VersionID]
		switch {
		case !ok:
			t.Errorf("version %s listed, never acknowledged", e.VersionID)
		case a.marker != e.DeleteMarker || !a.marker && (a.etag != e.ETag || e.Size != int64(len(a.body))):
			t.Errorf("version %s listed as marker %v ETag %s (%d bytes), acknowledged by %s as marker %v ETag %s (%d bytes)",
				e.VersionID, e.DeleteMarker, e.ETag, e.Size, a.what, a.marker, a.etag, len(a.body))
		case !a.marker:
			r, err := gws[len(pos)%3].OpenVersion("bkt", "k", e.VersionID)
			if err != nil {
				t.Errorf("version %s (%s): %v", e.VersionID, a.what, err)
				break
			}
			if got := readAll(t, r); got != a.body {
				t.Errorf("version %s (%s) holds %q, was written with %q", e.VersionID, a.what, got, a.body)
			}
		}
	}
	for _, a := range log.acked {
		p, ok := pos[a.versionID]
		if !ok {
			t.Errorf("acknowledged version %s (%s) is not listed", a.versionID, a.what)
			continue
		}
		for _, b := range log.acked {
			if q, ok := pos[b.versionID]; ok && a.end < b.start && q > p {
				t.Errorf("version %s (%s) is listed as older than %s (%s), which ended before it started", b.versionID, b.what, a.versionID, a.what)
			}
		}
	}
	if len(page.Entries) > 0 {
		latest := byID[page.Entries[0].VersionID]
		if !slices.ContainsFunc(newestCandidates(log.acked), func(c keyWrite) bool { return c.versionID == latest.versionID }) {
			t.Errorf("the latest version %s (%s) was followed by another acknowledged write", latest.versionID, latest.what)
		}
		checkLatest(t, gws, "bkt", "k", &latest)
	}
	closeAll()
	sharedFsckClean(t, root, dsn)
}

// TestSharedIndexMixedWritersPlain is the same race in a bucket without
// versioning: the object every gateway serves is one of the last writes
// (or none after a last delete), its record describes its file, and
// nothing is left over.
func TestSharedIndexMixedWritersPlain(t *testing.T) {
	gws, root, dsn, closeAll := openGatewaysClosable(t, 3, Options{})
	if err := gws[0].CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	const srcBody = "the source of the copies"
	if _, err := gws[0].PutObject(PutInput{Bucket: "bkt", Key: "src", Body: strings.NewReader(srcBody), Size: int64(len(srcBody))}); err != nil {
		t.Fatal(err)
	}
	const rounds = 8
	for round := range rounds {
		var log writeLog
		mixedRound(t, gws, &log, "bkt", "k", "src", srcBody, round)
		cands := newestCandidates(log.acked)
		r, err := gws[round%3].OpenObject("bkt", "k")
		var cur *keyWrite
		if err == nil {
			o := r.Object
			body := readAll(t, r)
			i := slices.IndexFunc(cands, func(c keyWrite) bool { return !c.marker && c.etag == o.ETag && c.body == body })
			if i < 0 {
				t.Errorf("round %d: the key holds %q (ETag %s), not one of the last writes %+v", round, body, o.ETag, cands)
				continue
			}
			cur = &cands[i]
		} else if !isCode(err, s3err.NoSuchKey) {
			t.Fatal(err)
		} else if !slices.ContainsFunc(cands, func(c keyWrite) bool { return c.what == "delete" }) {
			t.Errorf("round %d: the key is gone, and a delete was not among the last writes %+v", round, cands)
		}
		if cur != nil {
			cur.versionID = ""
		}
		checkLatest(t, gws, "bkt", "k", cur)
	}
	closeAll()
	sharedFsckClean(t, root, dsn)
}

// Writers of one new key through three gateways, each with If-None-Match:
// * and each by another path (PUT, CopyObject, CompleteMultipartUpload):
// exactly one is acknowledged, and it is what every gateway serves.
func TestSharedIndexCreateOnceEveryPath(t *testing.T) {
	for _, versioning := range []string{"", metadata.VersioningEnabled} {
		t.Run("versioning="+versioning, func(t *testing.T) {
			gws, root, dsn, closeAll := openGatewaysClosable(t, 3, Options{})
			if err := gws[0].CreateBucket(Bucket{Name: "bkt", Versioning: versioning}); err != nil {
				t.Fatal(err)
			}
			const srcBody = "copied"
			if _, err := gws[0].PutObject(PutInput{Bucket: "bkt", Key: "src", Body: strings.NewReader(srcBody), Size: int64(len(srcBody))}); err != nil {
				t.Fatal(err)
			}
			once := Conditions{IfNoneMatch: "*"}
			for round := range 10 {
				key := fmt.Sprintf("once%d", round)
				var log writeLog
				var ops []func() (keyWrite, error)
				for i := range 3 {
					l := gws[i]
					body := fmt.Sprintf("put %d", i)
					ops = append(ops, func() (keyWrite, error) {
						o, err := l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body)), Conditions: once})
						return keyWrite{versionID: o.VersionID, etag: o.ETag, body: body}, err
					})
					ops = append(ops, func() (keyWrite, error) {
						o, err := l.CopyObject(CopyInput{SrcBucket: "bkt", SrcKey: "src", DstBucket: "bkt", DstKey: key, Conditions: once})
						return keyWrite{versionID: o.VersionID, etag: o.ETag, body: srcBody}, err
					})
					mp := fmt.Sprintf("upload %d", i)
					up, err := l.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: key})
					if err != nil {
						t.Fatal(err)
					}
					p, err := l.UploadPart(PartInput{Bucket: "bkt", Key: key, UploadID: up.ID, Number: 1, Body: strings.NewReader(mp), Size: int64(len(mp))})
					if err != nil {
						t.Fatal(err)
					}
					ops = append(ops, func() (keyWrite, error) {
						o, err := l.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: key, UploadID: up.ID, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}, ExpectSize: -1, Conditions: once})
						return keyWrite{versionID: o.VersionID, etag: o.ETag, body: mp}, err
					})
				}
				start := make(chan struct{})
				var wg sync.WaitGroup
				for i, op := range ops {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						if err := log.run(fmt.Sprint(i), op); err != nil && !isCode(err, s3err.PreconditionFailed) {
							t.Errorf("writer %d: %v", i, err)
						}
					}()
				}
				close(start)
				wg.Wait()
				if len(log.acked) != 1 {
					t.Fatalf("round %d: %d writers acknowledged: %+v", round, len(log.acked), log.acked)
				}
				checkLatest(t, gws, "bkt", key, &log.acked[0])
				// The uploads that lost stay in progress, as in S3: abort them.
				page, err := gws[0].ListUploads("bkt", metadata.UploadQuery{Limit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				for _, u := range page.Uploads {
					if err := gws[1].AbortMultipartUpload("bkt", u.Key, u.ID); err != nil {
						t.Fatal(err)
					}
				}
			}
			closeAll()
			sharedFsckClean(t, root, dsn)
		})
	}
}

// A CompleteMultipartUpload retried through another gateway while the
// first is still at work (a client that gave up waiting, its retry sent
// by the balancer elsewhere): both are answered as the completion that
// made the object, as one gateway answers a retry (completionCalls), and
// the object is made once. The retry is held while the first completion
// commits and removes the parts: after it read the upload's parts, or
// after it assembled them.
func TestSharedIndexCompleteRetriedOnAnotherGateway(t *testing.T) {
	for _, tc := range []struct{ versioning, at string }{
		{"", "assembly"}, {metadata.VersioningEnabled, "assembly"},
		{"", "commit"}, {metadata.VersioningEnabled, "commit"},
	} {
		versioning := tc.versioning
		t.Run("versioning="+versioning+",held-before="+tc.at, func(t *testing.T) {
			reached, release := make(chan struct{}), make(chan struct{})
			var held atomic.Bool
			hold := func() {
				if held.CompareAndSwap(false, true) {
					close(reached)
					<-release
				}
			}
			root, dsn := t.TempDir(), pgtest.DSN(t)
			var gws []*Layer
			retryOpts := Options{OnAssemble: hold}
			if tc.at == "commit" {
				retryOpts = Options{}
			}
			for _, o := range []Options{{}, retryOpts} {
				o.Root, o.Index, o.NoSync = root, dsn, true
				l, err := Open(o)
				if err != nil {
					t.Fatal(err)
				}
				gws = append(gws, l)
			}
			closeAll := sync.OnceFunc(func() {
				for _, l := range gws {
					l.Close()
				}
			})
			t.Cleanup(closeAll)
			a, b := gws[0], gws[1]
			if err := a.CreateBucket(Bucket{Name: "bkt", Versioning: versioning}); err != nil {
				t.Fatal(err)
			}
			up, err := a.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: "mp"})
			if err != nil {
				t.Fatal(err)
			}
			const body = "the only part"
			p, err := a.UploadPart(PartInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Number: 1, Body: strings.NewReader(body), Size: int64(len(body))})
			if err != nil {
				t.Fatal(err)
			}
			in := CompleteInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Parts: []CompletePart{{Number: 1, ETag: p.ETag}}, ExpectSize: -1}
			if tc.at == "commit" {
				b.beforeCommit = hold
			}
			type result struct {
				o   Object
				err error
			}
			retry := make(chan result, 1)
			go func() {
				o, err := b.CompleteMultipartUpload(in)
				retry <- result{o, err}
			}()
			<-reached
			first, err := a.CompleteMultipartUpload(in)
			close(release)
			if err != nil {
				t.Fatal(err)
			}
			r := <-retry
			if r.err != nil || r.o.ETag != first.ETag || r.o.VersionID != first.VersionID {
				t.Errorf("the retry through another gateway: version %q ETag %s, %v; the completion made version %q ETag %s",
					r.o.VersionID, r.o.ETag, r.err, first.VersionID, first.ETag)
			}
			page, err := a.ListVersions("bkt", metadata.VersionQuery{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Entries) != 1 {
				t.Errorf("%d versions of the object, want 1", len(page.Entries))
			}
			checkLatest(t, gws, "bkt", "mp", &keyWrite{what: "complete", versionID: first.VersionID, etag: first.ETag, body: body})
			closeAll()
			sharedFsckClean(t, root, dsn)
		})
	}
}

// A legal hold put on a version through one gateway while others delete
// that version, overwrite the key and put a delete marker on it: the
// hold and the version's deletion never both succeed, and a version
// whose hold was acknowledged is still there, held, with its bytes.
func TestSharedIndexLegalHoldRacesDelete(t *testing.T) {
	gws, root, dsn, closeAll := openGatewaysClosable(t, 3, Options{})
	if err := gws[0].CreateBucket(Bucket{Name: "bkt", Versioning: metadata.VersioningEnabled}); err != nil {
		t.Fatal(err)
	}
	st, err := gws[0].BucketState("bkt")
	if err != nil {
		t.Fatal(err)
	}
	if err := gws[0].SetObjectLock("bkt", st.ID, objectlock.Default{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { clearImmutable(t, root) })
	var held []Object
	for round := range 12 {
		g := func(i int) *Layer { return gws[(round+i)%3] }
		body := fmt.Sprintf("version of round %d", round)
		v, err := g(0).PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader(body), Size: int64(len(body))})
		if err != nil {
			t.Fatal(err)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		var holdErr, delErr error
		run := func(f func()) {
			wg.Add(1)
			go func() { defer wg.Done(); <-start; f() }()
		}
		hold := func() { _, holdErr = g(1).PutLegalHold("bkt", "k", v.VersionID, true, Conditions{}) }
		if round%3 == 0 {
			// Every third round the hold comes first, and the others
			// race with what it left.
			hold()
		} else {
			run(hold)
		}
		run(func() { _, delErr = g(2).Remove(RemoveInput{Bucket: "bkt", Key: "k", VersionID: v.VersionID}) })
		run(func() {
			b := fmt.Sprintf("overwrite of round %d", round)
			if _, err := g(0).PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader(b), Size: int64(len(b))}); err != nil {
				t.Errorf("round %d: overwrite: %v", round, err)
			}
		})
		run(func() {
			if _, err := g(1).Remove(RemoveInput{Bucket: "bkt", Key: "k"}); err != nil {
				t.Errorf("round %d: delete marker: %v", round, err)
			}
		})
		close(start)
		wg.Wait()
		switch {
		case holdErr == nil && delErr == nil:
			t.Errorf("round %d: the legal hold and the deletion of the held version both succeeded", round)
		case holdErr == nil:
			if !isCode(delErr, s3err.AccessDenied) {
				t.Errorf("round %d: deleting the held version: %v, want AccessDenied", round, delErr)
			}
			held = append(held, v)
		case delErr == nil:
			if !isCode(holdErr, s3err.NoSuchVersion) {
				t.Errorf("round %d: a legal hold on the deleted version: %v, want NoSuchVersion", round, holdErr)
			}
		default:
			t.Errorf("round %d: hold %v, delete %v", round, holdErr, delErr)
		}
	}
	for i, v := range held {
		r, err := gws[i%3].OpenVersion("bkt", "k", v.VersionID)
		if err != nil {
			t.Errorf("held version %s: %v", v.VersionID, err)
			continue
		}
		if !r.Object.LegalHold || r.Object.ETag != v.ETag {
			t.Errorf("held version %s: legal hold %v, ETag %s (was %s)", v.VersionID, r.Object.LegalHold, r.Object.ETag, v.ETag)
		}
		if got := readAll(t, r); md5Hex(got) != v.ETag {
			t.Errorf("held version %s holds bytes of MD5 %s, was written with %s", v.VersionID, md5Hex(got), v.ETag)
		}
	}
	closeAll()
	sharedFsckClean(t, root, dsn)
}

// A legal hold put on the current version through one gateway, held
// once its record is stored, while another gateway overwrites the key:
// the overwrite waits for the hold to finish (it is seen waiting for the
// key's lock in pg_locks), and the hold's immutable flag lands on the
// held version's file, never on the overwrite's. (The flag was set after
// the hold's lock was released, on whatever file was at the key's path
// by then: the overwrite's, not held, got it, and every later write or
// delete of the key failed with AccessDenied.) It needs
// CAP_LINUX_IMMUTABLE and a filesystem with the flag.
func TestSharedIndexLockFlagFollowsRecord(t *testing.T) {
	gws, root, dsn, _ := openGatewaysClosable(t, 2, Options{})
	if ok, why := gws[0].fs.ImmutableSupport(); !ok {
		t.Skipf("the immutable flag is not available here: %s", why)
	}
	a, b := gws[0], gws[1]
	if err := a.CreateBucket(Bucket{Name: "bkt", Versioning: metadata.VersioningEnabled}); err != nil {
		t.Fatal(err)
	}
	st, err := a.BucketState("bkt")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetObjectLock("bkt", st.ID, objectlock.Default{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { clearImmutable(t, root) })
	v1, err := a.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("held"), Size: 4})
	if err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	overwritten := make(chan error, 1)
	a.beforeFlag = func() {
		a.beforeFlag = nil
		go func() {
			_, err := b.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("over"), Size: 4})
			overwritten <- err
		}()
		// Readiness: the overwrite is done, or waits for a lock.
		for {
			select {
			case err := <-overwritten:
				overwritten <- err
				return
			default:
			}
			var waiting int
			if err := db.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&waiting); err != nil {
				t.Error(err)
				return
			}
			if waiting > 0 {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	if _, err := a.PutLegalHold("bkt", "k", "", true, Conditions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-overwritten; err != nil {
		t.Fatalf("the overwrite: %v", err)
	}
	if !immutableFlag(t, versionFilePath(t, root, "k", v1.VersionID)) {
		t.Errorf("the held version's file has no immutable flag")
	}
	if immutableFlag(t, filepath.Join(root, "bkt", "k")) {
		t.Errorf("the overwrite's file, not held, bears the immutable flag")
	}
	if _, err := b.Remove(RemoveInput{Bucket: "bkt", Key: "k"}); err != nil {
		t.Errorf("a delete marker on the key: %v", err)
	}
}
