package object

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/pgtest"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// Several gateways on one root and one PostgreSQL catalogue: here, layers
// of one process, each with its own storage, key locks and fence, as
// separate gateways have. What one writes the others serve at once, and
// the catalogue's locks order them as one gateway's locks order its own
// requests. The tests run whatever OBJECTGATEWAY_TEST_INDEX says (they
// need PostgreSQL; pgtest skips them without it, and fails them in CI).

// openGateways opens n layers on one new root and one new database
// (openGatewaysOnR), with a bucket "bkt".
func openGateways(t *testing.T, n int) []*Layer {
	t.Helper()
	gws, _ := openGatewaysOnR(t, n)
	if err := gws[0].CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	return gws
}

func sharedPut(l *Layer, key, body string, c Conditions) (Object, error) {
	return l.PutObject(PutInput{Bucket: "bkt", Key: key, Body: strings.NewReader(body), Size: int64(len(body)), Conditions: c})
}

func sharedRead(t *testing.T, l *Layer, key string) (Object, string) {
	t.Helper()
	r, err := l.OpenObject("bkt", key)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.NewSectionReader(r.File, 0, r.Object.Size))
	if err != nil {
		t.Fatal(err)
	}
	return r.Object, string(b)
}

// A write through one gateway is read, listed and replaced through the
// others at once.
func TestSharedIndexReadAfterWrite(t *testing.T) {
	gws := openGateways(t, 3)
	for i := range 30 {
		w, r := gws[i%3], gws[(i+1)%3]
		key := fmt.Sprintf("k%02d", i%5)
		body := fmt.Sprintf("body %d", i)
		if _, err := sharedPut(w, key, body, Conditions{}); err != nil {
			t.Fatal(err)
		}
		o, got := sharedRead(t, r, key)
		if got != body || o.Size != int64(len(body)) {
			t.Fatalf("write %d of %s read through another gateway: %q (%d bytes), want %q", i, key, got, o.Size, body)
		}
		sum := md5.Sum([]byte(body))
		if o.ETag != hex.EncodeToString(sum[:]) {
			t.Fatalf("write %d: ETag %s, not the body's MD5", i, o.ETag)
		}
	}
	page, err := gws[2].ListObjects("bkt", ListQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Objects) != 5 {
		t.Fatalf("listed %d keys through the third gateway, want 5", len(page.Objects))
	}
}

// Writers racing on one key with If-None-Match: * through three
// gateways: exactly one succeeds, the others answer 412, and every
// gateway then serves the winner's bytes under the winner's record.
func TestSharedIndexConditionalRace(t *testing.T) {
	gws := openGateways(t, 3)
	const writers = 30
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, refused := []string{}, 0
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf("writer %d", i)
			_, err := sharedPut(gws[i%3], "only-once", body, Conditions{IfNoneMatch: "*"})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, body)
			case s3err.As(err).Code == s3err.PreconditionFailed:
				refused++
			default:
				t.Errorf("writer %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if len(won) != 1 || refused != writers-1 {
		t.Fatalf("%d writers won (%q), %d refused; want exactly one", len(won), won, refused)
	}
	for i, l := range gws {
		if _, got := sharedRead(t, l, "only-once"); got != won[0] {
			t.Errorf("gateway %d serves %q, want the winner's %q", i, got, won[0])
		}
	}
}

// Unconditional writers of one key through three gateways: whichever
// wins, the record every gateway reads describes the file on disk (its
// bytes' MD5 is the ETag), as it would with one gateway.
func TestSharedIndexLastWriterWins(t *testing.T) {
	gws := openGateways(t, 3)
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := strings.Repeat(fmt.Sprintf("w%02d", i), 100+i)
			if _, err := sharedPut(gws[i%3], "contended", body, Conditions{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, l := range gws {
		o, got := sharedRead(t, l, "contended")
		sum := md5.Sum([]byte(got))
		if o.ETag != hex.EncodeToString(sum[:]) || o.Size != int64(len(got)) {
			t.Errorf("gateway %d: record (ETag %s, %d bytes) does not describe the file (%d bytes)", i, o.ETag, o.Size, len(got))
		}
	}
}

// DeleteBucket through one gateway while others write into the bucket:
// each write either lands before the deletion (which then answers
// BucketNotEmpty) or answers NoSuchBucket; nothing is stored in a bucket
// that no longer exists, nor in one created again under the name.
func TestSharedIndexDeleteBucketRace(t *testing.T) {
	gws := openGateways(t, 3)
	for round := range 10 {
		bucket := "bkt"
		var wg sync.WaitGroup
		var stored sync.Map
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := fmt.Sprintf("r%d-%d", round, i)
				_, err := gws[1+i%2].PutObject(PutInput{Bucket: bucket, Key: key, Body: strings.NewReader("x"), Size: 1})
				switch {
				case err == nil:
					stored.Store(key, true)
				case s3err.As(err).Code == s3err.NoSuchBucket:
				default:
					t.Errorf("write %s: %v", key, err)
				}
			}()
		}
		err := gws[0].DeleteBucket(bucket)
		wg.Wait()
		switch {
		case err == nil:
			if err := gws[0].CreateBucket(Bucket{Name: bucket}); err != nil {
				t.Fatal(err)
			}
			page, err := gws[2].ListObjects(bucket, ListQuery{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Objects) != 0 {
				t.Fatalf("round %d: the bucket created again holds %d objects of writes into the deleted one", round, len(page.Objects))
			}
		case s3err.As(err).Code == s3err.BucketNotEmpty:
			stored.Range(func(k, _ any) bool {
				if _, err := gws[0].OpenObject(bucket, k.(string)); err != nil {
					t.Errorf("round %d: acknowledged %s is gone: %v", round, k, err)
				}
				return true
			})
			// Empty it for the next round.
			page, err := gws[0].ListObjects(bucket, ListQuery{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range page.Objects {
				if err := gws[0].DeleteObject(bucket, o.Key, Conditions{}); err != nil {
					t.Fatal(err)
				}
			}
		default:
			t.Fatalf("round %d: DeleteBucket: %v", round, err)
		}
	}
}

// A multipart upload created through one gateway takes parts through the
// others and completes through a third.
func TestSharedIndexMultipartAcrossGateways(t *testing.T) {
	gws := openGateways(t, 3)
	up, err := gws[0].CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: "mp"})
	if err != nil {
		t.Fatal(err)
	}
	part := strings.Repeat("p", 5<<20)
	var parts []CompletePart
	for n := 1; n <= 2; n++ {
		p, err := gws[n].UploadPart(PartInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Number: n, Body: strings.NewReader(part), Size: int64(len(part))})
		if err != nil {
			t.Fatalf("part %d through gateway %d: %v", n, n, err)
		}
		parts = append(parts, CompletePart{Number: n, ETag: p.ETag})
	}
	if _, err := gws[2].CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Parts: parts, ExpectSize: -1}); err != nil {
		t.Fatal(err)
	}
	o, got := sharedRead(t, gws[0], "mp")
	if o.Size != int64(2*len(part)) || got != part+part {
		t.Fatalf("completed object read through the first gateway: %d bytes", o.Size)
	}
}

// isCode reports whether err is the S3 error code (nil is none).
func isCode(err error, code s3err.Code) bool {
	c, ok := s3err.CodeOf(err)
	return ok && c == code
}

// sharedEventually polls cond until it holds, for a change another gateway
// made: its notification takes a moment to arrive. The deadline only
// bounds a failing test; a passing one waits as long as delivery takes.
func sharedEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen after 30 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A bucket setting changed through one gateway reaches the others, whose
// caches of the record (primed first) let go of it when the catalogue
// announces the change; the gateway that made it reads it at once.
func TestSharedIndexBucketSettingsReachEveryGateway(t *testing.T) {
	gws := openGateways(t, 2)
	a, b := gws[0], gws[1]
	for _, l := range gws {
		if _, err := l.Bucket("bkt"); err != nil {
			t.Fatal(err)
		}
	}
	err := a.UpdateBucket("bkt", 0, func(bk *Bucket) error {
		bk.Policy = `{"Version":"2012-10-17","Statement":[]}`
		bk.CacheControl = "max-age=60"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if bk, err := a.Bucket("bkt"); err != nil || bk.CacheControl != "max-age=60" {
		t.Fatalf("the writing gateway reads %+v %v", bk, err)
	}
	sharedEventually(t, "another gateway's Cache-Control", func() bool {
		bk, err := b.Bucket("bkt")
		return err == nil && bk.CacheControl == "max-age=60"
	})
	// A bucket created through one gateway (after the other cached its
	// absence), then deleted.
	if _, err := b.Bucket("later"); !isCode(err, s3err.NoSuchBucket) {
		t.Fatalf("a missing bucket: %v", err)
	}
	if err := a.CreateBucket(Bucket{Name: "later"}); err != nil {
		t.Fatal(err)
	}
	sharedEventually(t, "a bucket created through another gateway", func() bool {
		_, err := b.Bucket("later")
		return err == nil
	})
	if err := a.DeleteBucket("later"); err != nil {
		t.Fatal(err)
	}
	sharedEventually(t, "a bucket deleted through another gateway", func() bool {
		_, err := b.Bucket("later")
		return isCode(err, s3err.NoSuchBucket)
	})
	// Whatever the cache says, a write into the deleted bucket through the
	// other gateway stores nothing.
	if _, err := sharedPut(b, "x", "x", Conditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.PutObject(PutInput{Bucket: "later", Key: "k", Body: strings.NewReader("x"), Size: 1}); !isCode(err, s3err.NoSuchBucket) {
		t.Fatalf("a write into the deleted bucket: %v", err)
	}
}

// fsck and scan open a shared catalogue for themselves alone: not while a
// gateway serves it, and no gateway starts while they work.
func TestSharedIndexOfflineToolsExcludeGateways(t *testing.T) {
	root, dsn := t.TempDir(), pgtest.DSN(t)
	gw, err := Open(Options{Root: root, Index: dsn, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := OpenExclusive(Options{Root: root, Index: dsn}); !errors.Is(err, metadata.ErrCatalogueInUse) {
		if l != nil {
			l.Close()
		}
		t.Fatalf("fsck's open while a gateway serves the catalogue: %v", err)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	tool, err := OpenExclusive(Options{Root: root, Index: dsn})
	if err != nil {
		t.Fatalf("fsck's open with no gateway serving: %v", err)
	}
	if l, err := Open(Options{Root: root, Index: dsn, NoSync: true}); !errors.Is(err, metadata.ErrCatalogueInUse) {
		if l != nil {
			l.Close()
		}
		t.Fatalf("a gateway's open while fsck works: %v", err)
	}
	if err := tool.Close(); err != nil {
		t.Fatal(err)
	}
	gw, err = Open(Options{Root: root, Index: dsn, NoSync: true})
	if err != nil {
		t.Fatalf("a gateway's open after fsck: %v", err)
	}
	gw.Close()
}

// A root served with a shared catalogue cannot be opened on its bbolt
// index by mistake (a command run without --index would make a catalogue
// of its own beside the shared one), until its catalogue is copied back.
func TestSharedIndexRootRefusesItsBboltIndex(t *testing.T) {
	root, dsn := t.TempDir(), pgtest.DSN(t)
	gw, err := Open(Options{Root: root, Index: dsn, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	gw.Close()
	if l, err := Open(Options{Root: root, NoSync: true}); !errors.Is(err, ErrSharedCatalogue) {
		if l != nil {
			l.Close()
		}
		t.Fatalf("opening the root's bbolt index after it was served with --index: %v", err)
	}
	if err := UseEmbeddedIndex(root); err != nil {
		t.Fatal(err)
	}
	l, err := Open(Options{Root: root, NoSync: true})
	if err != nil {
		t.Fatalf("after UseEmbeddedIndex: %v", err)
	}
	l.Close()
}

// A lock of the shared catalogue not granted in time answers 503
// SlowDown, which clients retry, not a 500.
func TestSharedIndexLockTimeoutIsSlowDown(t *testing.T) {
	err := mapErr(fmt.Errorf("enter: %w", metadata.ErrLockTimeout))
	if !isCode(err, s3err.SlowDown) {
		t.Fatalf("mapErr(ErrLockTimeout) = %v, want SlowDown", err)
	}
}

// A gateway stopped, then fsck at once, then a gateway at once again (a
// service whose start runs fsck first): each open follows a Close that
// returned, so none may find the catalogue still held by the one before.
func TestSharedIndexServingLockReleasedByClose(t *testing.T) {
	root, dsn := t.TempDir(), pgtest.DSN(t)
	for round := range 40 {
		var gws []*Layer
		for range 3 {
			gw, err := Open(Options{Root: root, Index: dsn, NoSync: true})
			if err != nil {
				t.Fatalf("round %d: a gateway's open right after fsck closed: %v", round, err)
			}
			gws = append(gws, gw)
		}
		for _, gw := range gws {
			if err := gw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		tool, err := OpenExclusive(Options{Root: root, Index: dsn})
		if err != nil {
			t.Fatalf("round %d: fsck's open right after the gateway closed: %v", round, err)
		}
		if err := tool.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
