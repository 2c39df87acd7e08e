package main

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/pkg/s3err"
	"github.com/objectgateway/objectgateway/storage"
)

// The versioned crash harness. A child process (this test binary, in
// TestCrashVersionedChild) opens the object layer on one root and runs
// concurrent PUT, DELETE (delete markers), DELETE by version id,
// CopyObject from a version and multipart completion on two versioned
// buckets: "ver", always Enabled, and "susp", Enabled and then Suspended
// half way through the rounds. Before each operation the child prints
// what it starts, and after the layer returns it prints the version the
// operation acknowledged. The parent kills the child with SIGKILL at a
// random moment, many times over one root, and after each kill checks:
//
//   - fsck (report only, before anything opens the root) finds nothing
//     but staging leftovers, orphaned part directories, and for keys
//     whose operation was in flight the states a crash leaves in the
//     middle of a move (changed-file, missing-file, interrupted-move,
//     orphan-version, untracked-file);
//   - after the layer is opened again, every acknowledged version not
//     acknowledged as deleted reads back by id with its exact bytes, no
//     version is listed twice by ListObjectVersions, the key's versions
//     are exactly the acknowledged ones (or those with the operation in
//     flight applied whole), a GET without an id reads the latest version
//     and the key's natural file holds it, or, when the latest is a
//     delete marker, the GET answers NoSuchKey with the marker's headers
//     and the key has no file;
//   - fsck --repair then fixes only such in-flight artifacts, after which
//     fsck finds nothing at all.
//
// The HTTP layer adds nothing to what a kill can leave on disk, so the
// child drives the object layer directly; the power-cut harness
// (TestPowerCutVersioned) runs the same child against the gateway binary
// over HTTP instead. OBJECTGATEWAY_CRASH_ROUNDS sets the number of kill
// rounds (default 5).

const (
	crashVWorkers = 4
	crashVKeys    = 4 // per worker: even ones in "ver", odd ones in "susp"
	crashVChild   = "OBJECTGATEWAY_CRASH_VERSIONED_CHILD"
	// crashVEndpoint, when set, makes the child drive the gateway at this
	// address over HTTP instead of opening the layer.
	crashVEndpoint = "OBJECTGATEWAY_CRASH_VERSIONED_ENDPOINT"
	// crashVOpsMax bounds a child's operations per worker; the parent
	// kills it long before.
	crashVOpsMax = 100000
)

// crashVLine is one line the child prints: an operation it starts
// (Op set) or the acknowledgement of the key's operation in flight (Ack).
type crashVLine struct {
	Bucket, Key string
	// Op is "put", "copy", "mpu", "marker" or "delver".
	Op string `json:",omitempty"`
	// MD5 is the hex MD5 of the bytes a put, copy or mpu writes.
	MD5 string `json:",omitempty"`
	// Target is the version a delver removes.
	Target string `json:",omitempty"`
	// Ack is set on an acknowledgement; Version is the version id it
	// made or removed ("null" for the null version).
	Ack     bool   `json:",omitempty"`
	Version string `json:",omitempty"`
	// Ready is the child's first line, once the layer is open.
	Ready bool `json:",omitempty"`
	// Err is an operation's error when the child drives a gateway over
	// HTTP, which the parent may have killed.
	Err string `json:",omitempty"`
}

// crashVVersion is one version in the model: an id and its bytes' MD5, or
// a delete marker.
type crashVVersion struct {
	ID     string
	MD5    string
	Marker bool
}

func (v crashVVersion) String() string {
	if v.Marker {
		return v.ID + "(marker)"
	}
	return v.ID + "(" + v.MD5[:min(8, len(v.MD5))] + ")"
}

// crashVKey is the model of one key: its versions, newest first, and the
// operation in flight at the kill, if any.
type crashVKey struct {
	bucket, key string
	versions    []crashVVersion
	inflight    *crashVLine
	// crashed is set once an operation of the key was in flight at a kill.
	crashed bool
}

func crashVKeyName(w, i int) (bucket, key string) {
	bucket = "ver"
	if i%2 == 1 {
		bucket = "susp"
	}
	return bucket, fmt.Sprintf("w%d/k%02d", w, i)
}

// apply makes an acknowledged operation part of the model.
func (k *crashVKey) apply(op crashVLine, ack string) {
	switch op.Op {
	case "delver":
		k.versions = slices.DeleteFunc(k.versions, func(v crashVVersion) bool { return v.ID == ack })
		return
	}
	if ack == metadata.NullVersion {
		// A suspended bucket's write or delete replaces the null version.
		k.versions = slices.DeleteFunc(k.versions, func(v crashVVersion) bool { return v.ID == ack })
	}
	v := crashVVersion{ID: ack, MD5: op.MD5, Marker: op.Op == "marker"}
	k.versions = append([]crashVVersion{v}, k.versions...)
}

// accepts reports whether the versions listed after a kill are the
// model's, or the model's with the operation in flight applied whole.
func (k *crashVKey) accepts(listed []crashVVersion) bool {
	if slices.Equal(listed, k.versions) {
		return true
	}
	op := k.inflight
	if op == nil {
		return false
	}
	if op.Op == "delver" {
		want := slices.DeleteFunc(slices.Clone(k.versions), func(v crashVVersion) bool { return v.ID == op.Target })
		return slices.Equal(listed, want)
	}
	if len(listed) == 0 {
		return false
	}
	top := listed[0]
	if top.Marker != (op.Op == "marker") || (!top.Marker && top.MD5 != op.MD5) {
		return false
	}
	if top.ID != metadata.NullVersion && slices.ContainsFunc(k.versions, func(v crashVVersion) bool { return v.ID == top.ID }) {
		return false
	}
	m := slices.Clone(k.versions)
	if top.ID == metadata.NullVersion {
		m = slices.DeleteFunc(m, func(v crashVVersion) bool { return v.ID == top.ID })
	}
	return slices.Equal(listed[1:], m)
}

// TestCrashVersionedChild is the child of TestCrashVersioned; it runs
// only when the parent starts it.
func TestCrashVersionedChild(t *testing.T) {
	root := os.Getenv(crashVChild)
	if root == "" {
		t.Skip("the child of TestCrashVersioned")
	}
	var store crashVStore
	endpoint := os.Getenv(crashVEndpoint)
	if endpoint != "" {
		store = newCrashVHTTP(endpoint)
	} else {
		l, err := object.Open(object.Options{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		store = crashVLayer{l}
	}
	var mu sync.Mutex
	emit := func(line crashVLine) {
		b, _ := json.Marshal(line)
		mu.Lock()
		defer mu.Unlock()
		// One write per line: the parent reads whole lines up to the kill.
		os.Stdout.Write(append(b, '\n'))
	}
	emit(crashVLine{Ready: true})
	var wg sync.WaitGroup
	for w := range crashVWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(w)))
			for range crashVOpsMax {
				if err := crashVOp(store, rng, w, emit); err != nil {
					if endpoint != "" {
						// The gateway may have been killed: the parent
						// decides, and kills this process.
						emit(crashVLine{Err: fmt.Sprintf("worker %d: %v", w, err)})
						select {}
					}
					// The layer refused an operation a gateway serves.
					t.Errorf("worker %d: %v", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// crashVStore is what a worker of the child drives: the object layer
// itself, or a gateway over HTTP (crashVHTTP). Each method returns the
// version id the operation made or removed as the layer shows it ("" for
// the null version of an unversioned write).
type crashVStore interface {
	put(bucket, key string, body []byte) (string, error)
	// remove writes a delete marker, or with a version id removes it.
	remove(bucket, key, versionID string) (string, error)
	copy(bucket, srcKey, srcVersionID, dstKey string) (string, error)
	// multipart uploads the parts and completes the upload.
	multipart(bucket, key string, parts [][]byte) (string, error)
	// pick returns a random version of key that is not a delete marker,
	// with the MD5 of its bytes, or ok false when it has none.
	pick(bucket, key string, rng *rand.Rand) (v crashVVersion, ok bool, err error)
}

// crashVLayer is a crashVStore on the object layer.
type crashVLayer struct{ l *object.Layer }

func (s crashVLayer) put(bucket, key string, body []byte) (string, error) {
	o, err := s.l.PutObject(object.PutInput{Bucket: bucket, Key: key, Body: bytes.NewReader(body), Size: int64(len(body))})
	return o.VersionID, err
}

func (s crashVLayer) remove(bucket, key, versionID string) (string, error) {
	r, err := s.l.Remove(object.RemoveInput{Bucket: bucket, Key: key, VersionID: versionID})
	return r.VersionID, err
}

func (s crashVLayer) copy(bucket, srcKey, srcVersionID, dstKey string) (string, error) {
	o, err := s.l.CopyObject(object.CopyInput{SrcBucket: bucket, SrcKey: srcKey, SrcVersionID: srcVersionID, DstBucket: bucket, DstKey: dstKey})
	return o.VersionID, err
}

func (s crashVLayer) multipart(bucket, key string, parts [][]byte) (string, error) {
	up, err := s.l.CreateMultipartUpload(object.CreateUploadInput{Bucket: bucket, Key: key})
	if err != nil {
		return "", err
	}
	var done []object.CompletePart
	for i, p := range parts {
		part, err := s.l.UploadPart(object.PartInput{Bucket: bucket, Key: key, UploadID: up.ID, Number: i + 1, Body: bytes.NewReader(p), Size: int64(len(p))})
		if err != nil {
			return "", err
		}
		done = append(done, object.CompletePart{Number: i + 1, ETag: part.ETag})
	}
	o, err := s.l.CompleteMultipartUpload(object.CompleteInput{Bucket: bucket, Key: key, UploadID: up.ID, ExpectSize: -1, Parts: done})
	return o.VersionID, err
}

func (s crashVLayer) pick(bucket, key string, rng *rand.Rand) (crashVVersion, bool, error) {
	return crashVPick(s.l, bucket, key, rng)
}

// crashVOp runs one random operation on one of worker w's keys.
func crashVOp(s crashVStore, rng *rand.Rand, w int, emit func(crashVLine)) (err error) {
	bucket, key := crashVKeyName(w, rng.IntN(crashVKeys))
	op := crashVLine{Bucket: bucket, Key: key}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s %s/%s (from %s): %w", op.Op, bucket, op.Key, key, err)
		}
	}()
	var id string
	switch n := rng.IntN(20); {
	case n < 8:
		body := crashBody(rng, crashSize(rng)/4)
		op.Op, op.MD5 = "put", md5hex(body)
		emit(op)
		id, err = s.put(bucket, key, body)
	case n < 11:
		op.Op = "marker"
		emit(op)
		id, err = s.remove(bucket, key, "")
	case n < 18:
		src, ok, err := s.pick(bucket, key, rng)
		if err != nil || !ok {
			return err
		}
		if n < 14 {
			op.Op, op.Target = "delver", src.ID
			emit(op)
			id, err = s.remove(bucket, key, src.ID)
			if err != nil {
				return err
			}
			break
		}
		// CopyObject from one of the key's versions onto another key of
		// this worker's, in the same bucket.
		dst := crashVKeyName2(w, rng.IntN(crashVKeys/2), bucket)
		op.Key, op.Op, op.MD5 = dst, "copy", src.MD5
		emit(op)
		id, err = s.copy(bucket, key, src.ID, dst)
		if err != nil {
			return err
		}
	default:
		p1 := crashBody(rng, object.MinPartSize)
		p2 := crashBody(rng, 1+rng.IntN(64<<10))
		op.Op, op.MD5 = "mpu", md5hex(append(append([]byte(nil), p1...), p2...))
		emit(op)
		id, err = s.multipart(bucket, key, [][]byte{p1, p2})
	}
	if err != nil {
		return err
	}
	emit(crashVLine{Bucket: op.Bucket, Key: op.Key, Ack: true, Version: crashVShown(id)})
	return nil
}

// crashVKeyName2 is the key of worker w with index 2i (or 2i+1) in bucket.
func crashVKeyName2(w, i int, bucket string) string {
	if bucket == "susp" {
		i = 2*i + 1
	} else {
		i = 2 * i
	}
	_, key := crashVKeyName(w, i)
	return key
}

func crashVShown(id string) string {
	if id == "" {
		return metadata.NullVersion
	}
	return id
}

// crashVPick returns a random version of key that is not a delete marker,
// with the MD5 of its bytes, or ok false when it has none.
func crashVPick(l *object.Layer, bucket, key string, rng *rand.Rand) (crashVVersion, bool, error) {
	vs, err := crashVList(l, bucket, key)
	if err != nil {
		return crashVVersion{}, false, err
	}
	vs = slices.DeleteFunc(vs, func(v crashVVersion) bool { return v.Marker })
	if len(vs) == 0 {
		return crashVVersion{}, false, nil
	}
	v := vs[rng.IntN(len(vs))]
	sum, err := crashVRead(l, bucket, key, v.ID)
	if err != nil {
		return crashVVersion{}, false, fmt.Errorf("read version %s of %s: %w", v.ID, key, err)
	}
	v.MD5 = sum
	return v, true, nil
}

// crashVList returns the versions ListObjectVersions lists for key,
// newest first, without their MD5s.
func crashVList(l *object.Layer, bucket, key string) ([]crashVVersion, error) {
	var out []crashVVersion
	q := metadata.VersionQuery{Prefix: key, Limit: 1000}
	for range 1000 {
		page, err := l.ListVersions(bucket, q)
		if err != nil {
			return nil, err
		}
		for _, e := range page.Entries {
			if e.Prefix == "" && e.Key == key {
				out = append(out, crashVVersion{ID: crashVShown(e.VersionID), Marker: e.DeleteMarker})
			}
		}
		if !page.Truncated {
			return out, nil
		}
		q.KeyMarker, q.VersionMarker = page.NextKeyMarker, page.NextVersionMarker
	}
	return nil, errors.New("ListVersions does not end")
}

// crashVRead returns the hex MD5 of one version's bytes ("" the current
// one).
func crashVRead(l *object.Layer, bucket, key, id string) (string, error) {
	r, err := l.OpenVersion(bucket, key, id)
	if err != nil {
		return "", err
	}
	defer r.Close()
	h := md5.New()
	if r.File != nil {
		if _, err := io.CopyN(h, r.File, r.Size); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type crashVHarness struct {
	t    *testing.T
	root string
	keys map[[2]string]*crashVKey
	// acked, inflight and verified count for the closing log line.
	acked, inflight, verified int
	artifacts                 map[object.ProblemKind]int
	// gateway, if set, is the gateway binary the child drives over HTTP;
	// load starts it and kills it with the child.
	gateway *crashHarness
}

func TestCrashVersioned(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash harness kills a child process many times")
	}
	// Every round reads back every version the keys have gathered, so
	// the default is smaller than TestCrash's; CI sets more.
	rounds := 5
	if os.Getenv("OBJECTGATEWAY_CRASH_ROUNDS") != "" {
		rounds = crashRounds(t)
	}
	h := &crashVHarness{t: t, root: filepath.Join(t.TempDir(), "root"), keys: map[[2]string]*crashVKey{}, artifacts: map[object.ProblemKind]int{}}
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
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	for round := 1; round <= rounds && !t.Failed(); round++ {
		if round == rounds/2+1 {
			h.suspend()
		}
		h.load(rng, time.Duration(50+rng.IntN(750))*time.Millisecond)
		h.checkFsck(round, object.FsckOptions{})
		h.verify(round)
		h.checkFsck(round, object.FsckOptions{Repair: true})
		h.checkClean(round)
	}
	t.Logf("versioned crash harness: %d kill rounds, %d acknowledged operations, %d operations in flight at a kill, %d versions verified by id",
		rounds, h.acked, h.inflight, h.verified)
	t.Logf("versioned crash artifacts fsck found right after the kills: %v", h.artifacts)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// suspend suspends versioning of "susp" between two rounds.
func (h *crashVHarness) suspend() {
	l, err := object.Open(object.Options{Root: h.root})
	must(h.t, err)
	defer l.Close()
	st, err := l.BucketState("susp")
	must(h.t, err)
	must(h.t, l.SetVersioning("susp", st.ID, metadata.VersioningSuspended))
}

// load runs the child for d, kills it, and applies what it acknowledged.
func (h *crashVHarness) load(rng *rand.Rand, d time.Duration) {
	t := h.t
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashVersionedChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashVChild+"="+h.root)
	kill := func() { cmd.Process.Signal(syscall.SIGKILL) }
	if g := h.gateway; g != nil {
		g.start()
		cmd.Env = append(cmd.Env, crashVEndpoint+"="+g.addr)
		kill = func() {
			g.stop(syscall.SIGKILL)
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	lines := make(chan crashVLine, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var line crashVLine
			if json.Unmarshal(sc.Bytes(), &line) == nil && (line.Ready || line.Key != "" || line.Err != "") {
				lines <- line
				continue
			}
			// The child's test output: its failures, if any.
			t.Logf("child: %s", sc.Text())
		}
	}()
	first, ok := <-lines
	if !ok || !first.Ready {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the child did not start")
	}
	timer := time.AfterFunc(d, kill) // the kill point is random by design
	defer timer.Stop()
	for line := range lines {
		k := h.keys[[2]string{line.Bucket, line.Key}]
		switch {
		case line.Err != "":
			if h.gateway == nil || !h.gateway.killed.Load() {
				t.Errorf("the gateway refused an operation: %s", line.Err)
			}
		case k == nil:
			t.Fatalf("the child printed an unknown key: %+v", line)
		case line.Ack && k.inflight != nil:
			k.apply(*k.inflight, line.Version)
			k.inflight = nil
			h.acked++
		case line.Ack:
			t.Fatalf("an acknowledgement without an operation: %+v", line)
		default:
			op := line
			k.inflight = &op
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child ended by itself: %v", err)
	}
	for _, k := range h.keys {
		if k.inflight != nil {
			k.crashed = true
			h.inflight++
		}
	}
}

// keyOf returns the model key a problem is about: by key, or by the hash
// in a version file's name.
func (h *crashVHarness) keyOf(p object.Problem) *crashVKey {
	if k := h.keys[[2]string{p.Bucket, p.Key}]; k != nil {
		return k
	}
	for _, k := range h.keys {
		if k.bucket != p.Bucket {
			continue
		}
		if name, err := storage.VersionName(k.bucket, k.key, ""); err == nil && strings.HasPrefix(p.Name, strings.TrimSuffix(name, "null")) {
			return k
		}
	}
	return nil
}

// checkFsck runs fsck on the root while no process has it open: only
// start-up leftovers and the artifacts of operations in flight at a kill
// may be found. With repair, it fixes them.
func (h *crashVHarness) checkFsck(round int, o object.FsckOptions) {
	t := h.t
	l, err := object.OpenExclusive(object.Options{Root: h.root})
	if err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	defer l.Close()
	rep, err := l.Fsck(o)
	if err != nil {
		t.Fatalf("round %d: fsck: %v", round, err)
	}
	for _, p := range rep.Problems {
		if !o.Repair {
			h.artifacts[p.Kind]++
		}
		switch p.Kind {
		case object.StagingLeftover, object.OrphanParts:
			continue
		case object.ChangedFile, object.MissingFile, object.InterruptedMove, object.OrphanVersion, object.UntrackedFile:
			k := h.keyOf(p)
			// Before the restart the operation is in flight; after it,
			// an orphan version file (which reads never remove) or a
			// file without a record remains of a key some kill hit.
			if k != nil && (k.inflight != nil || k.crashed && (p.Kind == object.OrphanVersion || p.Kind == object.UntrackedFile)) {
				if !o.Repair || p.Repaired || p.Kind == object.UntrackedFile {
					continue
				}
			}
		}
		t.Errorf("round %d: fsck (repair %v): %v", round, o.Repair, p)
	}
}

// checkClean requires fsck to find nothing but files of keys whose write
// a kill cut short before their record (fsck never deletes those).
func (h *crashVHarness) checkClean(round int) {
	l, err := object.OpenExclusive(object.Options{Root: h.root})
	must(h.t, err)
	defer l.Close()
	rep, err := l.Fsck(object.FsckOptions{})
	must(h.t, err)
	for _, p := range rep.Problems {
		if k := h.keyOf(p); p.Kind == object.UntrackedFile && k != nil && k.crashed {
			continue
		}
		h.t.Errorf("round %d: fsck after repair: %v", round, p)
	}
}

// verify opens the layer again and checks every key against the model,
// then makes what it found the model.
func (h *crashVHarness) verify(round int) {
	t := h.t
	l, err := object.Open(object.Options{Root: h.root})
	must(t, err)
	defer l.Close()
	for _, k := range h.keys {
		// The GET without an id comes first: it finishes a move a kill
		// cut short, as the first read after a crash does.
		latest, getErr := crashVRead(l, k.bucket, k.key, "")
		listed, err := crashVList(l, k.bucket, k.key)
		if err != nil {
			t.Fatalf("round %d: list %s/%s: %v", round, k.bucket, k.key, err)
		}
		seen := map[string]bool{}
		for i := range listed {
			v := &listed[i]
			if seen[v.ID] {
				t.Errorf("round %d: %s/%s: version %s listed twice: %v", round, k.bucket, k.key, v.ID, listed)
			}
			seen[v.ID] = true
			sum, err := crashVRead(l, k.bucket, k.key, v.ID)
			switch {
			case v.Marker:
				if e := s3err.As(err); e == nil || e.Code != s3err.MethodNotAllowed {
					t.Errorf("round %d: %s/%s: GET of delete marker %s: %v", round, k.bucket, k.key, v.ID, err)
				}
			case err != nil:
				t.Errorf("round %d: %s/%s: GET ?versionId=%s: %v", round, k.bucket, k.key, v.ID, err)
			default:
				v.MD5 = sum
				h.verified++
			}
		}
		if !k.accepts(listed) {
			t.Errorf("round %d: %s/%s: versions %v; acknowledged %v, in flight %+v", round, k.bucket, k.key, listed, k.versions, k.inflight)
		}
		natural, nerr := os.ReadFile(filepath.Join(h.root, k.bucket, k.key))
		switch {
		case len(listed) == 0 || listed[0].Marker:
			e := s3err.As(getErr)
			if e == nil || e.Code != s3err.NoSuchKey {
				t.Errorf("round %d: %s/%s: GET of a deleted key: %v", round, k.bucket, k.key, getErr)
			} else if len(listed) > 0 && !slices.Contains(e.Headers, s3err.Field{Name: "x-amz-delete-marker", Value: "true"}) {
				t.Errorf("round %d: %s/%s: NoSuchKey without the delete marker's header: %v", round, k.bucket, k.key, e.Headers)
			}
			if nerr == nil && !k.crashed {
				// A write a kill cut short before its record leaves a
				// file the index does not know (fsck: untracked-file);
				// any other file is a version in the wrong place.
				t.Errorf("round %d: %s/%s: a deleted key has a file", round, k.bucket, k.key)
			}
		case getErr != nil || latest != listed[0].MD5:
			t.Errorf("round %d: %s/%s: GET reads %s %v, the latest version is %v", round, k.bucket, k.key, latest, getErr, listed[0])
		case nerr != nil || md5hex(natural) != latest:
			t.Errorf("round %d: %s/%s: the natural file is not the latest version: %v", round, k.bucket, k.key, nerr)
		}
		k.versions, k.inflight = listed, nil
	}
}
