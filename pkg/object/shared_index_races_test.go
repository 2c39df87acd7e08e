package object

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/pgtest"
	"github.com/objectgateway/objectgateway/pkg/s3err"
)

// The races of gateways sharing a root and a catalogue that a review
// found, each once a defect: buckets created and deleted at once through
// two gateways, and the parts of one multipart upload spread over
// gateways (a region file is one process's, so a shared catalogue keeps
// every part in a file of its own).

// openGatewaysOnR opens n layers on one new root and one new database,
// without buckets, and returns them with the root.
func openGatewaysOnR(t *testing.T, n int) ([]*Layer, string) {
	t.Helper()
	root := t.TempDir()
	return gatewaysOn(t, root, pgtest.DSN(t), n), root
}

// gatewaysOn opens n gateways on root, all on the catalogue dsn.
func gatewaysOn(t *testing.T, root, dsn string, n int) []*Layer {
	t.Helper()
	gws := make([]*Layer, n)
	for i := range gws {
		l, err := Open(Options{Root: root, Index: dsn, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		gws[i] = l
	}
	return gws
}

// Two gateways creating the same bucket at once: the one that finds the
// other's record must not remove the directory that the other's
// acknowledged bucket relies on (CreateBucket takes the catalogue's lock
// of the bucket).
func TestSharedIndexConcurrentCreateBucket(t *testing.T) {
	gws, root := openGatewaysOnR(t, 2)
	broken := 0
	for round := range 200 {
		name := fmt.Sprintf("race%03d", round)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = gws[i].CreateBucket(Bucket{Name: name})
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			}
		}
		if ok != 1 {
			t.Logf("round %d: %d successes: %v", round, ok, errs)
			continue
		}
		if _, err := os.Stat(filepath.Join(root, name)); err != nil {
			broken++
			_, perr := gws[0].PutObject(PutInput{Bucket: name, Key: "k", Body: strings.NewReader("x"), Size: 1})
			_, cerr := gws[1].Bucket(name)
			if broken <= 3 {
				t.Errorf("round %d: CreateBucket acknowledged (errs %v) but %s is missing: PUT -> %v; bucket record: %v", round, errs, name, perr, cerr)
			}
		}
	}
	t.Logf("broken buckets: %d / 200", broken)
}

// DeleteBucket through one gateway and CreateBucket of the same name
// through another, interleaved where the index record is gone but the
// directory is not yet removed (DeleteBucket's steps between
// l.ix.DeleteBucket and l.fs.RemoveBucket, replayed with the same locks):
// the CreateBucket waits for the deletion, and its bucket works.
func TestSharedIndexDeleteThenCreateAcrossGateways(t *testing.T) {
	gws, root := openGatewaysOnR(t, 2)
	a, b := gws[0], gws[1]
	if err := a.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	// a.DeleteBucket, step by step.
	m := a.fence.stripe("bkt")
	m.Lock()
	unlock, err := a.ix.LockBucket("bkt")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.ix.DeleteBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	// Meanwhile gateway 1 creates the bucket again: nothing stops it.
	done := make(chan error, 1)
	go func() { done <- b.CreateBucket(Bucket{Name: "bkt"}) }()
	var cerr0 error
	waited := false
	select {
	case cerr0 = <-done:
		t.Logf("CreateBucket through gateway 1 while gateway 0's DeleteBucket holds the bucket lock: %v", cerr0)
	case <-time.After(2 * time.Second):
		waited = true
		t.Logf("CreateBucket through gateway 1 waits for gateway 0's DeleteBucket (good)")
	}
	_ = a.fs.RemoveBucket("bkt")
	unlock()
	m.Unlock()
	if waited {
		cerr0 = <-done
	}
	if err := cerr0; err != nil {
		t.Logf("create: %v", err)
		return
	}
	_, statErr := os.Stat(filepath.Join(root, "bkt"))
	_, putErr := b.PutObject(PutInput{Bucket: "bkt", Key: "k", Body: strings.NewReader("x"), Size: 1})
	if statErr != nil || putErr != nil {
		t.Errorf("acknowledged CreateBucket is broken: dir: %v; PUT: %v", statErr, putErr)
	}
	// And the natural race, without replay.
	broken := 0
	for round := range 100 {
		name := fmt.Sprintf("dc%03d", round)
		if err := a.CreateBucket(Bucket{Name: name}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var derr, cerr error
		wg.Add(2)
		go func() { defer wg.Done(); derr = a.DeleteBucket(name) }()
		go func() {
			defer wg.Done()
			for range 200 {
				if cerr = b.CreateBucket(Bucket{Name: name}); cerr == nil || s3err.As(cerr).Code != s3err.BucketAlreadyOwnedByYou {
					return
				}
			}
		}()
		wg.Wait()
		if derr == nil && cerr == nil {
			if _, err := os.Stat(filepath.Join(root, name)); err != nil {
				broken++
			}
		}
	}
	if broken > 0 {
		t.Errorf("natural race: %d/100 buckets acknowledged by CreateBucket have no directory", broken)
	}
}

// Parts of one multipart upload through two gateways, in an order that
// would have fixed a region's part size differently in each process (the
// ranges then overlapped): the completed object holds its parts' bytes.
func TestSharedIndexRegionAcrossGateways(t *testing.T) {
	gws, _ := openGatewaysOnR(t, 2)
	a, b := gws[0], gws[1]
	if err := a.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	up, err := a.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: "mp"})
	if err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	sizes := []int{8 * mib, 8 * mib, 8 * mib, 6 * mib}
	bodies := make([][]byte, len(sizes))
	for i, n := range sizes {
		bodies[i] = bytes.Repeat([]byte{byte('A' + i)}, n)
	}
	put := func(l *Layer, n int) CompletePart {
		p, err := l.UploadPart(PartInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Number: n, Body: bytes.NewReader(bodies[n-1]), Size: int64(sizes[n-1])})
		if err != nil {
			t.Fatalf("part %d: %v", n, err)
		}
		return CompletePart{Number: n, ETag: p.ETag}
	}
	// The last part (6 MiB) reaches gateway 1 first (its S becomes 6 MiB)
	// and its body is slow to arrive.
	sr := &slowReaderR{r: bytes.NewReader(bodies[3]), n: 0, started: make(chan struct{}), release: make(chan struct{})}
	type res struct {
		p   Part
		err error
	}
	ch := make(chan res, 1)
	go func() {
		p, err := b.UploadPart(PartInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Number: 4, Body: sr, Size: int64(sizes[3])})
		ch <- res{p, err}
	}()
	<-sr.started
	// Parts 1-3 reach gateway 0, whose S is 8 MiB.
	p1, p2, p3 := put(a, 1), put(a, 2), put(a, 3)
	close(sr.release)
	r4 := <-ch
	if r4.err != nil {
		t.Fatal(r4.err)
	}
	p4 := CompletePart{Number: 4, ETag: r4.p.ETag}
	parts, _, _ := a.ix.Parts("bkt", "mp", up.ID, 0, 0)
	for _, p := range parts {
		t.Logf("part %d: size %d inRegion %v offset %d", p.Number, p.Size, p.InRegion, p.Offset)
	}
	out, err := a.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Parts: []CompletePart{p1, p2, p3, p4}, ExpectSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Join(bodies, nil)
	r, err := a.OpenObject("bkt", "mp")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, _ := io.ReadAll(io.NewSectionReader(r.File, 0, r.Object.Size))
	if !bytes.Equal(got, want) {
		first := -1
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				first = i
				break
			}
		}
		t.Errorf("completed object (ETag %s, acknowledged) differs from its parts: %d bytes vs %d, first difference at %d (%.1f MiB): got %q want %q",
			out.ETag, len(got), len(want), first, float64(first)/mib, got[first], want[first])
	}
}

// slowReaderR gives n bytes, then blocks until release is closed, then
// gives the rest.
type slowReaderR struct {
	r       io.Reader
	n       int
	read    int
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func (s *slowReaderR) Read(p []byte) (int, error) {
	if s.read >= s.n {
		s.once.Do(func() { close(s.started) })
		<-s.release
	} else if len(p) > s.n-s.read {
		p = p[:s.n-s.read]
	}
	m, err := s.r.Read(p)
	s.read += m
	return m, err
}

// A part upload in flight on one gateway while another completes the
// upload: the completed object never changes afterwards (a region writer
// of another process would have gone on writing into it).
func TestSharedIndexRegionWriterAfterCompleteOnOtherGateway(t *testing.T) {
	gws, _ := openGatewaysOnR(t, 2)
	a, b := gws[0], gws[1]
	if err := a.CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	up, err := a.CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: "mp"})
	if err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	part := func(c byte) []byte { return bytes.Repeat([]byte{c}, 8*mib) }
	var parts []CompletePart
	for n := 1; n <= 2; n++ {
		p, err := a.UploadPart(PartInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Number: n, Body: bytes.NewReader(part(byte('0' + n))), Size: 8 * mib})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, CompletePart{Number: n, ETag: p.ETag})
	}
	// Gateway 1 gets a part 2 again (a retry) and stalls mid-body.
	sr := &slowReaderR{r: bytes.NewReader(part('X')), n: 1 * mib, started: make(chan struct{}), release: make(chan struct{})}
	perr := make(chan error, 1)
	go func() {
		_, err := b.UploadPart(PartInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Number: 3, Body: sr, Size: 8 * mib})
		perr <- err
	}()
	<-sr.started
	out, err := a.CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: "mp", UploadID: up.ID, Parts: parts, ExpectSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	close(sr.release)
	t.Logf("the stalled part on gateway 1: %v", <-perr)
	want := append(part('1'), part('2')...)
	sum := md5.Sum(want)
	_ = sum
	r, err := a.OpenObject("bkt", "mp")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, _ := io.ReadAll(io.NewSectionReader(r.File, 0, r.Object.Size))
	fi, _ := r.File.Stat()
	t.Logf("record: size %d ETag %s (completion answered ETag %s, %d bytes); file now %d bytes", r.Object.Size, r.Object.ETag, out.ETag, out.Size, fi.Size())
	if !bytes.Equal(got, want) || r.Object.ETag != out.ETag {
		diff := 0
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				diff++
			}
		}
		t.Errorf("object completed (ETag %s) changed after its completion by another gateway's part writer: %d bytes differ; record now %s, %d bytes",
			out.ETag, diff, r.Object.ETag, r.Object.Size)
	}
}

var _ = hex.EncodeToString
var _ = metadata.NullVersion

// The same without orchestration: a 30 MiB object in 8 MiB parts (8, 8,
// 8, 6) uploaded concurrently, round-robin over three gateways as an SDK
// behind nginx does, then completed; repeated.
func TestSharedIndexRegionAcrossGatewaysNatural(t *testing.T) {
	gws, _ := openGatewaysOnR(t, 3)
	if err := gws[0].CreateBucket(Bucket{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	sizes := []int{8 * mib, 8 * mib, 8 * mib, 6 * mib}
	bad := 0
	const rounds = 20
	for round := range rounds {
		key := fmt.Sprintf("mp%d", round)
		up, err := gws[0].CreateMultipartUpload(CreateUploadInput{Bucket: "bkt", Key: key})
		if err != nil {
			t.Fatal(err)
		}
		bodies := make([][]byte, 4)
		for i, n := range sizes {
			bodies[i] = bytes.Repeat([]byte{byte('A' + i + round)}, n)
		}
		parts := make([]CompletePart, 4)
		var wg sync.WaitGroup
		for n := 1; n <= 4; n++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := gws[(n-1)%3]
				p, err := l.UploadPart(PartInput{Bucket: "bkt", Key: key, UploadID: up.ID, Number: n, Body: bytes.NewReader(bodies[n-1]), Size: int64(sizes[n-1])})
				if err != nil {
					t.Error(err)
					return
				}
				parts[n-1] = CompletePart{Number: n, ETag: p.ETag}
			}()
		}
		wg.Wait()
		if _, err := gws[1].CompleteMultipartUpload(CompleteInput{Bucket: "bkt", Key: key, UploadID: up.ID, Parts: parts, ExpectSize: -1}); err != nil {
			t.Fatal(err)
		}
		r, err := gws[2].OpenObject("bkt", key)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(io.NewSectionReader(r.File, 0, r.Object.Size))
		r.Close()
		if !bytes.Equal(got, bytes.Join(bodies, nil)) {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d completed uploads hold bytes other than their parts'", bad, rounds)
	}
}
