package edge

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkSliceSync measures flush's open, sync and close of one cache
// file: "dirty" syncs a file just written, as a flush did a second after
// the fill; "written-back" syncs one whose pages were written out first
// (sync_file_range, outside the timing), as the kernel's flusher has
// done by syncAge. Besides ns/op it reports cpu-ns/op, the CPU the
// process spent in the timed part (nothing else runs in it), which is
// what the wait moves out of the edge's process: the dirty sync's wall
// time is mostly the disk's.
func BenchmarkSliceSync(b *testing.B) {
	for _, size := range []int{100 << 10, 1 << 20} {
		for _, written := range []bool{false, true} {
			name := fmt.Sprintf("%dKiB/dirty", size>>10)
			if written {
				name = fmt.Sprintf("%dKiB/written-back", size>>10)
			}
			b.Run(name, func(b *testing.B) {
				dir := b.TempDir()
				data := randomBytes(1, size)
				var cpu time.Duration
				i := 0
				for b.Loop() {
					b.StopTimer()
					p := filepath.Join(dir, fmt.Sprint(i))
					i++
					if err := os.WriteFile(p, data, 0o600); err != nil {
						b.Fatal(err)
					}
					if written {
						writeOut(b, p)
					}
					b.StartTimer()
					before := processCPU(b)
					f, err := os.Open(p)
					if err == nil {
						err = f.Sync()
						f.Close()
					}
					cpu += processCPU(b) - before
					b.StopTimer()
					if err != nil {
						b.Fatal(err)
					}
					os.Remove(p)
					b.StartTimer()
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// writeOut writes p's dirty pages to the disk and waits for them, as the
// kernel's flusher does, without a sync of the file.
func writeOut(b *testing.B, p string) {
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	flags := unix.SYNC_FILE_RANGE_WAIT_BEFORE | unix.SYNC_FILE_RANGE_WRITE | unix.SYNC_FILE_RANGE_WAIT_AFTER
	if err := unix.SyncFileRange(int(f.Fd()), 0, 0, flags); err != nil {
		b.Fatal(err)
	}
}

// processCPU is the process's CPU time. (RUSAGE_THREAD is no better
// here: on this benchmark's kernel it reported more CPU than wall time
// for a thread blocked in a sync.)
func processCPU(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFlushSync compares a flush's two ways of making a batch of
// just-filled cache files durable: an fsync of each ("fsync-each"), and
// one syncfs of their file system ("syncfs", syncBatch). An op is one
// batch of 100 files of 100 KiB, written and still open as the fill left
// them; "written-back" has their pages written out first (outside the
// timing), as the kernel's flusher has by syncAge. It reports cpu-ns per
// file, the CPU the process spent in the timed part (nothing else runs in
// it), and ns per file. The directory is the test's temporary one: set
// TMPDIR to measure another file system.
func BenchmarkFlushSync(b *testing.B) {
	const files, size = 100, 100 << 10
	data := randomBytes(2, size)
	for _, written := range []bool{false, true} {
		for _, mode := range []string{"fsync-each", "syncfs"} {
			state := "dirty"
			if written {
				state = "written-back"
			}
			b.Run(state+"/"+mode, func(b *testing.B) {
				dir := b.TempDir()
				syncDir, err := os.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				defer syncDir.Close()
				cat := &catalog{syncDir: syncDir}
				var cpu, wall time.Duration
				round := 0
				for b.Loop() {
					b.StopTimer()
					fs := make([]*os.File, files)
					paths := make([]string, files)
					for i := range fs {
						p := filepath.Join(dir, fmt.Sprintf("%d-%d", round, i))
						paths[i] = p
						f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := f.Write(data); err != nil {
							b.Fatal(err)
						}
						fs[i] = f
						if written {
							writeOut(b, p)
						}
					}
					round++
					b.StartTimer()
					before, start := processCPU(b), time.Now()
					if mode == "syncfs" {
						err = cat.syncBatch(fs, paths)
					} else {
						for _, f := range fs {
							if err = f.Sync(); err != nil {
								break
							}
						}
					}
					closeFiles(fs)
					cpu += processCPU(b) - before
					wall += time.Since(start)
					b.StopTimer()
					if err != nil {
						b.Fatal(err)
					}
					for i := range files {
						os.Remove(filepath.Join(dir, fmt.Sprintf("%d-%d", round-1, i)))
					}
					b.StartTimer()
				}
				n := float64(b.N * files)
				b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/file")
				b.ReportMetric(float64(wall.Nanoseconds())/n, "ns/file")
			})
		}
	}
}
