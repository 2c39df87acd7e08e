package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
)

// The power-cut harnesses run the kill -9 harnesses on a pkg/powercut
// mount and cut the power after every kill: the page cache the kill keeps
// is dropped, and only what the gateway fsynced (file data, and each name
// once its directory was fsynced) survives, the bbolt index included.
// After the cut the kill -9 harnesses' checks apply unchanged: every
// acknowledged write reads back with its exact bytes and ETag (every
// acknowledged version by id), an operation in flight is absent or
// whole, acknowledged deletes stay deleted, the index opens and fsck
// finds only what a kill may leave for start-up and reads to reconcile.
//
// OBJECTGATEWAY_POWERCUT_ROUNDS sets the number of cuts of each harness.

func powerCutRounds(t *testing.T, def int) int {
	v := os.Getenv("OBJECTGATEWAY_POWERCUT_ROUNDS")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("OBJECTGATEWAY_POWERCUT_ROUNDS=%q: want a positive integer", v)
	}
	return n
}

// powerCutLoad is how long a round's load runs before the kill: short,
// so a round is quick and many cuts fall early in an operation.
func powerCutLoad(rng *rand.Rand) time.Duration {
	return time.Duration(20+rng.IntN(400)) * time.Millisecond
}

// TestPowerCut is TestCrash with a power cut after every kill: the gateway
// binary on the mount under concurrent PUT, DELETE, multipart, CopyObject
// and DeleteObjects over HTTP.
func TestPowerCut(t *testing.T) {
	if testing.Short() {
		t.Skip("the power-cut harness builds and kills a real gateway process")
	}
	m := mountPowerCut(t)
	rounds := powerCutRounds(t, 10)
	h := newCrashHarness(t, buildGateway(t), filepath.Join(m.path, "root"))
	defer h.stop(syscall.SIGKILL)

	h.start()
	ctx := context.Background()
	if _, err := h.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(crashBucket)}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	cuts := 0
	for round := 1; round <= rounds && !t.Failed(); round++ {
		h.load(rng, powerCutLoad(rng))
		m.Cut()
		cuts++
		h.checkFsckAfterKill(round)
		h.start()
		h.verify(round)
	}
	h.stop(syscall.SIGTERM)
	h.checkFinal()
	t.Logf("power-cut harness: %d cuts, %d acknowledged operations, %d operations in flight at a cut, %d key states verified, %d lost acknowledged writes",
		cuts, h.acked, h.inflightAtKill, h.verified, h.lost)
	t.Logf("power-cut artifacts fsck found right after the cuts (before start-up and reads reconciled them): %v", h.artifacts)
	if h.lost != 0 {
		t.Fatalf("%d acknowledged writes were lost", h.lost)
	}
}

// TestPowerCutVersioned is TestCrashVersioned with a power cut after every
// kill: versioned PUTs, delete markers, deletes by version id, copies from
// versions and multipart completions on an Enabled and a Suspended
// bucket, sent over HTTP to the gateway binary by a child process; the
// gateway and the child are killed together.
func TestPowerCutVersioned(t *testing.T) {
	if testing.Short() {
		t.Skip("the power-cut harness kills a child process many times")
	}
	m := mountPowerCut(t)
	rounds := powerCutRounds(t, 5)
	root := filepath.Join(m.path, "root")
	h := &crashVHarness{t: t, root: root, keys: map[[2]string]*crashVKey{}, artifacts: map[object.ProblemKind]int{},
		gateway: newCrashHarness(t, buildGateway(t), root)}
	defer h.gateway.stop(syscall.SIGKILL)
	for w := range crashVWorkers {
		for i := range crashVKeys {
			b, k := crashVKeyName(w, i)
			h.keys[[2]string{b, k}] = &crashVKey{bucket: b, key: k}
		}
	}
	must(t, os.MkdirAll(h.root, 0o755))
	l, err := object.Open(object.Options{Root: h.root})
	must(t, err)
	for _, b := range []string{"ver", "susp"} {
		must(t, l.CreateBucket(object.Bucket{Name: b, Versioning: metadata.VersioningEnabled}))
	}
	must(t, l.Close())
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 4))
	cuts := 0
	for round := 1; round <= rounds && !t.Failed(); round++ {
		if round == rounds/2+1 {
			h.suspend()
		}
		h.load(rng, powerCutLoad(rng))
		m.Cut()
		cuts++
		h.checkFsck(round, object.FsckOptions{})
		h.verify(round)
		h.checkFsck(round, object.FsckOptions{Repair: true})
		h.checkClean(round)
	}
	t.Logf("versioned power-cut harness: %d cuts, %d acknowledged operations, %d operations in flight at a cut, %d versions verified by id",
		cuts, h.acked, h.inflight, h.verified)
	t.Logf("versioned power-cut artifacts fsck found right after the cuts: %v", h.artifacts)
}

// TestPowerCutFreshRoot: a bucket and an object acknowledged by a gateway
// that has just made its root survive a power cut; the new root, its
// state directory and the index file are fsynced into their parents.
func TestPowerCutFreshRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real gateway process")
	}
	m := mountPowerCut(t)
	h := newCrashHarness(t, buildGateway(t), filepath.Join(m.path, "root"))
	defer h.stop(syscall.SIGKILL)
	h.start()
	ctx := context.Background()
	body := []byte("the first object of a new root")
	if _, err := h.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(crashBucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(crashBucket), Key: aws.String("first"), Body: bytes.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
	h.stop(syscall.SIGKILL)
	m.Cut()
	h.start()
	if _, err := h.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(crashBucket)}); err != nil {
		t.Fatalf("the bucket after the cut: %v", err)
	}
	out, err := h.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(crashBucket), Key: aws.String("first")})
	if err != nil {
		t.Fatalf("the object after the cut: %v", err)
	}
	defer out.Body.Close()
	got, err := io.ReadAll(out.Body)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("the object after the cut holds %q (%v), want %q", got, err, body)
	}
}
