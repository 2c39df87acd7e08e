package bench

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/objectgateway/objectgateway/api"
	"github.com/objectgateway/objectgateway/metadata"
	"github.com/objectgateway/objectgateway/pkg/expire"
	"github.com/objectgateway/objectgateway/pkg/lifecycle"
	"github.com/objectgateway/objectgateway/pkg/object"
	"github.com/objectgateway/objectgateway/storage"
)

// lifecycleBusy is the share of its time the worker works during a pass,
// as cmd/objectgateway sets it.
const lifecycleBusy = 0.25

// BenchmarkLifecyclePass measures a lifecycle pass over a bucket of
// LCBENCH_RECORDS (1,000,000) objects of which 1% match a rule, while the
// mixed scenario runs against the same gateway, and the mixed workload's
// ops/s without and with passes running, in the same run.
//
// The 99% that do not match are index records alone (written with
// ApplyObjects, as a scan imports a tree), since a pass reads only the
// index for them; the 1% that match are real objects, PUT through the
// layer, which the pass removes with their files. The rule matches by tag
// with an empty prefix, so the pass walks every record of the bucket,
// decoding each one's tags: the costliest walk a rule can ask for. The
// worker is paced as the gateway paces it (Busy lifecycleBusy, or
// LCBENCH_BUSY); one pass starts with the second of three windows of the
// mixed scenario, each as long as the 30 s a pass may take.
//
// Besides the pass's duration and the ops/s (s/pass, mixed-ops/s-*,
// %cost), it reports the CPU time the pass used (cpu-s/pass, the
// worker's own count) and that as a share of the CPU time the process
// used in a window without a pass (%cpu-of-window): on a shared machine
// the ops/s of two windows differ by more than a pass costs, while CPU
// times do not depend on the load. With LCBENCH_IDLE set it runs the
// pass alone, without the workload, and reports its duration and the
// process's CPU time meanwhile (process-cpu-s/pass). Run it with
//
//	go test -run XXX -bench LifecyclePass -benchtime 1x -timeout 15m ./bench
func BenchmarkLifecyclePass(b *testing.B) {
	records := 1_000_000
	if v := os.Getenv("LCBENCH_RECORDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		records = n
	}
	busy := lifecycleBusy
	if v := os.Getenv("LCBENCH_BUSY"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			b.Fatal(err)
		}
		busy = f
	}
	window := 30 * time.Second
	root := b.TempDir()
	const bucket = "lcbench"
	layer, err := object.Open(object.Options{Root: root, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := layer.CreateBucket(object.Bucket{Name: bucket}); err != nil {
		b.Fatal(err)
	}
	layer.Close()

	// The non-matching 99%: index records only.
	start := time.Now()
	ix, err := metadata.Open(filepath.Join(root, storage.StateDir, object.IndexFile), metadata.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]metadata.Object, 0, 10_000)
	flush := func() {
		if err := ix.ApplyObjects(bucket, batch, nil); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	now := time.Now().UTC()
	for i := 0; i < records; i++ {
		if i%100 == 0 {
			continue
		}
		batch = append(batch, metadata.Object{Key: fmt.Sprintf("data/%08d", i), Size: 1024, ETag: "0123456789abcdef0123456789abcdef", LastModified: now})
		if len(batch) == cap(batch) {
			flush()
		}
	}
	flush()
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	if layer, err = object.Open(object.Options{Root: root, NoSync: true}); err != nil {
		b.Fatal(err)
	}
	defer layer.Close()
	// The matching 1%: real objects, tagged.
	tags := []metadata.KV{{Key: "kind", Value: "scratch"}}
	for i := 0; i < records; i += 100 {
		_, err := layer.PutObject(object.PutInput{Bucket: bucket, Key: fmt.Sprintf("data/%08d", i), Body: strings.NewReader("x"), Size: 1, Tags: tags})
		if err != nil {
			b.Fatal(err)
		}
	}
	cfg, err := lifecycle.Parse([]byte(`<LifecycleConfiguration><Rule><ID>scratch</ID><Filter><Tag><Key>kind</Key><Value>scratch</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`))
	if err != nil {
		b.Fatal(err)
	}
	if err := layer.UpdateBucket(bucket, 0, func(bk *object.Bucket) error { bk.Lifecycle = string(lifecycle.Render(cfg)); return nil }); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d records, %d objects in %v", records, records/100, time.Since(start).Round(time.Millisecond))

	if os.Getenv("LCBENCH_IDLE") != "" {
		// The pass alone, without the workload: its CPU time is the
		// process's, whatever else the machine runs.
		w := expire.New(expire.Options{Layer: layer, Busy: busy, Now: func() time.Time { return time.Now().Add(72 * time.Hour) }, Log: zerolog.Nop()})
		b.ResetTimer()
		cpu0, t := processCPU(b), time.Now()
		if err := w.Pass(context.Background()); err != nil {
			b.Fatal(err)
		}
		pass, cpu := time.Since(t), processCPU(b)-cpu0
		b.StopTimer()
		if got := w.Stats().Expired.Load(); got != uint64(records/100) {
			b.Errorf("expired %d, want %d", got, records/100)
		}
		b.ReportMetric(pass.Seconds(), "s/pass")
		b.ReportMetric(cpu.Seconds(), "process-cpu-s/pass")
		b.Logf("busy %.2f: idle pass (examined %d, expired %d) %v, the process used %v of CPU", busy,
			w.Stats().Examined.Load(), w.Stats().Expired.Load(), pass.Round(time.Millisecond), cpu.Round(time.Millisecond))
		return
	}
	srv := httptest.NewServer(api.New(layer, api.Options{Credentials: testCreds{testAccess: testSecret}}))
	defer srv.Close()
	// mixed runs one window of the mixed scenario and returns its ops/s
	// and the CPU time the process (gateway and clients) used meanwhile.
	mixed := func() (float64, time.Duration) {
		cpu0 := processCPU(b)
		rep, err := Run(context.Background(), Options{
			Endpoints:   []Endpoint{{Name: "gw", URL: srv.URL, Mode: ModeS3}},
			Credentials: Credentials{AccessKey: testAccess, SecretKey: testSecret},
			PathStyle:   true, Scenarios: []string{"mixed"}, Duration: window,
		}, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range rep.Scenarios[0].Results[0].Metrics {
			if m.Name == "ops/s" {
				return m.Value, processCPU(b) - cpu0
			}
		}
		b.Fatal("no ops/s in the mixed scenario's report")
		return 0, 0
	}
	// The worker's clock is three days ahead, so every matching object is
	// due.
	w := expire.New(expire.Options{Layer: layer, Busy: busy, Now: func() time.Time { return time.Now().Add(72 * time.Hour) }, Log: zerolog.Nop()})

	b.ResetTimer()
	before, cpuBefore := mixed()
	done := make(chan time.Duration, 1)
	go func() {
		t := time.Now()
		if err := w.Pass(context.Background()); err != nil {
			b.Error(err)
		}
		done <- time.Since(t)
	}()
	with, _ := mixed()
	pass := <-done
	// The machine is shared: the workload without a pass is measured
	// before and after the window with one, and their mean is the
	// reference.
	after, cpuAfter := mixed()
	without := (before + after) / 2
	// ops/s on a shared machine move by more than a pass costs; the CPU
	// time the pass used, against the CPU time a window of the workload
	// uses, is the cost that load does not blur: the share of the
	// workload's CPU the pass takes when they compete for it.
	passCPU := time.Duration(w.Stats().CPUNanos.Load())
	windowCPU := (cpuBefore + cpuAfter) / 2
	b.StopTimer()
	st := w.Stats()
	if got := st.Expired.Load(); got != uint64(records/100) {
		b.Errorf("expired %d, want %d", got, records/100)
	}
	b.ReportMetric(pass.Seconds(), "s/pass")
	b.ReportMetric(without, "mixed-ops/s-without")
	b.ReportMetric(with, "mixed-ops/s-with")
	b.ReportMetric(100*(without-with)/without, "%cost")
	b.ReportMetric(passCPU.Seconds(), "cpu-s/pass")
	b.ReportMetric(100*passCPU.Seconds()/windowCPU.Seconds(), "%cpu-of-window")
	b.Logf("busy %.2f: pass (examined %d, expired %d) %v under load, %v of CPU; mixed over %v: %.0f ops/s before, %.0f with the pass, %.0f after (%.1f%% cost); a window without a pass used %v of CPU (the pass %.1f%% of it)",
		busy, st.Examined.Load(), st.Expired.Load(), pass.Round(time.Millisecond), passCPU.Round(time.Millisecond), window, before, with, after, 100*(without-with)/without,
		windowCPU.Round(time.Millisecond), 100*passCPU.Seconds()/windowCPU.Seconds())
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
